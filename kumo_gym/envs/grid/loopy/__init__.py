"""Loopy (docs/grid.md "Loopy"; Tatham's ``loopy``, also called Slitherlink). Game IDs: ``codec.py``."""
from __future__ import annotations

import dataclasses

import numpy as np

from ....core.errors import ConfigError
from ....core.instance import Instance
from ....core.params import param
from ....solvers.engine import Encoding, reduce_clues
from ....solvers.sat import Formula
from ..base import Check, GridParams, GridTask, presets, tatham_level
from ..geometry import loop_degree, loop_vars, number_loops, numbered_edges
from ..play import grid_edges
from ..regions import LoopAnswers
from ..render import Sketch
from .claims import RULES as CLAIM_RULES
from .codec import NONE
from .geometry import boundary, clues_of, face_sides, random_region

#: Tatham's tilings (the ``t`` of a game ID) by number; ours so far: the squares
TILINGS = {0: "squares"}
#: the share of faces Tatham's Loopy leaves a clue in (measured on its presets: 22.3 of 49 at 7x7, 45.2 of 100 at
#: 10x10, much the same at every level)
CLUE_SHARE = 0.452
#: the share of faces inside the generator's loops
INSIDE_SHARE = 0.5


@dataclasses.dataclass(frozen=True)
class LoopyParams(GridParams.with_size(10, 3, 20)):
    tiling: int = param(0, lo=0, hi=15, doc="Tatham's grid type (t0 squares; the other tilings are not done yet)")
    tatham_difficulty: str = tatham_level("e", {"e": "easy", "n": "normal", "t": "tricky", "h": "hard"})

    def check(self):
        p = super().check()
        if p.tiling not in TILINGS:
            raise ConfigError(f"Loopy tiling t{p.tiling} is not supported; supported: "
                              + ", ".join(f"t{k} ({v})" for k, v in TILINGS.items()))
        return p


class LoopyTask(LoopAnswers, GridTask):
    """Loopy: draw one loop along the grid lines around the numbered faces.

    ## Description
    A grid of H x W square faces has (H + 1) x (W + 1) dots at its corners. Draw one closed loop
    along the grid lines, from dot to neighbouring dot, never visiting a dot twice. A number in a
    face says how many of the face's four sides the loop uses; faces without a number may have
    any count. Tatham's *Loopy* (Nikoli's Slitherlink); docs/grid.md "Loopy".

    ## Answer
    A JSON array of H + 1 rows of W + 1 integers, one per dot: the loop's dots numbered 1..L in
    order along it (any start, either direction; L is next to 1), every other dot -1. Any valid
    loop scores 1.

    ## Generation
    Our own generator: the boundary of a random region of faces (grown one face at a time, each
    keeping the boundary one simple loop) gives the loop and every face's number; numbers are then
    removed in a seeded random order while the loop stays the only one (SAT with lazy cuts against
    several loops), until Tatham's share of clued faces is left. Tatham's level (``tatham_difficulty``)
    is kept in the parameters and game IDs but does not change our generator: Tatham's own puzzles show
    the same share of clues at every level, and ours are unique at that share.

    ## Interactive mode
    ``{"op": "edge", "cells": [[r1, c1], [r2, c2]], "v": 1}`` draws the grid line between two
    neighbouring dots, ``"v": 0`` erases it; the episode ends when the drawn loop is valid.
    """

    rule_codes = """
        R1 the numbered dots form one closed loop: 1..L each once (L >= 4), consecutive numbers and L, 1 on
           orthogonally neighbouring dots
        R2 every numbered face has that many of its four sides on the loop
    """
    rules_prompt = """
        - "clues" has one entry per square face of the grid ({H} rows of {W} faces); -1 means the face has no number.
          The dots are the faces' corners: face (r, c) has the dots (r, c), (r, c + 1), (r + 1, c) and (r + 1, c + 1).
        - Draw one closed loop along the grid lines: each step goes from a dot to the dot directly above, below, left
          or right of it. The loop never visits a dot twice and never branches.
        - A face with a number n has exactly n of its four sides on the loop. Faces with -1 may have any number.
    """
    answer_prompt = """
        give the grid of dots ({H} + 1 rows of {W} + 1): number the loop's dots 1, 2, ..., L in the order the loop
          visits them (start anywhere, go either way; the dot numbered L is next to the dot numbered 1) and write -1
          at every dot off the loop.
    """
    symbols = frozenset({-1} | set(range(1, 21 * 21 + 1)))
    state_keys = ("clues",)
    Params = LoopyParams
    difficulties = presets("W H tatham_difficulty", (7, 7, "e"), (10, 10, "e"), (10, 10, "n"), (10, 10, "h"))
    claim_rules = CLAIM_RULES

    def shape(self, state: dict) -> tuple[int, int]:
        clues = state["clues"]
        return len(clues) + 1, len(clues[0]) + 1

    def prompt_fields(self, instance: Instance) -> dict:
        clues = instance.data["state"]["clues"]
        return {"H": len(clues), "W": len(clues[0])}

    # ---- rules --------------------------------------------------------------------------------
    def rule_checks(self, instance: Instance, grid: list[list]) -> list[Check]:
        loop, _ = self.loop_checks(grid)
        checks = [Check("R1", cells, ok) for cells, ok in loop]
        edges = set(numbered_edges(grid))
        for r, row in enumerate(instance.data["state"]["clues"]):
            for c, n in enumerate(row):
                if n != NONE:
                    sides = face_sides(r, c)
                    checks.append(Check("R2", [sides[0][0], sides[2][1]], sum(s in edges for s in sides) == n))
        return checks

    def encode(self, state: dict) -> Encoding:
        clues = state["clues"]
        H, W = len(clues), len(clues[0])
        enc = self.layout((H, W), lambda: self._rules(H, W))
        count = enc.extra["count"]
        return enc.with_clues({("clue", r, c): ("R2", tuple(count[r][c].eq(n)))
                               for r, row in enumerate(clues) for c, n in enumerate(row) if n != NONE})

    @staticmethod
    def _rules(H: int, W: int) -> Encoding:
        """Pearl's loop variables on the (H + 1) x (W + 1) dots (a grid line per pair of neighbouring
        dots, each dot on two of them or none, one loop by lazy cuts) and per face a counter of its
        sides on the loop (the clues are assumptions on it)."""
        f = Formula()
        on, e, answer, decode, cuts = loop_vars(f, H + 1, W + 1)
        for x in np.ndindex(H + 1, W + 1):
            loop_degree(f, on, e, x)
        f.add(on.ravel().tolist())
        side = {k: int(v) for k, v in zip(grid_edges(H + 1, W + 1), answer.tolist())}
        count = [[f.count([side[s] for s in face_sides(r, c)]) for c in range(W)] for r in range(H)]
        return Encoding(f, answer, decode, cut_rule="R1", cuts=cuts, extra={"count": count})

    def grade(self, instance: Instance) -> int:
        """The grade with the one-loop rule in view (:meth:`Engine.cut_grade`, as Pearl)."""
        enc = self.encoding(instance)
        return enc.engine.cut_grade(enc.assumptions())

    def sample(self, rng: np.random.Generator, params: dict) -> tuple[dict, list[list]]:
        """A random loop (:func:`random_region`) with every face's number, then numbers removed in a seeded order
        while the loop stays the only one, down to Tatham's share."""
        W, H = params["W"], params["H"]
        while True:
            edges = boundary(random_region(rng, H, W, INSIDE_SHARE))
            if len(edges) >= 4:
                break
        full = clues_of(H, W, edges)
        enc = self.encode({"clues": full})
        answer = enc.answer.tolist()
        truth = enc.solution_values([v if k in edges else -v for k, v in zip(grid_edges(H + 1, W + 1), answer)])
        keys = [("clue", r, c) for r in range(H) for c in range(W)]
        groups = [enc.assumptions([k]) for k in keys]
        keep = round(CLUE_SHARE * H * W)
        kept = reduce_clues(enc.engine, groups, rng, truth, keep=keep)
        clues = [[full[r][c] if kept[r * W + c] else NONE for c in range(W)] for r in range(H)]
        return {"clues": clues}, number_loops(H + 1, W + 1, edges)

    def sketch(self, instance: Instance, grid: list[list]) -> Sketch:
        """A (2H + 1) x (2W + 1) board: dots at even positions, the faces' numbers at odd ones, and the
        loop drawn through the positions between (a dot of the answer is position (2r, 2c))."""
        clues = instance.data["state"]["clues"]
        H, W = len(clues), len(clues[0])
        text = [[" " if (r + c) % 2 else "" for c in range(2 * W + 1)] for r in range(2 * H + 1)]
        for r, row in enumerate(clues):
            for c, n in enumerate(row):
                text[2 * r + 1][2 * c + 1] = " " if n == NONE else str(n)
        edges = []
        for a, b in self.drawn_edges(grid):
            mid = (a[0] + b[0], a[1] + b[1])
            edges += [((2 * a[0], 2 * a[1]), mid), (mid, (2 * b[0], 2 * b[1]))]
            text[mid[0]][mid[1]] = ""
        return Sketch(2 * H + 1, 2 * W + 1, text, edges=edges)

    def sketch_cell(self, instance: Instance, cell: tuple[int, int]) -> tuple[int, int]:
        return 2 * cell[0], 2 * cell[1]

    def clue_count(self, instance: Instance) -> int:
        return sum(v != NONE for row in instance.data["state"]["clues"] for v in row)

    def clue_features(self, instance: Instance) -> np.ndarray:
        return np.asarray([v + 1 for row in instance.data["state"]["clues"] for v in row], np.float32)  # 0: no clue
