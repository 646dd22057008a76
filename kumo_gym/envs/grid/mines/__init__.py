"""Mines (Minesweeper; Tatham's ``mines``; docs/grid.md "Mines"). Game IDs: ``codec.py``; the
deduction model, the no-guess oracle and the generator: ``deduce.py``."""
from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

import numpy as np

from ....core.errors import ConfigError, ParseError
from ....core.instance import Instance
from ....core.params import param
from ....core.task import Transition
from ....solvers.engine import Encoding
from ....solvers.sat import Formula
from ..base import Check, GridParams, GridTask, presets
from ..geometry import neighbours8
from ..play import SUBMIT
from ..render import Sketch
from . import codec, deduce
from .claims import RULES as CLAIM_RULES

MINE, SAFE, HIDDEN = "*", ".", -1
#: what a cell of the interactive board shows besides its number once opened
COVERED, FLAG = "?", "F"
#: the three moves of interactive play, as written in a move's "v"
OPEN = "O"
_MOVE_WORDS = {"OPEN": OPEN, "O": OPEN, "FLAG": FLAG, "F": FLAG, "UNFLAG": COVERED, "?": COVERED}
_MOVE_NAMES = {OPEN: "open", FLAG: "flag", COVERED: "unflag"}


@dataclasses.dataclass(frozen=True)
class MinesParams(GridParams.with_size(9, 3, 30)):
    n: int = param(10, lo=1, hi=891, doc="mines (at most W*H - 9: the first click's 3x3 block holds none)")

    def check(self):
        out = super().check()
        if out.n > out.W * out.H - 9:
            raise ConfigError(f"Mines n={out.n} does not fit a {out.W}x{out.H} grid: at most {out.W * out.H - 9} mines "
                              "(the first click's 3x3 block holds none)")
        return out


class MinesTask(GridTask):
    """Mines (Minesweeper, as Tatham makes it): find every mine without guessing.

    ## Description
    Some cells of a grid hide mines. An opened cell shows how many of its up to eight neighbours
    hold one. Tatham's boards need no guess: from the first opening (a zero, so it opens an area),
    every cell can be proved safe or mined from what is shown and the total count. Our oracle
    (``mines/deduce.py``) plays each board that way, opening only cells it has proved safe; its
    deduction is complete (local rules, then a SAT backbone over the frontier with the count).

    ## Answer
    The answer mode shows the first opening and the numbers the oracle's deduction of the board
    needs (``deduce.answer_view``: the oracle opens every cell it has proved safe and records which
    numbers each deduction was made from; going back from the last deduction, those of every
    deduction that decides a cell left covered are shown), certified to fix every mine with the
    count: ``grid`` holds the numbers of opened cells and -1 for covered ones, ``mines`` the count,
    ``start`` the first click. The answer is a JSON array of H rows of W strings, ``"*"`` for a
    mine and ``"."`` for a safe cell; it is unique and any grid meeting the rules scores 1.

    ## Generation
    Our own generator, Tatham's method: mines drawn at random off the first click's 3x3 block,
    then, wherever the oracle gets stuck, a mine on the frontier moves to an undecided cell and the
    oracle goes on, until it solves the whole board from the first click (a complete game from the
    first click is the certificate). Tatham's IDs import the same way and are refused if they need
    a guess.

    ## Version history
    * v0 (2026-12-06, before the first release): the answer view is the numbers the oracle's
      deduction needs, read off its log (about 228 of 381 safe cells shown at Normal, 136 of 216
      at Easy), instead of a minimal view found by covering cells again while a uniqueness test
      passed (about 152 and 94), which took 85 ms a board at Normal; the generator draws its
      moves from uniform numbers drawn once per layout, so a seed gives another layout than before.

    ## Interactive mode
    The game itself, from the first opening: one move per step, ``{"r": row, "c": col, "v": "open"}``
    to open a covered cell (a zero opens its neighbours, as in Tatham's), ``"flag"`` to flag one and
    ``"unflag"`` to take the flag off. The observation shows only what is opened (numbers), ``?`` for
    covered cells and ``F`` for flags. Opening a mine ends the episode with reward 0; opening every
    safe cell wins (flags are optional). The golden trajectory is the oracle's: the fewest openings
    it can prove safe one after another (zeros first); ``optimal_steps`` is its length.
    """

    Params = MinesParams
    claim_rules = CLAIM_RULES
    difficulties = presets("W H n", (9, 9, 10), (16, 16, 40), (30, 16, 99), (16, 16, 99))
    rule_codes = """
        R1 an opened cell holds no mine
        R2 every opened cell's number equals the mines among its up to eight neighbours
        R3 the grid holds exactly the given number of mines
    """
    rules_prompt = """
        - Some covered cells hide mines; there are exactly {mines} mines in all.
        - An opened cell (a number in grid; -1 marks a covered cell) holds no mine, and its number counts the
          mines among its up to eight neighbours (diagonal ones included).
        - start is the cell [row, column] opened first.
    """
    answer_prompt = """
        mark every cell: "*" for a mine, "." for a cell without one (every opened cell is ".").
    """
    symbols = frozenset({MINE, SAFE})
    state_keys = ("grid", "mines", "start")
    empty = SAFE
    partial_credit: ClassVar[str] = GridTask.partial_credit

    # ---- the answer mode's rules ----------------------------------------------------------
    def givens(self, instance: Instance) -> dict:
        return {(r, c): SAFE for r, row in enumerate(instance.data["state"]["grid"])
                for c, v in enumerate(row) if v != HIDDEN}

    def rule_checks(self, instance: Instance, grid: list[list]) -> list[Check]:
        st = instance.data["state"]
        H, W = self.dims(instance)
        checks = []
        for r, row in enumerate(st["grid"]):
            for c, k in enumerate(row):
                if k != HIDDEN:
                    checks.append(Check("R1", [(r, c)], grid[r][c] != MINE))
                    around = [(a, b) for a, b in neighbours8(r, c, H, W) if grid[a][b] == MINE]
                    checks.append(Check("R2", [(r, c)], len(around) == k))
        total = sum(v == MINE for row in grid for v in row)
        return checks + [Check("R3", [(0, 0)], total == st["mines"])]

    def encode(self, state: dict) -> Encoding:
        """One formula per grid size: a mine variable per cell, a counter over every cell's
        neighbours and one over the grid; the opened cells and the count are assumptions."""
        grid = state["grid"]
        H, W = len(grid), len(grid[0])
        enc = self.layout((H, W), lambda: self._rules(H, W))
        mine, around, total = (enc.extra[k] for k in ("mine", "around", "total"))
        clues: dict = {}
        for r, row in enumerate(grid):
            for c, k in enumerate(row):
                if k != HIDDEN:
                    clues[("open", r, c)] = ("R1", (-int(mine[r, c]),))
                    clues[("number", r, c)] = ("R2", tuple(around[r][c].eq(int(k))))
        clues[("total",)] = ("R3", tuple(total.eq(int(state["mines"]))))
        return enc.with_clues(clues, decode=lambda value: np.where(value[mine] > 0, MINE, SAFE).tolist())

    @staticmethod
    def _rules(H: int, W: int) -> Encoding:
        f = Formula()
        mine = f.grid("mine", H, W)
        around = [[f.count([int(mine[a, b]) for a, b in neighbours8(r, c, H, W)]) for c in range(W)] for r in range(H)]
        total = f.count(mine.ravel().tolist())
        return Encoding(f, mine.ravel(), None, extra={"mine": mine, "around": around, "total": total})

    def sample(self, rng: np.random.Generator, params: dict) -> tuple[dict, list[list]]:
        """The first click as Tatham draws it (column, then row), then ``deduce.generate``."""
        W, H, n = params["W"], params["H"], params["n"]
        c, r = int(rng.integers(W)), int(rng.integers(H))
        mines, view = deduce.generate(rng, H, W, n, r * W + c)
        state = codec.view_state(W, H, (r, c), mines, view)
        codec.remember(state, mines)
        return state, self._layout_grid(H, W, mines)

    @staticmethod
    def _layout_grid(H: int, W: int, mines: list[bool]) -> list[list]:
        return [[MINE if mines[r * W + c] else SAFE for c in range(W)] for r in range(H)]

    def clue_count(self, instance: Instance) -> int:
        return len(self.givens(instance))  # the opened cells

    def clue_features(self, instance: Instance) -> np.ndarray:
        return np.asarray([instance.data["state"]["mines"]], np.float32)

    def sketch(self, instance: Instance, grid: list[list]) -> Sketch:
        """The board: opened numbers (from the puzzle), and the grid's own marks: ``*`` a mine (or a
        flag, ``F``), ``?`` a covered cell."""
        shown = instance.data["state"]["grid"]
        text, fill = [], []
        for r, row in enumerate(grid):
            text.append([])
            fill.append([])
            for c, v in enumerate(row):
                if isinstance(v, int):
                    label = str(v)
                elif v == SAFE and shown[r][c] != HIDDEN:
                    label = str(shown[r][c])
                else:
                    label = str(v)
                text[-1].append(label)
                fill[-1].append({MINE: "red", FLAG: "orange", COVERED: "gray"}.get(label))
        return Sketch(len(grid), len(grid[0]) if grid else 0, text, fill)

    # ---- interactive play: the game, with the layout hidden ------------------------------
    def _board(self, instance: Instance) -> tuple[int, int, list[bool], int]:
        H, W = self.dims(instance)
        sol = self.solve(instance)
        r, c = instance.data["state"]["start"]
        return H, W, [v == MINE for row in sol for v in row], r * W + c

    def initial_state(self, instance: Instance) -> tuple:
        H, W, mines, start = self._board(instance)
        shown: dict[int, int] = {}
        deduce.flood(H, W, mines, deduce.numbers(H, W, mines), start, shown)
        return tuple(tuple(shown.get(r * W + c, COVERED) for c in range(W)) for r in range(H))

    def move_values(self, instance: Instance) -> tuple:
        return (OPEN, FLAG, COVERED)

    def parse_move(self, text: str) -> tuple:
        move = super().parse_move(text)
        if move == SUBMIT:
            return move
        r, c, v = move
        word = _MOVE_WORDS.get(v) if isinstance(v, str) else None
        if word is None:
            raise ParseError(f"'v' must be \"open\", \"flag\" or \"unflag\", got {str(v)[:20]!r}", "malformed_move")
        return (r, c, word)

    def format_move(self, move: tuple) -> str:
        return super().format_move(move if move == SUBMIT else (*move[:2], _MOVE_NAMES.get(move[2], move[2])))

    def check_move(self, instance: Instance, state: Any, move: tuple) -> str | None:
        return None if move == SUBMIT else self._move_problem(state, *self.dims(instance), *move)

    @staticmethod
    def _move_problem(state: Any, H: int, W: int, r: int, c: int, v: str) -> str | None:
        """Why the move (r, c, v) cannot be played on the board ``state``, or None."""
        if r < 0 or c < 0 or r >= H or c >= W:
            return f"cell ({r}, {c}) is outside the {H}x{W} grid"
        if v not in _MOVE_NAMES:
            return f"{str(v)[:20]!r} is not one of: open, flag, unflag"
        here = state[r][c]
        if here not in (COVERED, FLAG):
            return f"cell ({r}, {c}) is already open"
        if v == OPEN and here == FLAG:
            return f"cell ({r}, {c}) is flagged: unflag it before opening it"
        if v == FLAG and here == FLAG:
            return f"cell ({r}, {c}) is already flagged"
        if v == COVERED and here != FLAG:
            return f"cell ({r}, {c}) has no flag to take off"
        return None

    def apply(self, instance: Instance, state: Any, move: tuple) -> tuple:
        r, c, v = move
        H, W, mines, _ = self._board(instance)
        rows = [list(row) for row in state]
        if v != OPEN:
            rows[r][c] = v
        elif mines[r * W + c]:
            rows[r][c] = MINE
        else:
            shown = {i * W + j: x for i, row in enumerate(rows) for j, x in enumerate(row) if isinstance(x, int)}
            for i in deduce.flood(H, W, mines, deduce.numbers(H, W, mines), r * W + c, shown):
                rows[i // W][i % W] = shown[i]
        return tuple(tuple(row) for row in rows)

    def is_goal(self, instance: Instance, state: Any) -> bool:
        _, _W, mines, _ = self._board(instance)
        return all(isinstance(v, int) for i, v in enumerate(x for row in state for x in row) if not mines[i])

    def transition(self, instance: Instance, state: Any, move: tuple) -> Transition:
        if move == SUBMIT:
            if self.is_goal(instance, state):
                return Transition(state, "solved", "Solved: every safe cell is open.", reward=1.0)
            return Transition(state, "wrong", "Submitted before every safe cell was open.", details={"score": 0.0})
        t = self.checked_step(instance, state, move, solved="Solved: every safe cell is open.")
        if t.status == "illegal_move":
            return t
        r, c, v = move
        is_mine = self.solve(instance)[r][c] == MINE
        if v == OPEN and is_mine:
            return Transition(t.state, "wrong", f"Cell ({r}, {c}) held a mine: the episode ends.",
                              details={"score": 0.0, "move_matches_solution": False})
        t.details["move_matches_solution"] = (v == OPEN and not is_mine) or (v == FLAG and is_mine) or \
            (v == COVERED and not is_mine)
        return t

    def legal_moves(self, instance: Instance, state: Any) -> list[tuple]:
        return [m for m in self.move_catalog(instance) if self.check_move(instance, state, m) is None]

    def golden_moves(self, instance: Instance) -> list[tuple]:
        """The oracle's openings (``deduce.play``): each proved safe from what is open before it.
        Played once per instance (every step's info asks for their number)."""
        cached = self._golden
        if cached is None or cached[0] is not instance:
            H, W, mines, start = self._board(instance)
            cached = self._golden = (instance, [(i // W, i % W, OPEN) for i in deduce.play(H, W, mines, start).moves])
        return list(cached[1])

    #: the last instance whose golden moves were played, with them (one attribute: threads sharing
    #: the task never see one instance's moves under another)
    _golden: tuple[Instance, list[tuple]] | None = None

    def optimal_steps(self, instance: Instance) -> int | None:
        return len(self.golden_moves(instance))

    def moves_to(self, instance: Instance, grid: list[list]) -> list[tuple]:
        """Flag the grid's mines and open its other covered cells (cheap strategies, tests)."""
        start = self.initial_state(instance)
        return [(r, c, FLAG if v == MINE else OPEN) for r, row in enumerate(grid) for c, v in enumerate(row)
                if start[r][c] == COVERED]

    def fixed_move(self, instance: Instance) -> tuple | None:
        r, c = instance.data["state"]["start"]
        return (r, c, FLAG)

    def state_answer(self, instance: Instance, state: Any) -> list[list]:
        return [[MINE if v in (FLAG, MINE) else SAFE for v in row] for row in state]

    def render_state(self, instance: Instance, state: Any) -> str:
        return "\n".join(" ".join(str(v) for v in row) for row in state)

    def interactive_prompt(self, instance: Instance) -> str:
        H, W = self.dims(instance)
        n = instance.data["state"]["mines"]
        return (f"You are playing Mines (Minesweeper) on a grid of {H} rows and {W} columns, one move at a time.\n\n"
                f"Rules:\n- {n} of the covered cells hide mines. An opened cell shows how many of its up to eight "
                "neighbours (diagonal ones included) hold a mine; opening a 0 also opens its neighbours.\n"
                "- Opening a mine ends the game and scores 0. Opening every cell without a mine wins.\n"
                "- The board can be cleared without guessing: every cell can be proved safe or mined from the "
                "numbers shown and the mine count.\n\n"
                'Each turn, reply with one move as JSON: {"r": row, "c": column, "v": "open"} opens a covered cell, '
                '"flag" flags it, "unflag" takes a flag off; rows and columns are numbered from 0.\n\n'
                'The board so far ("?" covered, "F" flagged, numbers opened):')

    def encode_state(self, instance: Instance, state: Any) -> np.ndarray:
        """One-hot per cell: covered, flagged, exploded, opened 0..8 (float32)."""
        H, W = self.dims(instance)
        out = np.zeros((H, W, 12), np.float32)
        for r in range(H):
            for c in range(W):
                v = state[r][c]
                out[r, c, {COVERED: 0, FLAG: 1, MINE: 2}.get(v, 3 + v if isinstance(v, int) else 0)] = 1.0
        return out.ravel()

    def state_bounds(self, instance: Instance) -> tuple[float, float]:
        return 0.0, 1.0
