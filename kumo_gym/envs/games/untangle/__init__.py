"""Untangle (docs/games.md): Tatham's Untangle. Rules and texts (:mod:`.task`), Tatham's game-ID codec
(:mod:`.codec`), exact integer geometry (:mod:`.geometry`), the generator and the planar drawing
(:mod:`.generate`)."""
from .task import UntangleParams, UntangleTask

__all__ = ["UntangleParams", "UntangleTask"]
