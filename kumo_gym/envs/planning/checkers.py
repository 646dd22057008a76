"""Checker Jumping (planning spec §2.2)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...core.errors import ParseError
from ...core.instance import Instance
from ...solvers.planning import checker_moves, checker_optimal_length
from . import moves as mv
from .base import PlanningTask, bucket_presets

REASONS = ("bad_position", "wrong_color", "target_occupied", "bad_distance", "backward_move", "bad_jump")
_COLOURS = {"r": "R", "red": "R", "b": "B", "blue": "B"}


class CheckerJumpingTask(PlanningTask):
    """Checker Jumping: swap N red and N blue checkers on a one-row board of 2N + 1 cells.

    ## Description
    The board starts ``R ... R _ B ... B`` (N red checkers, one empty cell, N blue checkers)
    and must become ``B ... B _ R ... R`` (planning spec §2.2). A checker either slides into
    the adjacent empty cell or jumps over exactly one checker of the other colour into the
    empty cell behind it. Red moves only right, blue only left. The optimum is (N+1)^2 - 1
    moves (N^2 jumps and 2N slides); there are exactly two optimal solutions.

    ## Answer (``mode="answer"``, default)
    ``moves = [[checker_color, position_from, position_to], ...]`` with colours ``R``/``B``
    (``red``/``blue`` and any case are read too) and 0-based positions, e.g.
    ``moves = [["R", 0, 1], ["B", 2, 0], ["R", 1, 2]]`` for N = 1.

    ## Interactive (``mode="interactive"``)
    One move per step, e.g. ``["R", 0, 1]``. Reward 1 when the goal board is reached.

    ## Verdicts
    ``illegal_move`` reasons, in order of checking: ``bad_position``, ``wrong_color``,
    ``target_occupied``, ``bad_distance``, ``backward_move``, ``bad_jump``. Otherwise as for
    every planning env: ``solved``, ``incomplete``, ``parse_error``, ``truncated``.

    ## Arguments
    ``n`` (1..40 checkers per colour) or ``difficulty``; ``algorithm_hint`` (adds the
    construction of §2.2 to the prompt); ``stepwise``.

    ## Difficulty presets
    ``easy`` N in 1..2, ``medium`` N in 3..5, ``hard`` N in 6..12 (the paper's buckets), ``paper``
    N in 1..20, fixed ``n1``, ``n3``, ``n5``, ``n10``. Default: ``n3`` (a fixed size keeps the structured wrapper's spaces fixed).

    ## Version history
    * v0: first version.
    """

    family = "checker_jumping"
    puzzle = "Checker Jumping"
    max_n = 40
    difficulties = bucket_presets({"easy": (1, 2), "medium": (3, 5), "hard": (6, 12), "paper": (1, 20)},
                                  {"n1": 1, "n3": 3, "n5": 5, "n10": 10})
    default_difficulty = "n3"
    answer_format = "moves = [[checker_color, position_from, position_to], ...]"
    move_format = '[checker_color, position_from, position_to], e.g. ["R", 0, 1]'

    def build(self, n: int, params: dict) -> dict:
        return {"n": n, "initial": "R" * n + "_" + "B" * n, "goal": "B" * n + "_" + "R" * n}

    def initial_state(self, instance: Instance) -> str:
        return instance.data["initial"]

    def goal_state(self, instance: Instance) -> str:
        return instance.data["goal"]

    def optimal_length(self, instance: Instance) -> int:
        return checker_optimal_length(instance.data["n"])

    def solve(self, instance: Instance) -> list:
        return checker_moves(instance.data["n"])

    # ---- rules (§2.2, checks in order) ------------------------------------------------------
    def check_move(self, instance: Instance, state: str, move: list) -> str | None:
        colour, src, dst = move
        size = len(state)
        if not (0 <= src < size and 0 <= dst < size):
            return "bad_position"
        if state[src] != colour:
            return "wrong_color"
        if state[dst] != "_":
            return "target_occupied"
        if abs(dst - src) not in (1, 2):
            return "bad_distance"
        if (dst - src > 0) != (colour == "R"):
            return "backward_move"
        if abs(dst - src) == 2 and state[(src + dst) // 2] in ("_", colour):
            return "bad_jump"
        return None

    def apply(self, instance: Instance, state: str, move: list) -> str:
        colour, src, dst = move
        cells = list(state)
        cells[src], cells[dst] = "_", colour
        return "".join(cells)

    def coerce_move(self, value: Any) -> list:
        if not isinstance(value, list) or len(value) != 3 or not isinstance(value[0], str):
            raise ParseError(f"a Checker move is [color, from, to], got {str(value)[:60]}", "malformed_move")
        colour = _COLOURS.get(value[0].strip().lower())
        if colour is None:
            raise ParseError(f"checker colour {value[0][:20]!r} is not one of: R, B, red, blue", "malformed_move")
        return [colour, mv.as_int(value[1]), mv.as_int(value[2])]

    def is_single_move(self, value: Any) -> bool:
        return isinstance(value, list) and len(value) == 3 and isinstance(value[0], str)

    # ---- structured wrapper -----------------------------------------------------------------
    def move_catalog(self, instance: Instance) -> list:
        """Every forward slide and jump: R moves right, B left, by 1 or 2 cells."""
        size = 2 * instance.data["n"] + 1
        out = []
        for colour, step in (("R", 1), ("B", -1)):
            for src in range(size):
                for d in (1, 2):
                    dst = src + step * d
                    if 0 <= dst < size:
                        out.append([colour, src, dst])
        return out

    def encode_state(self, instance: Instance, state: str) -> np.ndarray:
        """One-hot (R, B, empty) of every cell: 3 (2N + 1) floats."""
        vec = np.zeros(3 * len(state), np.float32)
        for i, c in enumerate(state):
            vec[3 * i + "RB_".index(c)] = 1.0
        return vec

    def legal_moves(self, instance: Instance, state: str) -> list:
        empty = state.index("_")
        out = []
        for src in (empty - 2, empty - 1, empty + 1, empty + 2):
            if 0 <= src < len(state) and state[src] != "_":
                m = [state[src], src, empty]
                if self.check_move(instance, state, m) is None:
                    out.append(m)
        return out

    def cells(self, instance: Instance, state: str) -> list[list[int]]:
        return [[{"R": 2, "B": 3, "_": 0}[c] for c in state], [1] * len(state)]

    # ---- text -------------------------------------------------------------------------------
    def rules(self, instance: Instance) -> str:
        return ("You are solving a Checker Jumping puzzle. A single row of cells holds red checkers (R), "
                "blue checkers (B) and one empty cell (_). Positions are numbered from 0 at the left. Rules:\n"
                "1. A checker may slide into the empty cell when it is right next to it.\n"
                "2. A checker may jump over exactly one checker of the other colour into the empty cell "
                "just behind it.\n"
                "3. Red checkers only move to the right and blue checkers only move to the left; no "
                "checker ever moves backwards.\n"
                "4. Jumping over a checker of the same colour is not allowed.\n"
                "Each move is written [checker_color, position_from, position_to].")

    def example(self) -> tuple[str, list]:
        return ("With one checker of each colour the board R _ B must become B _ R.",
                [["R", 0, 1], ["B", 2, 0], ["R", 1, 2]])

    def render_state(self, instance: Instance, state: str) -> str:
        return " ".join(state)

    def describe(self, instance: Instance) -> str:
        n = instance.data["n"]
        return (f"There are {n} red and {n} blue checkers on a board of {2 * n + 1} cells.\n"
                f"Initial board: {self.render_state(instance, self.initial_state(instance))}\n"
                f"Goal board:    {self.render_state(instance, self.goal_state(instance))}\n"
                "Find the shortest sequence of moves from the initial board to the goal board.")

    def algorithm_hint(self, instance: Instance) -> str:
        n = instance.data["n"]
        return ("A procedure that solves the puzzle optimally. Make groups of moves whose sizes are "
                f"1, 2, ..., {n}, then {n} once more, then {n}, ..., 2, 1 again. The groups alternate in colour, "
                "starting with red. Within a group, repeatedly move a checker of that colour into the empty "
                "cell: jump when a jump into it is legal, otherwise slide.")
