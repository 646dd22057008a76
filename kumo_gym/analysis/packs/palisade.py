"""Palisade: docs/specs/grid_puzzles.md §5, §7; docs/specs/reasoning_graphs.md §6 "Other puzzles".

Claims: ``SameRegion{a,b}`` / ``DiffRegion{a,b}`` (two cells ``[r, c]``, ``a < b``; C* = every pair of
neighbouring cells), ``Clue{r,c,n}`` (the number n in cell (r, c)), ``Contradiction``. Region labels
never appear: the answer's labels are arbitrary, so claims speak of cells sharing a region.

Deduction model: one variable per pair of neighbouring cells, "same" or "diff" (a border between
them); a numbered cell has exactly its number of borders among its sides (the grid's edge counts);
around each grid point the four pairs are never exactly one border (regions are classes of cells).
Region sizes and connectivity are left to probing.
"""
from __future__ import annotations

import re
from typing import Any

from ...envs.grid.palisade.geometry import neighbours
from ..deduce import Constraint, Model
from ..reading import Found, Phrase, PhraseReader
from ..text import Norm
from .common import PayloadPack, cell_fields, claim_schema

SAME, DIFF = "same", "diff"
_C = r"@(\d+)@"
_NOT = r"(?:cannot|can't|can not|must not|do not|don't|are not|aren't|is not|isn't)"
_REGION = r"(?:region|block|group|piece)"
_PAIRS = (  # "no border between" before "a border between"
    (re.compile(rf"\bno (?:border|wall|line|fence) (?:runs |lies |goes |sits )?between {_C} and {_C}"), "SameRegion"),
    (re.compile(rf"{_C} and {_C} {_NOT} (?:be |lie |go )?(?:in the same|in one|share a|share the same) {_REGION}"),
     "DiffRegion"),
    (re.compile(rf"{_C} and {_C} (?:are|lie|must be|would be|belong to|go) (?:in )?(?:different|separate|two) {_REGION}s"),
     "DiffRegion"),
    (re.compile(rf"\b(?:a |the )?(?:border|wall|line|fence) (?:also |then |now )?(?:runs |lies |goes |sits )?between {_C} "
                rf"and {_C}"),
     "DiffRegion"),
    (re.compile(rf"{_C} and {_C} (?:are|lie|must be|would be|belong to|go) (?:both )?in the same {_REGION}"), "SameRegion"),
    (re.compile(rf"{_C} and {_C} (?:belong to|share) (?:the same|a|one) {_REGION}"), "SameRegion"),
    (re.compile(rf"{_C} (?:joins|is joined to|is connected to|connects to) {_C}"), "SameRegion"),
)
#: "X is in the same region as Y"
_SAME_AS = re.compile(rf"{_C} (?:is|lies|must be) in the same {_REGION} as {_C}")


def clue_claim(r: int, c: int, n: int) -> tuple:
    return ("Clue", {"r": r, "c": c, "n": n})


def pair_claim(kind: str, a, b) -> tuple:
    a, b = sorted([list(a), list(b)])
    return (kind, {"a": a, "b": b})


class PalisadeReader(PhraseReader):
    """Pairs of cells in one region or two (borders between them), then the Clue phrases."""

    def read(self, norm: Norm) -> list[Found]:
        out, masked = [], norm.text

        def cell(m, g):
            r, c = norm.coords[int(m.group(g))]
            return [r - self.offset, c - self.offset]

        for rx, kind in ((_SAME_AS, "SameRegion"), *((rx, kind) for rx, kind in _PAIRS)):
            for m in rx.finditer(masked):
                _, payload = pair_claim(kind, cell(m, 1), cell(m, 2))
                out.append(Found(kind, payload, m.start(), True, m.end(), m.start()))
                masked = masked[:m.start()] + " " * (m.end() - m.start()) + masked[m.end():]
        return out + super().read(Norm(masked, norm.coords))


class PalisadePack(PayloadPack):
    reader_class = PalisadeReader

    def grid_claims(self, instance: Any, grid: list) -> list:
        H, W = len(grid), len(grid[0])
        return [pair_claim("SameRegion" if grid[r][c] == grid[rr][cc] else "DiffRegion", (r, c), (rr, cc))
                for r in range(H) for c in range(W) for rr, cc in ((r, c + 1), (r + 1, c)) if rr < H and cc < W]

    def clue_claims(self, instance: Any) -> list:
        return [clue_claim(r, c, k) for r, row in enumerate(instance.data["state"]["clues"])
                for c, k in enumerate(row) if k >= 0]

    def deduction_model(self, instance: Any) -> Model:
        sol = instance.data["solution"]
        H, W = len(sol), len(sol[0])
        pairs = [((r, c), (rr, cc)) for r in range(H) for c in range(W) for rr, cc in ((r, c + 1), (r + 1, c))
                 if rr < H and cc < W]
        cons = []
        for r, row in enumerate(instance.data["state"]["clues"]):
            for c, k in enumerate(row):
                if k < 0:
                    continue
                nbs = neighbours(r, c, H, W)
                inner = k - (4 - len(nbs))
                mine = tuple(tuple(sorted([(r, c), nb])) for nb in nbs)
                cons.append(Constraint(mine, lambda vals, inner=inner: sum(v == DIFF for v in vals) == inner,
                                       (clue_claim(r, c, k),), name="border count"))
        for r in range(H - 1):
            for c in range(W - 1):
                ring = (((r, c), (r, c + 1)), ((r, c + 1), (r + 1, c + 1)), ((r + 1, c), (r + 1, c + 1)),
                        ((r, c), (r + 1, c)))
                cons.append(Constraint(ring, lambda vals: sum(v == DIFF for v in vals) != 1,
                                       reason="a border cannot end in the middle of the grid", name="no dead end"))
        return Model(domains={p: (SAME, DIFF) for p in pairs}, constraints=cons,
                     fact=lambda p, v: pair_claim("SameRegion" if v == SAME else "DiffRegion", *p),
                     solution={p: SAME if sol[p[0][0]][p[0][1]] == sol[p[1][0]][p[1][1]] else DIFF for p in pairs})


PACK = PALISADE = PalisadePack(
    puzzle="palisade",
    **claim_schema(
        {"SameRegion": {"a": "cell", "b": "cell"}, "DiffRegion": {"a": "cell", "b": "cell"}},
        {"Clue": cell_fields(n="count")},
        opposite={"SameRegion": "DiffRegion"},
    ),
    claim_notes=("SameRegion / DiffRegion say two cells a, b ([r, c], a before b) lie in one region or in two (for "
                 "neighbouring cells: no border or a border between them). Clue is the number n in cell (r, c): how "
                 "many of its four sides are region borders."),
    templates={
        "SameRegion": ("{a_cell} and {b_cell} are in the same region", "no border runs between {a_cell} and {b_cell}"),
        "DiffRegion": ("{a_cell} and {b_cell} are in different regions", "a border runs between {a_cell} and {b_cell}"),
        "Clue": ("{cell} shows the number {n}", "the clue {n} at {cell}"),
    },
    phrases=(Phrase("Clue", r"{cell} (?:shows|holds|has) (?:the )?(?:number|clue) {n:n}\b"),
             *Phrase.group("Clue", r"\bthe (?:number|clue) {n:n} (?:at|in) {cell}",
                                   r"\bthe (?:number|clue) (?:at|in) {cell} is {n:n}\b",
                                   r"\bthe {n:n} (?:at|in) {cell}",
                                   r"{subj}{cell} (?:is|=|shows|holds) (?:a |the )?{n:n}(?! ?(?:x|by|cells?|sides?)\b)\b")),
)
