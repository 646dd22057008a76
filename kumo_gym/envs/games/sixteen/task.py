"""Sixteen (Tatham's grid of tiles whose rows and columns shift cyclically): rules, solver hooks, texts."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ....core.errors import ParseError
from ....core.instance import Instance
from ....core.params import param
from ...planning import moves as mv
from ..base import GameParams
from ..tiles import TileBoardTask
from . import codec
from .generate import scrambled_board, uniform_board
from .search import apply_move, bidirectional, constructive, heuristic, solvable

#: states per side of the exact search of an optimum or a distance (3x3 boards, larger ones)
SEARCH_STATES = 40_000
SEARCH_STATES_LARGE = 15_000
#: boards larger than 3x3 are searched exactly only when the admissible bound is at most this
SEARCH_FROM_BOUND = 8
AXES = {"r": "R", "row": "R", "c": "C", "col": "C", "column": "C"}


@dataclass(frozen=True)
class SixteenParams(GameParams.with_size(3, 2, codec.MAX_SIDE)):
    movetarget: int | None = param(None, kind=int, lo=1, hi=999,
                                   doc="scramble by this many shifts from the goal (Tatham's 'm' parameter; the "
                                       "optimum is at most this); default: a uniformly random solvable board")


class SixteenTask(TileBoardTask):
    """Sixteen: shift rows and columns cyclically until the tiles read 1, 2, 3, ... in order.

    ## Description
    A ``W`` x ``H`` grid holds the tiles 1..W*H. A move shifts one whole row left or right, or one
    whole column up or down, by one cell; the tile pushed off one end comes back at the other. The
    goal is the tiles in reading order. On boards where W and H are both odd only even permutations
    can be reached; every instance is solvable. The optimum comes from bidirectional breadth-first
    search (exact on 3x3 boards and on scrambled ones); where it exceeds its budget (uniformly random
    boards larger than 3x3, Tatham's own draw) the optimum is certified to lie between a proven lower
    bound and the length of a solution built from 3-cycles: ``optimum_bounds`` says which, and
    partial credit is paid only where the distances are exact.

    ## Answer (``mode="answer"``, default)
    ``moves = [[line, index, shift], ...]``: line ``"R"`` (a row, index 0 at the top, shift 1 moves it
    right, -1 left) or ``"C"`` (a column, index 0 at the left, shift 1 moves it down, -1 up).
    """

    move_fields = '[line "R" or "C", index, shift 1 or -1]'
    move_example = '["R", 0, 1]'
    board_noun, move_noun = "grid", "shifts"
    example_game_id = "3x3:2,5,6,4,3,7,1,9,8"
    rule_codes = """
        off_board: the row index is in 0..H-1, the column index in 0..W-1
        bad_shift: a line moves by one cell, shift 1 or -1
    """
    tatham_presets: ClassVar[dict[str, str]] = {
        "tatham_3x3": "3x3", "tatham_4x3": "4x3", "tatham_4x4": "4x4", "tatham_5x4": "5x4", "tatham_5x5": "5x5"}
    difficulties: ClassVar[dict[str, dict]] = {
        "trivial": {"w": 3, "h": 3, "movetarget": 2},
        "easy": {"w": 3, "h": 3, "movetarget": 4},
        "normal": {"w": 3, "h": 3},
        "hard": {"w": 4, "h": 4, "movetarget": 6},
        **{name: {"w": int(p[0]), "h": int(p[2])} for name, p in tatham_presets.items()},
    }
    default_difficulty = "easy"
    small_params = ({"w": 3, "h": 3}, {"w": 2, "h": 3}, {"w": 3, "h": 2, "movetarget": 3})

    # ---- instance ----------------------------------------------------------------------
    def build(self, params: dict, rng: np.random.Generator) -> dict:
        w, h, k = params["w"], params["h"], params.get("movetarget")
        tiles = uniform_board(w, h, rng) if k is None else scrambled_board(w, h, k, rng)
        data = {"w": w, "h": h, "movetarget": k, "tiles": tiles}
        data["game_id"] = f"{codec.encode_params(data)}:{codec.encode_desc(data)}"
        return data

    # ---- rules -------------------------------------------------------------------------------------
    def goal_state(self, instance: Instance) -> tuple:
        return tuple(range(1, instance.data["w"] * instance.data["h"] + 1))

    def check_move(self, instance: Instance, state: tuple, move: list) -> str | None:
        axis, i, s = move
        n = instance.data["h"] if axis == "R" else instance.data["w"]
        return self.first_broken(("off_board", 0 <= i < n), ("bad_shift", s in (1, -1)))

    def apply(self, instance: Instance, state: tuple, move: list) -> tuple:
        axis, i, s = move
        w, h = instance.data["w"], instance.data["h"]
        n = h if axis == "R" else w
        if not -n <= i < n:
            raise IndexError(f"line {i} is off the board")
        return apply_move(state, w, h, (axis, i % n, s))  # a negative index aliases (only with off_board off)

    # ---- the solver ----------------------------------------------------------------------------------
    def _search(self, instance: Instance, state: tuple) -> tuple[list | None, int]:
        d = instance.data
        w, h = d["w"], d["h"]
        if w * h > 9 and heuristic(state, w, h) > SEARCH_FROM_BOUND:
            return None, heuristic(state, w, h)
        path, lower = bidirectional(state, w, h, SEARCH_STATES if w * h <= 9 else SEARCH_STATES_LARGE)
        return (None if path is None else [list(m) for m in path]), lower

    def _solve_start(self, instance: Instance) -> dict:
        d = instance.data
        s0 = self.initial_state(instance)
        path, lower = self._search(instance, s0)
        if path is not None:
            return {"moves": path, "lower": len(path), "upper": len(path), "exact": True}
        built = [list(m) for m in constructive(s0, d["w"], d["h"]) or []]
        return {"moves": built, "lower": lower, "upper": len(built), "exact": False}

    def _is_state(self, instance: Instance, state: tuple) -> bool:
        return solvable(state, instance.data["w"], instance.data["h"])

    def _search_path(self, instance: Instance, state: tuple) -> list | None:
        return self._search(instance, state)[0]

    # ---- moves ---------------------------------------------------------------------------------------
    def coerce_move(self, value: Any) -> list:
        if not isinstance(value, list) or len(value) != 3 or not isinstance(value[0], str):
            raise ParseError(f'a {self.puzzle} move is [line "R" or "C", index, shift], got {str(value)[:60]}',
                             "malformed_move")
        axis = AXES.get(value[0].strip().lower()[:8])
        if axis is None:
            raise ParseError(f'a {self.puzzle} line is "R" (row) or "C" (column), got {value[0][:20]!r}', "malformed_move")
        return [axis, mv.as_int(value[1]), mv.as_int(value[2])]

    def move_catalog(self, instance: Instance) -> list:
        d = instance.data
        return ([["R", i, s] for i in range(d["h"]) for s in (1, -1)]
                + [["C", j, s] for j in range(d["w"]) for s in (1, -1)])

    def legal_moves(self, instance: Instance, state: tuple) -> list:
        return self.move_catalog(instance)

    def candidate_moves(self, instance: Instance, state: tuple) -> list:
        """Legal moves, then lines one step off the board and shifts of 0 and 2 (a negative index
        and a longer shift alias real moves once their check is gone)."""
        d = instance.data
        out = self.move_catalog(instance)
        for axis, n in (("R", d["h"]), ("C", d["w"])):
            out += [[axis, i, s] for i in (-1, n) for s in (1, -1)]
            out += [[axis, i, s] for i in range(n) for s in (2, 0, -2)]
        return out

    # ---- text ------------------------------------------------------------------------------------------
    def rules(self, instance: Instance) -> str:
        return self.game_rules(
            "The grid holds numbered tiles.",
            "A move shifts one whole row or one whole column by one cell, cyclically: the tile pushed off one"
            " end comes back at the other end. The goal is the tiles in order 1, 2, 3, ... along the rows "
            'from the top left. A move is written [line, index, shift]: ["R", i, 1] moves row i right, ["R", '
            'i, -1] left; ["C", j, 1] moves column j down, ["C", j, -1] up.')

    def example(self) -> tuple[str, list]:
        return (("On a 2x2 grid the rows read '2 1' and '3 4': shifting row 0 right (or left) once swaps 2 and 1 "
                 "and solves it."), [["R", 0, 1]])

    def render_state(self, instance: Instance, state: tuple) -> str:
        w = instance.data["w"]
        width = len(str(len(state)))
        return "\n".join(" ".join(str(t).rjust(width) for t in state[r * w:(r + 1) * w])
                         for r in range(len(state) // w))

    def move_places(self, instance: Instance, move: Any) -> list:
        """A move names the cells of its line."""
        if not (isinstance(move, (list, tuple)) and len(move) == 3 and type(move[1]) is int):
            return []
        d = instance.data
        axis, i = move[0], move[1]
        if axis == "R" and 0 <= i < d["h"]:
            return [("cell", f"({i},{c})") for c in range(d["w"])]
        if axis == "C" and 0 <= i < d["w"]:
            return [("cell", f"({r},{i})") for r in range(d["h"])]
        return []

