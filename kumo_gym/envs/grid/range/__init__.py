"""Range (docs/specs/grid_puzzles.md §5 "Range"; Tatham's ``range``). Game IDs: ``codec.py``."""
from __future__ import annotations

import dataclasses

import numpy as np

from ....core.instance import Instance
from ....core.verdict import Verdict
from ....solvers.engine import Encoding
from ....solvers.sat import Count, Formula
from ..base import Check, GridParams, GridTask, cells_decoder, presets
from ..geometry import components, connected_cuts, ray
from ..render import Sketch
from .claims import RULES as CLAIM_RULES
from .deduce import deduce_grid, draw
from .deduce import grade as deduced_grade
from .geometry import seen_from

BLACK, WHITE = -1, 0
STEPS = ((-1, 0), (0, 1), (1, 0), (0, -1))


@dataclasses.dataclass(frozen=True)
class RangeParams(GridParams.with_size(9, 3, 25)):
    """Range's parameters are the size of its grid."""


class RangeTask(GridTask):
    """Range (Kurodoko): black out cells so every number sees exactly that many cells.

    ## Description
    Some cells hold numbers. Shade cells black so that no two black cells share an edge, the white
    cells form one orthogonally connected area, numbered cells stay white, and each number equals
    the count of white cells it sees: itself plus every white cell in the four directions up to the
    first black cell or the edge. docs/specs/grid_puzzles.md §5, Tatham's *Range*.

    ## Answer
    A JSON array of H rows of W integers: ``-1`` black, ``0`` white (a numbered cell may also be
    written as its number). Any valid grid scores 1.

    ## Generation
    Our own generator (docs/specs/grid_puzzles.md §8), following Tatham's: a third of the cells, in a random
    order, made black unless that puts two blacks side by side or splits the whites (about a fifth end up
    black); every white cell numbered except those facing a black cell under a half turn, then numbers removed
    in half-turn pairs in a seeded random order while Range's own deduction (``deduce.py``: sight-count
    bounds, black cells never touching, connectivity by cut vertices) still solves the puzzle, which proves it
    unique (Tatham's clue density). The grade is that deduction's; SAT with lazy connectivity cuts certifies
    puzzles it cannot solve.

    ## Interactive mode
    ``{"r": row, "c": col, "v": -1}`` shades a cell, ``0`` (or ``null``) makes it white again.
    Numbered cells are fixed white.
    """

    Params = RangeParams
    claim_rules = CLAIM_RULES
    difficulties = presets("W H", (3, 3), (6, 4), (9, 6), (13, 9))
    rule_codes = """
        R1 numbered cells are white
        R2 no two black cells are orthogonally adjacent
        R3 the white cells form one orthogonally connected area
        R4 each number equals 1 plus the white cells it sees in the four directions
    """
    rules_prompt = """
        - Colour each cell black or white. In the state's grid a positive number is a clue and 0 means no clue.
        - Cells with a number are white.
        - Two black cells may never share a side (touching at a corner is fine).
        - All white cells must form one connected area, moving between white cells that share a side.
        - From a numbered cell, look up, down, left and right: in each direction count the white cells until the first
          black cell or the edge of the grid. Those counts plus 1 (the numbered cell itself) must equal the number.
    """
    answer_prompt = "give every cell of the grid: -1 for a black cell, 0 for a white cell (numbered cells are white)."
    symbols = frozenset(range(-1, 100))
    empty = WHITE

    def cell_values(self, instance: Instance) -> tuple:
        return (BLACK, WHITE)

    def givens(self, instance: Instance) -> dict:
        grid = instance.data["state"]["grid"]
        return {(r, c): WHITE for r, row in enumerate(grid) for c, v in enumerate(row) if v}

    def verify(self, instance: Instance, answer) -> Verdict:
        """A numbered cell written as its own number counts as white."""
        grid = instance.data["state"]["grid"]
        if isinstance(answer, list) and len(answer) == len(grid) and all(
                isinstance(row, list) and len(row) == len(grid[0]) for row in answer):
            answer = [[WHITE if v == n and n and not isinstance(v, bool) else v for v, n in zip(row, nums)]
                      for row, nums in zip(answer, grid)]
        return super().verify(instance, answer)

    def rule_checks(self, instance: Instance, grid: list[list]) -> list[Check]:
        H, W = self.dims(instance)
        nums = instance.data["state"]["grid"]
        clues = [(r, c) for r in range(H) for c in range(W) if nums[r][c]]
        checks = [Check("R1", [(r, c)], grid[r][c] != BLACK) for r, c in clues]
        pairs = [((r, c), n) for r in range(H) for c in range(W) for n in ((r, c + 1), (r + 1, c)) if n[0] < H and n[1] < W]
        checks += [Check("R2", [a, b], False) for a, b in pairs if grid[a[0]][a[1]] == BLACK == grid[b[0]][b[1]]]
        checks = checks or [Check("R2", [], True)]
        comps = components(np.array([[v != BLACK for v in row] for row in grid]))
        stray = sorted(cell for comp in sorted(comps, key=len)[:-1] for cell in comp)
        checks.append(Check("R3", stray, not stray))
        return checks + [Check("R4", [(r, c)], seen_from(grid, r, c, BLACK) == nums[r][c]) for r, c in clues]

    def encode(self, state: dict) -> Encoding:
        """One formula per grid size: a number fixes, by assumption, its cell white and the
        counter of what it sees, so the connectivity cuts serve every puzzle of that size."""
        grid = state["grid"]
        H, W = len(grid), len(grid[0])
        enc = self.layout((H, W), lambda: self._rules(H, W))
        x, seen = enc.extra["black"], enc.extra["seen"]
        clues = {}
        for r, row in enumerate(grid):
            for c, n in enumerate(row):
                if n:
                    clues[("white", r, c)] = ("R1", (-int(x[r, c]),))
                    clues[("seen", r, c)] = ("R4", tuple(seen[r, c].eq(n - 1)))
        return enc.with_clues(clues)

    @staticmethod
    def _rules(H: int, W: int) -> Encoding:
        """Black cells; per cell and direction a chain "the first k cells are white" (a unary
        count), the four merged by a totalizer into what the cell sees."""
        f = Formula()
        x = f.grid("black", H, W)
        for r in range(H):
            for c in range(W):
                for a, b in ((r, c + 1), (r + 1, c)):
                    if a < H and b < W:
                        f.add([-int(x[r, c]), -int(x[a, b])], rule="R2")
        seen = {}
        for r in range(H):
            for c in range(W):
                chains = []
                for dr, dc in STEPS:
                    chain, prev = [], None
                    for a, b in ray(r, c, (dr, dc), H, W):
                        v = f.var(("vis", r, c, dr, dc, a, b))
                        f.extend([[-v, -int(x[a, b])], [int(x[a, b]), v] if prev is None else [int(x[a, b]), -prev, v]])
                        if prev is not None:
                            f.add([-v, prev])
                        chain.append(v)
                        prev = v
                    if chain:
                        chains.append(chain)
                while len(chains) > 1:
                    chains = [f._merge(chains[i], chains[i + 1]) for i in range(0, len(chains) - 1, 2)] + \
                        (chains[-1:] if len(chains) % 2 else [])
                _ = f.true
                seen[r, c] = Count(f, chains[0] if chains else [])
        return Encoding(f, x.ravel(), cells_decoder(x, BLACK, WHITE), cuts=connected_cuts(-x.astype(np.int64)),
                        cut_rule="R3", extra={"black": x, "seen": seen})

    def solutions(self, instance: Instance, limit: int = 2) -> list[list[list]]:
        """Deduction first (:func:`deduce_grid`): when it decides every cell, that grid is the only
        solution; otherwise SAT enumeration with the connectivity cuts."""
        st = deduce_grid(instance.data["state"]["grid"])
        if st is None:
            return []
        if (st != 0).all():
            return [np.where(st < 0, BLACK, WHITE).tolist()][:limit]
        return super().solutions(instance, limit)

    def grade(self, instance: Instance) -> int:
        """docs/specs/grid_puzzles.md §8 grade by Range's own deduction: 0 it solves the puzzle, 1 it does with
        failed-literal probing on top, 2 search is needed."""
        return deduced_grade(instance.data["state"]["grid"])

    def sample(self, rng: np.random.Generator, params: dict) -> tuple[dict, list[list]]:
        return draw(rng, params["H"], params["W"])

    def sketch(self, instance: Instance, grid: list[list]) -> Sketch:
        nums = instance.data["state"]["grid"]
        text = [["#" if v == BLACK else str(n) if n else "." for v, n in zip(row, nrow)] for row, nrow in zip(grid, nums)]
        return Sketch(len(grid), len(grid[0]), text, [["black" if v == BLACK else None for v in row] for row in grid],
                      labels=[[str(n) if n else "" for n in row] for row in nums])

    def clue_count(self, instance: Instance) -> int:
        return sum(1 for row in instance.data["state"]["grid"] for v in row if v)

    def clue_features(self, instance: Instance) -> np.ndarray:
        return np.asarray([v for row in instance.data["state"]["grid"] for v in row], np.float32)
