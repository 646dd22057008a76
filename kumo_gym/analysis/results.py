"""Results tables of evaluation traces: success, pass@k, steps against the optimum, by
environment and by family (``kumo-gym eval``'s results.md, the HTML report, the training callback)."""
from __future__ import annotations

from collections import defaultdict

from ..core.registry import entry, get_task
from ..core.tables import format_table


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k for one puzzle with ``n`` samples of which ``c`` are correct:
    ``1 - C(n - c, k) / C(n, k)``, computed as ``1 - prod_{i=n-c+1..n} (1 - k / i)``."""
    if not (0 <= c <= n) or k < 1:
        raise ValueError(f"need 0 <= c <= n and k >= 1 (n={n}, c={c}, k={k})")
    if n < k:
        raise ValueError(f"pass@{k} needs at least {k} samples per puzzle, got {n}")
    if n - c < k:
        return 1.0
    prod = 1.0
    for i in range(n - c + 1, n + 1):
        prod *= 1.0 - k / i
    return 1.0 - prod


#: verdict ``details`` keys that count an episode's steps, most specific first. ``tests_taken``
#: (KUMO) counts tests only: the final diagnosis is an answer, not a step, and the optimum
#: (``optimal_steps``, the oracle's number of tests) does not count it either.
STEP_KEYS_INTERACTIVE = ("steps", "tests_taken", "moves")
STEP_KEYS_ANSWER = ("n_moves", "steps", "tests_taken", "length", "moves")


def episode_steps(rec: dict) -> int | None:
    """Steps of an episode on the scale of its ``optimal_steps``: interactive moves (tests only
    in KUMO), or the length of the answer's move list."""
    details = (rec.get("verdict") or {}).get("details") or {}
    interactive = rec.get("mode") not in (None, "answer")
    for name in STEP_KEYS_INTERACTIVE if interactive else STEP_KEYS_ANSWER:
        v = details.get(name)
        if isinstance(v, bool):
            continue
        if isinstance(v, int):
            return v
        if isinstance(v, list) and not interactive:
            return len(v)
    return rec.get("n_steps") if interactive else None


def family_of(rec: dict) -> str | None:
    """The catalogue family of a trace record's environment (``planning``, ``grid`` ...), not the
    puzzle's own name."""
    try:
        return entry(rec["env_id"]).family
    except Exception:  # noqa: BLE001 - an environment no longer registered: keep what the record says
        return rec.get("family")


def _difficulty_order(env_id: str) -> list[str]:
    try:
        return list(get_task(env_id).difficulties)
    except Exception:  # noqa: BLE001 - unknown or uninstalled environment: no preset order
        return []


def _mean(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


def summarize(records: list[dict]) -> dict:
    """Tables of results by (model, environment, mode, difficulty) and by (model, family, difficulty)."""
    def rows_for(keyf):
        groups: dict[tuple, list[dict]] = defaultdict(list)
        for r in records:
            groups[keyf(r)].append(r)
        rows = []
        for key, recs in groups.items():
            by_inst: dict[tuple, list[bool]] = defaultdict(list)
            for r in recs:
                by_inst[(r.get("instance_id"), r.get("index"))].append((r.get("verdict") or {}).get("status") == "solved")
            k = min(len(v) for v in by_inst.values())
            statuses = [(r.get("verdict") or {}).get("status") for r in recs]
            solved = [r for r, s in zip(recs, statuses) if s == "solved"]
            ratios = []
            for r in solved:
                steps, opt = episode_steps(r), r.get("optimal_steps")
                if steps is not None and opt:
                    ratios.append(steps / opt)
            row = dict(zip(("model", "group", "mode", "difficulty"), key))
            row.update({
                "instances": len(by_inst),
                "episodes": len(recs),
                "success": sum(s == "solved" for s in statuses) / len(recs),
                f"pass@{k}": _mean([pass_at_k(len(v), sum(v), k) for v in by_inst.values()]),
                "parse_error": sum(s == "parse_error" for s in statuses) / len(recs),
                "truncated": sum(s == "truncated" for s in statuses) / len(recs),
                "tokens": _mean([r.get("completion_tokens") for r in recs]),
                "steps": _mean([episode_steps(r) for r in recs]),
                "optimal_steps": _mean([r.get("optimal_steps") for r in recs]),
                "opt_ratio": _mean(ratios),
            })
            rows.append(row)
        return rows

    def order(row):
        diffs = []
        for r in records:
            if r.get("spec") == row["group"] or family_of(r) == row["group"]:
                diffs = _difficulty_order(r.get("env_id"))
                break
        d = row["difficulty"]
        return (row["model"], row["group"], row["mode"], diffs.index(d) if d in diffs else len(diffs), str(d))

    by_env = sorted(rows_for(lambda r: (r.get("model"), r.get("spec") or r.get("env_id"), r.get("mode") or "answer",
                                        r.get("difficulty"))), key=order)
    by_family = sorted(rows_for(lambda r: (r.get("model"), family_of(r), r.get("mode") or "answer",
                                           r.get("difficulty"))), key=order)
    return {"episodes": len(records), "by_env": by_env, "by_family": by_family}


def _fmt(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.3f}" if abs(v) < 10 else f"{v:.1f}"
    return str(v)


TABLE_COLUMNS = ("model", "group", "mode", "difficulty", "instances", "episodes", "success", "pass@k", "parse_error",
                 "truncated", "tokens", "steps", "optimal_steps", "opt_ratio")


def table_rows(rows: list[dict]) -> tuple[list[dict], list[str]]:
    cols = []
    for c in TABLE_COLUMNS:
        if c == "pass@k":
            cols += sorted({k for r in rows for k in r if k.startswith("pass@") and k != "pass@1"})
        else:
            cols.append(c)
    return [{c: _fmt(r.get(c)) for c in cols} for r in rows], cols


def format_results(summary: dict, markdown: bool = False, families: bool = True) -> str:
    out = []
    rows, cols = table_rows(summary["by_env"])
    out.append(("### By environment and difficulty\n\n" if markdown else "") + format_table(rows, cols, markdown))
    if families:
        rows, cols = table_rows(summary["by_family"])
        out.append(("### By family and difficulty\n\n" if markdown else "By family:\n")
                   + format_table(rows, cols, markdown))
    return "\n\n".join(out)
