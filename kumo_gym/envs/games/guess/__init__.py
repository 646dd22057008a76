"""Guess (docs/games.md): Tatham's Mastermind. Rules and texts (:mod:`.task`), Tatham's game-ID codec
(:mod:`.codec`); the guesser is :mod:`kumo_gym.envs.games.guess.search`."""
from .task import GuessParams, GuessTask

__all__ = ["GuessParams", "GuessTask"]
