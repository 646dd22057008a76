"""Net game IDs (docs/specs/grid_puzzles.md §5 "Net"): one MASK hex digit per tile, each followed by any
barriers (``v`` on its right side, ``h`` below it); ``w`` in the params means wrapping."""
from __future__ import annotations

from functools import lru_cache

from ....core.errors import ConfigError
from ..tatham.grammar import DIRECTIONS, Field, ParamFormat

PARAMS = ParamFormat(("W", "H"), (Field("wrap", "w", kind="flag", in_id=True),), title="Net")
TURN = "URDL"
#: each tile type's connections at orientation 0 (docs/specs/grid_puzzles.md §5 table)
CANONICAL = {"E": "U", "I": "UD", "C": "UR", "T": "URL", "X": "URDL"}


@lru_cache(maxsize=1024)
def rotate(dirs: str, degrees: int) -> str:
    """``dirs`` turned clockwise by ``degrees`` (a multiple of 90), in URDL order."""
    out = {TURN[(TURN.index(d) + degrees // 90) % 4] for d in dirs}
    return "".join(d for d in TURN if d in out)


ORIENTATIONS = (0, 90, 180, 270)
#: the turn after which a symmetric tile looks the same (others: 360)
PERIOD = {"I": 180, "X": 90}
#: the same in quarter turns, for every type
QUARTERS = {k: PERIOD.get(k, 360) // 90 for k in CANONICAL}
#: every connection set of each tile type, in CANONICAL's order
SHAPES = [{rotate(canon, o) for o in ORIENTATIONS} for canon in CANONICAL.values()]
#: the same sets as clauses over a tile's ends (1..4: U, R, D, L; negative: no end there), in
#: CANONICAL's order: E one end, I two opposite, C one of U/D and one of R/L, T three, X four
SHAPE_CNF = [((1, 2, 3, 4), (-1, -2), (-1, -3), (-1, -4), (-2, -3), (-2, -4), (-3, -4)),
             ((-1, 3), (1, -3), (-2, 4), (2, -4), (1, 2), (-1, -2)),
             ((-1, -3), (-2, -4), (1, 3), (2, 4)),
             ((1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4), (-1, -2, -3, -4)),
             ((1,), (2,), (3,), (4,))]


@lru_cache(maxsize=64)
def tile_of(dirs: str) -> tuple[str, int]:
    """(type, smallest orientation) of a connection string."""
    for kind, canon in CANONICAL.items():
        if len(canon) == len(dirs):
            for deg in (0, 90, 180, 270):
                if rotate(canon, deg) == dirs:
                    return kind, deg
    raise ConfigError(f"a Net tile needs at least one connection, got {dirs!r}")


def tile(dirs: str) -> dict:
    """A tile of the state: its connections now, its type and its current orientation."""
    kind, deg = tile_of(dirs)
    return {"dirs": dirs, "orientation": deg, "type": kind}  # sorted keys: JSON round trips keep the order


def _mask(ch: str) -> str:
    if ch not in "0123456789abcdefABCDEF":
        raise ConfigError(f"unexpected character {ch!r} in the Net description (a tile is one hex digit)")
    m = int(ch, 16)
    return "".join(d for d in TURN if m & DIRECTIONS[d])


def decode(params: dict, desc: str) -> dict:
    W, H, wrap = params["W"], params["H"], bool(params.get("wrap"))
    if len(desc) > 3 * W * H:
        raise ConfigError(f"the Net description is longer than a {W}x{H} grid allows")
    tiles: list[dict] = []
    barriers: set[tuple[int, int, str]] = set()
    for ch in desc:
        if ch in "hv":
            if not tiles:
                raise ConfigError(f"a Net barrier {ch!r} must follow a tile")
            r, c = divmod(len(tiles) - 1, W)
            side = "R" if ch == "v" else "D"
            if wrap or (side == "R" and c < W - 1) or (side == "D" and r < H - 1):
                barriers.add((r, c, side))  # one on the outer border of a non-wrapping grid means nothing
            continue
        if len(tiles) == W * H:
            raise ConfigError(f"the Net description has more than {W * H} tiles")
        tiles.append(tile(_mask(ch)))
    if len(tiles) != W * H:
        raise ConfigError(f"the Net description has {len(tiles)} tiles, expected {W * H}")
    return {"tiles": [tiles[r * W:(r + 1) * W] for r in range(H)], "wrap": wrap,
            "barriers": [list(b) for b in sorted(barriers)]}


@lru_cache(maxsize=64)
def _hex(dirs: str) -> str:
    return f"{sum(DIRECTIONS[d] for d in dirs):x}"


def encode(state: dict) -> str:
    here = {(int(r), int(c), s) for r, c, s in state.get("barriers", [])}
    if not here:  # the common case, one digit per tile (the fast path)
        return "".join([_hex(tile["dirs"]) for row in state["tiles"] for tile in row])
    out = []
    for r, row in enumerate(state["tiles"]):
        for c, tile in enumerate(row):
            out.append(_hex(tile["dirs"]))
            out += ["v"] * ((r, c, "R") in here) + ["h"] * ((r, c, "D") in here)
    return "".join(out)


def aux_solution(state: dict, aux: str) -> list[list]:
    """AUXINFO: the solved tile masks, one hex digit per cell, as orientations (the smallest of
    the equivalent ones for symmetric tiles)."""
    tiles = [t for row in state["tiles"] for t in row]
    if len(aux) != len(tiles):
        raise ConfigError(f"Net AUXINFO has {len(aux)} tiles, expected {len(tiles)}")
    W = len(state["tiles"][0])
    out = []
    for t, ch in zip(tiles, aux):
        kind, deg = tile_of(_mask(ch))
        if kind != t["type"]:
            raise ConfigError("Net AUXINFO changes a tile's type")
        out.append(deg)
    return [out[i:i + W] for i in range(0, len(out), W)]
