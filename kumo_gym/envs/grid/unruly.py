"""Unruly (grid_puzzles.md §5 "Unruly"; Tatham's ``unruly``)."""
from __future__ import annotations

import re
from typing import ClassVar

import numpy as np

from ...core.errors import ConfigError, check_choice, check_int
from ...core.instance import Instance
from ...solvers.sat import Formula, Propagator, UniquenessOracle, grade, solve, true_vars
from .base import Check, Encoding, GridTask, reduce_clues

BLACK, WHITE, EMPTY = 1, 0, -1
LEVELS = {"t": "Trivial", "e": "Easy", "n": "Normal"}
#: the §8 grade a removal must keep per level: unit propagation alone at Trivial (this lands the
#: given count within about 10 % of Tatham's), failed-literal probing at Easy; Normal is minimal
GRADE_TARGET = {"t": 0, "e": 1}


def _lines(H: int, W: int) -> list[list[tuple[int, int]]]:
    """Every row (top to bottom), then every column (left to right), as cell lists."""
    return [[(r, c) for c in range(W)] for r in range(H)] + [[(r, c) for r in range(H)] for c in range(W)]


class UnrulyTask(GridTask):
    """Unruly: a black-and-white grid with balanced lines and no runs of three.

    ## Description
    Colour every cell of an even-sized grid black or white. Every row and every column holds as
    many black cells as white ones, and no three cells in a row (horizontally or vertically) have
    the same colour. Given cells keep their colour. With ``unique`` set, no two rows are equal
    and no two columns are equal. grid_puzzles.md §5, Tatham's *Unruly*.

    ## Answer
    A JSON array of H rows of W integers: ``1`` black, ``0`` white. Any grid that satisfies the
    rules scores 1.

    ## Presets
    ``trivial`` 6x6dt, ``easy`` 8x6dt, ``normal`` 8x8dt, ``hard`` 14x14dt (the paper's Table 7).
    Explicit sizes: ``W``, ``H`` (even, 6..30), ``unique`` (Tatham's ``u``) and
    ``tatham_difficulty`` (``t``, ``e``, ``n``).

    Generation (§8): a random valid grid from SAT with random phases, every cell given, then
    givens removed in a seeded random order while SAT certifies uniqueness. At Tatham's lowest
    level (``t``) a removal is kept only if unit propagation alone still solves the puzzle
    (grade 0), at ``e`` only if failed-literal probing does (grade <= 1); at ``n`` the givens are
    reduced to a minimal set.

    ## Interactive mode
    ``{"r": row, "c": col, "v": 1}`` black, ``0`` white, ``-1`` clears. Givens are fixed.

    ## Rule codes
    R1 equal black and white counts in each row and column; R2 no three consecutive cells of
    one colour; R3 givens kept; R4 (``unique`` only) rows pairwise distinct, columns pairwise
    distinct.
    """

    family = "unruly"
    title = "Unruly"
    difficulties: ClassVar[dict] = {
        "trivial": {"W": 6, "H": 6, "unique": False, "tatham_difficulty": "t"},
        "easy": {"W": 8, "H": 6, "unique": False, "tatham_difficulty": "t"},
        "normal": {"W": 8, "H": 8, "unique": False, "tatham_difficulty": "t"},
        "hard": {"W": 14, "H": 14, "unique": False, "tatham_difficulty": "t"},
    }
    param_names = ("W", "H", "unique", "tatham_difficulty", "backend")
    symbols = frozenset({BLACK, WHITE})
    state_keys = ("grid", "unique")
    empty = EMPTY

    # ---- parameters -----------------------------------------------------------------------
    def validate_params(self, params: dict) -> dict:
        p = dict(params)
        p["W"] = check_int("W", p.get("W", 8), 6, 30)
        p["H"] = check_int("H", p.get("H", p["W"]), 6, 30)
        for k in ("W", "H"):
            if p[k] % 2:
                raise ConfigError(f"Unruly {k}={p[k]} must be even (each line holds as many black cells as white)")
        p["unique"] = p.get("unique", False)
        check_choice("unique", p["unique"], [True, False])
        p["tatham_difficulty"] = p.get("tatham_difficulty", "t")
        check_choice("tatham_difficulty", p["tatham_difficulty"], list(LEVELS))
        return p

    def encode_params(self, params: dict, full: bool = True) -> str:
        s = f"{params['W']}x{params['H']}" + ("u" if params.get("unique") else "")
        return s + f"d{params.get('tatham_difficulty', 't')}" if full else s

    def decode_params(self, s: str) -> dict:
        m = re.fullmatch(r"(\d{1,2})x(\d{1,2})(u?)(?:d([a-z]))?", s.strip())
        if not m:
            raise ConfigError(f"Unruly parameter string {s!r} is not WxH[u][d<t|e|n>]")
        p = {"W": int(m.group(1)), "H": int(m.group(2)), "unique": m.group(3) == "u"}
        if m.group(4):
            check_choice("Unruly difficulty letter", m.group(4), list(LEVELS))
            p["tatham_difficulty"] = m.group(4)
        checked = self.validate_params(p)
        return {k: checked[k] for k in p}

    # ---- Tatham description (§5 "Unruly" ID) ------------------------------------------------
    def decode_game_id(self, params: dict, desc: str) -> dict:
        W, H = params["W"], params["H"]
        area = W * H
        cells = [EMPTY] * area
        pos = 0
        for ch in desc:
            if ch in "zZ":
                pos += 25
            elif "a" <= ch <= "y" or "A" <= ch <= "Y":
                pos += ord(ch.lower()) - ord("a")
                if pos < area:
                    cells[pos] = WHITE if ch.islower() else BLACK
                pos += 1
            else:
                raise ConfigError(f"unexpected character {ch!r} in the Unruly description")
            if pos > area + 1:
                raise ConfigError("the Unruly description runs past the grid")
        if pos != area + 1:
            # the encoder ends with a placement at index W*H, so the walk must stop just past it
            raise ConfigError(f"the Unruly description covers {pos - 1} cells, expected {area}")
        return {"grid": [cells[r * W:(r + 1) * W] for r in range(H)], "unique": bool(params.get("unique", False))}

    def encode_desc(self, instance: Instance) -> str:
        flat = [v for row in instance.data["state"]["grid"] for v in row] + [WHITE]  # the sentinel
        out, run = [], 0
        for v in flat:
            if v == EMPTY:
                run += 1
                continue
            while run > 24:
                out.append("z")
                run -= 25
            out.append(chr((ord("a") if v == WHITE else ord("A")) + run))
            run = 0
        return "".join(out)

    # ---- SAT ------------------------------------------------------------------------------
    @staticmethod
    def _rules(H: int, W: int, unique: bool) -> tuple[Formula, dict]:
        f = Formula()
        x = {(r, c): f.var(("black", r, c)) for r in range(H) for c in range(W)}
        for line in _lines(H, W):
            lits = [x[cell] for cell in line]
            f.exactly(lits, len(lits) // 2)  # R1
            for i in range(len(lits) - 2):  # R2: neither three black nor three white
                f.add(lits[i:i + 3])
                f.add([-v for v in lits[i:i + 3]])
        if unique:  # R4: some position differs for every pair of rows and every pair of columns
            for kind, n, m in (("row", H, W), ("col", W, H)):
                for i in range(n):
                    for j in range(i + 1, n):
                        diffs = []
                        for k in range(m):
                            a, b = (x[i, k], x[j, k]) if kind == "row" else (x[k, i], x[k, j])
                            d = f.var(("diff", kind, i, j, k))
                            f.add([-d, a, b])
                            f.add([-d, -a, -b])
                            diffs.append(d)
                        f.add(diffs)
        return f, x

    def encode(self, instance: Instance) -> Encoding:
        H, W = self.dims(instance)
        st = instance.data["state"]
        f, x = self._rules(H, W, bool(st.get("unique")))
        for (r, c), v in sorted(self.givens(instance).items()):
            f.add([x[r, c] if v == BLACK else -x[r, c]])  # R3

        def decode(true: set[int]) -> list[list]:
            return [[BLACK if x[r, c] in true else WHITE for c in range(W)] for r in range(H)]

        return Encoding(f, [x[k] for k in sorted(x)], decode, {"x": x})

    # ---- generator ------------------------------------------------------------------------
    def sample(self, rng: np.random.Generator, params: dict) -> tuple[dict, list[list]]:
        W, H, unique = params["W"], params["H"], bool(params["unique"])
        f, x = self._rules(H, W, unique)
        keys = sorted(x)
        phases = [x[k] if rng.random() < 0.5 else -x[k] for k in keys]
        model = solve(f.clauses, phases=phases)
        if model is None:
            raise ConfigError(f"no {W}x{H} Unruly grid exists")
        true = true_vars(model)
        sol = [[BLACK if x[r, c] in true else WHITE for c in range(W)] for r in range(H)]
        answer = [x[k] for k in keys]
        lit = {k: x[k] if sol[k[0]][k[1]] == BLACK else -x[k] for k in keys}
        groups = [[lit[k]] for k in keys]
        target = GRADE_TARGET.get(params["tatham_difficulty"])
        with UniquenessOracle(f.clauses, answer, [lit[k] for k in keys]) as oracle:
            if target is None:
                kept = reduce_clues(oracle.unique, groups, rng)
            else:
                prop = Propagator(f.clauses)
                try:
                    kept = reduce_clues(oracle.unique, groups, rng,
                                        acceptable=lambda lits, cl=f.clauses, av=answer, pr=prop, g=target:
                                        grade(cl, av, lits, pr) <= g)
                finally:
                    prop.close()
        on = {g[0] for g in kept}
        grid = [[sol[r][c] if lit[r, c] in on else EMPTY for c in range(W)] for r in range(H)]
        return {"grid": grid, "unique": unique}, sol

    # ---- rules ----------------------------------------------------------------------------
    def cell_values(self, instance: Instance) -> tuple:
        return (BLACK, WHITE)

    def givens(self, instance: Instance) -> dict:
        grid = instance.data["state"]["grid"]
        return {(r, c): v for r, row in enumerate(grid) for c, v in enumerate(row) if v != EMPTY}

    def rule_checks(self, instance: Instance, grid: list[list]) -> list[Check]:
        H, W = self.dims(instance)
        checks = []
        lines = _lines(H, W)
        for line in lines:
            blacks = sum(grid[r][c] == BLACK for r, c in line)
            checks.append(Check("R1", line, 2 * blacks == len(line)))
        for line in lines:
            for i in range(len(line) - 2):
                trio = line[i:i + 3]
                vals = {grid[r][c] for r, c in trio}
                checks.append(Check("R2", trio, len(vals) > 1))
        checks += [Check("R3", [(r, c)], grid[r][c] == v) for (r, c), v in sorted(self.givens(instance).items())]
        if instance.data["state"].get("unique"):
            for group in (lines[:H], lines[H:]):
                seen: dict = {}
                for line in group:
                    seen.setdefault(tuple(grid[r][c] for r, c in line), []).append(line)
                dup = [cell for same in seen.values() if len(same) > 1 for line in same for cell in line]
                checks.append(Check("R4", dup, not dup))
        return checks

    def clue_features(self, instance: Instance) -> np.ndarray:
        return np.asarray([float(bool(instance.data["state"].get("unique")))], np.float32)

    # ---- text -----------------------------------------------------------------------------
    def rules_text(self, instance: Instance) -> str:
        H, W = self.dims(instance)
        text = ("- Colour every cell black or white. In the state's grid, 1 is a black given, 0 a white given "
                "and -1 an empty cell; givens keep their colour.\n"
                f"- Each row holds exactly {W // 2} black and {W // 2} white cells, and each column exactly "
                f"{H // 2} black and {H // 2} white cells.\n"
                "- Nowhere may three cells next to each other in a row, or three cells next to each other in "
                "a column, all have the same colour.")
        if instance.data["state"].get("unique"):
            text += "\n- \"unique\" is true: no two rows may be identical, and no two columns may be identical."
        else:
            text += "\n- \"unique\" is false: rows (or columns) may repeat."
        return text

    def answer_text(self, instance: Instance) -> str:
        return "give the colour of every cell as an integer: 1 for black, 0 for white, givens included."

    def draw(self, instance: Instance, grid: list[list]) -> str:
        """Black ``#``, white ``o``, unset ``.``; givens are bracketed."""
        H, W = self.dims(instance)
        fixed = self.givens(instance)
        mark = {BLACK: "#", WHITE: "o", EMPTY: "."}
        lines = ["   " + "".join(f"{c % 10:>3}" for c in range(W))]
        for r in range(H):
            cells = "".join((f"[{mark.get(grid[r][c], '?')}]" if (r, c) in fixed else f" {mark.get(grid[r][c], '?')} ")
                            for c in range(W))
            lines.append(f"{r:>3}{cells}")
        return "\n".join(lines)
