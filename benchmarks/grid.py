"""Grid puzzle benchmark (grid_puzzles.md §8 "Benchmark"; issue 6).

Per puzzle and preset, in one run:

* our generator: instances per second (solution sampling, clue reduction with SAT uniqueness
  certificates), next to Tatham's C generator timed as ``sgt-<name> --generate 100 PARAMS``
  (per-instance time = wall time / 100) when sgt-puzzles is installed;
* verification throughput: rule checks of the golden answer per second;
* SAT: one solve plus the uniqueness proof (block the solution, re-solve to UNSAT), the
  ``count_solutions(limit=2)`` call, in milliseconds;
* calibration: the mean clue count of our puzzles next to Tatham's for the same parameters.

Prints a table and writes ``benchmarks/results/grid.json``. ``--quick`` uses fewer instances.
Every puzzle in the grid catalogue is included.
"""
from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kumo_gym.core.registry import entries, get_task
from kumo_gym.envs.grid import tatham

ENTRIES = [e for e in entries() if e.family == "grid"]

PRESETS = ("trivial", "easy", "normal", "hard")


def time_ours(task, difficulty: str, n: int) -> tuple[float, list]:
    insts = []
    t0 = time.perf_counter()
    for i in range(n):
        insts.append(task.generate(np.random.default_rng(1000 + i), difficulty=difficulty))
    return (time.perf_counter() - t0) / n, insts


def time_tatham(family: str, params: str, n: int = 100) -> float | None:
    exe = tatham.sgt_binary(family)
    if exe is None:
        return None
    t0 = time.perf_counter()
    subprocess.run([exe, "--generate", str(n), params], capture_output=True, check=True, timeout=600)
    return (time.perf_counter() - t0) / n


def tatham_clue_count(task, params: str, n: int) -> float | None:
    """Mean clue count of ``n`` Tatham puzzles for ``params`` (the §8 calibration)."""
    if tatham.sgt_binary(task.family) is None:
        return None
    short = task.encode_params(task.decode_params(params), full=False)
    saves = tatham.sgt_generate_saves(task.family, params, n)
    return float(np.mean([task.clue_count(task.load(f"{short}:{s['DESC']}")) for s in saves]))


def time_verify(task, insts: list, min_seconds: float = 0.2) -> float:
    golds = [task.solve(i) for i in insts]
    count = 0
    t0 = time.perf_counter()
    while True:
        for inst, gold in zip(insts, golds):
            task.verify(inst, gold)
            count += 1
        elapsed = time.perf_counter() - t0
        if elapsed >= min_seconds:
            return count / elapsed


def time_unique(task, insts: list) -> float:
    t0 = time.perf_counter()
    for inst in insts:
        assert task.count_solutions(inst, limit=2) == 1
    return (time.perf_counter() - t0) / len(insts)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer instances per preset")
    ap.add_argument("--puzzles", nargs="*", help="family names (default: every grid puzzle)")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "grid.json"))
    args = ap.parse_args(argv)
    names = [e.name for e in ENTRIES if not args.puzzles or e.name.lower() in args.puzzles]
    n_small, n_hard, n_tatham = (5, 2, 20) if args.quick else (20, 5, 100)
    rows = []
    for name in names:
        task = get_task(f"kumo_gym/{name}-v0")
        for diff in PRESETS:
            params = task.tatham_preset(diff)
            n = n_hard if diff == "hard" else n_small
            ours, insts = time_ours(task, diff, n)
            theirs = time_tatham(task.family, params, n_tatham)
            H, W = task.dims(insts[0])
            rows.append({
                "puzzle": name, "preset": diff, "tatham_params": params, "size": f"{W}x{H}", "n": n,
                "ours_ms_per_instance": 1000 * ours, "ours_instances_per_s": 1 / ours,
                "tatham_ms_per_instance": None if theirs is None else 1000 * theirs,
                "verify_per_s": time_verify(task, insts),
                "solve_and_unique_ms": 1000 * time_unique(task, insts),
                "clues_ours": float(np.mean([task.clue_count(i) for i in insts])),
                "clues_tatham": tatham_clue_count(task, params, n),
            })
            r = rows[-1]
            print(f"{name:8s} {diff:8s} {params:10s} {r['size']:>6s}  ours {r['ours_ms_per_instance']:9.1f} ms"
                  f"  tatham {'-' if theirs is None else f'{1000 * theirs:7.2f}'} ms"
                  f"  verify {r['verify_per_s']:9.0f}/s  sat+unique {r['solve_and_unique_ms']:8.1f} ms"
                  f"  clues {r['clues_ours']:.1f}/{r['clues_tatham'] or float('nan'):.1f}", flush=True)
    print()
    print(table(rows))
    meta = {"python": sys.version.split()[0], "machine": platform.machine(), "processor": platform.processor(),
            "sgt_version": next((tatham.sgt_version(get_task(f"kumo_gym/{n}-v0").family) for n in names), None),
            "quick": args.quick, "tatham_batch": n_tatham}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps({"meta": meta, "rows": rows}, indent=1) + "\n")
    print(f"\nwrote {args.out}")
    return 0


def table(rows: list[dict]) -> str:
    """The markdown table of the results (also pasted into docs/grid.md)."""
    head = ("| puzzle | preset | Tatham params | size | ours ms/inst | Tatham ms/inst | verify /s | "
            "SAT solve + uniqueness ms | clues ours / Tatham |")
    lines = [head, "|" + "---|" * 9]
    for r in rows:
        t = "n/a" if r["tatham_ms_per_instance"] is None else f"{r['tatham_ms_per_instance']:.2f}"
        lines.append(f"| {r['puzzle']} | {r['preset']} | `{r['tatham_params']}` | {r['size']} | "
                     f"{r['ours_ms_per_instance']:.1f} | {t} | {r['verify_per_s']:.0f} | "
                     f"{r['solve_and_unique_ms']:.1f} | {r['clues_ours']:.1f} / "
                     f"{'n/a' if r['clues_tatham'] is None else format(r['clues_tatham'], '.1f')} |")
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
