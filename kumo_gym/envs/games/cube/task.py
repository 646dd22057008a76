"""Cube (Tatham's solid rolled over a grid to collect the blue cells on its faces): rules, solver hooks, texts."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ....core.capabilities import NearMiss
from ....core.errors import ConfigError, ParseError
from ....core.instance import Instance
from ....core.params import param
from ..base import BLANK, DARK, TILE, GameParams, GameTask
from . import codec
from . import geometry as geo
from .generate import random_board
from .search import DISTANCE_BUDGET, INF, MANY_DISTANCE_BUDGET, MANY_FACES, MANY_SOLVE_BUDGET, SOLVE_BUDGET, Search

#: positions whose search is kept per instance
PATH_CACHE = 4096
BLUE = (60, 90, 220)
WORDS = {"l": "L", "left": "L", "r": "R", "right": "R", "u": "U", "up": "U", "d": "D", "down": "D"}
COMPASS = ("east", "north-east", "north", "north-west", "west", "south-west", "south", "south-east")


@dataclass(frozen=True)
class CubeParams(GameParams):
    solid: str = param("cube", choices=geo.SOLIDS,
                       doc="the solid: cube (on a grid of squares), tetrahedron, octahedron or icosahedron (on a "
                           "hexagon of triangles)")
    w: int = param(4, lo=0, hi=codec.MAX_SIDE,
                   doc="cube: grid width; triangles: the hexagon's top side (and its two lower slanted sides)")
    h: int = param(4, lo=0, hi=codec.MAX_SIDE,
                   doc="cube: grid height; triangles: the hexagon's other three sides (0: a triangle)")

    def check(self) -> CubeParams:
        codec.check_size(self.solid, self.w, self.h)
        return self


class CubeTask(GameTask):
    """Cube: roll a solid over a grid, picking up the blue cells on its faces until every face is blue.

    ## Description
    A grid (squares for the cube; a hexagon of triangles for the tetrahedron, the octahedron and
    the icosahedron)
    with some cells blue, and a solid standing on one cell with every face plain. A move rolls
    the solid over one edge of its bottom face onto the neighbouring cell. After each roll the
    face now at the bottom and the cell it landed on swap colours: a plain face landing on a blue
    cell picks the blue up (the cell turns plain), a blue face landing on a plain cell leaves its
    blue there, and equal colours change nothing. The goal is every face blue (Tatham's boards
    hold exactly as many blue cells as the solid has faces). The optimum comes from A* over
    (cell, blue faces, blue cells) with an admissible bound (plain faces left; the nearest blue
    cell; where every blue cell must still be visited, the shortest tree joining them and the
    solid); where it exceeds its node budget a weighted search finds a solution and the optimum
    is certified only between bounds (``optimum_bounds``; no partial credit is paid then). The
    icosahedron's 20 faces put the exact search out of reach on Tatham's boards: a beam over
    pick-ups, finished by weighted A*, finds its rolls, and its optimum is always an interval.

    ## Answer (``mode="answer"``, default)
    ``moves = [["R"], ["D"], ...]``: one roll per move, Tatham's directions ``L`` (left), ``R``
    (right), ``U`` (up the screen) and ``D`` (down). On a square every direction crosses the edge
    on that side; a down-pointing triangle rolls ``L``, ``R`` over its lower slanted edges and
    ``U`` over its top edge, an up-pointing one ``L``, ``R`` over its upper slanted edges and ``D``
    over its bottom edge.
    """

    move_fields = '["L" | "R" | "U" | "D"]'
    move_example = '["R"]'
    example_game_id = "c4x4:6426,9"
    rule_codes = """
        game_over: the game is not yet won (no roll follows the one that turned the last face blue)
        no_edge: the cell under the solid has an edge in that direction (a down-pointing triangle has no bottom edge, an up-pointing one no top edge)
        off_board: the roll lands on a cell of the grid
    """
    tatham_presets: ClassVar[dict[str, str]] = {
        "tatham_cube": "c4x4", "tatham_tetrahedron": "t1x2", "tatham_octahedron": "o2x2",
        "tatham_icosahedron": "i3x3"}
    difficulties: ClassVar[dict[str, dict]] = {
        "trivial": {"solid": "tetrahedron", "w": 1, "h": 2},
        "easy": {"solid": "cube", "w": 3, "h": 3},
        "normal": {"solid": "cube", "w": 4, "h": 4},
        "hard": {"solid": "cube", "w": 6, "h": 6},
        **{name: codec.decode_params(p) for name, p in tatham_presets.items()},
    }
    default_difficulty = "normal"
    small_params = ({"solid": "cube", "w": 3, "h": 3}, {"solid": "tetrahedron", "w": 1, "h": 2},
                    {"solid": "cube", "w": 4, "h": 2}, {"solid": "tetrahedron", "w": 2, "h": 1})

    # ---- instance ----------------------------------------------------------------------
    def build(self, params: dict, rng: np.random.Generator) -> dict:
        solid, w, h = params["solid"], params["w"], params["h"]
        codec.check_size(solid, w, h)
        blue, start = random_board(solid, w, h, rng)
        desc = f"{codec.encode_bitmap(blue)},{start}"
        return codec.decode_desc({"solid": solid, "w": w, "h": h}, desc)

    def validate_instance(self, instance: Instance) -> None:
        super().validate_instance(instance)
        sol = self._solution(instance)
        if sol["moves"] is None:
            why = "no roll sequence turns every face blue" if sol["lower"] >= INF else "the search ran out of budget"
            raise ConfigError(f"Cube board {instance.data['game_id'][:60]!r} cannot be used: {why}")

    def search(self, instance: Instance) -> Search:
        d = instance.data
        return self.cached(instance, "search", lambda: Search(d["solid"], d["w"], d["h"]))

    def cells(self, instance: Instance) -> tuple:
        d = instance.data
        return geo.grid(d["solid"], d["w"], d["h"])

    # ---- rules -------------------------------------------------------------------------------------
    def initial_state(self, instance: Instance) -> tuple[int, int, int]:
        d = instance.data
        return d["start"], 0, int(d["blue"][::-1], 2)

    def goal_state(self, instance: Instance) -> None:
        """There is no single goal position (the solid may end anywhere): :meth:`is_goal` tests it."""

    def is_goal(self, instance: Instance, state: Any) -> bool:
        return (isinstance(state, tuple) and len(state) == 3
                and state[1] == (1 << geo.FACES[instance.data["solid"]]) - 1)

    def check_move(self, instance: Instance, state: tuple, move: list) -> str | None:
        cell = self.cells(instance)[state[0]]
        dirs = ("L", "R", "U", "D") if not cell.flip and instance.data["solid"] == "cube" else \
            ("L", "R", "U") if cell.flip else ("L", "R", "D")
        won = state[1] == (1 << geo.FACES[instance.data["solid"]]) - 1
        return self.first_broken(("game_over", not won), ("no_edge", move[0] in dirs),
                                 ("off_board", move[0] in cell.edges))

    def apply(self, instance: Instance, state: tuple, move: list) -> tuple:
        nxt = self.search(instance).step(state, move[0])
        return state if nxt is None else nxt  # no cell that way (reached only with the checks off): no roll

    # ---- the solver ----------------------------------------------------------------------------------
    def _solution(self, instance: Instance) -> dict:
        return self.cached(instance, "solution", lambda: self.search(instance).solve(
            self.initial_state(instance), self._budgets(instance)[0]))

    @staticmethod
    def _budgets(instance: Instance) -> tuple[int, int]:
        """The exact search's node budgets (the start, a later position): smaller for the icosahedron."""
        if geo.FACES[instance.data["solid"]] > MANY_FACES:
            return MANY_SOLVE_BUDGET, MANY_DISTANCE_BUDGET
        return SOLVE_BUDGET, DISTANCE_BUDGET

    def solve(self, instance: Instance) -> list:
        moves = self._solution(instance)["moves"]
        return [] if moves is None else [[m] for m in moves]

    def optimum_bounds(self, instance: Instance) -> tuple[int, int]:
        """``(lower, upper)``: the optimum lies in this range (equal when it is exact); the upper bound
        is the length of :meth:`solve`'s rolls, which count as the optimum for efficiency."""
        return tuple(self._solution(instance)[k] for k in ("lower", "upper"))  # type: ignore[return-value]

    def optimal_length(self, instance: Instance) -> int | None:
        return self.optimum_bounds(instance)[1]

    def search_nodes(self, instance: Instance) -> int:
        """Positions the exact search expanded from the start (the measure of how hard the board is)."""
        return self._solution(instance)["nodes"]

    def distance_exact(self, instance: Instance) -> bool:
        return self._solution(instance)["exact"]

    def _is_state(self, instance: Instance, state: Any) -> bool:
        d = instance.data
        n = len(d["blue"])
        nf = geo.FACES[d["solid"]]
        return (isinstance(state, tuple) and len(state) == 3 and all(type(v) is int for v in state)
                and 0 <= state[0] < n and 0 <= state[1] < 1 << nf and 0 <= state[2] < 1 << n
                and state[1].bit_count() + state[2].bit_count() == d["blue"].count("1"))

    def path_from(self, instance: Instance, state: Any) -> list | None:
        if not self._is_state(instance, state):
            return None
        if state == self.initial_state(instance):
            sol = self._solution(instance)
            return self.solve(instance) if sol["exact"] else None
        cache = self.cached(instance, "paths", dict)
        if state not in cache:
            if len(cache) >= PATH_CACHE:
                cache.clear()
            cache[state] = self.search(instance).astar(state, self._budgets(instance)[1])[0]
        hit = cache[state]
        return None if hit is None else [[m] for m in hit]

    def distance(self, instance: Instance, state: Any) -> int | None:
        """The exact number of rolls left; None when no roll sequence reaches the goal, or when the
        search's budget ran out (and on boards whose optimum is only certified between bounds)."""
        if not self.distance_exact(instance):
            return None
        path = self.path_from(instance, state)
        return None if path is None else len(path)

    def record_fields(self, instance: Instance) -> dict:
        lower, upper = self.optimum_bounds(instance)
        return {**super().record_fields(instance), "optimum_lower_bound": lower, "optimum_exact": lower == upper,
                "search_nodes": self.search_nodes(instance)}

    # ---- moves ---------------------------------------------------------------------------------------
    def coerce_move(self, value: Any) -> list:
        if isinstance(value, list) and len(value) == 1 and isinstance(value[0], str):
            key = value[0].strip().lower()[:10]
            if key in WORDS:
                return [WORDS[key]]
        raise ParseError(f'a Cube move is one direction ["L"], ["R"], ["U"] or ["D"], got {str(value)[:60]}',
                         "malformed_move")

    def is_single_move(self, value: Any) -> bool:
        return isinstance(value, list) and len(value) == 1 and not isinstance(value[0], list)

    def move_catalog(self, instance: Instance) -> list:
        return [[m] for m in geo.DIRECTIONS]

    def legal_moves(self, instance: Instance, state: tuple | None) -> list:
        if state is None or self.is_goal(instance, state):
            return []
        return [[m] for m in self.search(instance).directions(state[0])]

    def candidate_moves(self, instance: Instance, state: tuple) -> list:
        return self.move_catalog(instance)

    def near_misses(self, instance: Instance, rng: np.random.Generator) -> list[NearMiss]:
        """The base's near misses, and ``game_over``'s: the solution with one more roll after the win
        (the only place that rule can be broken)."""
        out = super().near_misses(instance, rng)
        gold = self.solve(instance)
        if gold:
            state = self.initial_state(instance)
            for m in gold:
                state = self.apply(instance, state, m)
            for d in self.search(instance).directions(state[0])[:2]:
                out.append(NearMiss("game_over", gold + [[d]]))
        return out

    def encode_state(self, instance: Instance, state: tuple) -> np.ndarray:
        """The blue cells, the blue faces, then the solid's cell one-hot (all 0/1)."""
        n = len(instance.data["blue"])
        nf = geo.FACES[instance.data["solid"]]
        pos, faces, blue = state
        out = np.zeros(2 * n + nf, np.float32)
        out[:n] = [(blue >> i) & 1 for i in range(n)]
        out[n:n + nf] = [(faces >> i) & 1 for i in range(nf)]
        if 0 <= pos < n:
            out[n + nf + pos] = 1.0
        return out

    # ---- text ------------------------------------------------------------------------------------------
    def face_names(self, instance: Instance, flip: bool) -> list[str]:
        """The faces by where they point in the solid's attitude on a cell (turned when ``flip``)."""
        normals = geo.face_normals(instance.data["solid"])
        out = []
        for n in normals:
            x, y, z = (-n[0], -n[1], n[2]) if flip else tuple(n)
            if abs(z) > 0.999:
                out.append("bottom" if z < 0 else "top")
                continue
            k = round(math.degrees(math.atan2(-y, x)) / 45) % 8
            side = COMPASS[k]
            out.append(side if abs(z) < 1e-6 else ("upper " if z > 0 else "lower ") + side)
        return out

    def rules(self, instance: Instance) -> str:
        solid = instance.data["solid"]
        nf = geo.FACES[solid]
        if solid == "cube":
            board = ("The grid is made of squares; '#' is a blue square, '.' a plain one, and the cube stands on the "
                     "square shown 'C' (plain) or '@' (blue). Rows are numbered from 0 at the top, columns from 0 "
                     "at the left.")
            moves = ("A move rolls the cube over one edge of its bottom face onto the next square: \"L\" left, "
                     "\"R\" right, \"U\" up (towards row 0), \"D\" down; it cannot roll off the grid. The faces are "
                     "named by where they point: bottom, top, and the sides north (up the grid, towards row 0), "
                     "south, east (right) and west (left). Rolling right brings the east face to the bottom, the "
                     "bottom face to the west, the west face to the top and the top face to the east (the other "
                     "directions alike).")
        else:
            board = (f"The grid is a hexagon of triangles, listed row by row from the top, each row from left to "
                     f"right: 'v' is a down-pointing triangle, '^' an up-pointing one; the next sign is '#' for a "
                     f"blue triangle, '.' a plain one, 'S' for the {solid} on a plain triangle and '@' on a blue one.")
            moves = (f"A move rolls the {solid} over one edge of its bottom face onto the neighbouring triangle, "
                     "tipping it over that edge: on a down-pointing triangle \"L\" crosses the lower-left edge, \"R\" "
                     "the lower-right edge and \"U\" the top edge; on an up-pointing triangle \"L\" crosses the "
                     "upper-left edge, \"R\" the upper-right edge and \"D\" the bottom edge. It cannot roll off the "
                     "grid. The faces are named by where they point: bottom, top, and the slanted sides by their "
                     "compass direction on the page (north is up, towards row 0) and whether they lean up (upper) or "
                     "down (lower).")
        article = "An" if solid[0] in "aeiou" else "A"
        return (f"You are playing Cube. {article} {solid} with {nf} faces, all plain at the start, stands on a grid of "
                f"which some cells are blue. {board} {moves} After every roll the face now at the bottom and the "
                "cell it landed on swap colours: a plain face landing on a blue cell picks the blue up (the cell "
                "turns plain), a blue face landing on a plain cell leaves its blue there (the face turns plain), "
                f"and equal colours change nothing. The goal is all {nf} faces blue. Each move is written as a "
                "one-item list naming the direction, e.g. [\"R\"]. The game ends when the last face turns blue: "
                "no roll may follow.")

    def example(self) -> tuple[str, list]:
        return (("A cube stands on a plain square; five of its faces are already blue, only its east face (pointing "
                 "right) is plain, and the square to its right is blue. Rolling right brings that face down onto the blue "
                 "square, which it picks up, so every face is blue."), [["R"]])

    def render_state(self, instance: Instance, state: tuple | None) -> str:
        d = instance.data
        nf = geo.FACES[d["solid"]]
        if state is None:
            return f"every one of the {nf} faces blue, the {d['solid']} on any cell"
        pos, faces, blue = state
        cells = self.cells(instance)
        if d["solid"] == "cube":
            w = d["w"]
            head = "   " + " ".join(str(c % 10) for c in range(w))
            rows = [f"{r:>2} " + " ".join(self._mark(pos, blue, r * w + c, "C") for c in range(w))
                    for r in range(d["h"])]
            grid_text = "\n".join([head, *rows])
        else:
            by_row: dict[int, list[int]] = {}
            for i, c in enumerate(cells):
                by_row.setdefault(int(c.y / geo.ROW), []).append(i)
            left = min(c.x for c in cells)
            lines = []
            for r in sorted(by_row):
                idx = sorted(by_row[r], key=lambda i: cells[i].x)
                indent = " " * round((cells[idx[0]].x - left) * 2)
                lines.append(f"row {r}: " + indent + " ".join(
                    ("v" if cells[i].flip else "^") + self._mark(pos, blue, i, "S") for i in idx))
            grid_text = "\n".join(lines)
        names = self.face_names(instance, cells[pos].flip if 0 <= pos < len(cells) else False)
        on = [names[i] for i in range(nf) if faces >> i & 1]
        where = self._where(instance, pos)
        return (f"{grid_text}\nThe {d['solid']} is on {where}. Blue faces ({len(on)} of {nf}): "
                f"{', '.join(on) if on else 'none'}.")

    @staticmethod
    def _mark(pos: int, blue: int, i: int, solid: str) -> str:
        b = blue >> i & 1
        if i == pos:
            return "@" if b else solid
        return "#" if b else "."

    def _where(self, instance: Instance, pos: int) -> str:
        d = instance.data
        if d["solid"] == "cube":
            return f"row {pos // d['w']}, column {pos % d['w']}"
        cells = self.cells(instance)
        c = cells[pos]
        r = int(c.y / geo.ROW)
        row = sorted((i for i, x in enumerate(cells) if int(x.y / geo.ROW) == r), key=lambda i: cells[i].x)
        return f"row {r}, triangle {row.index(pos)} from the left ({'down' if c.flip else 'up'}-pointing)"

    def describe(self, instance: Instance) -> str:
        d = instance.data
        nf = geo.FACES[d["solid"]]
        shape = (f"{d['w']} columns by {d['h']} rows of squares" if d["solid"] == "cube"
                 else f"a hexagon of {len(d['blue'])} triangles")
        return (f"The grid is {shape} and holds {d['blue'].count('1')} blue cells; the {d['solid']} has {nf} faces.\n"
                f"Current position:\n{self.render_state(instance, self.initial_state(instance))}\n"
                f"Find rolls that turn all {nf} faces blue.")

    def move_places(self, instance: Instance, move: Any) -> list:
        return []

    def picture(self, instance: Instance, state: tuple) -> tuple[np.ndarray, dict]:
        from ... import raster

        d = instance.data
        pos, _, blue = state
        if d["solid"] == "cube":
            w = d["w"]

            def paint(img, r, c, box):
                i = r * w + c
                raster.fill(img, box, BLUE if blue >> i & 1 else BLANK)
                if i == pos:
                    pad = (box[2] - box[0]) // 4
                    raster.fill(img, (box[0] + pad, box[1] + pad, box[2] - pad, box[3] - pad), TILE)

            return self.grid_picture(w, d["h"], max(16, 240 // max(w, d["h"])), paint)
        cells = self.cells(instance)
        unit = 32
        left = min(c.x for c in cells)
        rows = 1 + max(int(c.y / geo.ROW) for c in cells)
        width = int((max(c.x for c in cells) - left + 1) * unit) + 24
        img = np.full((rows * unit + 24, width, 3), 250, np.uint8)
        places = {}
        for i, c in enumerate(cells):
            x0 = 12 + int((c.x - left) * unit)
            y0 = 12 + int(c.y / geo.ROW) * unit
            box = (x0, y0, x0 + unit // 2, y0 + unit)
            raster.fill(img, box, BLUE if blue >> i & 1 else (DARK if c.flip else BLANK))
            if i == pos:
                raster.fill(img, (x0 + 4, y0 + 8, x0 + unit // 2 - 4, y0 + unit - 8), TILE)
            places[("cell", str(i))] = box
        return img, places
