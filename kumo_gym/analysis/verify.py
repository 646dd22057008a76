"""Claim verification against the environment (reasoning_graphs.md §2, paper App. B).

Every node of a claim graph gets one label, ``correct``, ``incorrect``, ``unverifiable`` or
``tentative``, by the first matching rule:

1. a tentative occurrence -> tentative;
2. ``Missing`` placeholders and ``Contradiction`` claims -> unverifiable;
3. solution claims (Tent, NotTent, Assign, Cell, NotCell) -> checked against the instance's unique
   stored solution;
4. clue claims (Tree, Quota, Given, UnitHas) -> checked against the instance; UnitHas is correct
   when the digit is a given in that unit and unverifiable otherwise;
5. state-dependent claims (Remaining, Cand, candidate lists, UnitMissing, UnitPlaces) ->
   unverifiable;

Rules 3-5 are the grid families' own claim checker, ``kumo_gym.envs.grid.claims.label_claim``
(same kinds and payloads for Tents and Solo; the generic ``cell`` claim for the others). Rule 6
needs the graph: in a ``BRANCH#k`` that contains a Contradiction, a *derived* claim found incorrect
becomes tentative, since it is part of a refutation rather than a committed error.

``profile="consistency"`` (off by default) adds the sound checks of §2 against the unique
solution for state-dependent claims; reports name the profile they used.
"""
from __future__ import annotations

import json
from typing import Any

import networkx as nx

from ..core.errors import check_choice
from .graph import content_key
from .schema import Pack, branch_number

PROFILES = ("default", "consistency")


def _data(instance: Any) -> dict:
    data = getattr(instance, "data", None)
    return data if isinstance(data, dict) else {}


def stored_solution(instance: Any) -> list | None:
    """The instance's stored solution grid (grid_puzzles.md §2 ``data.solution``), or None."""
    sol = _data(instance).get("solution")
    return sol if isinstance(sol, list) else None


def _claims_module():
    """``kumo_gym.envs.grid.claims``: the grid families' claim checkers (grid_puzzles.md §7)."""
    from ..envs.grid import claims

    return claims


def _key_of(claim: dict) -> tuple[str, str]:
    kind = claim["type"]
    payload = {k: v for k, v in claim.items() if k != "type"}
    if kind == "cell":  # the generic form, as the generic pack writes it
        kind, payload = ("NotCell" if claim.get("negated") else "Cell"), {"r": claim["row"], "c": claim["col"],
                                                                          "v": claim["value"]}
    return content_key(kind, payload)


def solution_claims(instance: Any, pack: Pack) -> list[tuple[str, str]]:
    """C*: the minimal statement of the solution as content keys (§1; grid_puzzles.md §7).

    Tents: one ``Tent`` per tent; Solo: an ``Assign`` per cell (from the grid family's
    ``solution_claims``); the generic pack: a ``Cell`` for every cell of the solution.
    """
    if pack.puzzle in ("tents", "solo"):
        return [_key_of(c) for c in _claims_module().solution_claims(instance, stored_solution(instance))]
    sol = stored_solution(instance)
    if sol is None:
        return []
    return [content_key("Cell", {"r": r, "c": c, "v": v}) for r, row in enumerate(sol) for c, v in enumerate(row)]


def _env_claim(kind: str, payload: dict, pack: Pack, family: str) -> dict | None:
    """Our claim in the grid family's schema: the same kinds for Tents and Solo, the generic
    ``cell`` claim for Cell/NotCell of the generic pack, None when the family has no such kind."""
    if pack.puzzle in ("tents", "solo"):
        return {"type": kind, **payload}
    if kind in ("Cell", "NotCell"):
        return {"type": "cell", "row": payload["r"], "col": payload["c"], "value": payload["v"],
                "negated": kind == "NotCell"}
    known = _claims_module().KINDS.get(family, {})
    return {"type": kind, **payload} if kind in known else None


def label_claim(kind: str, payload: dict, instance: Any, pack: Pack, *, status: str = "stated",
                profile: str = "default", solution: list | None = None, assumption: tuple | None = None) -> str:
    """The §2 label of one claim occurrence (rules 1-5; rule 6 needs the graph, see label_graph).

    Rules 3-5 (and the consistency checks) are the grid family's ``label_claim``; a claim the
    family cannot read (unknown kind, malformed payload) is unverifiable. ``assumption`` is the
    tentative claim of a Contradiction's branch (consistency profile only).
    """
    check_choice("profile", profile, PROFILES)
    if status == "tentative":
        return "tentative"
    sol = solution if solution is not None else stored_solution(instance)
    claims = _claims_module()
    if kind in ("Missing", "Contradiction"):
        if profile == "consistency" and kind == "Contradiction" and assumption is not None:
            # Contradiction(k) is right exactly when branch k assumed something false
            truth = label_claim(assumption[0], json.loads(assumption[1]), instance, pack, solution=sol)
            if truth in ("correct", "incorrect"):
                return "incorrect" if truth == "correct" else "correct"
        return "unverifiable"
    family = getattr(instance, "family", "")
    claim = _env_claim(kind, payload, pack, family)
    if claim is None:
        return "unverifiable"
    try:
        return claims.label_claim(instance, claim, sol, profile=profile)
    except claims.ClaimError:
        return "unverifiable"


def label_graph(graph: nx.DiGraph, instance: Any, pack: Pack, profile: str = "default") -> nx.DiGraph:
    """Set the ``label`` attribute of every node of ``graph`` (§2 rules 1-6), in place."""
    check_choice("profile", profile, PROFILES)
    sol = stored_solution(instance)
    refuted = set()
    assumptions: dict[int, tuple] = {}
    for v, d in graph.nodes(data=True):
        k = branch_number(d.get("scope", "MAIN"))
        if k is None:
            continue
        if d.get("kind") == "Contradiction":
            refuted.add(k)
        if d.get("status") == "tentative":
            assumptions.setdefault(k, d["claim"])
    for v, d in graph.nodes(data=True):
        kind = d.get("kind") or d["claim"][0]
        payload = json.loads(d["claim"][1]) if isinstance(d["claim"], tuple) else {}
        k = branch_number(d.get("scope", "MAIN"))
        label = label_claim(kind, payload, instance, pack, status=d.get("status", "stated"), profile=profile,
                            solution=sol, assumption=assumptions.get(payload.get("branch")) if kind == "Contradiction" else None)
        if label == "incorrect" and k in refuted and d.get("status") == "derived":
            label = "tentative"  # rule 6: part of a refutation, not a committed error
        d["label"] = label
    return graph
