"""Claim verification against the environment (docs/specs/reasoning_graphs.md §2, paper App. B).

Every node of a claim graph gets one label, ``correct``, ``incorrect``, ``unverifiable`` or
``tentative``, by the first matching rule:

1. a tentative occurrence -> tentative;
2. ``Missing`` placeholders and ``Contradiction`` claims -> unverifiable;
3. solution claims (Tent, NotTent, Assign, Cell, Light, Black, ...) -> checked against the
   instance's unique stored solution;
4. clue claims (Tree, Quota, Given, UnitHas) -> checked against the instance; UnitHas is correct
   when the digit is a given in that unit and unverifiable otherwise;
5. state-dependent claims (Remaining, Cand, candidate lists, UnitMissing, UnitPlaces) ->
   unverifiable;

Rules 3-5 are the grid task's own claim checker, ``task.verify_claim`` (docs/specs/grid_puzzles.md §7: the
packs use the families' kinds and payloads). Rule 6
needs the graph: in a ``BRANCH#k`` that contains a Contradiction, a *derived* claim found incorrect
becomes tentative, since it is part of a refutation rather than a committed error.

``profile="consistency"`` (off by default) adds the sound checks of docs/specs/reasoning_graphs.md §2 against the unique
solution for state-dependent claims; reports name the profile they used.
"""
from __future__ import annotations

import functools
import json
from typing import Any

import networkx as nx

from ..core.errors import ConfigError, check_choice
from .schema import Pack, branch_number

PROFILES = ("default", "consistency")


def _data(instance: Any) -> dict:
    data = getattr(instance, "data", None)
    return data if isinstance(data, dict) else {}


@functools.lru_cache(maxsize=64)
def grid_task(family: str):
    """The Task of the grid puzzle whose ``Instance.family`` is ``family`` (None if there is none)."""
    from ..core.registry import entries, get_task

    for e in entries():
        if e.family == "grid":
            task = get_task(e.id)
            if getattr(task, "family", None) == family or e.name.lower() == family:
                return task
    return None


def solution_claims(instance: Any, pack: Pack) -> list[tuple[str, str]]:
    """C*: the minimal statement of the solution as content keys (docs/specs/reasoning_graphs.md §1;
    docs/specs/grid_puzzles.md §7), from the pack (:meth:`Pack.solution_claims`)."""
    return pack.solution_claims(instance)


def label_claim(kind: str, payload: dict, instance: Any, pack: Pack, *, status: str = "stated",
                profile: str = "default", solution: list | None = None, assumption: tuple | None = None) -> str:
    """The docs/specs/reasoning_graphs.md §2 label of one claim occurrence (rules 1-5; rule 6 needs the graph, see
    label_graph).

    Rules 3-5 (and the consistency checks) are the grid task's ``verify_claim``; a claim the
    family cannot read (unknown kind, malformed payload) is unverifiable. ``assumption`` is the
    tentative claim of a Contradiction's branch (consistency profile only).
    """
    check_choice("profile", profile, PROFILES)
    if status == "tentative":
        return "tentative"
    if kind in ("Missing", "Contradiction"):
        if profile == "consistency" and kind == "Contradiction" and assumption is not None:
            # Contradiction(k) is right exactly when branch k assumed something false
            truth = label_claim(assumption[0], json.loads(assumption[1]), instance, pack, solution=solution)
            if truth in ("correct", "incorrect"):
                return "incorrect" if truth == "correct" else "correct"
        return "unverifiable"
    task = grid_task(getattr(instance, "family", "") or pack.env_family)
    if task is None:
        return "unverifiable"
    try:
        label = task.verify_claim(instance, pack.env_claim(kind, payload), profile=profile)
    except (ConfigError, ValueError, KeyError, TypeError, IndexError):
        return "unverifiable"  # a kind or payload the family does not check
    return label if label in ("correct", "incorrect", "unverifiable") else "unverifiable"


def label_graph(graph: nx.DiGraph, instance: Any, pack: Pack, profile: str = "default") -> nx.DiGraph:
    """Set the ``label`` attribute of every node of ``graph`` (docs/specs/reasoning_graphs.md §2 rules 1-6), in
    place."""
    check_choice("profile", profile, PROFILES)
    refuted = set()
    assumptions: dict[int, tuple] = {}
    for _node, d in graph.nodes(data=True):
        k = branch_number(d.get("scope", "MAIN"))
        if k is None:
            continue
        if d.get("kind") == "Contradiction":
            refuted.add(k)
        if d.get("status") == "tentative":
            assumptions.setdefault(k, d["claim"])
    for _node, d in graph.nodes(data=True):
        kind = d.get("kind") or d["claim"][0]
        payload = json.loads(d["claim"][1]) if isinstance(d["claim"], tuple) else {}
        k = branch_number(d.get("scope", "MAIN"))
        label = label_claim(kind, payload, instance, pack, status=d.get("status", "stated"), profile=profile,
                            assumption=assumptions.get(payload.get("branch")) if kind == "Contradiction" else None)
        if label == "incorrect" and k in refuted and d.get("status") == "derived":
            label = "tentative"  # rule 6: part of a refutation, not a committed error
        d["label"] = label
    return graph
