"""Galaxies (docs/specs/grid_puzzles.md §5 "Galaxies"; Tatham's ``galaxies``). Game IDs: ``codec.py``."""
from __future__ import annotations

import dataclasses

import numpy as np

from ....core.instance import Instance
from ....solvers.engine import Encoding
from ....solvers.sat import Formula
from ..base import Check, GridParams, GridTask, presets, tatham_level
from ..geometry import connected_cuts
from ..render import Sketch
from .claims import RULES as CLAIM_RULES
from .deduce import blind_solved, deduce_regions, draw, grade_layout
from .geometry import dot_cells, label_components

#: the most dots a grid of the largest size may hold (answer labels are dot indices)
MAX_DOTS = 400
#: the layout's SAT solver: the uniqueness proofs of the hard preset (15x15, ~45 dots) run faster on
#: MiniSat than on CaDiCaL (benchmarks/grid.py)
SOLVER = "minisat22"


@dataclasses.dataclass(frozen=True)
class GalaxiesParams(GridParams.with_size(7, 3, 20)):
    tatham_difficulty: str = tatham_level("n", {"n": "normal", "u": "unreasonable"})


class GalaxiesTask(GridTask):
    """Galaxies: split the grid into regions, each symmetric about its own dot.

    ## Description
    Dots sit at cell centres, on edges between two cells or on corners between four. Divide the
    grid into connected regions so that each region holds exactly one dot (with every cell that
    dot touches) and looks the same after a half turn about its dot (docs/specs/grid_puzzles.md §5, Tatham's
    *Galaxies*).

    ## Answer
    A JSON array of H rows of W integers: the region of every cell, written as the index of its
    dot in the state's ``dots`` list. Any labelling is accepted: each set of equal labels is
    checked as one region. Rule galaxies.R1 (the grid is partitioned) holds by construction.

    ## Generation
    Our own generator (docs/specs/grid_puzzles.md §8): regions grown symmetrically from seeded dots (centre,
    edge or corner), redrawn until the puzzle's own deduction (propagation of the rules with a reachability step
    for connectivity) solves them, which proves them unique (SAT with lazy connectivity cuts certifies the rare
    draw it cannot); small grids keep the fewest dots of a few draws (Tatham's dot counts), level ``u`` prefers
    puzzles that need search. The grade is that deduction's.

    ## Interactive mode
    ``{"r": row, "c": col, "v": k}`` puts a cell in the region of dot k; ``-1`` clears it.
    """

    Params = GalaxiesParams
    any_labelling = True  # a region is named by its dot's index, but any labelling is checked as regions
    claim_rules = CLAIM_RULES
    difficulties = presets("W H tatham_difficulty", (3, 3, "n"), (5, 5, "n"), (7, 7, "n"), (15, 15, "n"))
    rule_codes = """
        R1 the grid is partitioned into regions (every cell in exactly one)
        R2 every region is connected (orthogonally)
        R3 every region holds exactly one dot, together with every cell that dot touches
        R4 every region is unchanged by a half turn about its dot
    """
    rules_prompt = """
        - "dots" lists the dots as [r2, c2] in half-cell units: the centre of cell (r, c) is [2r, 2c], so an odd r2 or
          c2 puts the dot on the edge between two cells, and both odd on the corner where four cells meet. Dot k is
          the k-th entry (from 0).
        - Divide the whole grid into regions of orthogonally connected cells.
        - Each region contains exactly one dot, together with every cell that dot lies in or touches.
        - Each region is symmetric about its dot: turning it half way round the dot maps it onto itself, so cell (r,
          c) is in the region of dot [r2, c2] exactly when cell (r2 - r, c2 - c) is.
    """
    symbols = frozenset(range(MAX_DOTS))
    state_keys = ("W", "H", "dots")
    empty = -1

    def shape(self, state: dict) -> tuple[int, int]:
        return int(state["H"]), int(state["W"])

    def cell_values(self, instance: Instance) -> tuple:
        return tuple(range(len(instance.data["state"]["dots"])))

    def move_values(self, instance: Instance) -> tuple:
        """-1 and every label a grid of this size could need (the structured view's catalogue is
        fixed per size); labels beyond this puzzle's dots are refused by :meth:`check_move`."""
        H, W = self.dims(instance)
        return (-1,) + tuple(range(H * W))

    def check_move(self, instance: Instance, state, move: tuple) -> str | None:
        bad = super().check_move(instance, state, move)
        n = len(instance.data["state"]["dots"])
        return bad or (None if len(move) != 3 or move[2] < n else f"there is no dot {move[2]}: dots are 0..{n - 1}")

    def legal_moves(self, instance: Instance, state) -> list[tuple]:
        n = len(instance.data["state"]["dots"])
        return [m for m in super().legal_moves(instance, state) if m[2] < n]

    def interactive_prompt(self, instance: Instance) -> str:  # the moves this puzzle's dots allow
        H, W, n = *self.dims(instance), len(instance.data["state"]["dots"])
        return super().interactive_prompt(instance).replace(f"-1..{H * W - 1} (", f"-1..{n - 1} (", 1)

    def rule_checks(self, instance: Instance, grid: list[list]) -> list[Check]:
        H, W = self.dims(instance)
        dots = instance.data["state"]["dots"]
        regions = label_components(grid)  # every label's components in one pass (verify speed)
        checks, inside = [], {}
        for label in sorted(regions):
            comps = regions[label]
            checks.append(Check("R2", [cell for comp in comps[:-1] for cell in comp], len(comps) == 1))
        for k, dot in enumerate(dots):
            held = {grid[r][c] for r, c in dot_cells(dot)}
            checks.append(Check("R3", dot_cells(dot), len(held) == 1))
            if len(held) == 1:
                inside.setdefault(held.pop(), []).append(k)
        for label in sorted(regions):
            cells = sorted(cell for comp in regions[label] for cell in comp)
            mine = inside.get(label, [])
            checks.append(Check("R3", [] if len(mine) == 1 else cells, len(mine) == 1))
            if len(mine) == 1:
                r2, c2 = dots[mine[0]]
                bad = [(r, c) for r, c in cells if not (0 <= r2 - r < H and 0 <= c2 - c < W and grid[r2 - r][c2 - c] == label)]
                checks.append(Check("R4", bad, not bad))
        return checks

    def encode(self, state: dict) -> Encoding:
        """One formula per dot layout: ``x[r, c, k]`` (cell in dot k's region) for the cells whose
        mirror image about dot k lies in the grid; the cells each dot touches are assumptions (R3)."""
        H, W = self.shape(state)
        dots = tuple(tuple(d) for d in state["dots"])
        enc = self.layout((H, W, dots), lambda: self._rules(H, W, dots))
        x = enc.extra["x"]
        return enc.with_clues({(k, cell): ("R3", (int(x[cell][k]),)) for k, dot in enumerate(dots) for cell in dot_cells(dot)})

    @staticmethod
    def _rules(H: int, W: int, dots: tuple) -> Encoding:
        f = Formula()
        x = np.zeros((H, W, len(dots)), np.int32)
        for (r, c), (k, (r2, c2)) in ((cell, kd) for cell in np.ndindex(H, W) for kd in enumerate(dots)):
            if 0 <= r2 - r < H and 0 <= c2 - c < W:
                x[r, c, k] = f.var(("in", r, c, k))
        for r, c in np.ndindex(H, W):
            f.exactly_one([int(v) for v in x[r, c] if v])
        for r, c, k in zip(*np.nonzero(x)):
            r2, c2 = dots[k]
            if (r2 - r, c2 - c) != (r, c):
                f.add([-int(x[r, c, k]), int(x[r2 - r, c2 - c, k])], rule="R4")
        per_dot = [connected_cuts(x[:, :, k]) for k in range(len(dots))]  # R2: each region is connected
        return Encoding(f, x[x > 0], lambda value: np.argmax(value[x] > 0, axis=2).tolist(),
                        cuts=lambda value: [cl for cut in per_dot for cl in cut(value)], cut_rule="R2", extra={"x": x},
                        solver=SOLVER)

    def solutions(self, instance: Instance, limit: int = 2) -> list[list[list]]:
        """Deduction first (:func:`deduce_regions`): when it decides every cell, that labelling is
        the only solution; otherwise SAT enumeration with the connectivity cuts."""
        st = instance.data["state"]
        labels = deduce_regions(*self.shape(st), st["dots"])
        if labels is None:
            return []
        if (labels >= 0).all():
            return [labels.tolist()][:limit]
        return super().solutions(instance, limit)

    def grade(self, instance: Instance) -> int:
        """docs/specs/grid_puzzles.md §8 grade by Galaxies' own deduction (``deduce.py``): 0 propagation with
        reachability solves it, 1 probing with reachability does, 2 search is needed."""
        return grade_layout(instance.data["state"], self.encode)

    def sample(self, rng: np.random.Generator, params: dict) -> tuple[dict, list[list]]:
        """Random symmetric partitions until one is certified unique, by Galaxies' deduction or else by
        SAT with the connectivity cuts (:func:`.deduce.draw` says how each level chooses)."""
        return draw(rng, params["H"], params["W"], params["tatham_difficulty"], self.encode)

    def blind_solves(self, instance: Instance) -> bool:
        return blind_solved(self.solve(instance))  # what the shared test finds, read off the solution

    def answer_text(self, instance: Instance) -> str:
        return ("give every cell the index k of the dot whose region it belongs to (an integer from 0 to "
                f"{len(instance.data['state']['dots']) - 1}).")

    def sketch(self, instance: Instance, grid: list[list]) -> Sketch:
        """Region borders drawn as walls between differently labelled cells, the dots on top."""
        H, W = self.dims(instance)
        st = instance.data["state"]
        walls = [((r, c), n) for r, c in np.ndindex(H, W) for n in ((r, c + 1), (r + 1, c))
                 if n[0] < H and n[1] < W and grid[r][c] != grid[n[0]][n[1]]]
        black = set(st.get("black", ()))
        return Sketch(H, W, [["." if v == self.empty else str(v) for v in row] for row in grid], walls=walls,
                      labels=[["" if v == self.empty else str(v) for v in row] for row in grid],
                      dots=[(r2, c2, k in black) for k, (r2, c2) in enumerate(st["dots"])])

    def clue_count(self, instance: Instance) -> int:
        return len(instance.data["state"]["dots"])

    def clue_features(self, instance: Instance) -> np.ndarray:
        H, W = self.dims(instance)
        out = np.zeros((2 * H - 1, 2 * W - 1), np.float32)
        for r2, c2 in instance.data["state"]["dots"]:
            out[r2, c2] = 1.0
        return out.ravel()
