"""Rectangles: docs/specs/grid_puzzles.md §5, §7; docs/specs/reasoning_graphs.md §6 "Other puzzles".

Claims: ``Rect{r0,c0,r1,c1}`` (corners inclusive; C* = one per rectangle of the solution),
``NotRect`` (that rectangle is not one of the solution's),
``SameRegion{a,b}`` / ``DiffRegion{a,b}`` (two cells ``[r, c]``, ``a < b``) as solution claims,
``Clue{r,c,n}`` (a number of the puzzle), ``Contradiction``. Region labels never appear: the
answer's labels are arbitrary, so claims speak of rectangles and of cells sharing one.

Deduction model: one variable per number, its domain the rectangles over its cell (up to one cell
more than its area) that hold no other number; the number fixes the area and, per cell, exactly
one chosen rectangle covers it (reading the numbers involved). A rectangle ruled out is a
``NotRect`` claim.
"""
from __future__ import annotations

import re
from typing import Any

from ...envs.grid.regions import label_classes, rect_of, shapes
from ..deduce import Constraint, Model
from ..reading import Found, Phrase, PhraseReader
from ..text import Norm
from .common import PayloadPack, cell_fields, claim_schema, state_grid

_CELL = r"@(\d+)@"
_SHAPE = r"(?:rectangle|region|block|box)"
_SPAN = rf"(?:from |spanning |covering |over |: |= |is )?{_CELL} ?(?:to|-|through|–) ?{_CELL}"
_NOT = r"(?:cannot|can't|can not|must not|do not|don't|are not|aren't|could not|couldn't)"
_PAIRS = (
    (re.compile(rf"\b(?:the )?{_SHAPE} {_SPAN},? (?:is ruled out|is impossible|cannot be one|cannot work|can't work|"
                rf"doesn't work|does not work|fails|is not possible|is wrong)"), "NotRect"),
    # ("the rectangle from X to Y would leave ..." is a hypothesis, not a claim)
    (re.compile(rf"\b(?:the )?{_SHAPE} {_SPAN}(?! would\b| could\b)"), "Rect"),
    # "the 6 covers (1, 2)-(3, 3)", "that leaves (0, 2)-(0, 3) for the 2", "(0, 0)-(1, 1) is one rectangle"
    (re.compile(rf"\b(?:covers?|covering|fills?|takes?|leaves?|leaving) (?:the (?:cells |block |rectangle )?)?{_CELL} ?"
                rf"(?:to|-|through) ?{_CELL}(?! ?(?:plus|\+|or|would|could)\b| and (?:one|two|three|\d) more\b)"), "Rect"),
    (re.compile(rf"{_CELL} ?(?:-|to) ?{_CELL} (?:is|forms|must be|makes) (?:a|one|the|its) {_SHAPE}"), "Rect"),
    (re.compile(rf"{_CELL} and {_CELL} {_NOT} (?:be |lie |go )?(?:in the same|in one|share a|share the same) {_SHAPE}"),
     "DiffRegion"),
    (re.compile(rf"{_CELL} and {_CELL} (?:are|lie|must be|belong to|go) in the same {_SHAPE}"), "SameRegion"),
    (re.compile(rf"{_CELL} and {_CELL} (?:belong to|share) (?:the same|a|one) {_SHAPE}"), "SameRegion"),
    (re.compile(rf"{_CELL} and {_CELL} (?:are|lie|must be|belong to) (?:in )?different {_SHAPE}s"), "DiffRegion"),
)


def clue_claim(r: int, c: int, n: int) -> tuple:
    return ("Clue", {"r": r, "c": c, "n": n})


#: "X and Y are in the same rectangle as Z" (three pairs), "X is in the same rectangle as Z" (one)
_SAME_AS = re.compile(rf"{_CELL}(?: and {_CELL})? (?:is|are|lies|lie|must be) in the same {_SHAPE} as {_CELL}")
#: "rectangles (0, 0)-(1, 1), (0, 2)-(0, 3) and ...": every span of the list is one
_LISTED = re.compile(r"\brectangles:? ")
_GAP = re.compile(r" ?,? ?(?:and )?")
_ONE_SPAN = re.compile(rf"{_CELL} ?(?:-|to) ?{_CELL}")


class RectReader(PhraseReader):
    """Rectangles (two corners) and region pairs, then the Clue phrases."""

    def _cell(self, norm: Norm, k: str) -> list:
        r, c = norm.coords[int(k)]
        return [r - self.offset, c - self.offset]

    def read(self, norm: Norm) -> list[Found]:
        out, masked = [], norm.text
        for m in _SAME_AS.finditer(masked):
            cells = [self._cell(norm, k) for k in m.groups() if k is not None]
            pairs = [(cells[i], cells[j]) for i in range(len(cells)) for j in range(i + 1, len(cells))]
            out += [Found("SameRegion", dict(zip("ab", sorted(p))), m.start(), True, m.end(), m.start()) for p in pairs]
            masked = masked[:m.start()] + " " * (m.end() - m.start()) + masked[m.end():]
        listed = _LISTED.search(masked)
        if listed is not None:
            pos = listed.end()
            while True:  # consecutive spans only: "(0, 0)-(1, 1), (0, 2)-(0, 3) and (1, 2)-(3, 3)"
                m = _ONE_SPAN.match(masked, _GAP.match(masked, pos).end())
                if m is None:
                    break
                (ra, ca), (rb, cb) = (self._cell(norm, k) for k in m.groups())
                out.append(Found("Rect", {"r0": min(ra, rb), "c0": min(ca, cb), "r1": max(ra, rb), "c1": max(ca, cb)},
                                 m.start(), True, m.end(), m.start()))
                masked = masked[:m.start()] + " " * (m.end() - m.start()) + masked[m.end():]
                pos = m.end()
        for rx, kind in _PAIRS:
            for m in rx.finditer(masked):
                (ra, ca), (rb, cb) = ((norm.coords[int(k)][0] - self.offset, norm.coords[int(k)][1] - self.offset)
                                      for k in m.groups())
                if kind in ("Rect", "NotRect"):
                    payload = {"r0": min(ra, rb), "c0": min(ca, cb), "r1": max(ra, rb), "c1": max(ca, cb)}
                else:
                    a, b = sorted([[ra, ca], [rb, cb]])
                    payload = {"a": a, "b": b}
                out.append(Found(kind, payload, m.start(), True, m.end(), m.start()))
                masked = masked[:m.start()] + " " * (m.end() - m.start()) + masked[m.end():]
        return out + super().read(Norm(masked, norm.coords))


def cover_support(x: tuple):
    """Supports of "exactly one of the chosen rectangles covers cell ``x``" (domains: rectangles)."""
    def covers(rect) -> bool:
        return rect[0] <= x[0] <= rect[2] and rect[1] <= x[1] <= rect[3]

    def support(doms: list) -> list:
        if not all(doms):
            return [set() for _ in doms]
        cov = [any(covers(v) for v in d) for d in doms]
        non = [any(not covers(v) for v in d) for d in doms]
        bad = [j for j, ok in enumerate(non) if not ok]
        out = []
        for k, d in enumerate(doms):
            rest_bad = [j for j in bad if j != k]
            keep_cover = not rest_bad
            if not rest_bad:
                keep_non = any(cov[j] for j in range(len(doms)) if j != k)
            else:
                keep_non = len(rest_bad) == 1 and cov[rest_bad[0]]
            out.append({v for v in d if (keep_cover if covers(v) else keep_non)})
        return out

    return support


class RectPack(PayloadPack):
    reader_class = RectReader

    def grid_claims(self, instance: Any, grid: list) -> list:
        return [("Rect", dict(zip(("r0", "c0", "r1", "c1"), box))) for box in
                (rect_of(cells) for cells in label_classes(grid).values()) if box is not None]

    def clue_claims(self, instance: Any) -> list:
        grid = instance.data["state"]["grid"]
        return [clue_claim(r, c, n) for r, row in enumerate(grid) for c, n in enumerate(row) if n]

    def deduction_model(self, instance: Any) -> Model:
        grid, H, W = state_grid(instance)
        sol = instance.data["solution"]
        nums = [(r, c, n) for r, row in enumerate(grid) for c, n in enumerate(row) if n]
        doms = {}
        for k, (r, c, n) in enumerate(nums):
            boxes = []
            for h, w in (hw for area in range(1, n + 2) for hw in shapes(area, H, W)):
                for r0 in range(max(0, r - h + 1), min(r, H - h) + 1):
                    for c0 in range(max(0, c - w + 1), min(c, W - w) + 1):
                        if sum(1 for rr, cc, _ in nums if r0 <= rr < r0 + h and c0 <= cc < c0 + w) == 1:
                            boxes.append((r0, c0, r0 + h - 1, c0 + w - 1))
            doms[k] = tuple(boxes)
        # the domains hold every rectangle of the number's cell up to one cell more than its area, so
        # that the clue always speaks: it cuts the domain to its area
        cons = [Constraint((k,), lambda vals, n=n: (vals[0][2] - vals[0][0] + 1) * (vals[0][3] - vals[0][1] + 1) == n,
                           (clue_claim(r, c, n),), name="area") for k, (r, c, n) in enumerate(nums)]
        for x in ((r, c) for r in range(H) for c in range(W)):
            near = tuple(k for k, boxes in doms.items() if any(b[0] <= x[0] <= b[2] and b[1] <= x[1] <= b[3] for b in boxes))
            cons.append(Constraint(near, lambda vals, x=x: sum(b[0] <= x[0] <= b[2] and b[1] <= x[1] <= b[3]
                                                               for b in vals) == 1,
                                   tuple(clue_claim(*nums[k]) for k in near), name="cover", support=cover_support(x)))
        truth = {k: rect_of([(r, c) for r in range(H) for c in range(W) if sol[r][c] == sol[nums[k][0]][nums[k][1]]])
                 for k in doms}
        return Model(domains=doms, constraints=cons,
                     fact=lambda k, box: ("Rect", dict(zip(("r0", "c0", "r1", "c1"), box))),
                     exclusion=lambda k, box: ("NotRect", dict(zip(("r0", "c0", "r1", "c1"), box))), solution=truth)


PACK = RECT = RectPack(
    puzzle="rect",
    **claim_schema(
        {"Rect": {"r0": "r", "c0": "c", "r1": "r", "c1": "c"},
         "NotRect": {"r0": "r", "c0": "c", "r1": "r", "c1": "c"},
         "SameRegion": {"a": "cell", "b": "cell"},
         "DiffRegion": {"a": "cell", "b": "cell"}},
        {"Clue": cell_fields(n="count")},
        opposite={"SameRegion": "DiffRegion", "Rect": "NotRect"},
    ),
    claim_notes=("Rect is one rectangle of the division, by its top-left (r0, c0) and bottom-right (r1, c1) cells; "
                 "NotRect says that rectangle is not one of them. "
                 "SameRegion / DiffRegion say two cells a, b ([r, c], a before b) lie in one rectangle or in two. "
                 "Clue is a number of the puzzle (the area of its rectangle)."),
    templates={
        "Rect": ("the rectangle from {from_cell} to {to_cell}", "the rectangle spanning {from_cell} to {to_cell}"),
        "NotRect": ("the rectangle from {from_cell} to {to_cell} is ruled out",
                    "the rectangle spanning {from_cell} to {to_cell} cannot be one"),
        "SameRegion": ("{a_cell} and {b_cell} are in the same rectangle",),
        "DiffRegion": ("{a_cell} and {b_cell} are in different rectangles",),
        "Clue": ("{cell} shows the number {n}", "the clue {n} at {cell}"),
    },
    phrases=(Phrase("Clue", r"{cell} (?:shows|holds|has) (?:the )?(?:number|clue) {n:n}\b"),
             *Phrase.group("Clue", r"\bthe (?:number|clue) {n:n} (?:at|in) {cell}",
                                   r"\bthe {n:n} (?:at|in) {cell}",
                                   r"{subj}{cell} (?:is|=|shows|holds) (?:a |the )?{n:n}(?! ?(?:x|by|cells?)\b)\b")),
)
