"""FineReason metrics (docs/specs/finereason.md §8).

Plain functions over lists of verdict dicts (``Verdict.to_dict()`` or ``info["verdict"]``) as
the state-checking and state-transition tasks return them; their ``details`` carry ``label``,
``depth``, ``puzzle``, ``predicted`` (SC) and ``category``/``error`` (ST).

* :func:`state_checking_metrics` - accuracy, and precision/recall/F1 with **Unsolvable as the
  positive class**: recall = detected dead ends / all Unsolvable items, precision = correct
  "Unsolvable" answers / all "Unsolvable" answers. A parse failure counts as wrong (an FN on an
  Unsolvable item) and its rate is reported apart.
* :func:`state_transition_metrics` - accuracy, accuracy by label and the distribution of the
  error categories per label.
* :func:`by_depth` / :func:`summary` - the same broken down by depth and by puzzle, with the
  SC/ST mean ("Avg.").
"""
from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable

SOLVABLE, UNSOLVABLE = "Solvable", "Unsolvable"


def _details(v: dict) -> dict:
    return v.get("details") or {}


def _solved(v: dict) -> bool:
    return bool(v.get("solved", v.get("status") == "solved"))


def state_checking_metrics(verdicts: Iterable[dict]) -> dict:
    """Accuracy and P/R/F1 with Unsolvable positive (see the module docstring)."""
    tp = fp = fn = tn = parse_failures = n = correct = 0
    for v in verdicts:
        d = _details(v)
        n += 1
        correct += _solved(v)
        truth_u = d.get("label") == UNSOLVABLE
        pred = d.get("predicted")
        if pred is None:
            parse_failures += 1
        pred_u = pred == "B"
        if truth_u and pred_u:
            tp += 1
        elif truth_u:
            fn += 1
        elif pred_u:
            fp += 1
        else:
            tn += 1
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"n": n, "accuracy": correct / n if n else 0.0, "precision": precision, "recall": recall, "f1": f1,
            "tp": tp, "fp": fp, "fn": fn, "tn": tn, "parse_failure_rate": parse_failures / n if n else 0.0}


def state_transition_metrics(verdicts: Iterable[dict]) -> dict:
    """Accuracy, accuracy by label and the error distribution per label (docs/specs/finereason.md §7 names)."""
    n = correct = 0
    per_label: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    errors: dict[str, Counter] = defaultdict(Counter)
    categories: dict[str, Counter] = defaultdict(Counter)
    for v in verdicts:
        d = _details(v)
        label = d.get("label", "unknown")
        ok = _solved(v)
        n += 1
        correct += ok
        per_label[label][0] += 1
        per_label[label][1] += ok
        errors[label][d.get("error", "parse_error")] += 1
        categories[label][d.get("category", "parsing_error")] += 1
    return {"n": n, "accuracy": correct / n if n else 0.0,
            "accuracy_by_label": {k: c / t for k, (t, c) in per_label.items()},
            "errors_by_label": {k: dict(c) for k, c in errors.items()},
            "categories_by_label": {k: dict(c) for k, c in categories.items()}}


def _group(verdicts: Iterable[dict], key: Callable[[dict], object]) -> dict:
    out: dict = defaultdict(list)
    for v in verdicts:
        out[key(v)].append(v)
    return dict(out)


def by_depth(verdicts: Iterable[dict], metric: Callable[[list[dict]], dict] = state_checking_metrics) -> dict:
    """``metric`` per depth of the current state (Sudoku: the number of moves from the root)."""
    groups = _group(verdicts, lambda v: _details(v).get("depth"))
    return {d: metric(vs) for d, vs in sorted(groups.items(), key=lambda kv: (kv[0] is None, kv[0] or 0))}


def summary(sc_verdicts: Iterable[dict], st_verdicts: Iterable[dict]) -> dict:
    """SC accuracy, ST accuracy and their mean per puzzle and overall (the paper's "Avg.")."""
    sc_by = _group(sc_verdicts, lambda v: _details(v).get("puzzle"))
    st_by = _group(st_verdicts, lambda v: _details(v).get("puzzle"))
    out = {}
    for puzzle in sorted(set(sc_by) | set(st_by), key=str):
        sc = state_checking_metrics(sc_by.get(puzzle, []))["accuracy"]
        st = state_transition_metrics(st_by.get(puzzle, []))["accuracy"]
        out[puzzle] = {"sc": sc, "st": st, "avg": (sc + st) / 2}
    all_sc = [v for vs in sc_by.values() for v in vs]
    all_st = [v for vs in st_by.values() for v in vs]
    sc, st = state_checking_metrics(all_sc)["accuracy"], state_transition_metrics(all_st)["accuracy"]
    out["overall"] = {"sc": sc, "st": st, "avg": (sc + st) / 2}
    return out
