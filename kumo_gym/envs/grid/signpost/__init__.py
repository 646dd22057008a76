"""Signpost (docs/specs/grid_puzzles.md §5 "Signpost"; Tatham's ``signpost``). Game IDs: ``codec.py``."""
from __future__ import annotations

import dataclasses
import functools

import numpy as np

from ....core.instance import Instance
from ....core.params import param
from ....solvers.engine import Encoding
from ....solvers.sat import Constraint, Formula
from ..base import Check, GridParams, GridTask, presets
from ..geometry import ray
from ..render import Sketch
from .claims import RULES as CLAIM_RULES
from .codec import STEP
from .deduce import place_givens, reduce_givens
from .geometry import queen_path

MAX_SIDE = 10
#: up to this many cells givens are reduced while probing solves, beyond placed while propagation does
SMALL = 16
#: the arrow of each unit step (dr, dc)
DIRECTION = {st: d for d, st in STEP.items()}


@dataclasses.dataclass(frozen=True)
class SignpostParams(GridParams.with_size(4, 1, MAX_SIDE)):
    corners: bool = param(False, doc="Tatham's 'c': 1 in the top-left corner, W*H in the bottom-right")
    min_cells = 2


@functools.lru_cache(maxsize=8)
def _permutation(H: int, W: int) -> tuple[Formula, np.ndarray]:
    """R1 alone (``x[r, c, k-1]``: the cell holds k; a permutation), built once per size and
    copied per layout: the arrows only add clauses over the same variables."""
    f = Formula()
    x = f.grid("x", H, W, H * W)
    for r, c in np.ndindex(H, W):
        f.exactly(x[r, c].tolist(), 1, rule="R1")
    for k in range(H * W):
        f.exactly(x[:, :, k].ravel().tolist(), 1, rule="R1")
    return f, x


class SignpostTask(GridTask):
    """Signpost: number the cells 1..W*H so that each number's arrow points at the next.

    ## Description
    Every cell but one holds an arrow (one of eight compass directions); some cells show their
    number. Write 1..W*H into the cells, each once, so that the cell of k+1 lies somewhere along
    the arrow of the cell of k (at any distance). The last number's cell has no arrow
    (docs/specs/grid_puzzles.md §5, Tatham's *Signpost*, free chain ends).

    ## Answer
    A JSON array of H rows of W integers, the number of each cell, given numbers copied. Any
    numbering that keeps the rules scores 1.

    ## Generation
    Our own generator (docs/specs/grid_puzzles.md §8): a random Hamiltonian path through the queen-move graph
    (Warnsdorff's rule with random ties; with Tatham's ``c`` it runs from the top-left to the bottom-right
    corner), arrows along it. Up to 16 cells every number is shown, then numbers other than 1 and W*H (1 too on
    a two-cell grid, which would otherwise leave nothing to fill) are removed in a seeded order while deduction
    with failed-literal probing still numbers every cell. Beyond 16 cells the givens are placed as Tatham's
    generator places them: 1 and W*H, then numbers of cells in a seeded order (skipping cells already numbered)
    until deduction numbers every cell, then each added number dropped again when deduction does without it.
    Deduction is unit propagation on the encoding, run on the grid by compiled kernels
    (:mod:`.kernel`), so it proves the numbering unique; these densities match Tatham's (2.2 givens at
    4x4, 12.9 at 7x7). The single chain needs no lazy cut: the encoding numbers the cells (a permutation with
    every arrow followed), which rules out loops; a model of the arrows alone would admit them
    (tests/grid/test_signpost.py).

    ## Interactive mode
    One move per step, ``{"r": row, "c": col, "v": k}`` writes k into a cell, ``0`` clears it.
    Given numbers cannot be changed.
    """

    Params = SignpostParams
    claim_rules = CLAIM_RULES
    difficulties = presets("W H", (2, 1), (3, 3), (4, 4), (7, 7))
    rule_codes = """
        R1 the numbers 1..W*H are each used exactly once and every given number is kept
        R2 for every k < W*H the cell of k+1 lies along the arrow of the cell of k
    """
    answer_prompt = "give the number of every cell (given numbers copied)."
    symbols = frozenset(range(1, MAX_SIDE * MAX_SIDE + 1))
    state_keys = ("arrows", "givens")
    empty = 0

    def shape(self, state: dict) -> tuple[int, int]:
        return len(state["arrows"]), len(state["arrows"][0])

    def cell_values(self, instance: Instance) -> tuple:
        H, W = self.dims(instance)
        return tuple(range(1, H * W + 1))

    def givens(self, instance: Instance) -> dict:
        g = instance.data["state"]["givens"]
        return {(r, c): v for r, row in enumerate(g) for c, v in enumerate(row) if v}

    def rule_checks(self, instance: Instance, grid: list[list]) -> list[Check]:
        arrows = instance.data["state"]["arrows"]
        H, W = len(grid), len(grid[0])
        n = H * W
        checks = [Check("R1", [cell], grid[cell[0]][cell[1]] == v) for cell, v in sorted(self.givens(instance).items())]
        where: dict[int, list] = {}
        for r, row in enumerate(grid):
            for c, v in enumerate(row):
                where.setdefault(v, []).append((r, c))
        checks += [Check("R1", cells, False) for v, cells in sorted(where.items()) if len(cells) > 1]
        for r, row in enumerate(grid):
            for c, v in enumerate(row):
                if v < n:
                    seen = ray(r, c, STEP.get(arrows[r][c]), H, W)
                    checks.append(Check("R2", [(r, c)], any(grid[a][b] == v + 1 for a, b in seen)))
        return checks

    def encode(self, state: dict) -> Encoding:
        arrows = state["arrows"]
        enc = self.layout(("signpost", tuple(map(tuple, arrows))), lambda: self._rules(arrows))
        x = enc.extra["x"]
        return enc.with_clues({("given", r, c): ("R1", (int(x[r, c, v - 1]),))
                               for r, row in enumerate(state["givens"]) for c, v in enumerate(row) if v})

    @staticmethod
    def _rules(arrows: list[list]) -> Encoding:
        """``x[r, c, k-1]``: the cell holds k. R1: a permutation. R2: the cell of k has k+1 on its
        ray, and (the same rule seen from the other end) the cell of k+1 has k on a ray into it."""
        H, W = len(arrows), len(arrows[0])
        n = H * W
        base, x = _permutation(H, W)
        f = base.copy()
        xs = x.tolist()
        into: dict = {}
        clauses = []
        for r, c in np.ndindex(H, W):
            cells = ray(r, c, STEP.get(arrows[r][c]), H, W)
            for b in cells:
                into.setdefault(b, []).append((r, c))
            on = [xs[b[0]][b[1]] for b in cells]
            clauses += [[-xs[r][c][k]] + [v[k + 1] for v in on] for k in range(n - 1)]
        for b in np.ndindex(H, W):
            on = [xs[a[0]][a[1]] for a in into.get(b, [])]
            clauses += [[-xs[b[0]][b[1]][k]] + [v[k - 1] for v in on] for k in range(1, n)]
        # each clause one tagged R2 constraint, as f.add(..., rule="R2") records it, in bulk
        start = len(f.clauses)
        f.clauses += clauses
        f.constraints += [Constraint("R2", tuple(cl), 1, len(cl), i, i + 1) for i, cl in enumerate(clauses, start)]

        def decode(value: np.ndarray) -> list[list]:
            return (np.argmax(value[x] > 0, axis=2) + 1).tolist()

        return Encoding(f, x.ravel(), decode, extra={"x": x})

    def sample(self, rng: np.random.Generator, params: dict) -> tuple[dict, list[list]]:
        """A random chain, then givens as Tatham's generator places them (see :func:`.deduce.place_givens`)."""
        W, H = params["W"], params["H"]
        ends = {"start": (0, 0), "end": (H - 1, W - 1)} if params.get("corners") else {}
        path = queen_path(rng, H, W, **ends)
        sol = [[0] * W for _ in range(H)]
        arrows: list[list] = [[None] * W for _ in range(H)]
        for i, (r, c) in enumerate(path):
            sol[r][c] = i + 1
            if i + 1 < len(path):
                r2, c2 = path[i + 1]
                arrows[r][c] = DIRECTION[(r2 > r) - (r2 < r), (c2 > c) - (c2 < c)]
        shown = (reduce_givens if W * H <= SMALL else place_givens)(rng, path, arrows)
        givens = [[v if r * W + c in shown else 0 for c, v in enumerate(row)] for r, row in enumerate(sol)]
        return {"arrows": arrows, "givens": givens}, sol

    def blind_solves(self, instance: Instance) -> bool:
        """A blind grid holds at most two numbers and the solution's free cells all differ: none
        solves a grid with more than two free cells (no need to build 2 400 blind grids at 7x7)."""
        H, W = self.dims(instance)
        return H * W - len(self.givens(instance)) <= 2 and super().blind_solves(instance)

    def rules_text(self, instance: Instance) -> str:
        H, W = self.dims(instance)
        return (f"- Write the numbers 1 to {H * W} into the cells, each number exactly once.\n"
                "- Every cell except one has an arrow (arrows: N is up, S down, E right, W left, and the diagonals "
                "NE, SE, SW, NW). The cell holding a number k below the largest has the cell holding k+1 somewhere "
                "in its arrow's direction: in a straight line that way, right next to it or further, other cells "
                "may lie in between.\n"
                f"- The cell without an arrow (null) holds {H * W}.\n"
                "- Non-zero entries of givens are numbers already placed and must be kept; 0 means unknown.")

    def sketch(self, instance: Instance, grid: list[list]) -> Sketch:
        st = instance.data["state"]
        H, W = len(grid), len(grid[0])
        text = [[f"{grid[r][c] or ''}{st['arrows'][r][c] or ''}" or "." for c in range(W)] for r in range(H)]
        fill = [["given" if st["givens"][r][c] else None for c in range(W)] for r in range(H)]
        return Sketch(H, W, text, fill)

    def clue_count(self, instance: Instance) -> int:
        return len(self.givens(instance))
