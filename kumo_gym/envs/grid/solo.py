"""Solo, Tatham's Sudoku (grid_puzzles.md §5 "Solo (Sudoku)")."""
from __future__ import annotations

import re
from typing import ClassVar

import numpy as np

from ...core.errors import ConfigError, check_choice, check_int
from ...core.instance import Instance
from ...solvers.sat import Formula, Propagator, UniquenessOracle, grade
from .base import Check, Encoding, LatinGridTask, encode_latin, random_latin, reduce_clues
from .tatham import Unsupported, decode_numgrid, encode_numgrid

#: Tatham's Solo difficulty letters (solo.c): trivial, basic, intermediate, advanced, extreme, unreasonable
LEVELS = {"t": "Trivial", "b": "Basic", "i": "Intermediate", "a": "Advanced", "e": "Extreme", "u": "Unreasonable"}
SYMMETRIES = ("r2", "r4", "m2", "md2", "m4", "md4", "m8", "a")


class SoloTask(LatinGridTask):
    """Solo: Sudoku with rectangular boxes.

    ## Description
    Fill an n x n grid (n = box_w * box_h) with the digits 1..n so that every row, every column
    and every box of box_w columns by box_h rows holds each digit exactly once. Given digits stay
    (grid_puzzles.md §5, Tatham's *Solo*; the X, killer and jigsaw variants are not modelled).

    ## Answer
    A JSON array of n rows of n integers 1..n. Any grid that satisfies the rules scores 1.

    ## Presets
    ``trivial`` 4x4 (2x2 boxes), ``easy`` 6x6 (3-wide, 2-tall boxes), ``normal`` 9x9 at
    Tatham's Trivial level, ``hard`` 9x9 at Extreme (canonical Tatham strings 2x2, 2x3, 3x3,
    3x3de). Explicit sizes: ``box_w``, ``box_h`` (2..5 each) and ``tatham_difficulty``
    (``t``, ``b``, ``i``, ``a``, ``e``, ``u``).

    Generation (§8): a random solution (SAT with random phases), then givens are removed in
    180-degree-symmetric pairs while SAT certifies the solution stays unique. At the Trivial
    level a removal is also kept only if unit propagation alone still solves the puzzle; at the
    other levels the givens are reduced to a minimal symmetric set.

    ## Interactive mode
    ``{"r": row, "c": col, "v": digit}``, 0 clears a cell; given cells are fixed.

    ## Rule codes
    R1 rows, R2 columns, R3 boxes hold 1..n once each; R4 givens kept.
    """

    family = "solo"
    title = "Solo"
    difficulties: ClassVar[dict] = {
        "trivial": {"box_w": 2, "box_h": 2, "tatham_difficulty": "t"},
        "easy": {"box_w": 3, "box_h": 2, "tatham_difficulty": "t"},
        "normal": {"box_w": 3, "box_h": 3, "tatham_difficulty": "t"},
        "hard": {"box_w": 3, "box_h": 3, "tatham_difficulty": "e"},
    }
    param_names = ("box_w", "box_h", "tatham_difficulty", "backend")
    symbols = frozenset(range(1, 26))
    state_keys = ("n", "box_w", "box_h", "grid")

    # ---- parameters -----------------------------------------------------------------------
    def validate_params(self, params: dict) -> dict:
        p = dict(params)
        p["box_w"] = check_int("box_w", p.get("box_w", 3), 2, 5)
        p["box_h"] = check_int("box_h", p.get("box_h", p["box_w"]), 2, 5)
        p["tatham_difficulty"] = p.get("tatham_difficulty", "t")
        check_choice("tatham_difficulty", p["tatham_difficulty"], list(LEVELS))
        return p

    def encode_params(self, params: dict, full: bool = True) -> str:
        # Tatham's CxR: C box-columns... i.e. boxes R wide and C tall (§5 "Boxes")
        s = f"{params['box_h']}x{params['box_w']}"
        diff = params.get("tatham_difficulty", "t")
        return s + (f"d{diff}" if full and diff != "t" else "")

    def decode_params(self, s: str) -> dict:
        m = re.fullmatch(r"(\d{1,2})(?:x(\d{1,2}))?(.*)", s.strip())
        if not m:
            raise ConfigError(f"Solo parameter string {s!r} does not start with CxR, e.g. 3x3")
        c = int(m.group(1))
        r = int(m.group(2)) if m.group(2) else None
        if r is None:
            # Tatham: a single number n means a plain n x n Latin square with 1-row boxes; unsupported
            raise Unsupported(f"Solo parameters {s!r} (no boxes) are not supported; use CxR")
        p = {"box_w": r, "box_h": c, "tatham_difficulty": "t"}
        rest = m.group(3)
        while rest:
            if rest[0] in "xkj":
                raise Unsupported(f"the Solo variant {rest[0]!r} in {s!r} (X / killer / jigsaw) is not supported")
            sym = next((y for y in sorted(SYMMETRIES, key=len, reverse=True) if rest.startswith(y)), None)
            if sym:
                rest = rest[len(sym):]  # symmetry is generation-only (§4)
            elif rest[0] == "d" and len(rest) > 1 and rest[1] in LEVELS:
                p["tatham_difficulty"] = rest[1]
                rest = rest[2:]
            else:
                raise ConfigError(f"unexpected {rest[:4]!r} in Solo parameters {s!r}")
        if r * c > 25:
            raise ConfigError(f"Solo boxes {r}x{c} give {r * c} symbols; at most 25 are supported")
        return p

    # ---- Tatham description ---------------------------------------------------------------
    def decode_game_id(self, params: dict, desc: str) -> dict:
        bw, bh = params["box_w"], params["box_h"]
        n = bw * bh
        cells = decode_numgrid(desc, n * n, max_value=n)
        return {"n": n, "box_w": bw, "box_h": bh, "grid": [cells[r * n:(r + 1) * n] for r in range(n)]}

    def encode_desc(self, instance: Instance) -> str:
        return encode_numgrid([v for row in instance.data["state"]["grid"] for v in row])

    def aux_solution(self, instance: Instance, aux: str) -> list[list]:
        n = instance.data["state"]["n"]
        vals = [int(x) for x in aux[1:].split(",")]
        return [vals[r * n:(r + 1) * n] for r in range(n)]

    # ---- SAT --------------------------------------------------------------------------------
    def encode(self, instance: Instance) -> Encoding:
        st = instance.data["state"]
        n = st["n"]
        f = Formula()
        x = encode_latin(f, n, st["box_w"], st["box_h"])
        for r in range(n):
            for c in range(n):
                if st["grid"][r][c]:
                    f.add([x[r, c, st["grid"][r][c]]])
        return Encoding(f, list(x.values()), self.onehot_decoder(x, n), {"x": x})

    # ---- generator ------------------------------------------------------------------------
    def sample(self, rng: np.random.Generator, params: dict) -> tuple[dict, list[list]]:
        """§8: at Trivial, reduce keeping grade 0; above it, minimal sets, preferring grade >= 1."""
        trivial = params["tatham_difficulty"] == "t"
        best = None
        for _ in range(1 if trivial else 8):
            state, sol, g = self._sample_once(rng, params, trivial)
            if trivial or g >= 1:
                return state, sol
            best = best or (state, sol)
        return best

    def _sample_once(self, rng: np.random.Generator, params: dict, trivial: bool) -> tuple[dict, list[list], int]:
        bw, bh = params["box_w"], params["box_h"]
        n = bw * bh
        sol = random_latin(rng, n, bw, bh)
        f = Formula()
        x = encode_latin(f, n, bw, bh)
        answer = list(x.values())
        model = [x[r, c, v] if sol[r][c] == v else -x[r, c, v] for (r, c, v) in x]
        # 180-degree symmetric pairs of givens (Tatham's default symmetry r2)
        groups, seen = [], set()
        for r in range(n):
            for c in range(n):
                if (r, c) in seen:
                    continue
                pair = {(r, c), (n - 1 - r, n - 1 - c)}
                seen |= pair
                groups.append([x[a, b, sol[a][b]] for a, b in sorted(pair)])
        prop = Propagator(f.clauses)
        try:
            with UniquenessOracle(f.clauses, answer, model) as oracle:
                accept = (lambda lits: grade(f.clauses, answer, lits, prop) == 0) if trivial else None
                kept = reduce_clues(oracle.unique, groups, rng, acceptable=accept)
            lits = [lit for g in kept for lit in g]
            g = 0 if trivial else grade(f.clauses, answer, lits, prop)
        finally:
            prop.close()
        given = set(lits)
        grid = [[sol[r][c] if x[r, c, sol[r][c]] in given else 0 for c in range(n)] for r in range(n)]
        return {"n": n, "box_w": bw, "box_h": bh, "grid": grid}, sol, g

    # ---- rules ----------------------------------------------------------------------------
    @staticmethod
    def units(n: int, bw: int, bh: int) -> list[tuple[str, int, list[tuple[int, int]]]]:
        """(rule, index, cells) of every row (R1), column (R2) and box (R3); box index as §5."""
        out = [("R1", r, [(r, c) for c in range(n)]) for r in range(n)]
        out += [("R2", c, [(r, c) for r in range(n)]) for c in range(n)]
        per_row = n // bw
        for b in range(n):
            r0, c0 = (b // per_row) * bh, (b % per_row) * bw
            out.append(("R3", b, [(r0 + i, c0 + j) for i in range(bh) for j in range(bw)]))
        return out

    def rule_checks(self, instance: Instance, grid: list[list]) -> list[Check]:
        st = instance.data["state"]
        n = st["n"]
        checks = [self.unit_check(rule, grid, cells, n) for rule, _, cells in self.units(n, st["box_w"], st["box_h"])]
        return checks + self.givens_checks(instance, grid, "R4")

    # ---- text -----------------------------------------------------------------------------
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
        n = instance.data["state"]["n"]
        return f"give the completed grid as integers 1 to {n}, including the given digits."

    def draw(self, instance: Instance, grid: list[list]) -> str:
        st = instance.data["state"]
        n, bw, bh = st["n"], st["box_w"], st["box_h"]
        width = len(str(n))
        sep = "+" + "+".join("-" * ((width + 1) * bw + 1) for _ in range(n // bw)) + "+"
        lines = [sep]
        for r in range(n):
            parts = []
            for b in range(n // bw):
                cells = [str(grid[r][c]).rjust(width) if grid[r][c] else ".".rjust(width)
                         for c in range(b * bw, (b + 1) * bw)]
                parts.append(" " + " ".join(cells) + " ")
            lines.append("|" + "|".join(parts) + "|")
            if (r + 1) % bh == 0:
                lines.append(sep)
        return "\n".join(lines)
