"""Analyse a trace file end to end and write graphs, metrics, plots and a markdown report.

:func:`analyse_file` is what ``kumo-gym analyze TRACES.jsonl --out DIR`` runs
(reasoning_graphs.md §8-§10). Output layout::

    DIR/graphs/<n>_<instance_id>.json   one kumo_gym.reasoning_graph/v1 document per episode
    DIR/metrics.jsonl                   one flat row per episode (stats.rows)
    DIR/correlations.json               the §8 pairs, Pearson r and p, per-model fits
    DIR/plots/graph_<n>.png             claim graphs of the first episodes (G, G_sol outlined)
    DIR/plots/<y>_vs_<x>.png            the §8 scatter plots
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

from .extract import PIPELINE_VERSION, analyse_trace
from .stats import PAIRS, accuracy_table, correlations, eta_by_size, rows

log = logging.getLogger(__name__)


def analyse_records(records: list[dict], backend: Any = None, profile: str = "default", force: bool = False,
                    llm_options: dict | None = None) -> tuple[list[dict], list[dict]]:
    """Run the pipeline on every record; returns (documents, errors). One bad record never stops
    the others; its error is reported with its line number."""
    docs, errors = [], []
    for n, rec in enumerate(records, 1):
        if not isinstance(rec, dict) or "instance" not in rec:
            errors.append({"record": n, "error": "not an episode record with an 'instance'"})
            continue
        try:
            doc = analyse_trace(rec, backend, profile=profile, force=force, llm_options=llm_options)
        except Exception as e:  # noqa: BLE001 - report and go on: a trace file may mix families we cannot read
            log.warning("record %d could not be analysed: %s", n, e)
            errors.append({"record": n, "env_id": rec.get("env_id"), "error": f"{type(e).__name__}: {e}"})
            continue
        doc["record"] = n
        doc["trace_id"] = doc.get("trace_id") or f"{n}_{doc.get('instance_id')}"
        docs.append(doc)
    return docs, errors


_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


def safe_name(name: Any, used: set | None = None) -> str:
    """A file name for an untrusted id (a record's ``trace_id``): never a path, never hidden.

    Characters other than letters, digits, ``.``, ``_`` and ``-`` become ``_``, leading dots are
    dropped, the length is capped; a changed or repeated name gets a short hash of the original so
    that two ids never share a file (issue 13 item 6).
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


def write_outputs(docs: list[dict], out: str | Path, errors: list[dict] | None = None, max_graph_plots: int = 12,
                  source: str | None = None, profile: str = "default", plots: bool = True,
                  stability: list[dict] | None = None) -> Path:
    """Write graphs, metrics, correlations, plots and ``report.md`` under ``out``; returns the report path."""
    out = Path(out)
    (out / "graphs").mkdir(parents=True, exist_ok=True)
    used: set = set()
    for d in docs:
        d["file"] = safe_name(d["trace_id"], used)
        with open(inside(out / "graphs", f"{d['file']}.json"), "w", encoding="utf-8") as f:
            json.dump(d, f, indent=1, default=str)
    table = rows(docs)
    with open(out / "metrics.jsonl", "w", encoding="utf-8") as f:
        f.writelines(json.dumps(r, default=str) + "\n" for r in table)
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
                p = draw_graph(d, inside(out / "plots", f"graph_{d['file']}.png"), highlight="sol",
                               title=f"{d.get('env_id')} {d.get('instance_id')}: eta={_fmt(d['metrics'].get('eta'))}")
                figures.append(str(p.relative_to(out)))
            for x, y, _ in PAIRS:
                p = scatter(table, x, y, out / "plots" / f"{y}_vs_{x}.png")
                figures.append(str(p.relative_to(out)))
            p = eta_vs_size(eta_by_size(table), out / "plots" / "eta_vs_size.png")
            figures.append(str(p.relative_to(out)))
        except ImportError as e:  # matplotlib is optional (the "plot" extra)
            log.warning("no plots: %s", e)
    report = out / "report.md"
    report.write_text(render_report(docs, table, corr, figures, errors or [], source, profile, stability),
                      encoding="utf-8")
    return report


def render_report(docs: list[dict], table: list[dict], corr: list[dict], figures: list[str], errors: list[dict],
                  source: str | None, profile: str, stability: list[dict] | None = None) -> str:
    """The markdown report: provenance, outcome tables, structure metrics, correlations, figures."""
    modes = sorted({d.get("provenance", {}).get("mode", "?") for d in docs})
    lines = ["# Reasoning-structure report\n",
             f"- source: `{source or '-'}`",
             f"- episodes analysed: {len(docs)} (skipped: {len(errors)})",
             (f"- pipeline: `{PIPELINE_VERSION}`, extraction mode: {', '.join(modes) or '-'}, "
              f"verification profile: `{profile}`")]
    models = sorted({json.dumps(d.get("provenance", {}).get("models")) for d in docs if d.get("provenance", {}).get("models")})
    if models:
        lines.append(f"- extraction models: {', '.join(models)}")
    hashes = next((d["provenance"].get("prompt_hashes") for d in docs if d.get("provenance", {}).get("prompt_hashes")), None)
    if hashes:
        lines.append(f"- prompt hashes: {json.dumps(hashes)}")
    lines.append("\nOnly solved runs with eta_status `ok` or `above_one` enter any eta statistic.\n")
    lines.append("## Accuracy and tokens by model and difficulty (Table 1)\n")
    lines.append(_table(accuracy_table(table), ["model", "difficulty", "solved", "total", "accuracy", "mean_tokens"]))
    lines.append("\n## Solved / total by puzzle and difficulty (Tables 3-6)\n")
    lines.append(_table(accuracy_table(table, ("model", "puzzle", "difficulty")),
                        ["model", "puzzle", "difficulty", "solved", "total", "mean_tokens"]))
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
    if errors:
        lines.append("\n## Skipped records\n")
        lines.append(_table(errors, ["record", "env_id", "error"]))
    if figures:
        lines.append("\n## Figures\n")
        lines.extend(f"![{f}]({f})" for f in figures)
    return "\n".join(lines) + "\n"


def stability_of_records(records: list[dict], backend: Any, runs: int = 3, profile: str = "default",
                         llm_options: dict | None = None, temperature: float = 0.7) -> list[dict]:
    """Table 2 rows: :func:`stats.stability` of every record (``runs`` extractions with seeds
    0..runs-1 and a sampling temperature), averaged per model."""
    from .stats import stability, stability_table

    def analyse(rec: dict, seed: int) -> dict:
        opts = dict(llm_options or {}, seed=seed, temperature=temperature)
        return analyse_trace(rec, backend, profile=profile, llm_options=opts)

    per_model: dict[str, list[dict]] = {}
    for rec in records:
        if not isinstance(rec, dict) or "instance" not in rec:
            continue
        try:
            per_model.setdefault(str(rec.get("model") or "unknown"), []).append(stability(rec, analyse, runs))
        except Exception as e:  # noqa: BLE001 - a trace the pipeline cannot read is left out of the table
            log.warning("stability of a %s record failed: %s", rec.get("env_id"), e)
    return stability_table(per_model)


def analyse_file(path: str | Path, out: str | Path, backend: Any = None, profile: str = "default", force: bool = False,
                 max_graph_plots: int = 12, limit: int | None = None, llm_options: dict | None = None,
                 plots: bool = True, stability_runs: int = 0) -> dict:
    """Analyse every episode of a trace file and write the outputs; returns a summary dict.

    ``stability_runs`` > 1 (with a model backend) adds the extraction-stability table (§7).
    """
    from ..wrappers.trace import read_traces

    records = read_traces(path)
    if limit is not None:
        records = records[:limit]
    docs, errors = analyse_records(records, backend, profile=profile, force=force, llm_options=llm_options)
    stab = None
    if stability_runs > 1:
        from ..core.errors import ConfigError

        if backend is None:
            raise ConfigError("the stability analysis repeats the model extraction: give a model backend")
        stab = stability_of_records(records, backend, stability_runs, profile, llm_options)
        Path(out).mkdir(parents=True, exist_ok=True)
        (Path(out) / "stability.json").write_text(json.dumps(stab, indent=1))
    report = write_outputs(docs, out, errors, max_graph_plots=max_graph_plots, source=str(path), profile=profile,
                           plots=plots, stability=stab)
    etas = [d["metrics"]["eta"] for d in docs if d["metrics"].get("eta") is not None]
    return {"records": len(records), "analysed": len(docs), "skipped": len(errors), "report": str(report),
            "mean_eta": sum(etas) / len(etas) if etas else None}
