"""SPaRC metrics (docs/specs/sparc.md §12; paper §4.2 and App. J).

Accuracy overall, per difficulty level, per rule type present and per grid size; path-error
rates (the share of answers raising each flag of docs/specs/sparc.md §6, and ``invalid_path``); rule-violation
rates among structurally valid paths; and pass@k with the unbiased estimator.

Input rows are dicts with a ``verdict`` (a Verdict or its dict) and the puzzle, given as
``instance`` (an Instance, its dict, or an official record) or directly as ``level``,
``rule_types`` and ``grid_size``; ``puzzle_id`` groups samples for pass@k (defaults to the
instance id).
"""
from __future__ import annotations

import math
from collections import defaultdict
from itertools import combinations
from statistics import mean, stdev

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
    """All metrics of docs/specs/sparc.md §12 for a list of rows (see the module docstring)."""
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


# ---- level calibration -------------------------------------------------------------------------------
#: rule types as the level statistics count them (a puzzle's distinct types among these seven)
SYMBOL_TYPES = ("dot", "gap", "square", "star", "triangle", "poly", "ylop")
#: the per-level statistics of all 500 official test puzzles (SPaRC ``all`` config, test split):
#: puzzles; grid area in cells; positions of the shortest solution, mean, standard deviation and
#: minimum; distinct rule types among :data:`SYMBOL_TYPES`; solutions (distinct valid paths)
OFFICIAL_TEST_LEVELS = {
    1: {"n": 86, "area": 6.3, "shortest": 16.0, "shortest_sd": 5.9, "shortest_min": 3, "rule_types": 2.44,
        "solutions": 4.6},
    2: {"n": 118, "area": 9.1, "shortest": 20.2, "shortest_sd": 7.8, "shortest_min": 2, "rule_types": 3.04,
        "solutions": 6.7},
    3: {"n": 121, "area": 10.0, "shortest": 22.9, "shortest_sd": 9.1, "shortest_min": 2, "rule_types": 3.28,
        "solutions": 5.9},
    4: {"n": 86, "area": 13.9, "shortest": 29.6, "shortest_sd": 8.7, "shortest_min": 7, "rule_types": 4.02,
        "solutions": 7.5},
    5: {"n": 89, "area": 19.2, "shortest": 40.0, "shortest_sd": 12.2, "shortest_min": 9, "rule_types": 4.73,
        "solutions": 7.7},
}
#: the calibrated columns: per level, our mean must lie within 10 % of the official one
CALIBRATED = ("area", "shortest", "rule_types", "solutions")
#: every per-puzzle statistic of :func:`puzzle_stats` averaged per level
LEVEL_STATS = CALIBRATED + ("score",) + tuple(f"has_{t}" for t in SYMBOL_TYPES)
#: extra per-level means reported beside the compared statistics
EXTRA_STATS = ("symbols", "dots", "gaps", "constraints")


def puzzle_stats(record: dict) -> dict:
    """The level statistics of one record (official or generated) whose ``solutions`` list is
    complete: grid area in cells (``w * h``), positions of its shortest solution (the path's
    length, ``S`` and ``E`` included), its distinct rule types among dot, gap, square, star,
    triangle, polyomino and ylop, its solution count (distinct valid paths), difficulty score
    and which types it holds; also its numbers of cell symbols, dots, gaps and all three
    together (``constraints``)."""
    p = SparcPuzzle.from_record(record)
    paths = {tuple((d["x"], d["y"]) for d in s["path"]) for s in record["solutions"]}
    types = p.rule_types()
    out = {"level": int(record["difficulty_level"]), "area": p.width * p.height,
           "shortest": min(len(path) for path in paths), "rule_types": len(types & set(SYMBOL_TYPES)),
           "solutions": len(paths), "score": float(record["difficulty_score"]), "symbols": len(p.symbols),
           "dots": len(p.dots), "gaps": len(p.gaps), "constraints": len(p.symbols) + len(p.dots) + len(p.gaps)}
    out.update({f"has_{t}": float(t in types) for t in SYMBOL_TYPES})
    return out


def level_stats(records) -> dict:
    """``{level: {statistic: mean}}`` over records (see :func:`puzzle_stats`), with ``n``, the
    sample standard deviation ``<stat>_sd`` and the standard error of the mean ``<stat>_se`` of
    every statistic, the smallest shortest solution (``shortest_min``) and the fewest
    constraints (``constraints_min``) per level."""
    by_level: dict = defaultdict(list)
    for r in records:
        st = puzzle_stats(r)
        by_level[st["level"]].append(st)
    out = {}
    for lv, rows in sorted(by_level.items()):
        d: dict = {"n": len(rows)}
        for k in LEVEL_STATS + EXTRA_STATS:
            values = [r[k] for r in rows]
            d[k] = mean(values)
            d[f"{k}_sd"] = stdev(values) if len(values) > 1 else 0.0
            d[f"{k}_se"] = d[f"{k}_sd"] / math.sqrt(len(values))
        d["shortest_min"] = min(r["shortest"] for r in rows)
        d["constraints_min"] = min(r["constraints"] for r in rows)
        out[lv] = d
    return out


def calibration_table(ours: dict, official: dict | None = None, tolerance: float = 0.10,
                      allowance: float = 0.0) -> tuple[list[dict], str]:
    """Rows comparing our level statistics (:func:`level_stats`) with the official ones
    (default :data:`OFFICIAL_TEST_LEVELS`), and the table as text.

    Each calibrated mean (:data:`CALIBRATED`) must lie within ``tolerance`` of the official
    mean (the ratio ours / official within ``1 +- tolerance``), widened by ``allowance``
    standard errors of our mean (0: the band alone; a test on a small sample may allow for its
    sampling error).
    """
    official = OFFICIAL_TEST_LEVELS if official is None else official
    rows = []
    for lv in sorted(set(ours) & set(official)):
        for stat in CALIBRATED:
            o, g = official[lv][stat], ours[lv][stat]
            se = ours[lv].get(f"{stat}_se", 0.0)
            dev = abs(g - o) / abs(o)
            rows.append({"level": lv, "stat": stat, "official": o, "generated": g, "se": se, "ratio": g / o,
                         "deviation": dev, "ok": abs(g - o) <= tolerance * abs(o) + allowance * se + 1e-12})
    lines = [f"{'level':>5}  {'statistic':<12}{'official':>10}{'ours':>9}{'s.e.':>7}{'ratio':>8}  within"]
    for r in rows:
        lines.append(f"{r['level']:>5}  {r['stat']:<12}{r['official']:>10.2f}{r['generated']:>9.2f}{r['se']:>7.2f}"
                     f"{r['ratio']:>8.2f}  {'yes' if r['ok'] else 'NO'}")
    return rows, "\n".join(lines)


def calibration_markdown(ours: dict, official: dict | None = None, tolerance: float = 0.10) -> str:
    """The official level table with ours beside it, as Markdown: per level, the puzzles, then
    official / ours (standard error of our mean) for area, shortest solution (mean, standard
    deviation, minimum), rule types and solution count; a mean outside ``tolerance`` is bold."""
    official = OFFICIAL_TEST_LEVELS if official is None else official

    def cell(lv, stat):
        o, g = official[lv][stat], ours[lv][stat]
        text = f"{g:.2f} ({ours[lv][stat + '_se']:.2f})"
        if abs(g - o) > tolerance * abs(o) + 1e-12:
            text = f"**{text}**"
        return f"{o:g} / {text}"

    out = [("| level | puzzles (official / ours) | area, cells | shortest solution, positions | "
           "shortest: sd | shortest: min | rule types | solutions |"), "|---|---|---|---|---|---|---|---|"]
    for lv in sorted(set(ours) & set(official)):
        o, g = official[lv], ours[lv]
        out.append(f"| {lv} | {o['n']} / {g['n']} | {cell(lv, 'area')} | {cell(lv, 'shortest')} | "
                   f"{o['shortest_sd']:g} / {g['shortest_sd']:.1f} | {o['shortest_min']} / {g['shortest_min']} | "
                   f"{cell(lv, 'rule_types')} | {cell(lv, 'solutions')} |")
    return "\n".join(out)
