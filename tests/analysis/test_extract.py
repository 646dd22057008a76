"""The deterministic extraction path (docs/specs/reasoning_graphs.md §5 stages 1-4a, 7, 8, 10) on hand-written
traces."""
import itertools
import json

import pytest

from kumo_gym.analysis.extract import (
    approx_tokens,
    chunk,
    extract_claims,
    finalise,
    graph_from_json,
    link_rules,
    segment,
    vote_indexing,
)
from kumo_gym.analysis.graph import reasoning_metrics
from kumo_gym.analysis.packs import SOLO, TENTS
from kumo_gym.analysis.pipeline import analyse_trace
from kumo_gym.analysis.schema import Bounds

from .conftest import SOLO_TRACE


def claims_of(doc):
    return [(c["kind"], c["payload"], c["status"], c["scope"], c["source_sents"][0]) for c in doc["claims"]]


def read_trace(record, indexing: str):
    """The analysis of ``record`` (which must have read its cells as ``indexing``) and its claims."""
    doc = analyse_trace(record)
    assert doc["indexing"] == indexing
    return doc, claims_of(doc)


def inference_edges(doc):
    ids = {c["id"]: (c["kind"], tuple(sorted((k, tuple(v) if isinstance(v, list) else v)
                                              for k, v in c["payload"].items() if k != "note")))
           for c in doc["claims"]}
    return {(ids[e["src"]], ids[e["dst"]], e["rule"]) for e in doc["edges"] if e["type"] == "inference"}


def P(kind, **kw):
    return (kind, tuple(sorted(kw.items())))


# ---- stage 1 ------------------------------------------------------------------------------------
def test_segment_boundaries():
    text = ("Row 2 needs 1.5 more, e.g. The rule says so. Place a tent at (1, 2). Then stop!\n"
            "Next line\n\n- bullet one. 3 cells left")
    got = [s.text for s in segment(text)]
    assert got == ["Row 2 needs 1.5 more, e.g. The rule says so.", "Place a tent at (1, 2).", "Then stop!",
                   "Next line", "- bullet one.", "3 cells left"]
    sents = segment(text)
    assert [s.index for s in sents] == list(range(1, 7))
    assert all(text[s.start:s.end] == s.text for s in sents)
    assert sents[-1].paragraph > sents[0].paragraph
    assert segment("") == [] and segment("\n\n  \n") == []
    # no split inside a coordinate or after it when the text goes on in lower case
    assert len(segment("The tent at (1, 2). then the next one")) == 1


def test_segment_is_linear_on_hostile_text():
    big = ("a. " * 50_000) + "(" * 10_000 + "\n" * 1000
    assert len(segment(big)) >= 1


# ---- stage 2 ------------------------------------------------------------------------------------
def test_indexing_vote():
    assert vote_indexing("The tree at (0, 3) and row 0.", 4, 4)[0] == "0-based"
    assert vote_indexing("Row 4 is full; r4c2 = 1.", 4, 4)[0] == "1-based"
    assert vote_indexing("Row 2 has 1 tent.", 4, 4)[0] is None
    assert vote_indexing("row 0 and row 4", 4, 4)[0] is None  # contradictory evidence: no decision
    # a trace that says how it counts is taken at its word, whatever its coordinates suggest (the
    # border ends of Tracks, (4, 1) in a 0-based 4x4 trace or (2, 0) in a 1-based one, name off-grid cells)
    assert vote_indexing("I number rows and columns from 0. The track leaves at (4, 1).", 4, 4)[0] == "0-based"
    assert vote_indexing("Rows and columns count from 1. It enters at (2, 0).", 4, 4)[0] == "1-based"
    assert vote_indexing("Using 1-indexed coordinates: (0, 2) is off the grid.", 4, 4)[0] == "1-based"
    assert vote_indexing("Zero-based: row 4 is outside.", 4, 4)[0] == "0-based"
    # ... but a count running from 0 or 1 is no declaration, and "one based on" is not "one-based"
    assert vote_indexing("The number of tents from 0 to 3 in row 4.", 4, 4)[0] == "1-based"
    assert vote_indexing("Pick one based on the clue at (0, 1).", 4, 4)[0] == "0-based"
    assert vote_indexing("0-based, no wait, 1-based.", 4, 4)[0] is None  # both declared: no decision


def test_an_off_grid_cell_of_a_border_edge_is_read():
    from kumo_gym.analysis.packs import TRACKS
    got = _premises_by_claim("The track enters from the left at row 2, so the track joins (2, -1) and (2, 0).",
                             TRACKS, 0)
    assert got[-1][:2] == ("Edge", {"a": [2, -1], "b": [2, 0], "on": True}) and got[-1][3] == ["Endpoint"]


# ---- stage 3 ------------------------------------------------------------------------------------
def test_chunks_are_whole_sentences_and_balanced():
    text = " ".join(f"Sentence number {i} says something about row {i % 5}." for i in range(200))
    sents = segment(text)
    chunks = chunk(sents, max_tokens=300, context=2)
    assert chunks[0].first == 1 and chunks[-1].last == len(sents)
    assert all(b.first == a.last + 1 for a, b in itertools.pairwise(chunks))
    assert all(c.tokens <= 300 for c in chunks)
    sizes = [c.tokens for c in chunks]
    assert max(sizes) - min(sizes) <= 2 * max(approx_tokens(s.text) for s in sents)
    assert chunks[1].context_before == [chunks[1].first - 2, chunks[1].first - 1]
    # a custom token counter is used when given
    assert len(chunk(sents, max_tokens=50, count_tokens=lambda s: 10)) == 40
    # one oversize sentence is its own chunk
    long = segment("x" * 10_000 + ". Short one.")
    assert [(c.first, c.last) for c in chunk(long, max_tokens=100)] == [(1, 1), (2, 2)]


# ---- stage 4a + 8 on a Tents trace (the E8 puzzle) ------------------------------------------------
def test_tents_trace_claims_and_edges(tents_record):
    doc, got = read_trace(tents_record, "0-based")
    expect = [
        ("Quota", {"axis": "ROW", "index": 0, "tents": 0}, "stated", "MAIN", 1),
        ("Tree", {"r": 0, "c": 0}, "stated", "MAIN", 2),
        ("Quota", {"axis": "ROW", "index": 0, "tents": 0}, "restated", "MAIN", 2),
        ("Tent", {"r": 1, "c": 0}, "derived", "MAIN", 2),
        ("Tent", {"r": 1, "c": 0}, "restated", "MAIN", 3),
        ("NotTent", {"r": 1, "c": 1}, "derived", "MAIN", 3),
        ("NotTent", {"r": 1, "c": 3}, "derived", "MAIN", 3),
        ("Quota", {"axis": "ROW", "index": 1, "tents": 2}, "stated", "MAIN", 4),
        ("Tree", {"r": 2, "c": 3}, "stated", "MAIN", 4),
        ("Tent", {"r": 1, "c": 3}, "derived", "MAIN", 4),
        ("Tent", {"r": 2, "c": 2}, "tentative", "BRANCH#1", 5),
        ("Tent", {"r": 1, "c": 3}, "restated", "BRANCH#1", 6),
        ("Contradiction", {"branch": 1}, "derived", "BRANCH#1", 6),
        ("NotTent", {"r": 2, "c": 2}, "derived", "MAIN", 6),
        ("Tree", {"r": 3, "c": 2}, "stated", "MAIN", 7),
        ("Tent", {"r": 3, "c": 1}, "derived", "MAIN", 7),
        ("Tent", {"r": 3, "c": 1}, "restated", "MAIN", 8),
        ("Quota", {"axis": "COL", "index": 1, "tents": 1}, "stated", "MAIN", 8),
        ("Remaining", {"axis": "COL", "index": 1, "remaining": 0}, "derived", "MAIN", 8),
        ("Tent", {"r": 1, "c": 0}, "restated", "MAIN", 9),
        ("Tent", {"r": 1, "c": 3}, "restated", "MAIN", 9),
        ("Tent", {"r": 3, "c": 1}, "restated", "MAIN", 9),
    ]
    assert got == expect
    assert inference_edges(doc) == {
        (P("Tree", r=0, c=0), P("Tent", r=1, c=0), "R_ONLY_CAND"),
        (P("Quota", axis="ROW", index=0, tents=0), P("Tent", r=1, c=0), "R_ONLY_CAND"),
        (P("Tent", r=1, c=0), P("NotTent", r=1, c=1), "R_NO_TOUCH"),
        (P("Tent", r=1, c=0), P("NotTent", r=1, c=3), "R_NO_TOUCH"),
        (P("Quota", axis="ROW", index=1, tents=2), P("Tent", r=1, c=3), "R_ONLY_CAND"),
        (P("Tree", r=2, c=3), P("Tent", r=1, c=3), "R_ONLY_CAND"),
        (P("Tent", r=2, c=2), P("Contradiction", branch=1), "R_CONTRADICTION_CAUSE"),
        (P("Tent", r=1, c=3), P("Contradiction", branch=1), "R_CONTRADICTION_CAUSE"),
        (P("Tent", r=2, c=2), P("NotTent", r=2, c=2), "R_TENTATIVE_DISCHARGE"),
        (P("Contradiction", branch=1), P("NotTent", r=2, c=2), "R_TENTATIVE_DISCHARGE"),
        (P("Tree", r=3, c=2), P("Tent", r=3, c=1), "R_ONLY_CAND"),
        # "The tree at (3, 2) therefore gets its tent at (3, 1)": "therefore" points back at S6
        (P("NotTent", r=2, c=2), P("Tent", r=3, c=1), "R_ONLY_CAND"),
        (P("Tent", r=3, c=1), P("Remaining", axis="COL", index=1, remaining=0), "R_COUNT_REMAINING"),
        (P("Quota", axis="COL", index=1, tents=1), P("Remaining", axis="COL", index=1, remaining=0), "R_COUNT_REMAINING"),
    }
    labels = {(c["kind"], json.dumps(c["payload"], sort_keys=True)): c["label"] for c in doc["claims"]}
    assert labels[("NotTent", '{"c": 3, "r": 1}')] == "incorrect"
    assert labels[("Tent", '{"c": 2, "r": 2}')] == "tentative"
    assert labels[("Contradiction", '{"branch": 1}')] == "unverifiable"
    assert labels[("Remaining", '{"axis": "COL", "index": 1, "remaining": 0}')] == "unverifiable"
    m = doc["metrics"]
    assert (m["V_raw"], m["V"], m["C_star"], m["coverage"]) == (22, 15, 3, 1.0)
    assert m["n_incorrect"] == 1 and m["first_error_depth"] == 2
    assert m["eta_status"] == "ok" and 0 <= m["eta"] <= 1
    # the deterministic pipeline wires the spec's E8 graph exactly (docs/specs/reasoning_graphs.md §4;
    # it used to find 7 edges and eta 0.032 on this reasoning)
    assert (m["E"], m["V_src"], m["V_sol"], m["V_ver"], m["depth"]) == (14, 7, 11, 7, 5)
    assert m["H_str"] == pytest.approx(2.515949, abs=1e-6) and m["eta"] == pytest.approx(0.119359, abs=1e-6)
    # the stored graph JSON round-trips to the same metrics
    again = reasoning_metrics(graph_from_json(json.loads(json.dumps(doc))), [
        ("Tent", '{"c":0,"r":1}'), ("Tent", '{"c":3,"r":1}'), ("Tent", '{"c":1,"r":3}')], merge_static=True, solved=True)
    assert again["eta"] == pytest.approx(m["eta"], abs=1e-12) and again["V_sol"] == m["V_sol"]


# ---- Sudoku ---------------------------------------------------------------------------------------
def test_solo_trace_claims_and_edges(solo_record):
    doc, got = read_trace(solo_record, "1-based")
    head = [
        ("UnitHas", {"unit": "ROW", "index": 0, "digit": 3}, "stated", "MAIN", 1),
        ("UnitHas", {"unit": "ROW", "index": 0, "digit": 1}, "stated", "MAIN", 1),
        ("UnitMissing", {"unit": "ROW", "index": 0, "d": [2, 4]}, "stated", "MAIN", 2),
        ("UnitHas", {"unit": "COL", "index": 3, "digit": 2}, "stated", "MAIN", 3),
        ("Cand", {"r": 0, "c": 3, "d": [2], "polarity": "OUT"}, "derived", "MAIN", 3),
        ("Assign", {"r": 0, "c": 3, "d": 4}, "derived", "MAIN", 4),
        # "Then ..." builds on the sentence before it
        ("Assign", {"r": 0, "c": 1, "d": 2}, "derived", "MAIN", 5),
        ("Assign", {"r": 1, "c": 0, "d": 2}, "tentative", "BRANCH#1", 6),
        # "the 2 in r1c2": a premise use, restated inside the branch
        ("Assign", {"r": 0, "c": 1, "d": 2}, "restated", "BRANCH#1", 7),
        ("Contradiction", {"branch": 1}, "derived", "BRANCH#1", 7),
        ("Cand", {"r": 1, "c": 0, "d": [2], "polarity": "OUT"}, "derived", "MAIN", 8),
        ("Cand", {"r": 1, "c": 0, "d": [1, 2], "polarity": "IN"}, "stated", "MAIN", 9),
        ("Assign", {"r": 1, "c": 0, "d": 1}, "derived", "MAIN", 9),
        ("Assign", {"r": 3, "c": 0, "d": 4}, "stated", "MAIN", 10),
    ]
    assert got[:len(head)] == head
    final = got[len(head):]
    assert len(final) == 16 and all(k == "Assign" and s == 11 for k, _, _, _, s in final)
    assert sum(1 for f in final if f[2] == "restated") == 4
    edges = inference_edges(doc)
    assert (P("UnitHas", unit="COL", index=3, digit=2), P("Cand", r=0, c=3, d=(2,), polarity="OUT"),
            "R_ELIM_BY_UNIT_PRESENCE") in edges
    assert (P("Cand", r=0, c=3, d=(2,), polarity="OUT"), P("Assign", r=0, c=3, d=4), "R_ONLY_REMAINING_IN_CELL") in edges
    assert (P("Contradiction", branch=1), P("Cand", r=1, c=0, d=(2,), polarity="OUT"), "R_TENTATIVE_DISCHARGE") in edges
    assert (P("Assign", r=0, c=1, d=2), P("Contradiction", branch=1), "R_CONTRADICTION_CAUSE") in edges
    assert (P("Cand", r=1, c=0, d=(1, 2), polarity="IN"), P("Assign", r=1, c=0, d=1), "R_ONLY_REMAINING_IN_CELL") in edges
    assert (P("Assign", r=0, c=3, d=4), P("Assign", r=0, c=1, d=2), "R_ONLY_REMAINING_IN_CELL") in edges
    m = doc["metrics"]
    assert m["C_star"] == 16 and m["coverage"] == 1.0 and m["claim_accuracy"] == 1.0
    assert m["eta_status"] == "ok"


def test_branch_refutation_labels_stay_tentative(solo_instance):
    # a wrong derived claim inside a refuted branch is part of the refutation (docs/specs/reasoning_graphs.md §2 rule 6)
    text = ("Suppose r2c1 is 2.\nSo r3c1 = 1.\nThat is impossible.\nTherefore r2c1 cannot be 2.")
    rec = {"env_id": "kumo_gym/Solo-v0", "instance": solo_instance.to_dict(), "completion": text,
           "verdict": {"status": "wrong"}}
    doc = analyse_trace(rec)
    by_kind = {(c["kind"], c["payload"].get("r"), c["payload"].get("c")): c for c in doc["claims"]}
    inside = by_kind[("Assign", 2, 0)]
    assert inside["scope"] == "BRANCH#1" and inside["status"] == "derived" and inside["label"] == "tentative"
    assert doc["metrics"]["eta"] is None and doc["metrics"]["eta_status"] == "v_le_cstar"  # 4 nodes, |C*| = 16
    assert doc["solved"] is False


def test_finalise_drops_and_counts_invalid():
    counters = {}
    cands = [
        {"kind": "Tent", "payload": {"r": 1, "c": 1}, "status": "stated", "scope": "MAIN", "source_sents": [1]},
        {"kind": "Tent", "payload": {"r": 9, "c": 1}, "status": "stated", "scope": "MAIN", "source_sents": [1]},
        {"kind": "Tent", "payload": {"r": 1}, "status": "stated", "scope": "MAIN", "source_sents": [1]},
        {"kind": "Tent", "payload": {"r": 1, "c": 1}, "status": "tentative", "scope": "MAIN", "source_sents": [2]},
        {"kind": "Bogus", "payload": {}, "status": "stated", "scope": "MAIN", "source_sents": [2]},
        {"kind": "Tent", "payload": {"r": 1, "c": 1}, "status": "stated", "scope": "MAIN", "source_sents": [1]},
        {"kind": "Tent", "payload": {"r": 0, "c": 0}, "status": "stated", "scope": "MAIN", "source_sents": [7]},
    ]
    kept = finalise(cands, TENTS, Bounds(4, 4), n_sentences=3, counters=counters)
    assert [c["id"] for c in kept] == ["C1"]
    assert counters["finalise"]["invalid"] == 5 and counters["finalise"]["duplicate"] == 1


def test_one_based_coordinates_are_shifted():
    sents = segment("The tree at (1, 1) needs a tent at (2, 1).")
    raw = extract_claims(sents, TENTS, offset=1)
    assert [(c["kind"], c["payload"]) for c in raw] == [("Tree", {"r": 0, "c": 0}), ("Tent", {"r": 1, "c": 0})]


def test_contradiction_closes_branch_and_new_claims_are_main():
    sents = segment("Suppose r1c1 = 5. Then r1c2 = 3. This is a contradiction. r1c1 = 4.")
    raw = extract_claims(sents, SOLO, offset=1)
    scopes = [(c["kind"], c["status"], c["scope"]) for c in raw]
    assert scopes == [("Assign", "tentative", "BRANCH#1"), ("Assign", "stated", "BRANCH#1"),
                      ("Contradiction", "stated", "BRANCH#1"), ("Assign", "stated", "MAIN")]
    claims = finalise(raw, SOLO, Bounds(9, 9, 9), len(sents))
    apps = link_rules(claims, SOLO)
    # confirmation of a different digit is not a discharge of "r1c1 = 5"
    assert apps[3]["rule"] is None


def test_hostile_text_never_raises(tents_record):
    for text in ["", "((((((", "[[" * 5000, "Suppose " * 3000, "\x00\x01 (99, 99) is a tent.", SOLO_TRACE * 20]:
        rec = dict(tents_record, completion=text)
        doc = analyse_trace(rec)
        assert doc["metrics"]["V"] >= 0


def test_towers_pack_reads_values_and_clues():
    """Towers has its own pack (docs/specs/grid_puzzles.md §7): Cell/NotCell labelled by the family, EdgeClue
    clues, C* = every cell, R_FORCED from the sentence before."""
    import gymnasium as gym

    import kumo_gym

    env = gym.make("kumo_gym/Towers-v0", difficulty="trivial")
    env.reset(seed=0)
    inst = env.unwrapped.instance
    sol, st = inst.data["solution"], inst.data["state"]
    wrong = sol[0][1] % 3 + 1
    col = next(c for c, k in enumerate(st["top"]) if k)
    text = (f"Cell (1, 1) is {sol[0][0]}. (1, 2) cannot be {wrong}. So (1, 2) = {sol[0][1]}. "
            f"(2, 1) must be {sol[1][0] % 3 + 1}. The top clue of column {col + 1} is {st['top'][col]}.\n{json.dumps(sol)}")
    verdict = kumo_gym.get_task("kumo_gym/Towers-v0").score(inst, text)
    assert verdict.solved
    rec = {"env_id": "kumo_gym/Towers-v0", "instance": inst.to_dict(), "completion": text,
           "verdict": verdict.to_dict()}
    doc = analyse_trace(rec)
    assert doc["puzzle"] == "towers" and doc["indexing"] == "1-based"
    head = [(c["kind"], c["payload"], c["label"]) for c in doc["claims"][:5]]
    assert head == [("Cell", {"r": 0, "c": 0, "v": sol[0][0]}, "correct"),
                    ("NotCell", {"r": 0, "c": 1, "v": wrong}, "correct"),
                    ("Cell", {"r": 0, "c": 1, "v": sol[0][1]}, "correct"),
                    ("Cell", {"r": 1, "c": 0, "v": sol[1][0] % 3 + 1}, "incorrect"),
                    ("EdgeClue", {"side": "TOP", "index": col, "n": st["top"][col]}, "correct")]
    assert doc["metrics"]["C_star"] == 9 and doc["metrics"]["coverage"] == 1.0
    rules = {e["rule"] for e in doc["edges"] if e["type"] == "inference"}
    assert rules == {"R_FORCED"}


def test_hostile_sentences_stay_linear():
    """Long hostile lines are read only up to MAX_SENTENCE_CHARS and premise lists are capped,
    so extraction work grows linearly with the text (no timing asserted: counts only)."""
    from kumo_gym.analysis.extract import MAX_PREMISES, extract_deterministic

    cells = ", ".join(f"({r}, {c})" for r in range(9) for c in range(9))
    line = f"Since {cells} are tents, so {cells} cannot be tents."
    art = extract_deterministic((line + "\n") * 20, "", TENTS, Bounds(9, 9))
    n_inputs = [len(a["inputs"]) for a in art["apps"]]
    assert max(n_inputs) <= MAX_PREMISES
    assert len(art["sentences"]) == 20


# ---- premise linking on phrasings the fixtures met --------------------------------------------------
def _premises_by_claim(text, pack, offset=0, bounds=None):
    bounds = Bounds(4, 4) if bounds is None else bounds
    sents = segment(text)
    claims = finalise(extract_claims(sents, pack, offset), pack, bounds, len(sents))
    apps = link_rules(claims, pack)
    return [(c["claim"][0], json.loads(c["claim"][1]), c["scope"], sorted(claims[j]["claim"][0] for j in a["inputs"]))
            for c, a in zip(claims, apps)]


def test_suppose_instead_opens_a_branch_and_its_consequences_stay_in_it():
    from kumo_gym.analysis.packs import KEEN
    text = ("Suppose (1, 1) = 3.\nThen (2, 1) = 2.\nSuppose instead (1, 1) = 2.\nThen (2, 1) = 3.")
    got = _premises_by_claim(text, KEEN, 1)
    assert [(k, p["v"], scope) for k, p, scope, _ in got] == [("Cell", 3, "BRANCH#1"), ("Cell", 2, "BRANCH#1"),
                                                              ("Cell", 2, "BRANCH#2"), ("Cell", 3, "BRANCH#2")]
    assert got[3][3] == ["Cell"]  # (2, 1) = 3 follows from the second assumption


def test_a_claimless_reasoning_sentence_breaks_the_premise_chain():
    from kumo_gym.analysis.packs import TOWERS
    base = "The top clue of column 1 is 3.\n{}\nSo (1, 1) cannot be 4."
    # a sentence that only comments passes the clue on; one that reasons on its own does not
    chained = _premises_by_claim(base.format("Let me think."), TOWERS, 1)
    broken = _premises_by_claim(base.format("Seeing 3 means the tallest is not first, so hmm."), TOWERS, 1)
    assert chained[-1][3] == ["EdgeClue"] and broken[-1][3] == []


def test_a_marker_inside_a_claims_words_does_not_split_its_clause():
    from kumo_gym.analysis.packs import UNDEAD
    text = "(2, 1) is a zombie.\n(1, 0) is then a zombie, because the total of zombies is 3."
    got = _premises_by_claim(text, UNDEAD, 0, Bounds(3, 3))
    monster = next(x for x in got if x[0] == "Monster" and x[1]["r"] == 1)
    assert "Total" in monster[3]


def test_an_and_inside_a_claims_words_does_not_end_a_premise_list():
    """"Since P1, P2, P3 and P4, C" where P1 itself says "X and Y": every P supports C."""
    from kumo_gym.analysis.packs import TRACKS, UNEQUAL
    text = ("Since no track between (1, 2) and (1, 3), the track joins (0, 0) and (0, 1), (3, 2) is on the track and "
            "(2, 2) is off the track, (3, 3) is on the track.")
    got = _premises_by_claim(text, TRACKS, 0)
    assert got[-1][:2] == ("OnPath", {"r": 3, "c": 3})
    assert got[-1][3] == ["Edge", "Edge", "OffPath", "OnPath"]
    assert all(x[3] == [] for x in got[:-1])
    # a reading whose words run on into the next claim ("is not 3 and 4 cannot go in") keeps the list's "and"
    got = _premises_by_claim("Because (1, 3) has to be 1, (1, 1) is not 3 and 4 cannot go in (1, 1), (1, 1) has to be 2.",
                             UNEQUAL, 0)
    assert got[-1][:2] == ("Cell", {"r": 1, "c": 1, "v": 2}) and set(got[-1][3]) == {"Cell", "NotCell"}
    assert len(got) == 4  # (the two NotCell claims are read twice: once per phrasing, kept once)


def test_parallel_conclusions_pair_up_with_the_previous_sentences_claims_by_place():
    """"So A belongs to dot 5, B to dot 6 and C to dot 7" after three dots: each conclusion builds on
    the dot about its own cell, not on all three (Galaxies' dots are about the cells they touch)."""
    from kumo_gym.analysis.packs import GALAXIES, PEARL
    text = ("The dots at [8, 4], [8, 6] and [8, 8] are the centres of (4, 2), (4, 3) and (4, 4).\n"
            "So (4, 2) belongs to dot 5, (4, 3) belongs to dot 6 and (4, 4) belongs to dot 7.")
    sents = segment(text)
    claims = finalise(extract_claims(sents, GALAXIES, 0), GALAXIES, Bounds(5, 5), len(sents))
    apps = link_rules(claims, GALAXIES)
    got = {json.loads(c["claim"][1])["c"]: [json.loads(claims[j]["claim"][1])["c2"] for j in a["inputs"]]
           for c, a in zip(claims, apps) if c["claim"][0] == "InRegion"}
    assert got == {2: [4], 3: [6], 4: [8]}
    text = ("So the loop joins (0, 0) and (0, 1), and the loop joins (0, 0) and (1, 0).\n"
            "Therefore the loop continues from (0, 1) to (0, 2), and from (1, 0) to (2, 0).")
    got = _premises_by_claim(text, PEARL, 0)
    assert [len(x[3]) for x in got] == [0, 0, 1, 1]


def test_premises_not_split_by_place_link_every_conclusion():
    """No clean pairing (a premise about no conclusion's place, or every premise about every
    conclusion): each conclusion keeps every claim of the previous sentence."""
    from kumo_gym.analysis.extract import respective
    from kumo_gym.analysis.packs import TENTS
    # the tent at (1, 2) is about neither (2, 0) nor (2, 3), yet the text builds on it
    text = "Row 2 is full and there is a tent at (1, 2).\nSo (2, 0) and (2, 3) are empty."
    got = _premises_by_claim(text, TENTS, 0)
    assert [x[3] for x in got if x[0] == "NotTent"] == [["Remaining", "Tent"]] * 2
    # ... while a clean split by place pairs them: each cell with its own line
    sents = segment("Row 2 is full and column 3 is full.\nSo (2, 0) and (0, 3) are empty.")
    claims = finalise(extract_claims(sents, TENTS, 0), TENTS, Bounds(4, 4), len(sents))
    got = [(json.loads(c["claim"][1])["r"], [json.loads(claims[j]["claim"][1])["axis"] for j in a["inputs"]])
           for c, a in zip(claims, link_rules(claims, TENTS)) if c["claim"][0] == "NotTent"]
    assert got == [(2, ["ROW"]), (0, ["COL"])]
    assert respective([1, 2], [3, 4], lambda p, c: True) is None
    assert respective([1], [3, 4], lambda p, c: p == 3) is None
    assert respective([1, 2], [3, 4], lambda p, c: p - 2 == c) == [[0], [1]]
    assert respective([1, 2], [3, 4, 5], lambda p, c: p - 2 == c) is None  # 5 relates to nothing
    assert respective([1, 2], [3, 4], lambda p, c: None if p == 4 else p - 2 == c) == [[0, 1], [1]]


def test_map_a_given_colour_belongs_to_the_region_it_is_said_of():
    """"region 11, the given yellow of region 10": the clue is region 10's, not region 11's."""
    from kumo_gym.analysis.packs import get

    pack = get("map")
    sents = segment("Region 11 is red because region 10 borders region 11, the given yellow of region 10, "
                    "region 11 cannot be blue. Region 4, the given blue, borders region 5.")
    raw = [(c["kind"], c["payload"]) for c in extract_claims(sents, pack, offset=0)]
    assert ("Given", {"region": 10, "v": "Y"}) in raw and ("Given", {"region": 4, "v": "B"}) in raw
    assert ("Given", {"region": 11, "v": "Y"}) not in raw
