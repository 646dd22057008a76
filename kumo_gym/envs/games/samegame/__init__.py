"""Samegame (docs/games.md): rules and texts (:mod:`.task`), generator (:mod:`.generate`), Tatham's
game-ID codec (:mod:`.codec`); the clearing search is :mod:`kumo_gym.envs.games.samegame.search`."""
from .task import SamegameParams, SamegameTask

__all__ = ["SamegameParams", "SamegameTask"]
