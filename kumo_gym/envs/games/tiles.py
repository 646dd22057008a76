"""What the tile-board games (Fifteen, Sixteen) share (docs/games.md).

A state is the tuple of tile numbers in reading order. The start's optimum is searched once per
instance and is either exact or certified only between bounds (then no distance is paid); the
distance of any other state comes from a per-state search, whose paths are cached. The codec
helpers read and write a description that lists the tiles as comma-separated decimal numbers.
"""
from __future__ import annotations

from abc import abstractmethod
from typing import ClassVar

import numpy as np

from ...core.errors import ConfigError
from ...core.instance import Instance
from ...core.params import Params
from .base import GameParams, GameTask

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


class TileBoardTask(GameTask):
    """A game played on a board of numbered tiles (instance data ``w``, ``h``, ``tiles``).

    Subclasses define :meth:`_solve_start` (the start's moves and optimum bounds),
    :meth:`_is_state` (which tuples the distance is defined on) and :meth:`_search_path` (an
    optimal path from a state, or None).
    """

    #: declared again so that type checkers take the games' parameters, not the planning ones, as the base
    Params: ClassVar[type[Params]] = GameParams

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
