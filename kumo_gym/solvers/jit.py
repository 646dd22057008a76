"""numba kernels compiled on first use.

Importing numba costs about half a second and compiling a kernel a second or more, so the
solvers keep their kernels as plain Python functions and compile them only when a call
needs one (a large search); small instances never import numba (the cold-start target: a
fresh process's first reset under 3 s of CPU). One source serves both: the module keeps the
plain function, which small inputs call as it is, and :func:`compiled` returns ``numba.njit``
versions that see each other (kernels that call each other are compiled together, so numba sees
compiled callees).
"""
from __future__ import annotations

import types

_COMPILED: dict[tuple[str, tuple[str, ...]], types.SimpleNamespace] = {}


def compiled(module_globals: dict, names: tuple[str, ...]) -> types.SimpleNamespace:
    """``numba.njit(cache=True)`` versions of the functions ``names`` of a module, made once.

    The module's own functions are left as they are; the compiled ones resolve each other's names
    in a copy of the module's namespace where those names are bound to the compiled versions.
    """
    key = (module_globals["__name__"], names)
    if key not in _COMPILED:
        import numba

        namespace = dict(module_globals)
        for name in names:
            fn = module_globals[name]
            twin = types.FunctionType(fn.__code__, namespace, fn.__name__, fn.__defaults__, fn.__closure__)
            twin.__qualname__, twin.__module__ = fn.__qualname__, fn.__module__
            namespace[name] = numba.njit(cache=True)(twin)
        _COMPILED[key] = types.SimpleNamespace(**{name: namespace[name] for name in names})
    return _COMPILED[key]
