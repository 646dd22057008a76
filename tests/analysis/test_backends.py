"""Record, replay and cache (docs/specs/reasoning_graphs.md §5 "Backends").

The full LLM pipeline (stages 2-10) runs against a real HTTP server on 127.0.0.1
(``serve_openai`` in front of :class:`ScriptedModel`) through ``OpenAIChatBackend``, recorded to a
cassette; the same pipeline then runs from the cassette with the network switched off and gives
the same document. A cassette recorded the same way is committed
(``fixtures/cassette_tents_llm.json``) and replayed offline in CI; re-record it with
``record_cassette`` when a prompt changes (the replay then fails with a CassetteMiss).
"""
import json
import socket
from pathlib import Path

import pytest

from kumo_gym.analysis.backends import (
    CachedBackend,
    CassetteMiss,
    RecordingBackend,
    ReplayBackend,
    load_cassette,
    request_key,
    uncached,
)
from kumo_gym.analysis.pipeline import analyse_trace
from kumo_gym.core.backend import ChatResult

from .scripted_model import ScriptedModel

CASSETTE = Path(__file__).parent / "fixtures" / "cassette_tents_llm.json"
STAGES = ("complete", "scratch", "screen", "rules")


def _records(tents_record, solo_record):
    # the Sudoku trace's indexing vote is undecided, so stage 2 asks the model too
    undecided = dict(solo_record, completion="Row 2 contains 4. Then r2c2 = 4. So r2c3 = 1, because r2c3 can only be 1 or 3.")
    return [tents_record, undecided]


def record_cassette(path, records):
    """Run the LLM pipeline on ``records`` against a loopback server and record it at ``path``."""
    pytest.importorskip("openai")
    from kumo_gym.training.backends import OpenAIChatBackend, serve_openai

    model = ScriptedModel()
    server = serve_openai(model, model_name=model.model)
    try:
        live = RecordingBackend(OpenAIChatBackend(base_url=server.url, model=model.model, max_retries=0, timeout=30),
                                path)
        docs = [analyse_trace(r, live) for r in records]
    finally:
        server.shutdown()
        server.server_close()
    return docs, model.calls


@pytest.fixture
def no_network(monkeypatch):
    """Any attempt to open a socket fails: proves a run is offline."""
    def refuse(*args, **kwargs):
        raise OSError("network disabled in this test")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def test_request_key_is_canonical():
    m = [{"role": "system", "content": "a"}, {"role": "user", "content": "b"}]
    k = request_key(m, max_tokens=5, temperature=0.0, seed=1)
    assert k == request_key(m, seed=1, temperature=0.0, max_tokens=5) == request_key(m, max_tokens=5, temperature=0.0,
                                                                                   seed=1, n=1)
    assert k != request_key(m, max_tokens=5, temperature=0.0, seed=2)
    assert k != request_key([m[0], {"role": "user", "content": "b "}], max_tokens=5, temperature=0.0, seed=1)
    assert len(k) == 64


def test_full_llm_pipeline_recorded_on_loopback_then_replayed_offline(tmp_path, tents_record, solo_record,
                                                                      monkeypatch):
    records = _records(tents_record, solo_record)
    cassette = tmp_path / "c.json"
    live, calls = record_cassette(cassette, records)
    assert {"indexing", *STAGES} <= set(calls)  # stages 2, 4b, 4c, 6 and 8 all asked the model
    doc = load_cassette(cassette)
    assert doc["model"] == "scripted-extractor" and len(doc["interactions"]) == len(calls)

    def refuse(*args, **kwargs):
        raise OSError("network disabled")

    monkeypatch.setattr(socket, "socket", refuse)
    replay = ReplayBackend(cassette)
    again = [analyse_trace(r, replay) for r in records]
    assert replay.misses == 0
    assert again == live  # the same document, byte for byte
    # stage 4b completed the draft (never replaced it) and stage 8's C_MISSING made a placeholder
    det = analyse_trace(records[0])
    got = {(c["kind"], json.dumps(c["payload"], sort_keys=True)) for c in live[0]["claims"]}
    assert {(c["kind"], json.dumps(c["payload"], sort_keys=True)) for c in det["claims"]} <= got
    assert live[0]["counters"]["complete"]["added"] == 1 and live[0]["counters"]["complete"]["invalid"] == 1
    assert live[0]["metrics"]["n_missing"] >= 1 and live[1]["indexing"] == "0-based"
    assert live[0]["provenance"]["models"]["claims"] == "scripted-extractor"


def test_committed_cassette_replays_the_full_pipeline_offline(tents_record, solo_record, no_network):
    replay = ReplayBackend(CASSETTE)
    docs = [analyse_trace(r, replay) for r in _records(tents_record, solo_record)]
    assert replay.misses == 0, "the prompts changed: re-record the cassette with record_cassette()"
    tents = docs[0]
    counters = tents["counters"]
    assert all(counters[s]["calls"] >= 1 for s in STAGES)
    assert counters["complete"]["added"] == 1 and counters["complete"]["invalid"] == 1
    kinds = [c["kind"] for c in tents["claims"]]
    assert "TreeCandidate" in kinds and tents["metrics"]["V_raw"] >= analyse_trace(tents_record)["metrics"]["V_raw"]
    assert tents["metrics"]["n_missing"] >= 1 and tents["metrics"]["eta_status"] == "ok"
    assert docs[1]["indexing"] == "0-based" and docs[1]["counters"]["indexing"]["calls"] == 1


def test_short_completion_completes_never_replaces(tents_record):
    """A valid but short stage-4b reply (one claim) used to replace the whole draft."""
    det = analyse_trace(tents_record)
    doc = analyse_trace(tents_record, ScriptedModel(), llm_options={"stages": ("complete",)})
    assert doc["metrics"]["V"] >= det["metrics"]["V"] and doc["metrics"]["V_raw"] == det["metrics"]["V_raw"] + 1
    assert len(doc["edges"]) >= len(det["edges"])  # the draft's premise links survive


class Counting:
    model = "counting"

    def __init__(self):
        self.n = 0

    def chat(self, messages, *, max_tokens=None, temperature=None, n=1, **kwargs):
        self.n += 1
        return [ChatResult(text=f"reply {self.n}", finish_reason="stop")]


def test_cached_backend_answers_repeats_from_disk(tmp_path):
    inner = Counting()
    cache = CachedBackend(inner, tmp_path / "cache")
    m = [{"role": "user", "content": "hello"}]
    first = cache.chat(m, max_tokens=5, temperature=0.0)
    assert cache.chat(m, max_tokens=5, temperature=0.0)[0].text == first[0].text == "reply 1"
    assert inner.n == 1 and (cache.hits, cache.misses) == (1, 1)
    assert cache.chat(m, max_tokens=5, temperature=0.0, seed=3)[0].text == "reply 2"  # the seed is in the key
    # a second process (a new instance on the same directory) reuses the entries
    assert CachedBackend(Counting(), tmp_path / "cache").chat(m, max_tokens=5, temperature=0.0)[0].text == "reply 1"
    # a damaged entry is fetched again instead of failing
    entry = next((tmp_path / "cache").rglob(request_key(m, max_tokens=5, temperature=0.0) + ".json"))
    entry.write_text("{not json")
    assert cache.chat(m, max_tokens=5, temperature=0.0)[0].text == "reply 3"
    assert not list((tmp_path / "cache").rglob("*.tmp"))
    assert uncached(CachedBackend(cache, tmp_path / "c2")) is inner


def test_replay_miss_names_the_request_and_can_fall_back(tmp_path):
    rec = RecordingBackend(Counting(), tmp_path / "c.json")
    m = [{"role": "system", "content": "You are the grader."}, {"role": "user", "content": "x"}]
    rec.chat(m, max_tokens=3)
    rec.chat(m, max_tokens=3)
    replay = ReplayBackend(tmp_path / "c.json")
    assert [replay.chat(m, max_tokens=3)[0].text for _ in range(3)] == ["reply 1", "reply 2", "reply 2"]
    with pytest.raises(CassetteMiss, match="You are the grader"):
        replay.chat(m, max_tokens=4)
    fallback = ReplayBackend(tmp_path / "c.json", fallback=Counting())
    assert fallback.chat(m, max_tokens=4)[0].text == "reply 1" and fallback.misses == 1
    (tmp_path / "bad.json").write_text('{"format": "other"}')
    with pytest.raises(ValueError, match="not a kumo_gym.cassette/v1"):
        ReplayBackend(tmp_path / "bad.json")


def test_analyze_cli_replays_a_cassette(tmp_path, tents_record, solo_record, no_network):
    from kumo_gym.cli import main

    traces = tmp_path / "t.jsonl"
    traces.write_text("".join(json.dumps(r) + "\n" for r in _records(tents_record, solo_record)))
    assert main(["analyze", str(traces), "--out", str(tmp_path / "o"), "--replay", str(CASSETTE), "--no-plots"]) == 0
    rows = [json.loads(x) for x in (tmp_path / "o" / "metrics.jsonl").read_text().splitlines()]
    assert len(rows) == 2
    assert "scripted-extractor" in (tmp_path / "o" / "report.md").read_text()


if __name__ == "__main__":  # re-record the committed cassette: PYTHONPATH=. python -m tests.analysis.test_backends
    import kumo_gym
    from kumo_gym.core.instance import Instance

    from .conftest import SOLO_GRID, SOLO_SOLUTION, SOLO_TRACE, TENTS_ID, TENTS_TRACE

    tents = kumo_gym.get_task("kumo_gym/Tents-v0").load(TENTS_ID)
    solo = Instance("solo", {"W": 4, "H": 4, "state": {"n": 4, "box_w": 2, "box_h": 2, "grid": SOLO_GRID},
                             "solution": SOLO_SOLUTION})
    base = {"verdict": {"status": "solved", "solved": True}, "reward": 1.0, "model": "hand", "difficulty": "trivial"}
    recs = _records(dict(base, env_id="kumo_gym/Tents-v0", instance=tents.to_dict(), instance_id=tents.instance_id,
                         completion=TENTS_TRACE),
                    dict(base, env_id="kumo_gym/Solo-v0", instance=solo.to_dict(), instance_id=solo.instance_id,
                         completion=SOLO_TRACE))
    CASSETTE.unlink(missing_ok=True)
    record_cassette(CASSETTE, recs)
    print(f"recorded {CASSETTE}")
