"""What the tile-board games (Fifteen, Sixteen) share (docs/games.md).

A state is the tuple of tile numbers in reading order. The start's optimum is searched once per
instance and is either exact or certified only between bounds (then no distance is paid); the
distance of any other state comes from a per-state search, whose paths are cached. The codec
helpers read and write a description that lists the tiles as comma-separated decimal numbers.
"""
from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Hashable, Sequence
from typing import ClassVar

import numpy as np

from ...core.errors import ConfigError
from ...core.instance import Instance
from ...core.params import Params
from .. import raster
from .base import BLANK, TILE, GameParams, GameTask

#: solved states kept per instance (interactive play asks for the distance after every move)
PATH_CACHE = 4096


def encode_tiles(tiles: list[int]) -> str:
    """The description of a board: its tiles in reading order, comma-separated."""
    return ",".join(str(t) for t in tiles)


def decode_tiles(desc: str, w: int, h: int, game: str, first: int, holds: str) -> list[int]:
    """The tiles of a ``w`` x ``h`` description that lists ``first .. first + w*h - 1`` once each
    without leading zeros; ConfigError (saying the description ``holds`` ...) otherwise."""
    n = w * h
    parts = desc.split(",", n)
    if len(parts) != n or not all(p.isdigit() and len(p) <= 3 for p in parts):
        raise ConfigError(f"a {w}x{h} {game} description is {n} comma-separated numbers, got {desc[:60]!r}")
    tiles = [int(p) for p in parts]
    if sorted(tiles) != list(range(first, first + n)) or any(p != str(t) for p, t in zip(parts, tiles, strict=True)):
        raise ConfigError(f"a {w}x{h} {game} description holds {holds} got {desc[:60]!r}")
    return tiles


def permutation_parity(perm: Sequence[int]) -> int:
    """1 when ``perm`` (``perm[i]``: where ``i`` goes, a permutation of 0..n-1) is odd, else 0."""
    seen, odd = [False] * len(perm), 0
    for i in range(len(perm)):
        if not seen[i]:
            j, k = i, 0
            while not seen[j]:
                seen[j] = True
                j = perm[j]
                k += 1
            odd ^= (k - 1) & 1
    return odd


def merge_runs(moves: Sequence[tuple], period: Callable[[object], int]) -> list[tuple]:
    """Moves ``(kind, index, step)`` with consecutive steps of one ``(kind, index)`` merged modulo
    ``period(kind)`` (the number of steps that come back to the start), those that cancel dropped,
    and the rest written again as steps of 1 or -1 the short way round."""
    out: list[list] = []
    for kind, i, step in moves:
        if out and out[-1][0] == kind and out[-1][1] == i:
            out[-1][2] += step
        else:
            out.append([kind, i, step])
        n = period(kind)
        k = out[-1][2] % n
        if k == 0:
            out.pop()
        else:
            out[-1][2] = k if k <= n // 2 else k - n
    flat: list[tuple] = []
    for kind, i, step in out:
        flat += [(kind, i, 1 if step > 0 else -1)] * abs(step)
    return flat


def bidirectional_search(start: Hashable, goal: Hashable, moves: Sequence, step: Callable, inverse: Callable,
                         max_states: int, floor: Callable[[], int], goals: Sequence | None = None) -> tuple[list | None, int]:
    """Breadth-first search from both ends at once, level by level, the smaller frontier first.

    ``(moves, lower)``: a shortest move list from ``start`` to ``goal`` (``step(state, move)`` plays
    one, ``inverse(move)`` undoes it), the shortest meeting point of a level kept; None once either
    side holds more than ``max_states`` states, and then ``lower`` is the larger of the levels both
    sides completed (plus one) and ``floor()``, a proven lower bound; ``lower`` is 2**30 when the two
    ends are not connected. ``goals``, when given, is every goal state (Netslide has many), searched
    from all at once in place of ``goal``.
    """
    targets = [goal] if goals is None else list(dict.fromkeys(goals))
    if start in targets:
        return [], 0
    fwd: dict = {start: (None, None, 0)}  # state -> (parent, move, depth) on each side
    bwd: dict = {g: (None, None, 0) for g in targets}
    f_front, b_front = [start], targets
    depth_f = depth_b = 0
    while f_front and b_front:
        expand_f = len(f_front) <= len(b_front)
        front, seen, other = (f_front, fwd, bwd) if expand_f else (b_front, bwd, fwd)
        depth = (depth_f if expand_f else depth_b) + 1
        nxt, best, best_len = [], None, 1 << 30
        for s in front:
            for m in moves:
                u = step(s, m)
                if u in seen:
                    continue
                seen[u] = (s, m, depth)
                hit = other.get(u)
                if hit is not None and depth + hit[2] < best_len:
                    best, best_len = u, depth + hit[2]
                nxt.append(u)
        if best is not None:  # every meeting point of this level was compared: the shortest is kept
            return _join(best, fwd, bwd, inverse), best_len
        if expand_f:
            f_front, depth_f = nxt, depth
        else:
            b_front, depth_b = nxt, depth
        if len(fwd) > max_states or len(bwd) > max_states:
            return None, max(depth_f + depth_b + 1, floor())
    return None, 1 << 30


def _join(meet, fwd: dict, bwd: dict, inverse: Callable) -> list:
    left, s = [], meet
    while fwd[s][0] is not None:
        s, m, _ = fwd[s]
        left.append(m)
    right, s = [], meet
    while bwd[s][0] is not None:
        s, m, _ = bwd[s]
        right.append(inverse(m))
    return left[::-1] + right


class TileBoardTask(GameTask):
    """A game played on a board of numbered tiles (instance data ``w``, ``h``, ``tiles``).

    Subclasses define :meth:`_solve_start` (the start's moves and optimum bounds),
    :meth:`_is_state` (which tuples the distance is defined on) and :meth:`_search_path` (an
    optimal path from a state, or None).
    """

    #: declared again so that type checkers take the games' parameters, not the planning ones, as the base
    Params: ClassVar[type[Params]] = GameParams
    #: what the prompt calls the board, and the moves
    board_noun: ClassVar[str] = "grid"
    move_noun: ClassVar[str] = "moves"

    @abstractmethod
    def _solve_start(self, instance: Instance) -> dict:
        """``{"moves", "lower", "upper", "exact"}`` of the start."""
        raise NotImplementedError

    @abstractmethod
    def _is_state(self, instance: Instance, state: tuple) -> bool:
        """Whether ``state`` is a board this instance's search can reach the goal from."""
        raise NotImplementedError

    @abstractmethod
    def _search_path(self, instance: Instance, state: tuple) -> list | None:
        """An optimal move list from ``state`` to the goal, or None (unsolvable, or over budget)."""
        raise NotImplementedError

    def initial_state(self, instance: Instance) -> tuple:
        return tuple(instance.data["tiles"])

    def _solution(self, instance: Instance) -> dict:
        """:meth:`_solve_start`, computed once per instance."""
        return self.cached(instance, "solution", lambda: self._solve_start(instance))

    def optimum_bounds(self, instance: Instance) -> tuple[int, int]:
        """``(lower, upper)``: the optimum lies in this range (equal when it is exact)."""
        s = self._solution(instance)
        return s["lower"], s["upper"]

    def optimal_length(self, instance: Instance) -> int | None:
        return self._solution(instance)["upper"]

    def solve(self, instance: Instance) -> list:
        return [list(m) for m in self._solution(instance)["moves"]]

    def distance_exact(self, instance: Instance) -> bool:
        return self._solution(instance)["exact"]

    def distance(self, instance: Instance, state: tuple) -> int | None:
        if not self.distance_exact(instance):
            return None
        path = self.path_from(instance, state)
        return None if path is None else len(path)

    def path_from(self, instance: Instance, state: tuple) -> list | None:
        if not self._is_state(instance, state):
            return None
        cache = self.cached(instance, "paths", dict)
        if state not in cache:
            if len(cache) >= PATH_CACHE:
                cache.clear()
            cache[state] = self._search_path(instance, state)
        hit = cache[state]
        return None if hit is None else [list(m) for m in hit]

    def record_fields(self, instance: Instance) -> dict:
        lower, upper = self.optimum_bounds(instance)
        return {**super().record_fields(instance), "optimum_lower_bound": lower, "optimum_exact": lower == upper}

    def encode_state(self, instance: Instance, state: tuple) -> np.ndarray:
        """The tile number of every cell divided by W*H (a gap is 0)."""
        return np.asarray(state, np.float32) / (instance.data["w"] * instance.data["h"])

    def state_bounds(self, instance: Instance) -> tuple[float, float]:
        return 0.0, 1.0

    def size_text(self, instance: Instance) -> str:
        """The first line of the description: the board's size."""
        return f"The {self.board_noun} is {instance.data['w']} columns by {instance.data['h']} rows."

    def describe(self, instance: Instance) -> str:
        noun = self.board_noun
        return (f"{self.size_text(instance)}\n"
                + self.start_and_goal(instance, f"Current {noun}:\n", f"Goal {noun}:\n")
                + f"Find {self.move_noun} that reach the goal {noun}.")

    def tile_label(self, instance: Instance, value: int) -> str | None:
        """The text drawn on a cell holding ``value`` (None: a gap)."""
        return str(value)

    def picture(self, instance: Instance, state: tuple) -> tuple[np.ndarray, dict]:
        d = instance.data
        w = d["w"]
        cell = max(24, 240 // max(w, d["h"]))

        def paint(img, r, c, box):
            label = self.tile_label(instance, state[r * w + c])
            raster.fill(img, box, BLANK if label is None else TILE)
            if label:
                raster.draw_text(img, label, (box[1] + box[3]) / 2, (box[0] + box[2]) / 2, 2, raster.INK)

        return self.grid_picture(w, d["h"], cell, paint)
