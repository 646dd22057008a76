"""Unequal (Futoshiki, and Adjacent mode): docs/specs/grid_puzzles.md §5, §7; docs/specs/reasoning_graphs.md §6 "Other
puzzles".

Claims: ``Cell{r,c,v}`` / ``NotCell{r,c,v}`` (solution; C* = every cell), ``Given{r,c,v}``,
``Greater{a,b}`` (a sign: cell ``a`` holds the larger number) and ``Adj{a,b}`` (Adjacent mode:
a marked pair, differing by one) as clues, ``Cand`` (state), ``Contradiction``.

Deduction model: the Latin square as row and column units, one constraint per sign and, in
Adjacent mode, one per neighbour pair (marked: differ by one; unmarked: do not). Sign and mark
claims name two cells, so a small reader of their own reads them ("(0, 1) is greater than
(0, 2)", "(1, 1) and (1, 2) differ by one").
"""
from __future__ import annotations

import re
from typing import Any

from ...envs.grid.unequal.codec import neighbour_pairs
from ..deduce import Constraint, Model
from ..reading import Found, PhraseReader
from ..schema import Pack
from ..text import Norm
from .common import CELL_VALUE, value_pack

_CELL = r"@(\d+)@"
_PAIRS = (  # (pattern, kind, whether the first cell read is b)
    (re.compile(rf"{_CELL} (?:is|must be|has to be|should be) (?:greater|larger|bigger|higher) than {_CELL}"), "Greater", False),
    (re.compile(rf"{_CELL} (?:is|must be|has to be|should be) (?:less|smaller|lower) than {_CELL}"), "Greater", True),
    (re.compile(rf"{_CELL} ?> ?{_CELL}"), "Greater", False),  # "(4, 4) > (3, 4)"
    (re.compile(rf"{_CELL} ?< ?{_CELL}"), "Greater", True),
    (re.compile(rf"{_CELL} and {_CELL} (?:are marked as differing|differ) by (?:exactly )?(?:one|1)\b"), "Adj", False),
)


class PairReader(PhraseReader):
    """The value phrases, plus Greater and Adj claims (their cells are not read again)."""

    def read(self, norm: Norm) -> list[Found]:
        out, masked = [], norm.text
        for rx, kind, swap in _PAIRS:
            for m in rx.finditer(masked):
                a, b = ([norm.coords[int(k)][0] - self.offset, norm.coords[int(k)][1] - self.offset]
                        for k in m.groups())
                a, b = (b, a) if swap else (a, b)
                if kind == "Adj":
                    a, b = sorted([a, b])
                out.append(Found(kind, {"a": a, "b": b}, m.start(), True, m.end(), m.start()))
                masked = masked[:m.start()] + " " * (m.end() - m.start()) + masked[m.end():]
        return out + super().read(Norm(masked, norm.coords))


class UnequalPack(Pack):
    reader_class = PairReader

    def clue_claims(self, instance: Any) -> list:
        st = instance.data["state"]
        out = [("Given", {"r": r, "c": c, "v": v}) for r, row in enumerate(st["grid"]) for c, v in enumerate(row) if v]
        out += [("Greater", {"a": list(a), "b": list(b)}) for a, b in st.get("gt", [])]
        return out + [("Adj", {"a": list(a), "b": list(b)}) for a, b in st.get("adj", [])]

    def deduction_model(self, instance: Any) -> Model:
        st, sol = instance.data["state"], instance.data["solution"]
        n, grid = st["n"], st["grid"]
        cells = [(r, c) for r in range(n) for c in range(n)]
        cons = [Constraint((tuple(a), tuple(b)), lambda vals: vals[0] > vals[1],
                           (("Greater", {"a": list(a), "b": list(b)}),), name="sign") for a, b in st.get("gt", [])]
        if st["mode"] == "adjacent":
            marked = {tuple(map(tuple, p)) for p in st["adj"]}
            for a, b in neighbour_pairs(n):
                on = (a, b) in marked
                cons.append(Constraint((a, b), lambda vals, on=on: (abs(vals[0] - vals[1]) == 1) == on,
                                       (("Adj", {"a": list(a), "b": list(b)}),) if on else (),
                                       reason="" if on else "unmarked neighbours never differ by one", name="adjacent"))
        units = [tuple((r, c) for c in range(n)) for r in range(n)] + [tuple((r, c) for r in range(n)) for c in range(n)]
        return Model(domains={x: tuple(range(1, n + 1)) for x in cells}, constraints=cons, units=units,
                     fact=lambda v, x: ("Cell", {"r": v[0], "c": v[1], "v": x}),
                     exclusion=lambda v, x: ("NotCell", {"r": v[0], "c": v[1], "v": x}),
                     givens={(r, c): grid[r][c] for r, c in cells if grid[r][c]},
                     given_fact=lambda v, x: ("Given", {"r": v[0], "c": v[1], "v": x}),
                     solution={(r, c): sol[r][c] for r, c in cells})


PACK = UNEQUAL = UnequalPack(
    puzzle="unequal",
    **value_pack({"Given": CELL_VALUE, "Greater": {"a": "cell", "b": "cell"}, "Adj": {"a": "cell", "b": "cell"}},
                 templates={"Greater": ("{a_cell} is greater than {b_cell}", "the sign says {a_cell} is larger than {b_cell}",
                                        "{b_cell} is less than {a_cell}"),
                            "Adj": ("{a_cell} and {b_cell} differ by one",
                                    "{a_cell} and {b_cell} are marked as differing by 1")}),
    claim_notes=("Cell states a cell's value, NotCell rules one out. Greater is an inequality sign: cell a ([r, c]) "
                 "holds a larger number than its neighbour b. Adj (Adjacent mode) is a marked pair a, b whose numbers "
                 "differ by exactly one."),
)
