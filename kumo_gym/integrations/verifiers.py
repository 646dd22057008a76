"""Any registered environment as a ``verifiers`` environment (Prime Intellect's ``verifiers``).

:func:`load_environment` returns a ``verifiers.v1`` environment (``vf.Env``) whose taskset holds
``size`` instances of a kumo_gym environment, as prime-rl and ``verifiers``' eval runner consume
them::

    from kumo_gym.integrations.verifiers import load_environment
    env = load_environment("kumo_gym/Tents-v0", size=100, difficulty="easy")

The pieces, in ``verifiers``' own terms (``verifiers`` 0.4 is the ``verifiers.v1`` stack: a
taskset, a task's ``@vf.reward`` functions, an ``Env`` that plays an episode, a harness that
talks to the model; its 0.3 ``SingleTurnEnv``/``MultiTurnEnv`` classes are gone):

* :class:`KumoGymTaskset` yields one :class:`KumoGymTask` per instance: the prompt is the environment's
  opening (its system part as the system prompt), and the task data carries the environment id,
  its kwargs, the mode and the instance (JSON).
* :class:`KumoGymTask`'s rubric is our reward functions (:mod:`kumo_gym.training.rewards`):
  ``puzzle_binary`` (weight 1: 1 iff solved) is the reward, ``puzzle_partial`` (the fraction of the
  puzzle's constraints met) and ``puzzle_format`` (1 iff an answer could be read) are metrics.
* :class:`KumoGymEnv` plays the episode. **Answer mode** is single-turn: the model's one reply is
  scored as a completion. **Interactive mode** is multi-turn: the environment plays the user, each
  reply is a move, the feedback comes back as the next user turn until the episode ends, and the
  rubric reads the played verdict (as TRL's multi-turn rollouts pass it, ``kumo_verdict``).
* :class:`KumoGymChatHarness` is the model's side: a plain chat loop that runs inside this process
  (no sandbox, no downloaded program), every model call going through ``verifiers``'
  interception endpoint as the harness contract asks.

The taskset and harness are registered with ``verifiers``' plug-in loader under the id
``kumo_gym`` when this module is imported. Needs ``pip install 'kumo-gym[verifiers]'``.
"""
from __future__ import annotations

import json
import sys
from typing import Any

from ..core.deprecation import renamed
from ..core.errors import ConfigError
from ..core.verdict import Verdict
from . import require

require("verifiers.v1", "verifiers", "kumo_gym.integrations.verifiers")

import verifiers.v1 as vf
from pydantic import Field
from verifiers.v1.runtimes import ProgramResult, SubprocessConfig

#: the plug-in id under which verifiers' loaders find this module's taskset and harness
PLUGIN_ID = "kumo_gym"


# ---------------------------------------------------------------------------------------------
# taskset and task
# ---------------------------------------------------------------------------------------------
class KumoGymTasksetConfig(vf.TasksetConfig):
    """Which instances: ``size`` items of ``env_id`` with ``env_kwargs``, ``split`` and ``seed``
    (the items ``kumo_gym.make_dataset`` gives for the same arguments)."""

    env_id: str = "kumo_gym/Hanoi-v0"
    env_kwargs: dict[str, Any] = Field(default_factory=dict)
    size: int = 100
    split: str = "test"
    seed: int = 0


class KumoGymData(vf.TaskData):
    env_id: str
    env_kwargs: dict[str, Any] = Field(default_factory=dict)
    split: str = "test"
    mode: str = "answer"
    instance: str
    """The instance as JSON text (``kumo_gym.score(env_id, instance, text)`` reads it)."""


def _verdict(task_data: KumoGymData, trace) -> Verdict:
    """The episode's verdict: the one the environment played (interactive mode), else the
    final reply scored as a completion (answer mode)."""
    from ..training.rewards import score_row

    played = trace.info.get("kumo_verdict")
    return score_row(task_data.env_id, task_data.instance, trace.last_reply, played)


class KumoGymTask(vf.Task[KumoGymData, vf.State, vf.TaskConfig]):
    """One kumo_gym instance; its rubric is our reward functions."""

    @property
    def key(self) -> str:
        return f"{self.data.env_id}:{self.data.split}:{self.data.id}"

    @vf.reward(weight=1.0)
    async def puzzle_binary(self, task: KumoGymData, trace) -> float:
        from ..training.rewards import verdict_reward

        return verdict_reward(_verdict(task, trace), "binary")

    @vf.metric
    async def puzzle_partial(self, task: KumoGymData, trace) -> float:
        from ..training.rewards import verdict_reward

        return verdict_reward(_verdict(task, trace), "partial")

    @vf.metric
    async def puzzle_format(self, task: KumoGymData, trace) -> float:
        from ..training.rewards import verdict_reward

        return verdict_reward(_verdict(task, trace), "format")


class KumoGymTaskset(vf.Taskset[KumoGymTask, KumoGymTasksetConfig]):
    def load(self):
        from ..core.registry import entry
        from ..training.data import ENV_ONLY, RecordMaker, generate_instances
        from ..wrappers.chat import message_text

        c = self.config
        env_id = entry(c.env_id).id
        kw = dict(c.env_kwargs)
        if kw.get("observation", "text") != "text":
            raise ConfigError("the verifiers environment sends text prompts; drop observation="
                              f"{kw['observation']!r} from env_kwargs")
        maker = RecordMaker(env_id, kw, c.split, "conversational")
        try:
            insts = generate_instances(env_id, c.size, split=c.split, seed=c.seed,
                                       env_kwargs={k: v for k, v in kw.items() if k not in ENV_ONLY})
            for inst in insts:
                if c.split == "train":
                    maker.task.check_trainable(inst)
                messages, _ = maker.opening(inst)
                system = "\n\n".join(message_text(m["content"]) for m in messages if m["role"] == "system")
                user = [{"role": m["role"], "content": message_text(m["content"])} for m in messages
                        if m["role"] != "system"]
                yield KumoGymTask(KumoGymData(
                    id=inst.instance_id, name=f"{env_id}#{inst.instance_id}", prompt=user,
                    system_prompt=system or None, env_id=env_id, env_kwargs=kw, split=c.split, mode=maker.mode,
                    instance=json.dumps(inst.to_dict(), sort_keys=True)), c.task)
        finally:
            maker.close()


# ---------------------------------------------------------------------------------------------
# the model's side: an in-process chat harness
# ---------------------------------------------------------------------------------------------
class KumoGymChatHarnessConfig(vf.HarnessConfig):
    pass


class KumoGymChatHarness(vf.Harness[KumoGymChatHarnessConfig]):
    """One chat completion per segment, sent from this process to the interception endpoint
    (the harness contract allows an in-process loop); the trace records the call."""

    APPENDS_SYSTEM_PROMPT = True
    SUPPORTS_RESUME = True
    EXECUTES_CODE = False
    NEEDS_CONTAINER = False

    async def launch(self, ctx, trace, runtime, endpoint: str, secret: str, mcp_urls, data,
                     tool_interception_url: str | None = None) -> ProgramResult:
        from openai import AsyncOpenAI
        from verifiers.v1.dialects.chat import message_to_wire

        system, prompt = self.resolve_prompt(data)
        messages = [{"role": "system", "content": system}] if system else []
        if isinstance(prompt, str):
            messages.append({"role": "user", "content": prompt})
        else:
            messages += [message_to_wire(m) for m in prompt or []]
        async with AsyncOpenAI(base_url=endpoint, api_key=secret, max_retries=2) as client:
            try:
                await client.chat.completions.create(model=ctx.model, messages=messages)
            except Exception as e:  # noqa: BLE001 - the failure is the program's exit, as for a launched one
                return ProgramResult(exit_code=1, stdout="", stderr=f"{type(e).__name__}: {e}")
        return ProgramResult(exit_code=0, stdout="", stderr="")


# ---------------------------------------------------------------------------------------------
# the environment: single-turn (answer mode) or multi-turn (interactive mode)
# ---------------------------------------------------------------------------------------------
class KumoGymEnvConfig(vf.EnvConfig):
    agent: vf.AgentConfig = vf.AgentConfig()


class KumoGymEnv(vf.Env[KumoGymEnvConfig]):
    """Plays one kumo_gym episode per task: one reply in answer mode; in interactive mode the
    environment answers every move until the episode ends."""

    async def run(self, task: KumoGymTask, agents) -> None:
        data = task.data
        if data.mode == "answer":
            await agents.agent.run(task)
            return
        import gymnasium as gym

        import kumo_gym  # noqa: F401  (registers the ids)

        from ..training.data import load_instance
        from ..wrappers.chat import ChatEnv

        chat = ChatEnv(gym.make(data.env_id, split=data.split, **data.env_kwargs))
        chat.reset(options={"instance": load_instance(data.env_id, data.instance)})
        try:
            async with agents.agent.interaction(task) as interaction:
                segment = await interaction.turn()
                while not segment.terminated:
                    _, _, terminated, truncated, info = chat.step(segment.last_reply)
                    if terminated or truncated:
                        interaction.trace.info["kumo_verdict"] = info.get("verdict")
                        break
                    segment = await interaction.turn(info["feedback"])
                else:  # the agent stopped (a turn limit ...) before the episode ended: unsolved
                    interaction.trace.info["kumo_verdict"] = {"status": "ended", "message": "The agent stopped "
                                                              "before the episode ended."}
        finally:
            chat.close()


__all__ = ["KumoGymChatHarness", "KumoGymEnv", "KumoGymTaskset"]

#: the old names, which read as the KUMO family (``KumoEnv`` also as its environment class)
__getattr__ = renamed(__name__, {"KumoTasksetConfig": "KumoGymTasksetConfig", "KumoTaskset": "KumoGymTaskset",
                                 "KumoData": "KumoGymData", "KumoTask": "KumoGymTask",
                                 "KumoChatHarnessConfig": "KumoGymChatHarnessConfig",
                                 "KumoChatHarness": "KumoGymChatHarness", "KumoEnvConfig": "KumoGymEnvConfig",
                                 "KumoEnv": "KumoGymEnv"})

# verifiers finds plug-ins by id (``verifiers.v1.tasksets.<id>``, ``verifiers.v1.harnesses.<id>``)
sys.modules.setdefault(f"verifiers.v1.tasksets.{PLUGIN_ID}", sys.modules[__name__])
sys.modules.setdefault(f"verifiers.v1.harnesses.{PLUGIN_ID}", sys.modules[__name__])


def load_environment(env_id: str, *, size: int = 100, split: str = "test", seed: int = 0,
                     agent: dict | None = None, **env_kwargs: Any) -> KumoGymEnv:
    """A ``verifiers`` environment of ``size`` instances of ``env_id`` (``env_kwargs`` are
    ``gym.make``'s: difficulty, mode, sizes ...). ``agent`` overrides fields of the seat's
    ``vf.AgentConfig`` (``max_turns``, ``sampling`` ...); the harness runs in this process."""
    from ..core.errors import check_int
    from ..core.registry import entry
    from ..core.seeding import check_split
    from ..training.data import check_seed

    e = entry(env_id)
    mode = env_kwargs.get("mode") or e.modes[0]
    if mode not in e.modes:
        raise ConfigError(f"mode {mode!r} is not one of: {', '.join(e.modes)} (for {e.id})")
    taskset = KumoGymTasksetConfig(id=PLUGIN_ID, env_id=e.id, env_kwargs=env_kwargs, size=check_int("size", size, 1),
                                split=check_split(split), seed=check_seed(seed))
    seat = {"harness": KumoGymChatHarnessConfig(id=PLUGIN_ID), "runtime": SubprocessConfig(), **(agent or {})}
    return KumoGymEnv(KumoGymEnvConfig(taskset=taskset, agent=vf.AgentConfig(**seat)))
