"""kumo_gym.analysis: reasoning-structure analysis of model traces (docs/specs/reasoning_graphs.md).

- :mod:`.graph`: claim graphs and their metrics (G_sol, G_ver, depth, H_str, eta);
  :func:`reasoning_metrics` is the public entry point.
- :mod:`.schema`: claim and rule schemas per puzzle; :mod:`.verify`: labels from the environment.
- :mod:`.extract`: the deterministic extraction stages; :mod:`.llm`: the model-assisted stages
  through any ``ChatBackend``; :mod:`.pipeline`: :func:`analyse_trace`, the whole pipeline.
- :mod:`.stats`, :mod:`.plots`, :mod:`.report`: the paper's analyses, pictures and reports;
  :mod:`.callback`: per-sample metrics for training-time evaluation; :mod:`.results`: the results
  tables of evaluation traces. ``kumo-gym analyze`` is :mod:`kumo_gym.cli.analysis`.

Importing this package is light (networkx and numpy); scipy and matplotlib load inside the
functions that need them.
"""
from .callback import graph_metrics, summarize
from .graph import GraphError, content_key, reasoning_metrics
from .pipeline import analyse_trace

__all__ = ["GraphError", "analyse_trace", "content_key", "graph_metrics", "reasoning_metrics", "summarize"]
