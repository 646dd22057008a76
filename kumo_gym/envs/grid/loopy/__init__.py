"""Loopy (docs/grid.md "Loopy"; Tatham's ``loopy``, also called Slitherlink). Game IDs: ``codec.py``."""
from __future__ import annotations

import dataclasses
import json
from typing import Any

import numpy as np

from ....core.capabilities import AnswerPicture
from ....core.errors import ConfigError
from ....core.instance import Instance
from ....core.params import param
from ....core.task import Transition
from ....solvers.engine import Encoding
from ....solvers.sat import Formula
from ...raster import MARK, MARK_ALSO
from ..base import Check, GridParams, GridTask, presets, tatham_level
from ..geometry import loop_degree, loop_vars, numbered_edges
from ..play import SUBMIT, CellMoves, grid_edges
from ..regions import LoopAnswers
from ..render import Sketch
from . import board, search
from .claims import RULES as CLAIM_RULES
from .codec import NONE
from .geometry import face_sides
from .tiling import LIMITS, NAMES, Tiling, new_desc, tiling

#: Tatham's tilings (the ``t`` of a game ID) by number that we support (the others: docs/grid.md "Loopy")
TILINGS = {0: "squares", **NAMES}
#: the most dots a board of the largest size has (a 20 x 20 great-great-dodecagonal grid; a test checks it): the
#: answer numbers at most that many
MAX_DOTS = 7042
#: the share of faces Tatham's Loopy leaves a clue in on the other tilings (measured on its IDs, see
#: docs/grid.md "Loopy")
TILING_CLUE_SHARE = {1: 0.415, 2: 0.463, 3: 0.435, 4: 0.459, 5: 0.455, 6: 0.483, 7: 0.421, 8: 0.439, 9: 0.514,
                     10: 0.464, 11: 0.445, 12: 0.425, 13: 0.479, 14: 0.460, 15: 0.479}
#: the share of faces Tatham's Loopy leaves a clue in (measured on its presets: 22.3 of 49 at 7x7, 45.2 of 100 at
#: 10x10, much the same at every level)
CLUE_SHARE = 0.452
#: the share of faces inside the generator's loops
INSIDE_SHARE = 0.5


@dataclasses.dataclass(frozen=True)
class LoopyParams(GridParams.with_size(10, 3, 20)):
    tiling: int = param(0, lo=0, hi=15, doc="Tatham's grid type: t0 squares, t1 triangular, t2 honeycomb, t3 "
                                             "snub-square, t4 Cairo, t5 great-hexagonal, t6 octagonal, t7 kites, t8 "
                                             "floret, t9 dodecagonal, t10 great-dodecagonal, t11 Penrose kite/dart, "
                                             "t12 Penrose rhombs, t13 great-great-dodecagonal, t14 kagome, t15 "
                                             "compass-dodecagonal")
    tatham_difficulty: str = tatham_level("e", {"e": "easy", "n": "normal", "t": "tricky", "h": "hard"})

    def check(self):
        p = super().check()
        if p.tiling not in TILINGS:
            raise ConfigError(f"Loopy tiling t{p.tiling} is not supported; supported: "
                              + ", ".join(f"t{k} ({v})" for k, v in TILINGS.items()))
        lo, one = LIMITS.get(p.tiling, (3, 3))
        if min(p.W, p.H) < lo or max(p.W, p.H) < one:
            raise ConfigError(f"a {TILINGS[p.tiling]} Loopy grid of {p.W}x{p.H} is too small: width and height must "
                              f"be at least {lo} and one of them at least {one} (as Tatham's Loopy asks)")
        return p


class LoopyTask(LoopAnswers, GridTask):
    """Loopy: draw one loop along the grid lines around the numbered faces.

    ## Description
    A grid of H x W square faces has (H + 1) x (W + 1) dots at its corners. Draw one closed loop
    along the grid lines, from dot to neighbouring dot, never visiting a dot twice. A number in a
    face says how many of the face's four sides the loop uses; faces without a number may have
    any count. Tatham's *Loopy* (Nikoli's Slitherlink); docs/grid.md "Loopy".

    Tatham's triangular (``tiling=1``, ``7x7t1dn``), honeycomb (``tiling=2``, ``12x10t2dh``), snub-square
    (3), Cairo (4), great-hexagonal (5), octagonal (6), kites (7), floret (8), dodecagonal (9),
    great-dodecagonal (10), Penrose kite/dart (11) and rhombs (12, a random patch of the tiling named in
    the game ID, ``G<x>,<y>,<angle>``: :mod:`.penrose`), great-great-dodecagonal (13), kagome (14) and
    compass-dodecagonal (15) grids
    are played too, laid out as Tatham lays them out (:mod:`.tiling`): the prompt lists every dot
    (numbered, with its position and the dots one edge away) and every face (its clue or ``?`` and its
    corner dots clockwise). The named presets are square grids.

    ## Answer
    A JSON array of H + 1 rows of W + 1 integers, one per dot: the loop's dots numbered 1..L in
    order along it (any start, either direction; L is next to 1), every other dot -1. Any valid
    loop scores 1. On another tiling: one row of numbers, one per dot in dot order,
    the same way (``[[3, 2, -1, 1, ...]]``).

    ## Generation
    Our own generator: the boundary of a random region of faces (grown one face at a time, each
    keeping the boundary one simple loop) gives the loop and every face's number; numbers are then
    removed in a seeded random order while our loop solver still proves the loop the only one, until
    Tatham's share of clued faces is left (45 % of squares). Tatham's level (``tatham_difficulty``) sets
    what the solver may do, as his levels set his: at easy and normal deduction alone (the counts round
    dots and numbered faces, chains that may not close early, faces inside or outside the loop), at
    tricky and hard deduction with a short search (10 and 50 branches). On the other tilings numbers
    go while the loop stays the only one (the same solver with a large budget, SAT past it), down to
    Tatham's share there (41.5 % of triangles, 46.3 % of hexagons; docs/grid.md "Loopy" has every
    tiling's).

    ## Interactive mode
    ``{"op": "edge", "cells": [[r1, c1], [r2, c2]], "v": 1}`` draws the grid line between two
    neighbouring dots, ``"v": 0`` erases it; the episode ends when the drawn loop is valid. On
    another tiling dot d is written ``[0, d]``: ``"cells": [[0, a], [0, b]]`` names
    the edge between dots a and b.

    ## Version history
    * v0 (before the first release): on 2026-12-03 clue removal came to follow the difficulty level's
      deductions (the compiled loop solver, as Tatham's generator does), so from then on a seed draws other
      square-grid clues than before; the other tilings are unchanged. On 2026-12-05 the Penrose tilings
      (11, 12) were added; nothing else changed.
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
    symbols = frozenset({-1} | set(range(1, MAX_DOTS + 1)))
    state_keys = ("clues",)
    Params = LoopyParams
    difficulties = presets("W H tatham_difficulty", (7, 7, "e"), (10, 10, "e"), (10, 10, "n"), (10, 10, "h"))
    claim_rules = CLAIM_RULES

    def shape(self, state: dict) -> tuple[int, int]:
        if state.get("tiling"):
            return 1, len(self.board(state).dots)
        clues = state["clues"]
        return len(clues) + 1, len(clues[0]) + 1

    # ---- the other tilings (triangular, honeycomb): one answer row with an entry per dot ------
    @staticmethod
    def board(state: dict) -> Tiling | None:
        """The laid-out tiling of a state, None on the square grid (whose code paths are the ones above)."""
        return tiling(state["tiling"], *state["size"], state["grid_desc"]) if state.get("tiling") else None

    def tiled(self, instance: Instance) -> Tiling | None:
        return self.board(instance.data["state"])

    def rules_text(self, instance: Instance) -> str:
        t = self.tiled(instance)
        if t is None:
            return super().rules_text(instance)
        orders = sorted({len(ds) for ds in t.faces})
        sides = f"{orders[0]} sides each" if len(orders) == 1 else \
            ", ".join(map(str, orders[:-1])) + f" or {orders[-1]} sides"
        return (f"- The board is a {t.name} grid: {len(t.faces)} faces with {sides}, whose corners are "
                f"{len(t.dots)} dots numbered 0..{len(t.dots) - 1}; an edge joins two dots that are corners of the "
                "same face and follow one another round it. The puzzle state lists every dot with its position and "
                "the dots one edge away, and every face with its clue and its corner dots in turn.\n"
                "- Draw one closed loop along the edges, from dot to dot: it never visits a dot twice and never "
                "branches.\n"
                "- A face whose clue is a number n has exactly n of its sides on the loop; a face marked ? may have "
                "any number.")

    def answer_text(self, instance: Instance) -> str:
        t = self.tiled(instance)
        if t is None:
            return super().answer_text(instance)
        return (f"one row of {len(t.dots)} numbers, one per dot in dot order: number the loop's dots 1, 2, ..., L "
                "in the order the loop visits them (start anywhere, go either way; the dot numbered L is joined "
                "by an edge to the dot numbered 1) and write -1 for every dot off the loop.")

    def state_json(self, instance: Instance) -> str:
        t = self.tiled(instance)
        return super().state_json(instance) if t is None else board.describe(t, instance.data["state"]["clues"])

    def prompt(self, instance: Instance) -> str:
        t = self.tiled(instance)
        if t is None:
            return super().prompt(instance)
        D = len(t.dots)
        example = [(k % 3) + 1 if k % 2 else -1 for k in range(5)]
        return (f"You are solving a {self.title} logic puzzle on a {t.name} grid of {len(t.faces)} faces "
                f"({t.W} x {t.H} in Tatham's sizes).\n\nRules:\n{self.rules_text(instance)}\n\n"
                f"Puzzle state:\n{self.state_json(instance)}\n\nAnswer format: {self.answer_text(instance)}\n"
                "Solve it by reasoning alone, without writing code. End your reply with the answer as a JSON array "
                f"holding one row of {D} numbers; for a board of 5 dots the form would be:\n{json.dumps([example])}\n")

    def tiled_checks(self, t: Tiling, clues: list[int], row: list) -> list[Check]:
        """R1 (the numbered dots form one closed loop, L >= 3) and R2 (the clues) on a tiling."""
        L, bad, one, step = board.loop_numbers(t, row)
        checks = [Check("R1", [(0, d) for d in bad], not bad), Check("R1", [], L >= 3)]
        checks += [Check("R1", [(0, d) for d in (one.get(k), one.get(k % L + 1)) if d is not None], step[k])
                   for k in range(1, L + 1)]
        counts = board.face_counts(t, board.loop_edges(t, row))
        checks += [Check("R2", [(0, d) for d in t.faces[f]], counts[f] == n) for f, n in enumerate(clues) if n != NONE]
        return checks

    def progress(self, instance: Instance, grid: list[list]) -> float:
        """Partial credit with the loop renumbered as our generator numbers it (a start or direction of one's own
        costs nothing), as on the square grid."""
        t = self.tiled(instance)
        if t is None:
            return super().progress(instance, grid)
        row = grid[0]
        if all(isinstance(v, int) and not isinstance(v, bool) for v in row):
            edges = board.loop_edges(t, row)
            again = board.number_loop(t, edges)
            if len(edges) == sum(v > 0 for v in row) == sum(v > 0 for v in again):
                grid = [again]
        return GridTask.progress(self, instance, grid)

    def prompt_fields(self, instance: Instance) -> dict:
        clues = instance.data["state"]["clues"]
        return {"H": len(clues), "W": len(clues[0])}

    # ---- rules --------------------------------------------------------------------------------
    def rule_checks(self, instance: Instance, grid: list[list]) -> list[Check]:
        t = self.tiled(instance)
        if t is not None:
            return self.tiled_checks(t, instance.data["state"]["clues"], grid[0])
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
        t = self.board(state)
        if t is not None:
            enc = self.layout(("tiling", t.kind, t.W, t.H, t.desc), lambda: board.rules(t))
            count = enc.extra["count"]
            return enc.with_clues({("clue", f): ("R2", tuple(count[f].eq(n)))
                                   for f, n in enumerate(state["clues"]) if n != NONE})
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
        """A random loop (:func:`search.random_region`) with every face's number, then numbers removed in a
        seeded order while the solver of the level still proves the loop the only one
        (:data:`search.LEVEL_BUDGET`), down to Tatham's share."""
        W, H = params["W"], params["H"]
        if params.get("tiling"):
            return self.sample_tiled(rng, tiling(params["tiling"], W, H, new_desc(rng, params["tiling"], W, H)))
        while True:
            edges, full, answer = search.square_loop(search.random_region(rng, H, W, INSIDE_SHARE))
            if len(edges) >= 4:
                break
        g, index = search.square(H, W)
        truth = np.full(len(index), 2, np.int64)
        truth[[index[k] for k in edges]] = 1

        budget = search.LEVEL_BUDGET[params.get("tatham_difficulty", "e")]
        counter = search.Counter(g, np.asarray(full, np.int64).ravel(), truth, budget)
        kept = search.reduce(rng, counter, round(CLUE_SHARE * H * W))
        clues = [[full[r][c] if kept[r * W + c] else NONE for c in range(W)] for r in range(H)]
        return {"clues": clues}, answer

    def sample_tiled(self, rng: np.random.Generator, t: Tiling) -> tuple[dict, list[list]]:
        """As :meth:`sample` on a tiling: a random loop (:func:`board.random_region`), every face's number, then
        numbers removed in a seeded order while the loop stays the only one (the solver with
        :func:`search.tiling_budget` branches, SAT past it), down to Tatham's share there."""
        while True:
            edges = board.boundary(t, board.random_region(rng, t, INSIDE_SHARE))
            if len(edges) >= 3:
                break
        full = board.face_counts(t, edges)
        base = {"tiling": t.kind, "size": [t.W, t.H], "grid_desc": t.desc}
        F = len(t.faces)
        truth = np.full(len(t.edges), 2, np.int64)
        truth[sorted(edges)] = 1

        def by_sat(active: np.ndarray) -> bool:
            enc = self.encode({**base, "clues": full})
            values = enc.solution_values([v if i in edges else -v for i, v in enumerate(enc.answer.tolist())])
            lits = enc.assumptions([("clue", f) for f in np.flatnonzero(active).tolist()])
            return enc.engine.alternative(lits, values) is None

        g = search.tiled(t)
        counter = search.Counter(g, np.asarray(full, np.int64), truth, search.tiling_budget(g), by_sat)
        kept = search.reduce(rng, counter, round(TILING_CLUE_SHARE[t.kind] * F))
        return {**base, "clues": [full[f] if kept[f] else NONE for f in range(F)]}, [board.number_loop(t, edges)]

    def render(self, instance: Instance, state: Any = None) -> str:
        t = self.tiled(instance)
        if t is None:
            return super().render(instance, state)
        return (f"{self.title} {t.name} {t.W}x{t.H}  ({instance.data.get('game_id') or ''})\n"
                + self.render_state(instance, self.initial_state(instance) if state is None else state))

    def state_edges(self, instance: Instance, state: Any) -> set[int]:
        """The edges a tiling's play state (one row of 0/1 per edge) or answer row (one number per dot) draws."""
        t = self.tiled(instance)
        row = list(state[0]) if state else []
        if len(row) == len(t.edges) and len(row) != len(t.dots):
            return {e for e, v in enumerate(row) if v == 1}
        return board.loop_edges(t, row)

    def render_state(self, instance: Instance, state: Any) -> str:
        t = self.tiled(instance)
        if t is None:
            return super().render_state(instance, state)
        return board.picture_text(t, instance.data["state"]["clues"], self.state_edges(instance, state))

    def render_rgb(self, instance: Instance, state: Any = None) -> np.ndarray:
        t = self.tiled(instance)
        if t is None:
            return super().render_rgb(instance, state)
        state = self.initial_state(instance) if state is None else state
        return board.picture_rgb(t, instance.data["state"]["clues"], self.state_edges(instance, state))

    def state_picture(self, instance: Instance, state: Any, verdict: dict, move: Any = None) -> AnswerPicture:
        t = self.tiled(instance)
        if t is None:
            return super().state_picture(instance, state, verdict, move)
        details = verdict.get("details") if isinstance(verdict.get("details"), dict) else {}
        first = details.get("first_error_cell")
        first = first[1] if isinstance(first, list) and len(first) == 2 and type(first[1]) is int \
            and 0 <= first[1] < len(t.dots) else None
        marks = {} if first is None else {first: MARK}
        for v in details.get("violations") or []:
            for x in (v.get("cells") or []) if isinstance(v, dict) else []:
                if isinstance(x, list) and len(x) == 2 and type(x[1]) is int and 0 <= x[1] < len(t.dots):
                    marks.setdefault(x[1], MARK_ALSO)
        edges = self.state_edges(instance, state)
        clues = instance.data["state"]["clues"]
        caption = ("The loop as drawn." if first is None else
                   f"The loop as drawn; ringed in red: dot {first}, the first a failing check names.")
        return AnswerPicture(image=board.picture_rgb(t, clues, edges, marks), text=board.picture_text(t, clues, edges),
                             marks=[{"what": "dot", "at": [0, d], "first": d == first} for d in marks],
                             caption=caption)

    # ---- interactive play on a tiling: the state is one row of 0/1 per edge ------------------------
    def initial_state(self, instance: Instance) -> tuple:
        t = self.tiled(instance)
        return super().initial_state(instance) if t is None else ((0,) * len(t.edges),)

    def state_answer(self, instance: Instance, state: Any) -> list[list]:
        t = self.tiled(instance)
        if t is None:
            return super().state_answer(instance, state)
        return [board.number_loop(t, {e for e, v in enumerate(state[0]) if v})]

    def _tiled_edge(self, t: Tiling, move: tuple) -> int | None:
        _, r1, a, r2, b, _v = move
        return t.edge_index.get((a, b)) if r1 == r2 == 0 else None

    def check_move(self, instance: Instance, state: Any, move: tuple) -> str | None:
        t = self.tiled(instance)
        if t is None or move == SUBMIT:
            return super().check_move(instance, state, move)
        if self._tiled_edge(t, move) is None:
            _, r1, a, r2, b, _v = move
            return (f"cells ({r1}, {a}) and ({r2}, {b}) are not two dots (0, a), (0, b) joined by an edge of the "
                    f"{len(t.dots)}-dot board")
        return None

    def apply(self, instance: Instance, state: Any, move: tuple) -> tuple:
        t = self.tiled(instance)
        if t is None:
            return super().apply(instance, state, move)
        row = list(state[0])
        row[self._tiled_edge(t, move)] = move[-1]
        return (tuple(row),)

    def transition(self, instance: Instance, state: Any, move: tuple) -> Transition:
        t = self.tiled(instance)
        if t is None or move == SUBMIT:
            return super().transition(instance, state, move)
        out = super(CellMoves, self).transition(instance, state, move)
        sol = instance.data.get("solution")
        if sol and out.status != "illegal_move":
            e = self._tiled_edge(t, move)
            out.details["move_matches_solution"] = (e in board.loop_edges(t, sol[0])) == bool(move[-1])
        return out

    def move_catalog(self, instance: Instance) -> list[tuple]:
        t = self.tiled(instance)
        if t is None:
            return super().move_catalog(instance)
        return [("edge", 0, min(a, b), 0, max(a, b), v) for a, b in t.edges for v in (1, 0)]

    def golden_moves(self, instance: Instance) -> list[tuple]:
        t = self.tiled(instance)
        if t is None:
            return super().golden_moves(instance)
        return self.moves_to(instance, self.solve(instance))

    def moves_to(self, instance: Instance, grid: list[list]) -> list[tuple]:
        t = self.tiled(instance)
        if t is None:
            return super().moves_to(instance, grid)
        return [("edge", 0, min(t.edges[e]), 0, max(t.edges[e]), 1) for e in sorted(board.loop_edges(t, grid[0]))]

    def fixed_move(self, instance: Instance) -> tuple | None:
        return None if self.tiled(instance) is not None else super().fixed_move(instance)

    def interactive_prompt(self, instance: Instance) -> str:
        if self.tiled(instance) is None:
            return super().interactive_prompt(instance)
        return self.play_prompt(instance, "edge", (
            '{"op": "edge", "cells": [[0, a], [0, b]], "v": 1} draws the edge between dots a and b (dot d is written '
            '[0, d]), "v": 0 erases it. The episode ends when the drawn edges form a loop that satisfies every rule; '
            '{"op": "submit"} asks for a final check.'))

    def encode_state(self, instance: Instance, state: Any) -> np.ndarray:
        if self.tiled(instance) is None:
            return super().encode_state(instance, state)
        return np.concatenate([np.asarray(state[0], np.float32), self.clue_features(instance)])

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
        if self.tiled(instance) is not None:
            return sum(v != NONE for v in instance.data["state"]["clues"])
        return sum(v != NONE for row in instance.data["state"]["clues"] for v in row)

    def clue_features(self, instance: Instance) -> np.ndarray:
        if self.tiled(instance) is not None:
            return np.asarray([v + 1 for v in instance.data["state"]["clues"]], np.float32)
        return np.asarray([v + 1 for row in instance.data["state"]["clues"] for v in row], np.float32)  # 0: no clue
