"""SPaRC benchmark: exhaustive enumeration (numba vs plain Python), generation throughput, and the
level calibration against the 500 official test puzzles.

Usage::

    python benchmarks/sparc.py [RECORDS.jsonl ...] [--python-limit SECONDS] [--per-level N]

Enumerates every solution of each record (the reference sample under ``../shared/reference``
by default, plus any official record files given), once with the numba kernel (all pruning)
and once with the plain-Python enumerator of the same search (pruning 1-2, cut after
``--python-limit`` seconds per puzzle); checks both against the stored solution lists. Then
generates ``--per-level`` puzzles per difficulty level (CPU beside wall time) and compares
their level statistics with the per-level statistics of all 500 official test puzzles
(``kumo_gym.analysis.sparc.OFFICIAL_TEST_LEVELS``): mean grid area, positions of the shortest
solution (mean, standard deviation, minimum), distinct rule types and solution count, each
mean with its standard error, within 10 % of the official one or not. The same measuring code
runs over the 50 reference records as a check that it gives the table's kind of numbers.
Prints the tables and writes ``benchmarks/results/sparc.json``; ``benchmarks/readme_tables.py``
turns that into the tables of docs/sparc.md.
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

from kumo_gym.analysis.sparc import OFFICIAL_TEST_LEVELS, calibration_markdown, calibration_table, level_stats
from kumo_gym.envs.sparc.generate import generate
from kumo_gym.envs.sparc.official import read_records, reference_file
from kumo_gym.envs.sparc.puzzle import SparcPuzzle
from kumo_gym.envs.sparc.rules import is_solution
from kumo_gym.envs.sparc.search import enumerate_python, enumerate_solutions, puzzle_data


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
    """Throughput rows per level (CPU beside wall time), and the generated records."""
    out, records = [], []
    generate(np.random.default_rng(0), level=1)  # load the kernels before the clocks start
    for level in (1, 2, 3, 4, 5):
        rng = np.random.default_rng(1000 + level)
        t, c = time.perf_counter(), time.process_time()
        for _ in range(per_level):
            records.append(generate(rng, level=level).record())
        dt, cpu = time.perf_counter() - t, time.process_time() - c
        out.append({"level": level, "n": per_level, "seconds": dt, "cpu_seconds": cpu, "per_second": per_level / dt,
                    "per_cpu_second": per_level / max(cpu, 1e-9)})
    return out, records


def calibration(generated: list[dict], reference: list[dict] | None) -> dict:
    """Our level statistics against the official table, and the same statistics of the
    reference sample (the measuring code on official records)."""
    ours = level_stats(generated)
    rows, text = calibration_table(ours)
    out = {"official": OFFICIAL_TEST_LEVELS, "ours": ours, "rows": rows, "text": text,
           "all_within": all(r["ok"] for r in rows), "tolerance": 0.10}
    if reference:
        out["reference_sample"] = level_stats(reference)
    return out


# ---- tables (printed here, and written into docs/sparc.md by readme_tables.py) -----------------
def enumeration_table(result: dict) -> str:
    name, res = next(iter(result["enumeration"].items()))
    s = res["summary"]
    return "\n".join([
        f"| enumerate all solutions, {s['puzzles']} records of `{name}` | numba | plain Python |", "|---|---|---|",
        (f"| puzzles finished (Python cut at {s['python_limit_s']:.0f} s wall each) | {s['puzzles']} | "
        f"{s['python_finished']} |"),
        (f"| total on the {s['python_finished']} both finished: CPU (wall) | {s['numba_cpu_total_s_same_puzzles']:.2f} s "
         f"({s['numba_total_s_same_puzzles']:.2f} s) | {s['python_cpu_total_s_finished']:.1f} s "
         f"({s['python_total_s_finished']:.1f} s), "
         f"{s['python_cpu_total_s_finished'] / max(s['numba_cpu_total_s_same_puzzles'], 1e-9):.0f}x CPU |"),
        (f"| median per puzzle (wall) | {1000 * s['numba_median_s']:.1f} ms | "
        f"{1000 * (s['python_median_s'] or 0):.0f} ms |"),
        f"| slowest puzzle (`{s['numba_max_id']}`), CPU | {s['numba_max_cpu_s']:.2f} s | - |",
        (f"| stored solution sets reproduced | {'all' if s['all_match_stored'] else 'NOT all'} | "
        f"{'identical to numba' if s['python_equal_numba'] else 'DIFFERENT'} |")])


def generation_table(result: dict) -> str:
    m = result["machine"]
    lines = [(f"Load average {m['load_average_at_start'][0]:.1f} at the start of the run and "
             f"{m['load_average_at_end'][0]:.1f} at the end, on {m['cpus']} cores (wall times follow the load)."), "",
             "| level | puzzles | per CPU second | per wall second | CPU s |", "|---|---|---|---|---|"]
    for g in result["generation"]:
        lines.append(f"| {g['level']} | {g['n']} | {g['per_cpu_second']:.1f} | {g['per_second']:.1f} | "
                     f"{g['cpu_seconds']:.1f} |")
    return "\n".join(lines)


def levels_table(result: dict) -> str:
    cal = result["calibration"]
    ours = {int(k): v for k, v in cal["ours"].items()}
    official = {int(k): v for k, v in cal["official"].items()}
    out = [calibration_markdown(ours, official, cal["tolerance"])]
    ref = cal.get("reference_sample")
    if ref:
        out += ["", ("The same measuring code on the 50 official reference records (7-11 per level; mean, "
                "standard error in brackets):"), "",
                "| level | puzzles | area | shortest (sd, min) | rule types | solutions |", "|---|---|---|---|---|---|"]
        for lv, d in sorted((int(k), v) for k, v in ref.items()):
            out.append(f"| {lv} | {d['n']} | {d['area']:.2f} ({d['area_se']:.2f}) | {d['shortest']:.1f} "
                       f"({d['shortest_sd']:.1f}, {d['shortest_min']}) | {d['rule_types']:.2f} "
                       f"({d['rule_types_se']:.2f}) | {d['solutions']:.2f} ({d['solutions_se']:.2f}) |")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="*", help="official record files (JSONL/JSON) to enumerate as well")
    ap.add_argument("--python-limit", type=float, default=20.0, help="seconds per puzzle for the Python enumerator")
    ap.add_argument("--per-level", type=int, default=1000,
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
    print(generation_table(result))
    cal = calibration(generated, read_records(ref) if ref is not None else None)
    result["calibration"] = {k: v for k, v in cal.items() if k != "text"}
    print(f"\n== level calibration: {args.per_level} generated puzzles per level vs the 500 official test puzzles; "
          "means within 10 % ==")
    print(cal["text"])
    print(f"every mean within 10 %: {cal['all_within']}")
    print(levels_table(result))
    result["machine"]["load_average_at_end"] = list(os.getloadavg())
    print(f"load average at start / end: {result['machine']['load_average_at_start'][0]:.1f} / "
          f"{result['machine']['load_average_at_end'][0]:.1f} on {os.cpu_count()} CPUs")
    write_result(args.out, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
