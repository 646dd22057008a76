"""Trace analysis of the planning puzzles (docs/specs/planning.md §7, §8.1; paper §4.3, A.2, A.4).

The data behind "where in the thinking do correct solutions appear" and "effort against
complexity": every candidate move list in a reasoning trace with its position and its
verification, per-sample rows, aggregates per (model, puzzle, N), and the derived curve points
``collapse_N``, ``effort_peak_N`` and ``effort_drop``.

Rows are plain dicts (tidy: one row per sample, one per candidate), written with
:func:`write_jsonl` / :func:`write_csv`. Token positions use an injectable
``token_counter(str) -> int``; see :func:`default_token_counter`.

Example::

    from kumo_gym import get_task
    from kumo_gym.analysis.planning import analyze_sample, aggregate, curve_points

    task = get_task("kumo_gym/Hanoi-v0")
    inst = task.load({"n": 3})
    sample, candidates = analyze_sample(task, inst, completion, model="m")
    table = aggregate([sample], candidates)
    points = curve_points(table)
"""
from __future__ import annotations

import csv
import json
import math
import statistics
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable

from ..core.extract import split_thinking
from ..core.instance import Instance
from ..envs.planning.base import answer_tokens

TokenCounter = Callable[[str], int]


# ---- tokens ---------------------------------------------------------------------------------
def regex_token_count(text: str) -> int:
    """Words and punctuation marks: the last-resort token count (flagged ``approx_tokens``); the
    same count as the ``min_answer_tokens`` of dataset records."""
    return answer_tokens(text)


def default_token_counter() -> tuple[TokenCounter, bool]:
    """``(counter, approx)``: tiktoken's ``cl100k_base`` if installed (the paper's), else the
    regex count with ``approx=True`` (docs/specs/planning.md §7, "Tokens")."""
    try:
        import tiktoken

        enc = tiktoken.get_encoding("cl100k_base")
        return (lambda s: len(enc.encode(s, disallowed_special=()))), False
    except Exception:  # noqa: BLE001 - not installed, or its BPE files cannot be fetched offline
        return regex_token_count, True


def _counter(token_counter: TokenCounter | None) -> tuple[TokenCounter, bool]:
    return (token_counter, False) if token_counter is not None else default_token_counter()


# ---- candidates in a trace ------------------------------------------------------------------
def trace_candidates(task, instance: Instance, completion: str, *, reasoning: str | None = None,
                     token_counter: TokenCounter | None = None, close_marker: str = "</think>") -> dict:
    """Every distinct candidate move list in the thinking, in order, with its verification.

    The docs/specs/planning.md §5 scan runs over the thinking region; a trace without thinking (a non-thinking model)
    is scanned whole and flagged ``trace_source="answer"``. Exact duplicates of a move list
    are dropped (the first occurrence stays). Each candidate has ``offset`` (characters),
    ``token_pos`` (tokens before it), ``rel_pos = token_pos / thinking_tokens`` and the
    verdict fields. Returns ``{"candidates", "thinking_tokens", "trace_source", "approx_tokens"}``.
    """
    from ..envs.planning.moves import MoveArray, extract_moves

    count, approx = _counter(token_counter)
    regions = split_thinking(completion or "", reasoning, close_marker=close_marker)
    source = "thinking"
    text = regions.thinking
    if not text.strip():
        text, source = (completion or ""), "answer"
    ex = extract_moves(text, task.coerce_move, task.is_single_move, int_moves=task.int_moves)
    shift = ex.offset  # extract_moves may cut a huge text to its tail; offsets refer to that tail
    total = count(text)
    seen: set[str] = set()
    rows: list[dict] = []
    pos_chars, pos_tokens = 0, 0
    for c in ex.candidates:
        if not c.ok:
            continue
        key = json.dumps(c.moves.tolist() if isinstance(c.moves, MoveArray) else c.moves)
        if key in seen:
            continue
        seen.add(key)
        offset = c.span.start + shift
        pos_tokens += count(text[pos_chars:offset])  # incremental: each character counted once
        pos_chars = offset
        v = task.verify(instance, c.moves)
        rows.append({
            "offset": offset, "token_pos": pos_tokens, "rel_pos": pos_tokens / total if total else 0.0,
            "source": c.span.source, "n_moves": len(c.moves), "status": v.status, "correct": v.solved,
            "first_failure_move": v.first_error, "failure_reason": v.details.get("reason"),
            "n_legal_prefix": v.details.get("n_legal_prefix"), "is_optimal": bool(v.details.get("is_optimal")),
        })
    return {"candidates": rows, "thinking_tokens": total, "trace_source": source, "approx_tokens": approx}


def analyze_sample(task, instance: Instance, completion: str, *, reasoning: str | None = None,
                   finish_reason: str | None = None, n_output_tokens: int | None = None,
                   max_new_tokens: int | None = None, thinking_tokens: int | None = None,
                   token_counter: TokenCounter | None = None, model: str = "", sample: int = 0,
                   fallback_to_thinking: bool = False) -> tuple[dict, list[dict]]:
    """One sample row and its candidate rows (docs/specs/planning.md §7).

    ``thinking_tokens`` reported by an API takes precedence over the counter.
    """
    count, approx = _counter(token_counter)
    verdict = task.score(instance, completion or "", reasoning=reasoning, finish_reason=finish_reason,
                         n_output_tokens=n_output_tokens, max_new_tokens=max_new_tokens,
                         fallback_to_thinking=fallback_to_thinking)
    tc = trace_candidates(task, instance, completion or "", reasoning=reasoning, token_counter=count)
    regions = split_thinking(completion or "", reasoning)
    think = thinking_tokens if thinking_tokens is not None else tc["thinking_tokens"]
    if tc["trace_source"] == "answer" and thinking_tokens is None:
        think = 0
    d = instance.data
    key = {"model": model, "puzzle": instance.family, "N": d.get("n"), "k": d.get("k"),
           "instance_id": instance.instance_id, "sample": sample}
    row = {**key, "status": verdict.status, "solved": verdict.solved,
           "solvable": bool(d.get("solvable", True)),
           "first_failure_move": verdict.first_error, "failure_reason": verdict.details.get("reason"),
           "n_moves": verdict.details.get("n_moves"), "n_legal_prefix": verdict.details.get("n_legal_prefix"),
           "optimal_length": task.optimal_length(instance), "is_optimal": bool(verdict.details.get("is_optimal")),
           "answer_source": verdict.details.get("answer_source"),
           "truncated": bool(verdict.details.get("truncated")) or verdict.status == "truncated",
           "self_truncation_evidence": bool(verdict.details.get("self_truncation_evidence")),
           "thinking_tokens": think, "answer_tokens": count(regions.answer),
           "n_candidates": len(tc["candidates"]), "trace_source": tc["trace_source"],
           "approx_tokens": approx and thinking_tokens is None}
    cands = [{**key, "candidate": i, "trace_source": tc["trace_source"], **c} for i, c in enumerate(tc["candidates"])]
    return row, cands


def answer_budget(task, instance: Instance, max_new_tokens: int, *, reserve: int = 512,
                  token_counter: TokenCounter | None = None) -> dict:
    """``min_answer_tokens`` (the rendered optimal answer) and ``budget_feasible`` (docs/specs/planning.md §8.1)."""
    if token_counter is None:
        need, approx = task.record_fields(instance)["min_answer_tokens"], True
    else:
        need, approx = token_counter(task.format_answer(task.solve(instance))), False
    return {"min_answer_tokens": need, "budget_feasible": need <= max_new_tokens - reserve, "approx_tokens": approx}


# ---- aggregates -----------------------------------------------------------------------------
def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k estimator 1 - C(n - c, k) / C(n, k) (n samples, c correct)."""
    if k > n:
        raise ValueError(f"k={k} is larger than the number of samples n={n}")
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def _stats(values: list[float]) -> dict:
    if not values:
        return {"mean": None, "median": None, "sd": None}
    return {"mean": statistics.fmean(values), "median": statistics.median(values),
            "sd": statistics.stdev(values) if len(values) > 1 else 0.0}


def aggregate(samples: Iterable[dict], candidates: Iterable[dict] = (), *, ks: tuple[int, ...] = (1, 5, 10),
              n_bins: int = 10) -> list[dict]:
    """One row per (model, puzzle, N): the docs/specs/planning.md §7 aggregates.

    Samples of unsolvable instances are counted apart (``n_unsolvable``) and excluded from
    accuracy and pass@k (docs/specs/planning.md §8.2). Candidate accuracy is given per ``n_bins`` equal-width
    ``rel_pos`` bins (``None`` for an empty bin).
    """
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for s in samples:
        groups[(s["model"], s["puzzle"], s["N"])].append(s)
    cgroups: dict[tuple, list[dict]] = defaultdict(list)
    for c in candidates:
        cgroups[(c["model"], c["puzzle"], c["N"])].append(c)
    out = []
    for key in sorted(groups, key=lambda g: (str(g[0]), str(g[1]), g[2] if g[2] is not None else -1)):
        rows = groups[key]
        scored = [r for r in rows if r.get("solvable", True)]
        n, c = len(scored), sum(r["solved"] for r in scored)
        failed = [r["first_failure_move"] for r in scored if not r["solved"] and r["first_failure_move"] is not None]
        cands = cgroups.get(key, [])
        bins_total, bins_ok = [0] * n_bins, [0] * n_bins
        for cand in cands:
            b = min(n_bins - 1, int(cand["rel_pos"] * n_bins))
            bins_total[b] += 1
            bins_ok[b] += bool(cand["correct"])
        row = {
            "model": key[0], "puzzle": key[1], "N": key[2], "n_samples": len(rows), "n_scored": n,
            "n_unsolvable": len(rows) - n, "n_correct": c, "accuracy": c / n if n else None,
            **{f"pass@{k}": pass_at_k(n, c, k) if n >= k else None for k in ks},
            "optimal_length": rows[0].get("optimal_length"),
            "thinking_tokens": _stats([r["thinking_tokens"] for r in rows]),
            "answer_tokens": _stats([r["answer_tokens"] for r in rows]),
            "first_failure_hist": dict(sorted(Counter(failed).items())),
            "first_failure_mean": statistics.fmean(failed) if failed else None,
            "truncation_rate": sum(r["truncated"] for r in rows) / len(rows),
            "candidate_rel_pos_correct": [x["rel_pos"] for x in cands if x["correct"]],
            "candidate_rel_pos_incorrect": [x["rel_pos"] for x in cands if not x["correct"]],
            "candidate_accuracy_by_bin": [bins_ok[i] / bins_total[i] if bins_total[i] else None
                                          for i in range(n_bins)],
            "candidate_count_by_bin": bins_total,
        }
        out.append(row)
    return out


def curve_points(table: Iterable[dict]) -> list[dict]:
    """Per (model, puzzle): ``collapse_N``, ``effort_peak_N``, ``effort_drop`` (docs/specs/planning.md §7).

    ``collapse_N`` is the smallest evaluated N from which accuracy is 0 for every larger
    evaluated N (None when the largest N still has accuracy above 0). ``effort_peak_N`` is the
    N of the highest mean thinking tokens; ``effort_drop = 1 - tokens(N_max) / tokens(peak)``.
    ``effort_collapse`` is ``effort_peak_N < N_max and effort_drop > 0``. The truncation rate
    at each N is reported next to them, so that an output-limit artefact is visible.
    """
    per: dict[tuple, list[dict]] = defaultdict(list)
    for row in table:
        if row["N"] is not None:
            per[(row["model"], row["puzzle"])].append(row)
    out = []
    for (model, puzzle), rows in sorted(per.items(), key=lambda kv: (str(kv[0][0]), str(kv[0][1]))):
        rows = sorted(rows, key=lambda r: r["N"])
        collapse = None
        for r in reversed(rows):
            if r["accuracy"] is not None and r["accuracy"] == 0:
                collapse = r["N"]
            else:
                break
        effort = [(r["thinking_tokens"]["mean"], r["N"]) for r in rows if r["thinking_tokens"]["mean"] is not None]
        peak_n, drop = None, None
        if effort:
            best = max(v for v, _ in effort)
            peak_n = min(nn for v, nn in effort if v == best)  # the first N reaching the maximum
            last = next(v for v, nn in reversed(effort))
            drop = 1.0 - last / best if best > 0 else 0.0
        n_max = rows[-1]["N"]
        out.append({"model": model, "puzzle": puzzle, "N_max": n_max, "collapse_N": collapse,
                    "effort_peak_N": peak_n, "effort_drop": drop,
                    "effort_collapse": peak_n is not None and peak_n < n_max and (drop or 0) > 0,
                    "truncation_rate_by_N": {r["N"]: r["truncation_rate"] for r in rows},
                    "accuracy_by_N": {r["N"]: r["accuracy"] for r in rows},
                    "accuracy_by_depth": {r["optimal_length"]: r["accuracy"] for r in rows}})
    return out


# ---- output ---------------------------------------------------------------------------------
def write_jsonl(rows: Iterable[dict], path) -> int:
    n = 0
    with open(path, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, default=str) + "\n")
            n += 1
    return n


def write_csv(rows: Iterable[dict], path) -> int:
    """Tidy CSV; nested values (dicts, lists) are written as JSON text."""
    rows = list(rows)
    cols: list[str] = []
    for r in rows:
        cols.extend(k for k in r if k not in cols)
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        for r in rows:
            w.writerow({k: json.dumps(v) if isinstance(v, (dict, list)) else v for k, v in r.items()})
    return len(rows)


# ---- plots (matplotlib imported inside) -----------------------------------------------------
def _axes(ax):
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(5, 3.5))
    return ax


def plot_accuracy(table: Iterable[dict], ax=None, x: str = "N"):
    """Accuracy against N (``x="N"``) or compositional depth (``x="optimal_length"``)."""
    ax = _axes(ax)
    for (model, puzzle), rows in _series(table).items():
        ax.plot([r[x] for r in rows], [r["accuracy"] for r in rows], marker="o", label=f"{model} {puzzle}")
    ax.set_xlabel(x)
    ax.set_ylabel("accuracy")
    ax.legend(fontsize=7)
    return ax


def plot_effort(table: Iterable[dict], ax=None):
    """Mean thinking tokens against N (the "reasoning effort" curve)."""
    ax = _axes(ax)
    for (model, puzzle), rows in _series(table).items():
        ax.plot([r["N"] for r in rows], [r["thinking_tokens"]["mean"] for r in rows], marker="o",
                label=f"{model} {puzzle}")
    ax.set_xlabel("N")
    ax.set_ylabel("mean thinking tokens")
    ax.legend(fontsize=7)
    return ax


def plot_candidate_positions(candidates: Iterable[dict], ax=None, bins: int = 10):
    """Histogram of candidate ``rel_pos``, correct and incorrect apart."""
    ax = _axes(ax)
    cands = list(candidates)
    ax.hist([[c["rel_pos"] for c in cands if c["correct"]], [c["rel_pos"] for c in cands if not c["correct"]]],
            bins=bins, range=(0, 1), label=["correct", "incorrect"], stacked=False)
    ax.set_xlabel("relative position in thinking")
    ax.set_ylabel("candidates")
    ax.legend(fontsize=7)
    return ax


def plot_first_failure(samples: Iterable[dict], ax=None):
    """Mean first-failure move against N for failed samples."""
    ax = _axes(ax)
    per: dict[tuple, dict] = defaultdict(lambda: defaultdict(list))
    for s in samples:
        if not s["solved"] and s["first_failure_move"] is not None:
            per[(s["model"], s["puzzle"])][s["N"]].append(s["first_failure_move"])
    for (model, puzzle), by_n in per.items():
        ns = sorted(by_n)
        ax.plot(ns, [statistics.fmean(by_n[n]) for n in ns], marker="o", label=f"{model} {puzzle}")
    ax.set_xlabel("N")
    ax.set_ylabel("first failure move")
    ax.legend(fontsize=7)
    return ax


def _series(table: Iterable[dict]) -> dict[tuple, list[dict]]:
    per: dict[tuple, list[dict]] = defaultdict(list)
    for r in table:
        per[(r["model"], r["puzzle"])].append(r)
    return {k: sorted(v, key=lambda r: r["N"]) for k, v in per.items()}
