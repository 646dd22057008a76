"""Light Up (grid_puzzles.md §5 "Lightup"; Tatham's ``lightup``)."""
from __future__ import annotations

import re
from typing import ClassVar

import numpy as np

from ...core.errors import ConfigError, check_choice, check_int
from ...core.instance import Instance
from ...solvers.sat import Formula, Propagator, UniquenessOracle, grade, solve, true_vars
from .base import Check, Encoding, GridTask, neighbours4, reduce_clues
from .tatham import decode_chargrid, encode_chargrid

LIGHT, DARK, BLOCK = "L", ".", "#"
NUMBERS = ("0", "1", "2", "3", "4")
#: Tatham's symmetry codes (the ``s`` parameter)
SYMMETRY = {0: "none", 1: "mirror left-right", 2: "rotate 180", 3: "mirror both ways", 4: "rotate 90"}
LEVELS = {0: "Easy", 1: "Tricky", 2: "Hard"}
#: the §8 grade a number removal must keep, per level (level 2 reduces to a minimal set)
GRADE_TARGET = {0: 0, 1: 1}


def segments(grid: list[list[str]]) -> list[list[tuple[int, int]]]:
    """The maximal runs of white cells, along rows then along columns (single cells included)."""
    H, W = len(grid), len(grid[0])
    out = []
    for lines in ([[(r, c) for c in range(W)] for r in range(H)], [[(r, c) for r in range(H)] for c in range(W)]):
        for line in lines:
            run: list = []
            for cell in line:
                if grid[cell[0]][cell[1]] == DARK:
                    run.append(cell)
                elif run:
                    out.append(run)
                    run = []
            if run:
                out.append(run)
    return out


def _orbit(r: int, c: int, H: int, W: int, symm: int) -> list[tuple[int, int]]:
    cells = {(r, c)}
    if symm in (1, 3):
        cells.add((r, W - 1 - c))
    if symm in (2, 3, 4):
        cells.add((H - 1 - r, W - 1 - c))
    if symm == 3:
        cells.add((H - 1 - r, c))
    if symm == 4:
        cells |= {(c, W - 1 - r), (W - 1 - c, r)}
    return sorted(cells)


class LightupTask(GridTask):
    """Light Up: place lights so every white cell is lit and no light shines on another.

    ## Description
    The grid has white and black cells; some black cells carry a number 0-4. Put lights on white
    cells. A light illuminates its own cell and every white cell along its row and column up to
    the nearest black cell or the edge. Every white cell must be lit, no light may be lit by
    another light, and a numbered black cell has exactly that many lights directly above, below,
    left or right of it. grid_puzzles.md §5, Tatham's *Light Up*.

    ## Answer
    A JSON array of H rows of W strings: ``"L"`` a light, ``"."`` an unlit-by-choice white cell;
    black cells are copied (``"#"`` or their number), though any symbol other than ``"L"`` is
    accepted on a black cell. Any valid placement scores 1.

    ## Presets
    ``trivial`` 3x3b20s4d0, ``easy`` 5x5b20s4d0, ``normal`` 7x7b20s4d0, ``hard`` 14x14b20s2d0
    (the paper's Table 7, read as intended). Explicit parameters: ``W``, ``H`` (2..30),
    ``black_percent`` (5..100), ``symmetry`` (0 none, 1 left-right mirror, 2 half turn, 3 both
    mirrors, 4 quarter turn; 3 and 4 need a square grid for 4) and ``tatham_difficulty`` (0, 1, 2).

    Generation (§8): black cells at the given density and symmetry, a random maximal set of
    non-attacking lights (SAT with random phases), every black cell numbered, then numbers removed
    in a seeded random order while SAT certifies uniqueness. At level 0 the puzzle must stay
    solvable by unit propagation alone (grade 0), at level 1 by failed-literal probing (grade
    <= 1); level 2 reduces to a minimal set. As in Tatham's generator, a layout that fails even
    with every number shown is redrawn, and every 20 failures raise the black density by 5 %
    (this keeps the number count within about 15 % of Tatham's).

    ## Interactive mode
    ``{"r": row, "c": col, "v": "L"}`` places a light, ``"."`` removes it. Black cells are fixed.

    ## Rule codes
    R1 lights only on white cells and white cells hold "L" or "."; R2 every white cell is lit;
    R3 at most one light in each maximal white row or column segment; R4 number clues.
    """

    family = "lightup"
    title = "Light Up"
    difficulties: ClassVar[dict] = {
        "trivial": {"W": 3, "H": 3, "black_percent": 20, "symmetry": 4, "tatham_difficulty": 0},
        "easy": {"W": 5, "H": 5, "black_percent": 20, "symmetry": 4, "tatham_difficulty": 0},
        "normal": {"W": 7, "H": 7, "black_percent": 20, "symmetry": 4, "tatham_difficulty": 0},
        "hard": {"W": 14, "H": 14, "black_percent": 20, "symmetry": 2, "tatham_difficulty": 0},
    }
    param_names = ("W", "H", "black_percent", "symmetry", "tatham_difficulty", "backend")
    symbols = frozenset({LIGHT, DARK, BLOCK, 0, 1, 2, 3, 4})
    state_keys = ("grid",)
    empty = DARK

    # ---- parameters -----------------------------------------------------------------------
    def validate_params(self, params: dict) -> dict:
        p = dict(params)
        p["W"] = check_int("W", p.get("W", 7), 2, 30)
        p["H"] = check_int("H", p.get("H", p["W"]), 2, 30)
        p["black_percent"] = check_int("black_percent", p.get("black_percent", 20), 5, 100)
        p["symmetry"] = check_int("symmetry", p.get("symmetry", 4 if p["W"] == p["H"] else 2), 0, 4)
        if p["symmetry"] == 4 and p["W"] != p["H"]:
            raise ConfigError(f"symmetry=4 (quarter turn) needs a square grid, got {p['W']}x{p['H']}")
        p["tatham_difficulty"] = p.get("tatham_difficulty", 0)
        check_choice("tatham_difficulty", p["tatham_difficulty"], list(LEVELS))
        return p

    def encode_params(self, params: dict, full: bool = True) -> str:
        s = f"{params['W']}x{params['H']}"
        if not full:
            return s
        # Tatham's defaults fill fields an ID's params leave out (quarter turn only when square)
        symm = params.get("symmetry", 4 if params["W"] == params["H"] else 2)
        return s + f"b{params.get('black_percent', 20)}s{symm}d{params.get('tatham_difficulty', 0)}"

    def decode_params(self, s: str) -> dict:
        m = re.fullmatch(r"(\d{1,3})(?:x(\d{1,3}))?(?:b(\d{1,3}))?(?:s(\d))?(?:d(\d))?", s.strip())
        if not m:
            raise ConfigError(f"Light Up parameter string {s!r} is not WxH[b<percent>][s<symmetry>][d<level>]")
        W = check_int("Light Up width", int(m.group(1)), 2, 30)
        H = check_int("Light Up height", int(m.group(2) or m.group(1)), 2, 30)
        p = {"W": W, "H": H}
        if m.group(3):
            p["black_percent"] = check_int("Light Up black percentage", int(m.group(3)), 5, 100)
        if m.group(4):
            p["symmetry"] = check_int("Light Up symmetry", int(m.group(4)), 0, 4)
        if m.group(5):
            p["tatham_difficulty"] = int(m.group(5))
            check_choice("Light Up difficulty", p["tatham_difficulty"], list(LEVELS))
        return p

    # ---- Tatham description: CHARGRID of B and 0-4 ------------------------------------------
    def decode_game_id(self, params: dict, desc: str) -> dict:
        W, H = params["W"], params["H"]
        cells = decode_chargrid(desc, W * H, "B01234", empty=DARK)
        cells = [BLOCK if ch == "B" else ch for ch in cells]
        return {"grid": [cells[r * W:(r + 1) * W] for r in range(H)]}

    def encode_desc(self, instance: Instance) -> str:
        return encode_chargrid(["B" if v == BLOCK else v for row in instance.data["state"]["grid"] for v in row],
                               empty=DARK)

    # ---- SAT ------------------------------------------------------------------------------
    @staticmethod
    def _encode(grid: list[list[str]], numbers: dict, guarded: bool = False):
        H, W = len(grid), len(grid[0])
        f = Formula()
        x = {(r, c): f.var(("light", r, c)) for r in range(H) for c in range(W) if grid[r][c] == DARK}
        seen: dict = {cell: [] for cell in x}
        for seg in segments(grid):
            lits = [x[cell] for cell in seg]
            f.at_most(lits, 1)  # R3
            for cell in seg:
                seen[cell].extend(lits)
        for cell in sorted(x):  # R2: some light in the cell's row or column segment
            f.add(sorted(set(seen[cell])))
        sel = {}
        for (r, c), k in sorted(numbers.items()):
            if guarded:
                sel[r, c] = f.var(("clue", r, c))
            adj = [x[n] for n in neighbours4(r, c, H, W) if n in x]
            f.exactly(adj, k, guard=sel.get((r, c)))  # R4
        return f, x, sel

    def encode(self, instance: Instance) -> Encoding:
        H, W = self.dims(instance)
        grid = instance.data["state"]["grid"]
        numbers = {(r, c): int(v) for r in range(H) for c in range(W) if (v := grid[r][c]) in NUMBERS}
        f, x, _ = self._encode(grid, numbers)

        def decode(true: set[int]) -> list[list]:
            return [[self._black_answer(grid[r][c]) if (r, c) not in x else (LIGHT if x[r, c] in true else DARK)
                     for c in range(W)] for r in range(H)]

        return Encoding(f, [x[k] for k in sorted(x)], decode, {"x": x})

    @staticmethod
    def _black_answer(v: str):
        """A black cell as written in the answer: ``"#"`` or its number (numbers normalise to ints)."""
        return BLOCK if v == BLOCK else int(v)

    # ---- generator ------------------------------------------------------------------------
    def sample(self, rng: np.random.Generator, params: dict) -> tuple[dict, list[list]]:
        W, H = params["W"], params["H"]
        percent = params["black_percent"]
        for attempt in range(400):
            if attempt and attempt % 20 == 0 and percent < 90:
                # as Tatham's generator does: 20 failed layouts in a row raise the density by 5 %
                percent += 5
            blocks = self._black_layout(rng, H, W, params["symmetry"], W * H * percent // 100)
            grid = [[BLOCK if (r, c) in blocks else DARK for c in range(W)] for r in range(H)]
            f, x, _ = self._encode(grid, {})
            keys = sorted(x)
            if not keys:
                continue
            model = solve(f.clauses, phases=[x[k] if rng.random() < 0.5 else -x[k] for k in keys])
            if model is None:
                continue
            true = true_vars(model)
            lights = {k for k in keys if x[k] in true}
            full = {b: sum(n in lights for n in neighbours4(b[0], b[1], H, W)) for b in sorted(blocks)}
            f, x, sel = self._encode(grid, full, guarded=True)
            answer = [x[k] for k in keys]
            lit = [x[k] if k in lights else -x[k] for k in keys]
            groups = [[sel[b]] for b in sorted(sel)]
            with UniquenessOracle(f.clauses, answer, lit) as oracle:
                every = [g[0] for g in groups]
                if not oracle.unique(every):
                    continue  # not pinned down even with every number: new layout
                target = GRADE_TARGET.get(params["tatham_difficulty"])
                if target is not None:
                    prop = Propagator(f.clauses)
                    try:
                        if grade(f.clauses, answer, every, prop) > target:
                            continue
                        kept = reduce_clues(oracle.unique, groups, rng,
                                            acceptable=lambda lits, cl=f.clauses, av=answer, pr=prop, g=target:
                                            grade(cl, av, lits, pr) <= g)
                    finally:
                        prop.close()
                else:
                    kept = reduce_clues(oracle.unique, groups, rng)
            on = {g[0] for g in kept}
            state = [[(str(full[r, c]) if sel[r, c] in on else BLOCK) if (r, c) in blocks else DARK
                      for c in range(W)] for r in range(H)]
            sol = [[self._black_answer(state[r][c]) if (r, c) in blocks else (LIGHT if (r, c) in lights else DARK)
                    for c in range(W)] for r in range(H)]
            return {"grid": state}, sol
        raise ConfigError(f"could not generate a unique {W}x{H} Light Up puzzle")

    @staticmethod
    def _black_layout(rng, H: int, W: int, symm: int, target: int) -> set:
        # whole symmetry orbits, skipping any that would overshoot the target count
        blocks: set = set()
        for idx in rng.permutation(W * H):
            r, c = divmod(int(idx), W)
            orbit = set(_orbit(r, c, H, W, symm))
            if len(blocks | orbit) <= target:
                blocks |= orbit
        return blocks

    # ---- rules ----------------------------------------------------------------------------
    def cell_values(self, instance: Instance) -> tuple:
        return (DARK, LIGHT, BLOCK, 0, 1, 2, 3, 4)

    def move_values(self, instance: Instance) -> tuple:
        return (DARK, LIGHT)

    def givens(self, instance: Instance) -> dict:
        grid = instance.data["state"]["grid"]
        return {(r, c): self._black_answer(v) for r, row in enumerate(grid) for c, v in enumerate(row) if v != DARK}

    def single_cell_corruptions(self, instance, answer):
        """As the base, minus the relabellings of a black cell that keep it light-free (the
        answer may hold any non-light symbol there, so those are not different answers)."""
        grid = instance.data["state"]["grid"]
        for (r, c), v, bad in super().single_cell_corruptions(instance, answer):
            if grid[r][c] != DARK and v != LIGHT and answer[r][c] != LIGHT:
                continue
            yield (r, c), v, bad

    def rule_checks(self, instance: Instance, grid: list[list]) -> list[Check]:
        H, W = self.dims(instance)
        st = instance.data["state"]["grid"]
        # a light on a black cell, or a black-cell symbol on a white cell
        misplaced = [(r, c) for r in range(H) for c in range(W)
                     if (grid[r][c] == LIGHT if st[r][c] != DARK else grid[r][c] not in (LIGHT, DARK))]
        checks = [Check("R1", misplaced, not misplaced)]
        segs = segments(st)
        lit = set()
        for seg in segs:
            on = [(r, c) for r, c in seg if grid[r][c] == LIGHT]
            if on:
                lit.update(seg)
            checks.append(Check("R3", on, len(on) <= 1))
        for r in range(H):
            for c in range(W):
                if st[r][c] == DARK:
                    checks.append(Check("R2", [(r, c)], (r, c) in lit))
                elif st[r][c] in NUMBERS:
                    adj = list(neighbours4(r, c, H, W))
                    n = sum(grid[a][b] == LIGHT for a, b in adj)
                    checks.append(Check("R4", [(r, c)] + adj, n == int(st[r][c])))
        return checks

    def clue_count(self, instance: Instance) -> int:
        return sum(v in NUMBERS for row in instance.data["state"]["grid"] for v in row)

    def clue_features(self, instance: Instance) -> np.ndarray:
        """Per cell: 0 white, 1 unnumbered black, 2 + n for a black cell numbered n (non-negative
        so the structured view's bounds hold)."""
        code = {DARK: 0.0, BLOCK: 1.0}
        return np.asarray([code[v] if v in code else 2.0 + int(v)
                           for row in instance.data["state"]["grid"] for v in row], np.float32)

    # ---- text -----------------------------------------------------------------------------
    def rules_text(self, instance: Instance) -> str:
        return ("- In the state's grid, \".\" is a white cell, \"#\" a black cell and a digit \"0\" to \"4\" a black "
                "cell with a number.\n"
                "- Place lights on white cells only. A light shines on its own cell and along its row and its "
                "column in all four directions, stopping at the first black cell or the edge of the grid.\n"
                "- Every white cell must be lit by at least one light.\n"
                "- No light may shine on another light: two lights never share a row or column stretch that has "
                "no black cell between them.\n"
                "- A black cell with a number has exactly that many lights in the cells directly above, below, "
                "left and right of it. Black cells without a number have no such limit.")

    def answer_text(self, instance: Instance) -> str:
        return ('give every cell of the grid: "L" for a light, "." for a white cell without a light, and copy '
                'each black cell as it is ("#" or its number).')

    def draw(self, instance: Instance, grid: list[list]) -> str:
        """White cells ``.`` (``L`` light, ``+`` lit by a light), black ``#`` or their number."""
        H, W = self.dims(instance)
        st = instance.data["state"]["grid"]
        lit = set()
        for seg in segments(st):
            if any(grid[r][c] == LIGHT for r, c in seg):
                lit.update(seg)
        lines = ["   " + "".join(f"{c % 10:>2}" for c in range(W))]
        for r in range(H):
            row = []
            for c in range(W):
                if st[r][c] != DARK:
                    row.append(st[r][c])
                elif grid[r][c] == LIGHT:
                    row.append(LIGHT)
                else:
                    row.append("+" if (r, c) in lit else ".")
            lines.append(f"{r:>3} " + " ".join(row))
        return "\n".join(lines)
