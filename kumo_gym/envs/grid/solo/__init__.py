"""Solo, Tatham's Sudoku (docs/specs/grid_puzzles.md §5 "Solo (Sudoku)"). Game IDs: ``codec.py``."""
from __future__ import annotations

import dataclasses
import functools

import numpy as np

from ....core.errors import ConfigError
from ....core.instance import Instance
from ....core.params import param
from ....solvers.engine import Encoding
from ....solvers.sat import Formula
from ..base import Check, GridParams, presets
from ..latin import LatinGridTask, latin_formula
from ..render import Sketch
from .claims import RULES as CLAIM_RULES

#: the largest box area accepted: 16x16 grids generate in seconds, 25x25 take minutes (too long for one reset)
MAX_SYMBOLS = 16


#: draws tried above Trivial for a minimal set that unit propagation alone leaves open (grade >= 1):
#: about 70 % of minimal 9x9 sets are grade 0, so 8 tries left some hard puzzles at grade 0 (0.7**32 ~ 1e-5)
HARD_TRIES = 32


@dataclasses.dataclass(frozen=True)
class SoloParams(GridParams):
    box_w: int = param(3, lo=2, hi=8, doc="box width in cells")
    box_h: int = param(None, kind=int, lo=2, hi=8, doc="box height in cells (default: box_w)")
    tatham_difficulty: str = param("t", choices=tuple("tbiaeu"),
                                   doc="Tatham's level: t trivial (propagation solves it), others minimal clue sets")

    def check(self):
        p = super().check()
        if p.box_w * p.box_h > MAX_SYMBOLS:
            raise ConfigError(f"Solo boxes {p.box_w}x{p.box_h} give {p.box_w * p.box_h} symbols; at most "
                              f"{MAX_SYMBOLS} are supported (larger grids take minutes to generate)")
        return p


@functools.cache
def units(n: int, bw: int, bh: int) -> tuple[tuple[str, tuple[tuple[int, int], ...]], ...]:
    """(rule, cells) of every row (R1), column (R2) and box (R3); box k is row-major (docs/specs/grid_puzzles.md §5)."""
    out = [("R1", tuple((r, c) for c in range(n))) for r in range(n)]
    out += [("R2", tuple((r, c) for r in range(n))) for c in range(n)]
    for b in range(n):
        r0, c0 = (b // (n // bw)) * bh, (b % (n // bw)) * bw
        out.append(("R3", tuple((r0 + i, c0 + j) for i in range(bh) for j in range(bw))))
    return tuple(out)


@functools.cache
def _kernel_tables(n: int, bw: int, bh: int) -> tuple[np.ndarray, ...]:
    """What :mod:`.kernel` reads: the cells of every unit (row-major indices), each cell's
    row, column and box, and the cells of the half-turn-symmetric pairs (in sorted order)."""
    cells = np.asarray([[r * n + c for r, c in u] for _, u in units(n, bw, bh)], np.int64)
    unit_of = np.zeros((n * n, 3), np.int64)
    for u, row in enumerate(cells):
        unit_of[row, u // n] = u
    pairs = sorted({tuple(sorted({(r, c), (n - 1 - r, n - 1 - c)})) for r in range(n) for c in range(n)})
    ends = np.asarray([[p[0][0] * n + p[0][1], p[-1][0] * n + p[-1][1]] for p in pairs], np.int64)
    return cells, unit_of, np.ascontiguousarray(ends[:, 0]), np.ascontiguousarray(ends[:, 1])


def random_sudoku(rng: np.random.Generator, n: int, bw: int, bh: int, buffers: tuple | None = None) -> np.ndarray:
    """A random solution (docs/specs/grid_puzzles.md §8 samplers), row-major: randomised backtracking, most constrained
    cell first, values in the order of random keys, redrawn after 20,000 steps (see kernel)."""
    from . import kernel

    cells, unit_of, _, _ = _kernel_tables(n, bw, bh)
    grid, given, used, stack = buffers or kernel.scratch(n)
    while True:
        ranked = np.argsort(rng.random((n * n, n)), axis=1, kind="stable").ravel()
        grid[:] = 0
        if kernel.run(n, cells, unit_of, ranked, 20_000, _NONE, _NONE, _NONE, grid, given, used, stack):
            return grid


_NONE = np.zeros(0, np.int64)


class SoloTask(LatinGridTask):
    """Solo: Sudoku with rectangular boxes.

    ## Description
    Fill an n x n grid (n = box_w * box_h) with the digits 1..n so that every row, every column
    and every box of box_w columns by box_h rows holds each digit exactly once. Given digits stay
    (docs/specs/grid_puzzles.md §5, Tatham's *Solo*; the X, killer and jigsaw variants are not modelled).

    ## Answer
    A JSON array of n rows of n integers 1..n. Any grid that satisfies the rules scores 1.

    ## Generation
    Our own generator (docs/specs/grid_puzzles.md §8): a random solution (randomised backtracking), then givens
    removed in 180-degree-symmetric pairs while the solution stays unique. At Tatham's Trivial level a removal
    is kept only if unit propagation alone still solves the puzzle; at the other levels the givens are reduced
    to a minimal symmetric set, preferring puzzles that propagation alone does not solve.

    ## Interactive mode
    ``{"r": row, "c": col, "v": digit}``, 0 clears a cell; given cells are fixed.
    """

    Params = SoloParams
    claim_rules = CLAIM_RULES
    difficulties = presets("box_w box_h tatham_difficulty", (2, 2, "t"), (3, 2, "t"), (3, 3, "t"), (3, 3, "e"))
    rule_codes = """
        R1 every row holds each digit 1..n exactly once
        R2 every column holds each digit 1..n exactly once
        R3 every box holds each digit 1..n exactly once
        R4 given digits are kept
    """
    symbols = frozenset(range(1, MAX_SYMBOLS + 1))
    state_keys = ("n", "box_w", "box_h", "grid")

    def rule_checks(self, instance: Instance, grid: list[list]) -> list[Check]:
        st = instance.data["state"]
        n = st["n"]
        checks = [self.unit_check(rule, grid, cells, n) for rule, cells in units(n, st["box_w"], st["box_h"])]
        return checks + self.givens_checks(instance, grid, "R4")

    def encode(self, state: dict) -> Encoding:
        """One formula per box shape; the givens are assumptions."""
        bw, bh = state["box_w"], state["box_h"]

        def rules() -> Encoding:
            f = Formula()
            x = latin_formula(f, bw * bh, bw, bh, rules=("R1", "R2", "R3"))
            return Encoding(f, x.ravel(), self.decoder(x), extra={"x": x})

        enc = self.layout((bw, bh), rules)
        return enc.with_clues(self.given_clues(enc.extra["x"], state["grid"], "R4"))

    def sample(self, rng: np.random.Generator, params: dict) -> tuple[dict, list[list]]:
        """Trivial: givens dropped while propagation solves it, on the grid by a kernel that
        deduces exactly what propagation over the CNF does (naked and hidden singles, see
        kernel). Above: minimal sets, each removal tested by the kernel's search for a second
        solution (the engine's result with SAT), up to HARD_TRIES for one that propagation
        alone does not solve (grade >= 1); each draw is one kernel call, well under a millisecond."""
        bw, bh = params["box_w"], params["box_h"]
        n = bw * bh
        if params["tatham_difficulty"] == "t":
            from . import kernel

            buffers = grid, given, used, stack = kernel.scratch(n)
            cells, unit_of, pair_a, pair_b = _kernel_tables(n, bw, bh)
            random_sudoku(rng, n, bw, bh, buffers)
            order = rng.permutation(len(pair_a)).astype(np.int64)
            kernel.run(n, cells, unit_of, _NONE, 0, order, pair_a, pair_b, grid, given, used, stack)
            sol = grid.reshape(n, n)
            state = {"n": n, "box_w": bw, "box_h": bh, "grid": np.where(given.reshape(n, n) > 0, sol, 0).tolist()}
            return state, sol.tolist()
        from . import kernel, search_kernel

        buffers = grid, given, used, _ = kernel.scratch(n)
        work, branch = search_kernel.minimal_scratch(n)
        cells, unit_of, pair_a, pair_b = _kernel_tables(n, bw, bh)
        best = None
        for _ in range(HARD_TRIES):
            random_sudoku(rng, n, bw, bh, buffers)
            order = rng.permutation(len(pair_a)).astype(np.int64)
            hard = search_kernel.minimal(n, cells, unit_of, order, pair_a, pair_b, grid, given, used, work, branch)
            sol = grid.reshape(n, n)
            state = {"n": n, "box_w": bw, "box_h": bh, "grid": np.where(given.reshape(n, n) > 0, sol, 0).tolist()}
            if hard:
                return state, sol.tolist()
            best = best or (state, sol.tolist())
        return best

    def rules_text(self, instance: Instance) -> str:
        st = instance.data["state"]
        n, bw, bh = st["n"], st["box_w"], st["box_h"]
        return (f"- Write one of the digits 1 to {n} in every cell.\n"
                f"- Every row and every column contains each digit 1 to {n} exactly once.\n"
                f"- The grid is split into {n} boxes, each {bw} columns wide and {bh} rows tall (box k covers rows "
                f"{bh}*(k // {n // bw}) onwards and columns {bw}*(k % {n // bw}) onwards); every box also contains "
                f"each digit exactly once.\n"
                "- Cells that already hold a digit (non-zero in the grid below) keep it; 0 marks an empty cell.")

    def answer_text(self, instance: Instance) -> str:
        return f"give the completed grid as integers 1 to {instance.data['state']['n']}, including the given digits."

    def sketch(self, instance: Instance, grid: list[list]) -> Sketch:
        st = instance.data["state"]
        n, bw, bh = st["n"], st["box_w"], st["box_h"]
        fixed = self.givens(instance)
        walls = [((r, c), (r, c + 1)) for r in range(n) for c in range(bw - 1, n - 1, bw)]
        walls += [((r, c), (r + 1, c)) for r in range(bh - 1, n - 1, bh) for c in range(n)]
        return Sketch(n, n, [[str(v) if v else "" for v in row] for row in grid],
                      [["given" if (r, c) in fixed else None for c in range(n)] for r in range(n)], walls=walls)
