"""Twiddle (Tatham's grid of tiles rearranged by turning square blocks): rules, solver hooks, texts."""
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
from .generate import scrambled_board
from .search import apply_move, bidirectional, goal_of, solve_constructive

#: states per side of the exact search of an optimum or a distance (boards of at most 9 cells, larger ones)
SEARCH_STATES = 60_000
SEARCH_STATES_LARGE = 15_000
#: boards larger than 3x3 are searched exactly only when the admissible bound is at most this
SEARCH_FROM_BOUND = 6
TURNS = {"1": 1, "+1": 1, "-1": -1, "cw": 1, "clockwise": 1, "ccw": -1, "anticlockwise": -1,
         "counterclockwise": -1}
ARROWS = "^<v>"


@dataclass(frozen=True)
class TwiddleParams(GameParams.with_size(3, 2, codec.MAX_SIDE)):
    n: int = param(2, lo=2, hi=codec.MAX_SIDE, doc="side of the square blocks that turn (at most W and H)")
    rowsonly: bool = param(False, doc="number the tiles by row only, so any order within a row is solved "
                                      "(Tatham's 'r' option)")
    orientable: bool = param(False, doc="tiles turn with their block and must end pointing up (Tatham's 'o' "
                                        "option; even block sizes only)")
    movetarget: int | None = param(None, kind=int, lo=1, hi=999,
                                   doc="scramble by this many quarter turns from the goal (Tatham's 'm' "
                                       "parameter; the optimum is at most this); default: Tatham's long shuffle")


class TwiddleTask(TileBoardTask):
    """Twiddle: turn square blocks of tiles until the numbers read in order (and, optionally, all point up).

    ## Description
    A ``W`` x ``H`` grid holds numbered tiles. A move turns one ``n`` x ``n`` block of the grid (named
    by its top-left cell) a quarter turn clockwise or anticlockwise, carrying its tiles round. The goal
    is Tatham's: the numbers in non-decreasing reading order. With ``rowsonly`` every tile of row ``i``
    carries ``i + 1``, so only the rows matter; with ``orientable`` each tile also has a direction that
    turns with its block, and every tile must end pointing up. Every instance is solvable. The optimum
    comes from bidirectional breadth-first search (exact on 3x3 boards without orientation and on
    scrambled ones); where it exceeds its budget (Tatham's long shuffles of larger boards) the optimum is
    certified to lie between a proven lower bound and the length of a solution built from 3-cycles and
    twists: ``optimum_bounds`` says which, and partial credit is paid only where distances are exact.
    Orientation with an odd block size is refused (not supported), as are boards whose blocks form
    one strip of two or three. In a game ID a tile's direction is Tatham's letter after its number
    (``3x3n2o:9u3l8r...``).

    ## Answer (``mode="answer"``, default)
    ``moves = [[row, col, turn], ...]``: the top-left cell of the block (0-based, row 0 at the top) and
    ``turn`` 1 for a clockwise quarter turn, -1 for anticlockwise.
    """

    rule_codes = """
        off_board: the block lies on the board (0 <= row <= H-n, 0 <= col <= W-n)
        bad_turn: a block turns a quarter turn, turn 1 or -1
    """
    move_fields = "[row, col, turn 1 or -1]"
    move_example = "[0, 1, -1]"
    board_noun, move_noun = "grid", "turns"
    example_game_id = "3x3n2:9,3,8,4,2,7,5,1,6"
    tatham_presets: ClassVar[dict[str, str]] = {
        "tatham_3x3_rows": "3x3n2r", "tatham_3x3": "3x3n2", "tatham_3x3_orientable": "3x3n2o",
        "tatham_4x4": "4x4n2", "tatham_4x4_orientable": "4x4n2o", "tatham_4x4_n3": "4x4n3",
        "tatham_5x5_n3": "5x5n3", "tatham_6x6_n4": "6x6n4"}
    difficulties: ClassVar[dict[str, dict]] = {
        "trivial": {"w": 3, "h": 3, "n": 2, "movetarget": 2},
        "easy": {"w": 3, "h": 3, "n": 2, "movetarget": 4},
        "normal": {"w": 3, "h": 3, "n": 2, "movetarget": 8},
        "hard": {"w": 4, "h": 4, "n": 2, "orientable": True, "movetarget": 6},
        **{name: codec.decode_params(p) for name, p in tatham_presets.items()},
    }
    default_difficulty = "easy"
    small_params = ({"w": 3, "h": 3, "n": 2, "rowsonly": True}, {"w": 3, "h": 2, "n": 2},
                    {"w": 2, "h": 2, "n": 2, "orientable": True}, {"w": 3, "h": 3, "n": 2, "movetarget": 5})

    # ---- instance ----------------------------------------------------------------------
    def build(self, params: dict, rng: np.random.Generator) -> dict:
        p = codec.decode_params(codec.encode_params(params))  # the codec's checks on the combination
        board = scrambled_board(p["w"], p["h"], p["n"], p["rowsonly"], p["orientable"], p["movetarget"], rng)
        data = {**p, "board": board}
        data["game_id"] = f"{codec.encode_params(data)}:{codec.encode_desc(data)}"
        return data

    def _geometry(self, instance: Instance) -> tuple[int, int, int, bool]:
        d = instance.data
        return d["w"], d["h"], d["n"], d["orientable"]

    def initial_state(self, instance: Instance) -> tuple:
        return tuple(instance.data["board"])

    # ---- rules -------------------------------------------------------------------------------------
    def goal_state(self, instance: Instance) -> tuple:
        return goal_of(tuple(instance.data["board"]))

    def check_move(self, instance: Instance, state: tuple, move: list) -> str | None:
        r, c, t = move
        d = instance.data
        return self.first_broken(("off_board", 0 <= r <= d["h"] - d["n"] and 0 <= c <= d["w"] - d["n"]),
                                 ("bad_turn", t in (1, -1)))

    def apply(self, instance: Instance, state: tuple, move: list) -> tuple:
        r, c, t = move
        w, h, n, o = self._geometry(instance)
        if not (-(h - n + 1) <= r <= h - n and -(w - n + 1) <= c <= w - n):
            raise IndexError(f"block ({r}, {c}) is off the board")
        # a negative index aliases a real block, any turn a quarter turn (reached only with the checks off)
        return apply_move(state, w, h, n, o, (r % (h - n + 1), c % (w - n + 1), 1 if t > 0 else -1))

    # ---- the solver ----------------------------------------------------------------------------------
    def _search(self, instance: Instance, state: tuple) -> tuple[list | None, int]:
        from .search import heuristic

        w, h, n, o = self._geometry(instance)
        small = w * h <= 9 and not o
        bound = heuristic(state, w, h, n, o)
        if not small and bound > SEARCH_FROM_BOUND:
            return None, bound
        path, lower = bidirectional(state, w, h, n, o, SEARCH_STATES if small else SEARCH_STATES_LARGE)
        return (None if path is None else [list(m) for m in path]), lower

    def _solve_start(self, instance: Instance) -> dict:
        s0 = self.initial_state(instance)
        path, lower = self._search(instance, s0)
        if path is not None:
            return {"moves": path, "lower": len(path), "upper": len(path), "exact": True}
        built = [list(m) for m in solve_constructive(s0, *self._geometry(instance)) or []]
        return {"moves": built, "lower": min(lower, len(built)), "upper": len(built), "exact": False}

    def _is_state(self, instance: Instance, state: tuple) -> bool:
        return len(state) == len(instance.data["board"]) and goal_of(state) == self.goal(instance)

    def _search_path(self, instance: Instance, state: tuple) -> list | None:
        return self._search(instance, state)[0]

    # ---- moves ---------------------------------------------------------------------------------------
    def coerce_move(self, value: Any) -> list:
        if not isinstance(value, list) or len(value) != 3:
            raise ParseError(f"a Twiddle move is [row, col, turn], got {str(value)[:60]}", "malformed_move")
        turn = value[2]
        if isinstance(turn, str):
            key = turn.strip().lower()[:20]
            if key not in TURNS:
                raise ParseError(f"a Twiddle turn is 1 (clockwise) or -1 (anticlockwise), got {turn[:20]!r}",
                                 "malformed_move")
            turn = TURNS[key]
        return [mv.as_int(value[0]), mv.as_int(value[1]), mv.as_int(turn)]

    def move_catalog(self, instance: Instance) -> list:
        d = instance.data
        return [[r, c, t] for r in range(d["h"] - d["n"] + 1) for c in range(d["w"] - d["n"] + 1) for t in (1, -1)]

    def legal_moves(self, instance: Instance, state: tuple) -> list:
        return self.move_catalog(instance)

    def candidate_moves(self, instance: Instance, state: tuple) -> list:
        """Legal moves, then blocks one step off the board and turns of 0 and 2 (a negative index
        and a longer turn alias real moves once their check is gone)."""
        d = instance.data
        rh, rw = d["h"] - d["n"] + 1, d["w"] - d["n"] + 1
        out = self.move_catalog(instance)
        out += [[r, c, t] for r, c in ((-1, 0), (0, -1), (rh, 0), (0, rw)) for t in (1, -1)]
        out += [[r, c, t] for r in range(rh) for c in range(rw) for t in (2, 0, -2)]
        return out

    # ---- text ------------------------------------------------------------------------------------------
    def rules(self, instance: Instance) -> str:
        d = instance.data
        n = d["n"]
        text = (f"You are playing Twiddle. The grid holds numbered tiles. Rows are numbered from 0 at the top, "
                f"columns from 0 at the left. A move turns one {n}x{n} block of the grid a quarter turn, carrying "
                "its tiles round with it; the block is named by its top-left cell. The goal is the numbers in "
                "non-decreasing order along the rows from the top left (equal numbers may stand in any order). "
                "A move is written [row, col, turn]: turn 1 turns the block clockwise, -1 anticlockwise.")
        if d["orientable"]:
            text += (" Each tile also points one way (^ up, > right, v down, < left) and turns with its block; "
                     "every tile must end pointing up (^).")
        return text

    def example(self) -> tuple[str, list]:
        return (("On a 2x2 grid with 2x2 blocks whose rows read '3 1' and '4 2', turning the block at [0, 0] "
                 "clockwise brings 1 2 / 3 4."), [[0, 0, 1]])

    def render_state(self, instance: Instance, state: tuple) -> str:
        w = instance.data["w"]
        o = instance.data["orientable"]
        width = max(len(str(v >> 2)) for v in state)
        cells = [str(v >> 2).rjust(width) + (ARROWS[v & 3] if o else "") for v in state]
        return "\n".join(" ".join(cells[r * w:(r + 1) * w]) for r in range(len(state) // w))

    def size_text(self, instance: Instance) -> str:
        d = instance.data
        return f"The grid is {d['w']} columns by {d['h']} rows; blocks are {d['n']}x{d['n']}."

    def move_places(self, instance: Instance, move: Any) -> list:
        """A move names the cells of its block."""
        if not (isinstance(move, (list, tuple)) and len(move) == 3 and type(move[0]) is int
                and type(move[1]) is int):
            return []
        d = instance.data
        r, c, n = move[0], move[1], d["n"]
        if 0 <= r <= d["h"] - n and 0 <= c <= d["w"] - n:
            return [("cell", f"({r + i},{c + j})") for i in range(n) for j in range(n)]
        return []

    def encode_state(self, instance: Instance, state: tuple) -> np.ndarray:
        """The number of every cell divided by W*H, then each tile's direction divided by 4."""
        size = instance.data["w"] * instance.data["h"]
        nums = np.asarray([v >> 2 for v in state], np.float32) / max(size, max(v >> 2 for v in state))
        return np.concatenate([nums, np.asarray([(v & 3) / 4 for v in state], np.float32)])

    def tile_label(self, instance: Instance, value: int) -> str | None:
        return str(value >> 2) + (ARROWS[value & 3] if instance.data["orientable"] else "")
