"""Unequal game IDs (docs/specs/grid_puzzles.md §5 "Unequal"): ``N[a]:`` then n*n comma-terminated tokens.

A token is a value (0 = empty) followed by direction flags ``U``/``R``/``D``/``L``: in Unequal
mode the cell is greater than its neighbour that way; in Adjacent mode (``a``) the pair differs
by one, and the flag is set on both cells. Letters ``a``..``z`` before a token skip 1..26 empty
cells (Tatham's parser accepts them; its generator never writes them).
"""
from __future__ import annotations

from ....core.errors import ConfigError
from ..tatham.grammar import Field, ParamFormat

PARAMS = ParamFormat(("n",), (Field("adjacent", "a", kind="flag", in_id=True),
                              Field("tatham_difficulty", "d", choices="tekxr")), title="Unequal")
STEP = {"U": (-1, 0), "R": (0, 1), "D": (1, 0), "L": (0, -1)}
OPPOSITE = {"U": "D", "R": "L", "D": "U", "L": "R"}


def decode(params: dict, desc: str) -> dict:
    n = params["n"]
    adjacent = bool(params.get("adjacent"))
    area = n * n
    values, flags = [0] * area, [set() for _ in range(area)]
    i = p = 0
    while p < len(desc):
        while p < len(desc) and "a" <= desc[p] <= "z":
            i += ord(desc[p]) - ord("a") + 1
            p += 1
        if i >= area:
            raise ConfigError(f"the Unequal description has more than {area} cells")
        q = p
        while q < len(desc) and desc[q].isdigit() and q - p < 3:
            q += 1
        if q == p:
            raise ConfigError(f"expected a number at position {p} of the Unequal description")
        values[i] = int(desc[p:q])
        if values[i] > n:
            raise ConfigError(f"Unequal value {values[i]} is outside 0..{n}")
        while q < len(desc) and desc[q] in STEP:
            flags[i].add(desc[q])
            q += 1
        if q >= len(desc) or desc[q] != ",":
            raise ConfigError(f"expected ',' after cell {i} of the Unequal description")
        p, i = q + 1, i + 1
    if i != area:
        raise ConfigError(f"the Unequal description covers {i} cells, expected {area}")
    pairs = set()
    for k in range(area):
        r, c = divmod(k, n)
        for d in sorted(flags[k]):
            rr, cc = r + STEP[d][0], c + STEP[d][1]
            if not (0 <= rr < n and 0 <= cc < n):
                raise ConfigError(f"an Unequal flag at cell ({r}, {c}) points off the grid")
            if (OPPOSITE[d] in flags[rr * n + cc]) != adjacent:
                raise ConfigError(f"the Unequal flags of cells ({r}, {c}) and ({rr}, {cc}) contradict each other")
            pairs.add(((r, c), (rr, cc)) if not adjacent else tuple(sorted([(r, c), (rr, cc)])))
    state = {"n": n, "mode": "adjacent" if adjacent else "unequal",
             "grid": [values[r * n:(r + 1) * n] for r in range(n)]}
    state["adj" if adjacent else "gt"] = [[list(a), list(b)] for a, b in sorted(pairs)]
    return state


def encode(state: dict) -> str:
    n = state["n"]
    flags = [[set() for _ in range(n)] for _ in range(n)]
    if state["mode"] not in ("unequal", "adjacent"):
        raise ConfigError(f"Unequal mode {state['mode']!r} is not one of: unequal, adjacent")
    adjacent = state["mode"] == "adjacent"
    for a, b in state["adj" if adjacent else "gt"]:
        for (r, c), (rr, cc) in ((a, b), (b, a)) if adjacent else ((a, b),):
            d = next((k for k, (dr, dc) in STEP.items() if (r + dr, c + dc) == (rr, cc)), None)
            if d is None or not (0 <= r < n and 0 <= c < n):
                raise ConfigError(f"Unequal pair {[a, b]} is not two neighbouring cells of the grid")
            flags[r][c].add(d)
    return "".join(f"{int(v)}{''.join(d for d in 'URDL' if d in flags[r][c])},"
                   for r, row in enumerate(state["grid"]) for c, v in enumerate(row))


def neighbour_pairs(n: int) -> list[tuple]:
    """Every pair of orthogonal neighbours ``(a, b)`` with ``a`` before ``b`` in reading order."""
    return [((r, c), (r, c + 1)) for r in range(n) for c in range(n - 1)] + \
        [((r, c), (r + 1, c)) for r in range(n - 1) for c in range(n)]


def diagram(state: dict, grid: list[list]) -> str:
    """Tatham's text layout: ``<``/``>`` between columns and ``^``/``v`` between rows open towards
    the larger number; in Adjacent mode ``|`` and ``-`` mark pairs that differ by one."""
    n, adjacent = state["n"], state["mode"] == "adjacent"
    rel = {tuple(map(tuple, p)) for p in state.get("adj" if adjacent else "gt", [])}

    def sign(a, b, marks):  # marks: (adjacent, a greater, b greater)
        if adjacent:
            return marks[0] if (a, b) in rel else " "
        return marks[1] if (a, b) in rel else marks[2] if (b, a) in rel else " "

    lines = []
    for r in range(n):
        cells = [str(grid[r][c]) if grid[r][c] else "." for c in range(n)]
        lines.append("".join(cells[c] + (f" {sign((r, c), (r, c + 1), '|><')} " if c < n - 1 else "")
                             for c in range(n)).rstrip())
        if r < n - 1:
            lines.append("   ".join(sign((r, c), (r + 1, c), "-v^") for c in range(n)).rstrip())
    return "\n".join(lines)


def aux_solution(state: dict, aux: str) -> list[list]:
    """AUXINFO ``S`` plus n*n digits."""
    n = state["n"]
    return [[int(ch) for ch in aux[1 + r * n:1 + (r + 1) * n]] for r in range(n)]
