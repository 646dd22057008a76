"""Unequal, Tatham's Futoshiki, and its Adjacent mode (docs/specs/grid_puzzles.md §5 "Unequal"). Game IDs:
``codec.py``."""
from __future__ import annotations

import dataclasses

import numpy as np

from ....core.instance import Instance
from ....core.params import param
from ....solvers.engine import Encoding, reduce_clues
from ....solvers.sat import Formula
from ..base import Check, GridParams, presets
from ..latin import LatinGridTask, at_least_literals, cyclic_latin, latin_formula, random_latin
from ..render import Sketch
from .claims import RULES as CLAIM_RULES
from .codec import diagram, neighbour_pairs
from .deduce import reduce


@dataclasses.dataclass(frozen=True)
class UnequalParams(GridParams):
    n: int = param(5, lo=3, hi=9, doc="grid size n x n (values 1..n)")
    adjacent: bool = param(False, doc="Adjacent mode: marked neighbours differ by exactly one, unmarked ones do not")
    tatham_difficulty: str = param("k", choices=("t", "e", "k", "x", "r"),
                                   doc="Tatham's level: t trivial (givens only), e easy (probing solves it), "
                                       "k and above a minimal unique clue set")


class UnequalTask(LatinGridTask):
    """Unequal: a Latin square with inequality signs between neighbours (or Adjacent marks).

    ## Description
    Fill an n x n grid with 1..n so that each row and each column holds every value once. Given
    numbers stay. A sign between two neighbouring cells says which of them is larger. In Adjacent
    mode a mark between two neighbours says they differ by exactly one, and two neighbours without
    a mark must not (docs/specs/grid_puzzles.md §5, Tatham's *Unequal*).

    ## Answer
    A JSON array of n rows of n integers 1..n. Any grid that satisfies the rules scores 1.

    ## Generation
    Our own generator (docs/specs/grid_puzzles.md §8): a random Latin square with every given and every sign,
    reduced in a seeded random order (givens first, then signs, as Tatham's puzzles keep few givens) while the
    solution stays unique: at Trivial (``t``) givens only, while failed-literal probing still solves it; at Easy
    (``e``) while Unequal's own deduction (Latin singles, the bounds of each sign) settles it; above Easy to a
    minimal unique set (exact search, deduce.py). Adjacent mode keeps every mark (they are the rules)
    and reduces the givens by probing or SAT.

    ## Interactive mode
    ``{"r": row, "c": col, "v": value}``, 0 clears a cell; given cells are fixed.
    """

    Params = UnequalParams
    claim_rules = CLAIM_RULES
    difficulties = presets("n tatham_difficulty", (3, "t"), (4, "e"), (4, "k"), (7, "k"))
    rule_codes = """
        R1 every row and every column holds each value 1..n exactly once
        R2 given numbers are kept
        R3 every inequality sign holds: the cell it opens towards is larger
        R3a Adjacent mode: marked neighbours differ by exactly one, unmarked neighbours do not
    """
    symbols = frozenset(range(1, 10))
    state_keys = ("n", "mode", "grid", "gt", "adj")

    def rule_checks(self, instance: Instance, grid: list[list]) -> list[Check]:
        st = instance.data["state"]
        n = st["n"]
        checks = [self.unit_check("R1", grid, [(r, c) for c in range(n)], n) for r in range(n)]
        checks += [self.unit_check("R1", grid, [(r, c) for r in range(n)], n) for c in range(n)]
        checks += self.givens_checks(instance, grid, "R2")
        checks += [Check("R3", [tuple(a), tuple(b)], grid[a[0]][a[1]] > grid[b[0]][b[1]]) for a, b in st.get("gt", [])]
        if st["mode"] == "adjacent":
            marked = {tuple(map(tuple, p)) for p in st["adj"]}
            checks += [Check("R3a", [a, b], (abs(grid[a[0]][a[1]] - grid[b[0]][b[1]]) == 1) == ((a, b) in marked))
                       for a, b in neighbour_pairs(n)]
        return checks

    def encode(self, state: dict) -> Encoding:
        """One formula per (n, mode): the Latin square and, per neighbour pair, a literal for "a is
        larger than b" (both ways) or "a and b differ by one"; signs, marks and givens are
        assumptions on them (an Adjacent pair without a mark assumes the literal false)."""
        n, adjacent = state["n"], state["mode"] == "adjacent"
        enc = self.layout((n, adjacent), lambda: self._rules(n, adjacent))
        rel = enc.extra["rel"]
        clues = self.given_clues(enc.extra["x"], state["grid"], "R2")
        if adjacent:
            marked = {tuple(map(tuple, p)) for p in state["adj"]}
            clues |= {("adj", a, b): ("R3a", (rel[a, b] if (a, b) in marked else -rel[a, b],))
                      for a, b in neighbour_pairs(n)}
        else:
            clues |= {("gt", tuple(a), tuple(b)): ("R3", (rel[tuple(a), tuple(b)],)) for a, b in state["gt"]}
        return enc.with_clues(clues)

    def _rules(self, n: int, adjacent: bool) -> Encoding:
        f = Formula()
        x = latin_formula(f, n, rules=("R1", "R1", None))
        lit = lambda cell, v: int(x[cell[0], cell[1], v - 1])
        ge, rel = at_least_literals(f, x), {}
        for a, b in neighbour_pairs(n):
            if adjacent:
                d = rel[a, b] = f.var(("adj", a, b))
                for p, q in ((a, b), (b, a)):
                    for v in range(1, n + 1):
                        near = [lit(q, w) for w in (v - 1, v + 1) if 1 <= w <= n]
                        f.add([-d, -lit(p, v)] + near)
                        f.extend([[d, -lit(p, v), -m] for m in near])
                continue
            for p, q in ((a, b), (b, a)):  # g <-> value(p) > value(q), on the order variables
                g = rel[p, q] = f.var(("gt", p, q))
                f.add([-g, ge[p, 2]])
                f.extend([[-g, -ge[q, v], ge[p, v + 1]] for v in range(2, n)])
                f.add([-g, -ge[q, n]])
                f.extend([[g, -ge[p, v], ge[q, v]] for v in range(2, n + 1)])
        return Encoding(f, x.ravel(), self.decoder(x), extra={"x": x, "rel": rel}, solver="glucose4")

    def sample(self, rng: np.random.Generator, params: dict) -> tuple[dict, list[list]]:
        """Above Easy, a puzzle that deduction alone solves is redrawn (up to 20 times)."""
        for _ in range(20):
            state, sol, easy = self._draw(rng, params)
            if not easy:
                break
        return state, sol

    def _draw(self, rng: np.random.Generator, params: dict) -> tuple[dict, list[list], bool]:
        """A puzzle, its solution, and whether (above Easy) deduction alone solves it."""
        n, diff, adjacent = params["n"], params["tatham_difficulty"], params["adjacent"]
        sol = random_latin(rng, n)
        while cyclic_latin(sol):
            sol = random_latin(rng, n)  # a blind answer would solve it (half of 3x3): generate would redraw
        full = {"n": n, "mode": "adjacent" if adjacent else "unequal", "grid": sol}
        val = lambda cell: sol[cell[0]][cell[1]]
        if adjacent:
            full["adj"] = [[list(a), list(b)] for a, b in neighbour_pairs(n) if abs(val(a) - val(b)) == 1]
        else:
            full["gt"] = sorted([list(a), list(b)] if val(a) > val(b) else [list(b), list(a)]
                                for a, b in neighbour_pairs(n))
        if not adjacent and diff != "t":  # Unequal's own deduction and search (deduce.py)
            givens, signs, easy = reduce(rng, n, sol, full["gt"], diff == "e")
            return {**full, "grid": np.where(givens.reshape(n, n), sol, 0).tolist(),
                    "gt": [p for p, on in zip(full["gt"], signs) if on]}, sol, easy
        # Trivial (givens only) and Adjacent mode (every mark kept): givens reduced on the formula
        enc = self.encode(full)
        eng, truth = enc.engine, enc.solution_values([enc.clues[r, c][1][0] for r in range(n) for c in range(n)])
        limit = 1 if diff in "te" else None
        givens = [[enc.clues[int(i) // n, int(i) % n][1][0]] for i in rng.permutation(n * n)]
        fixed = [enc.clues[k][1][0] for k in enc.clues if k[0] == "adj"]
        kept = reduce_clues(eng, givens, rng, truth, grade_limit=limit, runs=limit is None, fixed=fixed)
        on = [g[0] for g, keep in zip(givens, kept) if keep]
        state = {**full, "grid": [[v if enc.clues[r, c][1][0] in on else 0 for c, v in enumerate(row)]
                                  for r, row in enumerate(sol)]} | ({} if adjacent else {"gt": []})
        return state, sol, diff not in "te" and eng.fixes_answer(eng.propagate(fixed + on))

    def rules_text(self, instance: Instance) -> str:
        st = instance.data["state"]
        adjacent = st["mode"] == "adjacent"
        rel = ("- adj lists every pair of neighbouring cells [[row, column], [row, column]] whose numbers differ by "
               "exactly 1. Any two neighbouring cells not listed must NOT differ by 1.\n") if adjacent else \
            "- gt lists pairs of neighbouring cells [[row, column], [row, column]]: the first cell's number is larger.\n"
        signs = "'|' between columns and '-' between rows mark the pairs listed in adj" if adjacent else \
            "'<' or '>' between columns and '^' or 'v' between rows open towards the larger number"
        return (f"- Fill every cell with a number from 1 to {st['n']}; each row and each column contains every "
                "number exactly once.\n- Non-zero numbers in grid are given and must be kept; 0 marks an empty cell.\n"
                f"{rel}- The same puzzle drawn as text ('.' is an empty cell; {signs}):\n{diagram(st, st['grid'])}")

    def answer_text(self, instance: Instance) -> str:
        return f"give the completed grid as integers 1 to {instance.data['state']['n']}, including the given numbers."

    def render(self, instance: Instance, state=None) -> str:
        n, gid = instance.data["state"]["n"], instance.data.get("game_id") or ""
        return f"{self.title} {n}x{n}  ({gid})\n{self.render_state(instance, state or self.initial_grid(instance))}"

    def render_state(self, instance: Instance, state) -> str:
        return diagram(instance.data["state"], [list(r) for r in state])

    def sketch(self, instance: Instance, grid: list[list]) -> Sketch:
        """The image: each cell shows its number and the signs to its right and below it."""
        st, fixed = instance.data["state"], self.givens(instance)
        rows, n = diagram(st, grid).split("\n"), st["n"]
        text = [[(rows[2 * r] + " " * 4 * n)[4 * c:4 * c + 3].replace(" ", "") +
                 ((rows[2 * r + 1] + " " * 4 * n)[4 * c].strip() if r < n - 1 else "") for c in range(n)]
                for r in range(n)]
        return Sketch(n, n, text, [["given" if (r, c) in fixed else None for c in range(n)] for r in range(n)])

    def clue_count(self, instance: Instance) -> int:
        st = instance.data["state"]  # givens and signs (Adjacent: marks), as Tatham's puzzles count
        return len(self.givens(instance)) + len(st.get("gt", st.get("adj", [])))

    def clue_features(self, instance: Instance) -> np.ndarray:
        """Per neighbour pair: Unequal 1 (first larger), 2 (second larger) or 0; Adjacent 1 marked."""
        st = instance.data["state"]
        rel = {tuple(map(tuple, p)) for p in st.get("gt", st.get("adj", []))}
        return np.asarray([1 if (a, b) in rel else 2 if (b, a) in rel else 0 for a, b in neighbour_pairs(st["n"])],
                          np.float32)
