"""SPaRC benchmark: exhaustive enumeration (numba vs plain Python) and generation throughput.

Usage::

    python benchmarks/sparc.py [RECORDS.jsonl ...] [--python-limit SECONDS] [--per-level N]

Enumerates every solution of each record (the reference sample under ``../shared/reference``
by default, plus any official record files given), once with the numba kernel (all pruning)
and once with the plain-Python enumerator of the same search (pruning 1-2, cut after
``--python-limit`` seconds per puzzle); checks both against the stored solution lists; then
generates ``--per-level`` puzzles per difficulty level and compares their level statistics
with the official ones of the reference sample (the calibration table: per level
and statistic, the official mean, ours, their ratio and whether ours lies within 15 %). Prints
the tables and writes ``benchmarks/results/sparc.json``.
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _common import write_result

from kumo_gym.analysis.sparc import calibration_markdown, calibration_table, level_stats
from kumo_gym.envs.sparc.generate import MIN_CONSTRAINTS, MIN_LENGTH, generate
from kumo_gym.envs.sparc.official import read_records, reference_file
from kumo_gym.envs.sparc.puzzle import SparcPuzzle
from kumo_gym.envs.sparc.rules import is_solution
from kumo_gym.solvers.sparc import enumerate_python, enumerate_solutions, puzzle_data


def stored_set(rec):
    return {tuple((d["x"], d["y"]) for d in s["path"]) for s in rec.get("solutions") or []}


def bench_enumeration(records, python_limit: float) -> dict:
    t0 = time.perf_counter()
    enumerate_solutions(records[0], cap=None)  # compile or load the numba cache
    warmup = time.perf_counter() - t0
    rows = []
    for rec in records:
        p = SparcPuzzle.from_record(rec)
        data = puzzle_data(p)
        t, c = time.perf_counter(), time.process_time()
        fast = enumerate_solutions(data, cap=None)
        t_fast, c_fast = time.perf_counter() - t, time.process_time() - c
        t, c = time.perf_counter(), time.process_time()
        slow = enumerate_python(data, lambda path, p=p: is_solution(p, path), time_limit=python_limit)
        t_slow, c_slow = time.perf_counter() - t, time.process_time() - c
        ok = {tuple(s) for s in fast.solutions} == stored_set(rec) if rec.get("solutions") is not None else None
        rows.append({"id": rec.get("id"), "size": f"{p.width}x{p.height}", "solutions": fast.count,
                     "nodes": fast.nodes, "numba_s": t_fast, "python_s": t_slow, "numba_cpu_s": c_fast,
                     "python_cpu_s": c_slow, "python_complete": slow.complete,
                     "python_nodes": slow.nodes, "matches_stored": ok,
                     "python_equal": slow.solutions == fast.solutions if slow.complete else None})
    both = [r for r in rows if r["python_complete"]]
    nt = [r["numba_s"] for r in rows]
    summary = {
        "puzzles": len(rows), "warmup_s": warmup,
        "numba_total_s": sum(nt), "numba_median_s": statistics.median(nt), "numba_max_s": max(nt),
        "numba_max_id": max(rows, key=lambda r: r["numba_s"])["id"],
        "numba_max_cpu_s": max(r["numba_cpu_s"] for r in rows),
        "numba_cpu_total_s_same_puzzles": sum(r["numba_cpu_s"] for r in both),
        "python_cpu_total_s_finished": sum(r["python_cpu_s"] for r in both),
        "python_finished": len(both), "python_limit_s": python_limit,
        "python_total_s_finished": sum(r["python_s"] for r in both),
        "numba_total_s_same_puzzles": sum(r["numba_s"] for r in both),
        "speedup_same_puzzles": (sum(r["python_s"] for r in both) / max(1e-9, sum(r["numba_s"] for r in both))),
        "python_median_s": statistics.median(r["python_s"] for r in both) if both else None,
        "all_match_stored": all(r["matches_stored"] is not False for r in rows),
        "python_equal_numba": all(r["python_equal"] is not False for r in rows),
    }
    return {"summary": summary, "rows": rows}


def bench_generation(per_level: int) -> tuple[list[dict], list[dict]]:
    """Throughput rows per level, and the generated records (for the calibration table)."""
    out, records = [], []
    for level in (1, 2, 3, 4, 5):
        rng = np.random.default_rng(1000 + level)
        t, c = time.perf_counter(), time.process_time()
        areas, sols = [], []
        for _ in range(per_level):
            g = generate(rng, level=level)
            areas.append(g.puzzle.width * g.puzzle.height)
            sols.append(len(g.solutions))
            records.append(g.record())
        dt, cpu = time.perf_counter() - t, time.process_time() - c
        out.append({"level": level, "n": per_level, "seconds": dt, "cpu_seconds": cpu, "per_second": per_level / dt,
                    "per_cpu_second": per_level / max(cpu, 1e-9),
                    "mean_area": float(np.mean(areas)), "mean_solutions": float(np.mean(sols))})
    return out, records


def calibration(generated: list[dict], official: list[dict]) -> dict:
    """The calibration table: our level statistics against the official ones, and
    the no-trivial-puzzle floors (fewest positions of a shortest solution, fewest constraints)."""
    ours, theirs = level_stats(generated), level_stats(official)
    rows, text = calibration_table(ours, theirs)
    floors = {lv: {"min_length": MIN_LENGTH[lv], "min_constraints": MIN_CONSTRAINTS[lv],
                   "min_shortest": ours[lv]["min_shortest"], "min_constraints_seen": ours[lv]["min_constraints"],
                   "ok": ours[lv]["min_shortest"] >= MIN_LENGTH[lv]
                   and ours[lv]["min_constraints"] >= MIN_CONSTRAINTS[lv]} for lv in ours}
    return {"rows": rows, "ours": ours, "official": theirs, "floors": floors, "text": text,
            "markdown": calibration_markdown(rows, ours, theirs),
            "all_within": all(r["ok"] for r in rows), "no_trivial": all(f["ok"] for f in floors.values())}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="*", help="official record files (JSONL/JSON) to enumerate as well")
    ap.add_argument("--python-limit", type=float, default=20.0, help="seconds per puzzle for the Python enumerator")
    ap.add_argument("--per-level", type=int, default=300,
                    help="puzzles generated per level (timed, and compared with the official levels)")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "sparc.json"))
    args = ap.parse_args(argv)

    sources = [Path(f) for f in args.files]
    ref = reference_file()
    if ref is not None:
        sources.insert(0, ref)
    # the load average says how contended the (shared) machine was while this ran
    result = {"machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "platform": platform.platform(),
                          "load_average_at_start": list(os.getloadavg())},
              "enumeration": {}, "generation": None}
    for src in sources:
        records = read_records(src)
        res = bench_enumeration(records, args.python_limit)
        result["enumeration"][src.name] = res
        s = res["summary"]
        print(f"\n== enumerate every solution: {src.name} ({s['puzzles']} puzzles) ==")
        print(f"{'':28}{'numba':>12}{'python':>14}")
        print(f"{'puzzles finished':28}{s['puzzles']:>12}{s['python_finished']:>14}")
        print(f"{'total s (same puzzles)':28}{s['numba_total_s_same_puzzles']:>12.3f}{s['python_total_s_finished']:>14.2f}")
        print(f"{'median s per puzzle':28}{s['numba_median_s']:>12.5f}"
              f"{s['python_median_s'] if s['python_median_s'] is not None else float('nan'):>14.4f}")
        print(f"{'CPU s (same puzzles)':28}{s['numba_cpu_total_s_same_puzzles']:>12.3f}"
              f"{s['python_cpu_total_s_finished']:>14.2f}")
        print(f"{'max s per puzzle (numba)':28}{s['numba_max_s']:>12.3f}   ({s['numba_max_id']}, "
              f"{s['numba_max_cpu_s']:.3f} CPU s)")
        print(f"speedup on the puzzles both finished: {s['speedup_same_puzzles']:.0f}x; "
              f"numba warm-up {s['warmup_s']:.2f} s; all match stored: {s['all_match_stored']}; "
              f"python == numba: {s['python_equal_numba']}")
        unfinished = [r for r in res["rows"] if not r["python_complete"]]
        for r in unfinished:
            print(f"  python unfinished after {args.python_limit:.0f} s: {r['id']} {r['size']} "
                  f"(numba {r['numba_s']:.3f} s, {r['nodes']} nodes)")
    if not sources:
        print("no record files (reference sample not found); enumeration skipped")
    gen, generated = bench_generation(args.per_level)
    result["generation"] = gen
    print("\n== generation (planted sampler, k = 50, enumeration included) ==")
    print(f"{'level':>6}{'puzzles/s':>12}{'per CPU s':>12}{'mean area':>12}{'mean sols':>12}")
    for g in gen:
        print(f"{g['level']:>6}{g['per_second']:>12.1f}{g['per_cpu_second']:>12.1f}{g['mean_area']:>12.1f}"
              f"{g['mean_solutions']:>12.1f}")
    if ref is not None:
        cal = calibration(generated, read_records(ref))
        result["calibration"] = {k: v for k, v in cal.items() if k != "text"}
        print(f"\n== level calibration: {args.per_level} generated puzzles per level vs the official sample "
              f"({ref.name}); means within 15 % (presence rates within 0.15 absolute) ==")
        print(cal["text"])
        for lv, f in cal["floors"].items():
            print(f"level {lv}: shortest solution >= {f['min_length']} positions (fewest seen {f['min_shortest']}), "
                  f">= {f['min_constraints']} constraints (fewest seen {f['min_constraints_seen']})")
        print(f"every statistic within tolerance: {cal['all_within']}; no trivial puzzle: {cal['no_trivial']}")
    else:
        print("\nno reference sample: level calibration skipped")
    result["machine"]["load_average_at_end"] = list(os.getloadavg())
    print(f"load average at start / end: {result['machine']['load_average_at_start'][0]:.1f} / "
          f"{result['machine']['load_average_at_end'][0]:.1f} on {os.cpu_count()} CPUs")
    write_result(args.out, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
