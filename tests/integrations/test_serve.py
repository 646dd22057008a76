"""``kumo-gym serve`` as trainers use it: hundreds of sessions, capacity, idle sessions, worker
processes, hostile frames and actions, dropped connections, clean logs. Real servers on
127.0.0.1 (a TCP proxy cuts connections), every wait bounded."""
from __future__ import annotations

import asyncio
import http.client
import json
import re
import threading
import time
import urllib.error
import urllib.request

import pytest

pytest.importorskip("openenv.core", reason="the [openenv] extra (openenv-core) is not installed")

import gymnasium as gym
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

import kumo_gym
from kumo_gym.cli import main
from kumo_gym.core.registry import entries, get_task
from kumo_gym.integrations.openenv import (
    EpisodeLost,
    KumoGymAction,
    KumoGymEnvClient,
    KumoGymObservation,
    KumoGymState,
    ServerAtCapacity,
    ServerError,
    TRLEnvironment,
)
from kumo_gym.integrations.serving import CLOSE_IDLE, DEFAULT_MAX_SESSIONS, ECHO_KEEP, Session, Settings, check_settings
from kumo_gym.training.agents import OracleAgent
from kumo_gym.wrappers.chat import ChatEnv

from ._server import Proxy, start_server

KUMO = "kumo_gym/KUMO-v0"
LIMIT = 4  # the fault server's session limit


@pytest.fixture(scope="module")
def kumo():
    """KUMO easy, one process, a small session limit; its log must hold no traceback at the end."""
    server = start_server(KUMO, "--difficulty", "easy", "--max-sessions", str(LIMIT))
    yield server
    log = server.stop()
    assert "Traceback" not in log and "Exception in ASGI" not in log, log[-3000:]


@pytest.fixture(scope="module")
def kumo_workers():
    """KUMO easy with two worker processes, every other setting at its default."""
    server = start_server(KUMO, "--difficulty", "easy", "--workers", "2")
    yield server
    server.stop()


@pytest.fixture(scope="module")
def tents_idle():
    """Tents easy (answer mode), two workers sharing a limit of 2 sessions, idle sessions closed after 2 s."""
    server = start_server("kumo_gym/Tents-v0", "--difficulty", "easy", "--workers", "2", "--max-sessions", "2",
                          "--idle-timeout", "2")
    yield server
    server.stop()


@pytest.fixture
def proxy(kumo):
    p = Proxy(kumo.port)
    yield p
    p.close()


def _health(url: str) -> dict:
    with urllib.request.urlopen(url + "/health", timeout=30) as r:
        return json.load(r)


def _wait(predicate, seconds: float = 30.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def _local(seed: int, env_id: str = KUMO, **kw):
    """The same episode in this process, with the oracle bound to it."""
    chat = ChatEnv(gym.make(env_id, difficulty="easy", **kw))
    _, info = chat.reset(seed=seed)
    agent = OracleAgent()
    agent.bind(chat.unwrapped)
    return chat, agent, info


async def _ask(ws, message) -> dict:
    await ws.send(message if isinstance(message, (str, bytes)) else json.dumps(message))
    return json.loads(await asyncio.wait_for(ws.recv(), 60))


# --- capacity -----------------------------------------------------------------------------------

def test_default_limit_serves_256_concurrent_sessions_across_two_workers(kumo_workers):
    """The default limit (>= 256) with two worker processes: 256 sessions open at once, each plays
    a reset and a step, none refused; the count is shared, and both workers serve."""
    assert DEFAULT_MAX_SESSIONS >= 256

    async def run():
        sockets = await asyncio.gather(*(connect(kumo_workers.ws_url, open_timeout=120) for _ in range(256)))
        try:
            health = _health(kumo_workers.url)
            assert health["sessions"] == 256 and health["max_sessions"] == DEFAULT_MAX_SESSIONS
            resets = await asyncio.gather(*(_ask(ws, {"type": "reset", "data": {"seed": i}})
                                            for i, ws in enumerate(sockets)))
            steps = await asyncio.gather(*(_ask(ws, {"type": "step", "data": {"text": "no such move"}})
                                           for ws in sockets))
        finally:
            await asyncio.gather(*(ws.close() for ws in sockets))
        return resets, steps

    resets, steps = asyncio.run(run())
    assert all(r["type"] == "observation" for r in resets + steps), [r for r in resets + steps if r["type"] != "observation"][:2]
    assert all(not s["data"]["done"] and s["data"]["observation"]["status"] for s in steps)
    assert _wait(lambda: _health(kumo_workers.url)["sessions"] == 0)
    pids = {_health(kumo_workers.url)["pid"] for _ in range(40)}  # a new connection each time
    assert len(pids) == 2


def test_at_capacity_a_client_gets_503_with_retry_after_or_waits(kumo):
    clients = [KumoGymEnvClient(base_url=kumo.url).sync() for _ in range(LIMIT)]
    for c in clients:
        c.connect()
    try:
        async def refused():
            with pytest.raises(InvalidStatus) as e:
                await connect(kumo.ws_url)
            return e.value.response

        response = asyncio.run(refused())
        assert response.status_code == 503 and response.headers["Retry-After"] == "1"
        assert json.loads(response.body)["code"] == "CAPACITY_REACHED"
        t = time.monotonic()
        with pytest.raises(ServerAtCapacity, match=f"server at capacity: {LIMIT} of {LIMIT} sessions.*wait_for_capacity_s"):
            KumoGymEnvClient(base_url=kumo.url).sync().connect()
        assert time.monotonic() - t < 10  # at once, not after retries
        with pytest.raises(ServerAtCapacity):
            TRLEnvironment(kumo.url)
        # a client that waits gets in when a place frees up
        waiting = KumoGymEnvClient(base_url=kumo.url, wait_for_capacity_s=60).sync()
        done = threading.Event()
        threading.Thread(target=lambda: (waiting.connect(), done.set()), daemon=True).start()
        time.sleep(1.5)
        assert not done.is_set()
        clients.pop().close()
        assert done.wait(30)
        assert waiting.reset(seed=1).observation.instance_id
        clients.append(waiting)
    finally:
        for c in clients:
            c.close()
    assert _wait(lambda: _health(kumo.url)["sessions"] == 0)


def test_the_limit_counts_sessions_across_worker_processes(tents_idle):
    """Two workers, a limit of 2: of many sessions opened at once (both processes accept), exactly
    2 are let in, and further attempts are refused whichever process the kernel hands them to."""
    async def attempt():
        try:
            return await connect(tents_idle.ws_url, open_timeout=60)
        except InvalidStatus as e:
            assert e.response.status_code == 503
            return None

    async def run():
        opened = await asyncio.gather(*(attempt() for _ in range(24)))
        held = [ws for ws in opened if ws is not None]
        keep = True

        async def keepalive(ws):  # the idle timeout (2 s) must not free a place meanwhile
            while keep:
                await _ask(ws, {"type": "state"})
                await asyncio.sleep(0.3)

        tasks = [asyncio.create_task(keepalive(ws)) for ws in held]
        try:
            later = [await attempt() for _ in range(6)]
        finally:
            keep = False
            await asyncio.gather(*tasks)
            for ws in held + [ws for ws in later if ws is not None]:
                await ws.close()
        return len(held), later

    held, later = asyncio.run(run())
    assert held == 2 and later == [None] * 6


# --- idle sessions ------------------------------------------------------------------------------

def test_an_idle_session_is_closed_with_4408_and_the_client_says_so(tents_idle):
    client = KumoGymEnvClient(base_url=tents_idle.url, retries=2, backoff_s=0.1).sync()
    client.connect()
    try:
        client.reset(seed=0)
        time.sleep(3.5)  # idle timeout 2 s
        with pytest.raises(EpisodeLost, match="4408.*idle for more than 2 s") as e:
            client.step(KumoGymAction(text="anything"))
        assert e.value.close_code == CLOSE_IDLE
        with pytest.raises(EpisodeLost):  # still lost: never replayed on a new session
            client.step(KumoGymAction(text="anything"))
        result = client.reset(seed=0)  # reconnects
        assert not result.done and client.state().step_count == 0
        # a session reaped between episodes costs nothing: the next reset reconnects quietly
        client.step(KumoGymAction(text="no answer"))
        time.sleep(3.5)
        assert client.reset(seed=1).observation.instance_id
    finally:
        client.close()
    assert "idle for more than 2 s" in tents_idle.log()


def test_reaping_idle_sessions_frees_their_places(tents_idle):
    async def run():
        idle = [await connect(tents_idle.ws_url) for _ in range(2)]  # the limit, sending nothing
        with pytest.raises(InvalidStatus):
            await connect(tents_idle.ws_url)
        waiting = KumoGymEnvClient(base_url=tents_idle.url, wait_for_capacity_s=30)
        t = time.monotonic()
        await waiting.connect()
        waited = time.monotonic() - t
        result = await waiting.reset(seed=2)
        await waiting.close()
        for ws in idle:
            with pytest.raises(ConnectionClosed) as e:
                await ws.recv()
            assert e.value.rcvd.code == CLOSE_IDLE and "idle" in e.value.rcvd.reason
        return waited, result

    waited, result = asyncio.run(run())
    assert 0.5 < waited < 30 and result.observation.instance_id


# --- no input breaks a session ------------------------------------------------------------------

BAD_FRAMES = [
    ("[1, 2]", "VALIDATION_ERROR", "must be a JSON object.*got an array"),
    ("null", "VALIDATION_ERROR", "got null"),
    ("123", "VALIDATION_ERROR", "got a number"),
    ('"reset"', "VALIDATION_ERROR", "got a string"),
    (b'{"type": "reset"}', "INVALID_JSON", "binary frames"),
    ("[" * 100_000 + "]" * 100_000, "INVALID_JSON", "nested too deeply"),
    ('{"type": "reset", "data": {"instance": ' + "[" * 100_000 + "]" * 100_000 + "}}", "INVALID_JSON", "nested too deeply"),
    ("{not json", "INVALID_JSON", "invalid JSON"),
    ('{"type": "stepp", "data": {"text": "x"}}', "UNKNOWN_TYPE", "type 'stepp' \\(did you mean 'step'\\?\\).*reset, step, state, close"),
    ('{"type": "mcp", "data": {}}', "UNKNOWN_TYPE", "type 'mcp'"),
    ('{"data": {}}', "UNKNOWN_TYPE", "no 'type' key"),
    ('{"type": ["reset"]}', "UNKNOWN_TYPE", "type \\['reset'\\]"),
    ('{"type": "reset", "data": {"sed": 1}}', "VALIDATION_ERROR", "unknown key 'sed' \\(did you mean 'seed'\\?\\)"),
    ('{"type": "reset", "date": {"seed": 1}}', "VALIDATION_ERROR", "unknown key 'date'"),
    ('{"type": "reset", "data": [1]}', "VALIDATION_ERROR", "'data' must be a JSON object; got an array"),
    ('{"type": "reset", "data": {"seed": "1"}}', "VALIDATION_ERROR", "'seed'.*got a string"),
    ('{"type": "reset", "data": {"seed": -1}}', "VALIDATION_ERROR", "'seed'.*greater than or equal to 0"),
    ('{"type": "reset", "data": {"seed": true}}', "VALIDATION_ERROR", "'seed'.*got a boolean"),
    ('{"type": "reset", "data": {"instance": "{\\"family\\": 1}"}}', "VALIDATION_ERROR", "bad instance for kumo_gym/KUMO-v0"),
    ('{"type": "step", "data": {"txt": "x"}}', "VALIDATION_ERROR", "unknown key 'txt' \\(did you mean 'text'\\?\\).*missing key 'text'"),
    ('{"type": "step", "data": {"text": 5}}', "VALIDATION_ERROR", "'text'.*valid string.*got a number"),
    ('{"type": "step", "data": {"text": "x", "finish_reason": ["length"]}}', "VALIDATION_ERROR", "'finish_reason'"),
    ('{"type": "state", "data": {"x": 1}}', "VALIDATION_ERROR", "takes no data"),
    ('{"type": "x' + "y" * 5_000_000 + '"}', "UNKNOWN_TYPE", "unknown message"),
]


def test_any_frame_gets_an_error_naming_the_problem_and_the_session_survives(kumo):
    async def run():
        async with connect(kumo.ws_url, max_size=2**26) as ws:
            first = await _ask(ws, {"type": "reset", "data": {"seed": 5}})
            step = await _ask(ws, {"type": "step", "data": {"text": "not a move"}})
            replies = [await _ask(ws, frame) for frame, _, _ in BAD_FRAMES]
            state = await _ask(ws, {"type": "state"})
            again = await _ask(ws, {"type": "reset", "data": {"seed": 5}})
            return first, step, replies, state, again

    first, step, replies, state, again = asyncio.run(run())
    for (frame, code, pattern), reply in zip(BAD_FRAMES, replies):
        assert reply["type"] == "error" and reply["data"]["code"] == code, (frame[:60], reply)
        assert re.search(pattern, reply["data"]["message"]), (frame[:60], reply)
        assert len(reply["data"]["message"]) < 500  # never echoes a megabyte
    # the episode went on through all of it: one step counted, the same instance on a new reset
    assert state["type"] == "state" and state["data"]["step_count"] == 1 and not state["data"]["done"]
    assert again["data"]["observation"]["instance_id"] == first["data"]["observation"]["instance_id"]
    assert step["data"]["observation"]["status"] and not step["data"]["done"]


def test_misspelled_reset_keys_are_errors_not_a_random_instance(kumo):
    with KumoGymEnvClient(base_url=kumo.url).sync() as client:
        with pytest.raises(ServerError, match="unknown key 'sed'") as e:
            client.reset(sed=1)
        assert e.value.code == "VALIDATION_ERROR"
        assert client.reset(seed=1).observation.instance_id == client.reset(seed=1).observation.instance_id


def test_hostile_actions_are_answered_and_the_episode_goes_on_as_in_process(kumo):
    """A lone surrogate, NULs and 10 MB: each reply serialises, the invalid-move policy answers it
    exactly as in-process, and the oracle then solves the episode."""
    seed = next(s for s in range(7, 60) if _oracle_moves(s) >= 2)  # room for a hostile move after a good one
    chat, agent, info = _local(seed)
    hostile = ["answer \udc80", "\x00" * 10 + "test \ud800", "x" * 10_000_000]
    with KumoGymEnvClient(base_url=kumo.url, max_message_size_mb=200).sync() as client:
        assert client.reset(seed=seed).observation.instance_id == info["instance_id"]
        steps = 0
        for move in [hostile[0], hostile[1], agent.reply, hostile[2], agent.reply]:  # never 3 invalid in a row
            move = move() if callable(move) else move
            _, local_reward, term, trunc, local_info = chat.step(move)
            result = client.step(KumoGymAction(text=move))
            steps += 1
            o = result.observation
            assert (o.text, result.reward, o.status, result.done) == (local_info["feedback"], local_reward,
                                                                      local_info["status"], term or trunc)
            assert len(json.dumps(o.model_dump())) < 200_000
            if move in hostile:
                assert not result.done
                echoed = o.messages[-2]["content"]  # the reply as the conversation carries it
                assert "\udc80" not in echoed and "\ud800" not in echoed
                assert move[:100].replace("\udc80", "\ufffd").replace("\ud800", "\ufffd")[:100] == echoed[:100]
            elif result.done:
                break
        while not result.done:
            move = agent.reply()
            chat.step(move)
            result = client.step(KumoGymAction(text=move))
            steps += 1
        assert result.observation.verdict["status"] == "solved"
        state = client.state()
        assert state.step_count == steps and state.done


def _oracle_moves(seed: int) -> int:
    chat, agent, _ = _local(seed)
    n, done = 0, False
    while not done:
        *_, term, trunc, _ = chat.step(agent.reply())
        n, done = n + 1, term or trunc
    return n


def test_a_lone_surrogate_answer_is_scored_and_its_reward_delivered(tents_idle):
    with KumoGymEnvClient(base_url=tents_idle.url).sync() as client:
        client.reset(seed=0)
        result = client.step(KumoGymAction(text="answer \udc80 [[0]]"))
        assert result.done and result.reward == 0.0 and result.observation.verdict["status"] == "parse_error"
        assert result.observation.messages[-1]["content"] == "answer \ufffd [[0]]"
        state = client.state()
        assert state.step_count == 1 and state.done and state.total_reward == 0.0


def test_long_replies_are_cut_in_the_echoed_conversation(kumo):
    _, agent, _ = _local(3)
    long_reply = "head " + "y" * 5_000_000 + " tail"

    async def run():
        async with connect(kumo.ws_url, max_size=2**26) as ws:
            await _ask(ws, {"type": "reset", "data": {"seed": 3}})
            await ws.send(json.dumps({"type": "step", "data": {"text": long_reply}}))
            raw_long = await asyncio.wait_for(ws.recv(), 60)
            await ws.send(json.dumps({"type": "step", "data": {"text": agent.reply()}}))
            raw_next = await asyncio.wait_for(ws.recv(), 60)
            return raw_long, raw_next

    raw_long, raw_next = asyncio.run(run())
    assert len(raw_long) < 100_000 and len(raw_next) < 100_000  # not 5 MB, now or later in the episode
    echoed = json.loads(raw_next)["data"]["observation"]["messages"][-4]
    assert echoed["role"] == "assistant" and "characters cut here" in echoed["content"]
    assert echoed["content"].startswith(long_reply[:ECHO_KEEP]) and echoed["content"].endswith(long_reply[-ECHO_KEEP:])
    assert f"{len(long_reply) - 2 * ECHO_KEEP:,} characters cut" in echoed["content"]


@pytest.mark.parametrize("env_id,mode", [(e.id, m) for e in entries() for m in e.modes])
def test_every_environment_answers_hostile_actions_with_a_reply_that_serialises(env_id, mode):
    """Registry-wide, in-process (the code the server runs per frame), every mode: whatever the
    action text, the reply is valid UTF-8 JSON of bounded size, an observation of a step that
    counted; and a reset by the instance's JSON replays the instance."""
    presets = list(get_task(env_id).difficulties)[:1]
    kw = check_settings(env_id, {"mode": mode, **({"difficulty": presets[0]} if presets else {})})
    session = Session(Settings(env_id=env_id, env_kwargs=kw))
    first = json.loads(session.handle(json.dumps({"type": "reset", "data": {"seed": 0}}))[0])
    instance = session.chat.unwrapped.instance.to_json()
    for bad in ["\udc80", "\x00" * 100, "[" * 100_000, "🙂\ud800" * 1000, "z" * 1_000_000]:
        reset = json.loads(session.handle(json.dumps({"type": "reset", "data": {"instance": instance}}))[0])
        assert reset["data"]["observation"]["instance_id"] == first["data"]["observation"]["instance_id"]
        reply, close = session.handle(json.dumps({"type": "step", "data": {"text": bad}}))
        reply.encode("utf-8")  # valid UTF-8
        parsed = json.loads(reply)
        assert not close and parsed["type"] == "observation" and len(reply) < 300_000, parsed
        assert session.state["step_count"] == 1 and parsed["data"]["observation"]["status"]


# --- clients that recover -----------------------------------------------------------------------

def test_a_dropped_connection_loses_the_episode_and_the_next_one_runs(kumo, proxy):
    client = KumoGymEnvClient(base_url=proxy.url, retries=3, backoff_s=0.05).sync()
    client.connect()
    try:
        client.reset(seed=11)
        assert not client.step(KumoGymAction(text="not a move")).done
        proxy.drop()  # the network cuts the connection mid-episode
        with pytest.raises(EpisodeLost, match="1006.*does not replay") as e:
            client.step(KumoGymAction(text="anything"))
        assert e.value.close_code == 1006
        with pytest.raises(EpisodeLost):
            client.step(KumoGymAction(text="anything"))
        assert proxy.accepted == 1  # lost, not silently replayed on a new session
        chat, agent, info = _local(12)
        result = client.reset(seed=12)
        assert proxy.accepted == 2 and result.observation.instance_id == info["instance_id"]
        while not result.done:
            move = agent.reply()
            chat.step(move)
            result = client.step(KumoGymAction(text=move))
        assert result.observation.verdict["status"] == "solved"
    finally:
        client.close()


def test_a_drop_while_a_step_is_in_flight_is_reported_never_resent(kumo, proxy):
    client = KumoGymEnvClient(base_url=proxy.url, retries=3, backoff_s=0.05).sync()
    client.connect()
    try:
        client.reset(seed=4)
        proxy.drop_on_next_upload()
        with pytest.raises(EpisodeLost):
            client.step(KumoGymAction(text="test something"))
        assert proxy.accepted == 1
        assert client.reset(seed=4).observation.instance_id and proxy.accepted == 2
        assert client.state().step_count == 0
    finally:
        client.close()


def test_trl_environment_loses_one_episode_at_most(kumo, proxy):
    rows = kumo_gym.make_dataset(KUMO, 2, seed=9, difficulty="easy")
    env = TRLEnvironment(proxy.url, retries=3, backoff_s=0.05)
    try:
        env.reset(**rows[0])
        env.move("not a move")
        proxy.drop()
        lost = env.move("anything")
        assert "lost" in lost and "over" in lost and env.lost and "1006" in env.lost
        assert env.move("again") == lost
        assert env.get_reward() == 0.0
        env.reset(**rows[1])  # the next rollout: a new session
        assert env.lost is None
        local = gym.make(KUMO, difficulty="easy")
        local.reset(options={"instance": kumo_gym.get_task(KUMO).load(rows[1]["instance"])})
        agent = OracleAgent()
        agent.bind(local.unwrapped)
        for _ in range(100):
            move = agent.reply()
            local.step(move)
            env.move(move)
            if env.result.done:
                break
        assert env.result.observation.verdict["status"] == "solved" and env.get_reward() > 0
    finally:
        env.close()


def test_killed_workers_cost_one_episode_and_their_places_come_back(tents_idle):
    """Both worker processes killed mid-episode (SIGKILL): the supervisor starts new ones, each
    client reports its episode lost, reconnects (retrying while the workers start) and plays, and
    the dead workers' places are free again (the limit is 2, both clients get in)."""
    import os
    import signal
    from pathlib import Path

    def workers() -> list[int]:
        pids = []
        for entry in Path("/proc").iterdir():
            try:
                stat = (entry / "stat").read_text()
                if (entry.name.isdigit() and int(stat.rsplit(")", 1)[1].split()[1]) == tents_idle.proc.pid
                        and b"spawn_main" in (entry / "cmdline").read_bytes()):
                    pids.append(int(entry.name))
            except OSError:
                continue
        return pids

    clients = [KumoGymEnvClient(base_url=tents_idle.url, retries=10, backoff_s=0.5).sync() for _ in range(2)]
    try:
        for c in clients:
            c.connect()
            c.reset(seed=1)
        old = workers()
        assert len(old) == 2
        for pid in old:
            os.kill(pid, signal.SIGKILL)
        for c in clients:
            with pytest.raises(EpisodeLost):
                c.step(KumoGymAction(text="no answer"))
        for c in clients:  # new sessions on new workers, in the two places the dead ones held
            assert c.reset(seed=2).observation.instance_id
            assert c.step(KumoGymAction(text="no answer")).done
        assert set(workers()).isdisjoint(old)
    finally:
        for c in clients:
            c.close()


def test_trl_environment_offers_the_model_only_its_move():
    """TRL makes every public method but reset and get_reward a tool: closing is not one."""
    import inspect

    tools = {name for name, _ in inspect.getmembers(TRLEnvironment, inspect.isfunction)
             if name not in ("reset", "get_reward") and not name.startswith("_")}
    assert tools == {"move"}


def test_connection_attempts_are_retried_with_backoff_and_bounded(kumo, proxy):
    proxy.refuse(2)
    client = KumoGymEnvClient(base_url=proxy.url, retries=4, backoff_s=0.05).sync()
    try:
        client.connect()
        assert proxy.accepted == 3 and client.reset(seed=0).observation.instance_id
    finally:
        client.close()
    proxy.refuse(1000)
    t = time.monotonic()
    with pytest.raises(ConnectionError, match="3 attempts"):
        KumoGymEnvClient(base_url=proxy.url, retries=2, backoff_s=0.05).sync().connect()
    assert time.monotonic() - t < 30
    assert proxy.accepted == 6  # the first attempt and two retries, then it stops


# --- determinism through the server ------------------------------------------------------------

def test_episodes_through_two_workers_replay_identically_in_process(kumo_workers):
    """Eight concurrent sessions, three episodes each (the oracle's moves and one junk move),
    against the same episodes in this process: same instances, feedback, rewards and statuses."""
    seeds = [[8 * k + i for k in range(3)] for i in range(8)]

    def expected(seed):
        chat, agent, info = _local(seed)
        steps, done, moves = [], False, []
        while not done:
            move = "zz" if len(moves) == 1 else agent.reply()
            _, reward, term, trunc, step_info = chat.step(move)
            done = term or trunc
            moves.append(move)
            status = step_info.get("status", (step_info.get("verdict") or {}).get("status"))
            steps.append((step_info["feedback"], reward, status, done))
        return info["instance_id"], moves, steps

    plans = {s: expected(s) for row in seeds for s in row}

    async def play(row):
        got = {}
        async with KumoGymEnvClient(base_url=kumo_workers.url) as client:
            for seed in row:
                first = await client.reset(seed=seed)
                steps = []
                for move in plans[seed][1]:
                    r = await client.step(KumoGymAction(text=move))
                    steps.append((r.observation.text, r.reward, r.observation.status, r.done))
                got[seed] = (first.observation.instance_id, plans[seed][1], steps)
        return got

    async def run():
        return await asyncio.gather(*(play(row) for row in seeds))

    for got in asyncio.run(run()):
        for seed, result in got.items():
            assert result == plans[seed], seed


# --- plain HTTP, schema, logs -------------------------------------------------------------------

def test_plain_http_step_answers_409_and_keeps_the_connection(kumo):
    conn = http.client.HTTPConnection("127.0.0.1", kumo.port, timeout=30)
    try:
        conn.request("POST", "/step", body=json.dumps({"action": {"text": "x"}}),
                     headers={"Content-Type": "application/json"})
        r = conn.getresponse()
        body = json.loads(r.read())
        assert r.status == 409 and "WebSocket" in body["detail"] and "/ws" in body["detail"]
        conn.request("GET", "/health")  # the same keep-alive connection
        r = conn.getresponse()
        assert r.status == 200 and json.loads(r.read())["status"] == "healthy"
        conn.request("POST", "/reset", body=json.dumps({"seed": 2}))
        r = conn.getresponse()
        reset = json.loads(r.read())
        assert r.status == 200 and reset["observation"]["instance_id"] == _local(2)[2]["instance_id"]
        conn.request("POST", "/reset", body=json.dumps({"sed": 2}))
        r = conn.getresponse()
        assert r.status == 422 and "did you mean 'seed'" in json.loads(r.read())["detail"]
    finally:
        conn.close()


def test_schema_and_get_state_describe_the_documented_types(kumo):
    with urllib.request.urlopen(kumo.url + "/schema", timeout=30) as r:
        schema = json.load(r)
    assert set(schema["action"]["properties"]) == set(KumoGymAction.model_json_schema()["properties"])
    assert set(schema["observation"]["properties"]) == set(KumoGymObservation.model_json_schema()["properties"])
    assert set(schema["state"]["properties"]) == set(KumoGymState.model_json_schema()["properties"]) == {
        "episode_id", "step_count", "env_id", "instance_id", "mode", "done", "total_reward", "verdict"}
    with urllib.request.urlopen(kumo.url + "/state", timeout=30) as r:
        state = json.load(r)
    assert state == {"episode_id": None, "step_count": 0, "env_id": KUMO, "instance_id": "", "mode": "interactive",
                     "done": False, "total_reward": 0.0, "verdict": None}
    with urllib.request.urlopen(kumo.url + "/metadata", timeout=30) as r:
        assert json.load(r)["name"] == KUMO


def test_openenv_validator_passes_and_its_generic_client_plays(kumo):
    """OpenEnv's own runtime validator (``openenv validate --url``) and its ``GenericEnvClient``."""
    from openenv.cli._validation import validate_running_environment
    from openenv.core.generic_client import GenericEnvClient

    report = validate_running_environment(kumo.url, timeout_s=30)
    assert report["passed"] and report["mode"] == "simulation", [c for c in report["criteria"] if not c["passed"]]
    assert report["standard_profile"] == "openenv-http/1.x"
    chat, agent, info = _local(6)
    with GenericEnvClient(base_url=kumo.url).sync() as env:
        result = env.reset(seed=6)
        assert result.observation["instance_id"] == info["instance_id"]
        while not result.done:
            move = agent.reply()
            chat.step(move)
            result = env.step({"text": move})
        assert result.observation["verdict"]["status"] == "solved" and env.state()["done"]


def test_logs_say_one_line_per_abnormal_close_and_nothing_for_normal_ones(kumo, proxy):
    before = len(kumo.log())
    for _ in range(2 * LIMIT):  # normal ends: the client's close message, a close frame
        with KumoGymEnvClient(base_url=kumo.url).sync() as client:
            client.reset(seed=0)

    async def run():
        for _ in range(LIMIT):
            async with connect(kumo.ws_url) as ws:
                await _ask(ws, {"type": "state"})
        ws = await connect(kumo.ws_url)
        await ws.send(b"\xff\xfe not UTF-8", text=True)  # RFC 6455: the server must close (1007)
        with pytest.raises(ConnectionClosed):
            await asyncio.wait_for(ws.recv(), 30)

    asyncio.run(run())
    client = KumoGymEnvClient(base_url=proxy.url).sync()
    client.connect()
    client.reset(seed=0)
    proxy.drop()  # the client vanishes without a close frame
    assert _wait(lambda: _health(kumo.url)["sessions"] == 0)
    client.close()
    time.sleep(0.5)
    new = kumo.log()[before:]
    lines = [line for line in new.splitlines() if line.strip()]
    assert len(lines) == 2, new
    assert any("dropped without a close frame" in line for line in lines) and any("1007" in line for line in lines)
    assert "Traceback" not in new


def test_serve_help_names_the_capacity_and_worker_options(capsys):
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert f"(default {DEFAULT_MAX_SESSIONS})" in out and "--workers" in out and "--idle-timeout" in out
    assert "4408" in out and "503" in out
