"""The one way the package compiles kernels: :func:`kernel`, one build, one staleness check, one fallback.

Every numba kernel entry point (the unit-propagation kernel of :mod:`kumo_gym.solvers.propagation`,
each grid puzzle's ``envs/grid/<puzzle>/kernel.py``, the KUMO oracle's search in
``envs/kumo/kernel.py``, SPaRC's search in ``envs/sparc/search/kernels.py``) is declared with
:func:`kernel` instead of ``numba.njit``; that declaration is all it takes to join the build (the
builder finds the modules that use it). ``make install`` runs ``python -m kumo_gym.envs.build_native``,
which compiles all of them with numba's ahead-of-time compiler into one extension,
``_native_kernels.<abi>.so`` beside this module (ignored by git, built on the machine that uses it,
for its CPU, as numba's JIT compiles). A process that finds it calls the compiled entry points from
its first reset with nothing left to compile (docs/performance.md, "Cold start", has the figures).

The staleness check: the extension carries :func:`source_key`, a digest of every kernel source, what
those import from the package, this module, the builder and the CPU, listed beside it in
:data:`SOURCES`, so an edited kernel or another machine is never served by an old build. The
fallback: without the extension, with a stale one, or with ``KUMO_GYM_NATIVE=0`` in the environment,
:func:`kernel` hands the function to ``numba.njit(cache=True)``: compiled on first use and cached on
disk, so only a process's first use on a machine pays the compile. Both paths run the same source,
so they give the same instances (``tests/test_native_kernels.py`` compares them). The build compiles
at numba's full optimisation level and with its default error model, under which an integer division
by zero would raise instead of giving 0; no kernel divides by anything but a grid dimension or a
positive count.

:func:`kernel` is also how every other compiled function is declared, so that no module calls numba's
compiler itself: a function entry points call (``inner=True``), and a kernel that its module also
runs as plain Python (``python=True``: planning, the games, FineReason, the analysis layer, the plain
nodes of SPaRC's search), whose numba twin :func:`compiled` makes on first need. Those take Python
lists, dicts or function pointers, which the native build does not export: they always take the
fallback, numba's JIT with its on-disk cache. Nothing here, and nothing in the package, changes a
numba setting (``numba.config``, ``NUMBA_*`` variables): a user's own settings hold.

The builder uses ``numba.pycc``, which numba has marked as pending deprecation with no replacement
yet; when a numba release drops it, the build reports that it cannot run (``build_native`` exits 1
saying why, and ``make install`` goes on), no extension exists, and every kernel takes the fallback:
the same results, with the compile paid once per machine into numba's cache (docs/performance.md,
"Cold start", gives that cost).
"""
from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import types
from functools import cache
from pathlib import Path

MODULE = "_native_kernels"
#: beside the extension, the sources it was built from (one path a line, relative to the kumo_gym
#: package), written by the builder: the modules that declare entry points with :func:`kernel`
#: (the declaration is what joins a module to the build; this module names none of them), what
#: they import from the package, and the builder itself
SOURCES = f"{MODULE}.sources"
_ROOT = Path(__file__).resolve().parents[1]  # the kumo_gym package

#: every entry point declared so far: exported name -> (function, signature for the native build)
ENTRIES: dict[str, tuple] = {}


def export_name(module: str, name: str) -> str:
    """The native symbol of entry point ``name`` of ``module``: ``range_kernel__run`` for ``run`` of
    ``kumo_gym.envs.grid.range.kernel`` (a puzzle's ``kernel`` module is named with its package)."""
    parts = module.split(".")
    stem = parts[-1].strip("_")
    if stem in ("kernel", "search_kernel"):
        stem = f"{parts[-2]}_{stem}"
    return f"{stem}__{name}"


def source_key(sources) -> int:
    """A 63-bit digest of the ``sources`` a native build is made from (paths relative to the kumo_gym
    package; this module is always one), with their names and contents, and of this machine's CPU
    (the build is compiled for it): a build whose key differs is stale."""
    digest = hashlib.blake2b(digest_size=8)
    for rel in sorted(set(sources) | {"solvers/native.py"}):
        digest.update(rel.encode() + b"\0")
        digest.update((_ROOT / rel).read_bytes())
    digest.update(_cpu().encode())
    return int.from_bytes(digest.digest(), "little") >> 1


def read_sources(directory: Path) -> list[str]:
    """The source list written beside a build in ``directory`` (OSError when there is none)."""
    return [line for line in (directory / SOURCES).read_text(encoding="utf-8").splitlines() if line.strip()]


def _cpu() -> str:
    """This machine's CPU model and instruction-set flags (Linux's /proc/cpuinfo, first processor;
    elsewhere the architecture name)."""
    import platform

    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            head = f.read(1 << 16).split("\n\n", 1)[0]
    except OSError:
        return platform.machine()
    keep = ("vendor_id", "cpu family", "model", "model name", "flags", "Features", "CPU part")
    return "\n".join(line for line in head.splitlines() if line.split(":", 1)[0].strip() in keep)


def enabled() -> bool:
    """Whether native entry points may be used (``KUMO_GYM_NATIVE=0`` turns them off)."""
    return os.environ.get("KUMO_GYM_NATIVE", "1").strip() not in ("0", "false", "no", "off")


#: set by the builder: entry points stay plain functions (it compiles them itself)
_BUILDING = False


@cache
def native_module():
    """The extension built ahead of time, or None (not built, stale, or turned off). It is looked
    for beside this module, or in the directory ``KUMO_GYM_NATIVE_DIR`` names (a build made with
    ``build_native --out DIR``)."""
    if not enabled() or _BUILDING:
        return None
    where = os.environ.get("KUMO_GYM_NATIVE_DIR")
    try:
        if where:
            found = [p for p in sorted(Path(where).glob(f"{MODULE}.*")) if p.name != SOURCES]
            if not found:
                return None
            spec = importlib.util.spec_from_file_location(MODULE, found[0])
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
        else:
            mod = importlib.import_module(f"{__package__}.{MODULE}")
        key = source_key(read_sources(Path(mod.__file__).resolve().parent))
    except (ImportError, OSError):
        return None
    return mod if mod.source_key() == key else None


def kernel(sig=None, *, aot_sig=None, callees: tuple[str, ...] = (), jit: bool = True, python: bool = False,
           inner: bool = False, **options):
    """Declare a compiled function: the one decorator of the package's numba code.

    No module calls numba's compiler itself (``tests/test_native_kernels.py`` checks it); each
    compiled function is declared here in one of three roles.

    *An entry point* (the default): its native build when there is one, else ``numba.njit`` with
    numba's on-disk cache (the fallback). ``@kernel`` is what joins a function to the native build
    (``python -m kumo_gym.envs.build_native`` finds the modules that use it). ``sig``: the explicit
    numba signature (compiled at decoration, as ``njit(sig)``), or None for a kernel compiled at its
    first call; ``aot_sig`` is then the signature the native build exports. ``callees``: names of plain
    functions of the module that the entry point calls and that must stay plain Python for the
    module's own use (SPaRC's search runs its first nodes as Python); the build compiles the entry
    point against numba twins of them. ``jit=False``: without the native build the entry point stays
    the plain function (its module compiles what it needs on demand, and a process that never needs
    numba does not import it). Every entry point is cached on disk and releases the GIL.

    ``python=True``: *a kernel that its module also runs as plain Python* (planning, the games,
    FineReason, the analysis layer, the plain nodes of SPaRC's search): small inputs run it as it is,
    without importing numba, and :func:`compiled` gives its numba twin on first need (JIT only, cached
    on disk: these take Python lists, dicts or function pointers, which the native build does not
    export). The decorated name stays the plain function; ``callees`` name the module's functions
    that the twin calls, compiled with it.

    ``inner=True``: *a function that entry points call* (numba needs it compiled to call it):
    ``numba.njit(sig, **options)`` as given; with the native build loaded it is compiled only if some
    other numba code calls it (no eager signature).

    ``options``: numba's (``error_model``, ``_nrt``, ``inline`` ...).
    """
    if python and inner:
        raise ValueError("kernel(): python=True and inner=True are two different roles; pick one")

    def wrap(fn):
        if python:
            _PYTHON[fn] = (tuple(callees), options)
            return fn
        if inner:
            from numba import njit

            if sig is None or native_module() is not None:
                return njit(**options)(fn)
            return njit(sig, **options)(fn)
        name = export_name(fn.__module__, fn.__name__)
        if _BUILDING:  # the builder compiles fn; one that calls itself needs a numba function of its signature
            if callees:
                fn = _twin(fn, {**fn.__globals__, **_together(fn.__globals__, tuple(callees), options)})
            ENTRIES[name] = (fn, sig if sig is not None else aot_sig, options)
            if fn.__name__ not in fn.__code__.co_names:
                return fn
            from numba import njit

            return njit(ENTRIES[name][1], cache=True, nogil=True, **options)(fn)
        ENTRIES[name] = (fn, sig if sig is not None else aot_sig, options)
        mod = native_module()
        if mod is not None and hasattr(mod, name):
            return getattr(mod, name)
        if not jit:
            return fn
        from numba import njit

        return (njit(sig, cache=True, nogil=True, **options) if sig is not None else
                njit(cache=True, nogil=True, **options))(fn)
    return wrap


def _twin(fn, namespace: dict):
    """A copy of function ``fn`` that resolves its global names in ``namespace``."""
    twin = types.FunctionType(fn.__code__, namespace, fn.__name__, fn.__defaults__, fn.__closure__)
    twin.__qualname__, twin.__module__ = fn.__qualname__, fn.__module__
    return twin


#: the kernels declared with ``@kernel(python=True)``: function -> (callees, numba options)
_PYTHON: dict = {}
#: numba twins made so far, by module, names and options (see :func:`_together`) or by declaration
_COMPILED: dict[tuple, dict] = {}


def _together(module_globals: dict, names: tuple[str, ...], options: dict) -> dict:
    """``numba.njit(cache=True, **options)`` twins of the functions ``names`` of a module, made once:
    they resolve each other's names in a copy of the module's namespace where those names are bound
    to the twins (so functions that call each other, or themselves, are compiled together and numba
    sees compiled callees); the module's own functions are left as they are."""
    key = (module_globals["__name__"], names, tuple(sorted(options.items())))
    if key not in _COMPILED:
        import numba

        namespace = dict(module_globals)
        for name in names:
            namespace[name] = numba.njit(cache=True, **options)(_twin(module_globals[name], namespace))
        _COMPILED[key] = {name: namespace[name] for name in names}
    return _COMPILED[key]


def compiled(fn, sig=None, **bound):
    """The numba twin of ``fn``, a kernel declared with ``@kernel(python=True)``, made on first need.

    Without arguments it is compiled at its first call, together with the ``callees`` it declared
    (numba's JIT with its on-disk cache, as every kernel without a native build). ``sig``: one explicit
    signature instead (numba compiles it now, and no other); ``bound``: global names of ``fn`` bound to
    other compiled functions (SPaRC passes its checks as function pointers and binds the tiling). Raises
    ``ValueError`` for a function not declared with :func:`kernel`.
    """
    try:
        callees, options = _PYTHON[fn]
    except (KeyError, TypeError):
        raise ValueError(f"{getattr(fn, '__qualname__', fn)!r} is not declared with @kernel(python=True); "
                         "declare it so (kumo_gym.solvers.native.kernel) to compile it") from None
    if sig is None and not bound:
        return _together(fn.__globals__, (*callees, fn.__name__), options)[fn.__name__]
    key = (fn, sig, tuple(sorted((name, id(value)) for name, value in bound.items())))
    if key not in _COMPILED:
        import numba

        target = _twin(fn, {**fn.__globals__, **bound}) if bound else fn
        _COMPILED[key] = {"twin": numba.njit(sig, **{"cache": True, **options})(target), "bound": bound}
    return _COMPILED[key]["twin"]


def build_main(what: str, build, argv=None, default_out: str = "the package") -> int:
    """The command line of an ahead-of-time build (``python -m ...build_native [--out DIR] [--verbose]``):
    runs ``build(out, verbose=...)``; 1, saying why, when there is no C compiler or no numba pycc
    (the kernels then compile on first use)."""
    import argparse
    import shutil
    import sys

    ap = argparse.ArgumentParser(description=f"Build the {what} ahead of time into a native extension.")
    ap.add_argument("--out", default=None, help=f"directory to write the extension to (default: {default_out})")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args(argv)
    why = "no C compiler" if shutil.which("cc") is None and shutil.which("gcc") is None else None
    if why is None:
        try:
            path = build(args.out, verbose=args.verbose)
        except ImportError as e:  # no numba, or a numba without pycc
            why = str(e)
    if why is not None:
        print(f"{what} not built ({why}); they will be compiled on first use", file=sys.stderr)
        return 1
    print(f"built {path}")
    return 0
