"""Build the SPaRC search kernels ahead of time into a native extension (cold start).

``python -m kumo_gym.envs.build_native`` (run by ``make install``) compiles the kernels of
:mod:`kumo_gym.envs.sparc.search.kernels` with numba's ahead-of-time compiler into
``_sparc_native.<abi>.so`` beside them. A process that finds it searches at compiled speed from
its first node without importing numba at all: the first level-5 reset of a fresh process no
longer spends about 4.5 s compiling four kernels and 0.8 s starting numba. The module is built on
the machine that uses it (it is ignored by git) and carries :func:`kernels.source_key` of the
sources it was built from, so an edit of the kernels makes a stale build ignored (the kernels are
then compiled on first use, as without it) until it is built again.

The extension exports ``search`` (the search of :func:`kernels.search` with the region check and
the poly check chosen by two flags instead of passed as function pointers) and ``source_key``.
"""
from __future__ import annotations

import tempfile
import types
import warnings
from pathlib import Path

from . import kernels

MODULE = "_sparc_native"


def build(output_dir: str | Path | None = None, verbose: bool = False) -> Path:
    """Compile the extension into ``output_dir`` (default: this package); returns its path."""
    import numba

    with warnings.catch_warnings():
        # numba marks pycc as pending deprecation with no replacement yet; should it go, the
        # build fails, main() says so and the kernels are compiled on first use as before
        warnings.filterwarnings("ignore", message=".*pycc.*")
        from numba.pycc import CC

    out = Path(output_dir) if output_dir is not None else Path(__file__).resolve().parent
    opts = {"error_model": "numpy", "_nrt": False}

    def jit(fn, **bound):
        # a twin of the plain function whose calls to ``bound`` names reach compiled callees
        twin = types.FunctionType(fn.__code__, {**vars(kernels), **bound}, fn.__name__, fn.__defaults__,
                                  fn.__closure__)
        twin.__qualname__, twin.__module__ = fn.__qualname__, fn.__module__
        return numba.njit(**opts)(twin)

    tile = jit(kernels._tile)
    poly, no_poly = jit(kernels._poly_ok, tile=tile), jit(kernels._no_poly)
    regions, no_regions = jit(kernels._regions_ok), jit(kernels._no_regions)
    search = jit(kernels.search)
    key = kernels.source_key()

    cc = CC(MODULE)
    cc.output_dir = str(out)
    cc.verbose = verbose
    a, a2, a3 = "i8[::1]", "i8[:, ::1]", "i8[:, :, ::1]"

    @cc.export("search", f"i8(i8, i8, i8, i8, i8, i8, i8, {a}, {a}, {a}, {a}, {a3}, {a2}, {a2}, i8, i8)")
    def native_search(w, h, start, end, cap, prune, budget, tab, off, st, soff, shape_cells, sols, work, symbols,
                      pieces):
        if symbols == 0:
            return search(w, h, start, end, cap, prune, budget, tab, off, st, soff, shape_cells, sols, work,
                          no_regions, no_poly)
        if pieces == 0:
            return search(w, h, start, end, cap, prune, budget, tab, off, st, soff, shape_cells, sols, work,
                          regions, no_poly)
        return search(w, h, start, end, cap, prune, budget, tab, off, st, soff, shape_cells, sols, work,
                      regions, poly)

    @cc.export("source_key", "i8()")
    def native_key():
        return key

    with tempfile.TemporaryDirectory(prefix="kumo-sparc-native-") as tmp:
        cc.temp_dir = tmp
        cc.compile()
    return next(out.glob(f"{MODULE}.*"))


def main(argv=None) -> int:
    from ....solvers.native import build_main

    return build_main("SPaRC native kernels", build, argv)


if __name__ == "__main__":
    raise SystemExit(main())
