"""Flip (docs/games.md): rules and texts (:mod:`.task`), generator (:mod:`.generate`), Tatham's
game-ID codec (:mod:`.codec`); the solver is GF(2) elimination (:mod:`kumo_gym.solvers.gf2`)."""
from .task import FlipParams, FlipTask

__all__ = ["FlipParams", "FlipTask"]
