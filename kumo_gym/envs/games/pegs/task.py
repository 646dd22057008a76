"""Pegs (Tatham's peg solitaire on his cross, octagon and random boards): rules, solver hooks, texts."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ....core.errors import ConfigError
from ....core.instance import Instance
from ....core.params import param
from ..base import BLANK, DARK, TILE, GameParams, GameTask, IntMoves
from . import codec
from .generate import fixed_board, grown_board
from .search import Board

#: node budget of a search for the start, and of one for a later position (interactive play, near misses)
SOLVE_BUDGET = 60_000_000
DISTANCE_BUDGET = 2_000_000
#: positions whose search is kept per instance
PATH_CACHE = 4096
PEGS_PARTIAL_CREDIT = (
    "1 when one peg is left; otherwise 0. Every jump removes one peg, so the number of moves is fixed and a "
    "jump that keeps the board winnable is easy to find early on; whether a player can win shows only at the "
    "end, so jumps made are not paid")
STEPS = ((0, 2), (2, 0), (0, -2), (-2, 0))


@dataclass(frozen=True)
class PegsParams(GameParams):
    w: int = param(7, lo=codec.MIN_SIDE, hi=codec.MAX_SIDE, doc="board width (cross and octagon: 7)")
    h: int = param(7, lo=codec.MIN_SIDE, hi=codec.MAX_SIDE, doc="board height (cross and octagon: 7)")
    type: str = param("cross", choices=codec.TYPES,
                      doc="cross: the English board, centre empty; octagon: the French board with one of Tatham's "
                          "winnable start holes; random: a board grown backwards from one peg")
    pegs: int | None = param(None, kind=int, lo=2, hi=60,
                             doc="random boards: stop growing at this many pegs (the number of jumps is one "
                                 "fewer); default: Tatham's growth, until no backward jump is left")

    def check(self) -> PegsParams:
        if self.type != "random" and (self.w, self.h) != (7, 7):
            raise ConfigError(f"the Pegs {self.type} board is 7x7 only, got {self.w}x{self.h}")
        if self.type != "random" and self.pegs is not None:
            raise ConfigError(f"pegs={self.pegs} applies to random boards only, not to {self.type}")
        return self


class PegsTask(IntMoves, GameTask):
    """Pegs: jump pegs over each other, removing the one jumped, until one peg is left.

    ## Description
    A board of holes, most holding a peg (Tatham's cross, the English board with its centre empty;
    his octagon, the French board with one of the start holes it can be won from; or a random
    board grown backwards from one peg, so that it can always be won). A move jumps a peg over a
    peg directly above, below, left or right of it into the empty hole just beyond; the peg jumped
    over is removed. The goal is one peg left, anywhere. Every jump removes exactly one peg, so
    every win from P pegs takes exactly P - 1 jumps: the optimum is that number and the question
    is only whether a line wins. The solver is a depth-first search that remembers every position
    it proved lost (restarted with other move orders, sharing those positions); its node counts
    are the measure of how hard a board is (``benchmarks/games.py``).

    ## Answer (``mode="answer"``, default)
    ``moves = [[row, col, to_row, to_col], ...]``: the peg at (row, col) jumps to (to_row, to_col),
    two cells away in a straight line, 0-based, row 0 at the top.
    """

    move_fields = "[row, col, to_row, to_col]"
    move_arity = 4
    move_example = "[3, 1, 3, 3]"
    example_game_id = "5x5:OOPOOOPPPPOPPPPPPHPHPPPPP"
    partial_credit: ClassVar[str] = PEGS_PARTIAL_CREDIT
    rule_codes = """
        off_board: both cells are inside the W x H grid (0 <= row < H, 0 <= col < W)
        not_a_jump: the landing cell is two cells straight up, down, left or right of the starting cell
        no_peg: the starting cell holds a peg
        nothing_to_jump: the cell between the two holds a peg
        landing_blocked: the landing cell is an empty hole of the board
    """
    tatham_presets: ClassVar[dict[str, str]] = {
        "tatham_7x7cross": "7x7cross", "tatham_7x7octagon": "7x7octagon", "tatham_5x5random": "5x5random",
        "tatham_7x7random": "7x7random", "tatham_9x9random": "9x9random"}
    difficulties: ClassVar[dict[str, dict]] = {
        "trivial": {"w": 4, "h": 4, "type": "random", "pegs": 4},
        "easy": {"w": 5, "h": 5, "type": "random", "pegs": 8},
        "normal": {"w": 7, "h": 7, "type": "random", "pegs": 16},
        "hard": {"w": 7, "h": 7, "type": "cross"},
        **{name: {"w": int(p[0]), "h": int(p[2]), "type": p[3:]} for name, p in tatham_presets.items()},
    }
    default_difficulty = "easy"
    small_params = ({"w": 4, "h": 4, "type": "random", "pegs": 5}, {"w": 5, "h": 5, "type": "random", "pegs": 7},
                    {"w": 5, "h": 4, "type": "random", "pegs": 6})

    # ---- instance ----------------------------------------------------------------------
    #: the board :meth:`build` grew last and its winning line, taken by :meth:`_solution` for that board
    _grown: tuple[str, list[tuple[int, int, int]]] | None = None
    #: node budget of the search for a line from the start of a board loaded or imported (a board that runs it
    #: out is refused at load); ``benchmarks/games.py`` lowers it where that search is heavy-tailed
    solve_budget: int = SOLVE_BUDGET

    def build(self, params: dict, rng: np.random.Generator) -> dict:
        w, h, kind = params["w"], params["h"], params["type"]
        if kind == "random":
            board, line = grown_board(w, h, params.get("pegs"), rng)
            self._grown = (board, line)
        else:
            board = fixed_board(kind, rng)
        return codec.decode_desc({"w": w, "h": h}, board)

    def validate_instance(self, instance: Instance) -> None:
        super().validate_instance(instance)
        sol = self._solution(instance)
        if sol["moves"] is None:
            why = "no line of jumps leaves one peg" if sol["decided"] else "the search ran out of budget"
            raise ConfigError(f"Pegs board {instance.data['game_id'][:60]!r} cannot be used: {why}")

    def board(self, instance: Instance) -> Board:
        d = instance.data
        return self.cached(instance, "board", lambda: Board(d["w"], d["h"], [
            i for i, ch in enumerate(d["board"]) if ch != "O"]))

    # ---- rules -------------------------------------------------------------------------------------
    def initial_state(self, instance: Instance) -> int:
        return sum(1 << i for i, ch in enumerate(instance.data["board"]) if ch == "P")

    def goal_state(self, instance: Instance) -> None:
        """There is no single goal board (the last peg may stand anywhere): :meth:`is_goal` tests it."""

    def is_goal(self, instance: Instance, state: int | None) -> bool:
        return state is not None and state > 0 and state & (state - 1) == 0

    def _cell(self, instance: Instance, r: int, c: int) -> int:
        w = instance.data["w"]
        if not -w <= c < w:
            raise IndexError(f"column {c} is off the board")
        return r * w + c

    def check_move(self, instance: Instance, state: int, move: list) -> str | None:
        r, c, r2, c2 = move
        d = instance.data
        off = self._disabled_rules
        if "off_board" not in off and not (0 <= r < d["h"] and 0 <= c < d["w"] and 0 <= r2 < d["h"]
                                           and 0 <= c2 < d["w"]):
            return "off_board"
        if "not_a_jump" not in off and (r2 - r, c2 - c) not in STEPS:
            return "not_a_jump"
        a, b, t = (self._cell(instance, r, c), self._cell(instance, (r + r2) // 2, (c + c2) // 2),
                   self._cell(instance, r2, c2))
        if "no_peg" not in off and not state >> a & 1:
            return "no_peg"
        if "nothing_to_jump" not in off and not state >> b & 1:
            return "nothing_to_jump"
        if "landing_blocked" not in off and (state >> t & 1 or d["board"][t] == "O"):
            return "landing_blocked"
        return None

    def apply(self, instance: Instance, state: int, move: list) -> int:
        r, c, r2, c2 = move
        a, b, t = (self._cell(instance, r, c), self._cell(instance, (r + r2) // 2, (c + c2) // 2),
                   self._cell(instance, r2, c2))
        return (state & ~(1 << a) & ~(1 << b)) | (1 << t)

    def progress(self, instance: Instance, k: int, state: Any, goal_reached_at: int | None) -> tuple[float, bool]:
        return 0.0, True

    # ---- the solver ----------------------------------------------------------------------------------
    def _search(self, instance: Instance, state: int, budget: int) -> dict:
        w = instance.data["w"]
        pegs = [i for i in range(state.bit_length()) if state >> i & 1]
        board = self.board(instance)
        if any(p not in board.bit for p in pegs):
            return {"moves": None, "decided": False, "nodes": 0}
        jumps, decided, nodes = board.solve(pegs, budget)
        moves = None if jumps is None else [[a // w, a % w, t // w, t % w] for a, _, t in jumps]
        return {"moves": moves, "decided": decided, "nodes": nodes}

    def _grown_line(self, instance: Instance) -> dict | None:
        """The winning line of a board this task has just grown (the generator's backward jumps reversed,
        replayed here to make sure), taken once; None for any other board."""
        grown, self._grown = self._grown, None
        if grown is None or grown[0] != instance.data["board"]:
            return None
        w, state = instance.data["w"], self.initial_state(instance)
        moves = []
        for a, _over, t in grown[1]:
            move = [a // w, a % w, t // w, t % w]
            if self.check_move(instance, state, move) is not None:
                return None
            state = self.apply(instance, state, move)
            moves.append(move)
        return {"moves": moves, "decided": True, "nodes": None} if self.is_goal(instance, state) else None

    def _solution(self, instance: Instance) -> dict:
        """A winning line from the start: for a board just generated, the line it was grown along (every
        win takes the same number of jumps, so none is better); for a board loaded or imported, the search's."""
        return self.cached(instance, "solution", lambda: self._grown_line(instance) or self._search(
            instance, self.initial_state(instance), self.solve_budget))

    def optimal_length(self, instance: Instance) -> int | None:
        return self.initial_state(instance).bit_count() - 1

    def solve(self, instance: Instance) -> list:
        moves = self._solution(instance)["moves"]
        return [] if moves is None else [list(m) for m in moves]

    def search_nodes(self, instance: Instance) -> int | None:
        """Nodes the solver searched to win the start (the measure of how hard the board is); None for a
        board generated here, whose line comes from the generator (``task.load(game_id)`` searches it)."""
        return self._solution(instance)["nodes"]

    def path_from(self, instance: Instance, state: int) -> list | None:
        if state == self.initial_state(instance):
            return self.solve(instance)
        cache = self.cached(instance, "paths", dict)
        if state not in cache:
            if len(cache) >= PATH_CACHE:
                cache.clear()
            cache[state] = self._search(instance, state, DISTANCE_BUDGET)["moves"]
        hit = cache[state]
        return None if hit is None else [list(m) for m in hit]

    def distance(self, instance: Instance, state: int) -> int | None:
        """Pegs left less one when the position can still be won; None when it cannot (or the search
        ran out of budget)."""
        path = self.path_from(instance, state)
        return None if path is None else len(path)

    def record_fields(self, instance: Instance) -> dict:
        return {**super().record_fields(instance), "search_nodes": self.search_nodes(instance)}

    # ---- moves ---------------------------------------------------------------------------------------
    def move_catalog(self, instance: Instance) -> list:
        d = instance.data
        return [[r, c, r + dr, c + dc] for r in range(d["h"]) for c in range(d["w"]) for dr, dc in STEPS
                if 0 <= r + dr < d["h"] and 0 <= c + dc < d["w"]]

    def legal_moves(self, instance: Instance, state: int | None) -> list:
        if state is None:
            return []
        return [m for m in self.move_catalog(instance) if self.check_move(instance, state, m) is None]

    def candidate_moves(self, instance: Instance, state: int) -> list:
        """Every jump inside the grid, jumps off each edge, and one-cell and diagonal moves (which
        break only ``not_a_jump`` when the rest holds)."""
        d = instance.data
        out = []
        for r in range(-2, d["h"] + 2):
            for c in range(-2, d["w"] + 2):
                for dr, dc in (*STEPS, (0, 1), (1, 0), (0, -1), (-1, 0), (2, 2), (-2, 2), (2, -2), (-2, -2)):
                    out.append([r, c, r + dr, c + dc])
        return out

    def encode_state(self, instance: Instance, state: int) -> np.ndarray:
        return self.lit_bits(instance, state)

    # ---- text ------------------------------------------------------------------------------------------
    def rules(self, instance: Instance) -> str:
        return self.game_rules(
            "It is peg solitaire. The board is a grid; 'o' is a hole holding a peg, '.' an empty hole, and a "
            "blank is not part of the board.",
            "A move takes one peg and jumps it over a peg directly above, below, left or right of it, into "
            "the empty hole just beyond; the peg jumped over is taken off the board. The goal is to leave "
            "exactly one peg, anywhere. A move is written [row, col, to_row, to_col]: the peg at (row, col) "
            "lands on (to_row, to_col), two cells away in a straight line.")

    def example(self) -> tuple[str, list]:
        return (("A row of three holes reads 'o o .': the peg at (0,0) jumps over (0,1) into (0,2), and one peg "
                 "is left."), [[0, 0, 0, 2]])

    def render_state(self, instance: Instance, state: int | None) -> str:
        if state is None:
            return "any board with exactly one peg left"
        d = instance.data
        w, h, board = d["w"], d["h"], d["board"]
        head = "   " + " ".join(str(c % 10) for c in range(w))
        rows = [f"{r:>2} " + " ".join(" " if board[r * w + c] == "O" else "o" if state >> (r * w + c) & 1 else "."
                                      for c in range(w)).rstrip() for r in range(h)]
        return "\n".join([head, *rows])

    def describe(self, instance: Instance) -> str:
        d = instance.data
        n = self.initial_state(instance).bit_count()
        return (f"The grid is {d['w']} columns by {d['h']} rows and holds {n} pegs, so a win takes {n - 1} jumps.\n"
                f"Current board:\n{self.render_state(instance, self.initial_state(instance))}\n"
                "Find jumps that leave exactly one peg.")

    def move_places(self, instance: Instance, move: Any) -> list:
        """A move names its starting and landing cells."""
        if isinstance(move, (list, tuple)) and len(move) == 4 and all(type(v) is int for v in move):
            return [("cell", f"({move[0]},{move[1]})"), ("cell", f"({move[2]},{move[3]})")]
        return []

    def picture(self, instance: Instance, state: int) -> tuple[np.ndarray, dict]:
        from ... import raster

        d = instance.data
        w, board = d["w"], d["board"]

        def paint(img, r, c, box):
            i = r * w + c
            raster.fill(img, box, BLANK if board[i] == "O" else DARK)
            if board[i] != "O" and state is not None and state >> i & 1:
                pad = (box[2] - box[0]) // 4
                raster.fill(img, (box[0] + pad, box[1] + pad, box[2] - pad, box[3] - pad), TILE)

        return self.grid_picture(w, d["h"], max(16, 240 // max(w, d["h"])), paint)
