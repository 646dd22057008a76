"""Towers, Tatham's skyscrapers puzzle (grid_puzzles.md §5 "Towers")."""
from __future__ import annotations

import re
from typing import ClassVar

import numpy as np

from ...core.errors import ConfigError, check_choice, check_int
from ...core.instance import Instance
from ...solvers.sat import Formula, Propagator, UniquenessOracle, grade
from .base import Check, Encoding, LatinGridTask, encode_latin, random_latin, reduce_clues
from .tatham import decode_numgrid, encode_numgrid

LEVELS = {"e": "Easy", "h": "Hard", "x": "Extreme", "u": "Unreasonable"}
SIDES = ("top", "bottom", "left", "right")


def visible_count(heights: list[int]) -> int:
    """How many towers are seen looking along ``heights`` from its start (taller than all before)."""
    seen, tallest = 0, 0
    for h in heights:
        if h > tallest:
            seen, tallest = seen + 1, h
    return seen


def line_cells(side: str, index: int, n: int) -> list[tuple[int, int]]:
    """The cells seen from a clue, nearest first: top/bottom clues by column, left/right by row."""
    if side == "top":
        return [(r, index) for r in range(n)]
    if side == "bottom":
        return [(r, index) for r in reversed(range(n))]
    if side == "left":
        return [(index, c) for c in range(n)]
    return [(index, c) for c in reversed(range(n))]


class TowersTask(LatinGridTask):
    """Towers: a Latin square of tower heights seen from the edges.

    ## Description
    Fill an n x n grid with heights 1..n so that each row and each column holds every height once.
    A number outside the grid says how many towers are visible from there looking along that row
    or column: a tower is visible when it is taller than every tower in front of it. Given heights
    stay (grid_puzzles.md §5, Tatham's *Towers*).

    ## Answer
    A JSON array of n rows of n integers 1..n. Any grid that satisfies the rules scores 1.

    ## Presets
    ``trivial`` 3de, ``easy`` 4de, ``normal`` 5de, ``hard`` 6de (n x n, Tatham's Easy level).
    Explicit sizes: ``n`` (3..9) and ``tatham_difficulty`` (``e``, ``h``, ``x``, ``u``).

    Generation (§8): a random Latin square; all 4n edge clues, plus random givens if those are not
    enough for a unique solution; then clues and givens are removed in a seeded random order while
    SAT certifies uniqueness. At Easy, as in Tatham's Easy puzzles, every edge clue stays and only
    givens are removed, each removal kept only if failed-literal probing still solves the puzzle
    (grade <= 1); at the other levels clues and givens are reduced to a minimal set.

    ## Interactive mode
    ``{"r": row, "c": col, "v": height}``, 0 clears a cell; given cells are fixed.

    ## Rule codes
    R1 rows and columns are permutations of 1..n; R2 each edge clue equals the visible count;
    R3 givens kept.
    """

    family = "towers"
    title = "Towers"
    difficulties: ClassVar[dict] = {
        "trivial": {"n": 3, "tatham_difficulty": "e"},
        "easy": {"n": 4, "tatham_difficulty": "e"},
        "normal": {"n": 5, "tatham_difficulty": "e"},
        "hard": {"n": 6, "tatham_difficulty": "e"},
    }
    param_names = ("n", "tatham_difficulty", "backend")
    symbols = frozenset(range(1, 10))
    state_keys = ("n", "top", "bottom", "left", "right", "grid")

    # ---- parameters -----------------------------------------------------------------------
    def validate_params(self, params: dict) -> dict:
        p = dict(params)
        p["n"] = check_int("n", p.get("n", 5), 3, 9)
        p["tatham_difficulty"] = p.get("tatham_difficulty", "e")
        check_choice("tatham_difficulty", p["tatham_difficulty"], list(LEVELS))
        return p

    def encode_params(self, params: dict, full: bool = True) -> str:
        return f"{params['n']}" + (f"d{params.get('tatham_difficulty', 'e')}" if full else "")

    def decode_params(self, s: str) -> dict:
        m = re.fullmatch(r"(\d{1,2})(?:d([a-z]))?", s.strip())
        if not m:
            raise ConfigError(f"Towers parameter string {s!r} is not N or Nd<e|h|x|u> (no 'x': use 5de, not 5x5de)")
        p = {"n": check_int("Towers size", int(m.group(1)), 3, 9)}
        if m.group(2):
            check_choice("Towers difficulty letter", m.group(2), list(LEVELS))
            p["tatham_difficulty"] = m.group(2)
        return p

    # ---- Tatham description ---------------------------------------------------------------
    def decode_game_id(self, params: dict, desc: str) -> dict:
        n = params["n"]
        clues, _, givens = desc.partition(",")
        parts = clues.split("/")
        if len(parts) != 4 * n or not all(p == "" or p.isdigit() for p in parts):
            raise ConfigError(f"a Towers {n} description needs {4 * n} '/'-separated clues, got {clues[:60]!r}")
        vals = [int(p) if p else 0 for p in parts]
        if any(v > n for v in vals):
            raise ConfigError(f"a Towers clue exceeds the size {n}")
        state = {"n": n}
        for k, side in enumerate(SIDES):
            state[side] = vals[k * n:(k + 1) * n]
        cells = decode_numgrid(givens, n * n, max_value=n) if givens else [0] * (n * n)
        state["grid"] = [cells[r * n:(r + 1) * n] for r in range(n)]
        return state

    def encode_desc(self, instance: Instance) -> str:
        st = instance.data["state"]
        clues = "/".join(str(v) if v else "" for side in SIDES for v in st[side])
        flat = [v for row in st["grid"] for v in row]
        return clues + ("," + encode_numgrid(flat) if any(flat) else "")

    def aux_solution(self, instance: Instance, aux: str) -> list[list]:
        n = instance.data["state"]["n"]
        return [[int(ch) for ch in aux[1 + r * n:1 + (r + 1) * n]] for r in range(n)]

    # ---- SAT --------------------------------------------------------------------------------
    @staticmethod
    def _encode_rules(n: int, clues: dict[tuple[str, int], int], guarded: bool = False):
        """The Latin square plus one visibility constraint per clue.

        For a line seen from a side, ``pm[k, v]`` says "some tower among the first k+1 is at least
        v"; the tower at position k (k >= 1) is visible iff its height v has ``not pm[k-1, v]``.
        With ``guarded`` every clue's count constraint hangs on a selector literal (returned), so
        clue reduction can switch clues on and off as assumptions.
        """
        f = Formula()
        x = encode_latin(f, n)
        ge = {}
        for r in range(n):
            for c in range(n):
                for v in range(2, n + 1):
                    g = f.var(("ge", r, c, v))
                    ge[r, c, v] = g
                    higher = [x[r, c, u] for u in range(v, n + 1)]
                    f.add([-g] + higher)
                    f.extend([[g, -h] for h in higher])
        selectors = {}
        for (side, i), k in sorted(clues.items()):
            if not k:
                continue
            cells = line_cells(side, i, n)
            pm_prev = None
            visible = []
            for pos, (r, c) in enumerate(cells):
                pm = {}
                for v in range(2, n + 1):
                    p = f.var(("pm", side, i, pos, v))
                    pm[v] = p
                    parts = [ge[r, c, v]] + ([pm_prev[v]] if pm_prev else [])
                    f.add([-p] + parts)
                    f.extend([[p, -q] for q in parts])
                if pos > 0:
                    vis = f.var(("vis", side, i, pos))
                    # height 1 is never visible behind the first tower, so v starts at 2
                    options = []
                    for v in range(2, n + 1):
                        a = f.var(("seen", side, i, pos, v))
                        f.add([-a, x[r, c, v]])
                        f.add([-a, -pm_prev[v]])
                        f.add([a, -x[r, c, v], pm_prev[v]])
                        options.append(a)
                    f.add([-vis] + options)
                    f.extend([[vis, -a] for a in options])
                    visible.append(vis)
                pm_prev = pm
            sel = None
            if guarded:
                sel = selectors[side, i] = f.var(("clue", side, i))
            f.exactly(visible, k - 1, guard=sel)  # the first tower is always visible
        return f, x, selectors

    def encode(self, instance: Instance) -> Encoding:
        st = instance.data["state"]
        n = st["n"]
        clues = {(side, i): st[side][i] for side in SIDES for i in range(n)}
        f, x, _ = self._encode_rules(n, clues)
        for r in range(n):
            for c in range(n):
                if st["grid"][r][c]:
                    f.add([x[r, c, st["grid"][r][c]]])
        return Encoding(f, [x[k] for k in sorted(x)], self.onehot_decoder(x, n), {"x": x})

    # ---- generator ------------------------------------------------------------------------
    def sample(self, rng: np.random.Generator, params: dict) -> tuple[dict, list[list]]:
        n = params["n"]
        easy = params["tatham_difficulty"] == "e"
        sol = random_latin(rng, n)
        cols = [[sol[r][c] for r in range(n)] for c in range(n)]
        full = {}
        for i in range(n):
            full["top", i] = visible_count(cols[i])
            full["bottom", i] = visible_count(cols[i][::-1])
            full["left", i] = visible_count(sol[i])
            full["right", i] = visible_count(sol[i][::-1])
        f, x, sel = self._encode_rules(n, full, guarded=True)
        answer = [x[k] for k in sorted(x)]
        model = [x[r, c, v] if sol[r][c] == v else -x[r, c, v] for (r, c, v) in sorted(x)]
        clue_groups = [[sel[k]] for k in sorted(sel)]
        with UniquenessOracle(f.clauses, answer, model) as oracle:
            prop = Propagator(f.clauses)
            try:
                base = [lit for g in clue_groups for lit in g]
                # add givens until the full clue set is unique (or, at Easy, solvable by probing)
                cells = [(int(i) // n, int(i) % n) for i in rng.permutation(n * n)]
                given_groups = []
                for step in range(n * n + 1):
                    if step:
                        r, c = cells[step - 1]
                        given_groups.append([x[r, c, sol[r][c]]])
                    lits = base + [g[0] for g in given_groups]
                    if oracle.unique(lits) and (not easy or grade(f.clauses, answer, lits, prop) <= 1):
                        break
                if easy:
                    # Tatham's Easy puzzles keep every edge clue; only the givens are thinned out
                    def unique_with_clues(lits):
                        return oracle.unique(base + lits)

                    def probing_solves(lits):
                        return grade(f.clauses, answer, base + lits, prop) <= 1

                    kept = clue_groups + reduce_clues(unique_with_clues, given_groups, rng, acceptable=probing_solves)
                else:
                    kept = reduce_clues(oracle.unique, clue_groups + given_groups, rng)
            finally:
                prop.close()
        on = {abs(g[0]) for g in kept}
        state = {"n": n}
        for side in SIDES:
            state[side] = [full[side, i] if sel[side, i] in on else 0 for i in range(n)]
        state["grid"] = [[sol[r][c] if x[r, c, sol[r][c]] in on else 0 for c in range(n)] for r in range(n)]
        return state, sol

    # ---- rules ----------------------------------------------------------------------------
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

    # ---- text -----------------------------------------------------------------------------
    def rules_text(self, instance: Instance) -> str:
        n = instance.data["state"]["n"]
        return (f"- Every cell holds a tower of height 1 to {n}; each row and each column contains every height "
                "exactly once.\n"
                "- A clue outside the grid gives the number of towers visible from that point looking into the "
                "grid along its row or column. A tower is visible when it is taller than all towers in front of it.\n"
                "- \"top\" clues look down the columns (left to right), \"bottom\" clues look up the columns, "
                "\"left\" clues look right along the rows (top to bottom), \"right\" clues look left along the rows; "
                "0 means no clue.\n"
                "- Non-zero heights in the grid are given and must be kept; 0 marks an empty cell.")

    def answer_text(self, instance: Instance) -> str:
        n = instance.data["state"]["n"]
        return f"give the completed grid of heights as integers 1 to {n}, including the given heights."

    def draw(self, instance: Instance, grid: list[list]) -> str:
        st = instance.data["state"]
        n = st["n"]

        def clue(v):
            return str(v) if v else " "

        lines = ["    " + " ".join(clue(v) for v in st["top"]), "   +" + "-" * (2 * n - 1) + "+"]
        for r in range(n):
            cells = " ".join(str(v) if v else "." for v in grid[r])
            lines.append(f" {clue(st['left'][r])} |{cells}| {clue(st['right'][r])}")
        lines += ["   +" + "-" * (2 * n - 1) + "+", "    " + " ".join(clue(v) for v in st["bottom"])]
        return "\n".join(lines)

    def clue_count(self, instance: Instance) -> int:
        st = instance.data["state"]
        return sum(1 for side in SIDES for v in st[side] if v) + len(self.givens(instance))

    def clue_features(self, instance: Instance) -> np.ndarray:
        st = instance.data["state"]
        return np.asarray([v for side in SIDES for v in st[side]], np.float32)
