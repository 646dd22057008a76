"""Netslide (Tatham's cross of Net and Sixteen): rules, solver hooks, texts."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ....core.errors import ConfigError
from ....core.instance import Instance
from ....core.params import param
from ..base import GameParams
from ..sixteen.search import inverse, simplify
from ..sixteen.task import SixteenTask
from . import codec
from .generate import board
from .search import LETTERS, arrangements, lines, nearest, neighbours, play, powered, routed, shortest, solved

#: states per side of the exact search of an optimum or a distance (3x3 boards, larger ones)
SEARCH_STATES = 45_000
SEARCH_STATES_LARGE = 12_000
#: solved boards listed per instance (more: the exact search runs from the start alone), and the
#: node budgets of that listing (3x3 boards, larger ones)
GOAL_LIMIT = 2_000
ARRANGE_NODES = 200_000
ARRANGE_NODES_LARGE = 40_000
#: solved boards tried as targets of the constructed solution
ROUTE_TARGETS = 3


@dataclass(frozen=True)
class NetslideParams(GameParams.with_size(3, 2, codec.MAX_SIDE)):
    wrap: bool = param(False, doc="Tatham's 'w': wires may leave one side of the grid and come back on the opposite side")
    barrier: float = param(0.0, lo=0.0, hi=1.0,
                           doc="Tatham's 'b': the share of the sides the network does not use that get a barrier "
                               "(1: all of them, Tatham's default; 0: none)")
    movetarget: int | None = param(None, kind=int, lo=1, hi=999,
                                   doc="shuffle by this many shifts of the lines off the centre (Tatham's 'm'; the "
                                       "optimum is at most this); default: Tatham's 2 * (W-1) * (H-1)")


class NetslideTask(SixteenTask):
    """Netslide: shift rows and columns until every tile's wires join the centre tile.

    ## Description
    A ``W`` x ``H`` grid holds Net's tiles, each with wires towards some of its four sides; they came
    from one network (a spanning tree grown from the centre tile, the source, with no four-way tile)
    whose rows and columns were then shifted cyclically. A move shifts one whole row left or right,
    or one whole column up or down, by one cell, the tile pushed off one end coming back at the
    other; the row and the column through the centre never move. Barriers (Tatham's ``b``) stand
    between cells and stay put; on a non-wrapping grid the outer edge is a barrier too. The goal is
    Tatham's: every tile joined to the centre tile by pairs of facing wire ends with no barrier
    between them, in any arrangement (not necessarily the original one). The optimum comes from
    bidirectional breadth-first search from the start and from every solved board (listed by a
    depth-first search) at once, or from the start alone where the solved boards are too many;
    past its budget the optimum is certified between a proven lower bound and the shortest known
    solution (the shuffle undone, or one built from Sixteen's 3-cycles towards a solved board):
    ``optimum_bounds`` says which, and partial credit is paid only where the distances are exact.

    ## Answer (``mode="answer"``, default)
    Sixteen's move list, ``moves = [["R", row, 1 or -1], ["C", col, 1 or -1], ...]``: a row to the
    right (1) or left (-1), a column down (1) or up (-1); neither may be the centre one.
    """

    move_example = '["C", 0, -1]'
    example_game_id = "3x3:41d97c342"
    rule_codes = """
        off_board: the row index is in 0..H-1, the column index in 0..W-1
        bad_shift: a line moves by one cell, shift 1 or -1
        centre_line: the row and the column through the centre tile (row H // 2, column W // 2) never move
    """
    tatham_presets: ClassVar[dict[str, str]] = {
        f"tatham_{n}x{n}{tag}": f"{n}x{n}{tag}" for n in (3, 4, 5) for tag in ("b1", "", "w")}
    difficulties: ClassVar[dict[str, dict]] = {
        "trivial": {"w": 3, "h": 3, "barrier": 1.0, "movetarget": 2},
        "easy": {"w": 3, "h": 3, "movetarget": 4},
        "normal": {"w": 3, "h": 3, "barrier": 1.0},
        "hard": {"w": 4, "h": 4, "movetarget": 5},
        **{name: {"w": int(p[0]), "h": int(p[2]), "wrap": p.endswith("w"), "barrier": 1.0 if p.endswith("b1") else 0.0}
           for name, p in tatham_presets.items()},
    }
    default_difficulty = "easy"
    small_params = ({"w": 3, "h": 3}, {"w": 2, "h": 3, "movetarget": 3}, {"w": 3, "h": 3, "wrap": True},
                    {"w": 3, "h": 3, "barrier": 1.0, "movetarget": 5})

    # ---- instance ----------------------------------------------------------------------
    def build(self, params: dict, rng: np.random.Generator) -> dict:
        w, h, wrap = params["w"], params["h"], bool(params["wrap"])
        tiles, bars, shuffle = board(w, h, wrap, params["barrier"], params.get("movetarget"), rng)
        data = {"w": w, "h": h, "wrap": wrap, "movetarget": params.get("movetarget"), "tiles": tiles,
                "barriers": bars}
        data["game_id"] = f"{codec.encode_params(data, full=False)}:{codec.encode_desc(data)}"
        data["shuffle"] = shuffle  # the generator's moves (Tatham keeps the solved grid aside the same way)
        return data

    def validate_instance(self, instance: Instance) -> None:
        """The ID must also admit a solved board (Tatham's parser does not ask; a hand-made ID may fail)."""
        super().validate_instance(instance)
        goals, complete = self.goals(instance)
        if complete and not goals:
            raise ConfigError(f"no arrangement of the tiles of Netslide board {instance.data['game_id'][:60]!r} joins "
                              "them all to the source (with the centre tile kept in place and the barriers)")

    def grid(self, instance: Instance) -> tuple:
        """``(w, h, neighbour table, centre cell)``."""
        d = instance.data
        return self.cached(instance, "grid", lambda: (
            d["w"], d["h"], neighbours(d["w"], d["h"], bool(d["wrap"]), frozenset(map(tuple, d["barriers"]))),
            (d["h"] // 2) * d["w"] + d["w"] // 2))

    # ---- rules -------------------------------------------------------------------------------------
    def goal_state(self, instance: Instance) -> None:
        """There is no single goal board (any arrangement that joins every tile): :meth:`is_goal` tests it."""

    def is_goal(self, instance: Instance, state: tuple | None) -> bool:
        if state is None:
            return False
        w, h, nbr, centre = self.grid(instance)
        return len(state) == w * h and solved(state, nbr, centre)

    def check_move(self, instance: Instance, state: tuple, move: list) -> str | None:
        axis, i, s = move
        d = instance.data
        n = d["h"] if axis == "R" else d["w"]
        centre = d["h"] // 2 if axis == "R" else d["w"] // 2
        return self.first_broken(("off_board", 0 <= i < n), ("bad_shift", s in (1, -1)),
                                 ("centre_line", i % n != centre if -n <= i < n else True))

    def legal_moves(self, instance: Instance, state: tuple | None) -> list:
        if state is None:
            return []
        d = instance.data
        rows, cols = lines(d["w"], d["h"])
        return [["R", i, s] for i in rows for s in (1, -1)] + [["C", j, s] for j in cols for s in (1, -1)]

    # ---- the solver ----------------------------------------------------------------------------------
    def goals(self, instance: Instance) -> tuple[list, bool]:
        """Solved boards of the instance's tiles, and whether they are all of them."""
        w, h, nbr, centre = self.grid(instance)
        budget = ARRANGE_NODES if w * h <= 9 else ARRANGE_NODES_LARGE
        return self.cached(instance, "goals", lambda: arrangements(
            tuple(instance.data["tiles"]), nbr, centre, GOAL_LIMIT, budget))

    def _search(self, instance: Instance, state: tuple) -> tuple[list | None, int]:
        w, h, nbr, centre = self.grid(instance)
        budget = SEARCH_STATES if w * h <= 9 else SEARCH_STATES_LARGE
        goals, complete = self.goals(instance)
        if complete:
            path, lower = shortest(state, goals, w, h, budget)
        else:
            path, lower = nearest(state, w, h, lambda s: solved(s, nbr, centre), budget)
        return (None if path is None else [list(m) for m in path]), lower

    def _solve_start(self, instance: Instance) -> dict:
        d = instance.data
        w, h = d["w"], d["h"]
        s0 = self.initial_state(instance)
        path, lower = self._search(instance, s0)
        if path is not None:
            return {"moves": path, "lower": len(path), "upper": len(path), "exact": True}
        found: list[list] = []
        shuffle = d.get("shuffle")
        if isinstance(shuffle, list) and all(isinstance(m, list) and len(m) == 3 for m in shuffle):
            undo = simplify([inverse(tuple(m)) for m in reversed(shuffle)], w, h)
            if self.is_goal(instance, play(s0, w, h, undo)) and all(self.check_move(instance, s0, list(m)) is None
                                                                    for m in undo):
                found.append([list(m) for m in undo])
        goals, _ = self.goals(instance)
        for goal in sorted(goals, key=lambda g: sum(a != b for a, b in zip(g, s0, strict=True)))[:ROUTE_TARGETS]:
            built = routed(s0, goal, w, h)
            if built is not None:  # cut where the tiles first all join (often before the chosen board)
                found.append([list(m) for m in built[:self._first_solved(instance, s0, built)]])
        if not found:
            raise ConfigError(f"no solution of Netslide board {d['game_id'][:60]!r} was found")
        best = min(found, key=len)
        return {"moves": best, "lower": max(1, min(lower, len(best))), "upper": len(best), "exact": False}

    def _first_solved(self, instance: Instance, state: tuple, moves: list) -> int:
        """How many of ``moves`` (legal) reach a solved board first (all of them when none does earlier)."""
        w, h = instance.data["w"], instance.data["h"]
        for k, m in enumerate(moves):
            state = play(state, w, h, [tuple(m)])
            if self.is_goal(instance, state):
                return k + 1
        return len(moves)

    def _is_state(self, instance: Instance, state: tuple) -> bool:
        tiles = instance.data["tiles"]
        centre = self.grid(instance)[3]
        return (isinstance(state, tuple) and len(state) == len(tiles) and sorted(state) == sorted(tiles)
                and state[centre] == tiles[centre])

    # ---- text ------------------------------------------------------------------------------------------
    def rules(self, instance: Instance) -> str:
        return self.game_rules(
            "The grid holds tiles with wires running from the tile's centre to some of its four sides: U (up), R "
            "(right), D (down), L (left). The tile at the centre of the grid is the power source.",
            "Two neighbouring tiles are joined when each has a wire towards the other and no barrier stands "
            "between them. A move shifts one whole row or one whole column by one cell, cyclically: the tile pushed "
            "off one end comes back at the other end. The row and the column through the centre never move. "
            "Barriers stay where they are. The goal is any arrangement in which every tile is joined to the source, "
            'directly or through other tiles. A move is written [line, index, shift]: ["R", i, 1] moves row i right, '
            '["R", i, -1] left; ["C", j, 1] moves column j down, ["C", j, -1] up.')

    def example(self) -> tuple[str, list]:
        return (("On a 3x3 grid (no wrapping, no barriers) the rows read 'L R RDL', 'RD URL* DL', 'UR L U'. The "
                 "source's up wire meets the tile R above it, which has no down wire, so the top row is cut off. "
                 "Shifting row 0 left once makes it 'R RDL L': the RDL tile now meets the source below it and the R "
                 "and L tiles beside it, and every tile is joined to the source."), [["R", 0, -1]])

    def other_examples(self) -> list[tuple[str, list]]:
        """The same solved board shuffled by another line, for the small boards the first example answers."""
        return [
            (("On a 3x3 grid (no wrapping, no barriers) the rows read 'R RDL U', 'RD URL* L', 'UR L DL'. The "
              "source's right wire meets the tile L, but the U tile in the top right corner has nothing facing "
              "its wire and the DL tile in the bottom right corner faces the back of an L. Shifting column 2 up "
              "once makes it 'L', 'DL', 'U' from the top: the top row's RDL tile meets the L beside it, the DL "
              "tile meets the source and the U tile below it, and every tile is joined to the source."), [["C", 2, -1]]),
            (("On a 3x3 grid (no wrapping, no barriers) the rows read 'R RDL L', 'RD URL* DL', 'U UR L'. The "
              "bottom left U tile meets the RD tile above it, but the UR and L tiles beside it are joined only to each other. "
              "Shifting row 2 left once makes it 'UR L U': the UR tile meets the RD tile above it and the L tile "
              "beside it, the U tile meets the DL tile above it, and every tile is joined to the source."),
             [["R", 2, -1]]),
        ]

    def text_cell(self, instance: Instance, p: int, mask: int) -> str:
        centre = self.grid(instance)[3]
        letters = "".join(LETTERS[b] for b in (2, 1, 8, 4) if mask & b)
        return letters + ("*" if p == centre else "")

    def render_state(self, instance: Instance, state: tuple | None) -> str:
        if state is None:
            return "any arrangement of these tiles in which every tile is joined to the source"
        w, _, nbr, centre = self.grid(instance)
        cells = [self.text_cell(instance, p, t) for p, t in enumerate(state)]
        width = max(map(len, cells))
        rows = [" ".join(c.ljust(width) for c in cells[r * w:(r + 1) * w]).rstrip() for r in range(len(state) // w)]
        joined = len(powered(state, nbr, centre)) if self._is_state(instance, state) else None
        if joined is not None:  # the progress a player sees after every move, as Tatham lights joined tiles
            rows.append(f"({joined} of {len(state)} tiles joined to the source)")
        return "\n".join(rows)

    def describe(self, instance: Instance) -> str:
        d = instance.data
        w, h = d["w"], d["h"]
        s0 = self.initial_state(instance)
        bars = d["barriers"]
        lines_text = [
            f"The grid is {w} columns by {h} rows; the source is the tile at row {h // 2}, column {w // 2} (marked *).",
            ("The grid wraps around: a wire leaving one side enters the cell on the opposite side."
             if d["wrap"] else "The grid does not wrap: a wire pointing off the edge joins nothing."),
            ("Barriers (between the named cell and its neighbour): " + ", ".join(
                f"right of ({r},{c})" if s == "R" else f"below ({r},{c})" for r, c, s in bars) + "."
             if bars else "There are no barriers."),
            "Each tile is written as the sides its wires point to (U, R, D, L).",
            "Current grid:",
            self.render_state(instance, s0),
            "Find shifts after which every tile is joined to the source.",
        ]
        return "\n".join(lines_text)

    def encode_state(self, instance: Instance, state: tuple) -> np.ndarray:
        """Each cell's tile mask (Tatham's bits) divided by 15."""
        return np.asarray(state, np.float32) / 15.0

    def tile_label(self, instance: Instance, value: int) -> str | None:
        return "".join(LETTERS[b] for b in (2, 1, 8, 4) if value & b)
