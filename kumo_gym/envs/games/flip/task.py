"""Flip (Tatham's Lights Out with his other toggle shapes): rules, solver hooks and texts."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ....core.errors import ConfigError
from ....core.instance import Instance
from ....core.params import param
from ....solvers.gf2 import bits, eliminate, min_weight_solution
from ..base import DARK, TILE, CellMoves, GameParams, GameTask
from . import codec
from .generate import start_lights, toggles_for


@dataclass(frozen=True)
class FlipParams(GameParams):
    w: int = param(3, lo=1, hi=codec.MAX_SIDE, doc="board width")
    h: int = param(3, lo=1, hi=codec.MAX_SIDE, doc="board height")
    shape: str = param("crosses", choices=("crosses", "random"),
                       doc="crosses: a press toggles the cell and its four neighbours; random: each cell toggles "
                           "its own connected patch of its 3x3 neighbourhood")
    presses: int | None = param(None, kind=int, lo=1, hi=codec.MAX_SIDE ** 2,
                                doc="scramble by pressing this many distinct cells (the optimum is at most this); "
                                    "default: Tatham's draw, a uniformly random solvable pattern")

    def check(self) -> FlipParams:
        if self.w * self.h < 2:
            raise ConfigError(f"a Flip board needs at least 2 cells, got {self.w}x{self.h}")
        return self


class FlipTask(CellMoves, GameTask):
    """Flip: press cells to turn every light off.

    ## Description
    A ``W`` x ``H`` board of lights. Pressing a cell toggles a fixed set of cells: with
    ``shape="crosses"`` the cell and its orthogonal neighbours (Lights Out); with
    ``shape="random"`` a connected patch of the cell's 3x3 neighbourhood, different for every cell
    and listed in the prompt. The goal is a board with every light off. Presses commute and a
    second press of a cell undoes the first, so a solution is a set of cells; the fewest presses
    come from linear algebra over GF(2) with the null space enumerated (every solution is one
    particular solution plus a null-space vector), so the optimum is exact.

    ## Answer (``mode="answer"``, default)
    ``moves = [[row, col], ...]``: the cells pressed, in order, 0-based (row 0 at the top).
    """

    move_fields = "[row, col]"
    move_example = "[1, 2]"
    example_game_id = "3x3:d074191345d1644c17058,ea8"
    rule_codes = """
        off_board: the pressed cell is on the board (0 <= row < H, 0 <= col < W)
    """
    tatham_presets: ClassVar[dict[str, str]] = {"tatham_3x3c": "3x3c", "tatham_4x4c": "4x4c", "tatham_5x5c": "5x5c",
                      "tatham_3x3r": "3x3r", "tatham_4x4r": "4x4r", "tatham_5x5r": "5x5r"}
    difficulties: ClassVar[dict[str, dict]] = {
        "trivial": {"w": 3, "h": 3, "shape": "crosses", "presses": 2},
        "easy": {"w": 3, "h": 3, "shape": "crosses"},
        "normal": {"w": 4, "h": 4, "shape": "crosses"},
        "hard": {"w": 5, "h": 5, "shape": "random"},
        **{name: {"w": int(p[0]), "h": int(p[2]), "shape": codec.SHAPES[p[3]]} for name, p in tatham_presets.items()},
    }
    default_difficulty = "easy"
    #: boards small enough for the brute-force check of the solver (tests/games)
    small_params = ({"w": 3, "h": 3, "shape": "crosses"}, {"w": 4, "h": 4, "shape": "crosses"},
                    {"w": 4, "h": 3, "shape": "random"}, {"w": 2, "h": 5, "shape": "random", "presses": 3})

    # ---- instance ----------------------------------------------------------------------
    def build(self, params: dict, rng: np.random.Generator) -> dict:
        w, h = params["w"], params["h"]
        toggles = toggles_for(w, h, params["shape"], rng)
        data = {"w": w, "h": h, "shape": params["shape"], "toggles": toggles,
                "lit": start_lights(toggles, params.get("presses"), rng)}
        data["game_id"] = f"{codec.encode_params(data, full=False)}:{codec.encode_desc(data)}"
        return data

    def validate_instance(self, instance: Instance) -> None:
        super().validate_instance(instance)
        if self._optimum(instance)[0] is None:
            raise ConfigError(f"Flip instance {instance.data['game_id'][:60]!r} cannot be solved: no set of presses "
                              "turns every light off")

    # ---- rules -------------------------------------------------------------------------------------
    def initial_state(self, instance: Instance) -> int:
        return sum(1 << j for j in instance.data["lit"])

    def goal_state(self, instance: Instance) -> int:
        return 0

    def _masks(self, instance: Instance) -> list[int]:
        return self.cached(instance, "masks", lambda: [sum(1 << j for j in row) for row in instance.data["toggles"]])

    def check_move(self, instance: Instance, state: int, move: list) -> str | None:
        return "off_board" if self.off_board(instance, move) else None

    def apply(self, instance: Instance, state: int, move: list) -> int:
        return state ^ self._masks(instance)[self.cell_index(instance, move)]

    # ---- the solver: GF(2) elimination, null space enumerated ------------------------------------------
    def _elimination(self, instance: Instance):
        return self.cached(instance, "elim", lambda: eliminate(self._masks(instance)))

    def _optimum(self, instance: Instance) -> tuple[int | None, bool]:
        return self.cached(instance, "opt", lambda: min_weight_solution(self._elimination(instance),
                                                                        self.initial_state(instance)))

    def optimal_length(self, instance: Instance) -> int | None:
        x, _ = self._optimum(instance)
        return None if x is None else x.bit_count()

    def solve(self, instance: Instance) -> list:
        x, _ = self._optimum(instance)
        return [] if x is None else self._presses(instance, x)

    def _presses(self, instance: Instance, x: int) -> list:
        w = instance.data["w"]
        return [list(divmod(i, w)) for i in bits(x)]

    def distance(self, instance: Instance, state: int) -> int | None:
        x, exact = min_weight_solution(self._elimination(instance), state)
        return None if x is None or not exact else x.bit_count()

    def distance_exact(self, instance: Instance) -> bool:
        return self._elimination(instance).nullity <= 22

    def path_from(self, instance: Instance, state: int) -> list | None:
        x, _ = min_weight_solution(self._elimination(instance), state)
        return None if x is None else self._presses(instance, x)

    # ---- moves ---------------------------------------------------------------------------------------
    def legal_moves(self, instance: Instance, state: int) -> list:
        return self.move_catalog(instance)

    def encode_state(self, instance: Instance, state: int) -> np.ndarray:
        return self.lit_bits(instance, state)

    # ---- text ------------------------------------------------------------------------------------------
    def rules(self, instance: Instance) -> str:
        d = instance.data
        if d["shape"] == "crosses":
            effect = "toggles that cell and the cells directly above, below, left and right of it (where they exist)"
        else:
            effect = "toggles the cells listed for it under 'Press effects' (always including the cell itself)"
        return ("You are playing Flip. The board is a grid of lights; '#' is a light that is on, '.' one that is "
                f"off. Rows are numbered from 0 at the top, columns from 0 at the left. Pressing a cell {effect}: "
                "lights that were on go off and lights that were off go on. The goal is to turn every light off. "
                "Each move presses one cell and is written [row, col].")

    def _effects(self, instance: Instance) -> str:
        d = instance.data
        w = d["w"]
        lines = ["Press effects (cell: cells it toggles):"]
        for i, row in enumerate(d["toggles"]):
            cells = " ".join(f"({j // w},{j % w})" for j in row)
            lines.append(f"({i // w},{i % w}): {cells}")
        return "\n".join(lines)

    def example(self) -> tuple[str, list]:
        return (("On a 3x3 crosses board the lights (0,0), (0,1) and (1,0) are on: pressing (0,0) toggles "
                 "exactly those three cells."), [[0, 0]])

    def other_examples(self) -> list[tuple[str, list]]:
        """For the boards the first example answers (the 3x3 easy preset draws one about every 400
        seeds). A board is answered by a press list only if it is the sum of their effects, so of
        [0,0], [1,1] and both together at most two can answer any board with a light on."""
        return [
            (("On a 3x3 crosses board the centre (1,1) and the four cells beside it are on: pressing (1,1) "
              "toggles exactly those five cells."), [[1, 1]]),
            (("On a 3x3 crosses board the lights (0,0), (1,1), (1,2) and (2,1) are on: pressing (0,0) turns "
              "(0,0) off and (0,1), (1,0) on, then pressing (1,1) turns those two and the other three off."),
             [[0, 0], [1, 1]]),
        ]

    def render_state(self, instance: Instance, state: int) -> str:
        d = instance.data
        w, h = d["w"], d["h"]
        head = "   " + " ".join(str(c % 10) for c in range(w))
        rows = [f"{r:>2} " + " ".join("#" if state >> (r * w + c) & 1 else "." for c in range(w)) for r in range(h)]
        return "\n".join([head, *rows])

    def describe(self, instance: Instance) -> str:
        d = instance.data
        text = f"The board is {d['w']} columns by {d['h']} rows.\n"
        if d["shape"] != "crosses":
            text += self._effects(instance) + "\n"
        return text + (f"Current board:\n{self.render_state(instance, self.initial_state(instance))}\n"
                       "Find presses that turn every light off.")

    def picture(self, instance: Instance, state: int) -> tuple[np.ndarray, dict]:
        from ... import raster

        d = instance.data
        w = d["w"]

        def paint(img, r, c, box):
            raster.fill(img, box, TILE if state >> (r * w + c) & 1 else DARK)

        return self.grid_picture(w, d["h"], max(16, 240 // max(w, d["h"])), paint)
