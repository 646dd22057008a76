"""kumo_gym.analysis: reasoning-structure analysis of model traces (reasoning_graphs.md).

- :mod:`.graph`: claim graphs and their metrics (G_sol, G_ver, depth, H_str, eta);
  :func:`reasoning_metrics` is the public entry point.
- :mod:`.schema`: claim and rule schemas per puzzle; :mod:`.verify`: labels from the environment.
- :mod:`.extract`: the deterministic extraction pipeline and :func:`analyse_trace`;
  :mod:`.llm`: the model-assisted stages through any ``ChatBackend``.
- :mod:`.stats`, :mod:`.plots`, :mod:`.report`: the paper's analyses, pictures and reports;
  :mod:`.callback`: per-sample metrics for training-time evaluation; :mod:`.cli`: ``kumo-gym analyze``.

Importing this package is light (networkx and numpy); scipy and matplotlib load inside the
functions that need them.
"""
from .callback import graph_metrics, summarize
from .extract import analyse_trace
from .graph import GraphError, content_key, reasoning_metrics

__all__ = ["GraphError", "analyse_trace", "content_key", "graph_metrics", "reasoning_metrics", "summarize"]
