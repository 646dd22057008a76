"""Trace and chat wrappers: hostile text never raises and round-trips, each text is stored once,
and a torn line left by a crash disappears when the run resumes."""
from __future__ import annotations

import json
import os

import gymnasium as gym
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kumo_gym  # noqa: F401
from kumo_gym.core.backend import ChatResult
from kumo_gym.training.evaluate import evaluate
from kumo_gym.wrappers import ChatEnv, TraceWrapper, TraceWriter, read_traces
from kumo_gym.wrappers.trace import compact_record, expand_record

SURROGATE = "[1, 2]\ud800 tail \udfff"


class Replies:
    """A backend that answers every request with fixed text (and reasoning)."""

    def __init__(self, text: str, reasoning: str | None = None):
        self.text, self.reasoning = text, reasoning
        self.calls = 0

    def chat(self, messages, *, max_tokens=None, temperature=None, n=1, **kw):
        self.calls += 1
        return [ChatResult(text=self.text, reasoning=self.reasoning, finish_reason="stop", prompt_tokens=5,
                           completion_tokens=7) for _ in range(n)]


@pytest.fixture(scope="module")
def tokenizer(tiny):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(tiny)


@pytest.mark.parametrize("mode", ["answer", "interactive"])
def test_lone_surrogates_are_recorded_exactly(reach, tokenizer, tmp_path, mode):
    path = tmp_path / "t.jsonl"
    env = ChatEnv(TraceWrapper(gym.make(reach, mode=mode), path), tokenizer=tokenizer)
    env.reset(seed=0)
    done = False
    while not done:
        _, _, term, trunc, info = env.step(SURROGATE, reasoning="why \ud83d", finish_reason="stop")
        done = term or trunc
        assert info["tokens"]["completion"] > 0
    (rec,) = read_traces(path, strict=True)
    assert all(s["action"] == SURROGATE for s in rec["steps"])
    if mode == "answer":  # (interactive envs take text only: their reasoning reaches the trace by annotate)
        assert rec["completion"] == SURROGATE and rec["reasoning"] == rec["steps"][0]["reasoning"] == "why \ud83d"
    # the rest of the file stays UTF-8: another record with non-ASCII text is written as it is
    TraceWriter(path).append({"text": "déjà vu 🙂"})
    assert "déjà vu 🙂" in path.read_text(encoding="utf-8")


def test_eval_with_surrogate_replies_finishes_and_resumes(reach, tmp_path):
    backend = Replies(SURROGATE, reasoning="\udc80")
    summary = evaluate([reach], backend, tmp_path, n=3, quiet=True, plots=False, model_name="m")
    assert summary["episodes"] == 3 and backend.calls == 3
    again = evaluate([reach], backend, tmp_path, n=3, quiet=True, plots=False, model_name="m")
    assert again["episodes"] == 3 and backend.calls == 3  # everything was kept: nothing asked again
    assert [r["completion"] for r in read_traces(tmp_path / "traces.jsonl", strict=True)] == [SURROGATE] * 3


def test_a_reply_is_stored_once(reach, tmp_path):
    big = "[1] " + "x" * 300_000
    evaluate([reach], Replies(big, reasoning="r" * 100_000), tmp_path, n=1, quiet=True, plots=False)
    path = tmp_path / "traces.jsonl"
    assert os.path.getsize(path) < len(big) + 100_000 + 20_000  # once each, plus the record around them
    (rec,) = read_traces(path)
    assert rec["completion"] == rec["steps"][0]["action"] == rec["replies"][0]["text"] == big
    assert rec["reasoning"] == rec["replies"][0]["reasoning"] == rec["steps"][0]["reasoning"] == "r" * 100_000


def test_multi_turn_replies_and_reasoning_are_stored_once(reach, tmp_path):
    evaluate([reach], Replies("1" + " " * 50_000, reasoning="think " * 10_000), tmp_path, n=1, mode="interactive",
             quiet=True, plots=False)
    path = tmp_path / "traces.jsonl"
    (rec,) = read_traces(path)
    n = rec["n_steps"]
    assert n >= 2 and rec["completion"] is None
    assert [r["text"] for r in rec["replies"]] == [s["action"] for s in rec["steps"]]
    assert rec["reasoning"] == "\n".join(["think " * 10_000] * n)  # each turn once, in order
    assert os.path.getsize(path) < n * (50_000 + 60_000) + 20_000


def test_compact_and_expand_are_inverse():
    rec = {"completion": "a", "reasoning": "r1\nr2", "steps": [{"action": "a", "reasoning": "r1"}],
           "replies": [{"text": "a", "reasoning": "r1"}]}
    assert expand_record(json.loads(json.dumps(compact_record(rec)))) == rec
    multi = {"completion": None, "reasoning": "x\ny",
             "steps": [{"action": "m1", "reasoning": "x"}, {"action": "m2", "reasoning": "y"}],
             "replies": [{"text": "m1", "reasoning": "x"}, {"text": "m2", "reasoning": "y"}]}
    small = compact_record(multi)
    assert "reasoning" not in small and all("text" not in r and "reasoning" not in r for r in small["replies"])
    assert expand_record(json.loads(json.dumps(small))) == multi
    # texts that differ are kept
    odd = {"completion": None, "steps": [{"action": "m1"}], "replies": [{"text": "other", "reasoning": None}]}
    assert compact_record(odd) == odd and expand_record(compact_record(odd)) == odd


def test_a_torn_line_is_removed_when_the_run_resumes(tmp_path):
    path = tmp_path / "t.jsonl"
    w = TraceWriter(path)
    for i in range(3):
        w.append({"key": i, "text": "é" * 10})
    with open(path, "ab") as f:  # what a writer killed mid-line leaves
        f.write(b'{"key": 3, "text": "\xc3')
    with pytest.raises(ValueError, match=":4 is not a complete JSON record"):
        read_traces(path, strict=True)
    assert [r["key"] for r in read_traces(path)] == [0, 1, 2]
    TraceWriter(path).append({"key": 4})  # the resumed run
    assert [r["key"] for r in read_traces(path, strict=True)] == [0, 1, 2, 4]
    assert path.read_bytes().count(b"\n") == 4


def test_a_complete_last_line_without_newline_is_kept(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text('{"key": 0}\n{"key": 1}')
    TraceWriter(path).append({"key": 2})
    assert [r["key"] for r in read_traces(path, strict=True)] == [0, 1, 2]


def _play_both_modes(reach, tokenizer, path, text, reasoning) -> None:
    for mode in ("answer", "interactive"):
        env = ChatEnv(TraceWrapper(gym.make(reach, mode=mode), path), tokenizer=tokenizer)
        env.reset(seed=1)
        for _ in range(3):
            _, reward, term, trunc, _ = env.step(text, reasoning=reasoning, finish_reason="length")
            assert 0.0 <= reward <= 1.0
            if term or trunc:
                break
        env.close()
    for rec in read_traces(path, strict=True):
        assert all(s["action"] == text for s in rec["steps"])


@pytest.mark.parametrize("text", ["\ud800", "x" * 1_000_000, "\x00" * 1000, "NaN", "-inf", "1e999999", "\x1b[31m",
                                  "\\boxed{" * 2000, "[" * 20_000, "\u202e\ufeff"], ids=lambda t: repr(t[:8]))
def test_chat_and_trace_take_hostile_completions(reach, tokenizer, tmp_path, text):
    # (a 1 MB text skips token counting: a BPE tokenizer needs seconds for it, and that is not ours to test)
    _play_both_modes(reach, tokenizer if len(text) < 100_000 else None, tmp_path / "t.jsonl", text,
                     reasoning=text[:100])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(alphabet=st.characters(exclude_categories=()), max_size=300),
       reasoning=st.none() | st.text(alphabet=st.characters(exclude_categories=()), max_size=50))
def test_chat_and_trace_never_raise_on_any_completion(reach, tokenizer, tmp_path_factory, text, reasoning):
    _play_both_modes(reach, tokenizer, tmp_path_factory.mktemp("fuzz") / "t.jsonl", text, reasoning)
