"""The environment table: one row per registered environment (registration is data).

Each family keeps its rows in ``kumo_gym/envs/<family>/catalog.py`` as a list named ``ENTRIES``
of :class:`~kumo_gym.core.registry.EnvEntry`; this module concatenates them in a fixed order.
Those catalogue modules import nothing heavy.
"""
from __future__ import annotations

import importlib

FAMILIES = ("planning", "kumo", "sparc", "finereason", "grid")


def _load() -> list:
    rows = []
    for fam in FAMILIES:
        try:
            mod = importlib.import_module(f"kumo_gym.envs.{fam}.catalog")
        except ModuleNotFoundError as e:
            if e.name != f"kumo_gym.envs.{fam}.catalog":
                raise
            continue
        rows.extend(mod.ENTRIES)
    return rows


ENVIRONMENTS = _load()
