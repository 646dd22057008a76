"""The puzzle packs of the reasoning-graph pipeline: one module per grid puzzle.

A pack is the module ``kumo_gym/analysis/packs/<puzzle>.py`` (``<puzzle>`` = the environment
name in lower case, e.g. ``lightup`` for ``kumo_gym/Lightup-v0``) defining ``PACK``, a
:class:`kumo_gym.analysis.schema.Pack`. Nothing else registers it: :func:`pack_for` finds it by
name. docs/analysis.md ("Adding a pack for a new grid puzzle") walks through writing one;
``tests/analysis/test_packs.py`` checks every grid environment of the catalogue against its pack.
"""
from __future__ import annotations

import importlib
import re

from ..schema import Pack

_NAME = re.compile(r"[a-z][a-z0-9_]{0,40}")
_NOT_PACKS = frozenset({"base", "common"})
_loaded: dict[str, Pack] = {}


def puzzle_name(family_or_env: str) -> str:
    """``kumo_gym/Lightup-v0`` -> ``lightup``; ``Tents`` -> ``tents``."""
    return str(family_or_env).split("/")[-1].split("-v")[0].strip().lower()


def get(name: str) -> Pack:
    """The pack of puzzle ``name``; ``KeyError`` when there is none."""
    name = puzzle_name(name)
    if name in _loaded:
        return _loaded[name]
    if not _NAME.fullmatch(name) or name in _NOT_PACKS:
        raise KeyError(name)
    try:
        module = importlib.import_module(f"{__name__}.{name}")
    except ModuleNotFoundError as e:
        if e.name == f"{__name__}.{name}":
            raise KeyError(name) from None
        raise
    pack = getattr(module, "PACK", None)
    if not isinstance(pack, Pack):
        raise KeyError(name)
    _loaded[name] = pack
    return pack


def pack_for(family_or_env: str | None) -> Pack | None:
    """The pack for an env id, puzzle name or instance family; None when the puzzle has none."""
    if not family_or_env:
        return None
    try:
        return get(family_or_env)
    except KeyError:
        return None


def grid_env_ids() -> list[str]:
    """Every grid environment of the catalogue (``family == "grid"``)."""
    from ...core.registry import entries

    return [e.id for e in entries() if e.family == "grid"]


def __getattr__(name: str):  # TENTS, SOLO, ... : the packs, loaded on first use
    if name.isupper() and not name.startswith("_"):
        try:
            return get(name.lower())
        except KeyError:
            pass
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
