"""Black Box (docs/games.md): Tatham's Black Box. Rules and texts (:mod:`.task`), Tatham's game-ID
codec (:mod:`.codec`); ray tracing and the reference player are :mod:`.search`."""
from .task import BlackboxParams, BlackboxTask

__all__ = ["BlackboxParams", "BlackboxTask"]
