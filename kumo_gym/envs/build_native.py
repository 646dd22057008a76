"""Build the grid generation kernels and the KUMO search ahead of time into one native extension.

So that a fresh process's first reset compiles nothing. ``python -m kumo_gym.envs.build_native`` (run by ``make
install``) imports every module of :data:`kumo_gym.solvers.native.KERNEL_MODULES` in build mode, so that each
:func:`~kumo_gym.solvers.native.kernel` entry point is registered with its signature (the
helpers the entry points call become numba functions), and compiles them all with numba's ahead-of-time compiler into ``kumo_gym/solvers/_native_kernels.<abi>.so``,
which also exports the :func:`~kumo_gym.solvers.native.source_key` of the sources it was built
from. It is built on the machine that uses it (ignored by git); without a C compiler, or with a
numba that no longer has ``pycc``, nothing is built and the kernels compile on first use as before.
"""
from __future__ import annotations

import importlib
import sys
import tempfile
import warnings
from pathlib import Path

from ..solvers import native


def build(output_dir: str | Path | None = None, verbose: bool = False) -> Path:
    """Compile the extension into ``output_dir`` (default: the ``kumo_gym.solvers`` package)."""
    if any(f"kumo_gym.{mod}" in sys.modules for mod in native.KERNEL_MODULES):
        raise RuntimeError("build the native kernels in a fresh process (python -m kumo_gym.envs.build_native)")
    native._BUILDING = True  # entry points left for the builder; the helpers they call become numba functions
    native.native_module.cache_clear()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*pycc.*")  # pending deprecation, no replacement yet
        from numba.pycc import CC
    for mod in native.KERNEL_MODULES:
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
    key = native.source_key()

    @cc.export("source_key", "i8()")
    def source_key():
        return key

    for old in out.glob(f"{native.MODULE}.*"):
        old.unlink()
    with tempfile.TemporaryDirectory(prefix="kumo-native-") as tmp:
        cc.temp_dir = tmp
        cc.compile()
    return next(out.glob(f"{native.MODULE}.*"))


def main(argv=None) -> int:
    return native.build_main("grid generation kernels and the KUMO search", build, argv, default_out="kumo_gym/solvers")


if __name__ == "__main__":
    raise SystemExit(main())
