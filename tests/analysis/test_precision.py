"""Precision of the deterministic extractors on hand-labelled sentences (docs/specs/reasoning_graphs.md §10).

Each fixture line is a sentence and the claims a careful reader finds in it (kind and payload,
0-based). Precision counts every extracted claim that is not in the label as a false positive,
including claims from sentences labelled with no claim at all.
"""
import re
from pathlib import Path

import pytest

from kumo_gym.analysis.extract import extract_claims, finalise, segment
from kumo_gym.analysis.packs import SOLO, TENTS
from kumo_gym.analysis.schema import Bounds

FIXTURES = Path(__file__).parent / "fixtures"


def parse_label(text: str) -> set:
    out = set()
    for item in filter(None, (x.strip() for x in text.split(";"))):
        kind, args = re.fullmatch(r"(\w+)\((.*)\)", item).groups()
        if kind == "TreeCandidate":
            tree, cells = args.split(":")
            tr, tc = map(int, tree.split(","))
            pairs = sorted(tuple(map(int, p.split(","))) for p in cells.split("|"))
            out.add(("TreeCandidate", (("cell_c", tuple(p[1] for p in pairs)), ("cell_r", tuple(p[0] for p in pairs)),
                                       ("tree_c", tc), ("tree_r", tr))))
            continue
        if kind == "UnitPlaces":
            head, cells = args.split(":")
            unit, idx, d = head.split(",")
            pairs = sorted(tuple(map(int, p.split(","))) for p in cells.split("|"))
            out.add(("UnitPlaces", (("cell_c", tuple(p[1] for p in pairs)), ("cell_r", tuple(p[0] for p in pairs)),
                                    ("digit", int(d)), ("index", int(idx)), ("unit", unit))))
            continue
        parts = args.split(",")
        if kind in ("Tree", "Tent", "NotTent"):
            payload = {"r": int(parts[0]), "c": int(parts[1])}
        elif kind in ("Quota", "Remaining"):
            payload = {"axis": parts[0], "index": int(parts[1]), ("tents" if kind == "Quota" else "remaining"): int(parts[2])}
        elif kind in ("Assign", "Given"):
            payload = {"r": int(parts[0]), "c": int(parts[1]), "d": int(parts[2])}
        elif kind in ("CandOUT", "CandIN"):
            payload = {"r": int(parts[0]), "c": int(parts[1]), "d": tuple(sorted(map(int, parts[2].split("|")))),
                       "polarity": kind[4:]}
            kind = "Cand"
        elif kind == "UnitMissing":
            payload = {"unit": parts[0], "index": int(parts[1]), "d": tuple(sorted(map(int, parts[2].split("|"))))}
        elif kind == "UnitHas":
            payload = {"unit": parts[0], "index": int(parts[1]), "digit": int(parts[2])}
        else:
            raise ValueError(item)
        out.add((kind, tuple(sorted(payload.items()))))
    return out


def key_of(claim) -> tuple:
    import json

    kind, payload = claim
    p = json.loads(payload)
    return (kind, tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in p.items())))


def score(path: Path, pack, offset: int, bounds: Bounds):
    tp = fp = fn = 0
    errors = []
    lines = [ln for ln in path.read_text().splitlines() if ln.strip() and not ln.startswith("#")]
    for line in lines:
        sentence, label = (x.strip() for x in line.split("||"))
        expect = parse_label(label)
        sents = segment(sentence)
        assert len(sents) == 1, sentence
        found = {key_of(c["claim"]) for c in finalise(extract_claims(sents, pack, offset), pack, bounds, 1)
                 if c["claim"][0] != "Contradiction"}
        tp += len(found & expect)
        fp += len(found - expect)
        fn += len(expect - found)
        if found - expect:
            errors.append((sentence, sorted(found - expect)))
    return len(lines), tp, fp, fn, errors


@pytest.mark.parametrize("name,pack,offset,bounds", [
    ("tents_sentences.txt", TENTS, 0, Bounds(4, 4)),
    ("solo_sentences.txt", SOLO, 1, Bounds(9, 9, 9, 3, 3)),
])
def test_extractor_precision(name, pack, offset, bounds):
    n, tp, fp, fn, errors = score(FIXTURES / name, pack, offset, bounds)
    assert n >= 100
    precision = tp / (tp + fp)
    recall = tp / (tp + fn)
    assert precision >= 0.95, (precision, errors)
    # recall is lower by design in the deterministic mode; it must still find most plain statements
    assert recall >= 0.6, recall
