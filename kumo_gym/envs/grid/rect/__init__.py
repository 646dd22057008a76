"""Rectangles (docs/specs/grid_puzzles.md §5 "Rect"; Tatham's ``rect``). Game IDs: ``codec.py``;
region labels, rectangle moves: ``regions.py``."""
from __future__ import annotations

import dataclasses

import numpy as np

from ....core.instance import Instance
from ....core.params import param
from ....solvers.engine import Encoding
from ....solvers.sat import Formula
from ..base import Check, GridParams, GridTask, presets
from ..regions import (
    EMPTY,
    Draws,
    RectMoves,
    RegionAnswers,
    expand_division,
    label_classes,
    random_division,
    rect_of,
    shapes,
)
from ..render import Sketch
from .claims import RULES as CLAIM_RULES
from .codec import encode as encode_desc
from .deduce import deduce_division

MAX_SIDE = 30
AMAX_DIV = 7  # the largest rectangle drawn has area W*H/7 (Tatham uses W*H/6; this matches his counts)


@dataclasses.dataclass(frozen=True)
class RectParams(GridParams.with_size(7, 1, MAX_SIDE)):
    expansion: float = param(0.0, lo=0.0, hi=4.0, doc="Tatham's 'e': divide a grid 1+e times smaller, then stretch it")
    ambiguous: bool = param(False, doc="Tatham's 'a' (his generator may leave several solutions); ours are unique")
    min_cells = 2


class RectTask(RectMoves, RegionAnswers, GridTask):
    """Rectangles: cut the grid into rectangles, one number in each, equal to its area.

    ## Description
    Some cells hold numbers. Divide the whole grid into rectangles (squares included) along the
    grid lines so that every rectangle contains exactly one number and that number is the count
    of cells in the rectangle (docs/specs/grid_puzzles.md §5, Tatham's *Rectangles*).

    ## Answer
    A JSON array of H rows of W integers: a label per cell, the same label on every cell of one
    rectangle and different labels on different rectangles. Labels are arbitrary (0 to W*H;
    -1 marks a cell left out, which breaks rect.R1): any labelling of a valid division scores 1.

    ## Generation
    Our own generator (docs/specs/grid_puzzles.md §8): a random division (a random cell that some free domino
    covers, then a random free rectangle of area 2 to W*H/7 over it, until none fits; leftover single cells are
    merged into a neighbour; with Tatham's ``e`` on a grid 1+e times smaller, then stretched by copying random
    rows and columns), a number in a random cell of each rectangle, and as in Tatham's generator the numbers
    that deduction (:func:`deduce_division`) cannot place moved until it finds the whole division, which proves
    it unique without SAT.

    ## Interactive mode
    ``{"op": "rect", "r0", "c0", "r1", "c1"}`` draws a rectangle (corners inclusive; regions it
    overlaps are erased), ``{"op": "erase", "r", "c"}`` erases the region of a cell, and
    ``{"r", "c", "v"}`` writes one label (-1 clears).
    """

    title = "Rectangles"
    Params = RectParams
    label_noun = "rectangle"
    claim_rules = CLAIM_RULES
    difficulties = presets("W H", (2, 1), (5, 5), (7, 7), (15, 15))
    rule_codes = """
        R1 every cell is labelled and every label's cells fill one rectangle
        R2 every region contains exactly one number
        R3 a region's number equals its number of cells
    """
    rules_prompt = """
        - Some cells of the grid hold numbers (0 in the grid below means no number).
        - Cut the whole grid along the cell borders into rectangles (squares count as rectangles); every cell belongs
          to exactly one rectangle.
        - Every rectangle contains exactly one number, and that number equals the count of cells in the rectangle.
    """
    symbols = frozenset(range(EMPTY, MAX_SIDE * MAX_SIDE + 1))

    def clues(self, state: dict) -> list[tuple[int, int, int]]:
        return [(r, c, v) for r, row in enumerate(state["grid"]) for c, v in enumerate(row) if v]

    def anchors(self, instance: Instance) -> list[tuple[int, int]]:
        return [(r, c) for r, c, _ in self.clues(instance.data["state"])]

    def rule_checks(self, instance: Instance, grid: list[list]) -> list[Check]:
        nums = {(r, c): v for r, c, v in self.clues(instance.data["state"])}
        checks = [Check("R1", [(r, c)], False) for r, row in enumerate(grid) for c, v in enumerate(row) if v == EMPTY]
        for cells in label_classes(grid).values():
            mine = [x for x in cells if x in nums]
            checks.append(Check("R1", cells, rect_of(cells) is not None))
            checks.append(Check("R2", mine or cells[:1], len(mine) == 1))
            if len(mine) == 1:
                checks.append(Check("R3", mine, nums[mine[0]] == len(cells)))
        return checks

    def encode(self, state: dict) -> Encoding:
        return self.layout(("rect", len(state["grid"]), encode_desc(state)), lambda: self._formula(state, True))

    def _formula(self, state: dict, full: bool) -> Encoding:
        """One variable per candidate rectangle of a number. Right ones have the number's area and
        no other number; with ``full`` also wrong ones, forbidden by tagged constraints so that
        near misses can pick them: area off by 1-2 (R3), two numbers with their summed area (R2)."""
        grid = state["grid"]
        H, W = len(grid), len(grid[0])
        clues = self.clues(state)
        ps = np.pad(np.cumsum(np.cumsum(np.asarray(grid) > 0, 0), 1), ((1, 0), (1, 0))).tolist()
        f, cands, cover = Formula(), [], {}

        def around(cells, area):
            ra, rb = min(r for r, _ in cells), max(r for r, _ in cells)
            lo_c, hi_c = min(c for _, c in cells), max(c for _, c in cells)
            for h, w in shapes(area, H, W):
                for r0 in range(max(0, rb - h + 1), min(ra, H - h) + 1):
                    for c0 in range(max(0, hi_c - w + 1), min(lo_c, W - w) + 1):
                        yield r0, c0, h, w, ps[r0 + h][c0 + w] - ps[r0][c0 + w] - ps[r0 + h][c0] + ps[r0][c0]

        for k, (r, c, n) in enumerate(clues):
            kinds = {"ok": [], "R2": [], "R3": []}
            wants = [((r, c),), n, 1, "ok"]
            todo = [wants] + ([[((r, c),), a, 1, "R3"] for a in (n - 2, n - 1, n + 1, n + 2) if a > 0] +
                              [[((r, c), (r2, c2)), n + m, 2, "R2"] for j, (r2, c2, m) in enumerate(clues) if j != k]
                              if full else [])
            for cells, area, inside, kind in todo:
                for r0, c0, h, w, count in around(cells, area):
                    if count == inside:
                        y = f.var(("y", k, r0, c0, h, w))
                        kinds[kind].append(y)
                        cands.append((y, k, r0, c0, h, w))
                        for cell in np.ndindex(h, w):
                            cover.setdefault((r0 + cell[0], c0 + cell[1]), []).append(y)
            every = kinds["ok"] + kinds["R2"] + kinds["R3"]
            f.at_most(every, 1)
            f.add(every, rule="R2")
            for kind in ("R2", "R3"):
                if kinds[kind]:
                    f.at_most(kinds[kind], 0, rule=kind)
        for cell in np.ndindex(H, W):
            f.exactly(cover.get(cell, []), 1, rule="R1")

        def decode(value: np.ndarray) -> list[list]:
            out = [[EMPTY] * W for _ in range(H)]
            for y, k, r0, c0, h, w in cands:
                if value[y] > 0:
                    for r in range(r0, r0 + h):
                        for c in range(c0, c0 + w):
                            if out[r][c] == EMPTY:
                                out[r][c] = k
            return out

        return Encoding(f, [y for y, *_ in cands], decode)

    def sample(self, rng: np.random.Generator, params: dict) -> tuple[dict, list[list]]:
        draws = Draws(rng)  # rng.integers exactly, without a numpy call per draw (dozens per division)
        try:
            return self._draw(draws, params)
        finally:
            draws.finish()

    def _draw(self, rng: Draws, params: dict) -> tuple[dict, list[list]]:
        W, H = params["W"], params["H"]
        for _ in range(1000):
            h2, w2 = (max(1, int(x / (1.0 + params.get("expansion", 0.0)))) for x in (H, W))
            h2, w2 = (h2, w2) if h2 * w2 >= 2 else (min(H, 2), 1 if H >= 2 else 2)
            rects = expand_division(rng, random_division(rng, h2, w2, max(2, h2 * w2 // AMAX_DIV)), H, W)
            spots = [(r0 + int(rng.integers(h)), c0 + int(rng.integers(w))) for r0, c0, h, w in rects]
            for _ in range(12):
                grid = [[0] * W for _ in range(H)]
                for (r, c), (_, _, h, w) in zip(spots, rects):
                    grid[r][c] = h * w
                solution, open_ = deduce_division(grid)
                if solution is not None:
                    return {"grid": grid}, solution  # deduction settles it: unique (Tatham's test)
                for i, (r0, c0, h, w) in enumerate(rects):
                    if spots[i] in open_:  # a number deduction could not place moves
                        spots[i] = (r0 + int(rng.integers(h)), c0 + int(rng.integers(w)))
        raise RuntimeError(f"could not generate a {W}x{H} Rect puzzle")

    def sketch(self, instance: Instance, grid: list[list]) -> Sketch:
        return self.label_sketch(grid, instance.data["state"]["grid"])

    def clue_count(self, instance: Instance) -> int:
        return len(self.anchors(instance))
