"""Cube (docs/games.md): rules and texts (:mod:`.task`), the solids and grids (:mod:`.geometry`),
generator (:mod:`.generate`), Tatham's game-ID codec (:mod:`.codec`), the A* search (:mod:`.search`)."""
from .task import CubeParams, CubeTask

__all__ = ["CubeParams", "CubeTask"]
