"""The SPaRC search built ahead of time (cold start): the same results as the kernel
compiled on first use, node counts included; a stale build is ignored; a process that has the
build makes a level-5 puzzle without importing numba."""
from __future__ import annotations

import importlib.util
import shutil
import sys

import numpy as np
import pytest

from kumo_gym.envs.sparc.generate import generate
from kumo_gym.envs.sparc.puzzle import SparcPuzzle
from kumo_gym.envs.sparc.search import PRUNE_ALL, _run, kernels, puzzle_data

from .conftest import fresh_reset

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The extension built into a temporary directory (about 15 s of compiling)."""
    from kumo_gym.envs.build_native import MODULE, build

    if shutil.which("cc") is None and shutil.which("gcc") is None:
        pytest.skip("no C compiler here to build the native kernels with")
    path = build(tmp_path_factory.mktemp("native"))
    spec = importlib.util.spec_from_file_location(MODULE, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture
def fresh_native():
    kernels.native.cache_clear()
    yield
    kernels.native.cache_clear()


def _puzzles(maybe_ref_records):
    out = [SparcPuzzle.from_record(r) for r in maybe_ref_records[:20]]
    rng = np.random.default_rng(11)
    # every level, so squares, stars, triangles, polys and ylops all come up
    out += [generate(rng, level=lv).puzzle for lv in (1, 2, 3, 3, 4, 4, 5, 5)]
    out += [generate(rng, level=3, rules="polys_ylops").puzzle]
    return out


def test_native_build_matches_the_compiled_kernel(built, maybe_ref_records, monkeypatch):
    puzzles = _puzzles(maybe_ref_records)
    assert any(p.symbols for p in puzzles) and any(s[0] == 5 for p in puzzles for s in p.symbols.values())
    for p in puzzles:
        data = puzzle_data(p)
        for cap, node_limit in ((-1, 0), (3, 0), (-1, 500)):
            monkeypatch.setattr(kernels, "native", lambda: None)
            jit = _run(data, cap, PRUNE_ALL, node_limit, 64, None, python_nodes=0)
            monkeypatch.setattr(kernels, "native", lambda: built.search)
            nat = _run(data, cap, PRUNE_ALL, node_limit, 64, None, python_nodes=0)
            assert nat[:3] == jit[:3]
            assert (nat[3] == jit[3]).all() and (nat[4] == jit[4]).all()


def test_a_stale_build_is_ignored(built, monkeypatch, fresh_native):
    assert built.source_key() == kernels.source_key()
    import kumo_gym.envs.sparc.search as package

    # this module stands in for the package's own build (which may or may not be there)
    monkeypatch.setitem(sys.modules, "kumo_gym.envs.sparc.search._sparc_native", built)
    monkeypatch.setattr(package, "_sparc_native", built, raising=False)
    assert kernels.native() is built.search and kernels.compiled()
    kernels.native.cache_clear()
    monkeypatch.setattr(kernels, "source_key", lambda: built.source_key() + 1)  # the kernels were edited
    assert kernels.native() is None


def test_a_level5_reset_with_the_build_needs_no_numba():
    if kernels.native() is None:
        pytest.skip("the native kernels are not built in this checkout (python -m kumo_gym.envs.build_native)")
    assert fresh_reset(0, 600, level=5) == "5 False"
