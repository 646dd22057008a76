"""Pictures: claim graphs and the docs/specs/reasoning_graphs.md §8 scatter plots (docs/specs/reasoning_graphs.md §9;
paper Fig. 1, 4-6).

matplotlib is imported inside each function (Agg backend, files only), so importing this module
costs nothing.
"""
from __future__ import annotations

import json
import math
from collections import defaultdict
from pathlib import Path
from typing import Any

import networkx as nx

from .graph import merge_static_claims, node_depths, solution_subgraphs, trace_order

_UNIT_WORDS = {"UnitHas": "Has", "UnitMissing": "Lacks", "UnitPlaces": "Places"}
VER_BLUE = "#1565c0"
FILL = {"correct": "#4caf50", "incorrect": "#e53935", "unverifiable": "#9e9e9e", "tentative": "#fb8c00",
        None: "#ffffff"}


def _pyplot():
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt


def _save(plt, fig, path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path


def _rc(p: dict) -> str:
    return f"({p.get('r')},{p.get('c')})"


def _cand_label(p: dict) -> str:
    vals = p.get("d", p.get("vals", []))
    return f"{_rc(p)}{'in' if p.get('polarity') == 'IN' else '!'}{{{','.join(map(str, vals))}}}"


#: claim kind -> its compact node text
_SHORT_LABELS = {
    "Tent": lambda p: f"T{_rc(p)}",
    "NotTent": lambda p: f"~T{_rc(p)}",
    "Tree": lambda p: f"Tr{_rc(p)}",
    "Quota": lambda p: f"Q({p['axis'][0]}{p['index']})={p['tents']}",
    "Remaining": lambda p: f"R({p['axis'][0]}{p['index']})={p['remaining']}",
    "Assign": lambda p: f"{_rc(p)}={p.get('d', p.get('v'))}",
    "Given": lambda p: f"{_rc(p)}={p.get('d', p.get('v'))}",
    "Cell": lambda p: f"{_rc(p)}={p['v']}",
    "NotCell": lambda p: f"{_rc(p)}!={p['v']}",
    "Cand": _cand_label,
    "Contradiction": lambda p: f"X#{p.get('branch')}",
    **{kind: (lambda p, word=word: f"{word}({p['unit'][0]}{p['index']})") for kind, word in _UNIT_WORDS.items()},
}


def short_label(kind: str, payload: dict) -> str:
    """Compact node text: ``T(1,0)``, ``~T(1,3)``, ``Q(R1)=2``, ``(2,3)=4`` ... (docs/specs/reasoning_graphs.md §9)."""
    label = _SHORT_LABELS.get(kind)
    return label(payload) if label else kind[:8]


def graph_of(doc_or_graph: Any) -> nx.DiGraph:
    if isinstance(doc_or_graph, nx.DiGraph):
        return doc_or_graph
    from .extract import graph_from_json

    return graph_from_json(doc_or_graph)


def layered_positions(graph: nx.DiGraph) -> dict:
    """Deterministic layout: y = -depth, x = position in trace order within its depth layer."""
    order = trace_order(graph)
    depth = node_depths(graph)
    layer_count: dict[int, int] = defaultdict(int)
    pos = {}
    for v in order:
        d = depth[v]
        pos[v] = (layer_count[d], -d)
        layer_count[d] += 1
    width = max(layer_count.values()) if layer_count else 1
    # centre each layer so the picture reads top-down
    return {v: (x + (width - layer_count[-y]) / 2.0, y) for v, (x, y) in pos.items()}


def draw_graph(doc_or_graph: Any, path: str | Path, which: str = "G", highlight: str | None = "both",
               solution_claims: list | None = None, title: str | None = None) -> Path:
    """Write a claim graph picture (PNG or SVG by suffix) (docs/specs/reasoning_graphs.md §9).

    Fill: correct green, incorrect red, unverifiable grey, tentative orange; Missing placeholders
    get a dashed outline; inference edges solid, restatement edges dashed. ``highlight``: the
    G_sol nodes get a bold outline (``"sol"``), the G_ver nodes a blue one (``"ver"``), or both
    (``"both"``, the default: V*_sol, in both subgraphs, is bold and blue).
    """
    plt = _pyplot()
    from matplotlib.patches import Circle

    g = graph_of(doc_or_graph)
    if which == "G":
        g, _ = merge_static_claims(g)
    elif which != "G_raw":
        raise ValueError(f"which {which!r} is not one of: G, G_raw")
    if solution_claims is None and isinstance(doc_or_graph, dict):
        solution_claims = [tuple(c) for c in doc_or_graph.get("solution_claims", [])]
    if highlight not in (None, "sol", "ver", "both"):
        raise ValueError(f"highlight {highlight!r} is not one of: sol, ver, both, None")
    bold, blue = set(), set()
    if highlight and solution_claims:
        subs = solution_subgraphs(g, solution_claims)
        bold = subs["V_sol"] if highlight in ("sol", "both") else set()
        blue = subs["V_ver"] if highlight in ("ver", "both") else set()
    pos = layered_positions(g)
    n = max(1, len(g))
    width = max(6.0, min(40.0, 1.1 * max((x for x, _ in pos.values()), default=1) + 2))
    height = max(4.0, min(40.0, 1.2 * (1 + max((-y for _, y in pos.values()), default=0)) + 1))
    fig, ax = plt.subplots(figsize=(width, height))
    radius = 0.32
    for u, v, d in g.edges(data=True):
        (x0, y0), (x1, y1) = pos[u], pos[v]
        ax.annotate("", xy=(x1, y1 + radius * 0.9), xytext=(x0, y0 - radius * 0.9),
                    arrowprops={"arrowstyle": "-|>", "lw": 0.8, "color": "#555555",
                                "linestyle": "--" if d.get("type") == "restatement" else "-"})
    for v, data in g.nodes(data=True):
        x, y = pos[v]
        kind = data.get("kind") or (data["claim"][0] if isinstance(data["claim"], tuple) else "?")
        try:
            payload = json.loads(data["claim"][1]) if isinstance(data["claim"], tuple) else {}
        except (TypeError, ValueError):
            payload = {}
        edge = VER_BLUE if v in blue else "black"
        lw = 2.5 if v in bold or v in blue else 0.8
        ax.add_patch(Circle((x, y), radius, facecolor=FILL.get(data.get("label"), "#ffffff"), edgecolor=edge,
                            linewidth=lw, linestyle="--" if kind == "Missing" else "-", zorder=3))
        text = "?" if kind == "Missing" else short_label(kind, payload)
        ax.text(x, y, text, ha="center", va="center", fontsize=max(4, 8 - len(text) // 4), zorder=4)
    xs = [p[0] for p in pos.values()] or [0]
    ys = [p[1] for p in pos.values()] or [0]
    ax.set_xlim(min(xs) - 1, max(xs) + 1)
    ax.set_ylim(min(ys) - 1, max(ys) + 1)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(title or f"{which}: {n} nodes, {g.number_of_edges()} edges")
    return _save(plt, fig, path)


def scatter(rows: list[dict], x: str, y: str, path: str | Path, group: str = "model") -> Path:
    """Scatter of ``y`` vs ``x`` coloured by ``group``, dashed per-group fits, r and p in the title
    (docs/specs/reasoning_graphs.md §8)."""
    plt = _pyplot()
    from .stats import correlate

    res = correlate(rows, x, y, group)
    usable = [r for r in rows if ("eta" not in (x, y) or (r.get("solved") and r.get("eta_status") in ("ok", "above_one")))]
    fig, ax = plt.subplots(figsize=(5.5, 4))
    by: dict = defaultdict(list)
    for r in usable:
        if isinstance(r.get(x), (int, float)) and isinstance(r.get(y), (int, float)):
            by[str(r.get(group))].append((r[x], r[y]))
    for g, pts in sorted(by.items()):
        line = ax.scatter([p[0] for p in pts], [p[1] for p in pts], s=16, alpha=0.75, label=g)
        fit = res["fits"].get(g)
        if fit:
            lo, hi = min(p[0] for p in pts), max(p[0] for p in pts)
            ax.plot([lo, hi], [fit["intercept"] + fit["slope"] * lo, fit["intercept"] + fit["slope"] * hi], "--",
                    color=line.get_facecolor()[0], linewidth=1)
    r_txt = "n/a" if res["r"] is None else f"{res['r']:.2f}"
    p_txt = "n/a" if res["p"] is None else f"{res['p']:.2g}"
    ax.set_title(f"{y} vs {x}: r = {r_txt}, p = {p_txt}, n = {res['n']}")
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    if by:
        ax.legend(fontsize=7)
    return _save(plt, fig, path)


def eta_vs_size(table: list[dict], path: str | Path) -> Path:
    """Mean eta against puzzle size per model and puzzle (Fig. 6), from :func:`stats.eta_by_size`."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5.5, 4))
    series: dict = defaultdict(list)
    for row in table:
        series[(row["model"], row["puzzle"])].append(row)
    for (model, puzzle), pts in sorted(series.items(), key=lambda t: tuple(map(str, t[0]))):
        labels = [p["size"] for p in pts]
        ax.plot(range(len(pts)), [p["eta_mean"] for p in pts], marker="o", label=f"{model} / {puzzle}")
        ax.set_xticks(range(len(pts)), labels)
    ax.set_xlabel("puzzle size")
    ax.set_ylabel("mean eta (solved)")
    ax.set_title("eta vs puzzle size")
    if series:
        ax.legend(fontsize=7)
    if not math.isfinite(ax.get_ylim()[0]):
        ax.set_ylim(0, 1)
    return _save(plt, fig, path)
