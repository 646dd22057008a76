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

from collections import defaultdict
from itertools import combinations
from statistics import mean

from ..envs.sparc.puzzle import KIND_NAMES, SparcPuzzle
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


# ---- level calibration ----------------------------------------------------------------------------
#: the statistics compared per level; presence rates are shares of puzzles holding the type
SYMBOL_TYPES = ("dot", "gap", "square", "star", "triangle", "poly", "ylop")
LEVEL_STATS = ("area", "shortest", "rule_types", "solutions", "score") + tuple(f"has_{t}" for t in SYMBOL_TYPES)
#: extra per-level means reported beside the compared statistics
EXTRA_STATS = ("symbols", "dots", "gaps", "constraints")


def puzzle_stats(record: dict) -> dict:
    """The calibration statistics of one record (official or generated, with its solutions):
    grid area, positions of the shortest solution, distinct cell-symbol types (the paper's
    "mechanics", App. D), solution count, difficulty score, and which symbol types it holds;
    also the numbers of cell symbols, dots, gaps and all three together (``constraints``)."""
    p = SparcPuzzle.from_record(record)
    lengths = [len(s["path"]) for s in record["solutions"]]
    types = p.rule_types()
    out = {"level": int(record["difficulty_level"]), "area": p.width * p.height, "shortest": min(lengths),
           "rule_types": len({KIND_NAMES[s[0]] for s in p.symbols.values()}), "solutions": len(lengths),
           "score": float(record["difficulty_score"]), "symbols": len(p.symbols), "dots": len(p.dots),
           "gaps": len(p.gaps), "constraints": len(p.symbols) + len(p.dots) + len(p.gaps)}
    out.update({f"has_{t}": float(t in types) for t in SYMBOL_TYPES})
    return out


def level_stats(records) -> dict:
    """``{level: {statistic: mean}}`` over records (see :func:`puzzle_stats`), with ``n``, the
    smallest shortest solution (``min_shortest``) and the fewest constraints
    (``min_constraints``) per level."""
    by_level: dict = defaultdict(list)
    for r in records:
        st = puzzle_stats(r)
        by_level[st["level"]].append(st)
    out = {}
    for lv, rows in sorted(by_level.items()):
        d = {k: mean(r[k] for r in rows) for k in LEVEL_STATS + EXTRA_STATS}
        d["n"] = len(rows)
        d["min_shortest"] = min(r["shortest"] for r in rows)
        d["min_constraints"] = min(r["constraints"] for r in rows)
        out[lv] = d
    return out


def calibration_table(ours: dict, official: dict, tolerance: float = 0.15) -> tuple[list[dict], str]:
    """Rows comparing generated and official level statistics, and the table as text.

    Means (area, shortest solution, rule types, solutions, score) must lie within ``tolerance``
    of the official mean (relative: the ratio ours / official within ``1 +- tolerance``);
    presence rates within ``tolerance`` as an absolute share (a rate of 1/7 measured on 7
    official puzzles has no meaningful relative precision, and a rate of 0 none at all).
    """
    rows = []
    for lv in sorted(set(ours) & set(official)):
        for stat in LEVEL_STATS:
            o, g = official[lv][stat], ours[lv][stat]
            rate = stat.startswith("has_")
            dev = abs(g - o) if rate else (abs(g - o) / abs(o) if o else abs(g))
            rows.append({"level": lv, "stat": stat, "official": o, "generated": g,
                         "ratio": g / o if o else None, "deviation": dev,
                         "kind": "absolute" if rate else "relative", "ok": dev <= tolerance + 1e-12})
    lines = [f"{'level':>5}  {'statistic':<12}{'official':>10}{'ours':>9}{'ratio':>8}{'deviation':>11}  within"]
    for r in rows:
        dev = f"{r['deviation']:.2f} abs" if r["kind"] == "absolute" else f"{100 * r['deviation']:.0f}%"
        ratio = f"{r['ratio']:.2f}" if r["ratio"] is not None else "-"
        lines.append(f"{r['level']:>5}  {r['stat']:<12}{r['official']:>10.2f}{r['generated']:>9.2f}{ratio:>8}"
                     f"{dev:>11}  {'yes' if r['ok'] else 'NO'}")
    return rows, "\n".join(lines)


def calibration_markdown(rows: list[dict], ours: dict, official: dict) -> str:
    """The calibration rows as a Markdown table (one line per level and statistic)."""
    out = ["| level | statistic | official mean | ours | ratio | within ±15 % |", "|---|---|---|---|---|---|"]
    for r in rows:
        ratio = f"{r['ratio']:.2f}" if r["ratio"] is not None else "-"
        ok = "yes" if r["ok"] else "**no**"
        if r["kind"] == "absolute":
            ok += f" ({r['deviation']:.2f} abs)"
        out.append(f"| {r['level']} | {r['stat']} | {r['official']:.2f} | {r['generated']:.2f} | {ratio} | {ok} |")
    out.append("")
    out.append("| level | puzzles (official / ours) | fewest positions of a shortest solution (official / ours) | "
               "fewest constraints (official / ours) |")
    out.append("|---|---|---|---|")
    for lv in sorted(set(ours) & set(official)):
        o, g = official[lv], ours[lv]
        out.append(f"| {lv} | {o['n']} / {g['n']} | {o['min_shortest']} / {g['min_shortest']} | "
                   f"{o['min_constraints']} / {g['min_constraints']} |")
    return "\n".join(out)
