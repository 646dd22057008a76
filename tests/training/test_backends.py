"""Model backends against a real HTTP server on loopback (serving the tiny model)."""
from __future__ import annotations

import logging
import os
import threading
import time

import pytest

from kumo_gym.core.backend import ChatBackend, ChatResult
from kumo_gym.training.backends import BackendError, OpenAIChatBackend, TransformersBackend, serve_openai, tiny_model

MESSAGES = [{"role": "user", "content": "Start at 0 and reach 7 with steps of 1, 2 or 3."}]


class Scripted:
    """A backend that fails ``fail`` times (exception or sleep), then answers; counts calls and
    the largest number of calls in flight at once."""

    def __init__(self, fail: int = 0, sleep: float = 0.0, hold: float = 0.0, reasoning: str | None = None):
        self.fail, self.sleep, self.hold, self.reasoning = fail, sleep, hold, reasoning
        self.calls = 0
        self.inflight = 0
        self.max_inflight = 0
        self.lock = threading.Lock()

    def chat(self, messages, *, max_tokens=None, temperature=None, n=1, **kw):
        with self.lock:
            self.calls += 1
            call = self.calls
            self.inflight += 1
            self.max_inflight = max(self.max_inflight, self.inflight)
        try:
            if call <= self.fail:
                if self.sleep:
                    time.sleep(self.sleep)
                else:
                    raise RuntimeError("scripted server failure")
            time.sleep(self.hold)
            return [ChatResult(text=f"answer {i} to {messages[-1]['content'][:5]}", reasoning=self.reasoning,
                               finish_reason="stop", prompt_tokens=3, completion_tokens=2) for i in range(n)]
        finally:
            with self.lock:
                self.inflight -= 1


@pytest.fixture
def serve():
    servers = []

    def start(backend):
        s = serve_openai(backend)
        servers.append(s)
        return s

    yield start
    for s in servers:
        s.shutdown()
        s.server_close()


def test_tiny_model_builds_once_and_reloads(tiny):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    stamp = os.path.getmtime(os.path.join(tiny, "config.json"))
    assert tiny_model(tiny) == str(tiny)  # cached: not rebuilt
    assert os.path.getmtime(os.path.join(tiny, "config.json")) == stamp
    model = AutoModelForCausalLM.from_pretrained(tiny)
    tok = AutoTokenizer.from_pretrained(tiny)
    n_params = sum(p.numel() for p in model.parameters())
    assert 10_000 < n_params < 2_000_000
    text = tok.apply_chat_template(MESSAGES + [{"role": "assistant", "content": "[3, 3, 1]"}], tokenize=False)
    assert "<|im_start|>assistant\n[3, 3, 1]<|im_end|>" in text
    # byte-level BPE: any text round-trips
    s = "moves = [[1, 0, 2]] \u00e9\u4e2d"
    assert tok.decode(tok.encode(s, add_special_tokens=False)) == s


def test_transformers_backend_protocol_and_lengths(tiny):
    b = TransformersBackend(tiny, max_tokens=8, temperature=1.0, device="cpu")
    assert isinstance(b, ChatBackend)
    out = b.chat(MESSAGES, n=3)
    assert len(out) == 3
    for r in out:
        assert isinstance(r.text, str) and r.finish_reason in ("stop", "length")
        assert 1 <= r.completion_tokens <= 8 and r.prompt_tokens > 5
        if r.finish_reason == "length":
            assert r.completion_tokens == 8


def test_openai_backend_against_loopback_tiny_model(tiny, serve):
    server = serve(TransformersBackend(tiny, max_tokens=6, device="cpu"))
    client = OpenAIChatBackend(server.url, model="tiny", max_retries=0, timeout=30)
    out = client.chat(MESSAGES, n=2, max_tokens=6, temperature=1.0)
    assert len(out) == 2
    assert all(isinstance(r.text, str) and r.finish_reason in ("stop", "length") for r in out)
    assert all(r.prompt_tokens > 5 and r.completion_tokens is not None for r in out)


def test_reasoning_channel(serve):
    server = serve(Scripted(reasoning="first I think"))
    out = OpenAIChatBackend(server.url, model="m", max_retries=0).chat(MESSAGES)
    assert out[0].reasoning == "first I think" and out[0].text.startswith("answer 0")


def test_server_errors_are_retried_with_backoff(serve):
    backend = Scripted(fail=2)
    server = serve(backend)
    client = OpenAIChatBackend(server.url, model="m", max_retries=3, backoff=0.01)
    out = client.chat(MESSAGES, n=2)
    assert [r.text for r in out] == ["answer 0 to Start", "answer 1 to Start"]
    assert backend.calls == 3 and client.stats["retries"] == 2


def test_persistent_errors_raise_after_the_retries(serve):
    backend = Scripted(fail=100)
    client = OpenAIChatBackend(serve(backend).url, model="m", max_retries=2, backoff=0.01)
    with pytest.raises(BackendError, match="3 attempt"):
        client.chat(MESSAGES)
    assert backend.calls == 3


def test_timeouts_are_retried_then_fail(serve):
    slow_once = Scripted(fail=1, sleep=1.5)
    client = OpenAIChatBackend(serve(slow_once).url, model="m", timeout=0.3, max_retries=2, backoff=0.01)
    assert client.chat(MESSAGES)[0].text.startswith("answer")
    assert client.stats["retries"] == 1

    always_slow = Scripted(fail=100, sleep=1.0)
    client = OpenAIChatBackend(serve(always_slow).url, model="m", timeout=0.2, max_retries=1, backoff=0.01)
    with pytest.raises(BackendError, match="Timeout"):
        client.chat(MESSAGES)


def test_concurrency_limit(serve):
    backend = Scripted(hold=0.15)
    client = OpenAIChatBackend(serve(backend).url, model="m", concurrency=2, max_retries=0)
    client.chat_many([MESSAGES] * 6)
    assert backend.calls == 6 and backend.max_inflight == 2


def test_api_key_is_never_shown(serve, monkeypatch, caplog):
    secret = "sk-test-0123456789-secret"
    monkeypatch.setenv("KUMO_TEST_KEY", secret)
    client = OpenAIChatBackend(serve(Scripted(fail=100)).url, model="m", api_key_env="KUMO_TEST_KEY",
                               max_retries=1, backoff=0.01)
    assert secret not in repr(client)
    with caplog.at_level(logging.DEBUG), pytest.raises(BackendError) as err:
        client.chat(MESSAGES)
    assert secret not in str(err.value)
    assert secret not in caplog.text
