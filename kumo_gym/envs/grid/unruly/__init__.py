"""Unruly (docs/specs/grid_puzzles.md §5 "Unruly"; Tatham's ``unruly``). Game IDs: ``codec.py``."""
from __future__ import annotations

import dataclasses

import numpy as np

from ....core.errors import ConfigError
from ....core.instance import Instance
from ....core.params import param
from ....solvers.engine import Encoding, random_phases, reduce_clues
from ....solvers.sat import Formula
from ..base import Check, GridParams, GridTask, cells_decoder, presets, tatham_level
from ..render import Sketch
from .claims import RULES as CLAIM_RULES

BLACK, WHITE, EMPTY = 1, 0, -1
NO_COLOUR = np.zeros(0, np.int8)
#: the docs/specs/grid_puzzles.md §8 grade a removal must keep per level: propagation at Trivial, probing at Easy;
#: Normal is minimal
GRADE_TARGET = {"t": 0, "e": 1, "n": None}


@dataclasses.dataclass(frozen=True)
class UnrulyParams(GridParams):
    W: int = param(8, lo=6, hi=20, doc="columns (even)")
    H: int = param(None, kind=int, lo=6, hi=20, doc="rows (even; default: W)")
    unique: bool = param(False, doc="Tatham's 'u': no two rows and no two columns may be equal")
    tatham_difficulty: str = tatham_level("t", {"t": "trivial", "e": "easy", "n": "normal"})

    def check(self):
        p = super().check()
        for k in ("W", "H"):
            if getattr(p, k) % 2:
                raise ConfigError(f"Unruly {k}={getattr(p, k)} must be even (each line holds as many black cells as white)")
        return p


def lines(H: int, W: int) -> list[list[tuple[int, int]]]:
    """Every row (top to bottom), then every column (left to right), as cell lists."""
    return [[(r, c) for c in range(W)] for r in range(H)] + [[(r, c) for r in range(H)] for c in range(W)]


class UnrulyTask(GridTask):
    """Unruly: a black-and-white grid with balanced lines and no runs of three.

    ## Description
    Colour every cell of an even-sized grid black or white. Every row and every column holds as
    many black cells as white ones, and no three cells in a row (horizontally or vertically) have
    the same colour. Given cells keep their colour. With ``unique`` set, no two rows are equal
    and no two columns are equal. docs/specs/grid_puzzles.md §5, Tatham's *Unruly*.

    ## Answer
    A JSON array of H rows of W integers: ``1`` black, ``0`` white. Any valid grid scores 1.

    ## Generation
    Our own generator (docs/specs/grid_puzzles.md §8): a random valid grid, every cell given, then givens
    removed in a seeded random order. At Tatham's lowest level (``t``) a removal is kept only if unit
    propagation alone still solves the puzzle, at ``e`` only if failed-literal probing does; at ``n`` the givens
    are reduced to a minimal unique set. At ``t`` without ``unique`` (every preset) a grid kernel does both
    steps as Tatham's generator does (the grid filled cell by cell in a random order with propagation; its
    deductions are exactly the CNF's propagation); otherwise the grid comes from SAT with random phases.

    ## Interactive mode
    ``{"r": row, "c": col, "v": 1}`` black, ``0`` white, ``-1`` clears. Givens are fixed.
    """

    Params = UnrulyParams
    claim_rules = CLAIM_RULES
    difficulties = presets("W H unique tatham_difficulty",
                           (6, 6, False, "t"), (8, 6, False, "t"), (8, 8, False, "t"), (14, 14, False, "t"))
    rule_codes = """
        R1 every row and every column holds as many black cells as white ones
        R2 no three consecutive cells of one colour in a row or a column
        R3 given cells keep their colour
        R4 with 'unique' set, no two rows and no two columns are equal
    """
    answer_prompt = "give the colour of every cell as an integer: 1 for black, 0 for white, givens included."
    symbols = frozenset({BLACK, WHITE})
    state_keys = ("grid", "unique")
    empty = EMPTY

    def cell_values(self, instance: Instance) -> tuple:
        return (BLACK, WHITE)

    def givens(self, instance: Instance) -> dict:
        grid = instance.data["state"]["grid"]
        return {(r, c): v for r, row in enumerate(grid) for c, v in enumerate(row) if v != EMPTY}

    def rule_checks(self, instance: Instance, grid: list[list]) -> list[Check]:
        H, W = self.dims(instance)
        every = lines(H, W)
        checks = [Check("R1", line, 2 * sum(grid[r][c] == BLACK for r, c in line) == len(line)) for line in every]
        checks += [Check("R2", line[i:i + 3], len({grid[r][c] for r, c in line[i:i + 3]}) > 1)
                   for line in every for i in range(len(line) - 2)]
        checks += [Check("R3", [(r, c)], grid[r][c] == v) for (r, c), v in sorted(self.givens(instance).items())]
        if instance.data["state"].get("unique"):
            for group in (every[:H], every[H:]):
                seen: dict = {}
                for line in group:
                    seen.setdefault(tuple(grid[r][c] for r, c in line), []).append(line)
                dup = [cell for same in seen.values() if len(same) > 1 for line in same for cell in line]
                checks.append(Check("R4", dup, not dup))
        return checks

    def encode(self, state: dict) -> Encoding:
        grid = state["grid"]
        H, W, unique = len(grid), len(grid[0]), bool(state.get("unique"))
        enc = self.layout((H, W, unique), lambda: self._rules(H, W, unique))
        x = enc.extra["x"]
        return enc.with_clues({(r, c): ("R3", (int(x[r, c]) if v == BLACK else -int(x[r, c]),))
                               for r, row in enumerate(grid) for c, v in enumerate(row) if v != EMPTY})

    @staticmethod
    def _rules(H: int, W: int, unique: bool) -> Encoding:
        f = Formula()
        x = f.grid("black", H, W)
        for line in lines(H, W):
            lits = [int(x[cell]) for cell in line]
            f.exactly(lits, len(lits) // 2, rule="R1")
            for i in range(len(lits) - 2):
                f.add(lits[i:i + 3], rule="R2")
                f.add([-v for v in lits[i:i + 3]], rule="R2")
        if unique:  # R4: some position differs, with d <-> (a xor b) so that negating it means "equal"
            for kind, n, m in (("row", H, W), ("col", W, H)):
                for i in range(n):
                    for j in range(i + 1, n):
                        diffs = []
                        for k in range(m):
                            a, b = (int(x[i, k]), int(x[j, k])) if kind == "row" else (int(x[k, i]), int(x[k, j]))
                            d = f.var(("diff", kind, i, j, k))
                            f.extend([[-d, a, b], [-d, -a, -b], [d, -a, b], [d, a, -b]])
                            diffs.append(d)
                        f.add(diffs, rule="R4")


        return Encoding(f, x.ravel(), cells_decoder(x, BLACK, WHITE), extra={"x": x})

    def sample(self, rng: np.random.Generator, params: dict) -> tuple[dict, list[list]]:
        W, H, unique = params["W"], params["H"], bool(params["unique"])
        level = GRADE_TARGET[params["tatham_difficulty"]]
        if not unique and level == 0:
            return self._sample_fast(rng, H, W)
        enc = self.encode({"grid": [[EMPTY] * W for _ in range(H)], "unique": unique})
        value = enc.engine.sample([], random_phases(rng, enc.answer))
        sol = enc.decode(value)
        full = self.encode({"grid": sol, "unique": unique})
        keys = sorted(full.clues)
        kept = reduce_clues(full.engine, [list(full.clues[k][1]) for k in keys], rng, value, grade_limit=level)
        on = {k for k, keep in zip(keys, kept) if keep}
        return {"grid": [[sol[r][c] if (r, c) in on else EMPTY for c in range(W)] for r in range(H)],
                "unique": unique}, sol

    @staticmethod
    def _sample_fast(rng: np.random.Generator, H: int, W: int) -> tuple[dict, list[list]]:
        """Tatham's lowest level without 'unique' (every preset), on the grid by a kernel that
        deduces exactly what propagation over the CNF does (see kernel): a random valid
        grid filled cell by cell with propagation, then givens dropped in a seeded order while
        propagation still solves the puzzle, which proves it unique."""
        from . import kernel

        n = H * W
        val, counts, trail = kernel.scratch(H, W)
        for _attempt in range(10_000):
            order = rng.permutation(n).astype(np.int64)
            colour = np.where(rng.random(n) < 0.5, 1, -1).astype(np.int8)
            if kernel.run(H, W, order, colour, val, val, val, counts, trail):  # truth, active unused
                break
        else:
            raise RuntimeError(f"could not fill a {W}x{H} Unruly grid")
        truth, active = val.copy(), np.ones(n, np.int8)
        kernel.run(H, W, rng.permutation(n).astype(np.int64), NO_COLOUR, truth, active, val, counts, trail)
        sol = np.where(truth > 0, BLACK, WHITE).reshape(H, W)
        return {"grid": np.where(active.reshape(H, W) > 0, sol, EMPTY).tolist(), "unique": False}, sol.tolist()

    def rules_text(self, instance: Instance) -> str:
        H, W = self.dims(instance)
        text = ("- Colour every cell black or white. In the state's grid, 1 is a black given, 0 a white given "
                "and -1 an empty cell; givens keep their colour.\n"
                f"- Each row holds exactly {W // 2} black and {W // 2} white cells, and each column exactly "
                f"{H // 2} black and {H // 2} white cells.\n"
                "- Nowhere may three cells next to each other in a row, or three cells next to each other in "
                "a column, all have the same colour.")
        if instance.data["state"].get("unique"):
            return text + "\n- \"unique\" is true: no two rows may be identical, and no two columns may be identical."
        return text + "\n- \"unique\" is false: rows (or columns) may repeat."

    def sketch(self, instance: Instance, grid: list[list]) -> Sketch:
        fixed = self.givens(instance)
        mark = {BLACK: "#", WHITE: "o", EMPTY: "."}
        return Sketch(len(grid), len(grid[0]), [[(f"[{mark[v]}]" if (r, c) in fixed else mark.get(v, "?"))
                                                 for c, v in enumerate(row)] for r, row in enumerate(grid)],
                      [[{BLACK: "black", WHITE: "white"}.get(v, "given") for v in row] for row in grid],
                      labels=[["*" if (r, c) in fixed else "" for c in range(len(row))] for r, row in enumerate(grid)])

    def clue_features(self, instance: Instance) -> np.ndarray:
        return np.asarray([float(bool(instance.data["state"].get("unique")))], np.float32)
