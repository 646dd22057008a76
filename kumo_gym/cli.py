"""The ``kumo-gym`` command.

Built-in subcommands: ``list``, ``show``, ``play``, ``generate``. Families and the training and
analysis packages add theirs through the modules in :data:`PLUGINS`, each exposing
``register(subparsers)``.
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from pathlib import Path

from .core.errors import ConfigError

#: Modules that add subcommands (``eval``, ``train``, ``demo``, ``analyze``, ``kumo``, ``sparc`` ...).
PLUGINS = (
    "kumo_gym.training.cli",
    "kumo_gym.analysis.cli",
    "kumo_gym.envs.kumo.cli",
    "kumo_gym.envs.sparc.cli",
    "kumo_gym.envs.finereason.cli",
    "kumo_gym.envs.grid.cli",
)


# ---- shared argument helpers ---------------------------------------------------------------
def parse_value(text: str):
    """A kwarg value from the command line: JSON literal when it parses, else the string."""
    try:
        return json.loads(text)
    except (json.JSONDecodeError, ValueError):
        low = text.lower()
        if low in ("true", "false"):
            return low == "true"
        return text


def parse_kwargs(pairs: list[str] | None, extra: list[str] | None = None) -> dict:
    """``["k=v", ...]`` and leftover ``--key value`` pairs as a kwargs dict."""
    out = {}
    for p in pairs or []:
        if "=" not in p:
            raise SystemExit(f"error: env kwarg {p!r} is not of the form key=value")
        k, v = p.split("=", 1)
        out[k.strip().replace("-", "_")] = parse_value(v)
    extra = list(extra or [])
    i = 0
    while i < len(extra):
        tok = extra[i]
        if not tok.startswith("--"):
            raise SystemExit(f"error: unexpected argument {tok!r}")
        key = tok[2:]
        if "=" in key:
            key, val = key.split("=", 1)
            i += 1
        elif i + 1 < len(extra) and not extra[i + 1].startswith("--"):
            val = extra[i + 1]
            i += 2
        else:
            val, i = "true", i + 1
        out[key.replace("-", "_")] = parse_value(val)
    return out


def _int_at_least(lo: int, what: str):
    def convert(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if value < lo:
            raise argparse.ArgumentTypeError(f"{value} is not {what}")
        return value

    convert.__name__ = what
    return convert


#: argparse types: counts (``--size``, ``--samples`` ...), limits that may be 0, and seeds
positive_int = _int_at_least(1, "a positive integer")
nonnegative_int = _int_at_least(0, "an integer >= 0")
seed_int = _int_at_least(0, "a valid seed (an integer >= 0)")


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"{value} is not a positive number")
    return value


class _DeprecatedCount(argparse.Action):
    """``--n`` as the old spelling of ``--size`` (the number of items): works, with a warning."""

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"warning: {option_string} is deprecated for the number of items; use --size (environment "
              "parameters such as Hanoi's n go in --env-kwargs n=...)", file=sys.stderr)
        setattr(namespace, self.dest, values)


def add_size_arg(p: argparse.ArgumentParser, default: int | None, help: str) -> None:
    """``--size N`` (the number of items) and its deprecated alias ``--n``."""
    p.add_argument("--size", type=positive_int, default=default, help=help)
    p.add_argument("--n", type=positive_int, dest="size", action=_DeprecatedCount, help=argparse.SUPPRESS)


def add_env_args(p: argparse.ArgumentParser, mode: bool = True, optional: bool = False) -> None:
    p.add_argument("env", nargs="?" if optional else None, default=None,
                   help="environment id, e.g. kumo_gym/Hanoi-v0 (the kumo_gym/ prefix and -v0 may be left out)")
    p.add_argument("--seed", type=seed_int, default=0)
    p.add_argument("--difficulty", default=None)
    p.add_argument("--split", default="train")
    if mode:
        p.add_argument("--mode", default=None, help="answer or interactive, where both exist")
    p.add_argument("--env-kwargs", nargs="*", default=[], metavar="K=V", help="more environment kwargs")


def resolve_env_id(name: str) -> str:
    from .core.registry import entries

    for e in entries():
        if name in (e.id, e.name, f"{e.name}-v0", f"kumo_gym/{e.name}"):
            return e.id
    from .core.registry import entry

    return entry(name).id  # raises ConfigError listing the ids


def env_kwargs(args, extra=None) -> dict:
    kw = parse_kwargs(getattr(args, "env_kwargs", None), extra)
    if getattr(args, "difficulty", None) is not None:
        kw["difficulty"] = args.difficulty
    if getattr(args, "split", None):
        kw["split"] = args.split
    if getattr(args, "mode", None):
        kw["mode"] = args.mode
    return kw


class JsonlOutput:
    """Where ``kumo-gym generate`` writes: all or nothing, resumable, and polite to what is there.

    Records go to ``OUT.partial`` (beside the real file when ``OUT`` is a symlink, which stays a
    symlink) and the finished file is renamed onto ``OUT``: a reader never sees half a file. The
    partial file is the run's own state, not a temporary: after Ctrl-C or a kill, the same command
    continues from the records it holds (a torn last line is dropped; the last kept record must be
    exactly what the command makes at that index, or it refuses). A new file gets the mode the
    umask allows (an existing one keeps its mode); a FIFO, a terminal or ``/dev/stdout`` is
    written in place, without resuming.
    """

    def __init__(self, path: str | os.PathLike):
        import stat

        self.given = Path(path)
        try:
            st = os.stat(self.given)  # follows a symlink
        except FileNotFoundError:
            st = None
        except OSError as e:
            raise ConfigError(f"cannot write {path}: {e.strerror or e}") from None
        if st is not None and stat.S_ISDIR(st.st_mode):
            raise ConfigError(f"--out {path} is a directory; give a file name")
        self.stream = st is not None and not stat.S_ISREG(st.st_mode)
        self.path = self.given if self.stream else Path(os.path.realpath(self.given))
        self.mode = None if st is None or self.stream else stat.S_IMODE(st.st_mode)
        self.partial = self.path.with_name(self.path.name + ".partial")
        self._file = None

    # -- resuming ------------------------------------------------------------------------------
    def kept(self) -> tuple[int, bytes | None]:
        """``(records already in OUT.partial, the last one)``; drops a torn last line."""
        if self.stream or not self.partial.exists():
            return 0, None
        with open(self.partial, "r+b") as f:
            count, last, end, prev = 0, None, 0, b""
            for line in f:
                if not line.endswith(b"\n"):
                    break
                count, end, prev = count + 1, end + len(line), line
            f.truncate(end)
            last = prev or None
        return count, last

    # -- writing -------------------------------------------------------------------------------
    def open(self, fresh: bool = False):
        """Open for writing: appending to what :meth:`kept` kept, or from scratch when ``fresh``."""
        try:
            if self.stream:
                self._file = open(self.given, "ab", buffering=0)
            else:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._file = open(self.partial, "wb" if fresh else "ab")
        except OSError as e:
            raise ConfigError(f"cannot write {self.given}: {e.strerror or e}") from None
        return self

    def write(self, row: dict) -> None:
        self._file.write(json_line(row))
        self._file.flush()  # a kill loses at most the record being written

    def finish(self) -> None:
        """Close, and (for a file) move the finished partial file onto ``OUT``."""
        f, self._file = self._file, None
        if self.stream:
            f.close()
            return
        f.flush()
        os.fsync(f.fileno())
        f.close()
        if self.mode is not None:
            os.chmod(self.partial, self.mode)
        os.replace(self.partial, self.path)

    def abandon(self, keep: bool) -> None:
        """Close after a failure; the partial file stays only when ``keep`` (an interruption)."""
        f, self._file = self._file, None
        if f is not None:
            f.close()
        if not keep and not self.stream and self.partial.exists():
            self.partial.unlink()


def write_jsonl_atomic(path: str | os.PathLike, rows) -> int:
    """Write ``rows`` to ``path`` all at once (through :class:`JsonlOutput`, without resuming)."""
    out = JsonlOutput(path).open(fresh=True)
    n = 0
    try:
        for row in rows:
            out.write(row)
            n += 1
        out.finish()
    except BaseException:
        out.abandon(keep=False)
        raise
    return n


def json_line(row: dict) -> bytes:
    """One JSONL line: UTF-8, or ASCII escapes when the row holds text UTF-8 cannot encode."""
    try:
        return (json.dumps(row, ensure_ascii=False) + "\n").encode("utf-8")
    except UnicodeEncodeError:
        return (json.dumps(row) + "\n").encode("ascii")


# ---- list ----------------------------------------------------------------------------------
def catalogue_rows() -> list[dict]:
    from .core.registry import entries, import_object

    rows = []
    for e in entries():
        task_cls = import_object(e.task)
        rows.append({"id": e.id, "family": e.family, "modes": ", ".join(e.modes),
                     "difficulties": ", ".join(getattr(task_cls, "difficulties", {}) or []) or "-",
                     "summary": e.summary})
    return rows


def format_table(rows: list[dict], columns: list[str], markdown: bool = False) -> str:
    if not rows:
        return "(none)"
    cells = [[str(r.get(c, "")) for c in columns] for r in rows]
    if markdown:
        out = ["| " + " | ".join(columns) + " |", "|" + "|".join("---" for _ in columns) + "|"]
        out += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in cells]
        return "\n".join(out)
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(columns)]
    line = "  ".join(c.ljust(w) for c, w in zip(columns, widths))
    out = [line, "  ".join("-" * w for w in widths)]
    out += ["  ".join(v.ljust(w) for v, w in zip(row, widths)) for row in cells]
    return "\n".join(out)


def cmd_list(args) -> int:
    print(format_table(catalogue_rows(), ["id", "family", "modes", "difficulties", "summary"], args.markdown))
    return 0


# ---- show ----------------------------------------------------------------------------------
def make_env(args, extra=None, **more):
    import gymnasium as gym

    import kumo_gym  # noqa: F401  (registers the ids)

    return gym.make(resolve_env_id(args.env), **env_kwargs(args, extra), **more)


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
    from .core.capabilities import LegalMoves, OracleMoves

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
    from .core.registry import entry

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

    from .core.registry import get_task
    from .core.seeding import shard_range
    from .training.data import DistinctCounter, RecordMaker, generate_instances

    if args.size is None:
        raise SystemExit("error: give the number of items with --size N")
    if args.push_to_hub and args.format != "datasets":
        raise SystemExit("error: --push-to-hub needs --format datasets")
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
        from .integrations.hub import save_dataset

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
        for inst in instances(done):
            if args.split == "train":
                task.check_trainable(inst)
            counter.add(inst.instance_id)
            out.write(maker.record(inst))
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
    from .training.mixture import make_mixture

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


# ---- main ----------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kumo-gym", description="Reasoning-puzzle environments for LLM RL.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

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
    p.add_argument("--push-to-hub", default=None, metavar="REPO",
                   help="with --format datasets: also upload the dataset and card to this Hub repository")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=cmd_generate, takes_extra=True)

    for mod in PLUGINS:
        try:
            m = importlib.import_module(mod)
        except ModuleNotFoundError as e:
            if e.name == mod:
                continue
            raise
        m.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    from .core.errors import KumoGymError

    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra and not getattr(args, "takes_extra", False):
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        rc = int((args.func(args, extra) if getattr(args, "takes_extra", False) else args.func(args)) or 0)
        sys.stdout.flush()  # a closed pipe fails here, inside the handlers below, not at exit
        return rc
    except KumoGymError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # the reader went away (`kumo-gym list | head`): stop quietly, and keep the interpreter's
        # final flush of stdout from failing again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except OSError as e:  # a path that cannot be read or written: name it, without a traceback
        where = f": {e.filename}" if e.filename else ""
        print(f"error: {e.strerror or e}{where}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
