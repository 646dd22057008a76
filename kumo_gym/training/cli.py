"""``kumo-gym eval``, ``kumo-gym train grpo|sft`` and ``kumo-gym demo``.

Plugged into the main command through :data:`kumo_gym.cli.PLUGINS`.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..cli import nonnegative_int, positive_float, positive_int, seed_int


def _env_ids(args) -> list[str]:
    from ..cli import resolve_env_id
    from ..core.registry import entries

    names = list(args.envs or []) + list(args.env or [])
    if not names or names == ["all"]:
        names = [e.id for e in entries()]
    if not names:
        raise SystemExit("error: no environments are registered")
    return [resolve_env_id(n) for n in names]


def add_model_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("model")
    g.add_argument("--model", default=None,
                   help="'tiny' (the local tiny model), a Hugging Face model path, or the served model's name "
                        "with --base-url")
    g.add_argument("--base-url", default=None,
                   help="an OpenAI-compatible endpoint (vLLM, SGLang, OpenAI ...), e.g. http://localhost:8000/v1")
    g.add_argument("--api-key-env", default="OPENAI_API_KEY", help="environment variable holding the API key")
    g.add_argument("--concurrency", type=positive_int, default=8, help="requests in flight (remote backends)")
    g.add_argument("--timeout", type=positive_float, default=300.0,
                   help="seconds per request, reply included (remote backends)")
    g.add_argument("--max-retries", type=nonnegative_int, default=4)
    g.add_argument("--max-tokens", type=positive_int, default=None, help="completion token limit per reply")
    g.add_argument("--temperature", type=float, default=None)
    g.add_argument("--device", default=None, help="torch device for local models (default: cuda when available)")


def backend_from_args(args):
    from .agents import make_agent
    from .backends import load_backend

    if getattr(args, "agent", None):
        return make_agent(args.agent, seed=args.seed), args.agent
    if not args.model:
        raise SystemExit("error: give --agent oracle|random or --model NAME (e.g. --model tiny)")
    kwargs = dict(api_key_env=args.api_key_env, concurrency=args.concurrency, timeout=args.timeout,
                  max_retries=args.max_retries, device=args.device, seed=args.seed)
    if args.max_tokens is not None:
        kwargs["max_tokens"] = args.max_tokens
    if args.temperature is not None:
        kwargs["temperature"] = args.temperature
    return load_backend(args.model, base_url=args.base_url, **kwargs), args.model


def default_eval_dir(args) -> str:
    """``runs/eval/<agent or model>-<UTC time>``: a fresh directory for every run."""
    import time

    name = (args.agent or args.model or "model").replace("/", "_")
    base = Path("runs/eval") / f"{name}-{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}"
    path, i = base, 1
    while path.exists():
        i += 1
        path = base.with_name(f"{base.name}-{i}")
    return str(path)


def eval_out_dir(args) -> str:
    """The run directory: a fresh one by default; an existing one only when asked to resume.

    ``--resume DIR`` continues the run in DIR (same configuration); ``--out DIR`` must be new or
    empty of traces, so a second run's report never mixes in a first run's episodes.
    """
    if args.resume and args.out and args.resume != args.out:
        raise SystemExit(f"error: --resume {args.resume} and --out {args.out} name different directories")
    out = args.resume or args.out
    if args.report_only:
        if not out:
            raise SystemExit("error: --report-only needs the run directory (--out DIR)")
        return out
    if out is None:
        return default_eval_dir(args)
    has_traces = any(Path(out).glob("traces*.jsonl"))
    if has_traces and not args.resume:
        raise SystemExit(f"error: {out} already holds an evaluation run; continue it with --resume {out}, or "
                         "give a new --out (by default every run gets its own runs/eval/<name>-<time>)")
    if args.resume and not has_traces:
        raise SystemExit(f"error: --resume {out}: no traces*.jsonl there to resume")
    return out


def check_resumable(out: str, config: dict, shard: str | None) -> None:
    """Refuse to resume a run whose stored configuration differs (other model, envs, split, seed...)."""
    name = "config.json" if shard is None else f"config-{shard.replace('/', '-of-')}.json"
    path = Path(out) / name
    if not path.exists():
        return
    old = json.loads(path.read_text())
    keys = ("model", "split", "seed", "specs", "max_tokens", "temperature")
    diff = [k for k in keys if old.get(k) != config.get(k)]
    if diff:
        raise SystemExit(f"error: cannot resume {out}: its run used other {', '.join(diff)} "
                         f"({', '.join(f'{k}={old.get(k)!r}' for k in diff)}); start a new run instead")


def cmd_eval(args) -> int:
    from ..cli import parse_kwargs
    from .evaluate import Evaluator, make_specs, report

    out = eval_out_dir(args)
    if args.report_only:
        if not any(Path(out).glob("traces*.jsonl")):
            raise SystemExit(f"error: --report-only: no traces*.jsonl in {out} to report on")
        report(out, plots=not args.no_plots)
        print(f"\nwrote {out}/results.json and {out}/results.md")
        return 0
    env_ids = _env_ids(args)
    kwargs = parse_kwargs(args.env_kwargs)
    specs = make_specs(env_ids, kwargs, args.difficulty, args.mode)
    backend, name = backend_from_args(args)
    max_tokens = args.max_tokens
    if max_tokens is None and args.model and not args.base_url and args.model == "tiny":
        max_tokens = 64  # the tiny model knows nothing; long samples only cost time
    ev = Evaluator(backend, out, model_name=name, split=args.split, seed=args.seed, max_tokens=max_tokens,
                   temperature=args.temperature, workers=args.concurrency if args.base_url else 1,
                   progress=not args.quiet)
    if args.resume:
        check_resumable(out, ev.config(specs, args.size, args.samples), args.shard)
    print(f"run directory: {out}", file=sys.stderr)
    path = ev.run(specs, args.size, samples=args.samples, shard=args.shard)
    print(f"traces: {path}")
    report(out, plots=not args.no_plots)
    print(f"\nwrote {out}/results.json and {out}/results.md")
    return 0


def _reward_weights(pairs: list[str] | None) -> dict | None:
    if not pairs:
        return None
    out = {}
    for p in pairs:
        k, sep, v = p.partition("=")
        try:
            out[k] = float(v)
        except ValueError:
            sep = ""
        if not sep:
            raise SystemExit(f"error: reward weight {p!r} is not of the form kind=weight, e.g. binary=1.0")
    return out


def _heldout_ids(paths: list[str] | None) -> set[str] | None:
    """Instance ids from evaluation trace or record files (JSONL with ``instance_id``)."""
    if not paths:
        return None
    from ..wrappers.trace import read_traces

    ids = set()
    for p in paths:
        # a typo must not turn the contamination guard off: every file must exist and hold ids
        if not Path(p).is_file():
            raise SystemExit(f"error: --heldout {p}: no such file")
        found = {r["instance_id"] for r in read_traces(p) if isinstance(r, dict) and r.get("instance_id")}
        if not found:
            raise SystemExit(f"error: --heldout {p} holds no records with an instance_id (give evaluation "
                             "traces or dataset records)")
        ids |= found
    return ids


def train_setup(args, extra: list[str]):
    """The run's options: defaults < ``--config`` file < command line (see training/config.py)."""
    from .config import TrainSetup, kumo_keys, load_config_file, parse_trainer_cli

    algo = args.algorithm
    setup = TrainSetup(algo, kumo={k: v for k, v in kumo_keys(algo).items() if v is not None})
    if args.config:
        setup.update(load_config_file(args.config, algo))
    cli = TrainSetup(algo)
    for key in ("model", "size", "shard", "callback_every", "callback_n", "callback_max_tokens", "prompts_per_step",
                "max_turn_tokens", "curriculum", "mixture"):
        if getattr(args, key, None) is not None:
            cli.kumo[key] = getattr(args, key)
    if args.env:
        cli.kumo["envs"] = list(args.env)
    if args.out is not None:
        cli.kumo["output_dir"] = args.out
    if args.heldout is not None:
        cli.kumo["heldout"] = list(args.heldout)
    if args.no_save:
        cli.kumo["save"] = False
    if getattr(args, "reward_weights", None):
        cli.kumo["reward_weights"] = _reward_weights(args.reward_weights)
    if getattr(args, "batch_size", None) is not None:
        cli.trainer["per_device_train_batch_size"] = args.batch_size
    if getattr(args, "epochs", None) is not None:
        cli.trainer["num_train_epochs"] = args.epochs
    setup.update(cli).update(parse_trainer_cli(algo, extra))
    # the output directory is ours (--out) or the trainer's own field, whichever was given
    out = setup.trainer.pop("output_dir", None)
    setup.kumo["output_dir"] = setup.kumo.get("output_dir") or out or f"runs/{algo}"
    if not setup.kumo.get("envs") and not setup.kumo.get("mixture") and not setup.kumo.get("curriculum"):
        raise SystemExit(f"error: give the environments to train on: --env ID (repeatable), --mixture, --curriculum, "
                         f"or envs:/mixture:/curriculum: in "
                         f"--config (see kumo-gym train {algo} --help)")
    return setup


def run_training(setup):
    """Train as ``setup`` says; returns the trainer (``kumo-gym train`` and scripts)."""
    from .config import write_config

    kumo = dict(setup.kumo)
    envs = kumo.pop("envs", None) or []
    heldout = kumo.pop("heldout", None)
    if isinstance(heldout, str):
        heldout = [heldout]
    from .data import check_seed

    check_seed(setup.trainer.get("seed", 0))  # before anything is written
    kwargs = dict(model=kumo.pop("model"), n=kumo.pop("size"), output_dir=kumo.pop("output_dir"),
                  exclude_ids=_heldout_ids(heldout), trainer_args=setup.trainer, model_args=setup.model, **kumo)
    write_config(setup, f"{kwargs['output_dir']}/train_config.yaml")
    if setup.algo == "grpo":
        from . import grpo

        return grpo.train_grpo(envs, **kwargs)
    from . import sft

    return sft.train_sft(envs, **kwargs)


def cmd_train(args, extra) -> int:
    if args.help_trainer:
        from .config import trainer_help

        print(trainer_help(args.algorithm))
        return 0
    setup = train_setup(args, extra)
    trainer = run_training(setup)
    out = setup.kumo["output_dir"]
    saved = f"; model in {out}/model" if setup.kumo.get("save", True) else ""
    print(f"done: {trainer.state.global_step} steps; log history in {out}/log_history.json; options in "
          f"{out}/train_config.yaml{saved}")
    return 0


def register(subparsers) -> None:
    from ..cli import add_size_arg

    p = subparsers.add_parser(
        "eval", help="evaluate an agent or a model on environments (results tables, traces, plots)",
        description="Evaluate the oracle/random agents, a local model or an OpenAI-compatible endpoint. "
                    "Every episode is appended to OUT/traces*.jsonl as it ends; rerunning the same command "
                    "resumes where it stopped.")
    p.add_argument("envs", nargs="*", help="environment ids or names (default: every registered environment)")
    p.add_argument("--env", action="append", default=[], help="an environment id (repeatable)")
    p.add_argument("--env-kwargs", nargs="*", default=[], metavar="K=V", help="kwargs for every environment")
    p.add_argument("--difficulty", nargs="*", default=None, help="one or more difficulty presets")
    p.add_argument("--mode", default=None, help="answer (single-turn) or interactive (multi-turn)")
    p.add_argument("--agent", choices=("oracle", "random"), default=None)
    add_size_arg(p, 10, "instances per environment and difficulty (default 10)")
    p.add_argument("--samples", type=positive_int, default=1, help="replies per instance (pass@k uses them)")
    p.add_argument("--split", default="test")
    p.add_argument("--seed", type=seed_int, default=0)
    p.add_argument("--shard", default=None, help="i/n: only shard i of n of the instances")
    p.add_argument("--out", default=None, help="a new output directory (default: runs/eval/<agent or model>-<time>)")
    p.add_argument("--resume", default=None, metavar="DIR",
                   help="continue the run in DIR (same configuration): finished episodes are kept, the rest run")
    p.add_argument("--report-only", action="store_true", help="only summarise the traces already in --out")
    p.add_argument("--no-plots", action="store_true")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    add_model_args(p)
    p.set_defaults(func=cmd_eval)

    train = subparsers.add_parser("train", help="train a model on environments (GRPO or SFT with TRL)")
    algos = train.add_subparsers(dest="algorithm", metavar="ALGORITHM")
    algos.required = True
    for algo, text in (("grpo", "GRPO with our verifiers as rewards (TRL GRPOTrainer)"),
                       ("sft", "SFT on golden trajectories from our solvers (TRL SFTTrainer)")):
        q = algos.add_parser(
            algo, help=text, allow_abbrev=False,
            description=text + ". Every " + ("GRPOConfig" if algo == "grpo" else "SFTConfig")
            + " field and TRL's ModelConfig fields (LoRA: --use_peft --lora_r 16 ...; --dtype; QLoRA --load_in_4bit) "
            "are accepted as --field value (list them with --help-trainer); --config FILE.yaml gives any of these "
            "options as top-level keys, and the command line overrides the file.",
            epilog="Our defaults where they differ from TRL's: " + (
                "max_steps 50, learning_rate 1e-5, num_generations 4, per_device_train_batch_size = "
                "prompts_per_step x num_generations, max_completion_length 256, temperature 1.0, beta 0.0"
                if algo == "grpo" else "max_steps 100, learning_rate 2e-4, per_device_train_batch_size 4, "
                "max_length 4096") + "; bf16 on GPUs that support it, CPU when there is no GPU, no intermediate "
            f"checkpoints. Output: runs/{algo}/ (model/, log_history.json, train_config.yaml).")
        q.add_argument("--config", default=None, metavar="FILE.yaml",
                       help="options from a YAML file (ours, trainer and model fields as top-level keys)")
        q.add_argument("--help-trainer", action="store_true",
                       help=f"list every {'GRPOConfig' if algo == 'grpo' else 'SFTConfig'} and ModelConfig field")
        q.add_argument("--env", action="append", default=None,
                       help="ID or ID:key=value,... (e.g. Hanoi:difficulty=easy, KUMO:mode=interactive); repeatable")
        q.add_argument("--model", default=None, help="'tiny' (default) or a Hugging Face model path/name")
        add_size_arg(q, None, "training instances per --env (default 64)")
        q.add_argument("--out", default=None, help=f"output directory (default runs/{algo})")
        q.add_argument("--shard", default=None, help="i/n: build the data from shard i of n only")
        q.add_argument("--callback-every", type=nonnegative_int, default=None,
                       help="evaluate on held-out validation instances every K steps (default 0: off)")
        q.add_argument("--callback-n", type=positive_int, default=None,
                       help="validation instances per --env for the callback (default 4)")
        q.add_argument("--callback-max-tokens", type=positive_int, default=None)
        q.add_argument("--heldout", nargs="+", default=None, metavar="JSONL",
                       help="evaluation traces/records whose instance ids must not be trained on")
        q.add_argument("--no-save", action="store_true", help="do not save the trained model")
        q.add_argument("--mixture", default=None, metavar="FILE.yaml",
                       help="train on weighted environments (see docs/training.md); --size is then the total")
        if algo == "grpo":
            q.add_argument("--curriculum", default=None, metavar="FILE.yaml",
                           help="move environments through difficulty levels by recent success (docs/training.md)")
            q.add_argument("--prompts-per-step", type=positive_int, default=None,
                           help="prompts per optimizer step and device (default 2)")
            q.add_argument("--max-turn-tokens", type=positive_int, default=None,
                           help="tokens per model turn in multi-turn episodes (default 128)")
            q.add_argument("--reward-weights", nargs="*", default=None, metavar="KIND=W",
                           help="weights of the reward components binary, partial, format (default 1, 0.5, 0.1)")
        else:
            q.add_argument("--batch-size", type=positive_int, default=None,
                           help="per_device_train_batch_size (default 4)")
            q.add_argument("--epochs", type=positive_float, default=None,
                           help="num_train_epochs, used when max_steps is 0")
        q.set_defaults(func=cmd_train, takes_extra=True)

    from .demo import register_demo

    register_demo(subparsers)


if __name__ == "__main__":  # pragma: no cover
    from ..cli import main

    sys.exit(main(["eval", *sys.argv[1:]]))
