"""``kumo-gym demo``: the suite end to end (:mod:`kumo_gym.training.demo`)."""
from __future__ import annotations

from ..training import demo
from .args import positive_int


def cmd_demo(args) -> int:
    demo.run_demo(args.out, n=args.n, grpo_env=args.grpo_env, grpo_steps=args.grpo_steps, sft_steps=args.sft_steps,
                  quick=args.quick, model=args.model)
    return 0


def register(subparsers) -> None:
    p = subparsers.add_parser("demo", help="the suite end to end: table, prompt, oracle/random eval, a real model "
                                           "learning on fresh puzzles (before, SFT + GRPO, after)",
                              description=demo.__doc__.split("\n\n")[0])
    p.add_argument("--out", default=None, help="report directory (default runs/demo-<time>)")
    p.add_argument("--n", type=positive_int, default=3, help="instances per environment for the agents")
    p.add_argument("--model", default="smollm2",
                   help="the model that learns: smollm2 (SmolLM2-135M-Instruct, default), tiny, or a model folder")
    p.add_argument("--grpo-env", default=None, help="environment of the learning part (default Filling, trivial)")
    p.add_argument("--sft-steps", type=positive_int, default=None, help="SFT warm-up steps before GRPO (default 30)")
    p.add_argument("--grpo-steps", type=positive_int, default=None, help="GRPO steps (default 8)")
    p.add_argument("--quick", action="store_true", help="shortest run (tests)")
    p.set_defaults(func=cmd_demo)
