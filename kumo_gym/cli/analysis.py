"""``kumo-gym analyze TRACES.jsonl --out DIR``: reasoning graphs, metrics, plots and a report.

With no model options it runs the deterministic extractor (no model needed). ``--model`` adds the
LLM stages: with ``--base-url`` through an OpenAI-compatible server (vLLM, SGLang, OpenAI), without
it a local model (``smollm2``, ``tiny`` or a model directory, run by transformers, greedy);
``--rule-model`` names a separate, usually smaller, model for rule extraction.
"""
from __future__ import annotations

import argparse
import json
import sys


def register(subparsers) -> None:
    p = subparsers.add_parser("analyze", help="reasoning graphs, eta and statistics from a trace file",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("traces", help="JSONL trace file written by kumo_gym.wrappers.trace")
    p.add_argument("--out", required=True, help="output directory")
    p.add_argument("--model", default=None,
                   help="model for the LLM extraction stages (optional): the served model's name with --base-url, "
                        "else a local model: 'smollm2', 'tiny' or a model directory")
    p.add_argument("--max-tokens", type=int, default=None,
                   help="completion token limit per model reply (default: the pipeline's; keep it small on a CPU)")
    p.add_argument("--device", default=None, help="torch device for a local model (default: cuda when available)")
    p.add_argument("--base-url", default=None, help="OpenAI-compatible endpoint, e.g. http://localhost:8000/v1")
    p.add_argument("--api-key-env", default="OPENAI_API_KEY", help="environment variable holding the API key")
    p.add_argument("--rule-model", default=None, help="model for rule extraction (default: --model)")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds per model request")
    p.add_argument("--profile", default="default", choices=("default", "consistency"),
                   help="claim verification profile (docs/specs/reasoning_graphs.md §2)")
    p.add_argument("--force", action="store_true", help="also report eta of unsolved runs as eta_unconditional")
    p.add_argument("--max-graph-plots", type=int, default=12, help="draw at most this many claim graphs")
    p.add_argument("--limit", type=int, default=None, help="analyse only the first N episodes")
    p.add_argument("--no-plots", action="store_true", help="skip all pictures")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.add_argument("--stability", type=int, default=0, metavar="K",
                   help="with a model: repeat the extraction K times per trace for the stability table")
    p.add_argument("--cache", default=None, metavar="DIR",
                   help="keep model replies in DIR and answer repeated requests from it (re-runs cost nothing)")
    p.add_argument("--record", default=None, metavar="CASSETTE",
                   help="record every model request and reply to this JSON cassette")
    p.add_argument("--replay", default=None, metavar="CASSETTE",
                   help="answer every model request from a recorded cassette: no model, no network")
    p.set_defaults(func=cmd_analyze)

    r = subparsers.add_parser("report", help="a static HTML site of an eval run and its reasoning graphs",
                              description=REPORT_DOC, formatter_class=argparse.RawDescriptionHelpFormatter)
    r.add_argument("run_dirs", nargs="+", metavar="RUN_DIR",
                   help="an eval run directory (traces*.jsonl), an analysis directory (graphs/), or both")
    r.add_argument("--out", default=None, help="output directory (default: RUN_DIR/report)")
    r.add_argument("--no-analysis", action="store_true",
                   help="do not run the deterministic extraction when no analysis directory is given")
    r.add_argument("--max-episodes", type=int, default=2000, help="write at most this many episode pages")
    r.set_defaults(func=cmd_report)


REPORT_DOC = """``kumo-gym report RUN_DIR``: a static, self-contained HTML site (index.html and one page per episode).

Per environment and difficulty: success, tokens and eta tables and plots; an episode browser with the
rendered puzzle, the trace with claim spans highlighted, the verdict and the interactive reasoning
graph. Open RUN_DIR/report/index.html in any browser: no server, nothing fetched from the internet.
"""


def cmd_report(args) -> int:
    from ..analysis.site import build_report
    from ..core.errors import ConfigError

    if args.max_episodes < 0:
        raise ConfigError(f"--max-episodes must be >= 0, got {args.max_episodes}")
    index = build_report(args.run_dirs, args.out, analyse=not args.no_analysis, max_episodes=args.max_episodes,
                         progress=sys.stderr.isatty())
    print(index)
    return 0


def cmd_analyze(args) -> int:
    from ..analysis.report import analyse_file
    from ..core.errors import ConfigError

    backend = rule_backend = None
    if args.replay:
        from ..analysis.backends import ReplayBackend

        if args.model or args.base_url or args.record:
            raise ConfigError("--replay answers from a cassette: it takes no --model, --base-url or --record")
        try:
            backend = ReplayBackend(args.replay)
        except ValueError as e:
            raise ConfigError(str(e)) from None
    if args.model or args.base_url:
        if not args.model:
            raise ConfigError("--base-url needs --model (the model name the server serves)")
        from ..training.backends import load_backend

        def model_backend(name: str):
            # a server with --base-url; else a local model, greedy (the stages ask for temperature 0)
            return load_backend(name, base_url=args.base_url, api_key_env=args.api_key_env, timeout=args.timeout,
                                device=args.device, temperature=0.0,
                                **({"max_tokens": args.max_tokens} if args.max_tokens else {}))

        backend = model_backend(args.model)
        if args.rule_model:
            rule_backend = model_backend(args.rule_model)
    if backend is not None and not args.replay:
        from ..analysis.backends import CachedBackend, RecordingBackend

        if args.cache:
            backend = CachedBackend(backend, args.cache)
            rule_backend = CachedBackend(rule_backend, args.cache) if rule_backend is not None else None
        if args.record:
            backend = RecordingBackend(backend, args.record)
            if rule_backend is not None:
                rule_backend = RecordingBackend(rule_backend, args.record, share=backend)
    elif (args.cache or args.record) and not args.replay:
        raise ConfigError("--cache and --record need a model (--model, with --base-url for a server)")
    import os

    if not os.path.exists(args.traces):
        raise ConfigError(f"trace file {args.traces!r} does not exist")
    if args.max_tokens is not None and args.max_tokens < 1:
        raise ConfigError(f"--max-tokens must be >= 1, got {args.max_tokens}")
    llm_options: dict = {}
    if rule_backend is not None:
        llm_options["rule_backend"] = rule_backend
    if args.max_tokens is not None:
        llm_options["max_tokens"] = args.max_tokens
    summary = analyse_file(args.traces, args.out, backend=backend, profile=args.profile, force=args.force,
                           max_graph_plots=args.max_graph_plots, limit=args.limit, llm_options=llm_options or None,
                           plots=not args.no_plots, stability_runs=args.stability,
                           progress=not args.no_progress and sys.stderr.isatty())
    print(json.dumps(summary, indent=1))
    return 0 if summary["analysed"] or not summary["records"] else 1
