"""Bridges to the stacks researchers train and scale with; each an optional extra, imported lazily.

* :mod:`kumo_gym.integrations.hub`: ``kumo-gym generate --format datasets`` writes a Hugging
  Face ``datasets`` dataset with a dataset card (``datasets``, part of ``[train]``).
* :mod:`kumo_gym.integrations.ray_runner`: ``kumo-gym generate|eval --ray`` on a Ray cluster
  (``pip install kumo-gym[ray]``).
* :mod:`kumo_gym.integrations.openenv`: ``kumo-gym serve ENV`` exposes any environment over
  OpenEnv's HTTP/WebSocket API, with the matching client and TRL's environment shape
  (``pip install kumo-gym[openenv]``); the server itself is :mod:`kumo_gym.integrations.serving`
  (worker processes, capacity, idle sessions, faults) and its wire types
  :mod:`kumo_gym.integrations.wire`.
* :mod:`kumo_gym.integrations.verifiers`: ``load_environment(env_id)`` gives a ``verifiers``
  environment (``pip install kumo-gym[verifiers]``).

Importing this package imports none of them.
"""
from __future__ import annotations

import importlib

from ..core.errors import ConfigError


def require(module: str, extra: str, what: str):
    """Import ``module`` or raise a ConfigError naming the extra that installs it."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise ConfigError(f"{what} needs the {module!r} package ({e}); install it with "
                          f"pip install 'kumo-gym[{extra}]'") from None
