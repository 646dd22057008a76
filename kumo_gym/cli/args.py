"""Argument helpers shared by the command groups: ``--env-kwargs`` pairs, counted and seeded
options, the environment arguments."""
from __future__ import annotations

import argparse
import sys

from ..core.params import parse_value
from ..core.registry import resolve_env_id


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


def nonnegative_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"{value} is not a number >= 0")
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


def add_env_args(p: argparse.ArgumentParser, mode: bool = True, optional: bool = False,
                 seed: bool = True) -> None:
    """The environment and its kwargs; ``seed=False`` where the seed comes from elsewhere (a
    server's clients pass theirs to ``reset``), so no flag is shown that would do nothing."""
    p.add_argument("env", nargs="?" if optional else None, default=None,
                   help="environment id, e.g. kumo_gym/Hanoi-v0 (the kumo_gym/ prefix and -v0 may be left out)")
    if seed:
        p.add_argument("--seed", type=seed_int, default=0)
    p.add_argument("--difficulty", default=None)
    p.add_argument("--split", default="train")
    if mode:
        p.add_argument("--mode", default=None, help="answer or interactive, where both exist")
    p.add_argument("--env-kwargs", nargs="*", default=[], metavar="K=V", help="more environment kwargs")


def env_kwargs(args, extra=None) -> dict:
    kw = parse_kwargs(getattr(args, "env_kwargs", None), extra)
    if getattr(args, "difficulty", None) is not None:
        kw["difficulty"] = args.difficulty
    if getattr(args, "split", None):
        kw["split"] = args.split
    if getattr(args, "mode", None):
        kw["mode"] = args.mode
    return kw


def make_env(args, extra=None, **more):
    """``gym.make`` of the environment the arguments name."""
    import gymnasium as gym

    import kumo_gym  # noqa: F401  (registers the ids)

    return gym.make(resolve_env_id(args.env), **env_kwargs(args, extra), **more)
