"""SPaRC metrics (spec §12; paper §4.2 and App. J).

Accuracy overall, per difficulty level, per rule type present and per grid size; path-error
rates (the share of answers raising each flag of spec §6, and ``invalid_path``); rule-violation
rates among structurally valid paths; and pass@k with the unbiased estimator.

Input rows are dicts with a ``verdict`` (a Verdict or its dict) and the puzzle, given as
``instance`` (an Instance, its dict, or an official record) or directly as ``level``,
``rule_types`` and ``grid_size``; ``puzzle_id`` groups samples for pass@k (defaults to the
instance id).
"""
from __future__ import annotations

from collections import defaultdict
from itertools import combinations

from ..envs.sparc.puzzle import SparcPuzzle
from .results import pass_at_k

PATH_FLAGS = ("incorrect_start_end", "disconnected", "intersecting", "rule_cell_crossing", "invalid_path")
RULES = ("dot", "gap", "square", "star", "triangle", "poly")


def pass_at_k_brute(outcomes: list[bool], k: int) -> float:
    """pass@k by averaging over every k-subset of the samples (the definition; for tests)."""
    subsets = list(combinations(outcomes, k))
    return sum(any(s) for s in subsets) / len(subsets)


def _verdict(row) -> dict:
    v = row["verdict"]
    return v if isinstance(v, dict) else v.to_dict()


def _puzzle_info(row) -> dict:
    """level, rule types, grid size and id of a row's puzzle."""
    if "level" in row and "rule_types" in row:
        return {"level": row["level"], "rule_types": set(row["rule_types"]), "grid_size": tuple(row.get("grid_size", ())),
                "puzzle_id": row.get("puzzle_id")}
    inst = row.get("instance")
    data = getattr(inst, "data", None)
    if data is None and isinstance(inst, dict):
        data = inst.get("data", inst)
    p = SparcPuzzle.from_grid(data["puzzle_array"], data.get("polyshapes") or "{}")
    iid = getattr(inst, "instance_id", None) or (inst.get("instance_id") if isinstance(inst, dict) else None)
    return {"level": data.get("difficulty_level"), "rule_types": p.rule_types(), "grid_size": (p.width, p.height),
            "puzzle_id": row.get("puzzle_id") or data.get("id") or iid}


def summarize(rows: list[dict], ks=(1, 2, 4, 8)) -> dict:
    """All metrics of §12 for a list of rows (see the module docstring)."""
    total = len(rows)
    out: dict = {"n": total}
    if not total:
        return out
    infos = [_puzzle_info(r) for r in rows]
    verdicts = [_verdict(r) for r in rows]
    solved = [v["status"] == "solved" for v in verdicts]
    out["accuracy"] = sum(solved) / total

    def group(keyf):
        acc = defaultdict(lambda: [0, 0])
        for info, ok in zip(infos, solved):
            for key in keyf(info):
                acc[key][0] += ok
                acc[key][1] += 1
        return {str(k): {"accuracy": a / n, "n": n} for k, (a, n) in sorted(acc.items(), key=lambda kv: str(kv[0]))}

    out["by_level"] = group(lambda i: [i["level"]])
    out["by_rule_type"] = group(lambda i: sorted(i["rule_types"]))
    out["by_grid_size"] = group(lambda i: [f"{i['grid_size'][0]}x{i['grid_size'][1]}"] if i["grid_size"] else [])
    # path errors over every answer (unreadable answers count as no flag raised)
    flags = {f: 0 for f in PATH_FLAGS}
    parse_errors = 0
    for v in verdicts:
        pe = (v.get("details") or {}).get("path_errors")
        if pe is None:
            parse_errors += v["status"] in ("parse_error", "truncated")
            continue
        for f in PATH_FLAGS:
            flags[f] += bool(pe.get(f))
    out["path_error_rates"] = {f: flags[f] / total for f in PATH_FLAGS}
    out["parse_error_rate"] = parse_errors / total
    # rule violations among structurally valid paths
    valid = [v for v in verdicts if (v.get("details") or {}).get("path_errors") is not None
             and not v["details"]["path_errors"].get("invalid_path") and not v["details"]["path_errors"].get("out_of_bounds")]
    out["valid_paths"] = len(valid)
    out["rule_violation_rates"] = {
        r: (sum(bool((v["details"].get("rule_violations") or {}).get(r)) for v in valid) / len(valid) if valid else 0.0)
        for r in RULES}
    # pass@k over samples of the same puzzle
    per_puzzle = defaultdict(list)
    for info, ok in zip(infos, solved):
        per_puzzle[info["puzzle_id"]].append(ok)
    out["pass_at_k"] = {}
    for k in ks:
        eligible = [s for s in per_puzzle.values() if len(s) >= k]
        if eligible and len(eligible) == len(per_puzzle):
            out["pass_at_k"][str(k)] = sum(pass_at_k(len(s), sum(s), k) for s in eligible) / len(eligible)
    return out


def format_table(summary: dict) -> str:
    """A short text table of a summary (accuracy by level and the path-error rates)."""
    lines = [f"answers: {summary.get('n', 0)}  accuracy: {100 * summary.get('accuracy', 0):.1f}%"]
    for lv, d in summary.get("by_level", {}).items():
        lines.append(f"  level {lv}: {100 * d['accuracy']:5.1f}%  (n={d['n']})")
    for f, r in summary.get("path_error_rates", {}).items():
        lines.append(f"  {f:<20} {100 * r:5.1f}%")
    for r, v in summary.get("rule_violation_rates", {}).items():
        lines.append(f"  violates {r:<11} {100 * v:5.1f}%  (of {summary.get('valid_paths', 0)} valid paths)")
    for k, v in summary.get("pass_at_k", {}).items():
        lines.append(f"  pass@{k}: {100 * v:5.1f}%")
    return "\n".join(lines)
