"""Old public names that keep working for a while, with a ``DeprecationWarning`` naming the new one.

A module that renamed a public class keeps the old name importable by ending with::

    __getattr__ = renamed(__name__, {"KumoEnv": "KumoInteractiveEnv"})

``from module import KumoEnv`` and ``module.KumoEnv`` then return the new class and warn once per
call site; the old names stay out of ``__all__`` and out of the module's namespace.
"""
from __future__ import annotations

import sys
import warnings
from collections.abc import Callable
from typing import Any


def renamed(module: str, names: dict[str, str]) -> Callable[[str], Any]:
    """A module-level ``__getattr__`` serving each old name of ``names`` (old -> new) as the new
    object, with a ``DeprecationWarning``; any other missing name raises ``AttributeError``."""

    def __getattr__(name: str) -> Any:
        new = names.get(name)
        if new is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        warnings.warn(f"{module}.{name} is deprecated; it was renamed {new}", DeprecationWarning, stacklevel=2)
        return getattr(sys.modules[module], new)

    return __getattr__
