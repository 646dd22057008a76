"""Keen, Tatham's KenKen (docs/specs/grid_puzzles.md §5 "Keen"). Game IDs: ``codec.py``."""
from __future__ import annotations

import dataclasses

import numpy as np

from ....core.instance import Instance
from ....core.params import param
from ....solvers.engine import Encoding
from ..base import Check, GridParams, presets
from ..latin import LatinGridTask, cyclic_latin, latin_copy, random_latin
from ..render import Sketch
from .cages import cage_literal, cage_ok, tatham_cages, tatham_clue_types
from .claims import RULES as CLAIM_RULES
from .codec import make_state
from .deduce import ENUMERATE_UP_TO, cage_grade, extended, latin_arrays, several_solutions

__all__ = ["KeenParams", "KeenTask", "cage_ok"]


@dataclasses.dataclass(frozen=True)
class KeenParams(GridParams):
    n: int = param(6, lo=3, hi=9, doc="grid size n x n (values 1..n)")
    tatham_difficulty: str = param("n", choices=("e", "n", "h", "x", "u"),
                                   doc="Tatham's level: e easy (probing solves it), higher levels any unique puzzle")
    multiplication_only: bool = param(False, doc="every cage of two or more cells is a product clue")


class KeenTask(LatinGridTask):
    """Keen: a Latin square split into cages whose arithmetic clues must hold.

    ## Description
    Fill an n x n grid with 1..n so that each row and each column holds every value once. Thick
    walls split the grid into cages; each cage shows a target and an operation: its values add up
    to the target (``+``), multiply to it (``x``), or, for two-cell cages, differ by it (``-``) or
    divide to it (``/``, the larger is target times the smaller). Values may repeat inside a cage
    when they are in different rows and columns (docs/specs/grid_puzzles.md §5, Tatham's *Keen*).

    ## Answer
    A JSON array of n rows of n integers 1..n. Any grid that satisfies the rules scores 1.

    ## Generation
    Our own generator (docs/specs/grid_puzzles.md §8): a random Latin square, cut into cages as Tatham's
    generator does (random dominoes, then leftover cells joined to a neighbouring cage of at most 6 cells), clue
    types handed out in turn (division, subtraction, product, sum); redrawn until unique. At Easy (``e``)
    failed-literal probing must solve it (up to 4x4 a draw that is unique, found by filtering every Latin
    square, is taken as it is: each of some 2,900 such draws checked was solved by probing); above Easy a puzzle
    probing does not solve is preferred.

    ## Interactive mode
    ``{"r": row, "c": col, "v": value}``, 0 clears a cell.
    """

    Params = KeenParams
    claim_rules = CLAIM_RULES
    difficulties = presets("n tatham_difficulty", (3, "e"), (4, "e"), (6, "n"), (9, "n"))
    rule_codes = """
        R1 every row holds each value 1..n exactly once
        R2 every column holds each value 1..n exactly once
        R3 every cage meets its clue (sum, product, difference or quotient equals the target)
    """
    rules_prompt = """
        - Fill every cell with a number from 1 to {n}; each row and each column contains every number exactly once.
        - The grid is divided into cages. cage_grid gives the cage id of each cell; cages lists every cage with its
          cells ([row, column]), its operation and its target.
        - "+": the numbers in the cage add up to the target. "x": they multiply to the target. "-" (two cells): the
          larger minus the smaller equals the target. "/" (two cells): the larger divided by the smaller equals the
          target.
        - A number may appear more than once in a cage if those cells are in different rows and columns.
    """
    answer_prompt = "give the completed grid as integers 1 to {n}."
    symbols = frozenset(range(1, 10))
    state_keys = ("n", "cage_grid", "cages")

    def shape(self, state: dict) -> tuple[int, int]:
        return state["n"], state["n"]

    def givens(self, instance: Instance) -> dict:
        return {}

    def rule_checks(self, instance: Instance, grid: list[list]) -> list[Check]:
        n = instance.data["state"]["n"]
        checks = [self.unit_check("R1", grid, [(r, c) for c in range(n)], n) for r in range(n)]
        checks += [self.unit_check("R2", grid, [(r, c) for r in range(n)], n) for c in range(n)]
        for cage in instance.data["state"]["cages"]:
            cells = [tuple(x) for x in cage["cells"]]
            checks.append(Check("R3", cells, cage_ok(cage["op"], cage["target"], [grid[r][c] for r, c in cells])))
        return checks

    def encode(self, state: dict) -> Encoding:
        """The Latin square plus one literal per cage that is true exactly when the cage meets
        its clue; the clues assume those literals (negating one breaks exactly that cage)."""
        n = state["n"]
        key = (n, tuple((c["op"], c["target"], tuple(map(tuple, c["cells"]))) for c in state["cages"]))
        return self.layout(key, lambda: self._rules(n, state["cages"]))

    def _rules(self, n: int, cages: list[dict]) -> Encoding:
        f, x = latin_copy(n, rules=("R1", "R2", None))
        start = len(f.clauses)
        xs = x.tolist()
        lits = {k: cage_literal(f, xs, n, k, [tuple(c) for c in cage["cells"]], cage["op"], cage["target"])
                for k, cage in enumerate(cages)}
        # the deduction arrays: the Latin square's, built once per n, then the cages' clauses
        f._arrays = (len(f.clauses), extended(latin_arrays(n), f.clauses[start:], f.n_vars))
        return Encoding(f, x.ravel(), self.decoder(x), clues={("cage", k): ("R3", (lit,)) for k, lit in lits.items()},
                        extra={"x": x})

    def sample(self, rng: np.random.Generator, params: dict) -> tuple[dict, list[list]]:
        n, diff = params["n"], params["tatham_difficulty"]
        first = None
        pending: list = []  # draws not yet checked for uniqueness, in order
        for attempt in range(500):
            sol = random_latin(rng, n)
            while cyclic_latin(sol):
                sol = random_latin(rng, n)  # a cyclic square: a blind answer would solve it (half of 3x3)
            cage_of = tatham_cages(rng, n)
            ops = tatham_clue_types(rng, n, sol, cage_of, diff in "en", params["multiplication_only"])
            state = make_state(n, cage_of, ops)
            if n <= ENUMERATE_UP_TO:  # up to 4x4, uniqueness by filtering every Latin square
                g = 2 if several_solutions(n, state["cages"]) else 1 if diff == "e" else cage_grade(n, state["cages"])
            else:
                g = cage_grade(n, state["cages"])
            if g <= 1 and (diff == "e" or g >= 1):
                return state, sol
            if diff != "e":
                pending.append((state, sol))
            if attempt >= 20:
                # the first unique draw (propagation settles grade 0, SAT the rest), checked only
                # now, in draw order: most generations return a grade-1 draw before and never
                # build a solver
                while first is None and pending:
                    st, so = pending.pop(0)
                    e = self.encode(st)
                    if e.engine.unique(e.assumptions(), e.solution_values(self._truth(e, so))):
                        first = (st, so)
                if first is not None:
                    return first
        raise RuntimeError(f"could not generate a {n}x{n} Keen puzzle")

    @staticmethod
    def _truth(enc: Encoding, sol: list[list]) -> list[int]:
        x = enc.extra["x"]
        return [int(x[r, c, v - 1]) for r, row in enumerate(sol) for c, v in enumerate(row)]

    def sketch(self, instance: Instance, grid: list[list]) -> Sketch:
        st = instance.data["state"]
        n, lab = st["n"], st["cage_grid"]
        text = [[str(v) if v else "" for v in row] for row in grid]
        labels = [list(row) for row in text]
        for cage in st["cages"]:  # the clue in the cage's first cell, beside its value
            (r, c), clue = cage["cells"][0], f"{cage['target']}{cage['op']}"
            text[r][c] = clue + (f":{text[r][c]}" if text[r][c] else "")
            labels[r][c] = clue + (f" {labels[r][c]}" if labels[r][c] else "")
        walls = [((r, c), (r2, c2)) for r in range(n) for c in range(n) for r2, c2 in ((r + 1, c), (r, c + 1))
                 if r2 < n and c2 < n and lab[r][c] != lab[r2][c2]]
        return Sketch(n, n, text, labels=labels, walls=walls)

    def clue_count(self, instance: Instance) -> int:
        return len(instance.data["state"]["cages"])

    def clue_features(self, instance: Instance) -> np.ndarray:
        """Per cell: log2(1 + its cage's target) and the operation (1..4 for + x - /), so the
        features stay within the structured view's bounds."""
        st = instance.data["state"]
        cages = st["cages"]
        return np.asarray([f for row in st["cage_grid"] for k in row
                           for f in (np.log2(1 + cages[k]["target"]), "+x-/".index(cages[k]["op"]) + 1)], np.float32)
