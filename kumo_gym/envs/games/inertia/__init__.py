"""Inertia (docs/games.md): rules and texts (:mod:`.task`), generator (:mod:`.generate`), Tatham's
game-ID codec (:mod:`.codec`), the shortest-collection search (:mod:`.search`)."""
from .task import InertiaParams, InertiaTask

__all__ = ["InertiaParams", "InertiaTask"]
