"""Build every kernel of the package ahead of time into one native extension: the grid generation
kernels, the KUMO oracle's search and SPaRC's search (the one build command).

So that a fresh process's first reset compiles nothing. ``python -m kumo_gym.envs.build_native`` (run by ``make
install``) finds every module that declares entry points with :func:`kumo_gym.solvers.native.kernel`
(:func:`kernel_modules`: a module joins the build by using the decorator, nothing lists it), imports
them in build mode, so that each entry point is registered with its signature (the helpers the
entry points call become numba functions), and compiles them all with numba's ahead-of-time compiler
into ``kumo_gym/solvers/_native_kernels.<abi>.so``. The extension exports the
:func:`~kumo_gym.solvers.native.source_key` of the sources it was built from; their list is written
beside it (:data:`~kumo_gym.solvers.native.SOURCES`), so a process checks that none of them changed.
It is built on the machine that uses it (ignored by git); without a C compiler, or with a numba that
no longer has ``pycc`` (deprecated by numba, see docs/performance.md), nothing is built and the
kernels compile on first use as before (numba's JIT, cached on disk).
"""
from __future__ import annotations

import ast
import importlib
import sys
import tempfile
import warnings
from pathlib import Path

from ..solvers import native

_ROOT = Path(native.__file__).resolve().parents[1]  # the kumo_gym package


def _dotted(path: Path) -> str:
    return ".".join(path.relative_to(_ROOT).with_suffix("").parts)


def _is_role(call: ast.Call, role: str) -> bool:
    return any(k.arg == role and isinstance(k.value, ast.Constant) and k.value.value is True for k in call.keywords)


def kernel_declarations(tree: ast.Module) -> list[tuple[str, ast.Call]]:
    """The functions a module declares with ``@kernel(...)`` imported from ``solvers.native``:
    ``(name, decorator call)`` pairs (none when the module does not import :func:`kernel`)."""
    imported = any(isinstance(n, ast.ImportFrom) and (n.module or "").endswith("native")
                   and any(a.name == "kernel" and a.asname is None for a in n.names) for n in tree.body)
    if not imported:
        return []
    return [(n.name, d) for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) for d in n.decorator_list
            if isinstance(d, ast.Call) and isinstance(d.func, ast.Name) and d.func.id == "kernel"]


def _declares_kernels(tree: ast.Module) -> bool:
    """Whether a module declares an entry point of the native build: ``@kernel(...)`` in its default
    role (not ``python=True``, run as Python with a JIT twin, nor ``inner=True``, called by kernels)."""
    return any(not _is_role(d, "python") and not _is_role(d, "inner") for _, d in kernel_declarations(tree))


def kernel_modules() -> list[str]:
    """The modules (dotted, under kumo_gym) that declare kernel entry points, found by reading the
    sources (nothing is imported)."""
    out = []
    for path in sorted(_ROOT.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if "@kernel(" in text and _declares_kernels(ast.parse(text)):
            out.append(_dotted(path))
    return out


def _imports(path: Path) -> set[Path]:
    """The package's plain modules (not packages) that ``path`` imports, by relative import."""
    out = set()
    for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(n, ast.ImportFrom) and n.level:
            base = path.parent
            for _ in range(n.level - 1):
                base = base.parent
            target = base.joinpath(*(n.module or "").split(".")) if n.module else base
            candidates = [target.with_suffix(".py")] + [target / f"{a.name}.py" for a in n.names]
            out.update(c for c in candidates if c.is_file() and c.name != "__init__.py")
    return out


def kernel_sources(modules: list[str]) -> list[str]:
    """What a build of ``modules`` is made from: their files, the package modules they import (and
    those import, ...), :mod:`kumo_gym.solvers.native` and this builder; paths relative to kumo_gym."""
    todo = [_ROOT.joinpath(*m.split(".")).with_suffix(".py") for m in modules]
    todo += [Path(native.__file__).resolve(), Path(__file__).resolve()]
    seen: set[Path] = set()
    while todo:
        path = todo.pop()
        if path not in seen:
            seen.add(path)
            todo.extend(_imports(path) - seen)
    return sorted(p.relative_to(_ROOT).as_posix() for p in seen)


def build(output_dir: str | Path | None = None, verbose: bool = False) -> Path:
    """Compile the extension into ``output_dir`` (default: the ``kumo_gym.solvers`` package)."""
    modules = kernel_modules()
    if any(f"kumo_gym.{mod}" in sys.modules for mod in modules):
        raise RuntimeError("build the native kernels in a fresh process (python -m kumo_gym.envs.build_native)")
    # first, so that a numba without pycc (ImportError: the kernels then compile on first use) leaves
    # this process as it found it
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*pycc.*")  # pending deprecation, no replacement yet
        from numba.pycc import CC
    native._BUILDING = True  # entry points left for the builder; the helpers they call become numba functions
    native.native_module.cache_clear()
    for mod in modules:
        importlib.import_module(f"kumo_gym.{mod}")
    out = Path(output_dir) if output_dir is not None else Path(native.__file__).resolve().parent
    cc = CC(native.MODULE)
    cc.output_dir = str(out)
    cc.verbose = verbose
    # for this machine's CPU, as numba's JIT compiles (pycc's default is a generic x86-64)
    from llvmlite import binding

    cc.target_cpu = binding.get_host_cpu_name()
    # numba's runtime stays linked in: without it the KUMO search leaves an NRT symbol unresolved and
    # the module does not load
    for name, (fn, sig, _options) in sorted(native.ENTRIES.items()):
        if sig is None:
            raise RuntimeError(f"kernel {name} has no signature to build it with (give kernel() an aot_sig)")
        cc.export(name, sig)(fn)
    sources = kernel_sources(modules)
    key = native.source_key(sources)

    @cc.export("source_key", "i8()")
    def source_key():
        return key

    for old in out.glob(f"{native.MODULE}.*"):
        old.unlink()
    with tempfile.TemporaryDirectory(prefix="kumo-native-") as tmp:
        cc.temp_dir = tmp
        cc.compile()
    (out / native.SOURCES).write_text("\n".join(sources) + "\n", encoding="utf-8")
    return next(p for p in out.glob(f"{native.MODULE}.*") if p.name != native.SOURCES)


def main(argv=None) -> int:
    return native.build_main("grid, KUMO and SPaRC kernels", build, argv, default_out="kumo_gym/solvers")


if __name__ == "__main__":
    raise SystemExit(main())
