"""``kumo-gym serve``: an OpenEnv server on 127.0.0.1, played through the matching client."""
from __future__ import annotations

import json
import urllib.request

import pytest

pytest.importorskip("openenv.core", reason="the [openenv] extra (openenv-core) is not installed")

import gymnasium as gym

import kumo_gym
from kumo_gym.cli import main
from kumo_gym.integrations.openenv import KumoGymAction, KumoGymEnvClient, TRLEnvironment
from kumo_gym.training.agents import OracleAgent

from ._server import start_server


@pytest.fixture(scope="module")
def kumo_server():
    server = start_server("kumo_gym/KUMO-v0", "--difficulty", "easy")
    yield server.url
    server.stop()


def _oracle_mirror(env_id, seed, **kw):
    """The same episode played locally: the oracle's moves, and the local prompt to compare with."""
    local = gym.make(env_id, **kw)
    obs, info = local.reset(seed=seed)
    agent = OracleAgent()
    agent.bind(local.unwrapped)
    return local, agent, obs, info


def test_golden_kumo_episode_through_the_client(kumo_server):
    local, agent, obs, info = _oracle_mirror("kumo_gym/KUMO-v0", 11, difficulty="easy")
    with KumoGymEnvClient(base_url=kumo_server).sync() as client:
        result = client.reset(seed=11)
        o = result.observation
        assert (o.instance_id, o.text, o.mode, o.done) == (info["instance_id"], obs, "interactive", False)
        assert o.messages[-1] == {"role": "user", "content": obs}
        assert "instance" not in json.dumps(o.model_dump()).replace("instance_id", "")  # the truth stays there
        rewards = []
        while not result.done:
            move = agent.reply()
            local_obs, local_reward, *_ = local.step(move)
            result = client.step(KumoGymAction(text=move))
            assert (result.observation.text, result.reward) == (local_obs, local_reward)
            rewards.append(result.reward)
        assert result.observation.verdict["status"] == "solved" and result.reward > 0
        state = client.state()
        assert state.done and state.step_count == len(rewards) and state.total_reward == pytest.approx(sum(rewards))
        assert state.instance_id == info["instance_id"] and state.verdict["status"] == "solved"
        # a move after the end is refused, with the reason
        with pytest.raises(Exception, match="episode has ended"):
            client.step(KumoGymAction(text="anything"))


def test_trl_environment_replays_a_dataset_row(kumo_server):
    row = kumo_gym.make_dataset("kumo_gym/KUMO-v0", 1, seed=4, difficulty="easy")[0]
    env = TRLEnvironment(kumo_server)
    try:
        assert env.reset(**row) is None
        local = gym.make("kumo_gym/KUMO-v0", difficulty="easy")
        local.reset(options={"instance": kumo_gym.get_task("kumo_gym/KUMO-v0").load(row["instance"])})
        agent = OracleAgent()
        agent.bind(local.unwrapped)
        assert env.result.observation.instance_id == row["instance_id"]
        for _ in range(100):
            move = agent.reply()
            local.step(move)
            feedback = env.move(move)
            if env.result.done:
                break
            assert feedback == env.result.observation.text
        assert env.result.observation.verdict["status"] == "solved"
        assert env.get_reward() == pytest.approx(env.client.state().total_reward) and env.get_reward() > 0
        assert env.move("x") == "The episode is over."
    finally:
        env.close()


def test_answer_mode_instance_reset_and_bad_arguments(capsys):
    row = kumo_gym.make_dataset("kumo_gym/Tents-v0", 1, difficulty="trivial", with_golden=True)[0]
    server = start_server("kumo_gym/Tents-v0", "--difficulty", "trivial", "--split", "test")
    url = server.url
    try:
        with KumoGymEnvClient(base_url=url).sync() as client:
            result = client.reset(instance=json.dumps(row["instance"]))
            assert result.observation.instance_id == row["instance_id"]
            assert [m["role"] for m in result.observation.messages] == [m["role"] for m in row["prompt"]]
            result = client.step(KumoGymAction(text=row["golden"]))
            assert result.done and result.reward == 1.0 and result.observation.verdict["status"] == "solved"
            result = client.reset(seed=0)
            result = client.step(KumoGymAction(text="no answer here"))
            assert result.done and result.reward == 0.0 and result.observation.verdict["status"] == "parse_error"
        with urllib.request.urlopen(url + "/schema", timeout=5) as r:
            schema = json.load(r)
        assert "text" in schema["action"]["properties"] and "verdict" in schema["observation"]["properties"]
    finally:
        server.stop()
    # a bad id or kwarg fails before a server starts
    assert main(["serve", "kumo_gym/Nope-v0", "--port", "1"]) == 2
    assert main(["serve", "kumo_gym/Tents-v0", "--difficulty", "insane", "--port", "1"]) == 2
    assert "is not one of" in capsys.readouterr().err


def test_serve_offers_no_inert_seed_flag(capsys):
    """Clients seed their own resets, so ``serve`` has no ``--seed`` that would do nothing."""
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    out = capsys.readouterr().out
    assert "--port" in out and "--seed" not in out
