"""Fifteen (docs/games.md): rules and texts (:mod:`.task`), generator (:mod:`.generate`), Tatham's
game-ID codec (:mod:`.codec`); the solver is IDA* with Manhattan distance and linear conflicts
(:mod:`kumo_gym.envs.games.fifteen.search`)."""
from .task import FifteenParams, FifteenTask

__all__ = ["FifteenParams", "FifteenTask"]
