"""Running Tatham's programs for the games (docs/games.md, "Tatham interop"): the grid family's
helpers (finding ``sgt-<name>``, ``--generate``, checking an ID with Tatham's parser), and
timing Tatham's generator for the benchmark."""
from __future__ import annotations

from ..grid.tatham import sgt_accepts, sgt_binary, sgt_generate, sgt_version

__all__ = ["sgt_accepts", "sgt_binary", "sgt_generate", "sgt_version"]
