"""The kernels built ahead of time (kumo_gym.solvers.native, kumo_gym.envs.build_native): grid, KUMO, SPaRC.

The build is the one ``make install`` made when it is current, else it is made here, into a temporary directory,
in a fresh process, by the same command (the ``native_build`` fixture of tests/conftest.py); the instances it generates are compared with those of the kernels compiled by numba on first use,
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


#: the only modules that may import numba itself: the one mechanism, and its builder (numba.pycc)
_NUMBA_ALLOWED = {"solvers/native.py", "envs/build_native.py"}


def _docstrings(tree: ast.AST) -> set[int]:
    return {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}


def escapes(rel: str, text: str) -> list[str]:
    """What in one module (``rel``, relative to kumo_gym) escapes the one way to compile kernels: an
    import of numba other than its type names (so no ``numba.njit``, ``jit``, ``cfunc``, ``vectorize``
    ..., nor ``numba.config``), a decorator or call that compiles outside :func:`native.kernel`
    (``njit``, ``jit``, ``compiled(globals(), ...)``), a ``compiled(f)`` of a function its module
    does not declare with ``@kernel(python=True)``, and any ``NUMBA_*`` setting."""
    tree = ast.parse(text)
    out = []
    docs = _docstrings(tree)
    from_native = any(isinstance(n, ast.ImportFrom) and (n.module or "").endswith("native")
                      and any(a.name == "compiled" and a.asname is None for a in n.names) for n in ast.walk(tree))
    python_kernels = {name for name, call in build_native.kernel_declarations(tree)
                      if build_native._is_role(call, "python")}
    for n in ast.walk(tree):
        if rel not in _NUMBA_ALLOWED:
            if isinstance(n, ast.Import) and any(a.name.split(".")[0] == "numba" for a in n.names):
                out.append(f"line {n.lineno}: import numba")
            if isinstance(n, ast.ImportFrom) and (n.module or "").split(".")[0] == "numba" and \
                    (n.module != "numba" or any(a.name != "types" for a in n.names)):
                out.append(f"line {n.lineno}: from {n.module} import {', '.join(a.name for a in n.names)}")
        if isinstance(n, ast.Call):
            name = n.func.id if isinstance(n.func, ast.Name) else n.func.attr if isinstance(n.func, ast.Attribute) else ""
            if name in ("njit", "jit", "cfunc", "vectorize", "guvectorize", "generated_jit", "stencil") \
                    and rel not in _NUMBA_ALLOWED:
                out.append(f"line {n.lineno}: {name}(...) outside kumo_gym.solvers.native.kernel")
            if name == "compiled" and n.args and from_native:
                first = n.args[0]
                if isinstance(first, ast.Call) and isinstance(first.func, ast.Name) and first.func.id == "globals":
                    out.append(f"line {n.lineno}: compiled(globals(), ...): declare the kernels with @kernel(python=True)")
                elif isinstance(first, ast.Name) and first.id not in python_kernels:
                    out.append(f"line {n.lineno}: compiled({first.id}) of a function not declared @kernel(python=True)")
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs and "NUMBA_" in n.value:
            out.append(f"line {n.lineno}: a NUMBA_ setting")
        if isinstance(n, ast.Attribute) and n.attr == "config" and isinstance(n.value, ast.Name) and n.value.id == "numba":
            out.append(f"line {n.lineno}: numba.config")
    return out


def test_no_compiled_code_escapes_the_one_mechanism():
    """Every numba function of the package is declared with :func:`native.kernel` (an entry point, a
    kernel also run as Python, or a function kernels call): no module but ``solvers/native.py`` and
    its builder imports numba beyond its type names, calls numba's compiler or changes a numba
    setting (``numba.config``, a ``NUMBA_*`` variable), at import or later."""
    found = {}
    for path in sorted((ROOT / "kumo_gym").rglob("*.py")):
        rel = path.relative_to(ROOT / "kumo_gym").as_posix()
        bad = escapes(rel, path.read_text(encoding="utf-8"))
        if bad:
            found[rel] = bad
    assert found == {}
    assert not (ROOT / "kumo_gym" / "solvers" / "_numba_light.py").exists()


@pytest.mark.parametrize("source, what", [
    ("import numba\n\n@numba.njit(cache=True)\ndef f(x):\n    return x\n", "import numba"),
    ("from numba import njit\n\n@njit\ndef f(x):\n    return x\n", "from numba import njit"),
    ("from numba.core import config\n", "from numba.core import config"),
    ("def f():\n    return njit(g)\n", "njit(...)"),
    ("from ..solvers.native import compiled\nk = compiled(globals(), ('f',))\n", "compiled(globals(), ...)"),
    ("from ..solvers.native import compiled\n\ndef f(x):\n    return x\n\ng = compiled(f)\n", "compiled(f)"),
    ("import os\nos.environ['NUMBA_OPT'] = '1'\n", "NUMBA_"),
    ("def f(numba):\n    numba.config.OPT = 1\n", "numba.config"),
])
def test_the_escape_check_bites(source, what):
    """Each way out of the mechanism is caught (the check above cannot pass vacuously); the declared
    forms are not."""
    assert any(what in line for line in escapes("envs/some/module.py", source)), escapes("envs/some/module.py", source)


def test_the_declared_forms_pass_the_escape_check():
    ok = ("from numba import types as nt\nfrom ..solvers.native import compiled, kernel\n\n"
          "@kernel(nt.int64(nt.int64), inner=True)\ndef g(x):\n    return x\n\n"
          "@kernel(python=True, callees=('g',))\ndef f(x):\n    return g(x)\n\nh = compiled(f)\n")
    assert escapes("envs/some/module.py", ok) == []


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


def _step(x):
    return x - 1


@native.kernel(python=True, callees=("_step",))
def _depth(x):
    return 0 if x <= 0 else 1 + _depth(_step(x))


def test_a_kernel_run_as_python_keeps_its_plain_function_and_compiles_a_twin():
    """``@kernel(python=True)``: the name stays the plain function (no numba for small inputs);
    :func:`native.compiled` gives its numba twin, compiled with its callees and calling itself
    compiled (recursion), made once; a function not declared so is refused with its name."""
    import numba

    assert not isinstance(_depth, numba.core.registry.CPUDispatcher) and _depth(5) == 5
    twin = native.compiled(_depth)
    assert isinstance(twin, numba.core.registry.CPUDispatcher) and twin(7) == 7 and native.compiled(_depth) is twin
    assert not isinstance(globals()["_depth"], numba.core.registry.CPUDispatcher)
    assert not isinstance(globals()["_step"], numba.core.registry.CPUDispatcher)
    with pytest.raises(ValueError, match="step.*not declared with @kernel"):
        native.compiled(_step)
    with pytest.raises(ValueError, match="two different roles"):
        native.kernel(python=True, inner=True)


def test_the_package_kernels_run_as_python_give_what_their_twins_give():
    """Every kernel the package also runs as Python is declared (its module's ``compiled(f)`` would
    raise otherwise), and the twins of the planning and games searches agree with the plain runs."""
    from kumo_gym.envs.games.pegs.search import _dfs
    from kumo_gym.envs.planning.search import blocks, river

    assert river.river_count_moves(3, 2, backend="numba") == river.river_count_moves(3, 2, backend="python")
    start, goal = [["a", "b", "c"], ["d"], []], [["d", "c", "b", "a"], [], []]
    assert blocks.blocks_search(start, goal, backend="numba") == blocks.blocks_search(start, goal, backend="python")
    assert native._PYTHON[_dfs][0] == ("_probe", "_isolated")


def test_a_fresh_process_without_the_build_still_resets(tmp_path):
    """Cold start without the native extension (an empty build directory, an empty numba cache): the
    first reset of a grid puzzle and of KUMO Hard still works, through numba's JIT with its on-disk
    cache, and draws the instance this process draws."""
    empty, cache = tmp_path / "no-build", tmp_path / "numba-cache"
    empty.mkdir()
    code = (
        "import json, gymnasium as gym, kumo_gym\n"
        "from kumo_gym.solvers import native\n"
        "out = {'native': native.native_module() is not None}\n"
        "for env_id, kw in (('kumo_gym/Towers-v0', {}), ('kumo_gym/KUMO-v0', {'difficulty': 'hard'})):\n"
        "    env = gym.make(env_id, **kw)\n"
        "    obs, info = env.reset(seed=0)\n"
        "    out[env_id] = [info['instance_id'], len(obs)]\n"
        "out['jit'] = sorted(k for k in native.ENTRIES if not hasattr(native.native_module(), k))[:3]\n"
        "print(json.dumps(out))\n")
    run = subprocess.run([sys.executable, "-c", code], env=_env(KUMO_GYM_NATIVE_DIR=str(empty),
                                                                NUMBA_CACHE_DIR=str(cache)),
                         capture_output=True, text=True, timeout=900, check=False)
    assert run.returncode == 0, run.stderr[-3000:]
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert out["native"] is False and out["jit"]
    import gymnasium as gym

    for env_id, kw in (("kumo_gym/Towers-v0", {}), ("kumo_gym/KUMO-v0", {"difficulty": "hard"})):
        obs, info = gym.make(env_id, **kw).reset(seed=0)
        assert out[env_id] == [info["instance_id"], len(obs)], env_id
    assert any(cache.rglob("*.nbi")), "numba's on-disk cache was not used"


def test_a_numba_without_pycc_builds_nothing_and_the_kernels_fall_back(tmp_path):
    """What happens when numba drops ``pycc``: the one build command says it cannot build and why
    (exit status 1, which ``make install`` passes over), writes nothing, and leaves every kernel to
    numba's JIT: the same instance as ever at the first reset."""
    out = tmp_path / "build"
    out.mkdir()
    code = (
        "import json, sys\n"
        "sys.modules['numba.pycc'] = None  # as in a numba release without it\n"
        "from kumo_gym.envs import build_native\n"
        "from kumo_gym.solvers import native\n"
        f"status = build_native.main(['--out', {str(out)!r}])\n"
        "import gymnasium as gym, kumo_gym\n"
        "obs, info = gym.make('kumo_gym/Towers-v0').reset(seed=0)\n"
        "print(json.dumps([status, native._BUILDING, native.native_module() is None, info['instance_id']]))\n")
    run = subprocess.run([sys.executable, "-c", code], env=_env(KUMO_GYM_NATIVE_DIR=str(out)), capture_output=True,
                         text=True, timeout=900, check=False)
    assert run.returncode == 0, run.stderr[-3000:]
    status, building, fallback, instance_id = json.loads(run.stdout.strip().splitlines()[-1])
    assert "not built (" in run.stderr and "pycc" in run.stderr and "compiled on first use" in run.stderr
    assert (status, building, fallback) == (1, False, True) and list(out.iterdir()) == []
    import gymnasium as gym

    assert instance_id == gym.make("kumo_gym/Towers-v0").reset(seed=0)[1]["instance_id"]
