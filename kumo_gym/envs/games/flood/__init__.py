"""Flood (docs/games.md): rules and texts (:mod:`.task`), generator (:mod:`.generate`), Tatham's
game-ID codec (:mod:`.codec`); Tatham's player, the beam search and A* are :mod:`.search`."""
from .task import FloodParams, FloodTask

__all__ = ["FloodParams", "FloodTask"]
