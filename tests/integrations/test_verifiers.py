"""``load_environment``: a ``verifiers`` environment, run end to end against a loopback
OpenAI-compatible server that answers with golden replies (and, for one task, a wrong one)."""
from __future__ import annotations

import asyncio
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

pytest.importorskip("verifiers.v1", reason="the [verifiers] extra (verifiers) is not installed")

import gymnasium as gym
import verifiers.v1 as vf
from verifiers.v1.env import RunSlot

import kumo_gym
from kumo_gym.integrations.verifiers import KumoGymEnv, load_environment
from kumo_gym.training.agents import OracleAgent


class ScriptedModel:
    """Replies as a served model would, from a script: the oracle's reply for the conversation so
    far (the first user message names the instance; the assistant turns are replayed on a local
    copy of the episode), except for instances listed in ``wrong``."""

    def __init__(self, env_id: str, tasks, wrong=(), **env_kwargs):
        self.env_id, self.env_kwargs, self.wrong = env_id, env_kwargs, set(wrong)
        self.by_prompt = {t.data.prompt_text: t.data for t in tasks}
        self.requests: list[dict] = []

    def reply(self, messages: list[dict]) -> str:
        users = [m["content"] for m in messages if m["role"] == "user"]
        data = self.by_prompt[users[0]]
        if data.id in self.wrong:
            return "I do not know."
        local = gym.make(self.env_id, **self.env_kwargs)
        local.reset(options={"instance": kumo_gym.get_task(self.env_id).load(json.loads(data.instance))})
        agent = OracleAgent()
        agent.bind(local.unwrapped)
        for m in messages:
            if m["role"] == "assistant":
                local.step(m["content"])
        return agent.reply()


@pytest.fixture
def model_server():
    """An OpenAI-compatible ``/v1/chat/completions`` on a free loopback port, answering with
    ``server.model.reply(messages)`` (set by the test)."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            server.model.requests.append(body)
            text = server.model.reply(body["messages"])
            usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
            if body.get("stream"):
                chunks = [{"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": body["model"],
                           "choices": [{"index": 0, "delta": {"role": "assistant", "content": text},
                                        "finish_reason": None}]},
                          {"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": body["model"],
                           "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}], "usage": usage}]
                payload = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
                ctype = "text/event-stream"
            else:
                payload = json.dumps({"id": "c1", "object": "chat.completion", "created": 0, "model": body["model"],
                                      "choices": [{"index": 0, "finish_reason": "stop",
                                                   "message": {"role": "assistant", "content": text}}],
                                      "usage": usage})
                ctype = "application/json"
            data = payload.encode()
            self.send_response(200)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def _run(env: KumoGymEnv, url: str) -> list:
    """Every task of ``env`` played once against the model at ``url`` (verifiers' own runner path)."""
    ctx = vf.ModelContext(model="scripted", client=vf.EvalClientConfig(base_url=url, api_key_var="KUMO_TEST_KEY"))

    async def main():
        async with env.serving():
            return await asyncio.gather(*(env.run_slot(RunSlot(task), ctx) for task in env.taskset))

    return asyncio.run(asyncio.wait_for(main(), 120))


def test_answer_mode_single_turn_rubric(model_server):
    env = load_environment("kumo_gym/Tents-v0", size=3, difficulty="trivial")
    tasks = list(env.taskset)
    assert [t.data.id for t in tasks] == [r["instance_id"] for r in
                                          kumo_gym.make_dataset("kumo_gym/Tents-v0", 3, "test", difficulty="trivial")]
    model_server.model = ScriptedModel("kumo_gym/Tents-v0", tasks, wrong={tasks[1].data.id})
    episodes = _run(env, f"http://127.0.0.1:{model_server.server_port}/v1")
    by_id = {e.task.data.id: e.traces[0] for e in episodes}
    assert all(e.ok for e in episodes), [e.errors for e in episodes]
    rewards = {i: (t.rewards["puzzle_binary"].score, t.metrics["puzzle_format"]) for i, t in by_id.items()}
    assert rewards == {tasks[0].data.id: (1.0, 1.0), tasks[1].data.id: (0.0, 0.0), tasks[2].data.id: (1.0, 1.0)}
    assert len(model_server.model.requests) == 3  # single turn: one call per task
    # the rollouts run concurrently, so the requests arrive in any order: each task's prompt went out once, verbatim
    last_messages = [r["messages"][-1] for r in model_server.model.requests]
    assert {m["role"] for m in last_messages} == {"user"}
    assert sorted(m["content"] for m in last_messages) == sorted(t.data.prompt_text for t in tasks)


def test_interactive_mode_multi_turn(model_server):
    env = load_environment("kumo_gym/KUMO-v0", size=2, difficulty="easy")
    tasks = list(env.taskset)
    assert {t.data.mode for t in tasks} == {"interactive"}
    solved, unsolved = tasks[0].data.id, tasks[1].data.id
    model_server.model = ScriptedModel("kumo_gym/KUMO-v0", tasks, wrong={unsolved}, difficulty="easy")
    episodes = _run(env, f"http://127.0.0.1:{model_server.server_port}/v1")
    assert all(e.ok for e in episodes), [e.errors for e in episodes]
    traces = {e.task.data.id: e.traces[0] for e in episodes}
    trace = traces[solved]
    assert trace.info["kumo_verdict"]["status"] == "solved"
    assert trace.rewards["puzzle_binary"].score == 1.0 and trace.reward == 1.0 and trace.metrics["puzzle_format"] == 1.0
    # the oracle's episode took several turns: the environment answered every move
    oracle_calls = [r for r in model_server.model.requests
                    if next(m for m in r["messages"] if m["role"] == "user")["content"] == tasks[0].data.prompt_text]
    assert len(oracle_calls) > 1
    # unreadable moves end the episode unsolved, with no reward
    trace = traces[unsolved]
    assert trace.info["kumo_verdict"]["status"] != "solved" and trace.reward == 0.0


def test_load_environment_names_bad_arguments():
    with pytest.raises(kumo_gym.ConfigError, match="is not one of"):
        load_environment("kumo_gym/Nope-v0")
    with pytest.raises(kumo_gym.ConfigError, match="mode 'interactive' is not one of"):
        load_environment("kumo_gym/FineReasonStateChecking-v0", mode="interactive")


def test_plugin_id_resolves_through_verifiers_loaders():
    """verifiers' own config path (``taskset.id = "kumo_gym"``) finds our taskset, env and harness."""
    cfg = vf.resolve_env_config({"taskset": {"id": "kumo_gym", "env_id": "kumo_gym/Tents-v0", "size": 2,
                                             "env_kwargs": {"difficulty": "trivial"}},
                                 "agent": {"runtime": {"type": "subprocess"}}})
    env = vf.load_environment(cfg)
    assert isinstance(env, KumoGymEnv) and type(env._harnesses["agent"]).__name__ == "KumoGymChatHarness"
    direct = load_environment("kumo_gym/Tents-v0", size=2, difficulty="trivial")
    assert [t.data for t in env.taskset] == [t.data for t in direct.taskset]
