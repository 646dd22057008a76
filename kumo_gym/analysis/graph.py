"""Claim graphs and the flow metrics of reasoning traces (docs/specs/reasoning_graphs.md §1, §3).

A reasoning graph is a ``networkx.DiGraph``. Each node is one *occurrence* of a claim and
carries:

- ``claim``: the hashable content key (for claims built here, ``(kind, canonical payload JSON)``
  from :func:`content_key`; any hashable works for the metrics);
- ``sentence``: the 1-based index of its first source sentence;
- optional ``order`` (extraction order within the sentence; default: node insertion order),
  ``status`` (``stated`` | ``derived`` | ``tentative`` | ``restated`` | ``missing``),
  ``scope`` (``MAIN`` | ``BRANCH#k``), ``static`` (checkable against instance or solution),
  ``label`` (``correct`` | ``incorrect`` | ``unverifiable`` | ``tentative``), ``kind``.

Edges carry ``type`` (``inference`` | ``restatement``) and, for inference edges, ``rule``.

Everything here is a pure function of the graph. The flow metrics (logical mass ``m``, H_str,
eta) are computed by one topological propagation in O(|V| + |E|); :func:`dense_flow_mass` is the
textbook fundamental-matrix computation kept as the reference for tests and benchmarks, and
:func:`flow_mass_arrays` is the same propagation as a numba kernel over CSR arrays for large
graphs.
"""
from __future__ import annotations

import json
import math
from collections import deque
from collections.abc import Hashable, Iterable
from typing import Any

import networkx as nx
import numpy as np

from ..solvers.native import compiled, kernel

LABELS = ("correct", "incorrect", "unverifiable", "tentative")
ETA_STATUSES = ("ok", "above_one", "empty_graph", "v_le_cstar", "empty_cstar", "unsolved")
MAIN = "MAIN"


class GraphError(ValueError):
    """The claim graph is not a DAG (only possible from a bug upstream), or is malformed."""


# ---------------------------------------------------------------------------------------------
# claims
# ---------------------------------------------------------------------------------------------
def content_key(kind: str, payload: dict) -> tuple[str, str]:
    """The content key ``(kind, canonical payload)`` of a claim (docs/specs/reasoning_graphs.md §1 "Trace and claims").

    The payload is rendered as canonical JSON (sorted keys, no spaces) so that two occurrences of
    the same claim compare equal whatever order their fields were written in.
    """
    return (str(kind), json.dumps(payload, sort_keys=True, separators=(",", ":")))


# ---------------------------------------------------------------------------------------------
# trace order and topology
# ---------------------------------------------------------------------------------------------
def trace_order(graph: nx.DiGraph) -> list:
    """Nodes sorted by trace position ``(sentence, order)``; ties keep insertion order (docs/specs/reasoning_graphs.md
    §1)."""
    keyed = []
    for pos, (node, data) in enumerate(graph.nodes(data=True)):
        sentence = data.get("sentence")
        if sentence is None:
            raise GraphError(f"node {node!r} has no 'sentence' attribute")
        keyed.append((int(sentence), data.get("order", pos), pos, node))
    keyed.sort(key=lambda t: (t[0], t[1], t[2]))
    return [t[3] for t in keyed]


def topological_order(graph: nx.DiGraph, order: list | None = None) -> list:
    """A topological order of ``graph`` in O(|V| + |E|) (Kahn), preferring trace order.

    When the edges all point forward in trace order (the pipeline guarantees it) the result *is*
    the trace order. Raises :class:`GraphError` on a cycle.
    """
    order = trace_order(graph) if order is None else order
    rank = {v: i for i, v in enumerate(order)}
    if all(rank[u] < rank[v] for u, v in graph.edges()):
        return order
    indeg = {v: graph.in_degree(v) for v in order}
    ready = deque(v for v in order if indeg[v] == 0)
    out = []
    while ready:
        u = ready.popleft()
        out.append(u)
        for w in graph.successors(u):
            indeg[w] -= 1
            if indeg[w] == 0:
                ready.append(w)
    if len(out) != len(order):
        stuck = [v for v in order if indeg[v] > 0][:5]
        raise GraphError(f"the claim graph has a cycle (nodes involved include {stuck!r})")
    return out


def node_depths(graph: nx.DiGraph, topo: list | None = None) -> dict:
    """``depth(v)``: edges on the longest path from any source to ``v`` (docs/specs/reasoning_graphs.md §1 "Depth")."""
    topo = topological_order(graph) if topo is None else topo
    depth = dict.fromkeys(topo, 0)
    for u in topo:
        du = depth[u] + 1
        for w in graph.successors(u):
            depth[w] = max(depth[w], du)
    return depth


def _ancestors_of(graph: nx.DiGraph, seeds: Iterable, blocked: set | frozenset = frozenset()) -> set:
    """All nodes with a path to some seed (seeds included), never walking through ``blocked``."""
    seen = set(seeds)
    stack = list(seen)
    while stack:
        v = stack.pop()
        for u in graph.predecessors(v):
            if u not in seen and u not in blocked:
                seen.add(u)
                stack.append(u)
    return seen


def _descendants_of(graph: nx.DiGraph, seeds: Iterable) -> set:
    seen = set(seeds)
    stack = list(seen)
    while stack:
        v = stack.pop()
        for w in graph.successors(v):
            if w not in seen:
                seen.add(w)
                stack.append(w)
    return seen


# ---------------------------------------------------------------------------------------------
# G_raw -> G (merging static restatements)
# ---------------------------------------------------------------------------------------------
def merge_static_claims(graph: nx.DiGraph) -> tuple[nx.DiGraph, list]:
    """The metric graph G of docs/specs/reasoning_graphs.md §1 "Two graphs", and the edges dropped while building it.

    Non-tentative occurrences of each *static* claim are merged into its first non-tentative
    occurrence in trace order; state-dependent claims and tentative occurrences are never merged.
    Edges are redirected to the surviving node; self-loops and duplicates vanish, and an edge that
    would then point backward in trace order is dropped (and returned) so that G stays a DAG.
    """
    order = trace_order(graph)
    rank = {v: i for i, v in enumerate(order)}
    keep: dict = {}
    target: dict = {}
    for v in order:
        data = graph.nodes[v]
        if data.get("static") and data.get("status") != "tentative":
            first = keep.setdefault(data["claim"], v)
            target[v] = first
        else:
            target[v] = v
    merged = nx.DiGraph()
    for v in order:
        if target[v] == v:
            merged.add_node(v, **graph.nodes[v])
    for v in order:  # a survivor lists every sentence its merged occurrences came from
        t = target[v]
        if t != v:
            sents = merged.nodes[t].setdefault("merged_sentences", [merged.nodes[t]["sentence"]])
            sents.append(graph.nodes[v]["sentence"])
    dropped = []
    for u, w, data in graph.edges(data=True):
        a, b = target[u], target[w]
        if a == b:
            continue
        if rank[a] > rank[b]:
            dropped.append((u, w))
            continue
        if not merged.has_edge(a, b):
            merged.add_edge(a, b, **data)
    return merged, dropped


# ---------------------------------------------------------------------------------------------
# logical mass, H_str, eta (docs/specs/reasoning_graphs.md §3)
# ---------------------------------------------------------------------------------------------
def flow_mass(graph: nx.DiGraph, topo: list | None = None) -> dict:
    """Logical mass ``m = pi N`` by propagation in topological order (docs/specs/reasoning_graphs.md §3, eq. 1 inputs).

    ``m(v) = pi(v) + sum_{u->v} m(u) / d+(u)`` with ``pi`` uniform over the sources. This equals
    the row vector ``pi (I - Q)^-1`` of the absorbing chain (Q is nilpotent on a DAG) without any
    matrix: O(|V| + |E|) in float64.
    """
    topo = topological_order(graph) if topo is None else topo
    if not topo:
        return {}
    sources = [v for v in topo if graph.in_degree(v) == 0]
    share = 1.0 / len(sources)
    m = dict.fromkeys(topo, 0.0)
    for v in sources:
        m[v] = share
    for u in topo:
        d = graph.out_degree(u)
        if d:
            flow = m[u] / d
            for w in graph.successors(u):
                m[w] += flow
    return m


def dense_flow_mass(graph: nx.DiGraph, nodes: list | None = None) -> np.ndarray:
    """Reference: ``m = pi (I - Q)^-1`` with the dense transient block Q (docs/specs/reasoning_graphs.md §3
    "Definitions").

    O(|V|^3); kept for tests and benchmarks only. Returns ``m`` in the order of ``nodes``.
    """
    nodes = list(graph.nodes) if nodes is None else nodes
    n = len(nodes)
    index = {v: i for i, v in enumerate(nodes)}
    q = np.zeros((n, n))
    for u in nodes:
        d = graph.out_degree(u)
        for w in graph.successors(u):
            q[index[u], index[w]] = 1.0 / d
    pi = np.zeros(n)
    sources = [index[v] for v in nodes if graph.in_degree(v) == 0]
    if not sources:
        raise GraphError("a non-empty graph without sources has a cycle")
    pi[sources] = 1.0 / len(sources)
    # m (I - Q) = pi  <=>  (I - Q)^T m^T = pi^T
    return np.linalg.solve((np.eye(n) - q).T, pi)


def structural_entropy(masses: Iterable[float]) -> tuple[float | None, float]:
    """``H_str`` (eq. 1, natural log) of the logical masses and their total ``||m||``.

    Uses ``H = ln||m|| - (sum m ln m)/||m||`` with ``math.fsum`` for both sums, clamped to
    ``[0, ln|V|]`` so rounding never produces a negative entropy or one above the maximum.
    """
    values = [float(x) for x in masses]
    if not values:
        return None, 0.0
    total = math.fsum(values)
    if total <= 0.0:
        raise GraphError("the logical mass sums to zero; the graph has no sources")
    s = math.fsum(x * math.log(x) for x in values if x > 0.0)
    h = math.log(total) - s / total
    return min(max(h, 0.0), math.log(len(values))), total


def flow_efficiency(n_nodes: int, h_str: float | None, n_cstar: int, solved: bool | None = None,
                    force: bool = False) -> dict:
    """eta (eq. 2) with its ``eta_status`` per the edge-case table of docs/specs/reasoning_graphs.md §3.

    ``eta = (ln|V| - H_str) / (ln|V| - ln|C*|)``. ``solved=False`` (the final answer failed
    ``verify``) gives ``eta=None``, status ``unsolved``; with ``force=True`` the value is still
    returned as ``eta_unconditional``. eta above 1 is not clipped (status ``above_one``).
    """
    out: dict[str, Any] = {"eta": None, "eta_status": None}
    if n_nodes == 0 or h_str is None:
        out["eta_status"] = "empty_graph"
        return out
    if n_cstar == 0:
        out["eta_status"] = "empty_cstar"
        return out
    if n_nodes <= n_cstar:
        out["eta_status"] = "v_le_cstar"
        return out
    log_v = math.log(n_nodes)
    num = log_v - h_str
    if abs(num) < 1e-12:
        num = 0.0  # no -0.0 from a uniform distribution
    value = num / (log_v - math.log(n_cstar))
    if solved is False:
        out["eta_status"] = "unsolved"
        if force:
            out["eta_unconditional"] = value
        return out
    out["eta"] = value
    out["eta_status"] = "above_one" if value > 1.0 + 1e-12 else "ok"
    return out


def eta(graph: nx.DiGraph, n_cstar: int) -> float | None:
    """eta (eq. 2) of ``graph`` for a solution of ``n_cstar`` claims (None where undefined)."""
    h, _ = structural_entropy(flow_mass(graph).values()) if len(graph) else (None, 0.0)
    return flow_efficiency(len(graph), h, n_cstar)["eta"]


# ---- array kernels (benchmarks and very large graphs) ------------------------------------------
def graph_to_csr(n: int, src: np.ndarray, dst: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """CSR out-adjacency ``(indptr, indices)`` of the edges ``src[i] -> dst[i]`` on ``n`` nodes."""
    src = np.asarray(src, dtype=np.int64)
    dst = np.asarray(dst, dtype=np.int64)
    order = np.argsort(src, kind="stable")
    indices = dst[order]
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.add.at(indptr, src + 1, 1)
    np.cumsum(indptr, out=indptr)
    return indptr, indices


@kernel(python=True)
def _flow_mass_csr_impl(n, indptr, indices, m, indeg, queue):
    """Kahn-order propagation into ``m``; ``indeg`` (zeros) and ``queue`` are scratch of length n.

    Returns how many nodes were reached (n unless there is a cycle). Plain Python over lists, or
    compiled by numba over arrays.
    """
    for k in range(len(indices)):
        indeg[indices[k]] += 1
    n_src = 0
    for v in range(n):
        if indeg[v] == 0:
            n_src += 1
    if n_src == 0:
        return -1
    head = 0
    tail = 0
    for v in range(n):
        m[v] = 0.0
        if indeg[v] == 0:
            m[v] = 1.0 / n_src
            queue[tail] = v
            tail += 1
    while head < tail:
        u = queue[head]
        head += 1
        a = indptr[u]
        b = indptr[u + 1]
        if b > a:
            flow = m[u] / (b - a)
            for k in range(a, b):
                w = indices[k]
                m[w] += flow
                indeg[w] -= 1
                if indeg[w] == 0:
                    queue[tail] = w
                    tail += 1
    return head


def _flow_mass_csr_numba():
    """The numba twin of :func:`_flow_mass_csr_impl` (compiled on first use), or None without numba
    (numba is a core dependency; the pure-Python path is the reference either way)."""
    try:
        return compiled(_flow_mass_csr_impl)
    except ImportError:  # pragma: no cover - exercised only without numba
        return None


def flow_mass_arrays(n: int, indptr: np.ndarray, indices: np.ndarray, use_numba: bool = True) -> np.ndarray:
    """Logical mass on a graph given as CSR arrays (nodes ``0..n-1``), numba-compiled.

    The same Kahn-order propagation as :func:`flow_mass`; ``use_numba=False`` runs the same
    function uncompiled, over lists.
    """
    if n == 0:
        return np.zeros(0)
    fast = _flow_mass_csr_numba() if use_numba else None
    if fast is None:
        m = [0.0] * n
        seen = _flow_mass_csr_impl(n, list(indptr), list(indices), m, [0] * n, [0] * n)
    else:
        m = np.empty(n, dtype=np.float64)
        seen = fast(n, np.asarray(indptr, np.int64), np.asarray(indices, np.int64), m,
                   np.zeros(n, np.int64), np.empty(n, np.int64))
    if seen != n:
        raise GraphError("the claim graph has a cycle")
    return np.asarray(m)


def entropy_of_array(m: np.ndarray) -> float:
    """H_str of a mass vector (vectorised form of :func:`structural_entropy`, same clamping)."""
    n = m.shape[0]
    total = math.fsum(m)
    pos = m[m > 0]
    s = math.fsum(pos * np.log(pos))
    h = math.log(total) - s / total
    return min(max(h, 0.0), math.log(n))


# ---------------------------------------------------------------------------------------------
# the public entry point
# ---------------------------------------------------------------------------------------------
def solution_subgraphs(graph: nx.DiGraph, solution_claims: Iterable[Hashable],
                       order: list | None = None) -> dict:
    """``V*_sol``, ``V_sol`` and ``V_ver`` of docs/specs/reasoning_graphs.md §1 "Solution claims".

    ``V*_sol`` are the first non-tentative occurrences of the claims of C*; ``V_sol`` adds every
    ancestor; ``V_ver`` = ``V*_sol``, their descendants outside ``V_sol``, and the ancestors of
    those outside ``V_sol`` (so ``V_sol & V_ver == V*_sol``).
    """
    order = trace_order(graph) if order is None else order
    cstar = set(solution_claims)
    star: dict = {}
    for v in order:
        data = graph.nodes[v]
        if data.get("status") == "tentative":
            continue
        c = data["claim"]
        if c in cstar and c not in star:
            star[c] = v
    v_star = set(star.values())
    v_sol = _ancestors_of(graph, v_star)
    below = {v for v in _descendants_of(graph, v_star) if v not in v_sol}
    v_ver_prime = v_star | below
    # a path through a V_sol node makes its start a V_sol node, so V_sol blocks the walk
    v_ver = v_star | _ancestors_of(graph, below, blocked=v_sol)
    assert v_ver_prime <= v_ver
    return {"V_star_sol": v_star, "V_sol": v_sol, "V_ver": v_ver}


def composition(graph_raw: nx.DiGraph) -> dict:
    """Occurrence composition of G_raw (docs/specs/reasoning_graphs.md §1 "Reported numbers").

    Each occurrence is exactly one of stated, derived, restated, tentative, missing: tentative and
    missing by status; restated when its only in-edges are restatement edges (or status
    ``restated``); derived when it has an inference in-edge (or status ``derived``).
    """
    counts = dict.fromkeys(("stated", "derived", "restated", "tentative", "missing"), 0)
    keys = set()
    for v, data in graph_raw.nodes(data=True):
        keys.add(data["claim"])
        counts[occurrence_class(graph_raw, v)] += 1
    n = graph_raw.number_of_nodes()
    out = {f"n_{k}": c for k, c in counts.items()}
    out.update({f"{k}_fraction": (c / n if n else None) for k, c in counts.items()})
    out["n_unique_claims"] = len(keys)
    out["restatements_per_unique_claim"] = counts["restated"] / len(keys) if keys else None
    return out


def occurrence_class(graph: nx.DiGraph, v) -> str:
    """stated | derived | restated | tentative | missing for one occurrence of G_raw."""
    data = graph.nodes[v]
    status = data.get("status")
    if status in ("tentative", "missing") or data.get("kind") == "Missing":
        return "missing" if status == "missing" or data.get("kind") == "Missing" else "tentative"
    types = {e.get("type", "inference") for _, _, e in graph.in_edges(v, data=True)}
    if status == "restated" or types == {"restatement"}:
        return "restated"
    if status == "derived" or "inference" in types:
        return "derived"
    return "stated"


def reasoning_metrics(graph: nx.DiGraph, solution_claims: Iterable[Hashable], merge_static: bool = False,
                      solved: bool | None = None, force: bool = False) -> dict:
    """Every metric of docs/specs/reasoning_graphs.md §1 and §3 on one claim graph.

    ``graph``: a ``networkx.DiGraph`` whose nodes carry ``claim`` (hashable) and ``sentence``
    (int), optionally ``status``, ``scope``, ``static``, ``label``. ``solution_claims``: C*.
    With ``merge_static=True`` the graph is treated as G_raw: the composition is measured on it
    and the metrics on the merged metric graph G (:func:`merge_static_claims`). ``solved=False`` marks a
    run whose final answer failed ``verify`` (eta None, status ``unsolved``; ``force=True`` adds
    ``eta_unconditional``).

    Returns a JSON-safe dict with at least ``V``, ``V_sol``, ``V_ver``, ``depth``, ``H_str``,
    ``eta`` and ``eta_status`` (sizes are counts; the node sets are under ``nodes``).
    """
    cstar = set(solution_claims)
    out: dict[str, Any] = {}
    dropped: list = []
    if merge_static:
        out.update(composition(graph))
        out["V_raw"] = graph.number_of_nodes()
        graph, dropped = merge_static_claims(graph)
    order = trace_order(graph)
    topo = topological_order(graph, order)
    n = len(order)
    depth = node_depths(graph, topo)
    subs = solution_subgraphs(graph, cstar, order)
    v_sol, v_ver, v_star = subs["V_sol"], subs["V_ver"], subs["V_star_sol"]

    labels = {v: graph.nodes[v].get("label") for v in order}
    n_correct = sum(1 for x in labels.values() if x == "correct")
    n_incorrect = sum(1 for x in labels.values() if x == "incorrect")
    first_error = next((v for v in order if labels[v] == "incorrect"), None)

    m = flow_mass(graph, topo)
    h, total = structural_entropy(m[v] for v in order) if n else (None, 0.0)
    flow = flow_efficiency(n, h, len(cstar), solved=solved, force=force)

    out.update({
        "V": n,
        "E": graph.number_of_edges(),
        "V_src": sum(1 for v in order if graph.in_degree(v) == 0),
        "C_star": len(cstar),
        "V_star_sol": len(v_star),
        "coverage": len(v_star) / len(cstar) if cstar else None,
        "V_sol": len(v_sol),
        "V_ver": len(v_ver),
        "sol_fraction": len(v_sol) / n if n else None,
        "ver_overhead": len(v_ver) / len(v_sol) if v_sol else None,
        "depth": max(depth.values()) if depth else 0,
        "first_error_depth": depth[first_error] if first_error is not None else None,
        "n_correct": n_correct,
        "n_incorrect": n_incorrect,
        "n_unverifiable": sum(1 for x in labels.values() if x == "unverifiable"),
        "n_tentative_label": sum(1 for x in labels.values() if x == "tentative"),
        "n_missing": sum(1 for v in order if graph.nodes[v].get("kind") == "Missing"
                         or graph.nodes[v].get("status") == "missing"),
        "claim_accuracy": n_correct / (n_correct + n_incorrect) if n_correct + n_incorrect else None,
        "mass_total": total,
        "H_str": h,
        "log_V": math.log(n) if n else None,
        "solved": solved,
        "dropped_edges": [[_plain_id(u), _plain_id(w)] for u, w in dropped],
        "nodes": {
            "V_star_sol": sorted(map(_plain_id, v_star), key=str),
            "V_sol": sorted(map(_plain_id, v_sol), key=str),
            "V_ver": sorted(map(_plain_id, v_ver), key=str),
        },
    })
    out.update(flow)
    return out


def _plain_id(v):
    return v if isinstance(v, (int, str)) else str(v)
