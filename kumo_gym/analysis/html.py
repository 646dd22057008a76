"""Interactive claim graphs in HTML: inline SVG, the sentence of each claim on hover (docs/specs/reasoning_graphs.md
§9).

:func:`graph_svg` draws the metric graph G (or G_raw) with the colours and outlines of docs/specs/reasoning_graphs.md
§9: fill correct green, incorrect red, unverifiable grey, tentative orange; Missing placeholders dashed;
inference edges solid, restatement edges dashed; G_sol nodes with a bold outline, G_ver nodes
with a blue one. Each node carries its claim, label and sentence; a few lines of inline script
(:data:`GRAPH_JS`) show them in a tooltip when the pointer (or keyboard focus) is on the node.
:func:`to_html` wraps one graph into a self-contained page: nothing is fetched from anywhere.

Everything from the trace (sentences, claim text) is HTML-escaped: a model's output is data.
"""
from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from .graph import merge_static_claims, node_depths, solution_subgraphs, trace_order
from .plots import FILL, VER_BLUE, layered_positions, short_label

GRAPH_CSS = f"""
.kg-graph {{ overflow: auto; border: 1px solid #ddd; border-radius: 6px; background: #fff; max-height: 80vh; }}
.kg-graph svg {{ display: block; }}
.kg-node circle {{ stroke: #222; stroke-width: 1; cursor: pointer; }}
.kg-node.kg-sol circle {{ stroke-width: 3.2; }}
.kg-node.kg-ver circle {{ stroke: {VER_BLUE}; stroke-width: 3.2; }}
.kg-node.kg-missing circle {{ stroke-dasharray: 4 3; }}
.kg-node text {{ font: 10px sans-serif; pointer-events: none; }}
.kg-node:hover circle, .kg-node:focus circle {{ filter: brightness(1.15); stroke-width: 4; }}
.kg-edge {{ stroke: #666; stroke-width: 1.1; fill: none; }}
.kg-edge.kg-restatement {{ stroke-dasharray: 5 4; stroke: #999; }}
.kg-tip {{ position: fixed; display: none; z-index: 10; max-width: 32em; padding: 6px 8px; background: #222;
          color: #fff; border-radius: 4px; font: 12px/1.35 sans-serif; pointer-events: none; white-space: pre-wrap; }}
.kg-legend {{ font: 12px sans-serif; margin: 4px 0 8px; }}
.kg-legend span {{ display: inline-block; margin-right: 12px; }}
.kg-swatch {{ display: inline-block; width: 11px; height: 11px; border-radius: 50%; vertical-align: -1px;
             margin-right: 4px; border: 1px solid #222; }}
"""

GRAPH_JS = """
(function () {
  function tip() {
    var t = document.getElementById('kg-tip');
    if (!t) { t = document.createElement('div'); t.id = 'kg-tip'; t.className = 'kg-tip'; document.body.appendChild(t); }
    return t;
  }
  function show(ev) {
    var g = ev.currentTarget, t = tip();
    t.textContent = g.getAttribute('data-title') + '\\n' + g.getAttribute('data-sentence');
    var r = g.getBoundingClientRect();
    var x = (ev.clientX !== undefined && ev.type === 'mousemove') ? ev.clientX : r.right;
    var y = (ev.clientY !== undefined && ev.type === 'mousemove') ? ev.clientY : r.bottom;
    t.style.left = Math.min(x + 12, window.innerWidth - 300) + 'px';
    t.style.top = (y + 12) + 'px';
    t.style.display = 'block';
    var id = g.getAttribute('data-claim-id');
    document.querySelectorAll('mark[data-claim]').forEach(function (m) {
      m.classList.toggle('kg-active', m.getAttribute('data-claim') === id);
    });
  }
  function hide() { tip().style.display = 'none'; }
  document.querySelectorAll('.kg-node').forEach(function (g) {
    g.addEventListener('mouseenter', show); g.addEventListener('mousemove', show);
    g.addEventListener('focus', show); g.addEventListener('mouseleave', hide); g.addEventListener('blur', hide);
  });
})();
"""


def _graph(doc: dict, which: str):
    from .extract import graph_from_json

    g = graph_from_json(doc)
    if which == "G":
        g, _ = merge_static_claims(g)
    elif which != "G_raw":
        raise ValueError(f"which {which!r} is not one of: G, G_raw")
    return g


def _claim_text(kind: str, payload: dict) -> str:
    body = ", ".join(f"{k}={v}" for k, v in payload.items() if k != "note")
    return f"{kind}({body})"


def graph_svg(doc: dict, which: str = "G", highlight: str | None = "both", scale: float = 56.0) -> str:
    """An inline SVG of the claim graph of an analysed trace (a ``reasoning_graph/v1`` dict)."""
    if highlight not in (None, "sol", "ver", "both"):
        raise ValueError(f"highlight {highlight!r} is not one of: sol, ver, both, None")
    g = _graph(doc, which)
    sentences = {s["index"]: s["text"] for s in doc.get("sentences", [])}
    claims = {c["id"]: c for c in doc.get("claims", [])}
    cstar = [tuple(c) for c in doc.get("solution_claims", [])]
    bold, blue = set(), set()
    if highlight and cstar and len(g):
        subs = solution_subgraphs(g, cstar)
        bold = subs["V_sol"] if highlight in ("sol", "both") else set()
        blue = subs["V_ver"] if highlight in ("ver", "both") else set()
    pos = layered_positions(g) if len(g) else {}
    r = 17.0
    pad = 30.0
    xs = [p[0] for p in pos.values()] or [0.0]
    ys = [-p[1] for p in pos.values()] or [0.0]
    width = (max(xs) - min(xs)) * scale + 2 * pad
    height = (max(ys) - min(ys)) * scale + 2 * pad

    def at(v):
        x, y = pos[v]
        return (x - min(xs)) * scale + pad, (-y - min(ys)) * scale + pad

    parts = [(f'<svg xmlns="http://www.w3.org/2000/svg" class="kg-svg" width="{width:.0f}" height="{height:.0f}" '
             f'viewBox="0 0 {width:.0f} {height:.0f}" role="img" aria-label="claim graph">'),
             ('<defs><marker id="kg-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" '
             'orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#666"/></marker></defs>')]
    for u, v, d in g.edges(data=True):
        (x0, y0), (x1, y1) = at(u), at(v)
        dist = max(((x1 - x0) ** 2 + (y1 - y0) ** 2) ** 0.5, 1e-9)
        ux, uy = (x1 - x0) / dist, (y1 - y0) / dist
        kind = "kg-restatement" if d.get("type") == "restatement" else "kg-inference"
        rule = html.escape(str(d.get("rule") or d.get("type") or ""))
        parts.append(f'<line class="kg-edge {kind}" x1="{x0 + ux * r:.1f}" y1="{y0 + uy * r:.1f}" '
                     f'x2="{x1 - ux * (r + 2):.1f}" y2="{y1 - uy * (r + 2):.1f}" marker-end="url(#kg-arrow)">'
                     f'<title>{rule}</title></line>')
    depth = node_depths(g) if len(g) else {}
    for v in trace_order(g):
        data = g.nodes[v]
        x, y = at(v)
        kind = data.get("kind") or "?"
        c = claims.get(v)
        payload = c["payload"] if c else {}
        label = data.get("label") or "unverifiable"
        sents = data.get("merged_sentences") or [data.get("sentence")]
        sentence = " | ".join(f"S{s}: {sentences.get(s, '')}" for s in dict.fromkeys(sents) if s is not None)
        title = ("missing premise (C_MISSING)" if kind == "Missing"
                 else f"{v} {_claim_text(kind, payload)} - {label}, {data.get('status')}, {data.get('scope')}, "
                      f"depth {depth.get(v, 0)}")
        classes = ["kg-node", f"kg-{label}"]
        classes += ["kg-sol"] if v in bold else []
        classes += ["kg-ver"] if v in blue else []
        classes += ["kg-missing"] if kind == "Missing" else []
        text = "?" if kind == "Missing" else short_label(kind, payload)
        parts.append(
            f'<g class="{" ".join(classes)}" tabindex="0" data-claim-id="{html.escape(str(v))}" '
            f'data-title="{html.escape(title)}" data-sentence="{html.escape(sentence)}" data-label="{label}">'
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r:.0f}" fill="{FILL.get(label, "#ffffff")}"/>'
            f'<text x="{x:.1f}" y="{y + 3:.1f}" text-anchor="middle">{html.escape(text)}</text></g>')
    parts.append("</svg>")
    return "".join(parts)


def legend() -> str:
    """The colour and outline key of the graph pictures (docs/specs/reasoning_graphs.md §9)."""
    items = [(FILL["correct"], "correct"), (FILL["incorrect"], "incorrect"), (FILL["unverifiable"], "unverifiable"),
             (FILL["tentative"], "tentative")]
    spans = [f'<span><i class="kg-swatch" style="background:{c}"></i>{t}</span>' for c, t in items]
    spans += ['<span><i class="kg-swatch" style="border-width:3px"></i>G_sol (bold)</span>',
              f'<span><i class="kg-swatch" style="border:3px solid {VER_BLUE}"></i>G_ver (blue)</span>',
              '<span><i class="kg-swatch" style="border-style:dashed"></i>missing premise</span>',
              '<span>&#8594; inference, &#8674; restatement</span>']
    return f'<div class="kg-legend">{"".join(spans)}</div>'


def to_html(doc: dict, path: str | Path | None = None, which: str = "G", title: str | None = None) -> str:
    """A self-contained HTML page showing one claim graph; each node's sentence appears on hover.

    Returns the page; with ``path`` also writes it there.
    """
    m = doc.get("metrics", {})
    title = title or f"{doc.get('env_id') or doc.get('puzzle')} {doc.get('instance_id') or ''}"
    facts = (f"|V| = {m.get('V')}, |E| = {m.get('E')}, |V_sol| = {m.get('V_sol')}, |V_ver| = {m.get('V_ver')}, "
             f"H_str = {_num(m.get('H_str'))}, eta = {_num(m.get('eta'))} ({m.get('eta_status')})")
    page = (f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            f"<style>body{{font:14px sans-serif;margin:16px}}{GRAPH_CSS}</style></head><body>"
            f"<h1>{html.escape(title)}</h1><p>{html.escape(facts)}</p>{legend()}"
            f'<div class="kg-graph">{graph_svg(doc, which)}</div>'
            f"<script>{GRAPH_JS}</script></body></html>")
    if path is not None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(page, encoding="utf-8")
    return page


def _num(x: Any) -> str:
    return "-" if x is None else f"{x:.3f}" if isinstance(x, float) else str(x)
