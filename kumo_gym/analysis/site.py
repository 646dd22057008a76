"""``kumo-gym report RUN_DIR``: a static, self-contained HTML site of an evaluation and its reasoning graphs.

``RUN_DIR`` may be an evaluation run directory (``traces*.jsonl``, as ``kumo-gym eval`` and
``kumo-gym demo`` write them), an analysis directory (``graphs/*.json``, as ``kumo-gym analyze``
writes it), a directory holding either one level down (the demo's ``runs/demo-*``), or several
of them. The site (``index.html`` and ``episodes/*.html``):

- per environment and difficulty: the evaluation table (success, pass@k, parse errors,
  truncation, tokens: the same numbers ``kumo-gym eval`` reports), the reasoning-structure table
  (eta, |V|, claim accuracy) and small plots of success, tokens and eta against difficulty;
- the skipped episodes of the analysis with their reasons;
- an episode browser: per episode the rendered puzzle (the task's ``render_rgb`` image where it
  draws, else its text rendering as SVG) and beside it the final state: the answer as submitted
  (or the state interactive play reached) with what the verdict names marked (``Task.answer_picture``,
  ``Task.state_picture``), the prompt, the model's trace with every claim span
  highlighted in its verification colour, the verdict, and the interactive claim graph of
  docs/specs/reasoning_graphs.md §9 (hover a node for its claim and sentence).

Everything is inline (styles, scripts, pictures as SVG or data URIs): the pages open from disk
with no server, and nothing is fetched from the network. Without an analysis directory the
deterministic extraction runs on the traces (``analyse=False`` skips it).
"""
from __future__ import annotations

import base64
import html
import json
import logging
import math
import statistics
import struct
import zlib
from collections import defaultdict
from pathlib import Path
from typing import Any

from .html import GRAPH_CSS, GRAPH_JS, graph_svg, legend
from .report import _progress, analyse_records, inside, safe_name, skip_summary
from .text import cell_mentions, line_mentions

log = logging.getLogger(__name__)

ESC = html.escape

CSS = """
body { font: 14px/1.45 -apple-system, 'Segoe UI', sans-serif; margin: 0; color: #222; background: #fafafa; }
header { background: #263238; color: #fff; padding: 12px 20px; }
header a { color: #b3e5fc; }
main { padding: 12px 20px 40px; max-width: 1400px; }
h1 { font-size: 20px; margin: 0; } h2 { font-size: 17px; margin-top: 28px; } h3 { font-size: 15px; }
table { border-collapse: collapse; margin: 6px 0 14px; background: #fff; font-size: 13px; }
th, td { border: 1px solid #ddd; padding: 3px 7px; text-align: right; white-space: nowrap; }
th { background: #eceff1; position: sticky; top: 0; }
td.t, th.t { text-align: left; }
.plots { display: flex; flex-wrap: wrap; gap: 10px; }
.plot { background: #fff; border: 1px solid #ddd; border-radius: 6px; padding: 4px; }
.muted { color: #777; }
.status-solved { color: #2e7d32; font-weight: 600; } .status-wrong, .status-parse_error, .status-illegal_move,
.status-error { color: #c62828; font-weight: 600; } .status-truncated, .status-incomplete { color: #ef6c00; }
.trace { background: #fff; border: 1px solid #ddd; border-radius: 6px; padding: 8px 12px; max-height: 60vh; overflow: auto; }
.sent { margin: 1px 0; } .sent .ind { white-space: pre; } .sent .n { color: #999; font-size: 11px; margin-right: 6px; }
.sent.has-claims { border-left: 3px solid #90caf9; padding-left: 6px; }
mark { border-radius: 3px; padding: 0 1px; }
mark.hl-correct { background: #c8e6c9; } mark.hl-incorrect { background: #ffcdd2; }
mark.hl-unverifiable { background: #e0e0e0; } mark.hl-tentative { background: #ffe0b2; }
mark.kg-active { outline: 2px solid #1565c0; }
pre { white-space: pre-wrap; word-break: break-word; background: #fff; border: 1px solid #ddd; border-radius: 6px;
      padding: 8px; max-height: 40vh; overflow: auto; font-size: 12px; }
.grid2 { display: grid; grid-template-columns: minmax(280px, 1fr) minmax(380px, 2fr); gap: 16px; align-items: start; }
.pictures { display: flex; flex-wrap: wrap; gap: 16px; align-items: flex-start; margin: 8px 0 12px; }
.pic { margin: 0; flex: 0 1 auto; max-width: 100%; }
.pic figcaption { font-weight: 600; margin-bottom: 4px; }
.pic img, .pic svg { max-width: 100%; height: auto; background: #fff; border: 1px solid #ddd; border-radius: 6px; }
.pic .caption { max-width: 560px; font-size: 13px; color: #444; margin: 4px 0; }
input.filter { padding: 4px 8px; width: 22em; margin: 4px 0; }
"""

FILTER_JS = """
(function () {
  var box = document.getElementById('episode-filter');
  if (!box) { return; }
  box.addEventListener('input', function () {
    var q = box.value.toLowerCase();
    document.querySelectorAll('#episodes tbody tr').forEach(function (tr) {
      tr.style.display = tr.textContent.toLowerCase().indexOf(q) >= 0 ? '' : 'none';
    });
  });
})();
"""


# ---- loading ---------------------------------------------------------------------------------
def discover(paths: list[str | Path]) -> tuple[list[Path], list[Path]]:
    """(evaluation run directories, analysis directories) found at or one level below ``paths``."""
    evals, analyses = [], []
    for p in map(Path, paths):
        if not p.is_dir():
            from ..core.errors import ConfigError

            raise ConfigError(f"{str(p)!r} is not a directory (give an eval run directory or an analysis directory)")
        for d in [p, *sorted(x for x in p.iterdir() if x.is_dir())]:
            if any(d.glob("traces*.jsonl")) and d not in evals:
                evals.append(d)
            if (d / "graphs").is_dir() and d not in analyses:
                analyses.append(d)
    return evals, analyses


def load_records(eval_dirs: list[Path]) -> list[dict]:
    """Every episode of the runs, one per key (as ``kumo-gym eval``'s report counts them)."""
    from ..wrappers.trace import read_traces

    records, seen = [], set()
    for d in eval_dirs:
        for p in sorted(d.glob("traces*.jsonl")):
            for r in read_traces(p):
                k = r.get("key") or id(r)
                if k not in seen:
                    seen.add(k)
                    records.append(r)
    return records


def load_analysis(analysis_dirs: list[Path]) -> tuple[list[dict], list[dict]]:
    """The reasoning-graph documents and skipped-episode rows of analysis directories."""
    docs, skipped = [], []
    for d in analysis_dirs:
        for p in sorted((d / "graphs").glob("*.json")):
            try:
                doc = json.loads(p.read_text(encoding="utf-8"))
            except (OSError, ValueError) as e:
                log.warning("skipping %s: %s", p, e)
                continue
            if isinstance(doc, dict) and isinstance(doc.get("claims"), list):
                docs.append(doc)
        sk = d / "skipped.jsonl"
        if sk.exists():
            skipped += [json.loads(x) for x in sk.read_text(encoding="utf-8").splitlines() if x.strip()]
    return docs, skipped


# ---- small pictures ------------------------------------------------------------------------------
def png_data_uri(rgb: Any) -> str:
    """A data URI of an RGB(A) uint8 image array (a minimal PNG writer: no imaging library needed)."""
    import numpy as np

    a = np.asarray(rgb)
    if a.ndim == 2:
        a = np.stack([a] * 3, axis=-1)
    if a.dtype != np.uint8:
        a = np.clip(a * (255 if a.max() <= 1.0 else 1), 0, 255).astype(np.uint8)
    h, w, ch = a.shape
    color = {3: 2, 4: 6}[ch]
    raw = b"".join(b"\x00" + a[y].tobytes() for y in range(h))

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, color, 0, 0, 0))
           + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def text_svg(text: str, max_lines: int = 60, label: str = "puzzle") -> str:
    """A monospace SVG of a text rendering (the puzzle as the terminal shows it)."""
    lines = text.splitlines()[:max_lines] or [""]
    width = 16 + 8.2 * max(len(x) for x in lines)
    height = 14 + 16 * len(lines)
    body = "".join(f'<text x="7" y="{18 + 16 * i}" xml:space="preserve">{ESC(x)}</text>' for i, x in enumerate(lines))
    # the viewBox lets a long text shrink to the page's width instead of being cut off
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
            f'viewBox="0 0 {width:.0f} {height:.0f}" '
            f'font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="13" role="img" '
            f'aria-label="{ESC(label)}">{body}</svg>')


def svg_lines(title: str, series: dict[str, list[tuple[str, float | None]]], xcats: list[str],
              ylabel: str = "", ymax: float | None = None) -> str:
    """A small line chart over categories (difficulties) as inline SVG, one line per series."""
    w, h, l, r, t, b = 360, 220, 46, 10, 24, 44
    vals = [v for pts in series.values() for _, v in pts if v is not None and math.isfinite(v)]
    top = ymax if ymax is not None else (max(vals) * 1.1 if vals else 1.0) or 1.0
    colours = ["#1565c0", "#c62828", "#2e7d32", "#ef6c00", "#6a1b9a", "#00838f", "#5d4037", "#455a64"]

    def X(i):
        return l + (w - l - r) * (i + 0.5) / max(1, len(xcats))

    def Y(v):
        return t + (h - t - b) * (1 - v / top)

    out = [(f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="10" '
           f'role="img" aria-label="{ESC(title)}"><text x="{w / 2}" y="14" text-anchor="middle" font-size="12">'
           f'{ESC(title)}</text>'),
           (f'<line x1="{l}" y1="{h - b}" x2="{w - r}" y2="{h - b}" stroke="#999"/>'
           f'<line x1="{l}" y1="{t}" x2="{l}" y2="{h - b}" stroke="#999"/>')]
    for k in range(5):
        v = top * k / 4
        out.append(f'<text x="{l - 4}" y="{Y(v) + 3:.1f}" text-anchor="end">{v:.3g}</text>'
                   f'<line x1="{l}" y1="{Y(v):.1f}" x2="{w - r}" y2="{Y(v):.1f}" stroke="#eee"/>')
    for i, c in enumerate(xcats):
        out.append(f'<text x="{X(i):.1f}" y="{h - b + 13}" text-anchor="middle">{ESC(str(c))[:10]}</text>')
    out.append(f'<text x="10" y="{(t + h - b) / 2}" transform="rotate(-90 10 {(t + h - b) / 2})" '
               f'text-anchor="middle">{ESC(ylabel)}</text>')
    for n, (name, pts) in enumerate(series.items()):
        col = colours[n % len(colours)]
        xy = [(X(xcats.index(x)), Y(v)) for x, v in pts if v is not None and math.isfinite(v) and x in xcats]
        if len(xy) > 1:
            out.append(f'<polyline fill="none" stroke="{col}" stroke-width="1.8" points="'
                       + " ".join(f"{a:.1f},{c:.1f}" for a, c in xy) + '"/>')
        out += [f'<circle cx="{a:.1f}" cy="{c:.1f}" r="3" fill="{col}"/>' for a, c in xy]
        out.append(f'<text x="{l + 4 + 115 * (n % 3)}" y="{h - 12 + 11 * (n // 3) - 11 * ((len(series) - 1) // 3)}" '
                   f'fill="{col}">{ESC(name)[:22]}</text>')
    out.append("</svg>")
    return "".join(out)


# ---- tables ------------------------------------------------------------------------------------
def _fmt(v: Any) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:.3f}" if abs(v) < 100 else f"{v:.1f}"
    return str(v)


TEXT_COLS = {"model", "group", "env", "env_id", "mode", "difficulty", "family", "puzzle", "reason", "status",
             "eta_status", "episode"}


def html_table(rows: list[dict], cols: list[str], table_id: str | None = None, links: dict | None = None) -> str:
    if not rows:
        return '<p class="muted">none</p>'
    head = "".join(f'<th class="{"t" if c in TEXT_COLS else ""}">{ESC(c)}</th>' for c in cols)
    body = []
    for r in rows:
        cells = []
        for c in cols:
            text = ESC(_fmt(r.get(c)))
            if links and c in links and links[c](r):
                text = f'<a href="{ESC(links[c](r))}">{text}</a>'
            cells.append(f'<td class="{"t" if c in TEXT_COLS else ""}">{text}</td>')
        body.append(f"<tr>{''.join(cells)}</tr>")
    tid = f' id="{table_id}"' if table_id else ""
    return f"<table{tid}><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _page(title: str, body: str, home: str | None = None) -> str:
    nav = f' <a href="{ESC(home)}">&larr; all results</a>' if home else ""
    return (f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<link rel=\"icon\" href=\"data:,\"><title>{ESC(title)}</title>"
            f"<style>{CSS}{GRAPH_CSS}</style></head><body><header><h1>{ESC(title)}</h1>{nav}</header>"
            f"<main>{body}</main><script>{GRAPH_JS}{FILTER_JS}</script></body></html>")


def _difficulty_order(env_id: str, seen: set) -> list:
    try:
        from ..core.registry import get_task

        order = list(getattr(get_task(env_id), "difficulties", {}) or {})
    except Exception:  # noqa: BLE001 - an unknown env: its difficulties sort by name
        order = []
    return [d for d in order if d in seen] + sorted((d for d in seen if d not in order), key=str)


def _mean(xs: list) -> float | None:
    xs = [x for x in xs if isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)]
    return statistics.fmean(xs) if xs else None


def eta_any(metrics: dict) -> float | None:
    """eta of a graph whether or not its run was solved: ``eta``, else ``eta_unconditional`` (an unsolved
    run analysed with ``--force``, or by the report itself); None where the graph has none (empty graph,
    |V| <= |C*| ...). Never part of the eta statistics, which keep to solved runs."""
    for k in ("eta", "eta_unconditional"):
        v = metrics.get(k)
        if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v):
            return float(v)
    return None


def eta_rows(docs: list[dict]) -> list[dict]:
    """Reasoning structure per (model, env, difficulty): analysed, eta over usable runs, |V|, accuracy."""
    groups: dict = defaultdict(list)
    for d in docs:
        groups[(str(d.get("model") or "unknown"), str(d.get("env_id") or d.get("puzzle")), str(d.get("difficulty")))].append(d)
    out = []
    for (model, env, diff), ds in sorted(groups.items()):
        usable = [d["metrics"]["eta"] for d in ds if d.get("solved") and d["metrics"].get("eta_status") in ("ok", "above_one")
                  and d["metrics"].get("eta") is not None]
        every = [x for d in ds if (x := eta_any(d["metrics"])) is not None]
        out.append({"model": model, "env": env, "difficulty": diff, "analysed": len(ds), "eta_n": len(usable),
                    "eta_mean": _mean(usable), "eta_sd": statistics.stdev(usable) if len(usable) > 1 else None,
                    "eta_all_n": len(every), "eta_all_mean": _mean(every),
                    "H_str_mean": _mean([d["metrics"].get("H_str") for d in ds]),
                    "V_mean": _mean([d["metrics"].get("V") for d in ds]),
                    "claim_accuracy": _mean([d["metrics"].get("claim_accuracy") for d in ds]),
                    "coverage": _mean([d["metrics"].get("coverage") for d in ds])})
    return out


# ---- one episode -------------------------------------------------------------------------------
def _claim_cells(payload: dict, offset: int) -> set:
    cells = set()
    if "r" in payload and "c" in payload:
        cells.add((payload["r"] + offset, payload["c"] + offset))
    if "tree_r" in payload:
        cells.add((payload["tree_r"] + offset, payload["tree_c"] + offset))
    for r, c in zip(payload.get("cell_r") or [], payload.get("cell_c") or []):
        cells.add((r + offset, c + offset))
    for k in ("a", "b"):
        if isinstance(payload.get(k), list) and len(payload[k]) == 2:
            cells.add((payload[k][0] + offset, payload[k][1] + offset))
    for x in payload.get("cells") or []:
        if isinstance(x, list) and len(x) == 2:
            cells.add((x[0] + offset, x[1] + offset))
    return cells


def _claim_lines(payload: dict, offset: int) -> set:
    axis = payload.get("axis") or payload.get("unit")
    if axis in ("ROW", "COL", "BOX") and isinstance(payload.get("index"), int):
        return {(axis, payload["index"] + offset)}
    return set()


def highlighted_sentence(text: str, claims: list[dict], offset: int) -> str:
    """The sentence as HTML, each span naming a claim's cell or line marked in its label's colour."""
    marks: dict = {}
    for start, end, r, c in cell_mentions(text):
        for cl in claims:
            if (r, c) in _claim_cells(cl["payload"], offset):
                marks.setdefault((start, end), []).append(cl)
    for start, end, axis, k in line_mentions(text):
        for cl in claims:
            if (axis, k) in _claim_lines(cl["payload"], offset):
                marks.setdefault((start, end), []).append(cl)
    out, pos = [], 0
    for (start, end), cls in sorted(marks.items()):
        if start < pos:
            continue
        out.append(ESC(text[pos:start]))
        label = cls[0].get("label") or "unverifiable"
        tip = "; ".join(f"{c['id']} {c['kind']} {json.dumps(c['payload'], sort_keys=True)} ({c.get('label')})"
                        for c in cls)
        out.append(f'<mark class="hl-{ESC(label)}" data-claim="{ESC(cls[0]["id"])}" title="{ESC(tip)}">'
                   f"{ESC(text[start:end])}</mark>")
        pos = end
    out.append(ESC(text[pos:]))
    return "".join(out)


def trace_html(doc: dict | None, rec: dict) -> str:
    if doc is None:
        text = rec.get("completion")
        if text is None and rec.get("steps"):
            return "".join(f'<div class="sent"><span class="n">step {i}</span>{ESC(str(s.get("action"))[:2000])}'
                           f'<span class="muted"> &rarr; {ESC(str(s.get("status")))}</span></div>'
                           for i, s in enumerate(rec["steps"], 1))
        return f"<pre>{ESC(str(text or '')[:200_000])}</pre>"
    offset = 1 if doc.get("indexing") == "1-based" else 0
    by_sent: dict = defaultdict(list)
    for c in doc["claims"]:
        by_sent[c["source_sents"][0]].append(c)
    rows = []
    indents = _indents(doc, rec)
    for s in doc["sentences"]:
        cls = by_sent.get(s["index"], [])
        indent = indents.get(s["index"], "")
        lead = f'<span class="ind">{ESC(indent)}</span>' if indent else ""
        rows.append(f'<div class="sent{" has-claims" if cls else ""}" id="S{s["index"]}"><span class="n">S{s["index"]}'
                    f'</span>{lead}{highlighted_sentence(s["text"], cls, offset)}</div>')
    return "".join(rows)


def _indents(doc: dict, rec: dict) -> dict:
    """Sentence index -> the spaces that open its line in the trace (code a model wrote keeps its
    indentation on the page); empty when the record's text no longer segments into the document's
    sentences."""
    from .extract import segment, trace_text

    try:
        text = trace_text(rec)[0]
    except Exception:  # noqa: BLE001 - a malformed record: no indentation, the sentences still show
        return {}
    sents = segment(text)
    if [x.text for x in sents] != [s.get("text") for s in doc.get("sentences", [])]:
        return {}
    out = {}
    for x in sents:
        line_start = text.rfind("\n", 0, x.start) + 1
        lead = text[line_start:x.start]
        if lead and not lead.strip():
            out[x.index] = lead.replace("\t", "    ")[:80]
    return out


def _unsolved_eta(m: dict) -> str:
    """", eta of this graph x.xxx, outside the eta statistics" for an unsolved run whose graph has an eta."""
    if m.get("eta") is None and eta_any(m) is not None:
        return f"; eta of this graph <span class=\"eta-any\">{_fmt(eta_any(m))}</span>, outside the eta statistics"
    return ""


def _image_html(rgb: Any, alt: str) -> str:
    return f'<img alt="{ESC(alt)}" src="{png_data_uri(rgb)}">'


def puzzle_html(rec: dict) -> str:
    """The rendered puzzle: the task's image where it draws one, else its text rendering as SVG."""
    try:
        from ..core.capabilities import ImageRendering
        from ..core.instance import Instance
        from ..core.registry import get_task

        task = get_task(rec["env_id"])
        inst = Instance.from_dict(rec["instance"])
        if isinstance(task, ImageRendering):
            try:
                return _image_html(task.render_rgb(inst), "puzzle")
            except ImportError:  # a picture that needs an imaging library this install lacks
                pass
        return text_svg(task.render(inst))
    except Exception as e:  # noqa: BLE001 - a record of an env this install lacks still gets its page
        return f'<p class="muted">no rendering ({ESC(type(e).__name__)}: {ESC(str(e)[:200])})</p>'


def _replay(task, inst, steps: list) -> tuple[Any, Any]:
    """The state interactive play reached and the move refused last (None when the last move was
    legal), replayed from the recorded actions by the task's own rules: a move that cannot be read
    or is illegal has no effect, as in the environment; play stops where the game ended."""
    from ..core.errors import ParseError

    state, refused = task.initial_state(inst), None
    for step in steps:
        action = step.get("action") if isinstance(step, dict) else None
        if not isinstance(action, str):
            continue
        try:
            move = task.parse_move(action)
        except ParseError:
            refused = None
            continue
        t = task.transition(inst, state, move)
        if t.status == "illegal_move":
            refused = move
            continue
        state, refused = t.state, None
        if t.status != "continue":
            break
    return state, refused


def final_picture(rec: dict):
    """``(AnswerPicture or None, note)``: how the episode ended, drawn by its task.

    Answer mode: the completion's answer region parsed as scoring parses it, and the state it
    leaves (:meth:`Task.answer_picture`). Interactive mode: the recorded moves replayed
    (:func:`_replay`) and the state reached (:meth:`Task.state_picture`). ``note`` says why there
    is no picture (no answer could be read, the answer is a label ...)."""
    from ..core.errors import ParseError
    from ..core.extract import split_thinking
    from ..core.instance import Instance
    from ..core.registry import get_task
    from ..core.task import InteractiveTask

    task = get_task(rec["env_id"])
    inst = Instance.from_dict(rec["instance"])
    verdict = rec.get("verdict") if isinstance(rec.get("verdict"), dict) else {}
    steps = rec.get("steps") if isinstance(rec.get("steps"), list) else []
    interactive = rec.get("mode") == "interactive" or (rec.get("mode") is None and rec.get("completion") is None)
    if interactive and isinstance(task, InteractiveTask):
        state, refused = _replay(task, inst, steps)
        return task.state_picture(inst, state, verdict, refused), ""
    completion = rec.get("completion")
    if not isinstance(completion, str):
        return None, "no completion was recorded"
    try:
        answer = task.parse(split_thinking(completion, rec.get("reasoning")).answer)
    except ParseError as e:
        return None, f"no answer could be read ({e})"
    pic = task.answer_picture(inst, answer, verdict)
    return pic, "" if pic is not None else (f"the answer, {str(answer)[:80]}, is not a state (the puzzle beside "
                                            "shows what it judges)")


def pictures_html(rec: dict) -> str:
    """The puzzle and, beside it, the final state with what the verdict names marked."""
    puzzle = f'<figure class="pic puzzle"><figcaption>Puzzle</figcaption>{puzzle_html(rec)}</figure>'
    try:
        pic, note = final_picture(rec)
    except Exception as e:  # noqa: BLE001 - a record this install cannot replay still gets its page
        pic, note = None, f"it could not be drawn ({type(e).__name__}: {str(e)[:200]})"
    if pic is None:
        final = (f'<figure class="pic final-state" data-marks="[]"><figcaption>Final state</figcaption>'
                 f'<p class="muted">No final state: {ESC(note)}</p></figure>')
        return f'<div class="pictures">{puzzle}{final}</div>'
    marks = [{k: v for k, v in m.items()} for m in pic.marks]
    if pic.image is not None:
        body = _image_html(pic.image, "final state")
        if pic.text:
            body += f"<details><summary>as text</summary><pre>{ESC(pic.text[:20000])}</pre></details>"
    else:
        body = text_svg(pic.text, max_lines=80, label="final state")
    final = (f'<figure class="pic final-state" data-marks="{ESC(json.dumps(marks, default=str))}">'
             f'<figcaption>Final state</figcaption>{body}<p class="caption">{ESC(pic.caption)}</p></figure>')
    return f'<div class="pictures">{puzzle}{final}</div>'


def episode_page(rec: dict, doc: dict | None, skipped_reason: str | None) -> str:
    verdict = rec.get("verdict") if isinstance(rec.get("verdict"), dict) else {}
    status = str(verdict.get("status", "-"))
    facts = [("environment", rec.get("env_id")), ("mode", rec.get("mode")), ("difficulty", rec.get("difficulty")),
             ("model", rec.get("model")), ("instance", rec.get("instance_id")), ("reward", rec.get("reward")),
             ("completion tokens", rec.get("completion_tokens")), ("steps", rec.get("n_steps"))]
    fact_html = "".join(f"<tr><th class=\"t\">{ESC(k)}</th><td class=\"t\">{ESC(_fmt(v))}</td></tr>" for k, v in facts)
    verdict_html = (f'<p>Verdict: <span class="status-{ESC(status)}">{ESC(status)}</span> '
                    f'{ESC(str(verdict.get("message") or ""))}</p>')
    details = verdict.get("details")
    if details:
        verdict_html += f"<details><summary>details</summary><pre>{ESC(json.dumps(details, indent=1, default=str)[:20000])}</pre></details>"
    graph = ""
    if doc is not None:
        m = doc["metrics"]
        graph = (f"<h2>Reasoning graph</h2><p>|V| = {_fmt(m.get('V'))}, |E| = {_fmt(m.get('E'))}, "
                 f"|V_sol| = {_fmt(m.get('V_sol'))}, |V_ver| = {_fmt(m.get('V_ver'))}, depth = {_fmt(m.get('depth'))}, "
                 f"claim accuracy = {_fmt(m.get('claim_accuracy'))}, H_str = {_fmt(m.get('H_str'))}, "
                 f"eta = {_fmt(m.get('eta'))} ({ESC(str(m.get('eta_status')))}){_unsolved_eta(m)}. "
                 f"Hover a node for its claim and "
                 f"sentence.</p>{legend()}<div class=\"kg-graph\">{graph_svg(doc)}</div>")
    elif skipped_reason:
        graph = f'<h2>Reasoning graph</h2><p class="muted">not analysed: {ESC(skipped_reason)}</p>'
    prompt = rec.get("prompt")
    prompt_html = (f"<details><summary>prompt</summary><pre>{ESC(str(prompt)[:100_000])}</pre></details>"
                   if prompt else "")
    body = (f"{pictures_html(rec)}<div class=\"grid2\"><div><table>{fact_html}</table>{verdict_html}{prompt_html}</div>"
            f"<div><h2>Trace</h2><div class=\"trace\">{trace_html(doc, rec)}</div></div></div>{graph}")
    return body


# ---- the site ------------------------------------------------------------------------------------
def build_report(paths: list[str | Path], out: str | Path | None = None, *, analyse: bool = True,
                 max_episodes: int = 2000, progress: bool = False) -> Path:
    """Write the site and return the path of its ``index.html`` (see the module docstring)."""
    from ..core.errors import ConfigError

    paths = [Path(p) for p in paths]
    evals, analyses = discover(paths)
    if not evals and not analyses:
        raise ConfigError(f"no evaluation run (traces*.jsonl) or analysis (graphs/) under {', '.join(map(str, paths))}")
    out = Path(out) if out is not None else paths[0] / "report"
    records = load_records(evals)
    docs, skipped = load_analysis(analyses)
    if analyse and records and not analyses:
        # force: unsolved runs keep their graph's eta as eta_unconditional (shown, never in eta statistics)
        docs, skipped = analyse_records(records, force=True, progress=progress)
    by_key = {d.get("key"): d for d in docs if d.get("key")}
    by_ident = {(d.get("env_id"), d.get("instance_id"), d.get("model")): d for d in docs}
    skip_by_record = {s.get("record"): s.get("reason") for s in skipped}

    def doc_of(i: int, rec: dict) -> dict | None:
        if rec.get("key") in by_key:
            return by_key[rec["key"]]
        return by_ident.get((rec.get("env_id"), rec.get("instance_id"), rec.get("model")))

    (out / "episodes").mkdir(parents=True, exist_ok=True)
    sections = [(f"<p>Sources: {', '.join(ESC(str(p)) for p in evals + analyses)}. "
                f"{len(records)} episodes, {len(docs)} reasoning graphs.</p>")]
    # evaluation tables and plots
    if records:
        from .results import summarize, table_rows

        summary = summarize(records)
        rows, cols = table_rows(summary["by_env"])
        sections.append("<h2>Results by environment and difficulty</h2>" + html_table(rows, cols, "results"))
        rows_f, cols_f = table_rows(summary["by_family"])
        sections.append("<h2>Results by family and difficulty</h2>" + html_table(rows_f, cols_f, "results-family"))
        env_of = {r.get("spec") or r.get("env_id"): r.get("env_id") for r in records}
        sections.append(_plots(summary["by_env"], docs, env_of))
    if docs:
        sections.append("<h2>Reasoning structure by environment and difficulty</h2>"
                        "<p class=\"muted\">eta over solved runs with eta_status ok/above_one; eta_all over every "
                        "run whose graph has an eta, solved or not; H_str over every graph with a claim.</p>"
                        + html_table(eta_rows(docs), ["model", "env", "difficulty", "analysed", "eta_n", "eta_mean",
                                                      "eta_sd", "eta_all_n", "eta_all_mean", "H_str_mean", "V_mean",
                                                      "claim_accuracy", "coverage"], "eta"))
    if skipped:
        sections.append("<h2>Episodes without a reasoning graph</h2>"
                        + html_table(skip_summary(skipped), ["family", "puzzle", "reason", "episodes"], "skipped"))
    # episodes
    episode_rows = []
    used: set = set()
    items = list(enumerate(records, 1)) if records else [(i, _record_of(d)) for i, d in enumerate(docs, 1)]
    for i, rec in _progress(items[:max_episodes], progress, "writing episode pages"):
        doc = doc_of(i, rec) if records else docs[i - 1]
        name = safe_name(rec.get("key") or doc and doc.get("trace_id") or f"episode-{i}", used)
        page = episode_page(rec, doc, skip_by_record.get(i))
        title = f"{rec.get('env_id')} {rec.get('difficulty') or ''} {rec.get('model') or ''} #{i}"
        inside(out / "episodes", f"{name}.html").write_text(_page(title, page, home="../index.html"), encoding="utf-8")
        verdict = rec.get("verdict") if isinstance(rec.get("verdict"), dict) else {}
        episode_rows.append({"episode": f"#{i}", "env": rec.get("env_id"), "mode": rec.get("mode"),
                             "difficulty": rec.get("difficulty"), "model": rec.get("model"),
                             "status": verdict.get("status"), "reward": rec.get("reward"),
                             "tokens": rec.get("completion_tokens"),
                             "claims": len(doc["claims"]) if doc else None,
                             "H_str": (doc or {}).get("metrics", {}).get("H_str"),
                             "eta": (doc or {}).get("metrics", {}).get("eta"),
                             "eta_all": eta_any((doc or {}).get("metrics", {})), "href": f"episodes/{name}.html"})
    more = (f"<p class=\"muted\">showing the first {max_episodes} of {len(items)} episodes</p>"
            if len(items) > max_episodes else "")
    sections.append('<h2>Episodes</h2><input id="episode-filter" class="filter" placeholder="filter episodes (env, '
                    'model, status...)">' + more
                    + html_table(episode_rows, ["episode", "env", "mode", "difficulty", "model", "status", "reward",
                                                "tokens", "claims", "H_str", "eta", "eta_all"], "episodes",
                                   links={"episode": lambda r: r["href"]}))
    index = out / "index.html"
    index.write_text(_page("kumo_gym report", "".join(sections)), encoding="utf-8")
    return index


def _record_of(doc: dict) -> dict:
    """A minimal episode record for an analysis document without its trace file."""
    return {"env_id": doc.get("env_id"), "instance_id": doc.get("instance_id"), "model": doc.get("model"),
            "difficulty": doc.get("difficulty"), "mode": doc.get("mode"), "key": doc.get("key"),
            "verdict": {"status": "solved" if doc.get("solved") else "-"}, "completion_tokens": doc.get("tokens")}


def _plots(by_env: list[dict], docs: list[dict], env_of: dict) -> str:
    """Per environment: success, tokens and eta against difficulty, one line per model and mode."""
    groups: dict = defaultdict(list)
    for r in by_env:
        groups[env_of.get(r["group"]) or r["group"]].append(r)
    eta = defaultdict(list)
    for d in docs:
        if d.get("solved") and d["metrics"].get("eta") is not None and d["metrics"].get("eta_status") in ("ok", "above_one"):
            eta[(str(d.get("env_id")), str(d.get("model") or "unknown"), str(d.get("difficulty")))].append(d["metrics"]["eta"])
    blocks = []
    for env_id, rows in groups.items():
        group = str(env_id).split("/")[-1].split("-v")[0]
        cats = _difficulty_order(env_id, {str(r["difficulty"]) for r in rows})
        lines_s: dict = defaultdict(list)
        lines_t: dict = defaultdict(list)
        lines_e: dict = defaultdict(list)
        for r in rows:
            name = f"{r['model']} [{r['mode']}]" + ("" if r["group"] in (env_id, group) or "(" in r["group"]
                                                    else f" {r['group']}")
            lines_s[name].append((str(r["difficulty"]), r.get("success")))
            lines_t[name].append((str(r["difficulty"]), r.get("tokens")))
        for (env, model, diff), vals in eta.items():
            if env == env_id:
                lines_e[model].append((diff, statistics.fmean(vals)))
        charts = [svg_lines(f"{group}: success", lines_s, cats, "success rate", 1.0),
                  svg_lines(f"{group}: completion tokens", lines_t, cats, "mean tokens")]
        if lines_e:
            charts.append(svg_lines(f"{group}: eta", lines_e, cats, "mean eta"))
        blocks.append('<div class="plots">' + "".join(f'<div class="plot">{c}</div>' for c in charts) + "</div>")
    return "<h2>Plots</h2>" + "".join(blocks) if blocks else ""
