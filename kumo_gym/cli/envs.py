"""``kumo-gym list``, ``show``, ``play`` and ``generate``: the environments themselves."""
from __future__ import annotations

import json
import sys

from ..core.errors import ConfigError
from ..core.registry import catalogue_rows, resolve_env_id
from ..core.tables import format_table
from .args import add_env_args, add_size_arg, env_kwargs, make_env
from .output import JsonlOutput, json_line, write_jsonl_atomic


# ---- list ----------------------------------------------------------------------------------
def cmd_list(args) -> int:
    print(format_table(catalogue_rows(), ["id", "family", "modes", "difficulties", "summary"], args.markdown))
    return 0


# ---- show ----------------------------------------------------------------------------------
def cmd_show(args, extra) -> int:
    env = make_env(args, extra, render_mode="rgb_array" if args.png else "ansi")
    obs, info = env.reset(seed=args.seed)
    base = env.unwrapped
    print(f"# {info['env_id']}  instance {info['instance_id']}  difficulty {info['difficulty']}  "
          f"optimal steps {info['optimal_steps']}\n")
    for m in base.task.messages(base.instance) if hasattr(base, "score_completion") else [{"role": "user", "content": obs}]:
        print(f"--- {m['role']} ---\n{m['content']}\n")
    print("--- state ---")
    print(base.task.render(base.instance, getattr(base, "state", None)))
    if args.golden:
        print("\n--- golden answer ---")
        print(base.task.format_answer(base.task.solve(base.instance)))
    if args.png:
        img = env.render()
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        plt.imsave(args.png, img)
        print(f"\nwrote {args.png}")
    return 0


# ---- play ----------------------------------------------------------------------------------
PLAY_HELP = ("Commands: 'hint' shows {what}; 'quit' (or 'exit', Ctrl-D) leaves. A move that cannot be read "
             "or is illegal has no effect: you are told why and play on.")


def play_hint(base) -> str:
    """A hint for a person playing ``base`` (the unwrapped environment)."""
    from ..core.capabilities import LegalMoves, OracleMoves

    task, inst = base.task, base.instance
    state = getattr(base, "state", None)
    if state is None:  # answer mode
        steps = task.optimal_steps(inst)
        return f"an optimal answer has {steps} moves" if steps else "no hint for this puzzle in answer mode"
    if isinstance(task, LegalMoves):
        moves = [task.format_move(m) for m in task.legal_moves(inst, state)]
        more = f" (and {len(moves) - 20} more)" if len(moves) > 20 else ""
        return "legal moves: " + ", ".join(moves[:20]) + more if moves else "no legal move from here"
    if isinstance(task, OracleMoves):
        return f"a good next move: {task.format_move(task.oracle_move(inst, state))}"
    return "no hint for this puzzle"


def _read_answer(prompt: str) -> str | None:
    """Lines up to an empty line (None at end of input before anything was typed)."""
    print(prompt)
    lines = []
    while True:
        try:
            line = input()
        except EOFError:
            return "\n".join(lines) if lines else None
        if not line.strip():
            return "\n".join(lines)
        lines.append(line)


def cmd_play(args, extra) -> int:
    """A person plays in the terminal: one move per line in interactive mode, or a whole answer
    (ended by an empty line) in answer mode. ``hint`` and ``quit`` are announced; a typo or an
    illegal move never ends the game (interactive play allows 1000 invalid moves in a row and
    100,000 moves unless ``--env-kwargs max_invalid=K max_steps=M`` say otherwise; an unreadable
    answer is asked again)."""
    from ..core.registry import entry

    env_id = resolve_env_id(args.env)
    if args.mode is None and "interactive" in entry(env_id).modes:
        args.mode = "interactive"
    kw = env_kwargs(args, extra)
    if kw.get("mode", entry(env_id).modes[0]) == "interactive":
        # a person's typos are not a model's format errors: they never end the game, nor use up its moves
        kw.setdefault("max_invalid", 1000)
        kw.setdefault("max_steps", 100_000)
    import gymnasium as gym

    import kumo_gym  # noqa: F401

    env = gym.make(env_id, **kw)
    obs, info = env.reset(seed=args.seed)
    base = env.unwrapped
    interactive = getattr(base, "state", None) is not None
    print(obs)
    print("\n" + PLAY_HELP.format(what="the legal moves" if interactive else "a hint"))
    while True:
        if interactive:
            try:
                action = input("\nyour move> ")
            except EOFError:
                print("\n(end of input)")
                return 1
        else:
            action = _read_answer("\nType your answer ('hint', 'quit'); finish with an empty line:")
            if action is None:
                print("(end of input)")
                return 1
        command = action.strip().lower()
        if command in ("quit", "exit", "q"):
            print("bye")
            return 1
        if command in ("hint", "help", "?"):
            print(play_hint(base) if command == "hint" else PLAY_HELP.format(what="a hint"))
            continue
        obs, reward, terminated, truncated, info = env.step(action)
        v = info.get("verdict") or {}
        if not interactive and v.get("status") in ("parse_error", "truncated"):
            print(f"{v.get('message')} Try again.")
            env.reset(options={"instance": base.instance})
            continue
        print(obs)
        if terminated or truncated:
            print(f"\n== {v.get('status', 'ended')}: reward {reward} ==")
            return 0 if reward > 0 else 1


# ---- generate ------------------------------------------------------------------------------
def cmd_generate(args, extra) -> int:
    """Write the records; Ctrl-C keeps what is done in ``OUT.partial`` and the same command resumes."""
    from tqdm import tqdm

    from ..core.registry import get_task
    from ..core.seeding import shard_range
    from ..training.data import DistinctCounter, RecordMaker, generate_instances

    if args.size is None:
        raise SystemExit("error: give the number of items with --size N")
    if args.push_to_hub and args.format != "datasets":
        raise SystemExit("error: --push-to-hub needs --format datasets")
    if args.ray and (args.format != "jsonl" or args.mixture):
        raise SystemExit("error: --ray writes one environment's JSONL records (not --format datasets or --mixture)")
    if args.mixture:
        if args.format == "datasets":
            raise SystemExit("error: --format datasets writes one environment; a --mixture goes to JSONL")
        return _generate_mixture(args)
    if not args.env:
        raise SystemExit("error: give an environment id (or --mixture FILE.yaml)")
    env_id = resolve_env_id(args.env)
    kw = env_kwargs(args, extra)
    kw.pop("split", None)
    if args.format == "datasets":  # a Hugging Face dataset with its card (kumo_gym.integrations.hub)
        from ..integrations.hub import save_dataset

        path = save_dataset(env_id, args.size, args.out, split=args.split, seed=args.seed, env_kwargs=kw,
                            shard=args.shard, prompt_format=args.prompt_format, with_golden=args.golden,
                            push_to_hub=args.push_to_hub)
        print(f"wrote a datasets dataset to {path} (card: {path}/README.md)")
        return 0
    if kw.get("observation", "text") != "text":
        raise ConfigError("image observations do not fit in JSONL records; build them with kumo_gym.make_dataset("
                          "..., env_kwargs={'observation': 'image+text'}, format='datasets') (docs/training.md)")
    task = get_task(env_id)
    out = JsonlOutput(args.out)
    total = len(shard_range(args.size, args.shard))
    maker = RecordMaker(env_id, kw, args.split, args.prompt_format, args.golden)
    counter = DistinctCounter(env_id, kw)

    def instances(start: int):
        return generate_instances(env_id, args.size, split=args.split, seed=args.seed, shard=args.shard,
                                  env_kwargs=kw, start=start)

    def local_rows(start: int):
        for inst in instances(start):
            if args.split == "train":
                task.check_trainable(inst)
            yield maker.record(inst)

    n = 0
    try:
        done, last = out.kept()
        if done:
            same = done <= total and json.loads(last) == json.loads(json_line(maker.record(next(instances(done - 1)))))
            if not same:
                raise ConfigError(f"{out.partial} holds {done} records of another command (other environment, "
                                  "options, seed, split or size); delete it, or rerun the command that made it")
            print(f"resuming: {done} of {total} records are already in {out.partial}", file=sys.stderr)
    except BaseException:
        maker.close()
        raise
    try:
        out.open()
        bar = tqdm(total=total, initial=done, desc=f"generate {env_id}", disable=args.quiet, unit="item")
        if args.ray:  # the same records in the same order, made by Ray tasks
            from ..integrations.ray_runner import generate_records

            rows = generate_records(env_id, kw, args.size, split=args.split, seed=args.seed, shard=args.shard,
                                    start=done, prompt_format=args.prompt_format, with_golden=args.golden)
        else:
            rows = local_rows(done)
        for row in rows:
            counter.add(row["instance_id"])
            out.write(row)
            n += 1
            bar.update(1)
        bar.close()
        out.finish()
    except KeyboardInterrupt:
        out.abandon(keep=True)
        print(f"\ninterrupted: {done + n} of {total} records are kept in {out.partial}; run the same command "
              "again to finish", file=sys.stderr)
        return 130
    except BaseException as exc:
        # records kept by an earlier run, or lost to an I/O error, stay for the next try; a run that
        # failed on its own (a refused instance ...) leaves nothing behind
        out.abandon(keep=done > 0 or isinstance(exc, OSError))
        raise
    finally:
        maker.close()
    print(f"wrote {done + n} records to {args.out}")
    if counter.message():
        print(f"warning: {counter.message()}", file=sys.stderr)
    return 0


def _generate_mixture(args) -> int:
    from ..training.mixture import make_mixture

    if args.env:
        raise SystemExit("error: give an environment or --mixture, not both")
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UserWarning)
        records = make_mixture(args.mixture, args.size, split=args.split, seed=args.seed, with_golden=args.golden,
                               prompt_format=args.prompt_format)
    n = write_jsonl_atomic(args.out, records)
    print(f"wrote {n} records to {args.out}")
    for w in caught:
        print(f"warning: {w.message}", file=sys.stderr)
    return 0


def register(sub) -> None:
    p = sub.add_parser("list", help="list the registered environments")
    p.add_argument("--markdown", action="store_true", help="a markdown table (the README catalogue)")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("show", help="show an instance: prompt and rendered state")
    add_env_args(p)
    p.add_argument("--golden", action="store_true", help="also print the golden answer")
    p.add_argument("--png", default=None, help="save the image rendering (families that draw one)")
    p.set_defaults(func=cmd_show, takes_extra=True)

    p = sub.add_parser("play", help="play an environment in the terminal")
    add_env_args(p)
    p.set_defaults(func=cmd_play, takes_extra=True)

    p = sub.add_parser("generate", help="write prompt records to JSONL",
                       description="Write SIZE dataset records (make_dataset's fields) to a JSONL file.")
    add_env_args(p, optional=True)
    p.add_argument("--mixture", default=None, metavar="FILE.yaml",
                   help="draw the records from a weighted mixture of environments instead of one ENV")
    add_size_arg(p, None, "number of records (required)")
    p.add_argument("--out", required=True)
    p.add_argument("--prompt-format", choices=("conversational", "text"), default="conversational",
                   help="prompt as chat messages (TRL's conversational format, default) or as plain text")
    p.add_argument("--shard", default=None, help="i/n: only shard i of n (for cluster jobs)")
    p.add_argument("--golden", action="store_true", help="include the golden answer text")
    p.add_argument("--format", choices=("jsonl", "datasets"), default="jsonl",
                   help="jsonl (default), or datasets: a Hugging Face dataset directory with a dataset card")
    p.add_argument("--ray", action="store_true",
                   help="make the records in Ray tasks (RAY_ADDRESS or a local instance); same output, same resume")
    p.add_argument("--push-to-hub", default=None, metavar="REPO",
                   help="with --format datasets: also upload the dataset and card to this Hub repository")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=cmd_generate, takes_extra=True)
