"""Inertia (Tatham's sliding ball collecting gems, after Ben Olmstead): rules, solver hooks, texts."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ....core.errors import ConfigError
from ....core.instance import Instance
from ....core.params import param
from ....core.task import Transition
from ..base import BLANK, DARK, TILE, GameParams, GameTask, IntMoves, bound_fields
from . import codec
from .generate import random_grid
from .search import DIRS, MINE, Board, shortest

#: states the layered search may visit for the start's optimum (boards of up to 20 gems, and more)
OPTIMUM_STATES, OPTIMUM_STATES_LARGE = 400_000, 40_000
#: states for the distance of a later state (partial credit, near misses, interactive play)
DISTANCE_STATES = 200_000
#: positions whose search is kept per instance
PATH_CACHE = 4096
GEM, MINE_CELL, STOP, WALL, START = "g", "m", "s", "w", "S"
NAMES = {(-1, 0): "up", (-1, 1): "up-right", (0, 1): "right", (1, 1): "down-right", (1, 0): "down",
         (1, -1): "down-left", (0, -1): "left", (-1, -1): "up-left"}
MINE_RULE = "hits_mine"


@dataclass(frozen=True)
class InertiaParams(GameParams):
    w: int = param(7, lo=codec.MIN_SIDE, hi=codec.MAX_SIDE, doc="grid width")
    h: int = param(7, lo=codec.MIN_SIDE, hi=codec.MAX_SIDE, doc="grid height")
    gems: int | None = param(None, kind=int, lo=1, hi=200,
                             doc="how many gems to place; default: Tatham's number, a fifth of the grid")

    def check(self) -> InertiaParams:
        if self.w * self.h < 6:
            raise ConfigError(f"an Inertia grid has at least six squares, got {self.w}x{self.h}")
        if self.gems is not None and self.gems > self.w * self.h // 3:
            raise ConfigError(f"gems={self.gems} is more than a third of the {self.w}x{self.h} grid")
        return self


class InertiaTask(IntMoves, GameTask):
    """Inertia: slide a ball around a grid until it has passed over every gem, never touching a mine.

    ## Description
    A ``W`` x ``H`` grid of blanks, gems, mines, stop squares and walls; the ball starts on a stop
    square. A move sends the ball in one of eight directions (orthogonal or diagonal); it slides
    on, cell after cell, until it enters a stop square or the next cell is a wall or the edge of the
    grid. Gems do not stop it: it picks up every gem it passes. Running onto a mine loses the
    game, so such a move is illegal here; so is a move straight into a wall or the edge. The goal is
    every gem picked up, the ball anywhere. Every instance can be won (the gems lie where the ball
    can fetch them and come back). The optimum is a breadth-first search over (ball place, gems
    left), a level at a time, pruned by an admissible estimate (the farthest gem left); where it
    runs out of budget (Tatham's 15x12 and 20x16) the optimum is certified between a proven lower
    bound and a found solution: ``optimum_bounds`` says which, and partial credit is paid only where
    the distances are exact.

    ## Answer (``mode="answer"``, default)
    ``moves = [[row_step, col_step], ...]``: each move is a direction, row step and column step
    each -1, 0 or 1 (not both 0): ``[-1, 0]`` up, ``[1, 1]`` down and right, ``[0, -1]`` left.
    """

    move_fields = "[row_step, col_step]"
    move_example = "[1, -1]"
    example_game_id = "5x5:Sgwbgwgsbwgsbsmgbswmwmmsm"
    rule_codes = f"""
        not_a_direction: the row step and column step are each -1, 0 or 1, not both 0
        blocked: the cell next to the ball in that direction is inside the grid and not a wall
        {MINE_RULE}: the ball does not run onto a mine on its way
    """
    tatham_presets: ClassVar[dict[str, str]] = {"tatham_10x8": "10x8", "tatham_15x12": "15x12",
                                                "tatham_20x16": "20x16"}
    difficulties: ClassVar[dict[str, dict]] = {
        "trivial": {"w": 5, "h": 5, "gems": 3},
        "easy": {"w": 5, "h": 5},
        "normal": {"w": 7, "h": 7},
        "hard": {"w": 10, "h": 8},
        **{name: {"w": int(p.split("x")[0]), "h": int(p.split("x")[1])} for name, p in tatham_presets.items()},
    }
    default_difficulty = "easy"
    small_params = ({"w": 4, "h": 4, "gems": 3}, {"w": 5, "h": 5}, {"w": 6, "h": 4, "gems": 4})

    # ---- instance ----------------------------------------------------------------------
    def build(self, params: dict, rng: np.random.Generator) -> dict:
        w, h = params["w"], params["h"]
        return codec.decode_desc({"w": w, "h": h}, random_grid(w, h, params.get("gems"), rng))

    def validate_instance(self, instance: Instance) -> None:
        super().validate_instance(instance)
        if self._solution(instance)["moves"] is None:
            raise ConfigError(f"Inertia grid {instance.data['game_id'][:60]!r} cannot be used: no way to collect "
                              "every gem was found")

    def board(self, instance: Instance) -> Board:
        d = instance.data
        return self.cached(instance, "board", lambda: Board(d["w"], d["h"], d["grid"]))

    # ---- rules -------------------------------------------------------------------------------------
    def initial_state(self, instance: Instance) -> tuple[int, int]:
        """``(ball cell, bit mask of the gems left)``, gems numbered in reading order."""
        b = self.board(instance)
        return b.start, b.all_gems

    def goal_state(self, instance: Instance) -> None:
        """Any cell with every gem collected: :meth:`is_goal` tests it."""

    def is_goal(self, instance: Instance, state: Any) -> bool:
        return isinstance(state, tuple) and state[1] == 0

    def check_move(self, instance: Instance, state: tuple, move: list) -> str | None:
        dr, dc = move
        off = self._disabled_rules
        if "not_a_direction" not in off and (dr, dc) not in NAMES:
            return "not_a_direction"
        b = self.board(instance)
        pos = state[0]
        r, c = divmod(pos, b.w)
        if "blocked" not in off and not b.open_cell(r + dr, c + dc):
            return "blocked"
        if MINE_RULE not in off and b.slide(pos, dr, dc) == MINE:
            return MINE_RULE
        return None

    def apply(self, instance: Instance, state: tuple, move: list) -> tuple:
        b = self.board(instance)
        pos, left = state
        dr, dc = move
        # a mine is met here only with its check switched off: the ball then stops on it
        res = b.slide(pos, dr, dc, through_mines=True)
        if not isinstance(res, tuple):
            return state
        return res[0], left & ~res[1]

    def transition(self, instance: Instance, state: tuple, move: list) -> Transition:
        """:meth:`checked_step`, its feedback saying where the ball went and the gems it took."""
        t = self.checked_step(instance, state, move)
        if t.status == "illegal_move":
            return t
        w = instance.data["w"]
        taken = (state[1] & ~t.state[1]).bit_count()
        left = t.state[1].bit_count()
        name = NAMES.get((move[0], move[1]), "that way")
        t.feedback = (f"Move {self.format_move(move)} ({name}): the ball slid from {divmod(state[0], w)} to "
                      f"{divmod(t.state[0], w)} and picked up {taken} gem{'s' if taken != 1 else ''}; "
                      + ("every gem is collected." if left == 0 else f"{left} left."))
        return t

    # ---- the solver ----------------------------------------------------------------------------------
    def _search(self, instance: Instance, state: tuple, max_states: int) -> dict:
        b = self.board(instance)
        out = shortest(b, state[0], state[1], max_states)
        dirs = out.pop("dirs")
        out["moves"] = None if dirs is None else [list(DIRS[d]) for d in dirs]
        return out

    def _solution(self, instance: Instance) -> dict:
        def solve():
            big = len(self.board(instance).gems) > 20
            return self._search(instance, self.initial_state(instance),
                                OPTIMUM_STATES_LARGE if big else OPTIMUM_STATES)
        return self.cached(instance, "solution", solve)

    def optimum_bounds(self, instance: Instance) -> tuple[int, int]:
        """``(lower, upper)``: the optimum lies in this range (equal when it is exact)."""
        s = self._solution(instance)
        return s["lower"], s["upper"]

    def optimal_length(self, instance: Instance) -> int | None:
        s = self._solution(instance)
        return None if s["moves"] is None else s["upper"]

    def solve(self, instance: Instance) -> list:
        moves = self._solution(instance)["moves"]
        return [] if moves is None else [list(m) for m in moves]

    def distance_exact(self, instance: Instance) -> bool:
        return bool(self._solution(instance)["exact"])

    def path_from(self, instance: Instance, state: tuple) -> list | None:
        if state == self.initial_state(instance):
            return self.solve(instance) if self.distance_exact(instance) else None
        cache = self.cached(instance, "paths", dict)
        if state not in cache:
            if len(cache) >= PATH_CACHE:
                cache.clear()
            found = self._search(instance, state, DISTANCE_STATES)
            cache[state] = found["moves"] if found["exact"] else None
        hit = cache[state]
        return None if hit is None else [list(m) for m in hit]

    def distance(self, instance: Instance, state: tuple) -> int | None:
        """The fewest moves from ``state`` that collect every gem left; None when no way exists, the
        search runs out of budget, or the instance's own optimum is only bounded."""
        path = self.path_from(instance, state) if self.distance_exact(instance) else None
        return None if path is None else len(path)

    def record_fields(self, instance: Instance) -> dict:
        return {**super().record_fields(instance), **bound_fields(*self.optimum_bounds(instance))}

    # ---- moves ---------------------------------------------------------------------------------------
    def move_catalog(self, instance: Instance) -> list:
        return [list(d) for d in DIRS]

    def legal_moves(self, instance: Instance, state: tuple | None) -> list:
        if state is None:
            return []
        return [m for m in self.move_catalog(instance) if self.check_move(instance, state, m) is None]

    def candidate_moves(self, instance: Instance, state: tuple) -> list:
        """The eight directions, then steps that are no direction (which break only
        ``not_a_direction`` when the rest holds)."""
        return self.move_catalog(instance) + [[0, 0], [2, 0], [0, 2], [-2, 0], [0, -2], [2, 2], [-2, -1], [1, 2]]

    def encode_state(self, instance: Instance, state: tuple) -> np.ndarray:
        """One value per cell: the ball 1, a gem left 0.5, else 0."""
        b = self.board(instance)
        out = np.zeros(b.w * b.h, np.float32)
        for k, cell in enumerate(b.gems):
            if state[1] >> k & 1:
                out[cell] = 0.5
        if 0 <= state[0] < out.size:
            out[state[0]] = 1.0
        return out

    # ---- text ------------------------------------------------------------------------------------------
    def rules(self, instance: Instance) -> str:
        return self.game_rules(
            "The grid holds a ball '@' that slides. '*' is a gem, 'X' a mine, 'o' a stop square, '#' a wall and "
            "'.' an empty cell; the ball starts on a stop square.",
            "A move sends the ball in one of eight directions: up, down, left, right or diagonally. It keeps "
            "sliding in that direction, cell after cell, until it enters a stop square or the next cell is a wall "
            "or outside the grid, and stops there. Gems do not stop it: it picks up every gem it passes over or "
            "stops on, and a picked-up gem is gone. A move that would run the ball onto a mine is not allowed (the "
            "ball would be destroyed), and neither is a move straight into a wall or the edge of the grid. The "
            "goal is to pick up every gem; the ball may end anywhere. A move is written [row_step, col_step], "
            "each -1, 0 or 1: [-1, 0] is up, [1, 0] down, [0, -1] left, [0, 1] right, [-1, 1] up and right, "
            "[1, -1] down and left, and so on.")

    def example(self) -> tuple[str, list]:
        return (("A 1-row grid reads '@ . * . #' with the ball on a stop square at column 0: the move [0, 1] "
                 "slides it right over the gem at column 2 and it stops at column 3, next to the wall; every gem "
                 "is collected."), [[0, 1]])

    def render_state(self, instance: Instance, state: tuple | None) -> str:
        if state is None:
            return "every gem collected, the ball anywhere"
        b = self.board(instance)
        w, h = b.w, b.h
        pos, left = state
        gem_left = {cell for k, cell in enumerate(b.gems) if left >> k & 1}
        symbols = {"b": ".", "g": ".", "m": "X", "s": "o", "S": "o", "w": "#"}
        head = "   " + " ".join(str(c % 10) for c in range(w))
        rows = []
        for r in range(h):
            cells = []
            for c in range(w):
                i = r * w + c
                cells.append("@" if i == pos else "*" if i in gem_left else symbols[b.grid[i]])
            rows.append(f"{r:>2} " + " ".join(cells))
        return "\n".join([head, *rows])

    def describe(self, instance: Instance) -> str:
        d = instance.data
        s0 = self.initial_state(instance)
        r, c = divmod(s0[0], d["w"])
        return (f"The grid is {d['w']} columns by {d['h']} rows and holds {s0[1].bit_count()} gems; the ball is at "
                f"row {r}, column {c}.\nCurrent grid:\n{self.render_state(instance, s0)}\n"
                "Find moves that pick up every gem without touching a mine.")

    def move_places(self, instance: Instance, move: Any) -> list:
        return []

    def picture(self, instance: Instance, state: tuple) -> tuple[np.ndarray, dict]:
        from ... import raster

        b = self.board(instance)
        w = b.w
        pos, left = state if isinstance(state, tuple) else self.initial_state(instance)
        gem_left = {cell for k, cell in enumerate(b.gems) if left >> k & 1}
        colours = {"w": DARK, "m": (200, 40, 40), "s": (170, 170, 210), "S": (170, 170, 210)}

        def paint(img, r, c, box):
            i = r * w + c
            raster.fill(img, box, colours.get(b.grid[i], BLANK))
            pad = (box[2] - box[0]) // 4
            inner = (box[0] + pad, box[1] + pad, box[2] - pad, box[3] - pad)
            if i in gem_left:
                raster.fill(img, inner, (60, 200, 220))
            if i == pos:
                raster.fill(img, inner, TILE)

        return self.grid_picture(w, b.h, max(16, 240 // max(w, b.h)), paint)
