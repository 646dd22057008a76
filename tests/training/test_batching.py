"""Batched generation of the local backend: one ``generate`` call for many prompts (left padding),
the same greedy replies as one prompt at a time, and the evaluation harness using it."""
from __future__ import annotations

import json
import threading
import time

import pytest

from kumo_gym.core.errors import ConfigError
from kumo_gym.training.backends import TransformersBackend, _Collector
from kumo_gym.training.evaluate import evaluate

CONVERSATIONS = [
    [{"role": "user", "content": "Start at 0 and reach 7."}],
    [{"role": "user", "content": "Start at 0 and reach 12 with steps of 1, 2 or 3; give the list of steps only."}],
    [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "reach 4"}],
    [{"role": "user", "content": "Start at 2, reach 9"}, {"role": "assistant", "content": "[3, 3, 1]"},
     {"role": "user", "content": "That is not a list of steps from 2 to 9. Try again with steps of 1, 2 or 3."}],
    [{"role": "user", "content": "0 -> 5"}],
]


@pytest.fixture(scope="module")
def loud(tiny):
    """The tiny model with large random weights: its greedy replies vary from prompt to prompt and
    depend on every position (the freshly built model's near-uniform logits repeat one token)."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    model = AutoModelForCausalLM.from_pretrained(tiny, dtype=torch.float32)
    gen = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() > 1:
                p.normal_(0.0, 0.5, generator=gen)
    return model, AutoTokenizer.from_pretrained(tiny)


def backend(loud, **kw) -> TransformersBackend:
    model, tok = loud
    kw.setdefault("max_tokens", 12)
    kw.setdefault("temperature", 0.0)
    return TransformersBackend(model, tok, device="cpu", **kw)


def texts(replies) -> list[list[tuple[str, int | None, str | None]]]:
    return [[(r.text, r.completion_tokens, r.finish_reason) for r in rs] for rs in replies]


def test_greedy_batched_replies_equal_one_at_a_time(loud):
    alone = backend(loud, batch_size=1)
    one_by_one = [alone.chat(c) for c in CONVERSATIONS]
    assert alone.stats["generate_calls"] == len(CONVERSATIONS)
    batched = backend(loud, batch_size=16)
    together = batched.chat_batch(CONVERSATIONS)
    assert batched.stats["generate_calls"] == 1 and batched.stats["rows"] == len(CONVERSATIONS)
    # the prompts differ in length (so the batch is padded) and the replies differ from each other
    assert len({len(batched.prompt_ids(c)) for c in CONVERSATIONS}) == len(CONVERSATIONS)
    assert len({rs[0].text for rs in one_by_one}) == len(CONVERSATIONS)
    assert texts(together) == texts(one_by_one)
    assert [rs[0].prompt_tokens for rs in together] == [len(batched.prompt_ids(c)) for c in CONVERSATIONS]
    # batches of two: three calls, the same replies
    pairs = backend(loud, batch_size=2)
    assert texts(pairs.chat_batch(CONVERSATIONS)) == texts(one_by_one)
    assert pairs.stats["generate_calls"] == 3


def test_right_padding_would_change_the_replies(loud):
    """The guard of the test above: the padded side matters, so equality is not an accident."""
    import torch

    b = backend(loud)
    model, tok = loud
    short, long = (b.prompt_ids(c) for c in CONVERSATIONS[:2])
    pad = [tok.pad_token_id] * (len(long) - len(short))
    ids = torch.tensor([short + pad, long])
    mask = torch.tensor([[1] * len(short) + [0] * len(pad), [1] * len(long)])
    out = model.generate(ids, attention_mask=mask, max_new_tokens=12, do_sample=False,
                         pad_token_id=tok.pad_token_id, eos_token_id=tok.eos_token_id)
    right = tok.decode(out[0, len(long):].tolist(), skip_special_tokens=True)
    assert right != b.chat(CONVERSATIONS[0])[0].text


def test_sampling_n_replies_per_conversation(loud):
    a = backend(loud, temperature=1.0, seed=7, batch_size=8)
    replies = a.chat_batch(CONVERSATIONS[:3], n=4)
    assert [len(rs) for rs in replies] == [4, 4, 4]
    assert a.stats["generate_calls"] == 2 and a.stats["rows"] == 12  # 8 rows per call: 2 prompts, then 1
    for rs in replies:
        assert len({r.text for r in rs}) > 1  # samples differ
        for r in rs:
            assert 1 <= r.completion_tokens <= 12
    # the same seed and the same calls give the same samples; another seed other samples
    assert texts(backend(loud, temperature=1.0, seed=7, batch_size=8).chat_batch(CONVERSATIONS[:3], n=4)) \
        == texts(replies)
    assert texts(backend(loud, temperature=1.0, seed=8, batch_size=8).chat_batch(CONVERSATIONS[:3], n=4)) \
        != texts(replies)


def test_concurrent_chat_calls_share_generate_calls(loud):
    expected = texts([backend(loud, batch_size=1).chat(c) for c in CONVERSATIONS])
    b = backend(loud, batch_size=8, max_tokens=12)
    start = threading.Barrier(len(CONVERSATIONS))
    out: dict[int, list] = {}

    def ask(i):
        start.wait()
        out[i] = b.chat(CONVERSATIONS[i])

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(len(CONVERSATIONS))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert texts([out[i] for i in range(len(CONVERSATIONS))]) == expected
    assert b.stats["generate_calls"] < len(CONVERSATIONS)


def test_collector_groups_by_options_and_respects_the_limit():
    groups: list[tuple] = []
    lock = threading.Lock()

    def run(key, items):
        with lock:
            groups.append((key, list(items)))
        time.sleep(0.05)
        if "boom" in items:
            raise ValueError("boom")
        return [f"{key}:{x}" for x in items]

    col = _Collector(run, limit=4, wait=0.2)
    keys = [(8, 0.0, 1)] * 9 + [(8, 1.0, 2)] * 3
    results: dict[int, str] = {}
    errors: list[BaseException] = []
    start = threading.Barrier(len(keys))

    def ask(i):
        start.wait()
        try:
            results[i] = col.submit(keys[i], i)
        except ValueError as exc:
            errors.append(exc)

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(len(keys))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {i: f"{keys[i]}:{i}" for i in range(len(keys))}
    for key, items in groups:
        assert {keys[i] for i in items} == {key}  # a group never mixes options
        assert len(items) <= 4 // key[2]  # n replies per request count against the limit
    assert len(groups) < len(keys)  # calls were shared
    # a failing group raises in each of its callers, and the collector keeps serving
    with pytest.raises(ValueError, match="boom"):
        col.submit((1, 0.0, 1), "boom")
    assert col.submit((1, 0.0, 1), "ok") == "(1, 0.0, 1):ok"
    assert not errors


def test_bad_batch_options_are_refused(loud):
    with pytest.raises(ConfigError, match="batch_size 0"):
        backend(loud, batch_size=0)
    with pytest.raises(ConfigError, match="n 0"):
        backend(loud).chat_batch(CONVERSATIONS, n=0)


def _completions(path) -> dict:
    recs = [json.loads(line) for line in path.read_text().splitlines()]
    return {(r["index"], r["sample"]): (r["completion"], r["completion_tokens"]) for r in recs}


@pytest.mark.parametrize("mode", ["answer", "interactive"])
def test_evaluation_batches_and_keeps_greedy_results(reach, loud, tmp_path, mode):
    one = backend(loud, batch_size=1, max_tokens=10)
    s1 = evaluate([reach], one, tmp_path / "one", size=6, mode=mode, quiet=True, plots=False, model_name="m")
    many = backend(loud, batch_size=4, max_tokens=10)
    s4 = evaluate([reach], many, tmp_path / "many", size=6, mode=mode, quiet=True, plots=False, model_name="m")
    assert s1["episodes"] == s4["episodes"] == 6
    assert _completions(tmp_path / "one" / "traces.jsonl") == _completions(tmp_path / "many" / "traces.jsonl")
    assert one.stats["rows"] == many.stats["rows"]  # the same prompts were answered
    assert one.stats["generate_calls"] == one.stats["rows"]
    if mode == "answer":
        assert many.stats["generate_calls"] == 2  # 6 prompts, 4 per call
    else:
        assert many.stats["generate_calls"] < one.stats["generate_calls"]


def test_sampled_multi_turn_evaluation_repeats_with_the_same_seed(reach, loud, tmp_path):
    runs = []
    for name in ("a", "b"):
        b = backend(loud, batch_size=4, max_tokens=10, temperature=1.0, seed=3)
        evaluate([reach], b, tmp_path / name, size=4, mode="interactive", quiet=True, plots=False, model_name="m")
        runs.append(_completions(tmp_path / name / "traces.jsonl"))
    assert runs[0] == runs[1]
