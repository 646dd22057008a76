"""Premise linking measured against hand-labelled traces.

``fixtures/links_<puzzle>.txt`` hold model-style traces, one sentence per line, each labelled with
the claims a careful reader finds and, for derived claims, the premises the text names (in the same
or an earlier sentence). The deterministic pipeline (reader, premise-marker linker, stage 8) runs on
each whole trace; we compare:

- claims: (kind, payload, sentence) found vs labelled;
- edges: the inference edges of G_raw as (premise claim, conclusion claim, conclusion sentence) vs
  the labelled premises. A conclusion already stated earlier in the trace is a restatement (one
  derivation per distinct content, docs/specs/reasoning_graphs.md §5 stage 8), so its labelled premises are
  not counted.

Edge precision and recall must be above 0.9 on Tents and Solo (at least 100 sentences
each); the other puzzles (at least 40 sentences each) are held to ``OTHER_FLOOR``.
"""
import json
import re
from pathlib import Path

import pytest

from kumo_gym.analysis import packs
from kumo_gym.analysis.extract import build_graph, extract_claims, finalise, link_rules, segment
from kumo_gym.analysis.schema import Bounds, validate_claim

FIXTURES = Path(__file__).parent / "fixtures"
TARGET = {"tents": 0.9, "solo": 0.9}
OTHER_FLOOR = 0.85
MIN_SENTENCES = {"tents": 100, "solo": 100}


def _field(typ: str, text: str):
    text = text.strip()
    if typ in ("r", "c", "index", "count", "digit", "branch"):
        return int(text)
    if typ == "optcount":
        return None if text in ("-", "") else int(text)
    if typ == "runs":
        return [int(x) for x in text.split()] if text else []
    if typ in ("digits", "values"):
        return [int(x) for x in text.split("|")]
    if typ == "value":
        return int(text) if text.lstrip("-").isdigit() else text
    if typ == "bool":
        return text.lower() in ("true", "on", "yes", "1")
    return text


def parse_claim(pack, item: str):
    """``Tent(1,0)``, ``?Tent(2,2)`` (tentative), ``CandOUT(0,1,2)``, ``TreeCandidate(0,0:1,0|0,1)``,
    ``Edge([1,2],[1,3],true)`` ..."""
    item = item.strip()
    tentative = item.startswith("?")
    kind, args = re.fullmatch(r"\??(\w+)\((.*)\)", item).groups()
    if kind in ("CandOUT", "CandIN"):
        r, c, vals = args.split(",")
        field = "d" if "d" in pack.kinds["Cand"] else "vals"
        payload = {"r": int(r), "c": int(c), field: [int(x) for x in vals.split("|")], "polarity": kind[4:]}
        kind = "Cand"
    elif "[" in args:  # cell fields as JSON lists: Domino([[0,0],[0,1]]), Greater([0,1],[0,2]), Cage([[0,0],[1,0]],x,6)
        parts, depth, cur = [], 0, ""
        for ch in args:
            depth += (ch == "[") - (ch == "]")
            if ch == "," and depth == 0:
                parts, cur = parts + [cur], ""
            else:
                cur += ch
        fields = [f for f in pack.kinds[kind] if f != "note"]
        parts.append(cur)
        assert len(parts) == len(fields), f"{item}: {kind} needs {fields}"
        payload = {f: json.loads(v) if v.strip().startswith("[") else _field(pack.kinds[kind][f], v)
                   for f, v in zip(fields, parts)}
    elif ":" in args:  # TreeCandidate(tr,tc:r,c|r,c), UnitPlaces(unit,index,digit:r,c|r,c) ...
        head, cells = args.split(":")
        pairs = [tuple(map(int, p.split(","))) for p in cells.split("|")]
        fields = [f for f in pack.kinds[kind] if f not in ("cell_r", "cell_c")]
        payload = {f: _field(pack.kinds[kind][f], v) for f, v in zip(fields, head.split(","))}
        payload.update(cell_r=[p[0] for p in pairs], cell_c=[p[1] for p in pairs])
    elif kind == "Contradiction":
        payload = {"branch": int(args)}
    else:
        fields = [f for f in pack.kinds[kind] if f != "note"]
        parts = args.split(",") if args else []
        assert len(parts) == len(fields), f"{item}: {kind} needs {fields}"
        payload = {f: _field(pack.kinds[kind][f], v) for f, v in zip(fields, parts)}
    return validate_claim(pack, kind, payload), tentative


def load(puzzle: str):
    """The traces of one fixture: [(name, bounds, offset, [(sentence, [(claim, tentative, [premises])])])]."""
    pack = packs.get(puzzle)
    traces = []
    for line in (FIXTURES / f"links_{puzzle}.txt").read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        if line.startswith("==="):
            name, size, indexing = (x.strip() for x in line[3:].split("|"))
            dims = [int(x) for x in size.split()]
            traces.append((name, Bounds(dims[0], dims[1], *dims[2:]), int(indexing), []))
            continue
        sentence, label = (x.strip() for x in line.split("||"))
        claims = []
        for item in filter(None, (x.strip() for x in label.split(";"))):
            head, _, prem = item.partition("<-")
            key, tentative = parse_claim(pack, head)
            premises = [parse_claim(pack, p)[0] for p in prem.split("&")] if prem.strip() else []
            claims.append((key, tentative, premises))
        traces[-1][3].append((sentence, claims))
    return pack, traces


def measure(puzzle: str):
    """Counts over every trace of the fixture: sentences, claim tp/fp/fn, edge tp/fp/fn, and misses."""
    pack, traces = load(puzzle)
    n = ctp = cfp = cfn = etp = efp = efn = 0
    misses = []
    for name, bounds, offset, lines in traces:
        text = "\n".join(s for s, _ in lines)
        sents = segment(text)
        assert len(sents) == len(lines), (f"{name}: the fixture's sentences must be one per line",
                                          [s.text for s in sents if s.text not in {x for x, _ in lines}][:3])
        n += len(lines)
        claims = finalise(extract_claims(sents, pack, offset), pack, bounds, len(sents))
        apps = link_rules(claims, pack)
        graph, _ = build_graph(claims, apps, pack)
        found_claims = {(c["claim"], c["source_sents"][0]) for c in claims}
        found_edges = {(graph.nodes[u]["claim"], graph.nodes[v]["claim"], graph.nodes[v]["sentence"])
                       for u, v, d in graph.edges(data=True) if d.get("type") == "inference"}
        want_claims, want_edges, seen = set(), set(), set()
        for i, (_, labelled) in enumerate(lines, 1):
            for key, tentative, premises in labelled:
                want_claims.add((key, i))
                if key not in seen and not tentative:
                    want_edges.update((p, key, i) for p in premises)
                if not tentative:
                    seen.add(key)
        ctp += len(found_claims & want_claims)
        cfp += len(found_claims - want_claims)
        cfn += len(want_claims - found_claims)
        etp += len(found_edges & want_edges)
        efp += len(found_edges - want_edges)
        efn += len(want_edges - found_edges)
        misses += [(name, "claim fp", e) for e in sorted(found_claims - want_claims, key=lambda x: x[1])]
        misses += [(name, "claim fn", e) for e in sorted(want_claims - found_claims, key=lambda x: x[1])]
        misses += [(name, "edge fp", e, lines[e[2] - 1][0]) for e in sorted(found_edges - want_edges)]
        misses += [(name, "edge fn", e, lines[e[2] - 1][0]) for e in sorted(want_edges - found_edges)]
    return {"sentences": n, "claims": (ctp, cfp, cfn), "edges": (etp, efp, efn), "misses": misses}


def pr(tp, fp, fn):
    return tp / (tp + fp) if tp + fp else 0.0, tp / (tp + fn) if tp + fn else 0.0


PUZZLES = sorted(p.stem[len("links_"):] for p in FIXTURES.glob("links_*.txt"))


@pytest.mark.parametrize("puzzle", PUZZLES)
def test_premise_linking_precision_and_recall(puzzle):
    res = measure(puzzle)
    assert res["sentences"] >= MIN_SENTENCES.get(puzzle, 40)
    precision, recall = pr(*res["edges"])
    floor = TARGET.get(puzzle, OTHER_FLOOR)
    assert precision >= floor and recall >= floor, (precision, recall, res["misses"][:15])
    cp, cr = pr(*res["claims"])
    assert cp >= 0.9 and cr >= 0.8, (cp, cr)


def test_every_grid_puzzle_with_a_pack_has_a_fixture():
    """Registry-wide: a grid puzzle that ships an analysis pack ships a hand-labelled linking fixture."""
    missing = [packs.puzzle_name(env_id) for env_id in packs.grid_env_ids()
               if packs.pack_for(packs.puzzle_name(env_id)) is not None and packs.puzzle_name(env_id) not in PUZZLES]
    assert not missing, f"no linking fixture (tests/analysis/fixtures/links_<puzzle>.txt) for {missing}"
