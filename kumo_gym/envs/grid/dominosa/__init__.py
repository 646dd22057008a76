"""Dominosa (docs/specs/grid_puzzles.md §5 "Dominosa"; Tatham's ``dominosa``). Game IDs: ``codec.py``."""
from __future__ import annotations

import dataclasses

import numpy as np

from ....core.instance import Instance
from ....core.params import param
from ....solvers.engine import Encoding
from ....solvers.sat import Formula
from ..base import Check, GridParams, GridTask, presets, tatham_level
from ..geometry import random_tiling
from ..play import DominoMoves
from ..render import Sketch
from .claims import RULES as CLAIM_RULES
from .deduce import deduce_slots, slot_cells, slot_cover, undecided_slots
from .geometry import dominoes

#: the half a cell holds, and the step from it to the other half
PARTNER = {"L": (0, 1), "R": (0, -1), "T": (1, 0), "B": (-1, 0)}
EMPTY = "."


@dataclasses.dataclass(frozen=True)
class DominosaParams(GridParams):
    max_pip: int = param(6, lo=1, hi=30, doc="the largest number N; the grid has N+1 rows and N+2 columns")
    tatham_difficulty: str = tatham_level("b", {"t": "trivial", "b": "basic", "h": "hard", "e": "extreme"})


class DominosaTask(DominoMoves, GridTask):
    """Dominosa: find the full set of dominoes hidden in a grid of numbers.

    ## Description
    A grid of N+1 rows and N+2 columns holds numbers 0..N. Cut it into dominoes (pairs of
    orthogonally adjacent cells) so that every unordered pair of numbers {a, b} with
    0 <= a <= b <= N is the pair of exactly one domino (docs/specs/grid_puzzles.md §5, Tatham's *Dominosa*).

    ## Answer
    N+1 rows of N+2 strings, each cell's half of its domino: ``"L"``/``"R"`` (left/right of a
    horizontal one), ``"T"``/``"B"`` (top/bottom of a vertical one). Any valid tiling scores 1.

    ## Generation
    Our own generator (docs/specs/grid_puzzles.md §8): a random domino tiling (straight rows, then random 2x2
    flips) with the number pairs in random order; two dominoes (one on a slot failed-literal probing leaves
    open) swap pairs, kept when no more slots stay open, until probing solves it (grade <= 1: unique). As
    Tatham's, ``t`` prefers grade 0.

    ## Interactive mode
    ``{"op": "domino", "cells": [[r1, c1], [r2, c2]]}`` lays a domino on two adjacent cells
    (removing any domino it overlaps); ``{"op": "erase", "cells": [[r1, c1], [r2, c2]]}`` lifts one.
    """

    Params = DominosaParams
    claim_rules = CLAIM_RULES
    difficulties = presets("max_pip tatham_difficulty", (1, "t"), (3, "t"), (6, "b"), (9, "b"))
    rule_codes = """
        R1 the grid is tiled by dominoes: every L has its R to the right, every T its B below
        R2 no pair of numbers is the pair of two dominoes (with R1, every pair appears exactly once)
    """
    answer_prompt = """
        for every cell say which half of its domino it is: "L" and "R" for the left and right halves of a horizontal
          domino, "T" and "B" for the top and bottom halves of a vertical one.
    """
    symbols = frozenset(PARTNER)
    state_keys = ("max_pip", "grid")
    empty = EMPTY
    max_cells = 31 * 32  # max_pip <= 30

    def rule_checks(self, instance: Instance, grid: list[list]) -> list[Check]:
        H, W = self.dims(instance)
        checks = []
        for r in range(H):
            for c in range(W):
                dr, dc = PARTNER[grid[r][c]]
                a, b = r + dr, c + dc
                mate = {"L": "R", "R": "L", "T": "B", "B": "T"}[grid[r][c]]
                checks.append(Check("R1", [(r, c)], 0 <= a < H and 0 <= b < W and grid[a][b] == mate))
        nums = instance.data["state"]["grid"]
        seen: dict = {}
        for x, y in dominoes(grid):
            seen.setdefault(tuple(sorted((nums[x[0]][x[1]], nums[y[0]][y[1]]))), []).extend([x, y])
        return checks + [Check("R2", cells, len(cells) <= 2) for _, cells in sorted(seen.items())]

    _slot_cells = staticmethod(slot_cells)  # the slots in answer-variable order (analysis packs use it)

    def encode(self, state: dict) -> Encoding:
        """A variable per domino slot; R1: each cell on exactly one, R2: each pair on exactly one."""
        nums = tuple(tuple(row) for row in state["grid"])
        return self.layout(nums, lambda: self._rules(nums))

    @staticmethod
    def _rules(nums: tuple) -> Encoding:
        H, W = len(nums), len(nums[0])
        f = Formula()
        slots = slot_cells(H, W)
        x = {s: f.var(("slot", *s[0], *s[1])) for s in slots}  # slot k is variable k + 1
        by_pair: dict = {}
        for s in slots:
            by_pair.setdefault(tuple(sorted(nums[r][c] for r, c in s)), []).append(x[s])
        for group in slot_cover(H, W):
            f.exactly(list(group), 1, rule="R1")
        n = max(max(row) for row in nums)
        for p in ((a, b) for a in range(n + 1) for b in range(a, n + 1)):
            f.exactly(by_pair.get(p, []), 1, rule="R2")

        def decode(value: np.ndarray) -> list[list]:
            g = [["L"] * W for _ in range(H)]  # a cell no chosen slot covers stays "L" (an R1 break)
            for (p, q) in reversed(slots):
                if value[x[p, q]] > 0:
                    g[p[0]][p[1]], g[q[0]][q[1]] = ("L", "R") if p[0] == q[0] else ("T", "B")
            return g

        return Encoding(f, [x[s] for s in slots], decode, extra={"nums": nums})

    def sample(self, rng: np.random.Generator, params: dict) -> tuple[dict, list[list]]:
        """A random tiling and pairs; pairs swapped until probing solves it (the class docstring)."""
        n, level = params["max_pip"], params["tatham_difficulty"]
        H, W = n + 1, n + 2
        pairs = [(a, b) for a in range(n + 1) for b in range(a, n + 1)]
        first = None
        for attempt in range(200):  # a tiling whose numbers the search cannot make unique: redraw
            sol = random_tiling(rng, H, W)
            doms = dominoes(sol)
            label = [pairs[int(k)] if rng.random() < 0.5 else pairs[int(k)][::-1] for k in rng.permutation(len(pairs))]
            where = {cell: i for i, d in enumerate(doms) for cell in d}
            best, undecided = None, None
            for _ in range(10 + 2 * len(doms)):
                nums = [[0] * W for _ in range(H)]
                for (p, q), (a, b) in zip(doms, label):
                    nums[p[0]][p[1]], nums[q[0]][q[1]] = a, b
                free = undecided_slots(H, W, nums)
                if best is not None and len(free) > len(best[1]):
                    label = best[0]  # the swap made it worse: undo
                else:
                    best, undecided = (list(label), free), nums
                if not best[1]:
                    break
                slot = best[1][int(rng.integers(len(best[1])))]
                i, j = where[slot_cells(H, W)[slot][0]], int(rng.integers(len(doms)))
                label = list(best[0])
                label[i], label[j] = label[j][::(1, -1)[int(rng.integers(2))]], label[i][::(1, -1)[int(rng.integers(2))]]
            if best[1]:
                continue
            state = {"max_pip": n, "grid": undecided}
            # the docs/specs/grid_puzzles.md §8 grade: probing solves it (the loop above), so 0 exactly when propagation
            # does
            value = deduce_slots(H, W, undecided, False)
            grade = 0 if value is not None and (value != 0).all() else 1
            if grade == (0 if level == "t" else 1) or n < 3:
                return state, sol
            first = first or (state, sol)
            if attempt >= 4:  # the preferred grade is rare for this size: take the first unique one
                return first
        raise RuntimeError(f"could not generate a Dominosa puzzle with maximum {n}")

    def clue_count(self, instance: Instance) -> int:
        return instance.data["W"] * instance.data["H"]  # every number is shown

    def clue_features(self, instance: Instance) -> np.ndarray:
        return np.asarray([v for row in instance.data["state"]["grid"] for v in row], np.float32)

    def rules_text(self, instance: Instance) -> str:
        n = instance.data["state"]["max_pip"]
        return (f"- The grid of numbers 0 to {n} must be cut completely into dominoes: each domino covers two cells "
                "that share a side, and every cell belongs to exactly one domino.\n"
                f"- A domino's pair is the two numbers it covers. Each of the {(n + 1) * (n + 2) // 2} possible pairs "
                f"{{a, b}} with 0 <= a <= b <= {n} (doubles such as {{0, 0}} included, order not mattering) must be the "
                "pair of exactly one domino.")

    def sketch(self, instance: Instance, grid: list[list]) -> Sketch:
        nums = instance.data["state"]["grid"]
        H, W = len(nums), len(nums[0])
        placed = {cell: d for d in dominoes(grid) for cell in d}  # walls around the dominoes laid
        walls = [((r, c), (a, b)) for r in range(H) for c in range(W) for a, b in ((r, c + 1), (r + 1, c))
                 if a < H and b < W and placed.get((r, c)) != placed.get((a, b))]
        return Sketch(H, W, [[str(v) for v in row] for row in nums],
                      [["given" if (r, c) in placed else None for c in range(W)] for r in range(H)], walls=walls)
