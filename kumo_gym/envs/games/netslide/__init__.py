"""Netslide (docs/games.md): rules and texts (:mod:`.task`), generator (:mod:`.generate`), Tatham's
game-ID codec (:mod:`.codec`); the solvers list the solved boards and search breadth-first from both
ends, or build a solution from Sixteen's 3-cycles (:mod:`kumo_gym.envs.games.netslide.search`)."""
from .task import NetslideParams, NetslideTask

__all__ = ["NetslideParams", "NetslideTask"]
