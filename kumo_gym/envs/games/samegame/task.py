"""Samegame (Tatham's same game): remove groups of one colour until the board is empty."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ....core.errors import ConfigError
from ....core.instance import Instance
from ....core.params import param
from ..base import CellMoves, GameParams, GameTask
from . import codec
from .generate import MAX_TRIES, random_grid, soluble_board
from .search import clear, from_grid, group_at, groups, remove, to_grid

SAMEGAME_PARTIAL_CREDIT = (
    "1 when the board is emptied; 0 otherwise. Whether a board can still be cleared is a hard search "
    "question with no distance to measure, and a share of the cells removed would pay moves that strand "
    "single cells for good, so no partial credit is given; the efficiency measure is the number of removals "
    "against the clearing search's (optimal_length), a reference, not a proven optimum")
#: nodes of the clearing search per instance or state
SEARCH_NODES = 200_000
#: colours of the pictures, colour 1..9 (Tatham's palette) and the empty cell
HUES = [(230, 230, 230), (0, 0, 255), (0, 128, 0), (255, 0, 0), (255, 255, 0), (255, 0, 255), (0, 255, 255),
        (128, 128, 255), (128, 255, 128), (255, 128, 128)]


@dataclass(frozen=True)
class SamegameParams(GameParams):
    w: int = param(5, lo=1, hi=codec.MAX_SIDE, doc="board width")
    h: int = param(5, lo=1, hi=codec.MAX_SIDE, doc="board height")
    colours: int = param(3, lo=2, hi=codec.MAX_COLOURS, doc="number of colours (at least 3 for soluble boards)")
    scoresub: int = param(2, choices=(1, 2), doc="Tatham's scoring threshold S: removing n cells scores (n - S)^2")
    soluble: bool = param(True, doc="build the board to be soluble (Tatham's default); False: Tatham's random "
                                    "fill, drawn again until the clearing search empties it")

    def check(self) -> SamegameParams:
        if self.w * self.h < 2:
            raise ConfigError(f"a Samegame board needs at least 2 cells, got {self.w}x{self.h}")
        if self.soluble and self.colours < 3:
            raise ConfigError(f"soluble Samegame boards need at least 3 colours, got {self.colours}")
        if not self.soluble and self.w * self.h < 2 * self.colours:
            raise ConfigError(f"a random {self.w}x{self.h} board cannot hold two cells of each of "
                              f"{self.colours} colours")
        return self


class SamegameTask(CellMoves, GameTask):
    """Samegame: remove groups of two or more cells of one colour until the board is empty.

    ## Description
    A ``W`` x ``H`` board of coloured cells (colours 1..N). A move names a cell whose group (the
    cells of its colour joined to it through edge neighbours) has at least two cells; the whole
    group is removed, the cells above fall into the gaps, and empty columns close up to the left.
    The goal is an empty board. Boards are built to be soluble (Tatham's default: backwards, one
    removable domino at a time); the reference solution comes from a depth-first clearing search.
    Tatham's score ((n - S)^2 per removal of n cells) is reported, not rewarded.

    ## Answer (``mode="answer"``, default)
    ``moves = [[row, col], ...]``: one cell of each group removed, in order, 0-based (row 0 at the
    top), read on the board as it is at that moment.
    """

    partial_credit: ClassVar[str] = SAMEGAME_PARTIAL_CREDIT
    move_fields = "[row, col]"
    move_example = "[4, 0]"
    example_game_id = "5x5c3s2:3,1,1,2,1,2,3,3,2,2,2,2,1,1,2,1,3,2,3,1,1,3,1,3,1"
    rule_codes = """
        off_board: the named cell is on the board (0 <= row < H, 0 <= col < W)
        empty_cell: the named cell holds a colour (it is not empty)
        lone_cell: the named cell's group has at least two cells (a cell with no neighbour of its colour cannot be removed)
    """
    tatham_presets: ClassVar[dict[str, str]] = {
        "tatham_5x5c3": "5x5c3s2", "tatham_10x5c3": "10x5c3s2", "tatham_15x10c3": "15x10c3s2",
        "tatham_15x10c4": "15x10c4s2", "tatham_20x15c4": "20x15c4s2"}
    difficulties: ClassVar[dict[str, dict]] = {
        "trivial": {"w": 4, "h": 3, "colours": 3},
        "easy": {"w": 5, "h": 5, "colours": 3},
        "normal": {"w": 10, "h": 5, "colours": 3},
        "hard": {"w": 10, "h": 8, "colours": 4},
        **{name: {k: v for k, v in codec.decode_params(p).items() if k != "soluble"}
           for name, p in tatham_presets.items()},
    }
    default_difficulty = "easy"

    # ---- instance ----------------------------------------------------------------------
    def build(self, params: dict, rng: np.random.Generator) -> dict:
        w, h, nc = params["w"], params["h"], params["colours"]
        data = {"w": w, "h": h, "colours": nc, "scoresub": params["scoresub"]}
        if params.get("soluble", True):
            data["grid"] = list(to_grid(tuple(map(tuple, soluble_board(w, h, nc, rng))), w, h))
        else:
            for _ in range(MAX_TRIES):
                data["grid"] = random_grid(w, h, nc, rng)
                if clear(from_grid(data["grid"], w, h), SEARCH_NODES) is not None:
                    break
            else:  # pragma: no cover - small random boards clear often enough
                raise ConfigError(f"no clearable random {w}x{h} board with {nc} colours in {MAX_TRIES} draws")
        data["game_id"] = f"{codec.encode_params(data, full=False)}:{codec.encode_desc(data)}"
        return data

    def validate_instance(self, instance: Instance) -> None:
        super().validate_instance(instance)
        if self._solution(instance) is None:
            raise ConfigError(f"Samegame board {instance.data['game_id'][:60]!r} could not be cleared: the clearing "
                              f"search found no sequence within {SEARCH_NODES} nodes")

    # ---- rules -------------------------------------------------------------------------------------
    def initial_state(self, instance: Instance) -> tuple:
        return tuple(instance.data["grid"])

    def goal_state(self, instance: Instance) -> tuple:
        return (0,) * (instance.data["w"] * instance.data["h"])

    def _group(self, instance: Instance, state: tuple, move: list) -> list:
        """The group (board cells) of the named cell, [] for an empty cell."""
        d = instance.data
        w, h = d["w"], d["h"]
        i = self.cell_index(instance, move) % (w * h)
        if not state[i]:
            return []
        r, c = divmod(i, w)
        board = from_grid(state, w, h)
        return group_at(board, c, h - 1 - r)

    def check_move(self, instance: Instance, state: tuple, move: list) -> str | None:
        if self.off_board(instance, move):
            return "off_board"
        off = self._disabled_rules
        group = None
        if "empty_cell" not in off:
            group = self._group(instance, state, move)
            if not group:
                return "empty_cell"
        if "lone_cell" not in off:
            group = self._group(instance, state, move) if group is None else group
            if len(group) == 1:
                return "lone_cell"
        return None

    def apply(self, instance: Instance, state: tuple, move: list) -> tuple:
        """Remove the named cell's group; an empty cell or a lone one changes nothing (as in Tatham's game)."""
        d = instance.data
        group = self._group(instance, state, move)
        if len(group) < 2:
            return state
        return to_grid(remove(from_grid(state, d["w"], d["h"]), group), d["w"], d["h"])

    def score_of(self, instance: Instance, moves: list) -> int:
        """Tatham's score of a legal move list: (n - S)^2 for each removal of n > S cells."""
        state, total = self.initial_state(instance), 0
        for m in moves:
            n = len(self._group(instance, state, m))
            total += max(0, n - instance.data["scoresub"]) ** 2 if n >= 2 else 0
            state = self.apply(instance, state, m)
        return total

    # ---- the clearing search ---------------------------------------------------------------------
    def _clear_from(self, instance: Instance, state: tuple) -> list | None:
        d = instance.data
        w, h = d["w"], d["h"]
        board = from_grid(state, w, h)
        if to_grid(board, w, h) != tuple(state):
            return None  # not a settled board
        path = clear(board, SEARCH_NODES)
        if path is None:
            return None
        moves = []
        for g in path:
            x, y = min(g, key=lambda cell: (-cell[1], cell[0]))  # the group's first cell in reading order
            moves.append([h - 1 - y, x])
            board = remove(board, g)
        return moves

    def _solution(self, instance: Instance) -> list | None:
        return self.cached(instance, "solution", lambda: self._clear_from(instance, self.initial_state(instance)))

    def optimal_length(self, instance: Instance) -> int | None:
        sol = self._solution(instance)
        return None if sol is None else len(sol)

    def solve(self, instance: Instance) -> list:
        return [list(m) for m in self._solution(instance) or []]

    def distance(self, instance: Instance, state: tuple) -> int | None:
        return None

    def distance_exact(self, instance: Instance) -> bool:
        return False

    def path_from(self, instance: Instance, state: tuple) -> list | None:
        if state == tuple(instance.data["grid"]):
            return self.solve(instance)
        return self._clear_from(instance, state)

    def progress(self, instance: Instance, k: int, state: Any, goal_reached_at: int | None) -> tuple[float, bool]:
        return 0.0, True

    def record_fields(self, instance: Instance) -> dict:
        return {**super().record_fields(instance), "tatham_score": self.score_of(instance, self.solve(instance))}

    # ---- moves ---------------------------------------------------------------------------------------
    def legal_moves(self, instance: Instance, state: tuple) -> list:
        """Every cell of every removable group (each names its whole group, as the checker allows)."""
        d = instance.data
        w, h = d["w"], d["h"]
        board = from_grid(state, w, h)
        if to_grid(board, w, h) != tuple(state):
            return [m for m in self.move_catalog(instance) if self.check_move(instance, state, m) is None]
        out = []
        for g in groups(board):
            out.extend([h - 1 - y, x] for x, y in g)
        return sorted(out)

    def encode_state(self, instance: Instance, state: tuple) -> np.ndarray:
        """Every cell's colour divided by N (0 is empty)."""
        return np.asarray(state, np.float32) / instance.data["colours"]

    # ---- text ------------------------------------------------------------------------------------------
    def rules(self, instance: Instance) -> str:
        return self.game_rules(
            "The board is a grid of coloured cells, each shown as its colour number; '.' is an empty cell.",
            "A group is a set of cells of one colour joined through shared edges (not corners). A move names "
            "one cell, written [row, col]; its whole group is removed, which is allowed only when the group "
            "has at least two cells. After a removal the cells above each gap fall straight down, and any "
            "column left empty disappears, the columns to its right moving left to close the gap. Cell "
            "positions in later moves refer to the board after the earlier removals. The goal is to remove "
            "every cell.")

    def example(self) -> tuple[str, list]:
        return (("On a board of 2 columns and 2 rows whose rows read '1 2' and '1 2', [0, 0] removes the two 1s "
                 "in column 0; column 1 then moves left to become column 0, and [1, 0] removes the two 2s."),
                [[0, 0], [1, 0]])

    def other_examples(self) -> list[tuple[str, list]]:
        return [(("On a board of 4 columns and 1 row reading '2 2 1 1', [0, 2] removes the two 1s, then [0, 0] "
                  "removes the two 2s."), [[0, 2], [0, 0]])]

    def render_state(self, instance: Instance, state: tuple) -> str:
        d = instance.data
        w = d["w"]
        head = "   " + " ".join(str(c % 10) for c in range(w))
        rows = [f"{r:>2} " + " ".join(str(v) if v else "." for v in state[r * w:(r + 1) * w]) for r in range(d["h"])]
        return "\n".join([head, *rows])

    def describe(self, instance: Instance) -> str:
        d = instance.data
        return (f"The board is {d['w']} columns by {d['h']} rows with {d['colours']} colours.\n"
                f"Current board:\n{self.render_state(instance, self.initial_state(instance))}\n"
                "Find removals that empty the board.")

    def picture(self, instance: Instance, state: tuple) -> tuple[np.ndarray, dict]:
        from ... import raster

        d = instance.data
        w = d["w"]

        def paint(img, r, c, box):
            v = state[r * w + c]
            raster.fill(img, box, HUES[v] if 0 <= v < len(HUES) else HUES[0])

        return self.grid_picture(w, d["h"], max(12, 240 // max(w, d["h"])), paint)
