"""The kernels built ahead of time (kumo_gym.solvers.native, kumo_gym.envs.build_native): grid, KUMO, SPaRC.

The build is made here, into a temporary directory, in a fresh process (as ``make install`` does);
the instances it generates are compared with those of the kernels compiled by numba on first use,
for every grid puzzle at every preset and for KUMO Hard instances with the oracle's play, each
side in its own process. A stale build and
``KUMO_GYM_NATIVE=0`` must leave the kernels to numba.
"""
from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kumo_gym.core.registry import entries
from kumo_gym.envs import build_native
from kumo_gym.solvers import native

ROOT = Path(__file__).resolve().parents[1]

FINGERPRINTS = r"""
import hashlib, json, sys
import numpy as np
from kumo_gym.core.registry import entries, get_task
from kumo_gym.envs import build_native
from kumo_gym.solvers import native
out = {"native": native.native_module() is not None, "ids": {}}
for e in entries():
    if e.family != "grid":
        continue
    task = get_task(e.id)
    h = hashlib.sha256()
    for difficulty in ("trivial", "easy", "normal", "hard"):
        for seed in range(2):
            h.update(task.generate(np.random.default_rng(seed), difficulty=difficulty).to_json().encode())
    out["ids"][e.id] = h.hexdigest()
kumo = get_task("kumo_gym/KUMO-v0")  # Hard: the oracle's search runs in the numba kernel
for seed in range(4):
    inst = kumo.generate(np.random.default_rng(seed), difficulty="hard")
    out["ids"][f"KUMO hard {seed}"] = [inst.to_json(), kumo.golden_moves(inst), kumo.oracle(inst).expected]
print(json.dumps(out))
"""


def _env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("KUMO_GYM_NATIVE", "KUMO_GYM_NATIVE_DIR")}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def built(native_build):
    return native_build


def test_the_build_exports_every_kernel_with_its_source_key(built, monkeypatch):
    for mod in build_native.kernel_modules():  # registers every entry point of this checkout
        __import__(f"kumo_gym.{mod}")
    sources = native.read_sources(built)
    assert sources == build_native.kernel_sources(build_native.kernel_modules())
    monkeypatch.setenv("KUMO_GYM_NATIVE_DIR", str(built))
    monkeypatch.delenv("KUMO_GYM_NATIVE", raising=False)
    native.native_module.cache_clear()
    try:
        mod = native.native_module()
        assert mod is not None and mod.source_key() == native.source_key(sources)
        assert len(native.ENTRIES) >= 23
        missing = [name for name in native.ENTRIES if not callable(getattr(mod, name, None))]
        assert missing == []
        # a stale build (sources edited since) is ignored; so is any build with KUMO_GYM_NATIVE=0
        native.native_module.cache_clear()
        monkeypatch.setattr(native, "source_key", lambda sources: mod.source_key() ^ 1)
        assert native.native_module() is None
        monkeypatch.undo()
        # a build made on another machine (another CPU) too
        monkeypatch.setenv("KUMO_GYM_NATIVE_DIR", str(built))
        monkeypatch.setattr(native, "_cpu", lambda: "another machine's CPU")
        native.native_module.cache_clear()
        assert native.native_module() is None
        monkeypatch.undo()
        monkeypatch.setenv("KUMO_GYM_NATIVE_DIR", str(built))
        monkeypatch.setenv("KUMO_GYM_NATIVE", "0")
        native.native_module.cache_clear()
        assert native.native_module() is None
    finally:
        native.native_module.cache_clear()


def test_an_edited_helper_of_a_kernel_makes_the_build_stale():
    """The key covers what the kernels import from the package (Towers' line queue), not only the
    kernel modules, and every file's name: renaming a kernel changes it too."""
    sources = build_native.kernel_sources(build_native.kernel_modules())
    assert "envs/grid/towers/line_queue.py" in sources and "solvers/native.py" in sources
    assert native.source_key(sources) != native.source_key([s for s in sources if not s.endswith("line_queue.py")])


def test_native_and_numba_kernels_give_the_same_instances(built):
    """Every grid puzzle, every preset, two seeds, and KUMO Hard with the oracle's play: the same from the
    build as from numba."""
    runs = {}
    for kind, extra in (("native", {"KUMO_GYM_NATIVE_DIR": str(built)}), ("numba", {"KUMO_GYM_NATIVE": "0"})):
        run = subprocess.run([sys.executable, "-c", FINGERPRINTS], env=_env(**extra), capture_output=True, text=True,
                             timeout=900, check=False)
        assert run.returncode == 0, run.stderr[-3000:]
        runs[kind] = json.loads(run.stdout.strip().splitlines()[-1])
    assert runs["native"]["native"] is True and runs["numba"]["native"] is False
    grid = [e.id for e in entries() if e.family == "grid"]
    assert sorted(runs["native"]["ids"]) == sorted(grid + [f"KUMO hard {seed}" for seed in range(4)])
    assert runs["native"]["ids"] == runs["numba"]["ids"]


def test_every_kernel_module_is_in_the_build():
    """A module joins the native build by declaring entry points with :func:`native.kernel` (nothing
    lists it): every grid puzzle's ``kernel.py`` and the other kernel modules are found, and every
    entry point goes through :func:`native.kernel` (none calls numba.njit itself)."""
    grid = ROOT / "kumo_gym" / "envs" / "grid"
    kernels = [*grid.glob("_*_kernel.py"), *grid.glob("*/kernel.py"), *grid.glob("*/*_kernel.py")]
    on_disk = {".".join(p.relative_to(ROOT / "kumo_gym").with_suffix("").parts) for p in kernels}
    on_disk |= {"envs.kumo.kernel", "envs.sparc.search.kernels", "solvers._propagation_kernels"}
    found = set(build_native.kernel_modules())
    assert on_disk <= found
    for mod in found:
        text = (ROOT / "kumo_gym" / (mod.replace(".", "/") + ".py")).read_text()
        assert "@njit" not in text and "@kernel(" in text, mod


def test_the_native_layer_names_no_module_above_it():
    """solvers/native.py is below envs (the layers contract): it may not name envs modules as strings
    either, which import-linter cannot see."""
    tree = ast.parse((ROOT / "kumo_gym" / "solvers" / "native.py").read_text())
    docs = {id(n.body[0].value) for n in ast.walk(tree) if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef))
            and n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    named = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
             and id(n) not in docs and ("envs." in n.value or "envs/" in n.value)]
    assert named == []


def test_kernel_falls_back_to_numba(monkeypatch):
    """Without a build (or with it turned off) an entry point is a numba function, compiled from its source."""
    monkeypatch.setenv("KUMO_GYM_NATIVE", "0")
    native.native_module.cache_clear()
    try:
        import numba

        @native.kernel("int64(int64, int64)")
        def twice_sum(a, b):
            return 2 * (a + b)

        assert isinstance(twice_sum, numba.core.registry.CPUDispatcher) and twice_sum(3, 4) == 14
        assert native.ENTRIES[native.export_name(__name__, "twice_sum")][1] == "int64(int64, int64)"
    finally:
        native.ENTRIES.pop(native.export_name(__name__, "twice_sum"), None)
        native.native_module.cache_clear()
