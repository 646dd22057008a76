"""KUMO metrics and analyses (``docs/specs/kumo.md`` §11-§13).

* :func:`relative_action_count` and :func:`summarize_episodes`: success rate, parse-error and
  truncation rates, relative action count (RAC) per domain and difficulty (docs/specs/kumo.md §11).
* :func:`truth_graph`, :func:`truth_communities`: the domain truth graph and its Louvain
  communities (docs/specs/kumo.md §12); :func:`split_domain`: the IND/OOD split by connected components.
* :func:`graph_signature`, :func:`signature_association`: the chi-square test and Cramér's V
  between instance graph signatures and correctness (docs/specs/kumo.md §13).

networkx and scipy are imported inside the functions that need them.
"""
from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field

from ..envs.kumo.domain import SCHEMA, Domain, import_kumo_domain


# ---- docs/specs/kumo.md §11 metrics ----------------------------------------------------------------------------------
def relative_action_count(model_tests: int, oracle_tests: int) -> float:
    """``(m - o) / (o + 2)``: both counts follow the reference's tests-plus-2 convention (docs/specs/kumo.md §11)."""
    return (model_tests - oracle_tests) / (oracle_tests + 2)


def summarize_episodes(episodes: list[dict]) -> dict:
    """Metrics per (domain, difficulty) from episode records.

    Each record: ``instance_id``, ``domain``, ``difficulty``, ``status`` (a Verdict status),
    ``tests`` (tests the model took) and ``oracle_tests``. Success rate is averaged per
    instance over its runs, then over instances; RAC is reported over episodes that ended in a
    prediction (headline) and over successful ones.
    """
    groups: dict = defaultdict(list)
    for ep in episodes:
        groups[(ep.get("domain"), ep.get("difficulty"))].append(ep)
    out = {}
    for key, eps in sorted(groups.items(), key=lambda kv: tuple(map(str, kv[0]))):
        per_inst: dict = defaultdict(list)
        for ep in eps:
            per_inst[ep["instance_id"]].append(ep["status"] == "solved")
        predicted = [ep for ep in eps if ep["status"] in ("solved", "wrong")]
        solved = [ep for ep in eps if ep["status"] == "solved"]

        def mean(xs):
            return sum(xs) / len(xs) if xs else math.nan

        out[f"{key[0]}|{key[1]}"] = {
            "episodes": len(eps), "instances": len(per_inst),
            "success_rate": mean([mean(v) for v in per_inst.values()]),
            "parse_error_rate": mean([ep["status"] == "parse_error" for ep in eps]),
            "truncation_rate": mean([ep["status"] in ("truncated", "incomplete") for ep in eps]),
            "rac": mean([relative_action_count(ep["tests"], ep["oracle_tests"]) for ep in predicted]),
            "rac_successful": mean([relative_action_count(ep["tests"], ep["oracle_tests"]) for ep in solved]),
            "mean_tests": mean([ep["tests"] for ep in eps]),
            "mean_oracle_tests": mean([ep["oracle_tests"] for ep in eps]),
        }
    return out


# ---- docs/specs/kumo.md §12 graph, communities, split ----------------------------------------------------------------
def truth_graph(domain: Domain):
    """Truths as nodes; edge ``t-u`` iff some action has states ruling out both (union over its
    states); weight = number of such actions."""
    import networkx as nx

    g = nx.Graph()
    g.add_nodes_from(domain.truths)
    for a in domain.actions:
        related = sorted({t for s in domain.outcomes[a].states for t in s.rules_out}, key=domain.truths.index)
        for i, t in enumerate(related):
            for u in related[i + 1:]:
                w = g[t][u]["weight"] + 1 if g.has_edge(t, u) else 1
                g.add_edge(t, u, weight=w)
    return g


def truth_communities(domain: Domain, seed: int = 0) -> tuple[list[list[str]], float]:
    """Louvain communities (weighted, ``seed=0``) in domain order, and their modularity."""
    import networkx as nx

    g = truth_graph(domain)
    comms = nx.community.louvain_communities(g, weight="weight", seed=seed)
    order = {t: i for i, t in enumerate(domain.truths)}
    comms = sorted((sorted(c, key=order.get) for c in comms), key=lambda c: order[c[0]])
    return comms, nx.community.modularity(g, comms, weight="weight")


def truth_components(domain: Domain) -> list[list[str]]:
    """Connected components, by size descending then smallest truth index (docs/specs/kumo.md §12)."""
    import networkx as nx

    order = {t: i for i, t in enumerate(domain.truths)}
    comps = [sorted(c, key=order.get) for c in nx.connected_components(truth_graph(domain))]
    return sorted(comps, key=lambda c: (-len(c), order[c[0]]))


SPLIT_ACTIONS = ("auto", "paper", "balanced", "shared")


@dataclass
class DomainSplit:
    """Two halves of a domain with disjoint truths (docs/specs/kumo.md §12).

    ``units``: ``components`` or ``communities``; ``cut_actions``: actions relating truths on both
    sides; ``actions``: how actions were assigned (``paper``, ``balanced`` or ``shared``);
    ``balance``: the sizes of both halves and their shares (1.0 = all on the IND side).
    """

    ind: Domain
    ood: Domain
    units: str
    cut_actions: list = field(default_factory=list)
    actions: str = "paper"
    balance: dict = field(default_factory=dict)


def _restrict(domain: Domain, truths: list[str], actions: list[str], suffix: str) -> Domain:
    keep = set(truths)
    outcomes = {}
    for a in actions:
        o = domain.outcomes[a]
        outcomes[a] = {"type": o.type, "states": [{"state": s.label(), "rules_out": [t for t in s.rules_out
                                                                                    if t in keep]}
                                                  for s in o.states]}
    obj = {"schema": SCHEMA, "name": f"{domain.name}{suffix}", "goal": domain.goal,
           "truth_noun": domain.truth_noun, "action_noun": domain.action_noun,
           "truths": [t for t in domain.truths if t in keep], "actions": list(actions), "outcomes": outcomes,
           "provenance": {"source": "split", "of": domain.fingerprint, "part": suffix.strip()}}
    return import_kumo_domain(obj)[0]


def _assign_actions(domain: Domain, s1: set, mode: str) -> tuple[list[str], list[str], list[str]]:
    """``(A1, A2, cut)`` under ``mode`` (see :func:`split_domain`)."""
    a1, a2, cut = [], [], []
    margin = {}
    for a in domain.actions:
        related = {t for s in domain.outcomes[a].states for t in s.rules_out}
        if not related:
            continue
        inside, outside = len(related & s1), len(related - s1)
        if inside and outside:
            cut.append(a)
        if mode == "shared":
            if inside:
                a1.append(a)
            if outside:
                a2.append(a)
        elif mode == "paper":
            (a1 if not outside else a2).append(a)
        else:  # balanced: one side each, a cut action where it relates more truths
            margin[a] = inside - outside
            (a1 if inside > outside or (inside == outside and len(a1) <= len(a2)) else a2).append(a)
    if mode == "balanced":
        # even out the counts by moving the cut actions that relate both sides most evenly
        order = {a: i for i, a in enumerate(domain.actions)}
        while abs(len(a1) - len(a2)) > 1:
            big, small = (a1, a2) if len(a1) > len(a2) else (a2, a1)
            movable = [a for a in big if a in cut]
            if not movable:
                break
            a = min(movable, key=lambda x: (abs(margin[x]), order[x]))
            big.remove(a)
            small.append(a)
        a1.sort(key=order.get)
        a2.sort(key=order.get)
    return a1, a2, cut


def split_domain(domain: Domain, balance: str = "alternate", max_component_share: float = 0.65,
                 actions: str = "auto", min_actions: int = 16) -> DomainSplit:
    """IND/OOD split (docs/specs/kumo.md §12) with disjoint truths.

    Truths: connected components of the truth graph (or Louvain communities when the largest
    component holds more than ``max_component_share`` of the truths), assigned to T1/T2
    alternately (``balance="alternate"``, the paper's rule) or each to the smaller side
    (``"greedy"``). Actions (``actions=``):

    * ``"paper"``: an action goes to A1 iff all its related truths are in T1, else to A2;
    * ``"balanced"``: each action on one side only, an action relating both sides on the side
      where it relates more truths, then cut actions moved until the counts differ by at most 1;
    * ``"shared"``: every action on each side whose truths it relates (outcomes restricted to
      that side's truths), so only the truths are new on the OOD side;
    * ``"auto"`` (default): the first of these that gives both sides ``min_actions`` actions (16:
      Hard instances), so that both halves can generate Easy and Hard instances. KUMO's Medical
      domain splits by the paper's rule; our denser domains need ``shared``.

    Actions relating nothing are dropped. ``balance`` of the result reports the sizes.
    """
    if balance not in ("alternate", "greedy"):
        raise ValueError(f"balance {balance!r} is not one of: alternate, greedy")
    if actions not in SPLIT_ACTIONS:
        raise ValueError(f"actions {actions!r} is not one of: {', '.join(SPLIT_ACTIONS)}")
    units, kind = truth_components(domain), "components"
    if len(units[0]) > max_component_share * len(domain.truths):
        comms, _ = truth_communities(domain)
        order = {t: i for i, t in enumerate(domain.truths)}
        units, kind = sorted(comms, key=lambda c: (-len(c), order[c[0]])), "communities"
    t1: list[str] = []
    t2: list[str] = []
    for i, unit in enumerate(units):
        side = (t1 if i % 2 == 0 else t2) if balance == "alternate" else (t1 if len(t1) <= len(t2) else t2)
        side.extend(unit)
    s1 = set(t1)
    for mode in (("paper", "balanced", "shared") if actions == "auto" else (actions,)):
        a1, a2, cut = _assign_actions(domain, s1, mode)
        if min(len(a1), len(a2)) >= min_actions:
            break
    n1, n2 = len(t1), len(t2)
    stats = {"truths": [n1, n2], "actions": [len(a1), len(a2)], "shared_actions": len(set(a1) & set(a2)),
             "truth_share": n1 / max(n1 + n2, 1), "action_share": len(a1) / max(len(a1) + len(a2), 1)}
    return DomainSplit(_restrict(domain, t1, a1, " IND"), _restrict(domain, t2, a2, " OOD"), kind, cut, mode, stats)


# ---- docs/specs/kumo.md §13 signatures vs correctness ----------------------------------------------------------------
def graph_signature(data: dict) -> str:
    """``"T:" + sorted truth degrees + "|A:" + sorted action degrees`` of the instance's
    truth-action bipartite graph (edge iff some state of the action rules out the truth)."""
    tdeg = {t: 0 for t in data["truths"]}
    adeg = []
    for a in data["actions"]:
        related = {t for s in data["outcomes"][a]["states"] for t in s["rules_out"] if t in tdeg}
        adeg.append(len(related))
        for t in related:
            tdeg[t] += 1
    return "T:" + ",".join(map(str, sorted(tdeg.values()))) + "|A:" + ",".join(map(str, sorted(adeg)))


def majority_correct(runs: list[bool]) -> bool:
    """The paper's label: correct when at least 3 of 5 runs (a strict majority) succeed."""
    return sum(runs) * 2 > len(runs)


def association_from_runs(instances: list[dict], runs: list[list[bool]], min_expected: float | None = None) -> dict:
    """docs/specs/kumo.md §13 end to end: each instance's graph signature against its majority label over its runs
    (the paper: correct when at least 3 of 5 runs succeed), then :func:`signature_association`."""
    if len(instances) != len(runs):
        raise ValueError("instances and runs must have the same length")
    return signature_association([graph_signature(d) for d in instances], [majority_correct(r) for r in runs],
                                 min_expected)


def signature_association(signatures: list[str], correct: list[bool], min_expected: float | None = None) -> dict:
    """Chi-square test of independence and Cramér's V between signatures and correctness.

    ``V = sqrt(X2 / (n * min(r - 1, c - 1)))``; NaN when a margin has a single category. With
    ``min_expected`` rare signatures are merged into ``other`` (the paper did not).
    """
    from scipy.stats import chi2_contingency

    if len(signatures) != len(correct):
        raise ValueError("signatures and correct must have the same length")
    counts: dict = defaultdict(lambda: [0, 0])
    for s, c in zip(signatures, correct):
        counts[s][0 if c else 1] += 1
    n = len(signatures)
    if min_expected is not None and n:
        col = [sum(v[0] for v in counts.values()), sum(v[1] for v in counts.values())]
        merged: dict = defaultdict(lambda: [0, 0])
        for s, v in counts.items():
            exp = min(sum(v) * col[0] / n, sum(v) * col[1] / n)
            key = s if exp >= min_expected else "other"
            merged[key][0] += v[0]
            merged[key][1] += v[1]
        counts = merged
    rows = [v for _, v in sorted(counts.items())]
    cols_nonzero = [j for j in range(2) if any(r[j] for r in rows)]
    if len(rows) < 2 or len(cols_nonzero) < 2:
        return {"chi2": math.nan, "p": math.nan, "dof": 0, "cramers_v": math.nan, "n": n, "table": rows}
    chi2, p, dof, _ = chi2_contingency(rows, correction=False)
    v = math.sqrt(chi2 / (n * min(len(rows) - 1, 1)))
    return {"chi2": float(chi2), "p": float(p), "dof": int(dof), "cramers_v": v, "n": n, "table": rows}
