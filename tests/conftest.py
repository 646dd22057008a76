"""Shared fixtures: the registry, the reference-data folder, hostile strings."""
from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

# One OpenMP thread per test process (torch reads this when it is first imported; subprocesses and
# pytest-xdist workers inherit it). The models in the tests are tiny: extra threads only spin
# against the other workers on a 2-core machine. Measured on the loaded 2-core machine: the
# contamination example's test went from 113 s of CPU (508 s wall) to 20 s (72 s wall).
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

REPO = Path(__file__).resolve().parents[1]


def reference_dir() -> Path | None:
    """``../shared/reference`` beside the checkout, or ``$KUMO_GYM_REFERENCE``."""
    env = os.environ.get("KUMO_GYM_REFERENCE")
    path = Path(env) if env else REPO.parent / "shared" / "reference"
    return path if path.is_dir() else None


@pytest.fixture(scope="session")
def reference():
    path = reference_dir()
    if path is None:
        pytest.skip("reference data not found: expected ../shared/reference beside the checkout "
                    "or KUMO_GYM_REFERENCE (it ships with the papers' public releases, not with this repo)")
    return path


_PIECES = ["[", "]", "{", "}", "(", ")", "\"", "'", ",", "moves =", "moves=", "\\boxed{", "```", "```json\n",
           "<answer>", "</answer>", "<ANSWER>", "</ANSWER>", "####", "Answer: (A)", "Next state:", "</think>",
           "<think>", "...", "\u2026", "\x00", "\u202e", "\ud7ff", "-1", "99999999999999999999", "1e308", "nan",
           "A_1", "a_1", "R", "B", "[[1,0,2]]", "[[", "]]", "null", "true", "\n", "\t", " ", "0", "x", ";",
           "\\", "$", "%s", "{0}", "__import__('os')", "lambda: 0"]


def hostile_strings(n: int = 800, seed: int = 0) -> list[str]:
    """Fixed hostile inputs plus ``n`` random mixtures of answer-shaped fragments."""
    fixed = ["", " ", "\n" * 1000, "[" * 10_000, "]" * 10_000, "[" * 5000 + "]" * 5000,
             "{" * 10_000, "\\boxed{" * 3000, "moves = " + "[" * 20_000, "(" * 10_000,
             "x" * 1_000_000, "[1," * 200_000 + "1" + "]" * 200_000, "```" * 5000,
             "<answer>" * 5000, "<ANSWER>" * 2000 + "</ANSWER>", "\x00\x01\x02", "\ud800", "🙂" * 1000,
             "moves = [[1, 0, 2], [2, 0, 1]]...", "Answer: (C)", "####" * 1000, "null", "[]", "[[]]"]
    rnd = random.Random(seed)
    mixed = ["".join(rnd.choice(_PIECES) for _ in range(rnd.randint(1, 60))) for _ in range(n)]
    return fixed + mixed


def _installed_build() -> Path | None:
    """The directory of the build that ``make install`` made (``python -m kumo_gym.envs.build_native``, the same
    command as below), when it is there and current: built on this machine from exactly the kernel sources
    of this checkout, every entry point of every kernel module exported."""
    from kumo_gym.envs import build_native
    from kumo_gym.solvers import native

    if os.environ.get("KUMO_GYM_NATIVE_DIR") or os.environ.get("KUMO_GYM_NATIVE") == "0":
        return None
    mod = native.native_module()  # None when missing, stale (another key) or built on another CPU
    if mod is None:
        return None
    where = Path(mod.__file__).resolve().parent
    modules = build_native.kernel_modules()
    if native.read_sources(where) != build_native.kernel_sources(modules):
        return None
    for name in modules:
        __import__(f"kumo_gym.{name}")
    return where if all(callable(getattr(mod, e, None)) for e in native.ENTRIES) else None


@pytest.fixture(scope="session")
def native_build(tmp_path_factory) -> Path:
    """The package's one native extension (every ``@kernel`` entry point: grid, KUMO, SPaRC): the one ``make
    install`` built when it is current (:func:`_installed_build`), else built here into a temporary directory in
    a fresh process, as ``make install`` does (minutes on a busy machine, and once per test worker)."""
    import shutil
    import subprocess
    import sys

    installed = _installed_build()
    if installed is not None:
        return installed
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        pytest.skip("no C compiler here to build the native kernels with")
    out = tmp_path_factory.mktemp("native")
    root = Path(__file__).resolve().parents[1]
    env = {k: v for k, v in os.environ.items() if k not in ("KUMO_GYM_NATIVE", "KUMO_GYM_NATIVE_DIR")}
    env["PYTHONPATH"] = str(root) + os.pathsep + env.get("PYTHONPATH", "")
    run = subprocess.run([sys.executable, "-m", "kumo_gym.envs.build_native", "--out", str(out)],
                         env=env, capture_output=True, text=True, timeout=1800, check=False)
    assert run.returncode == 0, run.stderr[-3000:]
    return out
