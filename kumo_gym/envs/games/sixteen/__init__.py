"""Sixteen (docs/games.md): rules and texts (:mod:`.task`), generator (:mod:`.generate`), Tatham's
game-ID codec (:mod:`.codec`); the solvers are bidirectional breadth-first search and a 3-cycle
construction (:mod:`kumo_gym.envs.games.sixteen.search`)."""
from .task import SixteenParams, SixteenTask

__all__ = ["SixteenParams", "SixteenTask"]
