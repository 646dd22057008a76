"""Claims about grid puzzles and their verification labels (docs/specs/grid_puzzles.md §7;
docs/specs/reasoning_graphs.md §2, §6).

Public API (used by ``kumo_gym.analysis``):

* ``label_claim(instance, claim, solution=None, profile="default") -> "correct" | "incorrect" | "unverifiable"``
* ``claim_types(family) -> list[str]`` -- the claim kinds a puzzle knows.
* ``solution_claims(instance) -> list[dict]`` -- C*, the minimal statement of the solution.
* ``claim_class(family, kind) -> "solution" | "clue" | "state"`` -- static (solution/clue) or not.

A claim is a dict ``{"type": KIND, ...payload}`` (``"kind"`` is accepted for ``"type"``, and the
payload may also sit under ``"payload"``). Coordinates are 0-based ``(r, c)``, row from the top
(docs/specs/grid_puzzles.md §1). Solution claims are checked against the unique solution (``instance.data["solution"]``,
or ``solution=``), clue claims against the instance, state-dependent claims are
``unverifiable`` (with ``profile="consistency"`` some of them can be found ``incorrect``,
docs/specs/reasoning_graphs.md §2). A claim about a cell outside the grid is ``incorrect``; a claim whose
kind the puzzle does not know, or whose payload lacks a field, raises ``ClaimError``.

Schema
------
Every puzzle:
    ``cell {row, col, value, negated}`` -- the solution holds ``value`` at (row, col) (or not).
Solo (docs/specs/reasoning_graphs.md §6 "Sudoku"):
    ``Assign {r, c, d}`` solution; ``Given {r, c, d}`` clue; ``UnitHas {unit, index, digit}``
    (correct when the digit is a given in that unit, else unverifiable); state:
    ``Cand {r, c, d[], polarity IN|OUT}``, ``UnitMissing {unit, index, d[]}``,
    ``UnitPlaces {unit, index, digit, cell_r[], cell_c[]}``, ``Contradiction {branch, note}``.
    ``unit`` is ROW, COL or BOX; BOX index = (r // box_h) * (n // box_w) + c // box_w.
Tents (docs/specs/reasoning_graphs.md §6 "Tents"):
    ``Tent {r, c}``, ``NotTent {r, c}`` solution; ``Tree {r, c}``, ``Quota {axis, index, tents}``
    clue (axis ROW or COL); state: ``Remaining {axis, index, remaining}``,
    ``TreeCandidate {tree_r, tree_c, cell_r[], cell_c[]}``, ``LineCandidates {axis, index, cell_r[],
    cell_c[]}``, ``Contradiction {branch, note}``.
Towers: ``Cell {r, c, v}``, ``NotCell {r, c, v}`` solution; ``Given {r, c, v}``,
    ``EdgeClue {side TOP|BOTTOM|LEFT|RIGHT, index, n}`` clue; ``Cand``, ``Contradiction`` state.
Keen: ``Cell``/``NotCell {r, c, v}`` solution; ``Cage {cells, op, target}`` clue (``cells`` a list of
    [r, c] in any order, ``op`` one of + x - /); ``Cand``, ``Contradiction`` state.
Unequal: ``Cell``/``NotCell {r, c, v}`` solution; ``Given {r, c, v}``, ``Greater {a, b}`` (the cell
    ``a`` = [r, c] holds more than its neighbour ``b``: a sign of the puzzle) and ``Adj {a, b}``
    (Adjacent mode: the pair is marked, so it differs by one) clue; ``Cand``, ``Contradiction`` state.
Lightup: ``Light``/``NoLight {r, c}``; clue ``Black {r, c, n}`` (n null for an unnumbered block).
Rect: ``Rect {r0, c0, r1, c1}`` (corners inclusive; C* = one per rectangle), ``NotRect`` (that
    rectangle is not one of the solution's), ``SameRegion`` / ``DiffRegion {a, b}`` (cells
    ``[r, c]``) solution; ``Clue {r, c, n}`` clue.
Signpost: ``Cell``/``NotCell {r, c, v}`` solution (C* = every cell); ``Given {r, c, v}``,
    ``Arrow {r, c, dir}`` (N, NE, ..., NW) clue.
Mosaic, Pattern, Unruly, Singles, Range: ``Black``/``White {r, c}``; clues Mosaic and Range
    ``Clue {r, c, n}``, Pattern ``LineClue {axis, index, runs[]}``, Unruly ``Given {r, c, v}``
    (v 1 black, 0 white), Singles ``Number {r, c, n}`` (the number printed in a cell).
Filling: ``Cell {r, c, v}``, ``NotCell {r, c, v}`` solution (C* = every cell); ``Given {r, c, v}``
    clue; ``Cand`` state.
Dominosa: ``Domino {cells: [[r1, c1], [r2, c2]]}`` / ``NotDomino {cells}`` solution (the two cells
    form one domino of the solution, or not; C* = one ``Domino`` per domino); clue ``Number {r, c, n}``.
Magnets: ``Pole {r, c, v}`` / ``NotPole {r, c, v}`` solution (v 1 for +, -1 for -, 0 blank; C* = a Pole
    for every cell with v != 0); clues
    ``Count {axis ROW|COL, index, sign + or -, n}`` (a hidden count is checked against the solution)
    and ``Slot {cells: [[r1, c1], [r2, c2]]}`` (the two cells form one slot of the layout).
Tracks, Pearl: ``Edge {a: [r, c], b: [r, c], on}`` (the line joins the two adjacent cells, or not;
    Tracks' two border ends are edges to the off-grid cells (entry_row, -1) and (H, exit_col)),
    ``OnPath``/``OffPath {r, c}`` solution; C* is every edge of the line with on=true. Clues:
    Tracks ``Count {axis, index, n}``, ``Endpoint {side LEFT|BOTTOM, index}``, ``GivenPiece {r, c,
    dirs}``; Pearl ``Pearl {r, c, color B|W}`` (BLACK/WHITE accepted too).
Net: ``TileDirs {r, c, dirs}`` (the solved tile's pipe directions, letters of URDL in any order),
    ``Link {a: [r, c], b: [r, c], on}`` (whether pipes join the two neighbouring tiles) solution;
    ``Tile {r, c, type}`` (E, I, C, T or X) and ``Ends {r, c, n}`` (its number of pipe ends)
    clue. A ``cell`` claim's orientation is compared by the
    connections it gives, so equivalent orientations of symmetric tiles are the same claim.
Undead: ``Monster {r, c, t}`` / ``NotMonster {r, c, t}`` solution (t G, V or Z; C* = a Monster for every
    cell without a mirror); clues
    ``Mirror {r, c, kind}`` (kind ``\\`` or ``/``, or BACKSLASH / SLASH), ``Total {t, n}``,
    ``Sight {side TOP|BOTTOM|LEFT|RIGHT, index, n}``.
Galaxies: ``InRegion {r, c, dot}`` (cell (r, c) lies in the region of dot index ``dot``),
    ``SameRegion`` / ``DiffRegion {a: [r, c], b: [r, c]}`` solution; ``Dot {r2, c2}`` clue (a dot
    at that half-cell position).
"""
from __future__ import annotations

from typing import Any

from ...core.errors import ConfigError
from ...core.instance import Instance
from .answer import normalize_cell

CORRECT, INCORRECT, UNVERIFIABLE = "correct", "incorrect", "unverifiable"
PROFILES = ("default", "consistency")


class ClaimError(ConfigError):
    """A claim that does not follow the schema (unknown kind, missing or malformed field)."""


#: family -> kind -> "solution" | "clue" | "state"
KINDS: dict[str, dict[str, str]] = {
    "solo": {"Assign": "solution", "Given": "clue", "UnitHas": "clue", "Cand": "state", "UnitMissing": "state",
             "UnitPlaces": "state", "Contradiction": "state"},
    "tents": {"Tent": "solution", "NotTent": "solution", "Tree": "clue", "Quota": "clue", "Remaining": "state",
              "TreeCandidate": "state", "LineCandidates": "state", "Contradiction": "state"},
    "towers": {"Cell": "solution", "NotCell": "solution", "Given": "clue", "EdgeClue": "clue", "Cand": "state",
               "Contradiction": "state"},
    "keen": {"Cell": "solution", "NotCell": "solution", "Cage": "clue", "Cand": "state", "Contradiction": "state"},
    "unequal": {"Cell": "solution", "NotCell": "solution", "Given": "clue", "Greater": "clue", "Adj": "clue",
                "Cand": "state", "Contradiction": "state"},
    "lightup": {"Light": "solution", "NoLight": "solution", "Black": "clue", "Contradiction": "state"},
    "mosaic": {"Black": "solution", "White": "solution", "Clue": "clue", "Contradiction": "state"},
    "pattern": {"Black": "solution", "White": "solution", "LineClue": "clue", "Contradiction": "state"},
    "unruly": {"Black": "solution", "White": "solution", "Given": "clue", "Contradiction": "state"},
    "dominosa": {"Domino": "solution", "NotDomino": "solution", "Number": "clue", "Contradiction": "state"},
    "rect": {"Rect": "solution", "NotRect": "solution", "SameRegion": "solution", "DiffRegion": "solution",
             "Clue": "clue", "Contradiction": "state"},
    "signpost": {"Cell": "solution", "NotCell": "solution", "Given": "clue", "Arrow": "clue", "Cand": "state",
                 "Contradiction": "state"},
    "singles": {"Black": "solution", "White": "solution", "Number": "clue", "Contradiction": "state"},
    "range": {"Black": "solution", "White": "solution", "Clue": "clue", "Contradiction": "state"},
    "filling": {"Cell": "solution", "NotCell": "solution", "Given": "clue", "Cand": "state", "Contradiction": "state"},
    "magnets": {"Pole": "solution", "NotPole": "solution", "Count": "clue", "Slot": "clue", "Contradiction": "state"},
    "tracks": {"Edge": "solution", "OnPath": "solution", "OffPath": "solution", "Count": "clue", "Endpoint": "clue",
               "GivenPiece": "clue", "Contradiction": "state"},
    "pearl": {"Edge": "solution", "OnPath": "solution", "OffPath": "solution", "Pearl": "clue",
              "Contradiction": "state"},
    "net": {"TileDirs": "solution", "Link": "solution", "Tile": "clue", "Ends": "clue", "Contradiction": "state"},
    "undead": {"Monster": "solution", "NotMonster": "solution", "Mirror": "clue", "Total": "clue", "Sight": "clue",
               "Contradiction": "state"},
    "galaxies": {"InRegion": "solution", "SameRegion": "solution", "DiffRegion": "solution", "Dot": "clue",
                 "Contradiction": "state"},
}
#: the puzzles whose solution is a line through cell centres (claims about edges, docs/specs/grid_puzzles.md §7)
LINES = ("tracks", "pearl")
#: the value of "black" in each two-colour puzzle's answer grid (docs/specs/grid_puzzles.md §5)
BLACK = {"mosaic": (1, 2), "pattern": (1, 0), "unruly": (1, 0)}
#: puzzles whose answer writes -1 for black and anything else (0, a number) for white
MINUS_BLACK = ("singles", "range")


def claim_types(family: str) -> list[str]:
    """The claim kinds of ``family`` (always including the generic ``cell``)."""
    return ["cell"] + list(KINDS.get(family.lower(), {}))


def claim_class(family: str, kind: str) -> str:
    if kind == "cell":
        return "solution"
    try:
        return KINDS[family.lower()][kind]
    except KeyError:
        raise ClaimError(f"claim kind {kind!r} is not one of: {', '.join(claim_types(family))}") from None


def _task(family: str):
    from .tatham import grid_task

    return grid_task(family)


def _payload(claim: dict) -> tuple[str, dict]:
    if not isinstance(claim, dict):
        raise ClaimError(f"a claim must be a dict, got {type(claim).__name__}")
    kind = claim.get("type", claim.get("kind"))
    if not isinstance(kind, str):
        raise ClaimError("a claim needs a 'type' (or 'kind') string")
    payload = claim.get("payload") if isinstance(claim.get("payload"), dict) else claim
    return kind, payload


def _int(p: dict, key: str) -> int:
    v = p.get(key)
    if isinstance(v, bool) or not isinstance(v, int):
        raise ClaimError(f"claim field {key!r} must be an integer, got {v!r}")
    return v


def _ints(p: dict, key: str) -> list[int]:
    v = p.get(key)
    if isinstance(v, int) and not isinstance(v, bool):
        return [v]
    if not isinstance(v, (list, tuple)) or not all(isinstance(x, int) and not isinstance(x, bool) for x in v):
        raise ClaimError(f"claim field {key!r} must be a list of integers, got {v!r}")
    return list(v)


def _axis(p: dict, key: str, choices: tuple[str, ...]) -> str:
    v = str(p.get(key, "")).upper()
    if v not in choices:
        raise ClaimError(f"claim field {key} {p.get(key)!r} is not one of: {', '.join(choices)}")
    return v


def _inside(H: int, W: int, r: int, c: int) -> bool:
    return 0 <= r < H and 0 <= c < W


def _verdict(ok: bool) -> str:
    return CORRECT if ok else INCORRECT


def label_claim(instance: Instance | dict | str, claim: dict, solution: list[list] | None = None,
                profile: str = "default") -> str:
    """Label one claim ``correct``, ``incorrect`` or ``unverifiable`` (docs/specs/reasoning_graphs.md §2 rules 2-5)."""
    if profile not in PROFILES:
        raise ClaimError(f"profile {profile!r} is not one of: {', '.join(PROFILES)}")
    if not isinstance(instance, Instance):
        raise ClaimError("label_claim needs an Instance (load IDs with the puzzle's task.load first)")
    family = instance.family
    kind, p = _payload(claim)
    cls = claim_class(family, kind)
    H, W = int(instance.data["H"]), int(instance.data["W"])
    if cls == "solution":
        sol = solution or instance.data.get("solution") or _task(family).solve(instance)
        if family in SOLUTION_LABELLERS:
            return SOLUTION_LABELLERS[family](instance, kind, p, sol, H, W)
        return _label_solution(family, kind, p, sol, H, W)
    if cls == "clue":
        return _label_clue(instance, family, kind, p, H, W)
    if kind == "Contradiction" or profile == "default":
        return UNVERIFIABLE
    sol = solution or instance.data.get("solution") or _task(family).solve(instance)
    return _label_consistency(instance, family, kind, p, sol, H, W)


def _label_solution(family: str, kind: str, p: dict, sol: list[list], H: int, W: int) -> str:
    if kind == "cell":
        r, c = _int(p, "row"), _int(p, "col")
        if not _inside(H, W, r, c):
            return INCORRECT
        same = sol[r][c] == normalize_cell(p.get("value"))
        return _verdict(same != bool(p.get("negated", False)))
    if family == "dominosa":
        return _label_domino(kind, p, sol, H, W)
    if family == "rect":
        return _label_rect(kind, p, sol, H, W)
    if family == "magnets":
        r, c = _int(p, "r"), _int(p, "c")
        return _verdict(_inside(H, W, r, c) and (sol[r][c] == _int(p, "v")) == (kind == "Pole"))
    if family in LINES:
        return _label_line(kind, p, sol, H, W)
    if family == "undead":
        r, c = _int(p, "r"), _int(p, "c")
        return _verdict(_inside(H, W, r, c) and (sol[r][c] == str(p.get("t", "")).upper()) == (kind == "Monster"))
    r, c = _int(p, "r"), _int(p, "c")
    if not _inside(H, W, r, c):
        return INCORRECT
    v = sol[r][c]
    if family == "solo":
        return _verdict(v == _int(p, "d"))
    if family == "tents":
        return _verdict((v == "A") == (kind == "Tent"))
    if family in ("towers", "keen", "unequal", "signpost", "filling"):
        return _verdict((v == _int(p, "v")) == (kind == "Cell"))
    if family in MINUS_BLACK:
        return _verdict((v == -1) == (kind == "Black"))
    if family == "lightup":
        return _verdict((v == "L") == (kind == "Light"))
    black, white = BLACK[family]
    return _verdict(v == (black if kind == "Black" else white))


def _pair(p: dict) -> tuple[tuple[int, int], tuple[int, int]]:
    cells = p.get("cells")
    if not (isinstance(cells, (list, tuple)) and len(cells) == 2):
        raise ClaimError(f"claim field 'cells' must be two [row, column] pairs, got {str(cells)[:60]}")
    a, b = (tuple(_ints({"x": x}, "x")) for x in cells)
    if len(a) != 2 or len(b) != 2:
        raise ClaimError(f"claim field 'cells' must be two [row, column] pairs, got {str(cells)[:60]}")
    return a, b


def _label_domino(kind: str, p: dict, sol: list[list], H: int, W: int) -> str:
    (r1, c1), (r2, c2) = sorted(_pair(p))
    if not (_inside(H, W, r1, c1) and _inside(H, W, r2, c2)) or abs(r1 - r2) + abs(c1 - c2) != 1:
        return INCORRECT
    placed = (sol[r1][c1], sol[r2][c2]) == (("L", "R") if r1 == r2 else ("T", "B"))
    return _verdict(placed == (kind == "Domino"))


def _cell(p: dict, key: str) -> tuple[int, int]:
    v = p.get(key)
    if not (isinstance(v, (list, tuple)) and len(v) == 2 and all(isinstance(x, int) and not isinstance(x, bool) for x in v)):
        raise ClaimError(f"claim field {key!r} must be a [row, column] pair of integers, got {v!r}")
    return int(v[0]), int(v[1])


def line_edges(sol: list[list]) -> set[tuple[tuple[int, int], tuple[int, int]]]:
    """The edges (cell pairs, sorted) of a Tracks answer (direction strings; the border ends join
    an off-grid cell) or a Pearl answer (loop numbers: k joins k + 1, and L joins 1)."""
    steps = {"U": (-1, 0), "R": (0, 1), "D": (1, 0), "L": (0, -1)}
    out = set()
    if any(isinstance(v, str) for row in sol for v in row):
        for r, row in enumerate(sol):
            for c, v in enumerate(row):
                for d in str(v):
                    if d in steps:
                        out.add(tuple(sorted(((r, c), (r + steps[d][0], c + steps[d][1])))))
        return out
    where = {v: (r, c) for r, row in enumerate(sol) for c, v in enumerate(row) if isinstance(v, int) and v > 0}
    n = len(where)
    for k, a in where.items():
        b = where.get(k % n + 1)
        if b is not None and abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1:
            out.add(tuple(sorted((a, b))))
    return out


def _label_line(kind: str, p: dict, sol: list[list], H: int, W: int) -> str:
    edges = line_edges(sol)
    if kind == "Edge":
        a, b = _cell(p, "a"), _cell(p, "b")
        on = p.get("on", True)
        if not isinstance(on, bool):
            raise ClaimError(f"claim field 'on' must be true or false, got {on!r}")
        if abs(a[0] - b[0]) + abs(a[1] - b[1]) != 1 or not (_inside(H, W, *a) or _inside(H, W, *b)):
            return INCORRECT
        return _verdict((tuple(sorted((a, b))) in edges) == on)
    r, c = _int(p, "r"), _int(p, "c")
    if not _inside(H, W, r, c):
        return INCORRECT
    v = sol[r][c]
    return _verdict((v not in ("", -1)) == (kind == "OnPath"))


def _label_rect(kind: str, p: dict, sol: list[list], H: int, W: int) -> str:
    """Rect solution claims: regions are compared, never label values."""
    if kind in ("Rect", "NotRect"):
        r0, c0, r1, c1 = (_int(p, k) for k in ("r0", "c0", "r1", "c1"))
        if not (_inside(H, W, r0, c0) and _inside(H, W, r1, c1) and r0 <= r1 and c0 <= c1):
            return INCORRECT
        label = sol[r0][c0]
        inside = {(r, c) for r in range(r0, r1 + 1) for c in range(c0, c1 + 1)}
        region = inside == {(r, c) for r in range(H) for c in range(W) if sol[r][c] == label}
        return _verdict(region == (kind == "Rect"))
    (ra, ca), (rb, cb) = _cell(p, "a"), _cell(p, "b")
    if not (_inside(H, W, ra, ca) and _inside(H, W, rb, cb)):
        return INCORRECT
    return _verdict((sol[ra][ca] == sol[rb][cb]) == (kind == "SameRegion"))


def _label_magnets_clue(instance: Instance, kind: str, p: dict, H: int, W: int) -> str:
    st = instance.data["state"]
    if kind == "Slot":
        (r1, c1), (r2, c2) = sorted(_pair(p))
        if not (_inside(H, W, r1, c1) and _inside(H, W, r2, c2)):
            return INCORRECT
        return _verdict((r2 - r1, c2 - c1, st["slots"][r1][c1], st["slots"][r2][c2]) in ((0, 1, "L", "R"), (1, 0, "T", "B")))
    axis, i = _axis(p, "axis", ("ROW", "COL")), _int(p, "index")
    sign = {"+": 1, "PLUS": 1, "1": 1, "-": -1, "MINUS": -1, "-1": -1}.get(str(p.get("sign", "")).upper())
    if sign is None:
        raise ClaimError(f"claim field sign {p.get('sign')!r} is not one of: +, -")
    counts = st[("plus_" if sign == 1 else "minus_") + ("rows" if axis == "ROW" else "cols")]
    if not 0 <= i < len(counts):
        return INCORRECT
    clue = counts[i]
    if clue is None:  # not shown: the count is still a fact of the unique solution
        sol = instance.data.get("solution") or _task(instance.family).solve(instance)
        line = sol[i] if axis == "ROW" else [row[i] for row in sol]
        clue = sum(v == sign for v in line)
    return _verdict(clue == _int(p, "n"))
def _net_dirs(instance: Instance, sol: list[list], r: int, c: int) -> str:
    from .tatham import codec

    net = codec("net")
    return net.rotate(net.CANONICAL[instance.data["state"]["tiles"][r][c]["type"]], sol[r][c])


def _dir_letters(p: dict, key: str) -> frozenset:
    v = p.get(key)
    if not isinstance(v, str) or not set(v.upper()) <= set("URDL"):
        raise ClaimError(f"claim field {key!r} must be a string of directions U, R, D, L, got {v!r}")
    return frozenset(v.upper())


def _label_net(instance: Instance, kind: str, p: dict, sol: list[list], H: int, W: int) -> str:
    """Net solution claims: a tile's connections (an orientation is read as the connections it gives)."""
    from .geometry import STEP
    from .tatham import codec

    CANONICAL, rotate = codec("net").CANONICAL, codec("net").rotate
    if kind == "Link":
        a, b = (_ints(p, k) for k in ("a", "b"))
        if len(a) != 2 or len(b) != 2 or not (_inside(H, W, *a) and _inside(H, W, *b)):
            return INCORRECT
        wrap = instance.data["state"]["wrap"]
        here = [d for d in _net_dirs(instance, sol, *a) if
                ((a[0] + STEP[d][0]) % H, (a[1] + STEP[d][1]) % W) == tuple(b) and
                (wrap or (0 <= a[0] + STEP[d][0] < H and 0 <= a[1] + STEP[d][1] < W))]
        return _verdict(bool(here) == bool(p.get("on", True)))
    r, c = (_int(p, "row"), _int(p, "col")) if kind == "cell" else (_int(p, "r"), _int(p, "c"))
    if not _inside(H, W, r, c):
        return INCORRECT
    dirs = frozenset(_net_dirs(instance, sol, r, c))
    if kind == "TileDirs":
        return _verdict(_dir_letters(p, "dirs") == dirs)
    v = normalize_cell(p.get("value"))
    kind_ = instance.data["state"]["tiles"][r][c]["type"]
    same = v in (0, 90, 180, 270) and frozenset(rotate(CANONICAL[kind_], v)) == dirs
    return _verdict(same != bool(p.get("negated", False)))


def _label_galaxies(instance: Instance, kind: str, p: dict, sol: list[list], H: int, W: int) -> str:
    """Galaxies solution claims: a cell's region named by its dot's index, or two cells in the
    same (or different) regions. A ``cell`` claim names the dot index as its value."""
    if kind in ("SameRegion", "DiffRegion"):
        a, b = (_ints(p, k) for k in ("a", "b"))
        if len(a) != 2 or len(b) != 2 or not (_inside(H, W, *a) and _inside(H, W, *b)):
            return INCORRECT
        return _verdict((sol[a[0]][a[1]] == sol[b[0]][b[1]]) == (kind == "SameRegion"))
    if kind == "cell":
        r, c = _int(p, "row"), _int(p, "col")
        if not _inside(H, W, r, c):
            return INCORRECT
        return _verdict((sol[r][c] == normalize_cell(p.get("value"))) != bool(p.get("negated", False)))
    r, c = _int(p, "r"), _int(p, "c")
    return _verdict(_inside(H, W, r, c) and sol[r][c] == _int(p, "dot"))


#: puzzles whose solution claims need the instance, not only the solution grid
SOLUTION_LABELLERS = {"net": _label_net, "galaxies": _label_galaxies}


def _unit_cells(instance: Instance, unit: str, index: int) -> list[tuple[int, int]]:
    st = instance.data["state"]
    n, bw, bh = st["n"], st["box_w"], st["box_h"]
    if not 0 <= index < n:
        return []
    if unit == "ROW":
        return [(index, c) for c in range(n)]
    if unit == "COL":
        return [(r, index) for r in range(n)]
    per_row = n // bw
    r0, c0 = (index // per_row) * bh, (index % per_row) * bw
    return [(r0 + i, c0 + j) for i in range(bh) for j in range(bw)]


def _label_clue(instance: Instance, family: str, kind: str, p: dict, H: int, W: int) -> str:
    st = instance.data["state"]
    if family == "solo":
        if kind == "Given":
            r, c = _int(p, "r"), _int(p, "c")
            return _verdict(_inside(H, W, r, c) and st["grid"][r][c] == _int(p, "d"))
        cells = _unit_cells(instance, _axis(p, "unit", ("ROW", "COL", "BOX")), _int(p, "index"))
        if not cells:
            return INCORRECT
        digit = _int(p, "digit")
        return CORRECT if any(st["grid"][r][c] == digit for r, c in cells) else UNVERIFIABLE
    if family == "tents":
        if kind == "Tree":
            r, c = _int(p, "r"), _int(p, "c")
            return _verdict(_inside(H, W, r, c) and st["grid"][r][c] == "T")
        axis, i = _axis(p, "axis", ("ROW", "COL")), _int(p, "index")
        counts = st["row_counts"] if axis == "ROW" else st["col_counts"]
        return _verdict(0 <= i < len(counts) and counts[i] == _int(p, "tents"))
    if family == "rect":
        r, c = _int(p, "r"), _int(p, "c")
        return _verdict(_inside(H, W, r, c) and st["grid"][r][c] == _int(p, "n") and _int(p, "n") > 0)
    if family == "signpost":
        r, c = _int(p, "r"), _int(p, "c")
        if not _inside(H, W, r, c):
            return INCORRECT
        if kind == "Given":
            return _verdict(st["givens"][r][c] == _int(p, "v") and _int(p, "v") > 0)
        return _verdict(st["arrows"][r][c] is not None and st["arrows"][r][c] == str(p.get("dir", "")).upper())
    if family == "towers":
        if kind == "Given":
            r, c = _int(p, "r"), _int(p, "c")
            return _verdict(_inside(H, W, r, c) and st["grid"][r][c] == _int(p, "v"))
        side, i = _axis(p, "side", ("TOP", "BOTTOM", "LEFT", "RIGHT")), _int(p, "index")
        clues = st[side.lower()]
        return _verdict(0 <= i < len(clues) and clues[i] == _int(p, "n") and clues[i] != 0)
    if family == "keen":
        cells = sorted(map(tuple, _cell_list(p, "cells")))
        op = str(p.get("op", "")).lower()
        op = {"*": "x", "\u00d7": "x", "\u00f7": "/"}.get(op, op)
        return _verdict(any(sorted(map(tuple, cage["cells"])) == cells and cage["op"] == op
                            and cage["target"] == _int(p, "target") for cage in st["cages"]))
    if family == "unequal":
        if kind == "Given":
            r, c = _int(p, "r"), _int(p, "c")
            return _verdict(_inside(H, W, r, c) and st["grid"][r][c] == _int(p, "v") and st["grid"][r][c] != 0)
        a, b = (_cell_list(p, k, one=True)[0] for k in ("a", "b"))
        if kind == "Greater":
            return _verdict([list(a), list(b)] in st.get("gt", []))
        return _verdict(sorted([list(a), list(b)]) in st.get("adj", []))
    if family == "lightup":
        r, c = _int(p, "r"), _int(p, "c")
        if not _inside(H, W, r, c):
            return INCORRECT
        cell = st["grid"][r][c]
        n = p.get("n")
        if cell == ".":
            return INCORRECT
        return _verdict(cell == "#" if n is None else str(cell) == str(n))
    if family == "mosaic":
        r, c = _int(p, "r"), _int(p, "c")
        return _verdict(_inside(H, W, r, c) and st["grid"][r][c] == _int(p, "n") and _int(p, "n") >= 0)
    if family == "pattern":
        axis, i = _axis(p, "axis", ("ROW", "COL")), _int(p, "index")
        clues = st["rows"] if axis == "ROW" else st["cols"]
        return _verdict(0 <= i < len(clues) and list(clues[i]) == _ints(p, "runs"))
    if family in ("singles", "range", "filling"):
        r, c = _int(p, "r"), _int(p, "c")
        n = _int(p, "v" if family == "filling" else "n")
        return _verdict(_inside(H, W, r, c) and st["grid"][r][c] == n and n > 0)
    if family == "unruly":
        r, c = _int(p, "r"), _int(p, "c")
        return _verdict(_inside(H, W, r, c) and st["grid"][r][c] == _int(p, "v") and st["grid"][r][c] >= 0)
    if family == "dominosa":
        r, c = _int(p, "r"), _int(p, "c")
        return _verdict(_inside(H, W, r, c) and st["grid"][r][c] == _int(p, "n"))
    if family == "magnets":
        return _label_magnets_clue(instance, kind, p, H, W)
    if family == "tracks":
        if kind == "GivenPiece":
            r, c = _int(p, "r"), _int(p, "c")
            got = "".join(d for d in "URDL" if d in str(p.get("dirs", "")).upper())
            return _verdict(st["given_pieces"].get(f"{r},{c}") == got)
        if kind == "Endpoint":
            side, i = _axis(p, "side", ("LEFT", "BOTTOM")), _int(p, "index")
            return _verdict(i == (st["entry_row"] if side == "LEFT" else st["exit_col"]))
        axis, i = _axis(p, "axis", ("ROW", "COL")), _int(p, "index")
        counts = st["row_counts"] if axis == "ROW" else st["col_counts"]
        return _verdict(0 <= i < len(counts) and counts[i] == _int(p, "n"))
    if family == "pearl":
        r, c = _int(p, "r"), _int(p, "c")
        colour = {"BLACK": "B", "WHITE": "W"}.get(str(p.get("color", "")).upper(), str(p.get("color", "")).upper())
        if colour not in ("B", "W"):
            raise ClaimError(f"claim field 'color' {p.get('color')!r} is not one of: B, W, BLACK, WHITE")
        return _verdict(_inside(H, W, r, c) and st["grid"][r][c] == colour)
    if family == "net":
        r, c = _int(p, "r"), _int(p, "c")
        if kind == "Ends":
            return _verdict(_inside(H, W, r, c) and len(st["tiles"][r][c]["dirs"]) == _int(p, "n"))
        return _verdict(_inside(H, W, r, c) and st["tiles"][r][c]["type"] == str(p.get("type", "")).upper())
    if family == "undead":
        if kind == "Mirror":
            r, c = _int(p, "r"), _int(p, "c")
            kind_ = {"BACKSLASH": "\\", "SLASH": "/", "L": "\\", "R": "/"}.get(str(p.get("kind", "")).upper(), p.get("kind"))
            return _verdict(_inside(H, W, r, c) and st["grid"][r][c] == kind_)
        if kind == "Total":
            return _verdict(st["totals"].get(str(p.get("t", "")).upper()) == _int(p, "n"))
        side, i = _axis(p, "side", ("TOP", "BOTTOM", "LEFT", "RIGHT")), _int(p, "index")
        return _verdict(0 <= i < len(st[side.lower()]) and st[side.lower()][i] == _int(p, "n"))
    if family == "galaxies":
        return _verdict([_int(p, "r2"), _int(p, "c2")] in [list(d) for d in st["dots"]])
    raise ClaimError(f"no clue claims are defined for {family!r}")


def _cell_list(p: dict, key: str, one: bool = False) -> list[tuple[int, int]]:
    """A list of [r, c] pairs (``one``: a single [r, c]) from a claim field."""
    v = p.get(key)
    items = [v] if one else v
    ok = isinstance(items, (list, tuple)) and all(
        isinstance(x, (list, tuple)) and len(x) == 2 and all(isinstance(i, int) and not isinstance(i, bool) for i in x)
        for x in items)
    if not ok or not items:
        raise ClaimError(f"claim field {key!r} must be {'a cell [r, c]' if one else 'a list of cells [r, c]'}, got {v!r}")
    return [(int(x[0]), int(x[1])) for x in items]


def _zip_cells(p: dict, rk: str = "cell_r", ck: str = "cell_c") -> list[tuple[int, int]]:
    rs, cs = _ints(p, rk), _ints(p, ck)
    if len(rs) != len(cs):
        raise ClaimError(f"{rk} and {ck} must have the same length")
    return list(zip(rs, cs))


def _label_consistency(instance: Instance, family: str, kind: str, p: dict, sol: list[list], H: int,
                       W: int) -> str:
    """The optional sound checks of docs/specs/reasoning_graphs.md §2 (incorrect or unverifiable only)."""
    st = instance.data["state"]
    if kind == "Cand":
        r, c = _int(p, "r"), _int(p, "c")
        if not _inside(H, W, r, c):
            return INCORRECT
        vals = _ints(p, "d" if "d" in p else "vals")
        polarity = _axis(p, "polarity", ("IN", "OUT"))
        hit = sol[r][c] in vals
        return INCORRECT if (polarity == "OUT" and hit) or (polarity == "IN" and not hit) else UNVERIFIABLE
    if family == "solo" and kind in ("UnitMissing", "UnitPlaces"):
        cells = _unit_cells(instance, _axis(p, "unit", ("ROW", "COL", "BOX")), _int(p, "index"))
        if not cells:
            return INCORRECT
        if kind == "UnitMissing":
            givens = {st["grid"][r][c] for r, c in cells}
            return INCORRECT if any(d in givens for d in _ints(p, "d")) else UNVERIFIABLE
        digit = _int(p, "digit")
        home = next(((r, c) for r, c in cells if sol[r][c] == digit), None)
        return INCORRECT if home is not None and home not in _zip_cells(p) else UNVERIFIABLE
    if family == "tents" and kind == "TreeCandidate":
        tr, tc = _int(p, "tree_r"), _int(p, "tree_c")
        listed = _zip_cells(p)
        ok = any(_inside(H, W, r, c) and sol[r][c] == "A" and abs(r - tr) + abs(c - tc) == 1 for r, c in listed)
        return UNVERIFIABLE if ok else INCORRECT
    if family == "tents" and kind == "Remaining":
        axis, i = _axis(p, "axis", ("ROW", "COL")), _int(p, "index")
        counts = st["row_counts"] if axis == "ROW" else st["col_counts"]
        if not 0 <= i < len(counts):
            return INCORRECT
        return UNVERIFIABLE if 0 <= _int(p, "remaining") <= counts[i] else INCORRECT
    return UNVERIFIABLE


def solution_claims(instance: Instance, solution: list[list] | None = None) -> list[dict]:
    """C*: the minimal statement of the solution (docs/specs/grid_puzzles.md §7 table, column C*)."""
    family = instance.family
    sol = solution or instance.data.get("solution") or _task(family).solve(instance)
    cells = [(r, c, v) for r, row in enumerate(sol) for c, v in enumerate(row)]
    if family == "solo":
        return [{"type": "Assign", "r": r, "c": c, "d": v} for r, c, v in cells]
    if family == "tents":
        return [{"type": "Tent", "r": r, "c": c} for r, c, v in cells if v == "A"]
    if family in ("towers", "keen", "unequal", "signpost", "filling"):
        return [{"type": "Cell", "r": r, "c": c, "v": v} for r, c, v in cells]
    if family == "rect":
        from .regions import label_classes, rect_of

        return [dict(zip(("type", "r0", "c0", "r1", "c1"), ("Rect", *rect_of(cells))))
                for cells in label_classes(sol).values()]
    if family in MINUS_BLACK:
        return [{"type": "Black", "r": r, "c": c} for r, c, v in cells if v == -1]
    if family == "lightup":
        return [{"type": "Light", "r": r, "c": c} for r, c, v in cells if v == "L"]
    if family in BLACK:
        return [{"type": "Black", "r": r, "c": c} for r, c, v in cells if v == BLACK[family][0]]
    if family == "magnets":
        return [{"type": "Pole", "r": r, "c": c, "v": v} for r, c, v in cells if v != 0]
    if family == "undead":
        return [{"type": "Monster", "r": r, "c": c, "t": v} for r, c, v in cells if v in ("G", "V", "Z")]
    if family == "dominosa":
        return [{"type": "Domino", "cells": [[r, c], [r, c + 1] if v == "L" else [r + 1, c]]}
                for r, c, v in cells if v in ("L", "T")]
    if family in LINES:
        return [{"type": "Edge", "a": list(a), "b": list(b), "on": True} for a, b in sorted(line_edges(sol))]
    if family == "net":
        return [{"type": "TileDirs", "r": r, "c": c, "dirs": _net_dirs(instance, sol, r, c)} for r, c, _ in cells]
    if family == "galaxies":
        return [{"type": "InRegion", "r": r, "c": c, "dot": v} for r, c, v in cells]
    return [{"type": "cell", "row": r, "col": c, "value": v, "negated": False} for r, c, v in cells]


def describe(claim: dict) -> str:
    """A short label for plots (``T(1,0)``, ``¬T(1,3)``, ``Q(R1)=2``) -- ASCII except the negation."""
    kind, p = _payload(claim)
    rc = f"({p.get('r', p.get('row'))},{p.get('c', p.get('col'))})"
    short: dict[str, Any] = {"Tent": f"T{rc}", "NotTent": f"\u00acT{rc}", "Tree": f"Tree{rc}",
                             "Assign": f"{rc}={p.get('d')}", "Cell": f"{rc}={p.get('v')}",
                             "NotCell": f"{rc}\u2260{p.get('v')}"}
    if kind == "Quota":
        return f"Q({str(p.get('axis', '?'))[:1]}{p.get('index')})={p.get('tents')}"
    if kind == "cell":
        return f"{'not ' if p.get('negated') else ''}{rc}={p.get('value')}"
    if kind == "Edge":
        return f"{'' if p.get('on', True) else chr(0xac)}E({p.get('a')}-{p.get('b')})".replace(" ", "")
    return short.get(kind, kind + rc)
