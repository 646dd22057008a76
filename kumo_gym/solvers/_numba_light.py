"""Compile a grid kernel with lighter LLVM optimisation (a fresh process's first reset
compiles the kernel it needs, and must stay under 3 s of CPU).

Generation kernels spend most of their first compile in LLVM's optimiser; at level 1 it costs
about a third less, and the kernels' branchy integer loops run about as fast as at level 3
(Range's the same, Galaxies' about a fifth slower). :func:`light_opt` lowers numba's
optimisation level while a kernel with an explicit signature compiles (at its decoration) and
restores it after, so no other compilation in the process is affected; the target machine is
set up first, at the process's own level.
"""
from __future__ import annotations

import contextlib

from numba.core import config, registry


@contextlib.contextmanager
def light_opt(level: int = 1):
    """Numba's optimisation level at most ``level`` inside the block."""
    _ = registry.cpu_target.target_context  # the code generator first, as it would be set up anyway
    saved = config.OPT
    config.OPT = type(saved)(min(int(saved), level))
    try:
        yield
    finally:
        config.OPT = saved
