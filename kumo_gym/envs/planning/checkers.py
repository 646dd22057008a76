"""Checker Jumping (docs/specs/planning.md §2.2)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...core.errors import ConfigError, ParseError
from ...core.instance import Instance
from ...core.params import param
from ...core.task import rule_table
from .. import raster
from . import moves as mv
from .base import BACKGROUND, GROUND, PlanningParams, PlanningTask, bucket_presets
from .search.checkers import (
    checker_board,
    checker_distance,
    checker_goal,
    checker_moves,
    checker_optimal_length,
    checker_path,
    checker_scrambled,
)

CHECKER_COLOURS = {"R": (214, 39, 40), "B": (31, 119, 180)}

_COLOURS = {"r": "R", "red": "R", "b": "B", "blue": "B"}


@dataclass(frozen=True)
class CheckerParams(PlanningParams):
    n: int | None = param(None, kind=int, lo=1, hi=40, doc="checkers per colour N (the board has 2N + 1 cells)")


class CheckerJumpingTask(PlanningTask):
    """Checker Jumping: swap N red and N blue checkers on a one-row board of 2N + 1 cells.

    ## Description
    The board starts ``R ... R _ B ... B`` (N red checkers, one empty cell, N blue checkers)
    and must become ``B ... B _ R ... R`` (docs/specs/planning.md §2.2). A checker either slides into
    the adjacent empty cell or jumps over exactly one checker of the other colour into the
    empty cell behind it. Red moves only right, blue only left. The optimum is (N+1)^2 - 1
    moves (N^2 jumps and 2N slides); there are exactly two optimal solutions. With
    ``start="random"`` the start is a random board from which the goal is exactly L moves away,
    L drawn from half the canonical optimum to all of it (found by undoing moves from the goal
    in random order): exact because every move is forward, so every completion has one length.

    ## Answer (``mode="answer"``, default)
    ``moves = [[checker_color, position_from, position_to], ...]`` with colours ``R``/``B``
    (``red``/``blue`` and any case are read too) and 0-based positions, e.g.
    ``moves = [["R", 0, 1], ["B", 2, 0], ["R", 1, 2]]`` for N = 1.

    ## Interactive (``mode="interactive"``)
    One move per step, e.g. ``["R", 0, 1]``. Reward 1 when the goal board is reached.

    ## Verdicts
    ``illegal_move`` names the broken rule (below); otherwise as for every planning env:
    ``solved``, ``incomplete`` (``goal_not_reached``), ``parse_error``, ``truncated``.
    ``algorithm_hint`` adds the construction of docs/specs/planning.md §2.2 to the prompt (canonical start).

    ## Version history
    * v0: first version; v0.2 adds ``start="random"``, rule switches and progress-based partial credit.
    """

    family = "checker_jumping"
    puzzle = "Checker Jumping"
    Params = CheckerParams
    #: rules that no move can break alone and still leave the goal reachable (tested exhaustively)
    rules_never_alone = rule_table("", """
        target_occupied: landing on a checker removes it, so the goal board is out of reach
        bad_jump: the only empty cell is the target, so a bad jump goes over its own colour and leaves the board two
                  slides of that colour would, which lies on no solution
    """)
    #: checked in this order; the base adds goal_not_reached last
    rule_codes = rule_table("", """
        bad_position: both positions are cells of the board (0 .. 2N)
        wrong_color: the source cell holds a checker of the named colour
        target_occupied: the target cell is the empty cell
        bad_distance: a checker moves one cell (a slide) or two (a jump)
        backward_move: red checkers move right and blue checkers move left
        bad_jump: a jump goes over a checker of the other colour
    """)
    difficulties = bucket_presets({"easy": (1, 2), "medium": (3, 5), "hard": (6, 12), "paper": (1, 20)},
                                  {"n1": 1, "n3": 3, "n5": 5, "n10": 10})
    default_difficulty = "n3"
    move_fields = "[checker_color, position_from, position_to]"
    move_example = '["R", 0, 1]'

    def build(self, n: int, params: dict, rng: np.random.Generator) -> dict:
        board = checker_board(n, n)
        if params.get("start") == "random":
            # a random start that can still reach the goal: undo a random number of moves from it,
            # at least half the optimum (a walk stuck earlier is drawn again), so N still sets the depth
            top = checker_optimal_length(n)
            board = checker_scrambled(n, int(rng.integers((top + 1) // 2, top + 1)), rng)
        return {"n": n, "initial": board, "goal": checker_goal(board)}

    def given_state(self, obj: dict) -> tuple[dict, dict] | None:
        """Reads ``{"initial": "RR_B"}`` (the goal puts blue left and red right)."""
        board = obj.get("initial")
        if not isinstance(board, str):
            return None
        return {"n": len(board) // 2, "initial": board, "goal": checker_goal(board)}, {}

    def validate_instance(self, instance: Instance) -> None:
        super().validate_instance(instance)
        d = instance.data
        n, board = d["n"], d.get("initial")
        if not isinstance(board, str) or len(board) != 2 * n + 1 or set(board) - set("RB_") or board.count("_") != 1:
            raise ConfigError(f"initial must be a board of {2 * n + 1} cells of R, B and one _, got {str(board)[:80]!r}")
        if d.get("goal") != checker_goal(board):
            raise ConfigError(f"goal must be {checker_goal(board)!r} (blue left, red right), got {str(d.get('goal'))[:80]!r}")
        if self.cached(instance, "optimum", lambda: self.optimal_length(instance)) is None:
            raise ConfigError(f"initial board {board!r} can never reach its goal")

    def initial_state(self, instance: Instance) -> str:
        return instance.data["initial"]

    def goal_state(self, instance: Instance) -> str:
        return instance.data["goal"]

    def canonical(self, instance: Instance) -> bool:
        n = instance.data["n"]
        return instance.data["initial"] == checker_board(n, n)

    def optimal_length(self, instance: Instance) -> int | None:
        if self.canonical(instance):
            return checker_optimal_length(instance.data["n"])
        return checker_distance(instance.data["initial"])

    def solve(self, instance: Instance) -> list:
        if self.canonical(instance):
            return checker_moves(instance.data["n"])
        return checker_path(instance.data["initial"])

    def distance(self, instance: Instance, state: str) -> int | None:
        """D - J when the goal can still be reached (search.checkers), else None."""
        if checker_goal(state) != instance.data["goal"]:
            return None
        return checker_distance(state)

    def path_from(self, instance: Instance, state: str) -> list | None:
        if checker_goal(state) != instance.data["goal"]:
            return None
        return checker_path(state)

    # ---- rules (docs/specs/planning.md §2.2, checks in order) ------------------------------------------------------
    def check_move(self, instance: Instance, state: str, move: list) -> str | None:
        colour, src, dst = move
        off = self._disabled_rules
        size = len(state)
        if "bad_position" not in off and not (0 <= src < size and 0 <= dst < size):
            return "bad_position"
        if "wrong_color" not in off and state[src] != colour:
            return "wrong_color"
        if "target_occupied" not in off and state[dst] != "_":
            return "target_occupied"
        if "bad_distance" not in off and abs(dst - src) not in (1, 2):
            return "bad_distance"
        if "backward_move" not in off and (dst - src > 0) != (colour == "R"):
            return "backward_move"
        if "bad_jump" not in off and abs(dst - src) == 2 and state[(src + dst) // 2] in ("_", colour):
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

    # ---- near misses, structured wrapper ----------------------------------------------------
    def candidate_moves(self, instance: Instance, state: str) -> list:
        """Legal moves first, then both colours from every cell to every cell at most 3 away,
        positions -L..L-1 (negative ones alias real cells once the range check is gone)."""
        size = len(state)
        return self.legal_moves(instance, state) + [
            [c, s, t] for c in "RB" for s in range(-size, size) for t in range(s - 3, s + 4) if -size <= t < size]

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
        empty = state.find("_")
        out = []
        for src in (empty - 2, empty - 1, empty + 1, empty + 2):
            if 0 <= src < len(state) and state[src] != "_":
                m = [state[src], src, empty]
                if self.check_move(instance, state, m) is None:
                    out.append(m)
        return out

    place_kind = "position"

    def picture(self, instance: Instance, state: str) -> tuple[np.ndarray, dict]:
        """The row of cells with red and blue checkers (R, B) and position numbers underneath."""
        size = max(1, len(state))
        cell = max(24, min(48, 1100 // size))
        width, height = size * cell + 20, cell + 44
        img = np.full((height, width, 3), BACKGROUND, np.uint8)
        places = {}
        scale = 2 if cell >= 36 else 1
        for i, ch in enumerate(state):
            x0, y0 = 10 + i * cell, 10
            raster.fill(img, (x0, y0, x0 + cell + 1, y0 + cell + 1), GROUND)
            raster.fill(img, (x0 + 1, y0 + 1, x0 + cell, y0 + cell), (235, 225, 200))
            if ch in CHECKER_COLOURS:
                raster.disc(img, x0 + cell / 2 + 0.5, y0 + cell / 2 + 0.5, cell * 0.38, CHECKER_COLOURS[ch])
                raster.draw_text(img, ch, y0 + cell / 2 + 1, x0 + cell / 2 + 1, scale, (255, 255, 255))
            raster.draw_text(img, str(i), y0 + cell + 16, x0 + cell / 2 + 1, scale, raster.INK)
            places[("position", i)] = (x0 - 2, y0 - 6, x0 + cell + 3, height - 2)
        return img, places

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

    def other_examples(self) -> list[tuple[str, list]]:
        return [("With two checkers of each colour the board R R _ B B must become B B _ R R.",
                 [["R", 1, 2], ["B", 3, 1], ["B", 4, 3], ["R", 2, 4], ["R", 0, 2], ["B", 1, 0], ["B", 3, 1],
                  ["R", 2, 3]])]

    def render_state(self, instance: Instance, state: str) -> str:
        return " ".join(state)

    def describe(self, instance: Instance) -> str:
        board = instance.data["initial"]
        red, blue = board.count("R"), board.count("B")
        return (f"There are {red} red and {blue} blue checkers on a board of {len(board)} cells.\n"
                + self.start_and_goal(instance, "Initial board: ", "Goal board:    ")
                + "Find the shortest sequence of moves from the initial board to the goal board.")

    procedure_prompt = """
        A procedure that solves the puzzle optimally. Make groups of moves whose sizes are 1, 2, ..., {n}, then {n}
          once more, then {n}, ..., 2, 1 again. The groups alternate in colour, starting with red. Within a group,
          repeatedly move a checker of that colour into the empty cell: jump when a jump into it is legal, otherwise
          slide.
    """

