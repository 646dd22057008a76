"""Model backends against a real HTTP server on loopback (serving the tiny model)."""
from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

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
    client = OpenAIChatBackend(server.url, model="m", max_retries=3)
    out = client.chat(MESSAGES, n=2)
    assert [r.text for r in out] == ["answer 0 to Start", "answer 1 to Start"]
    assert backend.calls == 3 and client.stats["retries"] == 2


def test_persistent_errors_raise_after_the_retries(serve):
    backend = Scripted(fail=100)
    client = OpenAIChatBackend(serve(backend).url, model="m", max_retries=2)
    with pytest.raises(BackendError, match="3 attempt"):
        client.chat(MESSAGES)
    assert backend.calls == 3


class NoSystemRole(Scripted):
    """A server whose model's chat template has no system role (as vLLM serving Gemma 2 answers)."""

    def __init__(self):
        super().__init__()
        self.seen: list = []

    def chat(self, messages, **kw):
        self.seen.append(messages)
        if messages[0]["role"] == "system":
            raise ValueError("System role not supported")
        return super().chat(messages, **kw)


def test_a_server_that_refuses_the_system_role_gets_it_in_the_user_turn(serve):
    backend = NoSystemRole()
    client = OpenAIChatBackend(serve(backend).url, model="m", max_retries=0)
    with_system = [{"role": "system", "content": "Be brief."}, *MESSAGES]
    assert client.chat(with_system)[0].text == "answer 0 to Be br"
    assert client.fold_system and backend.seen[-1] == [{"role": "user", "content": "Be brief.\n\n" + MESSAGES[0]["content"]}]
    client.chat(with_system)  # later requests fold at once: one request
    assert len(backend.seen) == 3
    # other server errors are not retried this way
    with pytest.raises(BackendError, match="scripted server failure"):
        OpenAIChatBackend(serve(Scripted(fail=1)).url, model="m", max_retries=0).chat(with_system)


def test_timeouts_are_retried_then_fail(serve):
    slow_once = Scripted(fail=1, sleep=1.5)
    client = OpenAIChatBackend(serve(slow_once).url, model="m", timeout=0.3, max_retries=2)
    assert client.chat(MESSAGES)[0].text.startswith("answer")
    assert client.stats["retries"] == 1

    always_slow = Scripted(fail=100, sleep=1.0)
    client = OpenAIChatBackend(serve(always_slow).url, model="m", timeout=0.2, max_retries=1)
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
                               max_retries=1)
    assert secret not in repr(client)
    with caplog.at_level(logging.DEBUG), pytest.raises(BackendError) as err:
        client.chat(MESSAGES)
    assert_no_secret(err.value, secret)
    assert secret not in caplog.text


def assert_no_secret(exc: BaseException, secret: str) -> None:
    """Neither the error nor anything in its chain (cause, context, their attributes) shows ``secret``."""
    assert secret not in "".join(traceback.format_exception(exc))
    seen = exc
    while seen is not None:
        assert secret not in repr(seen) and secret not in repr(vars(seen))
        seen = seen.__cause__ or seen.__context__
    assert exc.__context__ is None and exc.__cause__ is None


# ---- hostile servers: real HTTP on loopback -------------------------------------------------
COMPLETION = {"id": "x", "object": "chat.completion", "created": 0, "model": "m",
              "choices": [{"index": 0, "message": {"role": "assistant", "content": "fine"}, "finish_reason": "stop"}],
              "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}


@pytest.fixture
def raw_server():
    """Start a loopback HTTP server whose POST handler is ``handle(handler)``; records the headers seen."""
    servers = []

    def start(handle):
        seen = []

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                seen.append({k.lower(): v for k, v in self.headers.items()})
                try:
                    handle(self)
                except (BrokenPipeError, ConnectionResetError):  # the client hung up: what we test for
                    pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        server.url, server.seen = f"http://127.0.0.1:{server.server_address[1]}/v1", seen
        return server

    yield start
    for s in servers:
        s.shutdown()
        s.server_close()


def _send(handler, body: bytes, content_type: str = "application/json", status: int = 200):
    handler.send_response(status)
    handler.send_header("Content-Type", content_type)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def endless_chunked(handler, stop_after: float = 20.0):
    """A 200 whose chunked body never ends (a chunk every 50 ms), until the client hangs up."""
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Transfer-Encoding", "chunked")
    handler.end_headers()
    end = time.monotonic() + stop_after  # bounded, so a broken client cannot hang the test suite
    while time.monotonic() < end:
        handler.wfile.write(b"1\r\n \r\n")
        handler.wfile.flush()
        time.sleep(0.05)


def test_an_endless_chunked_reply_times_out_as_a_whole(raw_server, monkeypatch, caplog):
    secret = "sk-endless-0123456789"
    monkeypatch.setenv("KUMO_TEST_KEY", secret)
    server = raw_server(endless_chunked)
    client = OpenAIChatBackend(server.url, model="m", api_key_env="KUMO_TEST_KEY", timeout=1.0, max_retries=0)
    assert client.client is not None  # import openai before the clock starts
    start = time.monotonic()
    with caplog.at_level(logging.DEBUG), pytest.raises(BackendError, match="Timeout: no complete reply within 1 s"):
        client.chat(MESSAGES)
    assert time.monotonic() - start < 5  # each read was quick: only a whole-request deadline stops it
    assert_no_secret(_last_error(client), secret)
    assert secret not in caplog.text
    assert server.seen[0]["authorization"] == f"Bearer {secret}"  # the key did travel, to the server only


def _last_error(client):
    try:
        client.chat(MESSAGES)
    except BackendError as e:
        return e
    raise AssertionError("the request should have failed")


def test_endless_replies_are_retried_by_the_openai_client(raw_server):
    calls = []

    def first_endless(handler):
        calls.append(1)
        if len(calls) == 1:
            endless_chunked(handler)
        else:
            _send(handler, json.dumps(COMPLETION).encode())

    client = OpenAIChatBackend(raw_server(first_endless).url, model="m", timeout=1.0, max_retries=1)
    assert client.chat(MESSAGES)[0].text == "fine"
    assert len(calls) == 2 and client.stats["retries"] == 1 and client.stats["failures"] == 0


@pytest.mark.parametrize("body,content_type,match", [
    (b"<html>502 Bad Gateway</html>", "text/html", "did not return a chat completion: '<html>502"),
    (b"{not json", "application/json", "not valid JSON"),
    (b'{"object": "error", "message": "overloaded"}', "application/json", "did not return a chat completion"),
    (b'{"choices": [{"message": 7}]}', "application/json", "did not return a chat completion"),
    (b'{"choices": "nope"}', "application/json", "did not return a chat completion"),
])
def test_a_200_that_is_not_a_chat_completion_is_a_backend_error(raw_server, monkeypatch, body, content_type, match):
    secret = "sk-nonjson-0123456789"
    monkeypatch.setenv("KUMO_TEST_KEY", secret)
    server = raw_server(lambda h: _send(h, body, content_type))
    client = OpenAIChatBackend(server.url, model="m", api_key_env="KUMO_TEST_KEY", max_retries=0)
    with pytest.raises(BackendError, match=match) as err:
        client.chat(MESSAGES)
    assert_no_secret(err.value, secret)


def test_connection_refused_is_a_backend_error_without_the_key(monkeypatch):
    secret = "sk-refused-0123456789"
    monkeypatch.setenv("KUMO_TEST_KEY", secret)
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    client = OpenAIChatBackend(f"http://127.0.0.1:{port}/v1", model="m", api_key_env="KUMO_TEST_KEY", max_retries=0)
    with pytest.raises(BackendError, match="APIConnectionError") as err:
        client.chat(MESSAGES)
    assert_no_secret(err.value, secret)


def test_bad_settings_are_refused():
    from kumo_gym.core.errors import ConfigError

    for bad in ({"timeout": 0}, {"timeout": float("inf")}, {"max_retries": -1}, {"concurrency": 0}):
        with pytest.raises(ConfigError, match=next(iter(bad))):
            OpenAIChatBackend("http://127.0.0.1:1/v1", **bad)
