"""Cold-start benchmark: the first reset of one environment per family in a fresh process.

Rows: one environment per family at its default parameters, and every grid puzzle again at its
hard preset. Each row runs a new Python subprocess with an EMPTY numba cache (``NUMBA_CACHE_DIR``
pointing at a new temporary directory, so every kernel the reset needs is compiled from scratch) that
imports ``kumo_gym``, makes the environment and calls ``reset(seed=0)`` once. The parent reports
the child's CPU time (user + system, ``resource.getrusage(RUSAGE_CHILDREN)`` deltas: compile
work counts in full even when the machine is loaded) beside its wall time, plus the child's own
split (import / make / reset, CPU seconds from ``time.process_time``) and whether numba, pysat,
matplotlib or torch were imported. Target: < 3 s CPU per family. Every kernel (grid generation,
the KUMO and SPaRC searches) is built ahead of time into one extension by ``make install``
(``python -m kumo_gym.envs.build_native``); the first two lines printed (``sparc_native_build`` and
``native_kernels_build`` in the JSON) say whether this checkout has SPaRC's entry point and the
extension. Every row is also run with the build turned off (``KUMO_GYM_NATIVE=0``, column "JIT CPU s"),
where each kernel the reset needs compiles from scratch: the fallback's cold-start cost.

Prints a table and writes ``benchmarks/results/coldstart.json``. ``--repeat N`` runs each row N
times (fresh cache every time) and keeps the lowest CPU time.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import write_result

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kumo_gym.core.registry import entries
from kumo_gym.envs.sparc.search import kernels as sparc_kernels
from kumo_gym.solvers import native as native_kernels

# one environment per family (every grid puzzle), default parameters unless noted
FAMILIES = {
    "planning": ("Hanoi", {}),
    "planning (numba BFS)": ("RiverCrossing", {}),
    "kumo": ("KUMO", {}),
    "kumo hard": ("KUMO", {"difficulty": "hard"}),  # the oracle's numba search (Easy plays in plain Python)
    "sparc": ("SPaRC", {}),
    "finereason": ("FineReasonStateChecking", {}),
}
# every grid puzzle: several carry a numba kernel of their own (Mosaic, Pattern, Unruly, ...)
FAMILIES.update({f"grid ({e.name})": (e.name, {}) for e in entries() if ".envs.grid." in e.task})
# and at its hard preset, where the kernels differ (Signpost's placement kernel only runs above 16 cells)
FAMILIES.update({f"grid hard ({e.name})": (e.name, {"difficulty": "hard"}) for e in entries() if ".envs.grid." in e.task})
TARGET_CPU_S = 3.0
HEAVY = ("numba", "pysat", "matplotlib", "torch", "scipy", "pandas")

CHILD = r"""
import json, sys, time
c0 = time.process_time()
import gymnasium as gym
import kumo_gym
c1 = time.process_time()
env = gym.make("kumo_gym/" + sys.argv[1] + "-v0", **json.loads(sys.argv[2]))
c2 = time.process_time()
env.reset(seed=0)
c3 = time.process_time()
heavy = [m for m in json.loads(sys.argv[3]) if m in sys.modules]
print(json.dumps({"import_cpu_s": c1 - c0, "make_cpu_s": c2 - c1, "reset_cpu_s": c3 - c2, "heavy_modules": heavy}))
"""


def run_once(name: str, params: dict, native: bool = True, warm: bool = False) -> dict:
    """One fresh child; ``native=False`` turns the kernels built ahead of time off (KUMO_GYM_NATIVE=0):
    everything the reset needs is then compiled by numba, from an empty cache. ``warm``: also a second
    fresh child on the cache the first one filled (its CPU time is ``warm_cpu_s``)."""
    with tempfile.TemporaryDirectory(prefix="kumo-coldstart-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
                   KUMO_GYM_NATIVE="1" if native else "0")
        row = _child(name, params, env)
        if warm:
            row["warm_cpu_s"] = _child(name, params, env)["cpu_s"]
    return row


def _child(name: str, params: dict, env: dict) -> dict:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", CHILD, name, json.dumps(params), json.dumps(HEAVY)],
                         env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        raise RuntimeError(f"{name}: child failed\n{out.stderr[-2000:]}")
    row = json.loads(out.stdout.strip().splitlines()[-1])
    row["cpu_s"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    row["wall_s"] = wall
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=1, help="runs per row (lowest CPU time kept)")
    ap.add_argument("--only", nargs="*", help="environment names to run (default: all)")
    ap.add_argument("--warm", action="store_true",
                    help="also time the JIT path in a second process on the numba cache the first one filled")
    ap.add_argument("--out", default=None, help="JSON to write (default: benchmarks/results/coldstart.json; "
                    "with --only, nothing unless given)")
    args = ap.parse_args(argv)


    rows = []
    # make install builds every kernel ahead of time (kumo_gym.envs.build_native, one extension); each row is
    # also run with it turned off (KUMO_GYM_NATIVE=0), where every kernel compiles on first use
    native = sparc_kernels.native() is not None
    grid_native = native_kernels.native_module() is not None
    print(f"SPaRC search built ahead of time: {'yes' if native else 'no (python -m kumo_gym.envs.build_native)'}")
    print("grid and KUMO kernels built ahead of time: "
          f"{'yes' if grid_native else 'no (python -m kumo_gym.envs.build_native)'}")
    print(f"{'family':22} {'env':26} {'CPU s':>7} {'wall s':>7} {'import':>7} {'make':>6} {'reset':>6} {'JIT CPU s':>10}"
          "  heavy modules")
    for family, (name, params) in FAMILIES.items():
        if args.only and name not in args.only:
            continue
        runs, jit_runs = [], []
        for _ in range(max(1, args.repeat)):  # the two kinds interleaved
            runs.append(run_once(name, params))
            jit_runs.append(run_once(name, params, native=False, warm=args.warm))
        best = min(runs, key=lambda r: r["cpu_s"])
        jit = min(jit_runs, key=lambda r: r["cpu_s"])
        best.update({"family": family, "env": f"kumo_gym/{name}-v0", "params": params,
                     "meets_target": best["cpu_s"] < TARGET_CPU_S, "jit_cpu_s": jit["cpu_s"], "jit_wall_s": jit["wall_s"],
                     "jit_meets_target": jit["cpu_s"] < TARGET_CPU_S})
        if args.warm:
            best["jit_warm_cpu_s"] = jit["warm_cpu_s"]
        rows.append(best)
        print(f"{family:22} {best['env']:26} {best['cpu_s']:7.2f} {best['wall_s']:7.2f} {best['import_cpu_s']:7.2f} "
              f"{best['make_cpu_s']:6.2f} {best['reset_cpu_s']:6.2f} {jit['cpu_s']:10.2f}  "
              f"{','.join(best['heavy_modules']) or '-'}"
              + (f"  JIT, cache filled: {jit['warm_cpu_s']:.2f}" if args.warm else ""), flush=True)
    result = {"benchmark": "coldstart", "python": platform.python_version(), "machine": platform.machine(),
              "cpus": os.cpu_count(), "load_avg_1m": os.getloadavg()[0], "target_cpu_s": TARGET_CPU_S,
              "sparc_native_build": native, "native_kernels_build": grid_native,
              "method": "fresh subprocess per row, NUMBA_CACHE_DIR = new empty temp dir; import kumo_gym, gym.make, "
                        "reset(seed=0); CPU = getrusage(RUSAGE_CHILDREN) user+sys delta; lowest of --repeat runs; "
                        "JIT: the same with the kernels built ahead of time turned off (KUMO_GYM_NATIVE=0), the two "
                        "interleaved",
              "rows": rows}
    if args.out is not None or not args.only:
        write_result(args.out or str(ROOT / "benchmarks" / "results" / "coldstart.json"), result, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
