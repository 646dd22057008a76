"""Towers, Tatham's skyscrapers puzzle (docs/specs/grid_puzzles.md §5 "Towers"). Game IDs: ``codec.py``."""
from __future__ import annotations

import dataclasses

import numpy as np

from ....core.instance import Instance
from ....core.params import param
from ....solvers.engine import Encoding, reduce_clues
from ....solvers.sat import Formula
from ..base import Check, GridParams, presets
from ..latin import LatinGridTask, latin_formula, random_latin
from ..render import Sketch
from .claims import RULES as CLAIM_RULES
from .codec import SIDES
from .deduce import easy_givens


def visible_count(heights: list[int]) -> int:
    """How many towers are seen looking along ``heights`` from its start (taller than all before)."""
    seen, tallest = 0, 0
    for h in heights:
        if h > tallest:
            seen, tallest = seen + 1, h
    return seen


def line_cells(side: str, index: int, n: int) -> list[tuple[int, int]]:
    """The cells seen from a clue, nearest first: top/bottom clues by column, left/right by row."""
    cells = [(r, index) for r in range(n)] if side in ("top", "bottom") else [(index, c) for c in range(n)]
    return cells[::-1] if side in ("bottom", "right") else cells


@dataclasses.dataclass(frozen=True)
class TowersParams(GridParams):
    n: int = param(5, lo=3, hi=9, doc="grid size n x n (heights 1..n)")
    tatham_difficulty: str = param("e", choices=("e", "h", "x", "u"),
                                   doc="Tatham's level: e easy (every edge clue shown), else a minimal clue set")


class TowersTask(LatinGridTask):
    """Towers: a Latin square of tower heights seen from the edges.

    ## Description
    Fill an n x n grid with heights 1..n so that each row and each column holds every height once.
    A number outside the grid says how many towers are visible from there looking along that row
    or column: a tower is visible when it is taller than every tower in front of it. Given heights
    stay (docs/specs/grid_puzzles.md §5, Tatham's *Towers*).

    ## Answer
    A JSON array of n rows of n integers 1..n. Any grid that satisfies the rules scores 1.

    ## Generation
    Our own generator (docs/specs/grid_puzzles.md §8): a random Latin square, its 4n edge clues and the fewest
    random givens that make it unique. At Easy, as in Tatham's, every edge clue stays and givens go while
    line-by-line deduction still solves it (each row and column with its two clues narrowed to the heights some
    fitting permutation allows; up to n = 7, above that failed-literal probing, grade <= 1); other levels reduce
    clues and givens to a minimal unique set.

    ## Interactive mode
    One move writes a height, ``{"r": row, "c": col, "v": height}``; height 0 empties the cell again.
    The given heights cannot be changed.
    """

    Params = TowersParams
    claim_rules = CLAIM_RULES
    difficulties = presets("n tatham_difficulty", (3, "e"), (4, "e"), (5, "e"), (6, "e"))
    rule_codes = """
        R1 every row and every column holds each height 1..n exactly once
        R2 each edge clue equals the number of towers visible from it
        R3 given heights are kept
    """
    rules_prompt = """
        - Every cell holds a tower of height 1 to {n}; each row and each column contains every height exactly once.
        - A clue outside the grid gives the number of towers visible from that point looking into the grid along its
          row or column. A tower is visible when it is taller than all towers in front of it.
        - "top" clues look down the columns (left to right), "bottom" clues look up the columns, "left" clues look
          right along the rows (top to bottom), "right" clues look left along the rows; 0 means no clue.
        - Non-zero heights in the grid are given and must be kept; 0 marks an empty cell.
    """
    answer_prompt = "give the completed grid of heights as integers 1 to {n}, including the given heights."
    symbols = frozenset(range(1, 10))
    state_keys = ("n", "top", "bottom", "left", "right", "grid")

    def rule_checks(self, instance: Instance, grid: list[list]) -> list[Check]:
        st = instance.data["state"]
        n = st["n"]
        checks = [self.unit_check("R1", grid, [(r, c) for c in range(n)], n) for r in range(n)]
        checks += [self.unit_check("R1", grid, [(r, c) for r in range(n)], n) for c in range(n)]
        for side in SIDES:
            for i, k in enumerate(st[side]):
                if k:
                    cells = line_cells(side, i, n)
                    checks.append(Check("R2", cells, visible_count([grid[r][c] for r, c in cells]) == k))
        return checks + self.givens_checks(instance, grid, "R3")

    def encode(self, state: dict) -> Encoding:
        """The rules of size n are one formula for every instance; a clue k fixes its line's
        visibility counter to k - 1 (the nearest tower is always visible) by assumption."""
        n = state["n"]
        enc = self.layout(n, lambda: self._rules(n))
        count = enc.extra["count"]
        clues = {(side, i): ("R2", tuple(count[side, i].eq(k - 1)))
                 for side in SIDES for i, k in enumerate(state[side]) if k}
        return enc.with_clues({**clues, **self.given_clues(enc.extra["x"], state["grid"], "R3")})

    def _rules(self, n: int) -> Encoding:
        """The Latin square; ``ge[r, c, v]`` "at least v"; per line, ``pm[k, v]`` "some tower among
        the first k + 1 is at least v", a tower visible iff its height v has ``not pm[k - 1, v]``,
        and a counter over those visibility variables."""
        f = Formula()
        x = latin_formula(f, n, rules=("R1", "R1", None))
        ge = {}
        for (r, c), _ in np.ndenumerate(x[:, :, 0]):
            for v in range(2, n + 1):
                g = ge[r, c, v] = f.var(("ge", r, c, v))
                higher = x[r, c, v - 1:].tolist()
                f.add([-g] + higher)
                f.extend([[g, -h] for h in higher])
        count = {}
        for side in SIDES:
            for i in range(n):
                pm_prev, visible = None, []
                for pos, (r, c) in enumerate(line_cells(side, i, n)):
                    pm = {}
                    for v in range(2, n + 1):
                        p = pm[v] = f.var(("pm", side, i, pos, v))
                        parts = [ge[r, c, v]] + ([pm_prev[v]] if pm_prev else [])
                        f.add([-p] + parts)
                        f.extend([[p, -q] for q in parts])
                    if pos:
                        # visible: some height v >= 2 here that no tower in front reaches
                        seen = []
                        for v in range(2, n + 1):
                            a = f.var(("seen", side, i, pos, v))
                            f.extend([[-a, int(x[r, c, v - 1])], [-a, -pm_prev[v]], [a, -int(x[r, c, v - 1]), pm_prev[v]]])
                            seen.append(a)
                        vis = f.var(("vis", side, i, pos))
                        f.add([-vis] + seen)
                        f.extend([[vis, -a] for a in seen])
                        visible.append(vis)
                    pm_prev = pm
                count[side, i] = f.count(visible)
        return Encoding(f, x.ravel(), self.decoder(x), extra={"x": x, "count": count})

    def sample(self, rng: np.random.Generator, params: dict) -> tuple[dict, list[list]]:
        n, easy = params["n"], params["tatham_difficulty"] == "e"
        sol = random_latin(rng, n)
        cols = [[sol[r][c] for r in range(n)] for c in range(n)]
        full = {"n": n, "top": [visible_count(col) for col in cols], "bottom": [visible_count(col[::-1]) for col in cols],
                "left": [visible_count(row) for row in sol], "right": [visible_count(row[::-1]) for row in sol],
                "grid": sol}
        if easy and n <= 7:
            return {**full, "grid": easy_givens(rng, n, full)}, sol
        enc = self.encode(full)
        eng, truth = enc.engine, enc.solution_values(enc.assumptions())
        edges = [list(enc.clues[side, i][1]) for side in SIDES for i in range(n)]
        base = [lit for g in edges for lit in g]
        # givens in a random order, the shortest prefix that makes the full edge set unique
        # (Easy: probing-solvable); a longer prefix stays so, so binary search finds it
        order = [(int(i) // n, int(i) % n) for i in rng.permutation(n * n)]
        given = [[enc.clues[cell][1][0]] for cell in order]
        lo, hi = 0, len(given)
        while lo < hi:
            k = (lo + hi) // 2
            lits = base + [g[0] for g in given[:k]]
            if (eng.grade(lits) <= 1) if easy else eng.unique(lits, truth):
                hi = k
            else:
                lo = k + 1
        given = given[:lo]
        if easy:
            kept = [True] * len(edges) + reduce_clues(eng, given, rng, truth, grade_limit=1, fixed=base)
        else:
            kept = reduce_clues(eng, edges + given, rng, truth)
        on = {g[0] for g, keep in zip(edges + given, kept) if keep}
        state = {"n": n, **{side: [full[side][i] if edges[s * n + i][0] in on else 0 for i in range(n)]
                            for s, side in enumerate(SIDES)}}
        return {**state, "grid": [[v if enc.clues[r, c][1][0] in on else 0 for c, v in enumerate(row)]
                                  for r, row in enumerate(sol)]}, sol

    def sketch(self, instance: Instance, grid: list[list]) -> Sketch:
        st = instance.data["state"]
        fixed = self.givens(instance)
        lab = [[[str(v) if v else ""] for v in st[side]] for side in SIDES]
        return Sketch(st["n"], st["n"], [[str(v) if v else "" for v in row] for row in grid],
                      [["given" if (r, c) in fixed else None for c in range(st["n"])] for r in range(st["n"])],
                      top=lab[0], bottom=lab[1], left=lab[2], right=lab[3])

    def clue_features(self, instance: Instance) -> np.ndarray:
        st = instance.data["state"]
        return np.asarray([v for side in SIDES for v in st[side]], np.float32)
