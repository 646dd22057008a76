"""Twiddle (docs/games.md): rules and texts (:mod:`.task`), generator (:mod:`.generate`), Tatham's
game-ID codec (:mod:`.codec`); the solvers are bidirectional breadth-first search and a commutator
construction (:mod:`kumo_gym.envs.games.twiddle.search`)."""
from .task import TwiddleParams, TwiddleTask

__all__ = ["TwiddleParams", "TwiddleTask"]
