"""Flood (Tatham's flood-it): flood the board to one colour from the top-left corner within a move limit."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ....core.capabilities import NearMiss
from ....core.errors import ConfigError
from ....core.instance import Instance
from ....core.params import param
from ....core.task import Transition
from ..base import GameParams, GameTask, IntMoves
from . import codec
from .generate import move_limit, random_grid
from .search import Regions, best_moves, flood, tatham_moves

FLOOD_PARTIAL_CREDIT = (
    "1 when the whole board is one colour within the move limit; 0 otherwise. The fewest moves are known "
    "exactly only on small boards, and cells flooded so far would pay greedy moves that grab area now and "
    "cost moves later, so no partial credit is given; the efficiency measure is the number of moves against "
    "the best line known (optimal_length: exact where A* proves it, see optimum_exact)")
#: the beam search's width, and A*'s expansions, per search of a board
BEAM_WIDTH = 24
ASTAR_BUDGET = 3000
#: searches from later positions kept per instance
PATH_CACHE = 2048


@dataclass(frozen=True)
class FloodParams(GameParams):
    colours: int = param(codec.DEFAULT_COLOURS, lo=codec.MIN_COLOURS, hi=codec.MAX_COLOURS,
                         doc="number of colours (Tatham's c)")
    w: int = param(12, lo=1, hi=codec.MAX_SIDE, doc="board width")
    h: int = param(12, lo=1, hi=codec.MAX_SIDE, doc="board height")
    leniency: int = param(codec.DEFAULT_LENIENCY, lo=0, hi=codec.MAX_LENIENCY,
                          doc="moves allowed beyond those of Tatham's three-move lookahead player (his m)")

    def check(self) -> FloodParams:
        if self.w * self.h < 2:
            raise ConfigError(f"a Flood board needs at least 2 cells, got {self.w}x{self.h}")
        return self


#: Tatham's palette: red, yellow, green, blue, orange, purple, brown, light blue, light green, pink
HUES = [(255, 0, 0), (255, 255, 0), (0, 255, 0), (51, 77, 255), (255, 128, 0), (128, 0, 179), (128, 77, 77),
        (102, 204, 255), (179, 255, 179), (255, 153, 255)]


class FloodTask(IntMoves, GameTask):
    """Flood: flood the board to one colour from the top-left corner within a move limit.

    ## Description
    A ``W`` x ``H`` board of cells in ``N`` colours (0..N-1). The flooded area is the top-left
    cell and every cell joined to it through edges by cells of its colour. A move names a colour
    other than the area's own: the area takes that colour and so joins every cell of that colour
    next to it. The goal is a board of one colour within the move limit, which is Tatham's: the
    number of moves his three-move lookahead player needs, plus a leniency. The reference solution
    is the best of that player, a beam search and A* (exact on small boards; ``optimum_exact`` in
    dataset records says where the fewest moves are proven).

    ## Answer (``mode="answer"``, default)
    ``moves = [[colour], ...]``: the colours chosen, in order.
    """

    partial_credit: ClassVar[str] = FLOOD_PARTIAL_CREDIT
    example_game_id = "5x5:1021220201001202201111022,6"
    move_fields, move_arity, move_example = "[colour]", 1, "[2]"
    rule_codes = """
        bad_colour: the colour is one of the board's colours (0 <= colour < N)
        game_over: the board is not already one colour (nothing may follow the last move)
        same_colour: the colour differs from the flooded area's current colour
        move_limit: at most the move limit of moves are played
    """
    tatham_presets: ClassVar[dict[str, str]] = {
        "tatham_12x12_easy": "12x12c6m5", "tatham_12x12_medium": "12x12c6m2", "tatham_12x12_hard": "12x12c6m0",
        "tatham_16x16_medium": "16x16c6m2", "tatham_16x16_hard": "16x16c6m0", "tatham_12x12c3": "12x12c3m0",
        "tatham_12x12c4": "12x12c4m0"}
    difficulties: ClassVar[dict[str, dict]] = {
        "trivial": {"w": 5, "h": 5, "colours": 3, "leniency": 2},
        "easy": {"w": 8, "h": 8, "colours": 4, "leniency": 2},
        "normal": {"w": 12, "h": 12, "colours": 6, "leniency": 2},
        "hard": {"w": 14, "h": 14, "colours": 6, "leniency": 0},
        **{name: codec.decode_params(p) for name, p in tatham_presets.items()},
    }
    default_difficulty = "easy"
    small_params = ({"w": 3, "h": 3, "colours": 3, "leniency": 0}, {"w": 4, "h": 3, "colours": 3, "leniency": 1},
                    {"w": 4, "h": 4, "colours": 4, "leniency": 0})

    # ---- instance ----------------------------------------------------------------------
    def build(self, params: dict, rng: np.random.Generator) -> dict:
        w, h, nc = params["w"], params["h"], params["colours"]
        grid = random_grid(w, h, nc, rng)
        data = {"w": w, "h": h, "colours": nc, "limit": move_limit(grid, w, h, nc, params["leniency"]), "grid": grid}
        data["game_id"] = f"{codec.encode_params(data, full=False)}:{codec.encode_desc(data)}"
        return data

    def validate_instance(self, instance: Instance) -> None:
        super().validate_instance(instance)
        d = instance.data
        moves = self._solution(instance)[0]
        if len(moves) > d["limit"]:
            raise ConfigError(f"Flood board {d['game_id'][:60]!r} cannot be used: the best line found takes "
                              f"{len(moves)} moves, more than its limit of {d['limit']}")

    # ---- rules -------------------------------------------------------------------------------------
    def initial_state(self, instance: Instance) -> tuple:
        return tuple(instance.data["grid"]), 0

    def goal_state(self, instance: Instance) -> None:
        """There is no single goal board (any colour may win): :meth:`is_goal` tests it."""

    def is_goal(self, instance: Instance, state: tuple | None) -> bool:
        return state is not None and len(set(state[0])) == 1

    def check_move(self, instance: Instance, state: tuple, move: list) -> str | None:
        (c,) = move
        d = instance.data
        grid, used = state
        return self.first_broken(("bad_colour", 0 <= c < d["colours"]), ("game_over", len(set(grid)) > 1),
                                 ("same_colour", c != grid[0]), ("move_limit", used < d["limit"]))

    def apply(self, instance: Instance, state: tuple, move: list) -> tuple:
        d = instance.data
        return tuple(flood(state[0], d["w"], d["h"], move[0])), state[1] + 1

    def transition(self, instance: Instance, state: Any, move: Any) -> Transition:
        """One move of interactive play; the game is lost (Tatham's "FAILED") when the last move the
        limit allows leaves more than one colour."""
        t = self.checked_step(instance, state, move)
        if (t.status == "continue" and t.state[1] >= instance.data["limit"]
                and "move_limit" not in self._disabled_rules):
            return Transition(t.state, "wrong", f"Move {self.format_move(move)} applied; the move limit of "
                              f"{instance.data['limit']} is used up and the board is not one colour.",
                              details={"reason": "move_limit", "rule": "move_limit", "score": 0.0})
        return t

    def progress(self, instance: Instance, k: int, state: Any, goal_reached_at: int | None) -> tuple[float, bool]:
        return 0.0, True

    # ---- the solver ----------------------------------------------------------------------------------
    def _search(self, instance: Instance, grid: tuple) -> tuple[list[int], bool, int]:
        d = instance.data
        return best_moves(Regions(grid, d["w"], d["h"]), d["colours"], BEAM_WIDTH, ASTAR_BUDGET)

    def _solution(self, instance: Instance) -> tuple[list[int], bool, int]:
        return self.cached(instance, "solution", lambda: self._search(instance, tuple(instance.data["grid"])))

    def optimal_length(self, instance: Instance) -> int | None:
        return len(self._solution(instance)[0])

    def optimum_bounds(self, instance: Instance) -> tuple[int, int]:
        """A proven lower bound on the fewest moves and the length of the best line known."""
        moves, _, lower = self._solution(instance)
        return lower, len(moves)

    def solve(self, instance: Instance) -> list:
        return [[c] for c in self._solution(instance)[0]]

    def tatham_solution(self, instance: Instance) -> list:
        """The line of Tatham's own player (its length plus the leniency is the limit)."""
        d = instance.data
        return [[c] for c in tatham_moves(Regions(d["grid"], d["w"], d["h"]), d["colours"])]

    def _from(self, instance: Instance, state: tuple) -> tuple[list[int], bool, int] | None:
        grid = state[0]
        if grid == tuple(instance.data["grid"]):
            return self._solution(instance)
        if len(set(grid)) == 1:
            return [], True, 0
        if not all(type(c) is int and 0 <= c < instance.data["colours"] for c in grid):
            return None  # a colour off the board (reached only with bad_colour off)
        cache = self.cached(instance, "paths", dict)
        if grid not in cache:
            if len(cache) >= PATH_CACHE:
                cache.clear()
            cache[grid] = self._search(instance, grid)
        return cache[grid]

    def path_from(self, instance: Instance, state: tuple) -> list | None:
        """The best line known from ``state`` when it fits in the moves left, else None."""
        found = self._from(instance, state)
        if found is None or state[1] + len(found[0]) > instance.data["limit"]:
            return None
        return [[c] for c in found[0]]

    def distance(self, instance: Instance, state: tuple) -> int | None:
        """The fewest moves from ``state`` when proven and within the moves left; else None."""
        found = self._from(instance, state)
        if found is None or not found[1] or state[1] + len(found[0]) > instance.data["limit"]:
            return None
        return len(found[0])

    def distance_exact(self, instance: Instance) -> bool:
        return self._solution(instance)[1]

    def record_fields(self, instance: Instance) -> dict:
        lower, upper = self.optimum_bounds(instance)
        return {**super().record_fields(instance), "move_limit": instance.data["limit"],
                "tatham_moves": len(self.tatham_solution(instance)), "optimum_lower_bound": lower,
                "optimum_exact": lower == upper}

    def near_misses(self, instance: Instance, rng: np.random.Generator) -> list[NearMiss]:
        """The planning near misses, plus the two rules no move of the solution's path can break: a
        move after the board is flooded (``game_over``), and the solution's last move played after
        the limit is used up by repainting the area in colours it does not touch (``move_limit``)."""
        out = super().near_misses(instance, rng)
        gold = self.solve(instance)
        if not gold:
            return out
        d = instance.data
        others = [c for c in range(d["colours"]) if c != gold[-1][0]]
        out.append(NearMiss("game_over", gold + [[others[int(rng.integers(len(others)))]]]))
        last = gold[-1][0]
        spare = [c for c in range(d["colours"]) if c != last]  # repaint only: the border is all `last`
        pad: list[list[int]] = []
        current = gold[-2][0] if len(gold) > 1 else d["grid"][0]
        while len(gold) - 1 + len(pad) < d["limit"]:
            current = next(c for c in spare if c != current)
            pad.append([current])
        out.append(NearMiss("move_limit", gold[:-1] + pad + [gold[-1]]))
        return out

    # ---- moves ---------------------------------------------------------------------------------------
    def move_catalog(self, instance: Instance) -> list:
        return [[c] for c in range(instance.data["colours"])]

    def legal_moves(self, instance: Instance, state: tuple | None) -> list:
        if state is None:
            return []
        return [m for m in self.move_catalog(instance) if self.check_move(instance, state, m) is None]

    def candidate_moves(self, instance: Instance, state: tuple) -> list:
        """Every colour and one past each end (they break ``bad_colour``)."""
        return [[c] for c in range(-1, instance.data["colours"] + 1)]

    def encode_state(self, instance: Instance, state: tuple) -> np.ndarray:
        """Every cell's colour divided by N - 1, then the share of the move limit used."""
        d = instance.data
        cells = np.asarray(state[0], np.float32) / (d["colours"] - 1)
        used = np.float32(state[1] / max(1, d["limit"]))
        return np.clip(np.append(cells, used), 0.0, 1.0).astype(np.float32)

    # ---- text ------------------------------------------------------------------------------------------
    def rules(self, instance: Instance) -> str:
        d = instance.data
        return self.game_rules(
            f"The board is a grid of coloured cells, each shown as its colour number (0 to {d['colours'] - 1}).",
            "The flooded area is the top-left cell (0,0) together with every cell joined to it through shared "
            "edges (not corners) by cells of the same colour. A move names a colour, written [colour]: every "
            "cell of the flooded area takes that colour, so the area grows to take in every cell of that "
            "colour next to it (and every cell of that colour joined to those). The colour must differ from "
            "the flooded area's current colour, and no move may follow once the board is one colour. The goal "
            f"is to make the whole board one colour in at most {d['limit']} moves (the move limit).")

    def example(self) -> tuple[str, list]:
        return (("On a board of 3 columns and 1 row reading '0 1 2', [1] turns the top-left cell to 1 and so "
                 "floods (0,1) as well, giving '1 1 2'; [2] then floods the whole row."), [[1], [2]])

    def other_examples(self) -> list[tuple[str, list]]:
        return [(("On a board of 2 columns and 2 rows whose rows read '0 1' and '1 0', [1] floods (0,1) and "
                  "(1,0), and [0] then takes in (1,1)."), [[1], [0]])]

    def render_state(self, instance: Instance, state: tuple | None) -> str:
        d = instance.data
        if state is None:
            return f"any board whose cells all have one colour, reached in at most {d['limit']} moves"
        w = d["w"]
        grid, used = state
        head = "   " + " ".join(str(c % 10) for c in range(w))
        rows = [f"{r:>2} " + " ".join(str(v) for v in grid[r * w:(r + 1) * w]) for r in range(d["h"])]
        return "\n".join([head, *rows, f"Moves used: {used} of {d['limit']}"])

    def describe(self, instance: Instance) -> str:
        d = instance.data
        return (f"The board is {d['w']} columns by {d['h']} rows with {d['colours']} colours (0 to "
                f"{d['colours'] - 1}); the move limit is {d['limit']}.\n"
                f"Current board:\n{self.render_state(instance, self.initial_state(instance))}\n"
                f"Find at most {d['limit']} colour moves that make the whole board one colour.")

    def picture(self, instance: Instance, state: tuple | None) -> tuple[np.ndarray, dict]:
        from ... import raster

        d = instance.data
        w = d["w"]
        grid = state[0] if state is not None else [0] * (w * d["h"])

        def paint(img, r, c, box):
            v = grid[r * w + c]
            raster.fill(img, box, HUES[v] if 0 <= v < len(HUES) else (0, 0, 0))

        return self.grid_picture(w, d["h"], max(12, 240 // max(w, d["h"])), paint)

    def move_places(self, instance: Instance, move: Any) -> list:
        """A move names no cell."""
        return []
