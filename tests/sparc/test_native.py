"""The SPaRC search built ahead of time into the package's one native extension (cold start): the
same results as the kernel compiled on first use, node counts included; it is used only from a
loaded (fresh) build; a process that has the build makes a level-5 puzzle without importing numba."""
from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from kumo_gym.envs.sparc.generate import generate
from kumo_gym.envs.sparc.puzzle import SparcPuzzle
from kumo_gym.envs.sparc.search import PRUNE_ALL, _run, kernels, puzzle_data
from kumo_gym.solvers import native

from .conftest import fresh_reset

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def built(native_build):
    """SPaRC's entry point in the package's one native extension, built into a temporary directory."""
    path = next(p for p in sorted(native_build.glob(f"{native.MODULE}.*")) if p.name != native.SOURCES)
    spec = importlib.util.spec_from_file_location(native.MODULE, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return getattr(mod, native.export_name(kernels.__name__, "sparc_search"))


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
            monkeypatch.setattr(kernels, "native", lambda: built)
            nat = _run(data, cap, PRUNE_ALL, node_limit, 64, None, python_nodes=0)
            assert nat[:3] == jit[:3]
            assert (nat[3] == jit[3]).all() and (nat[4] == jit[4]).all()


def test_the_search_comes_from_the_one_native_build(built, monkeypatch, fresh_native):
    """SPaRC's search is the build's entry point when the package's build is loaded (fresh, enabled:
    the one staleness check of solvers/native.py, tested in tests/test_native_kernels.py), else None."""
    class Build:
        pass

    setattr(Build, native.export_name(kernels.__name__, "sparc_search"), staticmethod(built))
    monkeypatch.setattr(kernels, "native_module", lambda: Build)
    assert kernels.native() is built and kernels.compiled()
    kernels.native.cache_clear()
    monkeypatch.setattr(kernels, "native_module", lambda: None)  # none, stale or KUMO_GYM_NATIVE=0
    assert kernels.native() is None


def test_a_level5_reset_with_the_build_needs_no_numba():
    if kernels.native() is None:
        pytest.skip("the native kernels are not built in this checkout (python -m kumo_gym.envs.build_native)")
    assert fresh_reset(0, 600, level=5) == "5 False"
