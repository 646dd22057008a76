"""GRPO on kumo_gym environments with TRL's ``GRPOTrainer`` (``kumo-gym train grpo``).

Single-turn (answer mode): a dataset mixed from any environment ids, difficulties and sizes;
TRL samples ``num_generations`` completions per prompt (a group shares one instance) and our
verifiers score them through the reward functions of :mod:`kumo_gym.training.rewards`: ``binary``
(solved), ``partial`` (fraction of constraints met) and ``format`` (an answer could be read),
each logged by TRL under ``rewards/kumo_<kind>/mean`` and combined with ``reward_weights``.

Multi-turn (interactive mode, KUMO and the planning puzzles move by move):
:class:`kumo_gym.training.rollout.EpisodeRollout`, a TRL ``rollout_func`` that plays whole
episodes; the conversation after the prompt is the completion with ``env_mask`` zero on
environment tokens (only the model's own tokens carry the policy loss) and the episode's final
verdict is the ``kumo_verdict`` column, which the reward functions use instead of re-scoring text.

Scale: ``accelerate launch -m kumo_gym.cli train grpo ...`` runs data-parallel; ``use_vllm``
hands generation to TRL's vLLM integration (server or colocate mode), single- and multi-turn
alike. See docs/training.md.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..core.errors import ConfigError, ContaminationError
from ..core.instance import canonical_json
from ..core.registry import get_task
from .data import ENV_ONLY
from .evaluate import EvalSpec, make_specs
from .rewards import KINDS, make_reward_function
from .rollout import EpisodeRollout, prompt_key  # noqa: F401  (prompt_key: re-exported)
from .sft import train_and_save

log = logging.getLogger(__name__)

DEFAULT_REWARD_WEIGHTS = {"binary": 1.0, "partial": 0.5, "format": 0.1}


def parse_env_spec(text: str) -> EvalSpec:
    """``"ID"`` or ``"ID:key=value,key=value"`` (e.g. ``Hanoi:difficulty=easy,mode=interactive``)."""
    from ..core.params import parse_value
    from ..core.registry import resolve_env_id

    name, _, rest = text.partition(":")
    kwargs = {}
    for part in filter(None, (p.strip() for p in rest.split(","))):
        if "=" not in part:
            raise ConfigError(f"environment option {part!r} in {text!r} is not of the form key=value")
        k, v = part.split("=", 1)
        kwargs[k.strip()] = parse_value(v.strip())
    env_id = resolve_env_id(name)
    mode = kwargs.pop("mode", None)
    return make_specs([env_id], kwargs, None, mode)[0]


# ---------------------------------------------------------------------------------------------
# datasets
# ---------------------------------------------------------------------------------------------
def opening_messages(spec: EvalSpec, instance) -> list[dict]:
    """The messages a model sees first for ``instance`` in ``spec``'s mode (as the evaluation does)."""
    import gymnasium as gym

    import kumo_gym  # noqa: F401

    from ..wrappers.chat import ChatEnv

    env = ChatEnv(gym.make(spec.env_id, split=instance.split or "train", **spec.kwargs))
    messages, _ = env.reset(options={"instance": instance})
    env.close()
    return messages


def guarded_instances(specs: list[EvalSpec], n, split: str = "train", seed: int = 0, shard: str | None = None,
                      exclude_ids: set[str] | None = None):
    """``(spec, task, instance)`` for the first ``n`` instances of every spec (``n``: one count for
    all, or one per spec), refusing leakage.

    ``split="train"`` runs each family's ``check_trainable`` (held-out KUMO domains are refused);
    any instance whose id is in ``exclude_ids`` (an evaluation set) raises ContaminationError.
    """
    from .data import generate_instances

    counts = [n] * len(specs) if isinstance(n, int) else list(n)
    if len(counts) != len(specs):
        raise ConfigError(f"{len(counts)} counts for {len(specs)} environment specs")
    for spec, count in zip(specs, counts):
        if not count:
            continue
        task = get_task(spec.env_id)
        for inst in generate_instances(spec.env_id, count, split=split, seed=seed, shard=shard,
                                       env_kwargs=spec.generation_params()):
            if split == "train":
                task.check_trainable(inst)
            check_not_heldout(inst, spec.env_id, exclude_ids)
            yield spec, task, inst


def check_not_heldout(inst, env_id: str, exclude_ids: set[str] | None) -> None:
    if exclude_ids and inst.instance_id in exclude_ids:
        raise ContaminationError(f"training instance {inst.instance_id} of {env_id} is in the held-out "
                                 "evaluation set")


def build_records(specs: list[EvalSpec], n, split: str = "train", seed: int = 0, shard: str | None = None,
                  exclude_ids: set[str] | None = None) -> list[dict]:
    """Prompt rows for every spec (``n`` each, or ``n[i]`` for spec ``i``), shuffled together
    deterministically.

    Each row: ``prompt`` (chat messages), ``env_id``, ``instance`` (JSON text), ``instance_id``,
    ``family``, ``difficulty``, ``mode`` and ``spec`` (the kwargs as JSON). Leakage is refused as
    in :func:`guarded_instances`.
    """
    rows = []
    for spec, task, inst in guarded_instances(specs, n, split, seed, shard, exclude_ids):
        rows.append({
            "prompt": opening_messages(spec, inst),
            "env_id": spec.env_id,
            "instance": inst.to_json(),
            "instance_id": inst.instance_id,
            "family": inst.family,
            "difficulty": str(task.difficulty_of(inst) or ""),
            "mode": spec.mode,
            "spec": canonical_json(spec.kwargs),
        })
    order = np.random.default_rng(seed).permutation(len(rows))
    return [rows[i] for i in order]


def build_dataset(specs: list[EvalSpec], n: int, split: str = "train", seed: int = 0, shard: str | None = None,
                  exclude_ids: set[str] | None = None):
    """:func:`build_records` as a ``datasets.Dataset``."""
    import datasets

    return datasets.Dataset.from_list(build_records(specs, n, split, seed, shard, exclude_ids))


# ---------------------------------------------------------------------------------------------
# the trainer
# ---------------------------------------------------------------------------------------------
def reward_functions(weights: dict[str, float] | None = None) -> tuple[list, list[float]]:
    weights = dict(DEFAULT_REWARD_WEIGHTS if weights is None else weights)
    for k in weights:
        if k not in KINDS:
            raise ConfigError(f"reward component {k!r} is not one of: {', '.join(KINDS)}")
    kinds = [k for k in KINDS if k in weights]
    return [make_reward_function(None, k) for k in kinds], [float(weights[k]) for k in kinds]


def load_model_and_tokenizer(model: str, model_args: dict | None = None):
    """``(model, tokenizer, path)`` (see :func:`kumo_gym.training.models.load_model`)."""
    from .models import load_model

    m = load_model(model, model_args)
    return m.model, m.tokenizer, m.path


def to_spec(env) -> EvalSpec:
    """An EvalSpec from an EvalSpec, ``"ID:key=value,..."`` or a mapping ``{"id": ID, key: value}``
    (the form of a YAML config's ``envs`` list)."""
    if isinstance(env, EvalSpec):
        return env
    if isinstance(env, str):
        return parse_env_spec(env)
    if isinstance(env, dict):
        kw = dict(env)
        name = kw.pop("id", None) or kw.pop("env", None)
        if not isinstance(name, str):
            raise ConfigError(f"environment entry {env!r} needs an 'id' (e.g. {{id: Hanoi, difficulty: easy}})")
        kw = {**kw.pop("env_kwargs", {}), **kw}
        from ..core.registry import resolve_env_id

        return make_specs([resolve_env_id(name)], kw, None, kw.pop("mode", None))[0]
    raise ConfigError(f"environment entry {env!r} is not an id, an 'ID:key=value' string or a mapping")


def grpo_trainer_args(trainer_args: dict, *, num_generations: int, prompts_per_step: int, **defaults) -> dict:
    """GRPOConfig fields: our defaults, then ``trainer_args`` (any GRPOConfig field) on top."""
    from .models import base_trainer_args

    args = base_trainer_args(defaults.pop("seed", 0), defaults.pop("logging_steps", 1),
                             defaults.pop("report_to", "none"))
    args.update(defaults)
    args["num_generations"] = num_generations
    args.update(trainer_args)
    # one optimizer step sees prompts_per_step prompts x num_generations completions
    args.setdefault("per_device_train_batch_size", prompts_per_step * int(args["num_generations"]))
    return args


def train_grpo(envs: list[str | EvalSpec | dict], *, model: str = "tiny", size: int | None = None,
               n: int | None = None, output_dir: str = "runs/grpo",
               seed: int = 0, shard: str | None = None, max_steps: int = 50, num_generations: int = 4,
               prompts_per_step: int = 2, max_completion_length: int = 256, max_turn_tokens: int = 128,
               learning_rate: float = 1e-5, temperature: float = 1.0, beta: float = 0.0,
               reward_weights: dict[str, float] | None = None, use_vllm: bool = False,
               callback_every: int = 0, callback_n: int = 4, callback_max_tokens: int = 128,
               exclude_ids: set[str] | None = None, logging_steps: int = 1, report_to: str = "none",
               save: bool = True, trainer_args: dict | None = None, model_args: dict | None = None,
               extra_args: dict | None = None, callbacks: list | None = None, mixture=None, curriculum=None):
    """Train ``model`` with GRPO on a mix of environments; returns the finished trainer.

    ``envs``: ids, ``"ID:key=value,..."`` specs or ``{"id": ID, key: value}`` mappings
    (``mode=interactive`` makes that part multi-turn). ``size`` training instances per spec
    (default 64; ``n`` is its deprecated name). One
    optimizer step uses ``prompts_per_step`` prompts x ``num_generations`` completions (times
    ``gradient_accumulation_steps``). ``trainer_args``: any ``GRPOConfig`` field, over our
    defaults (``extra_args`` is its older name); ``model_args``: TRL ``ModelConfig`` fields (LoRA:
    ``use_peft``, ``lora_r`` ...; ``dtype``; QLoRA ``load_in_4bit``). ``callback_every > 0`` adds
    :class:`kumo_gym.training.callbacks.KumoEvalCallback` on ``callback_n`` validation instances
    per spec; ``callbacks`` adds any others.

    ``mixture`` (a :class:`~kumo_gym.training.mixture.Mixture`, its YAML path or mapping) draws the
    training rows from weighted environments, ``size`` rows in all; ``curriculum`` (a
    :class:`~kumo_gym.training.curriculum.Curriculum`, its YAML path or mapping) moves each of its
    environments through its levels by recent success, ``size`` rows per epoch made at the current
    levels (``envs`` and ``mixture`` entries not in the curriculum keep their parameters). Metrics
    are in ``trainer.state.log_history`` and ``output_dir/log_history.json``.
    """
    from trl import GRPOTrainer

    from .models import load_model

    from .data import count_arg

    n = count_arg("train_grpo", size, n, 64)
    trainer_kw = {**(extra_args or {}), **(trainer_args or {})}
    specs = [to_spec(s) for s in envs]
    if not specs and mixture is None and curriculum is None:
        raise ConfigError("give at least one environment to train on (envs, a mixture or a curriculum)")
    funcs, weights = reward_functions(reward_weights)
    args = grpo_trainer_args(trainer_kw, num_generations=num_generations, prompts_per_step=prompts_per_step,
                             seed=seed, logging_steps=logging_steps, report_to=report_to, output_dir=output_dir,
                             max_steps=max_steps, learning_rate=learning_rate,
                             max_completion_length=max_completion_length, temperature=temperature, beta=beta,
                             reward_weights=weights, use_vllm=use_vllm)
    seed = int(args["seed"])
    config = make_config("grpo", args)
    callbacks = list(callbacks or [])
    data = training_data(specs, n, seed, shard, exclude_ids, mixture, curriculum)
    rollout = EpisodeRollout(data.rows or [], max_turn_tokens=max_turn_tokens,
                             temperature=config.temperature) if data.multi_turn else None
    if data.curriculum is not None:
        dataset = data.curriculum.dataset(n, "train", seed, data.mixture,
                                          on_rows=_row_listener(rollout, exclude_ids))
        funcs = data.curriculum.wrap(funcs)
        callbacks.append(data.curriculum)
    else:
        import datasets

        dataset = datasets.Dataset.from_list(data.rows)
    loaded = load_model(model, model_args)
    tok = loaded.tokenizer
    tok.padding_side = "left"
    if callback_every > 0:
        from .callbacks import KumoEvalCallback

        callbacks.append(KumoEvalCallback(data.eval_specs, n=callback_n, every=callback_every,
                                          max_tokens=callback_max_tokens, out_dir=Path(config.output_dir) / "callback",
                                          seed=seed))
    trainer = GRPOTrainer(model=loaded.model, reward_funcs=funcs, args=config, train_dataset=dataset,
                          processing_class=tok, callbacks=callbacks, rollout_func=rollout,
                          peft_config=loaded.peft_config)
    return train_and_save(trainer, callbacks, config.output_dir, tok, save, loaded.peft_config)


@dataclass
class TrainingData:
    """What a run trains on: fixed ``rows``, or a ``curriculum`` (with its ``mixture``) that makes
    them while training; ``eval_specs`` for the held-out callback."""

    rows: list[dict] | None
    eval_specs: list[EvalSpec]
    multi_turn: bool
    mixture: Any = None
    curriculum: Any = None


def training_data(specs: list[EvalSpec], n: int, seed: int, shard: str | None, exclude_ids, mixture=None,
                  curriculum=None, builder=None) -> TrainingData:
    """The rows (or the curriculum) of a run from ``envs`` specs, a mixture and a curriculum.

    ``builder(specs, counts)`` makes fixed rows (default :func:`build_records`; SFT passes its
    golden records).
    """
    from .mixture import Mixture, MixtureEntry

    for s in specs:
        if s.kwargs.get("observation", "text") != "text":
            raise ConfigError(f"{s.env_id}: observation={s.kwargs['observation']!r} is for vision-language models, "
                              "which kumo-gym train does not load; build the data with kumo_gym.make_dataset(..., "
                              "env_kwargs={'observation': 'image+text'}) and give it to TRL's GRPOTrainer or "
                              "SFTTrainer with the model's processor (docs/training.md, vision-language training)")
    builder = builder or (lambda sp, counts: build_records(sp, counts, "train", seed, shard, exclude_ids))
    mix = None
    if mixture is not None:
        mix = Mixture.from_config(mixture)
        if specs:
            mix = Mixture([*mix.entries, *(MixtureEntry(s.env_id, 1.0, dict(s.kwargs)) for s in specs)])
    elif specs and curriculum is not None:
        mix = Mixture([MixtureEntry(s.env_id, 1.0, dict(s.kwargs)) for s in specs])
    if curriculum is not None:
        from .curriculum import Curriculum

        cur = Curriculum.from_config(curriculum)
        if mix is not None:
            missing = set(cur.schedules) - {e.env_id for e in mix.entries}
            if missing:
                mix = Mixture([*mix.entries, *(MixtureEntry(e, 1.0, dict(cur.env_kwargs[e])) for e in sorted(missing))])
        entries = mix.entries if mix is not None else [MixtureEntry(e, 1.0, dict(cur.env_kwargs[e]))
                                                      for e in cur.schedules]
        eval_specs = []
        for e in entries:
            kw = e.env_kwargs
            if e.env_id in cur.schedules:  # held-out evaluation at the ladder's top: the target
                kw = {**{k: v for k, v in kw.items() if k in ENV_ONLY}, **cur.final_kwargs(e.env_id)}
            eval_specs.append(EvalSpec(e.env_id, kw))
        multi = any(s.mode != "answer" for s in eval_specs)
        return TrainingData(None, eval_specs, multi, mix, cur)
    if mix is not None:
        specs = [EvalSpec(e.env_id, dict(e.env_kwargs)) for e in mix.entries]
        counts = mix.counts(n, "train", seed)
    else:
        counts = n
    return TrainingData(builder(specs, counts), specs, any(s.mode != "answer" for s in specs), mix)


def _row_listener(rollout, exclude_ids):
    """Rows a curriculum makes: refused when held out, registered with the multi-turn rollout."""
    def on_rows(rows):
        if exclude_ids:
            for r in rows:
                if r["instance_id"] in exclude_ids:
                    raise ContaminationError(f"training instance {r['instance_id']} of {r['env_id']} is in the "
                                             "held-out evaluation set")
        if rollout is not None:
            rollout.add_rows(rows)
    return on_rows


def make_config(algo: str, args: dict):
    """A ``GRPOConfig``/``SFTConfig`` from ``args``; a bad field or value is a ConfigError naming it."""
    from .config import config_classes, field_names

    cls = config_classes(algo)[0]
    unknown = sorted(set(args) - field_names(cls))
    if unknown:
        raise ConfigError(f"{', '.join(unknown)} {'is not a' if len(unknown) == 1 else 'are not'} {cls.__name__} "
                          "field(s)")
    try:
        return cls(**args)
    except (ValueError, TypeError) as e:
        raise ConfigError(f"{cls.__name__}: {e}") from None
