"""Pegs (docs/games.md): rules and texts (:mod:`.task`), generator (:mod:`.generate`), Tatham's
game-ID codec (:mod:`.codec`), the winning-line search (:mod:`.search`)."""
from .task import PegsParams, PegsTask

__all__ = ["PegsParams", "PegsTask"]
