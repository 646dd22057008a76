"""The ``kumo-gym`` command: one module of this package per command group.

:mod:`.envs` (``list``, ``show``, ``play``, ``generate``), :mod:`.eval` (``eval``), :mod:`.train`
(``train grpo|sft``), :mod:`.demo`, :mod:`.analysis` (``analyze``, ``report``), :mod:`.kumo` and
:mod:`.sparc`; each exposes ``register(subparsers)``, and :data:`GROUPS` lists them in help order.
The command line only parses and prints: the work is done by the library below it.
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys

#: the command groups, in the order ``kumo-gym --help`` lists them
GROUPS = ("envs", "eval", "train", "demo", "analysis", "kumo", "sparc", "serve")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kumo-gym", description="Reasoning-puzzle environments for LLM RL.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    for name in GROUPS:
        importlib.import_module(f"{__name__}.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    from ..core.errors import KumoGymError

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
