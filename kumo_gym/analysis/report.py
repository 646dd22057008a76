"""Analyse a trace file end to end and write graphs, metrics, plots and a markdown report.

:func:`analyse_file` is what ``kumo-gym analyze TRACES.jsonl --out DIR`` runs
(docs/specs/reasoning_graphs.md §8-§10). Output layout::

    DIR/graphs/<n>_<instance_id>.json   one kumo_gym.reasoning_graph/v1 document per episode
    DIR/metrics.jsonl                   one flat row per episode (stats.rows)
    DIR/correlations.json               the docs/specs/reasoning_graphs.md §8 pairs, Pearson r and p, per-model fits
    DIR/plots/graph_<n>.png             claim graphs of the first episodes (G, G_sol outlined)
    DIR/plots/<y>_vs_<x>.png            the docs/specs/reasoning_graphs.md §8 scatter plots
    DIR/plots/eta_vs_size.png           Fig. 6
    DIR/report.md                       tables and links
"""
from __future__ import annotations

import hashlib
import json
import logging
import math
import re
from pathlib import Path
from typing import Any

from .extract import PIPELINE_VERSION
from .pipeline import analyse_trace
from .stats import PAIRS, accuracy_table, correlations, eta_by_size, rows

log = logging.getLogger(__name__)


def classify(rec: Any) -> dict:
    """Family (the catalogue's: grid, kumo, sparc, ...), puzzle and env id of a trace record."""
    if not isinstance(rec, dict):
        return {"env_id": None, "family": None, "puzzle": None}
    env_id = rec.get("env_id")
    inst = rec.get("instance") if isinstance(rec.get("instance"), dict) else {}
    family = puzzle = None
    if isinstance(env_id, str):
        try:
            from ..core.registry import entry

            e = entry(env_id)
            family, puzzle = e.family, e.name.lower()
        except Exception:  # noqa: BLE001 - an env this install does not know: read the record's own fields
            log.debug("unknown env id %r", env_id)
    puzzle = puzzle or (str(inst.get("family")) if inst.get("family") else None) or rec.get("family")
    return {"env_id": env_id, "family": family or rec.get("family") or inst.get("family"), "puzzle": puzzle}


def skip_reason(rec: Any) -> str | None:
    """Why a record cannot get a reasoning graph (None when it can): checked before any work."""
    if not isinstance(rec, dict) or not isinstance(rec.get("instance"), dict):
        return "not an episode record with an instance"
    from .packs import pack_for

    c = classify(rec)
    if pack_for(c["env_id"]) is None and pack_for(c["puzzle"]) is None:
        where = ("its pack is still to be written: docs/analysis.md" if c["family"] == "grid"
                 else "reasoning graphs cover the grid puzzles")
        return f"no reasoning-graph pack for {c['family'] or '?'}/{c['puzzle'] or '?'} ({where})"
    from .pipeline import family_mismatch

    mismatch = family_mismatch(c["env_id"], rec["instance"].get("family"))
    if mismatch:
        return mismatch
    if rec.get("completion") is None and not rec.get("reasoning"):
        return "interactive episode without a reasoning text (only moves)"
    return None


def outcome_rows(records: list) -> list[dict]:
    """One row per episode, analysed or not: family, puzzle, model, difficulty, solved, tokens
    (the outcome tables cover every episode of the file)."""
    from .extract import _tokens_of, trace_text

    out = []
    for rec in records:
        if not isinstance(rec, dict):
            continue
        verdict = rec.get("verdict") if isinstance(rec.get("verdict"), dict) else {}
        try:
            text = trace_text(rec)[0]
        except Exception:  # noqa: BLE001 - a malformed record still counts as an episode
            text = ""
        out.append({**classify(rec), "model": str(rec.get("model") or "unknown"),
                     "difficulty": rec.get("difficulty"), "solved": verdict.get("status") == "solved",
                     "tokens": _tokens_of(rec, text)})
    return out


def analyse_records(records: list[dict], backend: Any = None, profile: str = "default", force: bool = False,
                    llm_options: dict | None = None, progress: bool = False) -> tuple[list[dict], list[dict]]:
    """Run the pipeline on every record it can analyse; returns (documents, skipped).

    A record is skipped, with its reason, when it has no instance, its puzzle has no pack (the
    non-grid families), it is an interactive episode without a reasoning text, or the pipeline
    fails on it; one bad record never stops the others. ``progress`` shows a tqdm bar.
    """
    docs, skipped = [], []
    bar = _progress(records, progress, "analysing traces")
    for n, rec in enumerate(bar, 1):
        reason = skip_reason(rec)
        if reason is None:
            try:
                doc = analyse_trace(rec, backend, profile=profile, force=force, llm_options=llm_options)
            except Exception as e:  # noqa: BLE001 - report and go on: one bad record never stops the others
                reason = f"{type(e).__name__}: {e}"
                log.debug("record %d could not be analysed: %s", n, e)
        if reason is not None:
            skipped.append({"record": n, **classify(rec), "reason": reason})
            continue
        doc["record"] = n
        doc.update({k: v for k, v in classify(rec).items() if k == "family"})
        doc["trace_id"] = doc.get("trace_id") or f"{n}_{doc.get('instance_id')}"
        docs.append(doc)
    if skipped:
        log.info("%d of %d records skipped (see the report's 'Skipped episodes' table)", len(skipped), len(records))
    return docs, skipped


def _progress(items, enabled: bool, desc: str):
    if not enabled:
        return items
    from tqdm.auto import tqdm

    return tqdm(items, desc=desc, unit="trace", leave=False)


def _by_reason(skipped: list[dict]) -> dict:
    out: dict = {}
    for s in skipped:
        out[s["reason"]] = out.get(s["reason"], 0) + 1
    return dict(sorted(out.items(), key=lambda kv: -kv[1]))


def skip_summary(skipped: list[dict]) -> list[dict]:
    """Skipped records counted by (family, puzzle, reason)."""
    counts: dict = {}
    for s in skipped:
        key = (str(s.get("family")), str(s.get("puzzle")), s["reason"])
        counts[key] = counts.get(key, 0) + 1
    return [{"family": f, "puzzle": p, "reason": r, "episodes": n} for (f, p, r), n in sorted(counts.items())]


_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


def safe_name(name: Any, used: set | None = None) -> str:
    """A file name for an untrusted id (a record's ``trace_id``): never a path, never hidden.

    Characters other than letters, digits, ``.``, ``_`` and ``-`` become ``_``, leading dots are
    dropped, the length is capped; a changed or repeated name gets a short hash of the original so
    that two ids never share a file (a trace id from a model's run is untrusted text).
    """
    raw = str(name)
    base = _SAFE.sub("_", raw).lstrip(".")[:80] or "trace"
    if base != raw or (used is not None and base in used):
        base = f"{base}-{hashlib.sha256(raw.encode('utf-8', 'surrogatepass')).hexdigest()[:10]}"
    if used is not None:
        stem, k = base, 1
        while base in used:
            k += 1
            base = f"{stem}-{k}"
        used.add(base)
    return base


def inside(root: Path, name: str) -> Path:
    """``root / name``, refusing anything that would resolve outside ``root``."""
    path = (root / name).resolve()
    if root.resolve() not in path.parents:
        raise ValueError(f"refusing to write {name!r} outside {root}")
    return path


def _fmt(x: Any, digits: int = 3) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        if math.isnan(x):
            return "-"
        return f"{x:.{digits}g}" if abs(x) < 1e-3 and x != 0 else f"{x:.{digits}f}"
    return str(x)


def _table(rows_: list[dict], cols: list[str]) -> str:
    if not rows_:
        return "_none_\n"
    head = "| " + " | ".join(cols) + " |\n|" + "---|" * len(cols) + "\n"
    return head + "".join("| " + " | ".join(_fmt(r.get(c)) for c in cols) + " |\n" for r in rows_)


def write_outputs(docs: list[dict], out: str | Path, skipped: list[dict] | None = None, max_graph_plots: int = 12,
                  source: str | None = None, profile: str = "default", plots: bool = True,
                  stability: list[dict] | None = None, outcomes: list[dict] | None = None) -> Path:
    """Write graphs, metrics, correlations, plots and ``report.md`` under ``out``; returns the report path.

    ``outcomes`` (:func:`outcome_rows` of every record, analysed or not) feed the accuracy and
    token tables; ``skipped`` lists the records without a graph and why.
    """
    out = Path(out)
    (out / "graphs").mkdir(parents=True, exist_ok=True)
    used: set = set()
    for d in docs:
        d["file"] = safe_name(d["trace_id"], used)
        with open(inside(out / "graphs", f"{d['file']}.json"), "w", encoding="utf-8") as f:
            json.dump(d, f, indent=1, default=str)
    table = rows(docs)
    outcomes = outcomes if outcomes is not None else [{k: r.get(k) for k in ("env_id", "family", "puzzle", "model",
                                                                            "difficulty", "solved", "tokens")}
                                                      for r in table]
    skipped = skipped or []
    for name, items in (("metrics.jsonl", table), ("outcomes.jsonl", outcomes), ("skipped.jsonl", skipped)):
        with open(out / name, "w", encoding="utf-8") as f:
            f.writelines(json.dumps(r, default=str) + "\n" for r in items)
    try:
        corr = correlations(table)
    except ImportError:  # scipy is optional (the "stats" extra)
        corr = []
    with open(out / "correlations.json", "w", encoding="utf-8") as f:
        json.dump(corr, f, indent=1)
    figures: list[str] = []
    if plots:
        try:
            from .plots import draw_graph, eta_vs_size, scatter

            for d in docs[:max_graph_plots]:
                p = draw_graph(d, inside(out / "plots", f"graph_{d['file']}.png"), highlight="both",
                               title=f"{d.get('env_id')} {d.get('instance_id')}: eta={_fmt(d['metrics'].get('eta'))}")
                figures.append(str(Path(p).resolve().relative_to(out.resolve())))
            for x, y, _ in PAIRS:
                p = scatter(table, x, y, out / "plots" / f"{y}_vs_{x}.png")
                figures.append(str(Path(p).resolve().relative_to(out.resolve())))
            p = eta_vs_size(eta_by_size(table), out / "plots" / "eta_vs_size.png")
            figures.append(str(Path(p).resolve().relative_to(out.resolve())))
        except ImportError as e:  # matplotlib is optional (the "plot" extra)
            log.warning("no plots: %s", e)
    report = out / "report.md"
    report.write_text(render_report(docs, table, corr, figures, skipped, source, profile, stability, outcomes),
                      encoding="utf-8")
    return report


def render_report(docs: list[dict], table: list[dict], corr: list[dict], figures: list[str], skipped: list[dict],
                  source: str | None, profile: str, stability: list[dict] | None = None,
                  outcomes: list[dict] | None = None) -> str:
    """The markdown report: provenance, outcome tables, structure metrics, correlations, figures."""
    outcomes = outcomes if outcomes is not None else table
    modes = sorted({d.get("provenance", {}).get("mode", "?") for d in docs})
    lines = ["# Reasoning-structure report\n",
             f"- source: `{source or '-'}`",
             f"- episodes: {len(outcomes)}; analysed: {len(docs)}; skipped: {len(skipped)}",
             (f"- pipeline: `{PIPELINE_VERSION}`, extraction mode: {', '.join(modes) or '-'}, "
              f"verification profile: `{profile}`")]
    models = sorted({json.dumps(d.get("provenance", {}).get("models")) for d in docs if d.get("provenance", {}).get("models")})
    if models:
        lines.append(f"- extraction models: {', '.join(models)}")
    hashes = next((d["provenance"].get("prompt_hashes") for d in docs if d.get("provenance", {}).get("prompt_hashes")), None)
    if hashes:
        lines.append(f"- prompt hashes: {json.dumps(hashes)}")
    lines.append("\nOnly solved runs with eta_status `ok` or `above_one` enter any eta statistic.\n")
    lines.append("## Episodes by family and puzzle\n")
    by_puzzle = accuracy_table(outcomes, ("family", "puzzle"))
    n_docs: dict = {}
    for d in docs:
        key = (str(d.get("family")), str(d.get("puzzle")))
        n_docs[key] = n_docs.get(key, 0) + 1
    for r in by_puzzle:
        r["analysed"] = n_docs.get((r["family"], r["puzzle"]), 0)
        r["skipped"] = r["total"] - r["analysed"]
    lines.append(_table(by_puzzle, ["family", "puzzle", "total", "solved", "accuracy", "mean_tokens", "analysed",
                                    "skipped"]))
    lines.append("\n## Accuracy and tokens by model and difficulty (Table 1)\n")
    lines.append(_table(accuracy_table(outcomes, ("model", "family", "difficulty")),
                        ["model", "family", "difficulty", "solved", "total", "accuracy", "mean_tokens"]))
    lines.append("\n## Solved / total by puzzle and difficulty (Tables 3-6)\n")
    lines.append(_table(accuracy_table(outcomes, ("model", "family", "puzzle", "difficulty")),
                        ["model", "family", "puzzle", "difficulty", "solved", "total", "mean_tokens"]))
    lines.append("\n## Structure per episode\n")
    lines.append(_table(table, ["trace_id", "model", "puzzle", "solved", "tokens", "V", "V_sol", "V_ver", "depth",
                                "claim_accuracy", "first_error_depth", "H_str", "eta", "eta_status"]))
    lines.append("\n## Correlations (Fig. 4)\n")
    lines.append(_table([{"pair": f"{c['y']} vs {c['x']}", "n": c["n"], "r": c["r"], "p": c["p"], "paper r (p)": c["paper"]}
                         for c in corr], ["pair", "n", "r", "p", "paper r (p)"]))
    sizes = eta_by_size(table)
    lines.append("\n## Mean eta by puzzle size (Fig. 6)\n")
    lines.append(_table(sizes, ["model", "puzzle", "size", "n", "eta_mean"]))
    if stability:
        lines.append("\n## Extraction stability (Table 2)\n")
        lines.append(_table(stability, ["model", "traces", "C_unique", "jaccard_mean", "jaccard_sd", "H_str_mean",
                                        "H_str_sd", "eta_mean", "eta_sd"]))
    dropped = {}
    for d in docs:
        for stage, st in d.get("counters", {}).items():
            for k, v in st.items():
                if k != "examples":
                    dropped[f"{stage}.{k}"] = dropped.get(f"{stage}.{k}", 0) + v
    if dropped:
        lines.append("\n## Extraction counters (items dropped or repaired)\n")
        lines.append(_table([{"counter": k, "count": v} for k, v in sorted(dropped.items())], ["counter", "count"]))
    if skipped:
        lines.append("\n## Skipped episodes\n")
        lines.append("Counted by family, puzzle and reason; `skipped.jsonl` lists every record.\n")
        lines.append(_table(skip_summary(skipped), ["family", "puzzle", "reason", "episodes"]))
    if figures:
        lines.append("\n## Figures\n")
        lines.extend(f"![{f}]({f})" for f in figures)
    return "\n".join(lines) + "\n"


def stability_of_records(records: list[dict], backend: Any, runs: int = 3, profile: str = "default",
                         llm_options: dict | None = None, temperature: float = 0.7, progress: bool = False) -> list[dict]:
    """Table 2 rows: :func:`stats.stability` of every analysable record (``runs`` extractions with
    seeds 0..runs-1 and a sampling temperature, the cache bypassed), averaged per model."""
    from .backends import uncached
    from .stats import stability, stability_table

    def analyse(rec: dict, seed: int) -> dict:
        opts = dict(llm_options or {}, seed=seed, temperature=temperature)
        return analyse_trace(rec, uncached(backend), profile=profile, llm_options=opts)

    per_model: dict[str, list[dict]] = {}
    usable = [rec for rec in records if skip_reason(rec) is None]
    for rec in _progress(usable, progress, f"stability ({runs} runs each)"):
        try:
            per_model.setdefault(str(rec.get("model") or "unknown"), []).append(stability(rec, analyse, runs))
        except Exception as e:  # noqa: BLE001 - a trace the pipeline cannot read is left out of the table
            log.warning("stability of a %s record failed: %s", rec.get("env_id"), e)
    return stability_table(per_model)


def analyse_file(path: str | Path, out: str | Path, backend: Any = None, profile: str = "default", force: bool = False,
                 max_graph_plots: int = 12, limit: int | None = None, llm_options: dict | None = None,
                 plots: bool = True, stability_runs: int = 0, progress: bool = False) -> dict:
    """Analyse every episode of a trace file and write the outputs; returns a summary dict.

    ``stability_runs`` > 1 (with a model backend) adds the extraction-stability table (docs/specs/reasoning_graphs.md
    §7).
    ``progress`` shows tqdm bars.
    """
    from ..wrappers.trace import read_traces

    records = read_traces(path)
    if limit is not None:
        records = records[:limit]
    docs, skipped = analyse_records(records, backend, profile=profile, force=force, llm_options=llm_options,
                                    progress=progress)
    stab = None
    if stability_runs > 1:
        from ..core.errors import ConfigError

        if backend is None:
            raise ConfigError("the stability analysis repeats the model extraction: give a model backend")
        stab = stability_of_records(records, backend, stability_runs, profile, llm_options, progress=progress)
        Path(out).mkdir(parents=True, exist_ok=True)
        (Path(out) / "stability.json").write_text(json.dumps(stab, indent=1))
    report = write_outputs(docs, out, skipped, max_graph_plots=max_graph_plots, source=str(path), profile=profile,
                           plots=plots, stability=stab, outcomes=outcome_rows(records))
    etas = [d["metrics"]["eta"] for d in docs if d["metrics"].get("eta") is not None]
    return {"records": len(records), "analysed": len(docs), "skipped": len(skipped),
            "skipped_by_reason": _by_reason(skipped),
            "report": str(report), "mean_eta": sum(etas) / len(etas) if etas else None}
