"""The environment table and its registration with Gymnasium.

Registration is data (docs/architecture.md §9): ``kumo_gym/core/catalog.py`` holds one :class:`EnvEntry` per
environment; :func:`register_all` turns the table into ``gymnasium.register`` calls, each id's
entry point being its own documented class (:mod:`kumo_gym.envs.classes`). Nothing here imports a
family module until a task is actually needed, so ``import kumo_gym`` stays fast. Plug-ins and
tests add rows with :func:`add_entry`.
"""
from __future__ import annotations

import importlib
from functools import cache

from .entry import NAMESPACE, EnvEntry
from .errors import ConfigError

__all__ = ["NAMESPACE", "EnvEntry", "add_entry", "catalogue_rows", "entries", "entry", "get_task", "import_object",
           "register_all", "remove_entry", "resolve_env_id"]


def import_object(path: str):
    """Import ``"package.module:Name"``."""
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


_EXTRA: list[EnvEntry] = []


def entries() -> list[EnvEntry]:
    """Every catalogue row: the built-in table, then rows added with :func:`add_entry`."""
    from .catalog import ENTRIES

    return list(ENTRIES) + list(_EXTRA)


def add_entry(e: EnvEntry) -> str:
    """Add a row (a plug-in's or a test's environment) and register it with Gymnasium."""
    if all(x.name != e.name for x in entries()):
        _EXTRA.append(e)
    register_all()
    return e.id


def remove_entry(name: str) -> None:
    """Drop a row added with :func:`add_entry` (and its Gymnasium registration)."""
    import gymnasium as gym

    for x in [x for x in _EXTRA if x.name == name]:
        _EXTRA.remove(x)
        gym.registry.pop(x.id, None)
        get_task.cache_clear()


def entry(env_id: str) -> EnvEntry:
    for e in entries():
        if e.id == env_id or e.name == env_id:
            return e
    for e in entries():  # an older version of a registered id (docs/versioning.md)
        stem, _, version = str(env_id).rpartition("-v")
        if version.isdigit() and int(version) != e.version and stem in (e.name, f"{NAMESPACE}/{e.name}"):
            raise ConfigError(f"environment {env_id!r} is not registered: this release has {e.id} (its manual's "
                              "version history says what changed between versions)")
    raise ConfigError(f"environment {env_id!r} is not one of: {', '.join(e.id for e in entries())}")


@cache
def get_task(env_id: str):
    """The (stateless, shared) Task object of ``env_id``."""
    return import_object(entry(env_id).task)()


def register_all() -> list[str]:
    """Register every catalogue entry with Gymnasium (idempotent)."""
    import gymnasium as gym

    ids = []
    for e in entries():
        if e.id not in gym.registry:
            gym.register(id=e.id, entry_point="kumo_gym.envs.classes:make_env",
                         kwargs={"env_id": e.id}, disable_env_checker=False)
        ids.append(e.id)
    return ids


def resolve_env_id(name: str) -> str:
    """The full id of ``name``: an id, a name, ``Name-vN`` or ``kumo_gym/Name`` (ConfigError lists the ids)."""
    for e in entries():
        if name in (e.id, e.name, f"{e.name}-v{e.version}", f"{NAMESPACE}/{e.name}"):
            return e.id
    return entry(name).id


def catalogue_rows() -> list[dict]:
    """One row per environment (id, family, modes, difficulties, summary): ``kumo-gym list``'s table."""
    rows = []
    for e in entries():
        task_cls = import_object(e.task)
        rows.append({"id": e.id, "family": e.family, "modes": ", ".join(e.modes),
                     "difficulties": ", ".join(getattr(task_cls, "difficulties", {}) or []) or "-",
                     "summary": e.summary})
    return rows
