"""Pearl (docs/specs/grid_puzzles.md §5 "Pearl"; Tatham's ``pearl``). Game IDs: ``codec.py``."""
from __future__ import annotations

import dataclasses

import numpy as np

from ....core.errors import ConfigError
from ....core.instance import Instance
from ....core.params import param
from ....solvers.engine import Encoding, reduce_clues
from ....solvers.sat import Formula
from ..base import Check, GridParams, GridTask, presets, tatham_level
from ..geometry import loop_degree, loop_vars, number_loops
from ..play import grid_edges
from ..regions import LoopAnswers
from ..render import Sketch
from .claims import RULES as CLAIM_RULES
from .codec import BLACK, EMPTY, WHITE
from .deduce import loop_masks, loop_pearls, strip
from .geometry import cycle, loop_edges, random_loop, straight

#: grids up to this many cells redraw a loop the deduction cannot finish (bigger ones first move to a second loop)
SMALL = 36
#: the share of the grid Tatham's loops cover, by grid area (measured on its presets)
DENSITY = ((25, 0.85), (36, 0.92), (64, 0.925), (100, 0.958))


@dataclasses.dataclass(frozen=True)
class PearlParams(GridParams.with_size(6, 5, 16)):
    tatham_difficulty: str = tatham_level("e", {"e": "easy", "t": "tricky"})
    nosolve: bool = param(False, doc="Tatham's 'n' (generation only: allow puzzles its solver cannot finish); "
                                     "ours are always unique")

    def check(self):
        p = super().check()
        if p.tatham_difficulty == "t" and p.W + p.H < 11:
            raise ConfigError(f"Pearl W + H = {p.W + p.H} must be at least 11 for tatham_difficulty='t' (Tatham's rule)")
        return p


class PearlTask(LoopAnswers, GridTask):
    """Pearl: draw one loop through every pearl.

    ## Description
    Draw a single closed loop through the centres of some cells, moving orthogonally and visiting
    no cell twice. Every pearl lies on the loop. At a black pearl the loop turns, and it runs
    straight through the cell before and the cell after. At a white pearl the loop goes straight
    through, and it turns in the cell before or the cell after (or both). docs/specs/grid_puzzles.md §5,
    Tatham's *Pearl*.

    ## Answer
    A JSON array of H rows of W integers: the loop's cells numbered 1..L in order along it (any
    start, either direction; L is next to 1), every other cell -1. Any valid loop scores 1.

    ## Generation
    Our own generator (docs/specs/grid_puzzles.md §8): a random loop (a 2x2 square stretched by random detours
    to Tatham's coverage), every possible pearl placed, then pearls removed in a seeded random order. Easy
    (Tatham's way): only while our pearl deduction (the pearl rules, no loop shorter than the cells known to be
    on it) still finds the loop, which proves it the only one. Tricky: to a minimal set that keeps the loop the
    only one (SAT with lazy cuts against second loops).

    ## Interactive mode
    ``{"op": "edge", "cells": [[r1, c1], [r2, c2]], "v": 1}`` draws the loop between two
    neighbouring cells, ``"v": 0`` erases it; the episode ends when the drawn loop is valid.
    """

    Params = PearlParams
    claim_rules = CLAIM_RULES
    difficulties = presets("W H tatham_difficulty", (5, 5, "e"), (6, 6, "e"), (8, 8, "e"), (10, 10, "t"))
    rule_codes = """
        R1 the numbered cells form one closed loop: 1..L each once (L >= 4), consecutive numbers and L, 1 on
           orthogonal neighbours
        R2 every pearl is on the loop
        R3 the loop turns at a black pearl and goes straight through both of its loop neighbours
        R4 the loop goes straight through a white pearl and turns in at least one of its loop neighbours
    """
    rules_prompt = """
        - Draw one closed loop that passes through the centres of cells, each step going to an orthogonally adjacent
          cell. The loop never visits a cell twice and never branches.
        - Every pearl ("B" black, "W" white in the grid) must be on the loop.
        - At a black pearl the loop makes a 90-degree turn, and in both cells it reaches next from there it continues
          straight.
        - At a white pearl the loop passes straight through, and it turns in at least one of the two cells it reaches
          next from there.
    """
    answer_prompt = """
        number the loop's cells 1, 2, ..., L in the order the loop visits them (start anywhere, go either way; the
          cell numbered L is next to the cell numbered 1) and write -1 in every cell off the loop.
    """
    symbols = frozenset({-1} | set(range(1, 16 * 16 + 1)))

    # ---- rules --------------------------------------------------------------------------------
    def rule_checks(self, instance: Instance, grid: list[list]) -> list[Check]:
        loop, around = self.loop_checks(grid)
        checks = [Check("R1", cells, ok) for cells, ok in loop]
        pearls = [(r, c, v) for r, row in enumerate(instance.data["state"]["grid"]) for c, v in enumerate(row) if v != EMPTY]
        for r, c, colour in pearls:
            k = grid[r][c]
            checks.append(Check("R2", [(r, c)], k > 0))
            if (near := around(k)) is None:
                continue  # the loop around this pearl is broken: R1 reports it
            p2, p1, n1, n2 = near
            x, ends = (r, c), straight(p2, p1, (r, c)) and straight((r, c), n1, n2)
            if colour == BLACK:
                checks.append(Check("R3", [x], not straight(p1, x, n1) and ends))
            else:
                checks.append(Check("R4", [x], straight(p1, x, n1) and not ends))
        return checks

    def encode(self, state: dict) -> Encoding:
        H, W = len(state["grid"]), len(state["grid"][0])
        enc = self.layout((H, W), lambda: self._rules(H, W))
        on, black, white = (enc.extra[k] for k in ("on", "black", "white"))
        clues = {}
        for r, row in enumerate(state["grid"]):
            for c, v in enumerate(row):
                if v != EMPTY:
                    clues[("on", r, c)] = ("R2", (int(on[r, c]),))
                    clues[(v, r, c)] = ("R3", (int(black[r, c]),)) if v == BLACK else ("R4", (int(white[r, c]),))
        return enc.with_clues(clues)

    @staticmethod
    def _rules(H: int, W: int) -> Encoding:
        """Edge variables, "on the loop" per cell with degree 2 or 0, and per cell the black and
        white pearl rules switched on by a guard variable (the clues assume the guards)."""
        f = Formula()
        on, e, answer, decode, cuts = loop_vars(f, H, W)
        black, white = f.grid("black", H, W), f.grid("white", H, W)
        for x in np.ndindex(H, W):
            loop_degree(f, on, e, x)
            b, w = int(black[x]), int(white[x])
            for d1, d2 in (("L", "R"), ("U", "D")):
                if e(x, d1) and e(x, d2):
                    f.add([-b, -e(x, d1), -e(x, d2)], rule="R3")  # a black pearl turns
                for d, o in ((d1, d2), (d2, d1)):  # a white pearl goes straight
                    if e(x, d):
                        f.add([-w, -e(x, d)] + ([e(x, o)] if e(x, o) else []), rule="R4")
                if all(e(x, d, k) for d in (d1, d2) for k in (1, 2)):  # ... and a neighbour turns
                    f.add([-w] + [-e(x, d, k) for d in (d1, d2) for k in (1, 2)], rule="R4")
            for d in "URDL":  # a black pearl's loop neighbours go straight
                if e(x, d):
                    f.add([-b, -e(x, d)] + ([e(x, d, 2)] if e(x, d, 2) else []), rule="R3")
        f.add(on.ravel().tolist())
        return Encoding(f, answer, decode, cut_rule="R1", cuts=cuts, extra={"on": on, "black": black, "white": white})

    def grade(self, instance: Instance) -> int:
        """docs/specs/grid_puzzles.md §8 grade with the one-loop rule in view (:meth:`Engine.cut_grade`, as Filling and
        Singles)."""
        enc = self.encoding(instance)
        return enc.engine.cut_grade(enc.assumptions())

    def sample(self, rng: np.random.Generator, params: dict) -> tuple[dict, list[list]]:
        """A random loop with every pearl it allows. Easy (Tatham's way): redrawn until the pearl deduction
        (``deduce.py``) finds it, then pearls go while it still does; on big grids a loop another one fits
        first gives way to that one (below). Tricky: while another loop (from a solver of this draw's own:
        deterministic) also fits those pearls, move to it (it allows all of them and more, so this ends), redrawing
        when it allows no more; then pearls are removed to a minimal set that keeps the loop the only one."""
        W, H, level = params["W"], params["H"], params["tatham_difficulty"]
        deduced, loop, sampler, pearls = level == "e", None, None, None  # pearls: those of loop, when already known
        length = float(np.interp(H * W, *zip(*DENSITY))) * H * W
        while True:
            loop = loop or random_loop(rng, H, W, length)
            grid, masks = pearls or self._pearls(loop, H, W), loop_masks(H, W, loop)
            if deduced and (kept := strip(rng, grid, masks)) is not None:
                return {"grid": kept}, number_loops(H, W, loop_edges(loop))
            if deduced and H * W <= SMALL:
                loop = pearls = None
                continue
            drawn = loop_edges(loop)
            enc = self.encode({"grid": grid})
            truth = enc.solution_values([v if k in drawn else -v for k, v in zip(grid_edges(H, W), enc.answer.tolist())])
            lits, eng = enc.assumptions(), enc.engine
            sampler = sampler or eng.sampler(tuple(enc.extra["black"].ravel()) + tuple(enc.extra["white"].ravel()))
            # a second loop, or None: the loop is unique (at Easy not found by the deduction all the same: redraw)
            other = None if not deduced and eng.unique(lits, truth) else sampler(lits, truth)
            if other is not None:
                nxt_loop = cycle(k for k, v in zip(grid_edges(H, W), other[enc.answer].tolist()) if v > 0)
                pearls = self._pearls(nxt_loop, H, W)
                loop, pearls = (nxt_loop, pearls) if pearls != grid else (None, None)
                continue
            if deduced:
                loop = pearls = None
                continue
            keys = sorted({k[1:] for k in enc.clues})
            groups = [enc.assumptions([("on", *x), (grid[x[0]][x[1]], *x)]) for x in keys]
            kept = reduce_clues(enc.engine, groups, rng, truth, derive=False)  # guards are never derived
            for (r, c), keep in zip(keys, kept):
                grid[r][c] = grid[r][c] if keep else EMPTY
            return {"grid": grid}, number_loops(H, W, drawn)

    _pearls = staticmethod(loop_pearls)

    def sketch(self, instance: Instance, grid: list[list]) -> Sketch:
        (H, W), pearls = self.dims(instance), instance.data["state"]["grid"]
        return Sketch(H, W, [[""] * W for _ in range(H)], edges=self.drawn_edges(grid),
                      dots=[(2 * r, 2 * c, v == BLACK) for r, row in enumerate(pearls) for c, v in enumerate(row) if v != EMPTY])

    def clue_count(self, instance: Instance) -> int:
        return sum(v != EMPTY for row in instance.data["state"]["grid"] for v in row)

    def clue_features(self, instance: Instance) -> np.ndarray:
        return np.asarray([(EMPTY, BLACK, WHITE).index(v) for row in instance.data["state"]["grid"] for v in row], np.float32)
