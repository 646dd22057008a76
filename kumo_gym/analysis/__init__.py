"""kumo_gym.analysis: reasoning-structure analysis of model traces (reasoning_graphs.md).

Claim graphs (:mod:`.graph`), claim verification against the environment (:mod:`.verify`),
claim extraction from traces (:mod:`.extract`), statistics (:mod:`.stats`), pictures
(:mod:`.plots`), reports (:mod:`.report`), the training-time evaluation callback
(:mod:`.callback`) and the ``kumo-gym analyze`` command (:mod:`.cli`). Importing this package is
light: networkx and numpy only; scipy and matplotlib load inside the functions that need them.
"""
from .graph import GraphError, content_key, reasoning_metrics

__all__ = ["GraphError", "content_key", "reasoning_metrics"]
