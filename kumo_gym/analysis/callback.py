"""Per-sample reasoning-graph metrics for an evaluation loop (docs/specs/reasoning_graphs.md §8 during training).

:func:`graph_metrics` takes model completions with their instances and returns one metrics dict
per sample; :func:`summarize` averages them for logging. The training package's
``TrainerCallback`` calls these on its evaluation samples; they never raise on a bad sample (the
sample's ``error`` field says what went wrong) and need no model (deterministic extraction)
unless a ChatBackend is passed.
"""
from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from typing import Any

#: the per-sample fields returned by default
DEFAULT_KEYS = ("V", "V_sol", "V_ver", "depth", "H_str", "eta", "eta_status", "sol_fraction", "ver_overhead",
                "claim_accuracy", "first_error_depth", "coverage", "restatements_per_unique_claim")


def _instance_dict(instance: Any) -> dict:
    to_dict = getattr(instance, "to_dict", None)
    return to_dict() if callable(to_dict) else instance


def graph_metrics(completions: Sequence[str], instances: Sequence[Any], *, env_id: str | None = None,
                  env_ids: Sequence[str] | None = None, verdicts: Sequence[Any] | None = None,
                  reasoning: Sequence[str | None] | None = None, backend: Any = None,
                  keys: Sequence[str] = DEFAULT_KEYS, profile: str = "default") -> list[dict]:
    """Reasoning-graph metrics of each completion (docs/specs/reasoning_graphs.md §1-§3).

    ``instances`` are Instances or their dicts; ``env_id`` (or one per sample in ``env_ids``)
    names the environment, e.g. ``kumo_gym/Tents-v0``. ``verdicts`` (Verdict or dict) are
    computed with the task's ``score`` when not given, so eta is reported for solved samples
    only (``eta_status`` says why it is missing otherwise). Each result has ``solved``,
    ``error`` (None or a message) and the requested ``keys``.
    """
    from ..core.registry import get_task
    from .pipeline import analyse_trace, family_mismatch

    if len(completions) != len(instances):
        raise ValueError(f"{len(completions)} completions but {len(instances)} instances")
    out = []
    for i, (text, inst) in enumerate(zip(completions, instances)):
        eid = env_ids[i] if env_ids is not None else env_id
        result: dict[str, Any] = {"solved": None, "error": None, **dict.fromkeys(keys)}
        try:
            inst_d = _instance_dict(inst)
            if not isinstance(inst_d, dict):
                raise TypeError(f"sample {i}: the instance is a {type(inst).__name__}, not an Instance or its dict")
            # an instance of another family would be scored and labelled by the wrong rules
            mismatch = family_mismatch(eid, inst_d.get("family"))
            if mismatch:
                raise ValueError(mismatch)
            verdict = verdicts[i] if verdicts is not None else None
            if verdict is None and eid:
                from ..core.instance import Instance

                task = get_task(eid)
                obj = inst if hasattr(inst, "data") else Instance.from_dict(inst_d)
                verdict = task.score(obj, text, reasoning=reasoning[i] if reasoning else None)
            if verdict is not None and hasattr(verdict, "to_dict"):
                verdict = verdict.to_dict()
            record = {"env_id": eid, "family": inst_d.get("family"), "instance": inst_d, "completion": text,
                      "reasoning": reasoning[i] if reasoning else None, "verdict": verdict}
            doc = analyse_trace(record, backend, profile=profile)
            result["solved"] = doc["solved"]
            result.update({k: doc["metrics"].get(k) for k in keys})
        except Exception as e:  # noqa: BLE001 - one unreadable sample must not stop an evaluation loop
            result["error"] = f"{type(e).__name__}: {e}"
        out.append(result)
    return out


def summarize(per_sample: Sequence[dict], prefix: str = "graph/") -> dict[str, float]:
    """Means of the numeric fields over the samples that have them, for a logger.

    eta is averaged over samples whose eta is defined (solved runs, status ok/above_one);
    ``<prefix>eta_defined`` is the fraction of samples with an eta and ``<prefix>errors`` the
    number of samples that could not be analysed.
    """
    out: dict[str, float] = {}
    keys = sorted({k for s in per_sample for k, v in s.items()
                   if isinstance(v, (int, float)) and not isinstance(v, bool)})
    for k in keys:
        vals = [float(s[k]) for s in per_sample if isinstance(s.get(k), (int, float)) and not isinstance(s.get(k), bool)
                and math.isfinite(float(s[k]))]
        if vals:
            out[prefix + k] = statistics.fmean(vals)
    n = len(per_sample)
    out[prefix + "eta_defined"] = (sum(1 for s in per_sample if s.get("eta") is not None) / n) if n else 0.0
    out[prefix + "errors"] = float(sum(1 for s in per_sample if s.get("error")))
    return out
