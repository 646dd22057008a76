"""GRPO on kumo_gym environments with TRL's ``GRPOTrainer`` (``kumo-gym train grpo``).

Single-turn (answer mode): a dataset mixed from any environment ids, difficulties and sizes;
TRL samples ``num_generations`` completions per prompt (a group shares one instance) and our
verifiers score them through the reward functions of :mod:`kumo_gym.training.rewards`: ``binary``
(solved), ``partial`` (fraction of constraints met) and ``format`` (an answer could be read),
each logged by TRL under ``rewards/puzzle_<kind>/mean`` and combined with ``reward_weights``.

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
from pathlib import Path

from ..core.errors import ConfigError, ContaminationError
from .evaluate import EvalSpec, to_spec
from .rewards import KINDS, make_reward_function
from .rollout import EpisodeRollout, prompt_key  # noqa: F401  (prompt_key: re-exported)

log = logging.getLogger(__name__)

DEFAULT_REWARD_WEIGHTS = {"binary": 1.0, "partial": 0.5, "format": 0.1}


# ---------------------------------------------------------------------------------------------
# datasets
# ---------------------------------------------------------------------------------------------
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
               extra_args: dict | None = None, callbacks: list | None = None, mixture=None, curriculum=None,
               log_file: str | None = None):
    """Train ``model`` with GRPO on a mix of environments; returns the finished trainer.

    ``envs``: ids, ``"ID:key=value,..."`` specs or ``{"id": ID, key: value}`` mappings
    (``mode=interactive`` makes that part multi-turn). ``size`` training instances per spec
    (default 64; ``n`` is its deprecated name). One
    optimizer step uses ``prompts_per_step`` prompts x ``num_generations`` completions (times
    ``gradient_accumulation_steps``). ``trainer_args``: any ``GRPOConfig`` field, over our
    defaults (``extra_args`` is its older name); ``model_args``: TRL ``ModelConfig`` fields (LoRA:
    ``use_peft``, ``lora_r`` ...; ``dtype``; QLoRA ``load_in_4bit``). ``callback_every > 0`` adds
    :class:`kumo_gym.training.callbacks.KumoGymEvalCallback` on ``callback_n`` validation instances
    per spec; ``callbacks`` adds any others.

    ``mixture`` (a :class:`~kumo_gym.training.mixture.Mixture`, its YAML path or mapping) draws the
    training rows from weighted environments, ``size`` rows in all; ``curriculum`` (a
    :class:`~kumo_gym.training.curriculum.Curriculum`, its YAML path or mapping) moves each of its
    environments through its levels by recent success, ``size`` rows per epoch made at the current
    levels (``envs`` and ``mixture`` entries not in the curriculum keep their parameters). Metrics
    are in ``trainer.state.log_history`` and ``output_dir/log_history.json``.

    Every logged step also carries the CPU seconds of the step and of its reward functions (parsing
    and verifying: the environment side), ``env/step_cpu_s``, ``env/reward_cpu_s`` and
    ``env/share`` (:mod:`kumo_gym.training.progress`). ``log_file``: the log dictionaries go to this
    JSON-lines file instead of the terminal, which shows one progress bar.
    """
    from trl import GRPOTrainer

    from ..wrappers.chat import fold_rows_for
    from .config import make_config
    from .data import count_arg
    from .models import load_model, train_and_save, trl_renamed_api_warnings_hidden
    from .progress import EnvCostCallback, TimedReward, route_logs
    from .trainset import training_data

    n = count_arg("train_grpo", size, n, 64)
    trainer_kw = {**(extra_args or {}), **(trainer_args or {})}
    specs = [to_spec(s) for s in envs]
    if not specs and mixture is None and curriculum is None:
        raise ConfigError("give at least one environment to train on (envs, a mixture or a curriculum)")
    funcs, weights = reward_functions(reward_weights)
    timed = [TimedReward(f) for f in funcs]
    funcs = list(timed)
    args = grpo_trainer_args(trainer_kw, num_generations=num_generations, prompts_per_step=prompts_per_step,
                             seed=seed, logging_steps=logging_steps, report_to=report_to, output_dir=output_dir,
                             max_steps=max_steps, learning_rate=learning_rate,
                             max_completion_length=max_completion_length, temperature=temperature, beta=beta,
                             reward_weights=weights, use_vllm=use_vllm)
    seed = int(args["seed"])
    config = make_config("grpo", args)
    callbacks = [*(callbacks or []), EnvCostCallback(timed)]
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
    dataset = fold_rows_for(tok, dataset)  # a template without a system role (Gemma 2) gets it in the user turn
    if callback_every > 0:
        from .callbacks import KumoGymEvalCallback

        callbacks.append(KumoGymEvalCallback(data.eval_specs, n=callback_n, every=callback_every,
                                          max_tokens=callback_max_tokens, out_dir=Path(config.output_dir) / "callback",
                                          seed=seed))
    with trl_renamed_api_warnings_hidden():
        trainer = GRPOTrainer(model=loaded.model, reward_funcs=funcs, args=config, train_dataset=dataset,
                              processing_class=tok, callbacks=callbacks, rollout_func=rollout,
                              peft_config=loaded.peft_config)
        if log_file:
            route_logs(trainer, log_file, "GRPO")
        return train_and_save(trainer, callbacks, config.output_dir, tok, save, loaded.peft_config)


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


