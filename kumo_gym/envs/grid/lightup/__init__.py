"""Light Up (docs/specs/grid_puzzles.md §5 "Lightup"; Tatham's ``lightup``). Game IDs: ``codec.py``."""
from __future__ import annotations

import dataclasses

import numpy as np

from ....core.errors import ConfigError
from ....core.instance import Instance
from ....core.params import param
from ....solvers.engine import Encoding
from ....solvers.sat import Formula
from ..base import Check, GridParams, GridTask, presets, tatham_level
from ..geometry import neighbours4
from ..render import Sketch
from .claims import RULES as CLAIM_RULES
from .deduce import BLOCK, DARK, LIGHT, easy_level, reduce_numbers, with_numbers
from .geometry import line_runs, symmetry_orbit

NUMBERS = ("0", "1", "2", "3", "4")
#: numbers per cell where removal stops, per black percent (Tatham's, 20 %: 1 per 8 cells, any size or level)
NUMBER_SHARE = 0.125 / 20


def segments(grid: list[list[str]]) -> list[list[tuple[int, int]]]:
    """The maximal runs of white cells, along rows then along columns (single cells included)."""
    return line_runs(np.array([[v == DARK for v in row] for row in grid]))


@dataclasses.dataclass(frozen=True)
class LightupParams(GridParams.with_size(7, 2, 30)):
    black_percent: int = param(20, lo=5, hi=100, doc="black cells, percent of the grid")
    symmetry: int = param(None, kind=int, lo=0, hi=4,
                          doc="0 none, 1 mirror, 2 half turn, 3 both mirrors, 4 quarter turn (default 4 if square, else 2)")
    tatham_difficulty: int = tatham_level(0, {0: "easy", 1: "tricky", 2: "hard"})

    def check(self):
        p = super().check()
        if p.symmetry is None:
            p = dataclasses.replace(p, symmetry=4 if p.W == p.H else 2)
        if p.symmetry == 4 and p.W != p.H:
            raise ConfigError(f"symmetry=4 (quarter turn) needs a square grid, got {p.W}x{p.H}")
        return p


class LightupTask(GridTask):
    """Light Up: place lights so every white cell is lit and no light shines on another.

    ## Description
    The grid has white and black cells; some black cells carry a number 0-4. Put lights on white
    cells. A light illuminates its own cell and every white cell along its row and column up to
    the nearest black cell or the edge. Every white cell must be lit, no light may be lit by
    another light, and a numbered black cell has exactly that many lights directly above, below,
    left or right of it. docs/specs/grid_puzzles.md §5, Tatham's *Light Up*.

    ## Answer
    A JSON array of H rows of W strings: ``"L"`` a light, ``"."`` an unlit-by-choice white cell;
    black cells are copied (``"#"`` or their number), though any symbol other than ``"L"`` is
    accepted on a black cell. Any valid placement scores 1.

    ## Generation
    Our own generator (docs/specs/grid_puzzles.md §8): black cells at the density and symmetry, random lights
    lighting every cell, every black cell numbered, then numbers removed while propagation (level 0) or probing
    (1) solves it, or to a minimal unique set (2). Level 0 follows Tatham's generator (his black-cell count and
    light placement, every removable number removed); levels 1 and 2 stop at Tatham's density (one number per 8
    cells at 20 % black). 20 layouts failing in a row raise the black density by 5 %.

    ## Interactive mode
    ``{"r": row, "c": col, "v": "L"}`` places a light, ``"."`` removes it. Black cells are fixed.
    """

    title = "Light Up"
    Params = LightupParams
    claim_rules = CLAIM_RULES
    difficulties = presets("W H black_percent symmetry tatham_difficulty",
                           (3, 3, 20, 4, 0), (5, 5, 20, 4, 0), (7, 7, 20, 4, 0), (14, 14, 20, 2, 0))
    rule_codes = """
        R1 lights only on white cells, and white cells hold a light or '.'
        R2 every white cell is lit
        R3 no light shines on another (at most one light per white row or column stretch)
        R4 a numbered black cell has exactly that many lights beside it
    """
    rules_prompt = """
        - In the state's grid, "." is a white cell, "#" a black cell and a digit "0" to "4" a black cell with a
          number.
        - Place lights on white cells only. A light shines on its own cell and along its row and its column in all
          four directions, stopping at the first black cell or the edge of the grid.
        - Every white cell must be lit by at least one light.
        - No light may shine on another light: two lights never share a row or column stretch that has no black cell
          between them.
        - A black cell with a number has exactly that many lights in the cells directly above, below, left and right
          of it. Black cells without a number have no such limit.
    """
    answer_prompt = """
        give every cell of the grid: "L" for a light, "." for a white cell without a light, and copy each black cell
          as it is ("#" or its number).
    """
    symbols = frozenset({LIGHT, DARK, BLOCK, 0, 1, 2, 3, 4})
    empty = DARK
    given_symbols = frozenset({BLOCK, 0, 1, 2, 3, 4})

    def givens(self, instance: Instance) -> dict:
        grid = instance.data["state"]["grid"]
        return {(r, c): BLOCK if v == BLOCK else int(v) for r, row in enumerate(grid) for c, v in enumerate(row) if v != DARK}

    def equivalent_values(self, instance: Instance, r: int, c: int, a, b) -> bool:
        """On a black cell any symbol but a light reads the same (the answer copies it or not)."""
        if instance.data["state"]["grid"][r][c] != DARK:
            return (a == LIGHT) == (b == LIGHT)
        return a == b

    def rule_checks(self, instance: Instance, grid: list[list]) -> list[Check]:
        H, W = self.dims(instance)
        st = instance.data["state"]["grid"]
        misplaced = [(r, c) for r in range(H) for c in range(W)
                     if (grid[r][c] == LIGHT if st[r][c] != DARK else grid[r][c] not in (LIGHT, DARK))]
        checks = [Check("R1", misplaced, not misplaced)]
        lit = set()
        for seg in segments(st):
            on = [(r, c) for r, c in seg if grid[r][c] == LIGHT]
            lit.update(seg if on else ())
            checks.append(Check("R3", on, len(on) <= 1))
        checks += [Check("R2", [(r, c)], (r, c) in lit) for r in range(H) for c in range(W) if st[r][c] == DARK]
        return checks + [Check("R4", [(r, c), *neighbours4(r, c, H, W)], int(st[r][c]) == sum(
            grid[a][b] == LIGHT for a, b in neighbours4(r, c, H, W))) for r in range(H) for c in range(W) if st[r][c] in NUMBERS]

    def encode(self, state: dict) -> Encoding:
        """One formula per black-cell layout; numbers fix counters of the neighbouring lights."""
        grid = state["grid"]
        blocks = tuple((r, c) for r, row in enumerate(grid) for c, v in enumerate(row) if v != DARK)
        enc = self.layout(blocks, lambda: self._rules(len(grid), len(grid[0]), set(blocks)))
        return enc.with_clues({(r, c): ("R4", tuple(enc.extra["count"][r, c].eq(int(grid[r][c]))))
                               for r, c in blocks if grid[r][c] in NUMBERS},
                              decode=lambda value: with_numbers(state, enc.decode(value)))

    @staticmethod
    def _rules(H: int, W: int, blocks: set) -> Encoding:
        shape = [[BLOCK if (r, c) in blocks else DARK for c in range(W)] for r in range(H)]
        f = Formula()
        x = {(r, c): f.var(("light", r, c)) for r in range(H) for c in range(W) if (r, c) not in blocks}
        seen: dict = {cell: [] for cell in x}
        for seg in segments(shape):
            lits = [x[cell] for cell in seg]
            f.at_most(lits, 1, rule="R3")
            for cell in seg:
                seen[cell].extend(lits)
        for cell in sorted(x):
            f.add(sorted(set(seen[cell])), rule="R2")
        count = {b: f.count([x[n] for n in neighbours4(b[0], b[1], H, W) if n in x]) for b in sorted(blocks)}

        def decode(value: np.ndarray) -> list[list]:
            return [[BLOCK if (r, c) in blocks else LIGHT if value[x[r, c]] > 0 else DARK for c in range(W)]
                    for r in range(H)]

        return Encoding(f, [x[k] for k in sorted(x)], decode, extra={"x": x, "count": count})

    def sample(self, rng: np.random.Generator, params: dict) -> tuple[dict, list[list]]:
        """Black cells at the density and symmetry, random lights, every black cell numbered,
        then numbers removed (class docstring). Level 0 runs on the grid in a kernel whose
        deductions are exactly propagation over the CNF (see kernel), 20 layouts per
        call; the other levels on the engine."""
        W, H, percent = params["W"], params["H"], params["black_percent"]
        keep = round(NUMBER_SHARE * params["black_percent"] * W * H)
        for attempt in range(0, 400, 20):
            if attempt and percent < 90:
                percent += 5  # as Tatham's generator: 20 failed layouts in a row raise the density
            limit = W * H * percent // 100
            if params["tatham_difficulty"] == 0:
                found = easy_level(rng, params, percent)
                if found is not None:
                    return found
                continue
            for _ in range(20):
                blocks: set = set()
                for idx in rng.permutation(W * H):
                    cells = symmetry_orbit(*divmod(int(idx), W), H, W, params["symmetry"])
                    if len(blocks | cells) <= limit:
                        blocks |= cells
                found = reduce_numbers(rng, self.encode, params, blocks, keep) if len(blocks) < W * H else None
                if found is not None:
                    return found
        raise RuntimeError(f"could not generate a unique {W}x{H} Light Up puzzle")

    def clue_features(self, instance: Instance) -> np.ndarray:
        """Per cell: 0 white, 1 unnumbered black, 2 + n for a black cell numbered n."""
        code = {DARK: 0.0, BLOCK: 1.0}
        return np.asarray([code[v] if v in code else 2.0 + int(v) for row in instance.data["state"]["grid"] for v in row],
                          np.float32)

    def sketch(self, instance: Instance, grid: list[list]) -> Sketch:
        st = instance.data["state"]["grid"]
        lit = {cell for seg in segments(st) if any(grid[r][c] == LIGHT for r, c in seg) for cell in seg}
        text = [[v if v != DARK else LIGHT if grid[r][c] == LIGHT else "+" if (r, c) in lit else "."
                 for c, v in enumerate(row)] for r, row in enumerate(st)]
        fill = [["black" if v != DARK else "lit" if (r, c) in lit else None for c, v in enumerate(row)]
                for r, row in enumerate(st)]
        return Sketch(len(st), len(st[0]), text, fill, labels=[[t if t in "L01234" else "" for t in row] for row in text])
