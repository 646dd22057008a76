"""The paper's analyses over many analysed traces (docs/specs/reasoning_graphs.md §7, §8).

Input everywhere is a list of analysed traces (the ``kumo_gym.reasoning_graph/v1`` dicts of
:func:`kumo_gym.analysis.pipeline.analyse_trace`) or the flat rows of :func:`rows`. scipy is
imported inside the functions that need it.
"""
from __future__ import annotations

import itertools
import math
import statistics
from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any

#: metric pairs of docs/specs/reasoning_graphs.md §8 (x, y) with the paper's r and p (Fig. 4)
PAIRS = (
    ("tokens", "eta", "-0.05 (0.64)"),
    ("tokens", "ver_overhead", "0.53 (3e-9)"),
    ("sol_fraction", "eta", "0.55 (1.1e-9)"),
    ("V", "eta", "-0.33 (0.001)"),
    ("claim_accuracy", "eta", "0.33 (8.9e-4)"),
    ("first_error_depth", "eta", "0.28 (0.015)"),
    ("restatements_per_unique_claim", "eta", "0.27 (0.0078)"),
    ("sol_fraction", "claim_accuracy", "0.58 (2e-11)"),
    ("stated_fraction", "eta", "negative"),
    ("restated_fraction", "eta", "positive"),
)

_ROW_KEYS = ("V", "E", "V_raw", "V_src", "V_sol", "V_ver", "C_star", "coverage", "sol_fraction", "ver_overhead",
             "depth", "first_error_depth", "claim_accuracy", "H_str", "eta", "eta_status", "n_missing",
             "stated_fraction", "derived_fraction", "restated_fraction", "tentative_fraction",
             "restatements_per_unique_claim", "n_correct", "n_incorrect", "n_unverifiable")


def rows(docs: Iterable[dict]) -> list[dict]:
    """One flat row per analysed trace: identity (model, puzzle, difficulty, size), outcome, metrics."""
    out = []
    for d in docs:
        m = d.get("metrics", {})
        row = {"trace_id": d.get("trace_id"), "model": d.get("model") or "unknown", "family": d.get("family"),
               "puzzle": d.get("puzzle"),
               "env_id": d.get("env_id"), "difficulty": d.get("difficulty"), "size": d.get("size"),
               "solved": d.get("solved"), "tokens": d.get("tokens"), "instance_id": d.get("instance_id")}
        row.update({k: m.get(k) for k in _ROW_KEYS})
        out.append(row)
    return out


def _eta_usable(row: dict) -> bool:
    return bool(row.get("solved")) and row.get("eta_status") in ("ok", "above_one") and row.get("eta") is not None


def _num(x) -> float | None:
    if isinstance(x, bool) or not isinstance(x, (int, float)) or (isinstance(x, float) and math.isnan(x)):
        return None
    return float(x)


def correlate(runs: Iterable[dict], x: str, y: str, group: str = "model") -> dict:
    """Pearson r and two-sided p of ``y`` against ``x`` over ``runs`` (rows), with per-group fits
    (docs/specs/reasoning_graphs.md §8).

    Whenever eta is one of the two, only solved runs with eta_status ``ok`` or ``above_one``
    count. Returns ``{x, y, n, r, p, fits: {group: {slope, intercept, n}}}``; r and p are None
    with fewer than 3 points or a constant variable.
    """
    from scipy import stats as sps

    data = [r for r in runs if "eta" not in (x, y) or _eta_usable(r)]
    pts = [(_num(r.get(x)), _num(r.get(y)), r.get(group)) for r in data]
    pts = [(a, b, g) for a, b, g in pts if a is not None and b is not None]
    out: dict[str, Any] = {"x": x, "y": y, "n": len(pts), "r": None, "p": None, "fits": {}}
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    if len(pts) >= 3 and len(set(xs)) > 1 and len(set(ys)) > 1:
        res = sps.pearsonr(xs, ys)
        out["r"], out["p"] = float(res.statistic), float(res.pvalue)
    by_group: dict = defaultdict(list)
    for a, b, g in pts:
        by_group[g].append((a, b))
    for g, gp in sorted(by_group.items(), key=lambda t: str(t[0])):
        gx = [a for a, _ in gp]
        if len(gp) >= 2 and len(set(gx)) > 1:
            fit = sps.linregress(gx, [b for _, b in gp])
            out["fits"][str(g)] = {"slope": float(fit.slope), "intercept": float(fit.intercept), "n": len(gp)}
    return out


def correlations(runs: list[dict], pairs=PAIRS, group: str = "model") -> list[dict]:
    """:func:`correlate` for every pair of docs/specs/reasoning_graphs.md §8, with the paper's value alongside."""
    out = []
    for x, y, paper in pairs:
        res = correlate(runs, x, y, group)
        res["paper"] = paper
        out.append(res)
    return out


def _mean_sd(values: list[float]) -> tuple[float | None, float | None]:
    values = [v for v in values if v is not None]
    if not values:
        return None, None
    return statistics.fmean(values), (statistics.stdev(values) if len(values) > 1 else None)


def jaccard(a: set, b: set) -> float:
    """|A & B| / |A | B| (1.0 for two empty sets)."""
    union = a | b
    return len(a & b) / len(union) if union else 1.0


def stability(record: dict, analyse: Callable[[dict, int], dict], runs: int = 3) -> dict:
    """Extraction stability of one trace (docs/specs/reasoning_graphs.md §7, paper App. A).

    ``analyse(record, seed)`` runs the full pipeline once (cache off, a different seed each
    time). Reports the mean number of unique content keys, the pairwise claim-set Jaccard (mean
    and sd over the pairs) and H_str and eta (mean and sd over runs); sd uses ddof = 1.
    """
    docs = [analyse(record, seed) for seed in range(runs)]
    sets = [{(c["kind"], _canon(c["payload"])) for c in d["claims"]} for d in docs]
    pair = [jaccard(a, b) for a, b in itertools.combinations(sets, 2)]
    j_mean, j_sd = _mean_sd(pair)
    h_mean, h_sd = _mean_sd([d["metrics"].get("H_str") for d in docs])
    e_mean, e_sd = _mean_sd([d["metrics"].get("eta") for d in docs])
    return {"runs": runs, "C_unique": statistics.fmean(len(s) for s in sets), "jaccard_mean": j_mean,
            "jaccard_sd": j_sd, "H_str_mean": h_mean, "H_str_sd": h_sd, "eta_mean": e_mean, "eta_sd": e_sd}


def _canon(payload: dict) -> str:
    import json

    return json.dumps({k: v for k, v in payload.items() if k != "note"}, sort_keys=True)


def stability_table(results: dict[str, list[dict]]) -> list[dict]:
    """Table 2 layout: per model, the mean over traces of each :func:`stability` column."""
    out = []
    for model, res in sorted(results.items()):
        row = {"model": model, "traces": len(res)}
        for key in ("C_unique", "jaccard_mean", "jaccard_sd", "H_str_mean", "H_str_sd", "eta_mean", "eta_sd"):
            vals = [r[key] for r in res if r.get(key) is not None]
            row[key] = statistics.fmean(vals) if vals else None
        out.append(row)
    return out


def accuracy_table(runs: list[dict], by: tuple[str, ...] = ("model", "difficulty")) -> list[dict]:
    """Accuracy, solved/total and mean completion tokens per group (Table 1; Tables 3-6 with
    ``by=("model", "puzzle", "difficulty")``)."""
    groups: dict = defaultdict(list)
    for r in runs:
        groups[tuple(str(r.get(k)) for k in by)].append(r)
    out = []
    for key, rs in sorted(groups.items()):
        solved = sum(1 for r in rs if r.get("solved"))
        toks = [r["tokens"] for r in rs if isinstance(r.get("tokens"), (int, float))]
        row = dict(zip(by, key))
        row.update({"solved": solved, "total": len(rs), "accuracy": solved / len(rs),
                    "mean_tokens": statistics.fmean(toks) if toks else None})
        out.append(row)
    return out


def eta_by_size(runs: list[dict]) -> list[dict]:
    """Mean eta per model, puzzle and size (Fig. 6), only for (model, puzzle) settings in which
    every size present has at least one solved run with a usable eta."""
    sizes_of: dict = defaultdict(set)
    cells: dict = defaultdict(list)
    for r in runs:
        if r.get("size") is None:
            continue
        sizes_of[(r["model"], r["puzzle"])].add(r["size"])
        if _eta_usable(r):
            cells[(r["model"], r["puzzle"], r["size"])].append(r["eta"])
    out = []
    for (model, puzzle), sizes in sorted(sizes_of.items(), key=lambda t: tuple(map(str, t[0]))):
        if not all(cells.get((model, puzzle, s)) for s in sizes):
            continue
        for s in sorted(sizes, key=_size_key):
            vals = cells[(model, puzzle, s)]
            out.append({"model": model, "puzzle": puzzle, "size": s, "n": len(vals), "eta_mean": statistics.fmean(vals)})
    return out


def _size_key(s) -> tuple:
    try:
        h, w = str(s).split("x")
        return (int(h) * int(w), str(s))
    except ValueError:
        return (0, str(s))
