"""SFT on golden trajectories with TRL's ``SFTTrainer`` (``kumo-gym train sft``).

Golden trajectories come from our solvers, played through the same chat interface the
evaluation uses, so training and evaluation see identical prompts:

* answer mode: the prompt and one assistant turn ``format_answer(solve(instance))`` (the
  planning move lists, SPaRC paths, grid solutions ...);
* interactive mode: the whole conversation of the oracle agent
  (:class:`kumo_gym.training.agents.OracleAgent`), one assistant turn per move and the
  environment's feedback as user turns (KUMO oracle play uses the family's ``oracle_move``
  hook, so the conversation is the golden test sequence ending in the diagnosis).

Only episodes the verifier marks solved become training data. The loss is on assistant tokens
only: ``assistant_only_loss`` for conversations (the chat template must mark assistant text with
``{% generation %}``, as the tiny model's does), or, for single-turn data on templates without
those marks, the prompt/completion format with ``completion_only_loss``. ``exclude_ids`` (an
evaluation set) and each family's ``check_trainable`` (held-out KUMO domains) guard against
leakage: a violation raises ``ContaminationError`` before any training.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..core.errors import ConfigError, ContaminationError
from .evaluate import EvalSpec


def golden_conversation(spec: EvalSpec, instance, max_turns: int = 10_000) -> tuple[list[dict], dict]:
    """The oracle's conversation on ``instance`` in ``spec``'s mode and the final verdict dict."""
    import gymnasium as gym

    import kumo_gym  # noqa: F401

    from ..wrappers.chat import ChatEnv
    from .agents import OracleAgent

    chat = ChatEnv(gym.make(spec.env_id, split=instance.split or "train", **spec.kwargs))
    agent = OracleAgent()
    messages, _ = chat.reset(options={"instance": instance})
    verdict = None
    for _ in range(max_turns):
        agent.bind(chat.unwrapped)
        reply = agent.chat(messages)[0].text
        messages, _reward, terminated, truncated, info = chat.step(reply)
        if terminated or truncated:
            verdict = info.get("verdict")
            break
    chat.close()
    return [{"role": m["role"], "content": m["content"]} for m in messages], verdict or {"status": "incomplete"}


def golden_records(specs: list[EvalSpec], n, split: str = "train", seed: int = 0, shard: str | None = None,
                   exclude_ids: set[str] | None = None) -> list[dict]:
    """One record per solved golden episode: ``messages`` plus ``env_id``, ``instance_id``,
    ``family``, ``difficulty``, ``mode``. Raises ContaminationError on leakage (module docstring)."""
    from .trainset import guarded_instances

    rows = []
    for spec, task, inst in guarded_instances(specs, n, split, seed, shard, exclude_ids):
        messages, verdict = golden_conversation(spec, inst)
        if verdict.get("status") != "solved":
            raise ConfigError(f"the oracle did not solve {spec.env_id} instance {inst.instance_id} "
                              f"({verdict.get('status')}: {verdict.get('message')}); its solver or verifier "
                              "is wrong, refusing to train on it")
        rows.append({"messages": messages, "env_id": spec.env_id, "instance_id": inst.instance_id,
                     "family": inst.family, "difficulty": str(task.difficulty_of(inst) or ""),
                     "mode": spec.mode})
    return rows


def has_generation_marks(tokenizer) -> bool:
    template = getattr(tokenizer, "chat_template", None) or ""
    return "{% generation %}" in template or "{%- generation %}" in template


def to_prompt_completion(rows: list[dict]) -> list[dict]:
    """Single-turn conversations as TRL's conversational prompt/completion format."""
    out = []
    for r in rows:
        msgs = r["messages"]
        if len(msgs) < 2 or msgs[-1]["role"] != "assistant" or any(m["role"] == "assistant" for m in msgs[:-1]):
            raise ConfigError("multi-turn golden conversations need a chat template with {% generation %} marks "
                              "for assistant-only loss; this tokenizer's template has none")
        row = {k: v for k, v in r.items() if k != "messages"}
        row.update(prompt=msgs[:-1], completion=msgs[-1:])
        out.append(row)
    return out


def train_sft(envs: Sequence[str | EvalSpec | dict], *, model: str = "tiny", size: int | None = None,
              n: int | None = None, output_dir: str = "runs/sft",
              seed: int = 0, shard: str | None = None, max_steps: int = 100, epochs: float = 1.0,
              batch_size: int = 4, learning_rate: float = 2e-4, max_length: int = 4096,
              callback_every: int = 0, callback_n: int = 4, callback_max_tokens: int = 128,
              callback_specs: list[str | EvalSpec] | None = None, exclude_ids: set[str] | None = None,
              logging_steps: int = 1, report_to: str = "none", save: bool = True, trainer_args: dict | None = None,
              model_args: dict | None = None, extra_args: dict | None = None, rows: list[dict] | None = None,
              callbacks: list | None = None, mixture=None, curriculum=None, log_file: str | None = None):
    """Fine-tune ``model`` on ``size`` golden trajectories (default 64; ``n`` is its deprecated
    name) of each of ``envs``; returns the finished trainer.

    ``max_steps <= 0`` trains ``epochs`` epochs instead. ``rows`` replaces the generated golden
    records (e.g. a KUMO ``export_golden`` file read back). ``trainer_args``: any ``SFTConfig``
    field over our defaults (``extra_args`` is its older name); ``model_args``: TRL
    ``ModelConfig`` fields (LoRA/QLoRA, dtype). ``mixture`` draws ``n`` golden records in all from
    weighted environments (:mod:`kumo_gym.training.mixture`). ``callback_every > 0`` adds
    :class:`kumo_gym.training.callbacks.KumoGymEvalCallback` on ``callback_specs`` (default
    ``envs``). Metrics are in ``trainer.state.log_history`` and ``output_dir/log_history.json``;
    ``log_file``: the log dictionaries go to this JSON-lines file instead of the terminal, which
    shows one progress bar.
    """
    import datasets
    from trl import SFTTrainer

    from ..wrappers.chat import fold_rows_for
    from .config import make_config
    from .evaluate import to_spec
    from .models import base_trainer_args, load_model, train_and_save, trl_renamed_api_warnings_hidden
    from .trainset import training_data

    if curriculum is not None:
        raise ConfigError("a curriculum follows the success of sampled answers: it drives GRPO, not SFT on golden "
                          "answers (use a mixture for SFT)")

    from .data import count_arg

    n = count_arg("train_sft", size, n, 64)
    trainer_kw = {**(extra_args or {}), **(trainer_args or {})}
    args = base_trainer_args(seed, logging_steps, report_to)
    args.update(output_dir=output_dir, learning_rate=learning_rate, per_device_train_batch_size=batch_size,
                max_steps=max_steps if max_steps > 0 else -1, num_train_epochs=epochs, max_length=max_length)
    args.update(trainer_kw)
    seed = int(args["seed"])
    specs = [to_spec(s) for s in envs]
    if rows is None:
        data = training_data(specs, n, seed, shard, exclude_ids, mixture, builder=lambda sp, counts: golden_records(
            sp, counts, split="train", seed=seed, shard=shard, exclude_ids=exclude_ids))
        rows, specs = data.rows, data.eval_specs
    elif exclude_ids:
        leaked = [r.get("instance_id") for r in rows if r.get("instance_id") in exclude_ids]
        if leaked:
            raise ContaminationError(f"{len(leaked)} training record(s) are in the held-out evaluation set, "
                                     f"e.g. {leaked[0]}")
    if not rows:
        raise ConfigError("no golden trajectories to train on")
    loaded = load_model(model, model_args)
    tok = loaded.tokenizer
    conversational = has_generation_marks(tok)
    records = rows if conversational else to_prompt_completion(rows)
    dataset = fold_rows_for(tok, datasets.Dataset.from_list(
        [{k: v for k, v in r.items() if k in ("messages", "prompt", "completion")} for r in records]))
    args.setdefault("assistant_only_loss", conversational)
    config = make_config("sft", args)
    callbacks = list(callbacks or [])
    if callback_every > 0:
        from .callbacks import KumoGymEvalCallback

        callbacks.append(KumoGymEvalCallback(callback_specs or specs, n=callback_n, every=callback_every,
                                          max_tokens=callback_max_tokens, out_dir=Path(config.output_dir) / "callback",
                                          seed=seed))
    with trl_renamed_api_warnings_hidden():
        trainer = SFTTrainer(model=loaded.model, args=config, train_dataset=dataset, processing_class=tok,
                             callbacks=callbacks, peft_config=loaded.peft_config)
        if log_file:
            from .progress import route_logs

            route_logs(trainer, log_file, "SFT warm-up")
        return train_and_save(trainer, callbacks, config.output_dir, tok, save, loaded.peft_config)


