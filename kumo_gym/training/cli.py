"""``kumo-gym eval``, ``kumo-gym train grpo|sft`` and ``kumo-gym demo``.

Plugged into the main command through :data:`kumo_gym.cli.PLUGINS`.
"""
from __future__ import annotations

import argparse
import sys


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
    g.add_argument("--concurrency", type=int, default=8, help="requests in flight (remote backends)")
    g.add_argument("--timeout", type=float, default=300.0, help="seconds per request (remote backends)")
    g.add_argument("--max-retries", type=int, default=4)
    g.add_argument("--max-tokens", type=int, default=None, help="completion token limit per reply")
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


def cmd_eval(args) -> int:
    from ..cli import parse_kwargs
    from .evaluate import Evaluator, make_specs, report

    out = args.out or f"runs/eval/{(args.agent or args.model or 'model').replace('/', '_')}"
    if args.report_only:
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
    path = ev.run(specs, args.n, samples=args.samples, shard=args.shard)
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
    p.add_argument("--n", type=int, default=10, help="instances per environment and difficulty")
    p.add_argument("--samples", type=int, default=1, help="replies per instance (pass@k uses them)")
    p.add_argument("--split", default="test")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--shard", default=None, help="i/n: only shard i of n of the instances")
    p.add_argument("--out", default=None, help="output directory (default runs/eval/<agent or model>)")
    p.add_argument("--report-only", action="store_true", help="only summarise the traces already in --out")
    p.add_argument("--no-plots", action="store_true")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    add_model_args(p)
    p.set_defaults(func=cmd_eval)


if __name__ == "__main__":  # pragma: no cover
    from ..cli import main

    sys.exit(main(["eval", *sys.argv[1:]]))
