"""Train Tracks: docs/specs/grid_puzzles.md §5, §7; docs/specs/reasoning_graphs.md §6 "Other puzzles".

Claims: ``Edge{a,b,on}`` (solution: the track joins the two neighbouring cells, or not; C* = every
edge of the track with on=true, the two border ends included as edges to the off-grid cells
``[entry_row, -1]`` and ``[H, exit_col]``), ``OnPath{r,c}`` / ``OffPath{r,c}`` (solution),
``Count{axis,index,n}``, ``Endpoint{side,index}``, ``GivenPiece{r,c,dirs}`` (clues),
``Contradiction``. Edge claims name two cells, so a small reader of their own reads them ("the
track joins (1, 2) and (1, 3)", "no track between (0, 0) and (1, 0)"); Pearl's pack shares it.

Deduction model: one true/false variable per cell (on the track or not) and per edge (the two
border ends included); each cell has two of its edges on if it is on the track and none if not;
each row and column count reads its cells; each Endpoint clue puts its border edge on; each given
piece fixes its cell's edges; and no four edges close a 2x2 loop. The one-path rule is otherwise
global and is left to probing (and the stated fallback), as Pearl's one-loop rule is.
"""
from __future__ import annotations

import json
import re
from typing import Any

from ...envs.grid.claims import line_edges
from ..deduce import Constraint, Model
from ..reading import Found, Phrase, PhraseReader
from ..schema import Pack
from ..text import Norm
from .common import cell_fields, claim_schema

_CELL = r"@(\d+)@"
_LINE = r"(?:the )?(?:track|loop|line|path)"
#: (pattern, on) -- negative phrasings first; the two cells of a match are not read again
EDGE_PHRASES = (
    (re.compile(rf"\bno (?:track|loop|line|edge|connection|link|segment) (?:between|from) {_CELL} (?:and|to) {_CELL}"), False),
    (re.compile(rf"\b{_LINE} (?:does not|doesn't|cannot|can't|can not|never|must not) (?:join|connect|link|run between|"
                rf"go between|pass between) {_CELL} and {_CELL}"), False),
    (re.compile(rf"{_CELL} (?:is not|isn't|cannot be|can't be|is never|must not be) (?:joined|connected|linked) "
                rf"(?:to|with) {_CELL}"), False),
    (re.compile(rf"\b{_LINE} (?:joins|connects|links|runs between|goes between|passes between|must join|must connect) "
                rf"{_CELL} (?:and|to|with) {_CELL}"), True),
    (re.compile(rf"{_CELL} ?,? (?:is |are |must be |has to be )?(?:also |then |now |still |already )?(?:joined|connected|linked) "
                rf"(?:to|with) {_CELL}"), True),
    (re.compile(rf"\b(?:an? |the )?(?:edge|connection|link|segment) (?:between|from) {_CELL} (?:and|to) {_CELL}"), True),
    # "the loop continues from (0, 1) to (0, 2), and from (1, 0) to (2, 0)"
    (re.compile(rf"\b{_LINE} (?:goes|runs|continues|extends|passes|carries on) (?:straight )?from {_CELL} to {_CELL}"
                rf"(?: ?,? and (?:also )?from {_CELL} to {_CELL})?"), True),
    (re.compile(rf"{_CELL} connects (?:to|with) {_CELL}"), True),
)
EDGE_TEMPLATES = {
    "Edge:on": ("the track joins {a_cell} and {b_cell}", "{a_cell} is connected to {b_cell}"),
    "Edge:off": ("no track between {a_cell} and {b_cell}", "{a_cell} is not connected to {b_cell}"),
    "OnPath": ("{cell} is on the track", "the track passes through {cell}"),
    "OffPath": ("{cell} is off the track", "{cell} is not on the track"),
}
PATH_PHRASES = (
    *Phrase.group("OffPath", r"{subj}{cells} (?:is|are) (?:not on|off) the (?:track|loop|path)\b",
                             r"{subj}{cells} {neg} (?:be )?on the (?:track|loop|path)\b"),
    *Phrase.group("OnPath", r"{subj}{cells} (?:is|are|must be|lies|lie) (?:already |now |still |also |all |both )?on the "
                                r"(?:track|loop|path)\b",
                            r"\b(?:try|trying|suppose|assume|assuming|put|say) {cell} (?:is )?on the (?:track|loop|path)\b",
                            r"{cell} ?,? which (?:is|lies) (?:already |now |still |also )?on the (?:track|loop|path)\b",
                            r"\bthe (?:track|loop|path) (?:passes|goes|runs) through {cells}"),
)
_DIRS = {"UR": "up and right", "UD": "up and down", "UL": "up and left", "RD": "right and down",
         "RL": "right and left", "DL": "down and left"}
#: the same pairs read in either order ("left and right")
_DIRS_RX = {"UR": "(?:up and right|right and up)", "UD": "(?:up and down|down and up)", "UL": "(?:up and left|left and up)",
         "RD": "(?:right and down|down and right)", "RL": "(?:right and left|left and right)",
         "DL": "(?:down and left|left and down)"}


class EdgeReader(PhraseReader):
    """The pack's phrases, plus Edge claims between two cells."""

    def read(self, norm: Norm) -> list[Found]:
        out, masked = [], norm.text
        for rx, on in EDGE_PHRASES:
            for m in rx.finditer(masked):
                ks = [int(k) for k in m.groups() if k is not None]
                for j in range(0, len(ks) - 1, 2):  # one edge per pair of cells named
                    a, b = sorted([norm.coords[k][0] - self.offset, norm.coords[k][1] - self.offset] for k in ks[j:j + 2])
                    pos = m.start() if j == 0 else m.start(j + 1)
                    out.append(Found("Edge", {"a": a, "b": b, "on": on}, pos, True, m.end(), m.start()))
                masked = masked[:m.start()] + " " * (m.end() - m.start()) + masked[m.end():]
        return out + super().read(Norm(masked, norm.coords))


def line_schema(clues: dict) -> dict:
    """The claim schema of a loop through grid points (Pearl's cell centres, Loopy's dots): ``Edge``,
    ``OnPath`` and ``OffPath`` solution claims beside the puzzle's ``clues``."""
    return claim_schema({"Edge": {"a": "cell", "b": "cell", "on": "bool"}, "OnPath": cell_fields(),
                         "OffPath": cell_fields()}, clues, opposite={"OnPath": "OffPath"})


class LinePack(Pack):
    """A puzzle whose answer is a line through cell centres (Tracks, Pearl): C* is its edges."""

    reader_class = EdgeReader

    def negates(self, a: tuple, b: tuple) -> bool:
        """An Edge claim is negated by the same edge with the other ``on``."""
        if a[0] == b[0] == "Edge":
            pa, pb = json.loads(a[1]), json.loads(b[1])
            return (pa["a"], pa["b"]) == (pb["a"], pb["b"]) and pa["on"] != pb["on"]
        return super().negates(a, b)

    def grid_claims(self, instance: Any, grid: list) -> list:
        return [("Edge", {"a": list(a), "b": list(b), "on": True}) for a, b in sorted(line_edges(grid))]

    def template_variant(self, kind: str, payload: dict) -> str:
        if kind == "Edge":
            return "on" if payload.get("on", True) else "off"
        return ""


class TracksPack(LinePack):
    def deduction_model(self, instance: Any) -> Model:
        return _tracks_model(instance)

    def template_variant(self, kind: str, payload: dict) -> str:
        if kind == "Endpoint":
            return str(payload.get("side", "")).upper()
        if kind == "GivenPiece":
            return str(payload.get("dirs", ""))
        return super().template_variant(kind, payload)

    def clue_claims(self, instance: Any) -> list:
        st = instance.data["state"]
        out = [("Count", {"axis": "COL", "index": c, "n": n}) for c, n in enumerate(st["col_counts"])]
        out += [("Count", {"axis": "ROW", "index": r, "n": n}) for r, n in enumerate(st["row_counts"])]
        out += [("Endpoint", {"side": "LEFT", "index": st["entry_row"]}),
                ("Endpoint", {"side": "BOTTOM", "index": st["exit_col"]})]
        for key, dirs in sorted(st["given_pieces"].items(), key=lambda kv: tuple(map(int, kv[0].split(",")))):
            r, c = (int(x) for x in key.split(","))
            out.append(("GivenPiece", {"r": r, "c": c, "dirs": dirs}))
        return out


PACK = TRACKS = TracksPack(
    puzzle="tracks",
    **claim_schema(
        {"Edge": {"a": "xcell", "b": "xcell", "on": "bool"}, "OnPath": cell_fields(), "OffPath": cell_fields()},
        {"Count": {"axis": "axis", "index": "index", "n": "count"},
         "Endpoint": {"side": "side", "index": "index"},
         "GivenPiece": cell_fields(dirs="dirs")},
        opposite={"OnPath": "OffPath"},
    ),
    claim_notes=("Edge: the track joins neighbouring cells a and b ([r, c] each; on=false: it does not); the border "
                 "ends are edges to [entry_row, -1] and [H, exit_col]. OnPath / OffPath: cell (r, c) is on / off the "
                 "track. Count: a row or column (axis ROW/COL) holds n track cells. Endpoint: the track enters on "
                 "the LEFT at row index or leaves at the BOTTOM at column index. GivenPiece: a given piece at (r, c) "
                 "joining the directions dirs (URDL letters)."),
    phrases=(
        *Phrase.group("Count", r"\b{line} (?:has|holds|contains|uses|needs) {n} (?:track )?(?:cells?|squares?|pieces?)\b",
                               r"\b(?:the )?(?:count|clue|number) (?:for|of) {line} (?:is|=|:) {n}\b",
                               r"\b{line}'s (?:count|clue|number) (?:is|=|:) {n}\b"),
        *Phrase.group("Endpoint", r"\b(?:the track )?enters (?:from|on|at) the left (?:edge )?(?:at|in|of) row (?P<index>\d{1,3})\b",
                                  r"\bthe (?:entry|entrance|start) is (?:at|on|in) (?:the left (?:edge )?(?:of|at|in) )?row "
                                      r"(?P<index>\d{1,3})\b",
                                  fixed={"side": "LEFT"}),
        *Phrase.group("Endpoint", r"\b(?:the track )?(?:leaves|exits) (?:through|at|from|via) the bottom (?:edge )?(?:at|in|of) column "
                                      r"(?P<index>\d{1,3})\b",
                                  r"\bthe (?:exit|end) is (?:at|on|in) (?:the bottom (?:edge )?(?:of|at|in) )?column "
                                      r"(?P<index>\d{1,3})\b",
                                  fixed={"side": "BOTTOM"}),
    ) + tuple(p for d, words in _DIRS_RX.items() for p in (
        *Phrase.group("GivenPiece", rf"{{subj}}{{cell}} (?:is|holds) a given piece (?:joining|connecting|linking) {words}\b",
                                    rf"\bthe given piece (?:at|in) {{cell}} (?:joins|connects|links|goes) {words}\b",
                                    fixed={"dirs": d}),
    )) + PATH_PHRASES,
    templates={
        **EDGE_TEMPLATES,
        "Count": ("{line} has {n} track cells", "the count for {line} is {n}"),
        "Endpoint:LEFT": ("the track enters from the left at row {idx}",),
        "Endpoint:BOTTOM": ("the track leaves through the bottom at column {idx}",),
        **{f"GivenPiece:{d}": (f"{{cell}} is a given piece joining {words}", f"{{cell}} holds a given piece joining {words}")
           for d, words in _DIRS.items()},
    },
)


_STEP = {"U": (-1, 0), "R": (0, 1), "D": (1, 0), "L": (0, -1)}


def count_support(n: int):
    """``support`` of "exactly ``n`` of these true/false variables are true", without enumerating."""
    def support(doms: list) -> list:
        if any(not d for d in doms):
            return [set() for _ in doms]
        t = sum(1 for d in doms if d == {True})
        u = sum(1 for d in doms if len(d) == 2)
        if t > n or t + u < n:
            return [set() for _ in doms]
        free = {False} if t == n else {True} if t + u == n else {True, False}
        return [set(d) if len(d) == 1 else set(free) for d in doms]
    return support


def _tracks_model(instance: Any) -> Model:
    """Cells and edges as true/false variables (see the module docstring)."""
    st, sol = instance.data["state"], instance.data["solution"]
    H, W = len(sol), len(sol[0])
    entry, exit_ = (st["entry_row"], -1), (H, st["exit_col"])
    border = {(st["entry_row"], 0): entry, (H - 1, st["exit_col"]): exit_}

    def edge(a, b) -> tuple:
        return ("edge",) + tuple(sorted((tuple(a), tuple(b))))

    def edge_of(x, d):
        y = (x[0] + _STEP[d][0], x[1] + _STEP[d][1])
        if 0 <= y[0] < H and 0 <= y[1] < W:
            return edge(x, y)
        # the track leaves the grid only at its two ends
        if border.get(x) == y:
            return edge(x, y)
        return None

    cells = [(r, c) for r in range(H) for c in range(W)]
    doms: dict = {}
    for x in cells:
        doms[("cell",) + x] = (True, False)
        for d in "URDL":
            e = edge_of(x, d)
            if e is not None:
                doms[e] = (True, False)
    cons = []
    for x in cells:
        inc = tuple(e for e in (edge_of(x, d) for d in "URDL") if e is not None)
        cons.append(Constraint((("cell",) + x,) + inc, lambda vals: sum(vals[1:]) == (2 if vals[0] else 0),
                               reason="the track enters and leaves each of its cells once", name="degree"))
    for axis, counts in (("ROW", st["row_counts"]), ("COL", st["col_counts"])):
        for i, n in enumerate(counts):
            line = tuple(("cell", i, j) if axis == "ROW" else ("cell", j, i) for j in range(W if axis == "ROW" else H))
            cons.append(Constraint(line, lambda vals, n=n: sum(vals) == n, (("Count", {"axis": axis, "index": i, "n": n}),),
                                   name="count", support=count_support(n)))
    cons.append(Constraint((edge((st["entry_row"], 0), entry),), lambda vals: bool(vals[0]),
                           (("Endpoint", {"side": "LEFT", "index": st["entry_row"]}),), name="endpoint"))
    cons.append(Constraint((edge((H - 1, st["exit_col"]), exit_),), lambda vals: bool(vals[0]),
                           (("Endpoint", {"side": "BOTTOM", "index": st["exit_col"]}),), name="endpoint"))
    for key, dirs in sorted(st["given_pieces"].items()):
        x = tuple(int(v) for v in key.split(","))
        ds = [d for d in "URDL" if edge_of(x, d) is not None]
        cons.append(Constraint(tuple(edge_of(x, d) for d in ds), lambda vals, want=tuple(d in dirs for d in ds): tuple(
            bool(v) for v in vals) == want, (("GivenPiece", {"r": x[0], "c": x[1], "dirs": dirs}),), name="given piece"))
    for r in range(H - 1):
        for c in range(W - 1):
            square = (edge((r, c), (r, c + 1)), edge((r, c + 1), (r + 1, c + 1)), edge((r + 1, c), (r + 1, c + 1)),
                      edge((r, c), (r + 1, c)))
            cons.append(Constraint(square, lambda vals: not all(vals), reason="the track never closes a loop",
                                   name="no 2x2 loop"))
    on = line_edges(sol)

    def fact(v, x) -> tuple:
        if v[0] == "cell":
            return ("OnPath" if x else "OffPath", {"r": v[1], "c": v[2]})
        return ("Edge", {"a": list(v[1]), "b": list(v[2]), "on": bool(x)})

    solution = {v: (sol[v[1]][v[2]] != "") if v[0] == "cell" else ((v[1], v[2]) in on) for v in doms}
    return Model(domains=doms, constraints=cons, fact=fact, solution=solution)
