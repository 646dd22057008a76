"""Undead game IDs (docs/specs/grid_puzzles.md §5 "Undead"): the three totals, the cells, the 2(W+H) sight counts."""
from __future__ import annotations

from ....core.errors import ConfigError
from ..tatham.grammar import Field, ParamFormat, run_letters
from .geometry import sight_line

PARAMS = ParamFormat(("W", "H"), (Field("tatham_difficulty", "d", choices="ent"),), title="Undead")
MONSTERS = ("G", "V", "Z")
MIRRORS = ("\\", "/")
SIDES = ("top", "bottom", "left", "right")
#: the ID's mirror letters: L is "\" (it leans left), R is "/"
MIRROR_OF = {"L": "\\", "R": "/"}
LETTER_OF = {"\\": "L", "/": "R"}


def _number(tok: str, what: str) -> int:
    if not tok.isdigit() or len(tok) > 4:
        raise ConfigError(f"Undead {what} {tok[:10]!r} is not a number")
    return int(tok)


def decode(params: dict, desc: str) -> dict:
    """``G,V,Z,`` then the cells (``L`` = ``\\``, ``R`` = ``/``, ``G``/``V``/``Z`` a given monster, a
    letter ``a``..``z`` = that many empty cells), then the sight counts clockwise from the top left:
    top (left to right), right (top to bottom), bottom (right to left), left (bottom to top)."""
    W, H = params["W"], params["H"]
    parts = desc.split(",")
    if len(parts) != 4 + 2 * (W + H):
        raise ConfigError(f"a {W}x{H} Undead description has 3 totals, the cells and {2 * (W + H)} sight counts "
                          f"({4 + 2 * (W + H)} comma-separated parts), got {len(parts)}")
    totals = {t: _number(tok, f"total of {t}") for t, tok in zip(MONSTERS, parts[:3])}
    cells: list[str] = []
    for ch in parts[3]:
        if ch in MIRROR_OF:
            cells.append(MIRROR_OF[ch])
        elif ch in MONSTERS:
            cells.append(ch)
        elif "a" <= ch <= "z":
            cells.extend(["."] * (ord(ch) - ord("a") + 1))
        else:
            raise ConfigError(f"unexpected character {ch!r} in the Undead cells")
        if len(cells) > W * H:
            raise ConfigError(f"the Undead cells run past the {W * H} cells of the grid")
    if len(cells) != W * H:
        raise ConfigError(f"the Undead cells cover {len(cells)} cells, a {W}x{H} grid has {W * H}")
    if sum(totals.values()) != sum(ch not in LETTER_OF for ch in cells):
        raise ConfigError("the Undead totals do not add up to the number of cells without a mirror")
    nums = [_number(tok, "sight count") for tok in parts[4:]]
    if any(n > 2 * W * H for n in nums):
        raise ConfigError("an Undead sight count exceeds what any line of sight can see")
    return {"grid": [cells[r * W:(r + 1) * W] for r in range(H)], "totals": totals,
            "top": nums[:W], "bottom": nums[W + H:2 * W + H][::-1],
            "left": nums[2 * W + H:][::-1], "right": nums[W:W + H]}


def encode(state: dict) -> str:
    out, run = [], 0
    for ch in (v for row in state["grid"] for v in row):
        if ch == ".":
            run += 1
            continue
        out.append(run_letters(run) + LETTER_OF.get(ch, ch))
        run = 0
    nums = state["top"] + state["right"] + state["bottom"][::-1] + state["left"][::-1]
    return ",".join([str(state["totals"][t]) for t in MONSTERS] + ["".join(out) + run_letters(run)] + [str(n) for n in nums])


def visible(kind: str, turned: bool) -> bool:
    """Zombies are always seen; vampires only straight on; ghosts only in a mirror."""
    return kind == "Z" or kind == ("G" if turned else "V")


def state_of(layout: list[list[str]], sol: list[list[str]]) -> dict:
    """The state of a layout and solution: the mirrors, every total and every sight count."""
    H, W = len(layout), len(layout[0])
    state = {"grid": [list(row) for row in layout],
             "totals": {t: sum(v == t for row in sol for v in row) for t in MONSTERS}}
    for side in SIDES:
        state[side] = [sum(visible(sol[r][c], t) for (r, c), t in sight_line(layout, side, i))
                       for i in range(W if side in ("top", "bottom") else H)]
    return state
