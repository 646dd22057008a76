"""Magnets game IDs (docs/specs/grid_puzzles.md §5 "Magnets"): four count lists, then the slot layout."""
from __future__ import annotations

from ....core.errors import ConfigError
from ..tatham.grammar import B62, Field, ParamFormat, b62_decode

PARAMS = ParamFormat(("W", "H"), (Field("tatham_difficulty", "d", choices="et"), Field("strip", "S", kind="flag")),
                     title="Magnets")
COUNTS = ("plus_cols", "plus_rows", "minus_cols", "minus_rows")
#: where each slot letter's partner lies
PARTNER = {"L": (0, 1), "R": (0, -1), "T": (1, 0), "B": (-1, 0)}
MATE = {"L": "R", "R": "L", "T": "B", "B": "T"}


def decode(params: dict, desc: str) -> dict:
    """``cp,rp,cn,rn,layout``: one B62 count per column or row (``.`` = no clue), then W*H slot
    letters from ``LRTB*`` (``*`` a single cell that belongs to no magnet)."""
    W, H = params["W"], params["H"]
    parts = desc.split(",")
    if len(parts) != 5:
        raise ConfigError(f"a Magnets description has 5 comma-separated parts (4 count lists and the layout), "
                          f"got {len(parts)}")
    state: dict = {"slots": None}
    for key, text, n in zip(COUNTS, parts, (W, H, W, H)):
        if len(text) != n:
            raise ConfigError(f"Magnets {key} needs {n} characters, got {text[:20]!r}")
        vals = [None if ch == "." else b62_decode(ch) for ch in text]
        if any(v is not None and v > (H if key.endswith("cols") else W) for v in vals):
            raise ConfigError(f"a Magnets count in {key} exceeds the length of its line")
        state[key] = vals
    layout = parts[4]
    if len(layout) != W * H or set(layout) - set("LRTB*"):
        raise ConfigError(f"a {W}x{H} Magnets layout is {W * H} characters from L, R, T, B, *; got {layout[:40]!r}")
    grid = [list(layout[r * W:(r + 1) * W]) for r in range(H)]
    for r in range(H):
        for c in range(W):
            ch = grid[r][c]
            if ch != "*":
                dr, dc = PARTNER[ch]
                if not (0 <= r + dr < H and 0 <= c + dc < W and grid[r + dr][c + dc] == MATE[ch]):
                    raise ConfigError(f"Magnets layout cell ({r}, {c}) is {ch!r} without its other half")
    state["slots"] = grid
    return {k: state[k] for k in ("slots", *COUNTS)}


def encode(state: dict) -> str:
    counts = ["".join("." if v is None else B62[v] for v in state[k]) for k in COUNTS]
    return ",".join(counts + ["".join(ch for row in state["slots"] for ch in row)])


def aux_solution(state: dict, aux: str) -> list[list]:
    """AUXINFO: ``+``, ``-`` or ``.`` per cell, row-major, as 1, -1, 0."""
    W = len(state["slots"][0])
    vals = [{"+": 1, "-": -1, ".": 0}[ch] for ch in aux]
    return [vals[r * W:(r + 1) * W] for r in range(len(state["slots"]))]
