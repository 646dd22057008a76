"""numba kernels compiled on first use.

Importing numba costs about half a second and compiling a kernel a second or more, so the
planning solvers keep their kernels as plain Python functions and compile them only when a call
needs one (a large search); small instances never import numba (the cold-start target of issue
14). Kernels that call each other are compiled together and rebound in their module, so numba
sees compiled callees.
"""
from __future__ import annotations

_COMPILED: set[tuple[str, tuple[str, ...]]] = set()


def compile_kernels(module_globals: dict, names: tuple[str, ...]) -> None:
    """Replace the functions ``names`` of a module by ``numba.njit(cache=True)`` versions, once."""
    key = (module_globals["__name__"], names)
    if key in _COMPILED:
        return
    import numba

    for name in names:
        fn = module_globals[name]
        if not isinstance(fn, numba.core.registry.CPUDispatcher):
            module_globals[name] = numba.njit(cache=True)(fn)
    _COMPILED.add(key)
