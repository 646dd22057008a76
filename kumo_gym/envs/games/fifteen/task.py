"""Fifteen (Tatham's sliding-tile puzzle, any W x H up to 4x4): rules, solver hooks and texts."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ....core.instance import Instance
from ....core.params import param
from ..base import CellMoves, GameParams
from ..tiles import TileBoardTask
from . import codec
from .generate import scrambled_board, uniform_board
from .search import DC, DR, ida_star, solvable, weighted_astar

#: node budget of the exact search of an instance's optimum, and of a distance for partial credit
OPTIMUM_BUDGET = 3_000_000
DISTANCE_BUDGET = 1_000_000


@dataclass(frozen=True)
class FifteenParams(GameParams.with_size(3, 2, codec.MAX_SIDE)):
    scramble: int | None = param(None, kind=int, lo=1, hi=200,
                                 doc="k random gap moves from the goal (the optimum is at most k); default: "
                                     "Tatham's draw, a uniformly random solvable board")


class FifteenTask(CellMoves, TileBoardTask):
    """Fifteen: slide tiles into the gap until they read 1, 2, 3, ... with the gap last.

    ## Description
    A ``W`` x ``H`` tray holds tiles 1..W*H-1 and one gap. A move slides a tile that is directly
    above, below, left or right of the gap into it. The goal is the tiles in reading order, the gap
    in the bottom-right corner. Half of all boards are solvable (a parity invariant); every
    instance is. The optimum comes from IDA* with Manhattan distance plus linear conflicts; on
    boards where that search exceeds its budget (uniformly random 4x4 boards, Tatham's own draw)
    the optimum is certified to lie between the search's proven lower bound and the length of a
    weighted-A* solution: ``optimum_bounds`` says which, and partial credit is paid only where the
    distances are exact.

    ## Answer (``mode="answer"``, default)
    ``moves = [[row, col], ...]``: each move names the cell of the tile slid into the gap (0-based,
    row 0 at the top).
    """

    move_fields = "[row, col] of the tile to slide"
    move_example = "[2, 1]"
    board_noun, move_noun = "tray", "moves"
    example_game_id = "3x3:4,0,5,3,2,6,1,7,8"
    rule_codes = """
        off_board: the named cell is on the board (0 <= row < H, 0 <= col < W)
        not_next_to_gap: the named tile is directly above, below, left or right of the gap
    """
    tatham_presets: ClassVar[dict[str, str]] = {"tatham_4x4": "4x4"}
    difficulties: ClassVar[dict[str, dict]] = {
        "trivial": {"w": 3, "h": 3, "scramble": 6},
        "easy": {"w": 3, "h": 3},
        "normal": {"w": 4, "h": 4, "scramble": 24},
        "hard": {"w": 4, "h": 4, "scramble": 44},
        "tatham_4x4": {"w": 4, "h": 4},
    }
    default_difficulty = "easy"
    small_params = ({"w": 3, "h": 3}, {"w": 2, "h": 3}, {"w": 4, "h": 2, "scramble": 12})

    # ---- instance ----------------------------------------------------------------------
    def build(self, params: dict, rng: np.random.Generator) -> dict:
        w, h = params["w"], params["h"]
        k = params.get("scramble")
        tiles = uniform_board(w, h, rng) if k is None else scrambled_board(w, h, k, rng)
        data = {"w": w, "h": h, "tiles": tiles}
        data["game_id"] = f"{codec.encode_params(data)}:{codec.encode_desc(data)}"
        return data

    # ---- rules -------------------------------------------------------------------------------------
    def goal_state(self, instance: Instance) -> tuple:
        n = instance.data["w"] * instance.data["h"]
        return (*range(1, n), 0)

    def check_move(self, instance: Instance, state: tuple, move: list) -> str | None:
        if self.off_board(instance, move):
            return "off_board"
        r, c = move
        gr, gc = divmod(state.index(0), instance.data["w"])
        if "not_next_to_gap" not in self._disabled_rules and abs(r - gr) + abs(c - gc) != 1:
            return "not_next_to_gap"
        return None

    def apply(self, instance: Instance, state: tuple, move: list) -> tuple:
        i = self.cell_index(instance, move)
        t = list(state)
        g = t.index(0)
        t[g], t[i] = t[i], 0
        return tuple(t)

    # ---- the solver ----------------------------------------------------------------------------------
    def _moves_of(self, instance: Instance, state: tuple, gap_moves: list[int]) -> list:
        w = instance.data["w"]
        g = state.index(0)
        out = []
        for d in gap_moves:
            r, c = g // w + int(DR[d]), g % w + int(DC[d])
            out.append([r, c])
            g = r * w + c
        return out

    def _solve_start(self, instance: Instance) -> dict:
        d = instance.data
        s0 = self.initial_state(instance)
        path, lower, _ = ida_star(s0, d["w"], d["h"], OPTIMUM_BUDGET)
        if path is not None:
            return {"moves": self._moves_of(instance, s0, path), "lower": lower, "upper": lower, "exact": True}
        found = weighted_astar(s0, d["w"], d["h"])
        return {"moves": self._moves_of(instance, s0, found), "lower": lower, "upper": len(found), "exact": False}

    def _is_state(self, instance: Instance, state: tuple) -> bool:
        return sorted(state) == list(range(instance.data["w"] * instance.data["h"]))

    def _search_path(self, instance: Instance, state: tuple) -> list | None:
        d = instance.data
        if not solvable(state, d["w"], d["h"]):
            return None
        path, _, _ = ida_star(state, d["w"], d["h"], DISTANCE_BUDGET)
        return None if path is None else self._moves_of(instance, state, path)

    # ---- moves ---------------------------------------------------------------------------------------
    def legal_moves(self, instance: Instance, state: tuple) -> list:
        w, h = instance.data["w"], instance.data["h"]
        gr, gc = divmod(state.index(0), w)
        return [[gr + dr, gc + dc] for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
                if 0 <= gr + dr < h and 0 <= gc + dc < w]

    def candidate_moves(self, instance: Instance, state: tuple) -> list:
        """Legal moves, every cell, then cells one step off each edge (negative ones alias real
        cells once the board check is gone)."""
        d = instance.data
        off = [[r, c] for r in range(-1, d["h"] + 1) for c in range(-1, d["w"] + 1)
               if not (0 <= r < d["h"] and 0 <= c < d["w"])]
        return self.legal_moves(instance, state) + self.move_catalog(instance) + off

    # ---- text ------------------------------------------------------------------------------------------
    def rules(self, instance: Instance) -> str:
        return self.game_rules(
            "It is a sliding-tile puzzle: the tray is a grid of numbered tiles with one gap ('.').",
            "A move slides one tile that is directly above, below, left or right of the gap into the gap (so "
            "the gap moves to where the tile was). The goal is the tiles in order 1, 2, 3, ... along the rows"
            " from the top left, with the gap in the bottom-right corner. Each move is written [row, col]: "
            "the cell of the tile you slide.")

    def example(self) -> tuple[str, list]:
        return (("On a 2x2 tray the rows read '1 2' and '. 3': sliding the tile 3 at row 1, column 1 left into "
                 "the gap solves it."), [[1, 1]])

    def render_state(self, instance: Instance, state: tuple) -> str:
        w = instance.data["w"]
        width = len(str(len(state) - 1))
        rows = []
        for r in range(len(state) // w):
            rows.append(" ".join(("." if t == 0 else str(t)).rjust(width) for t in state[r * w:(r + 1) * w]))
        return "\n".join(rows)

    def tile_label(self, instance: Instance, value: int) -> str | None:
        return str(value) if value else None
