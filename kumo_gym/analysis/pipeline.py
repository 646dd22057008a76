"""The reasoning-graph pipeline on one trace record (:func:`analyse_trace`): the deterministic
stages of :mod:`kumo_gym.analysis.extract`, or with a model the LLM stages of
:mod:`kumo_gym.analysis.llm`, then the graph, its labels and its metrics."""
from __future__ import annotations

import json
from typing import Any

from .extract import (
    PIPELINE_VERSION,
    NoPackError,
    _tokens_of,
    bounds_of,
    build_graph,
    extract_deterministic,
    trace_text,
)
from .packs import pack_for
from .schema import Pack


def family_mismatch(env_id: Any, instance_family: Any) -> str | None:
    """Why an instance cannot belong to ``env_id`` (its task's family differs), or None."""
    if not isinstance(env_id, str) or not env_id or not instance_family:
        return None
    try:
        from ..core.registry import get_task

        expected = getattr(get_task(env_id), "family", None)
    except Exception:  # noqa: BLE001 - an env id this install does not know: nothing to compare
        return None
    if expected and expected != instance_family:
        return f"the instance is a {instance_family!r} puzzle but {env_id} expects {expected!r}"
    return None


def _task_for(record: dict):
    env_id = record.get("env_id")
    if not env_id:
        return None
    try:
        from ..core.registry import get_task

        return get_task(env_id)
    except Exception:  # noqa: BLE001 - unknown env id or a family not installed: no final-answer parsing
        return None


def analyse_trace(record: dict, backend: Any = None, *, pack: Pack | None = None, task: Any = None,
                  solution_claims: list | None = None, profile: str = "default", llm_options: dict | None = None,
                  force: bool = False) -> dict:
    """The full pipeline on one trace record; returns the ``kumo_gym.reasoning_graph/v1`` dict.

    ``backend=None`` runs the deterministic mode (no model). With a ChatBackend the LLM stages of
    :mod:`kumo_gym.analysis.llm` run too. ``solution_claims`` (content keys) default to C* of the
    instance (:func:`kumo_gym.analysis.verify.solution_claims`).
    """
    from ..core.instance import Instance
    from .graph import reasoning_metrics
    from .verify import label_graph
    from .verify import solution_claims as cstar_of

    inst = record.get("instance")
    instance = Instance.from_dict(inst) if isinstance(inst, dict) else inst
    env_id = record.get("env_id") or ""
    mismatch = family_mismatch(env_id, getattr(instance, "family", None))
    if mismatch:
        raise ValueError(mismatch)
    pack = pack or pack_for(env_id) or pack_for(getattr(instance, "family", None) or record.get("family"))
    if pack is None:
        raise NoPackError(f"no reasoning-graph pack for {env_id or record.get('family') or 'this record'} "
                          "(packs exist for the grid puzzles: docs/analysis.md)")
    task = task if task is not None else _task_for(record)
    bounds = bounds_of(instance)
    text, answer = trace_text(record)
    provenance: dict[str, Any] = {"pipeline": PIPELINE_VERSION, "mode": "llm" if backend is not None else "deterministic",
                                  "profile": profile}
    if backend is None:
        art = extract_deterministic(text, answer, pack, bounds, task, instance)
    else:
        from .llm import extract_with_model

        art = extract_with_model(text, answer, pack, bounds, backend, task=task, instance=instance,
                                 **(llm_options or {}))
        provenance.update(art.get("provenance", {}))
    graph, info = build_graph(art["claims"], art["apps"], pack)
    verdict = record.get("verdict") or {}
    solved = verdict.get("solved", verdict.get("status") == "solved") if verdict else None
    if instance is not None:
        label_graph(graph, instance, pack, profile=profile)
    cstar = solution_claims if solution_claims is not None else (cstar_of(instance, pack) if instance is not None else [])
    metrics = reasoning_metrics(graph, cstar, merge_static=True, solved=solved, force=force)
    metrics["dropped_edges"] = info["dropped_edges"] + metrics["dropped_edges"]
    metrics["n_missing"] = info["n_missing"]
    labels = {v: graph.nodes[v].get("label") for v in graph}
    return {
        "schema": PIPELINE_VERSION,
        "trace_id": record.get("trace_id") or record.get("id"),
        "key": record.get("key"),
        "mode": record.get("mode"),
        "puzzle": pack.puzzle,
        "env_id": record.get("env_id"),
        "instance_id": record.get("instance_id") or (instance.instance_id if instance is not None else None),
        "difficulty": record.get("difficulty") or (getattr(instance, "params", None) or {}).get("difficulty"),
        "size": f"{bounds.H}x{bounds.W}" if bounds else None,
        "model": record.get("model"),
        "solved": solved,
        "tokens": _tokens_of(record, text),
        "indexing": art["indexing"],
        "sentences": [{"index": s.index, "text": s.text} for s in art["sentences"]],
        "claims": [{"id": c["id"], "kind": c["claim"][0], "payload": json.loads(c["claim"][1]),
                    "status": a["status"], "scope": c["scope"], "source_sents": c["source_sents"],
                    "label": labels.get(c["id"]), "static": graph.nodes[c["id"]]["static"]}
                   for c, a in zip(art["claims"], art["apps"])],
        "edges": [{"src": u, "dst": v, "type": d.get("type"), "rule": d.get("rule")} for u, v, d in graph.edges(data=True)],
        "missing": [{"id": v, "feeds": list(graph.successors(v))} for v in graph
                    if graph.nodes[v].get("kind") == "Missing"],
        "solution_claims": [list(k) for k in cstar],
        "metrics": metrics,
        "counters": art["counters"],
        "provenance": provenance,
    }
