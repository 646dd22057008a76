"""Guess (docs/games.md): Tatham's Mastermind. Rules and texts (:mod:`.task`), Tatham's game-ID codec
(:mod:`.codec`); the guesser is :mod:`kumo_gym.solvers.games.mastermind`."""
from .task import GuessParams, GuessTask

__all__ = ["GuessParams", "GuessTask"]
