"""Grid puzzle benchmark: our generators beside Tatham's C generators (docs/specs/grid_puzzles.md §8).

Per puzzle and preset, in one run, interleaved round by round:

* **ours**: CPU time (``time.process_time``) and wall time per instance of ``task.generate``;
* **Tatham**: ``sgt-<name> --generate N PARAMS`` timed at two batch sizes N1 < N2; the per-game
  cost is the marginal ``(T(N2) - T(N1)) / (N2 - N1)``, so the 10-20 ms process start is not
  counted. CPU time comes from ``resource.getrusage(RUSAGE_CHILDREN)``, wall time beside it;
* the target: at most ``max(3 x Tatham, 1 ms)`` of CPU per instance;
* **calibration** (docs/specs/grid_puzzles.md §8): the mean clue count of our puzzles and of Tatham's (imported from
  ``--save`` files, generated from a fixed seed so that every run compares the same puzzles) for
  the same parameters, 200 a side (60 with ``--quick``, a fifth at hard), with their ratio and its
  standard error (target: within 15 %), and the docs/specs/grid_puzzles.md §8 grade histograms (0 propagation, 1
  failed-literal probing, 2 search) of the first 20 of both under our encoding;
* verification throughput (golden answers per second) and the SAT solve-plus-uniqueness time;
* the lazy-cut loop (connectivity, region sizes): cut rounds per generated instance and the
  most rounds a single solve needed.

Prints a table and writes ``benchmarks/results/grid.json``. ``--quick`` runs fewer instances;
``--puzzles`` and ``--presets`` choose what runs, and ``--merge`` puts those rows in place of the
same puzzles' and presets' rows of the file, keeping the others.
Every grid puzzle of the catalogue is included.
"""
from __future__ import annotations

import argparse
import gc
import json
import platform
import resource
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _common import write_result

from kumo_gym.core.registry import entries, get_task
from kumo_gym.envs.grid import tatham
from kumo_gym.solvers.engine import CUT_STATS

PRESETS = ("trivial", "easy", "normal", "hard")
#: Tatham batch sizes (N1, N2) for the marginal cost, by how slow a preset is
SLOW = {("mosaic", "hard"): (1, 4), ("solo", "hard"): (2, 12)}


def ours(task, difficulty: str, seeds: range) -> tuple[float, float, list]:
    """(CPU s, wall s, instances) of generating one instance per seed."""
    insts = []
    gc.collect()  # untimed: a collection of what earlier puzzles left behind is not this generator's cost
    # untimed warm-up instance (its own seed stream): after the collection and the Tatham
    # subprocess of the round before, the first instance pays for cold CPU caches (~0.5 ms); Tatham's
    # marginal per-game cost is measured warm inside one process, so ours is measured warm too
    task.generate(np.random.default_rng([20261122, seeds.start]), difficulty=difficulty)
    c0, w0 = time.process_time(), time.perf_counter()
    for s in seeds:
        insts.append(task.generate(np.random.default_rng([20261123, s]), difficulty=difficulty))
    return time.process_time() - c0, time.perf_counter() - w0, insts


def tatham_run(exe: str, params: str, n: int) -> tuple[float, float]:
    """(CPU s, wall s) of ``exe --generate n params`` (children's rusage)."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    w0 = time.perf_counter()
    subprocess.run([exe, "--generate", str(n), params], capture_output=True, check=True, timeout=900)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime), time.perf_counter() - w0


def tatham_calibration(task, params: str, n: int, graded: int) -> tuple[float, float, Counter]:
    """Mean clue count of ``n`` of Tatham's puzzles (a fixed seed: the same puzzles every run), its
    standard error, and the grades of the first ``graded``."""
    saves = tatham.sgt_generate_saves(task.family, params, n, seed=f"kumo-calibration-{params}")
    short = task.encode_params(task.decode_params(params), full=False)
    insts = [task.load(f"{short}:{s['DESC']}") for s in saves]
    clues = [task.clue_count(i) for i in insts]
    return float(np.mean(clues)), _se(clues), Counter(task.grade(i) for i in insts[:graded])


def _se(xs) -> float:
    return float(np.std(xs, ddof=1) / np.sqrt(len(xs))) if len(xs) > 1 else 0.0


def verify_rate(task, insts: list, min_seconds: float = 0.2) -> float:
    golds = [task.solve(i) for i in insts]
    count, t0 = 0, time.process_time()
    while time.process_time() - t0 < min_seconds:
        for inst, gold in zip(insts, golds):
            task.verify(inst, gold)
            count += 1
    return count / (time.process_time() - t0)


def bench_preset(task, diff: str, rounds: int, per_round: int, calib: int, graded: int = 20) -> dict:
    params = task.tatham_preset(diff)
    exe = tatham.sgt_binary(task.family)
    n1, n2 = SLOW.get((task.family, diff), (10, 60))
    task.generate(np.random.default_rng(0), difficulty=diff)  # warm caches (numba, layouts)
    oc = ow = tc1 = tw1 = tc2 = tw2 = 0.0
    insts: list = []
    cut_rounds = 0
    CUT_STATS["max_rounds"] = 0
    for r in range(rounds):
        before = CUT_STATS["rounds"]
        c, w, got = ours(task, diff, range(r * per_round, (r + 1) * per_round))
        cut_rounds += CUT_STATS["rounds"] - before
        oc, ow, insts = oc + c, ow + w, insts + got
        if exe:
            c, w = tatham_run(exe, params, n1)
            tc1, tw1 = tc1 + c, tw1 + w
            c, w = tatham_run(exe, params, n2)
            tc2, tw2 = tc2 + c, tw2 + w
    n = rounds * per_round
    t_cpu = max((tc2 - tc1) / (rounds * (n2 - n1)), 0.0) if exe else None
    t_wall = max((tw2 - tw1) / (rounds * (n2 - n1)), 0.0) if exe else None
    row = {"puzzle": task.title, "family": task.family, "preset": diff, "tatham_params": params,
           "size": f"{insts[0].data['W']}x{insts[0].data['H']}", "n": n,
           "ours_cpu_ms": 1000 * oc / n, "ours_wall_ms": 1000 * ow / n,
           "tatham_cpu_ms": None if t_cpu is None else 1000 * t_cpu,
           "tatham_wall_ms": None if t_wall is None else 1000 * t_wall,
           # the lazy-cut loop (docs/specs/grid_puzzles.md §8 global rules): re-solves after a cut per generated
           # instance, and the most rounds one solve needed (0 for puzzles without global rules)
           "cut_rounds": cut_rounds / n, "cut_max": CUT_STATS["max_rounds"]}
    row["target_ms"] = max(3 * row["tatham_cpu_ms"], 1.0) if t_cpu is not None else None
    row["meets_target"] = None if t_cpu is None else row["ours_cpu_ms"] <= row["target_ms"]
    # the calibration sample: the timed instances, topped up untimed (further seeds) to ``calib``
    # where fewer were timed (the hard presets time only a few)
    sample = insts[:calib] + [task.generate(np.random.default_rng([20261123, s]), difficulty=diff)
                              for s in range(n, calib)]
    clues = [task.clue_count(i) for i in sample]
    row["calibration_n"] = len(sample)
    row["clues_ours"], row["clues_ours_se"] = float(np.mean(clues)), _se(clues)
    row["grades_ours"] = dict(sorted(Counter(task.grade(i) for i in sample[:graded]).items()))
    if exe:
        row["clues_tatham"], row["clues_tatham_se"], grades = tatham_calibration(task, params, calib, graded)
        row["grades_tatham"] = dict(sorted(grades.items()))
        row["clue_ratio"] = row["clues_ours"] / row["clues_tatham"] if row["clues_tatham"] else None
        if row["clue_ratio"] is not None and row["clues_ours"]:  # first-order error of a ratio of means
            row["clue_ratio_se"] = row["clue_ratio"] * float(np.hypot(row["clues_ours_se"] / row["clues_ours"],
                                                                      row["clues_tatham_se"] / row["clues_tatham"]))
    row["verify_per_s"] = verify_rate(task, sample[:5])
    c0 = time.process_time()
    for i in sample[:5]:
        assert task.count_solutions(i, limit=2) == 1
    row["solve_unique_ms"] = 1000 * (time.process_time() - c0) / len(sample[:5])
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer instances per preset")
    ap.add_argument("--puzzles", nargs="*", help="family names (default: every grid puzzle)")
    ap.add_argument("--presets", nargs="*", default=list(PRESETS))
    ap.add_argument("--rounds", type=int, help="interleaved rounds (default 4, quick 2)")
    ap.add_argument("--per-round", type=int, help="our instances per round (default 10, quick 5; a fifth at hard)")
    ap.add_argument("--calib", type=int, help="puzzles per side for the clue calibration (default 200, quick 60; a "
                                                "fifth at hard, at least 20); grades of the first 20")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "grid.json"))
    ap.add_argument("--merge", action="store_true", help="keep the rows of --out for the puzzles and presets not "
                                                         "measured in this run (theirs come from the run before)")
    args = ap.parse_args(argv)
    tasks = [get_task(e.id) for e in entries() if e.family == "grid"]
    tasks = [t for t in tasks if not args.puzzles or t.family in args.puzzles]
    rounds, per_round, calib = (2, 5, 60) if args.quick else (4, 10, 200)
    rounds, per_round, calib = args.rounds or rounds, args.per_round or per_round, args.calib or calib
    rows = []
    for task in tasks:
        for diff in args.presets:
            slow = diff == "hard"
            rows.append(bench_preset(task, diff, rounds, max(1, per_round // 5) if slow else per_round,
                                     max(20, calib // 5) if slow else calib))
            r = rows[-1]
            print(f"{r['puzzle']:9s} {diff:8s} {r['tatham_params']:14s} ours {r['ours_cpu_ms']:8.2f} ms cpu "
                  f"({r['ours_wall_ms']:8.2f} wall)  tatham {fmt(r['tatham_cpu_ms'])} ms cpu  target "
                  f"{fmt(r['target_ms'])} {'OK' if r['meets_target'] else 'over'}  clues {r['clues_ours']:.1f}/"
                  f"{fmt(r.get('clues_tatham'), '.1f')}", flush=True)
    print()
    print(table(rows))
    meta = {"python": sys.version.split()[0], "machine": platform.machine(), "processor": platform.processor(),
            "sgt_version": tatham.sgt_version(tasks[0].family) if tasks else None, "quick": args.quick,
            "method": "ours: process_time of task.generate per instance (one untimed warm-up instance per round); Tatham: marginal per-game CPU of "
                      "sgt-<name> --generate at two batch sizes (RUSAGE_CHILDREN), interleaved round by round"}
    if args.merge and Path(args.out).exists():
        old = json.loads(Path(args.out).read_text())
        rows = merge_rows(old["rows"], rows)
        # the file's method stays; each merged run says what it measured and how
        meta = {**old["meta"], "merged_runs": [*old["meta"].get("merged_runs", []), {
            "puzzles": sorted({t.family for t in tasks}), "presets": list(args.presets), "quick": args.quick,
            "rounds": rounds, "per_round": per_round, "calib": calib}]}
    write_result(args.out, {"meta": meta, "rows": rows})
    return 0


def merge_rows(old: list[dict], new: list[dict]) -> list[dict]:
    """``old`` with each (puzzle, preset) row of ``new`` in its place, and the puzzles ``old`` lacks
    after them, in the order of ``new``."""
    fresh = {(r["family"], r["preset"]): r for r in new}
    out = [fresh.pop((r["family"], r["preset"]), r) for r in old]
    return out + [r for r in new if (r["family"], r["preset"]) in fresh]


def fmt(x, spec: str = ".2f") -> str:
    return "n/a" if x is None else format(x, spec)


def table(rows: list[dict]) -> str:
    """The markdown table of the results (also pasted into docs/grid.md)."""
    head = ("| puzzle | preset | Tatham params | ours CPU ms (wall) | Tatham CPU ms (wall) | target ms | met | "
            "clues ours / Tatham (ratio ± s.e.) | grades ours | grades Tatham | verify /s | solve+unique ms | cut rounds (max) |")
    lines = [head, "|" + "---|" * 13]
    for r in rows:
        lines.append(
            f"| {r['puzzle']} | {r['preset']} | `{r['tatham_params']}` | {r['ours_cpu_ms']:.2f} ({r['ours_wall_ms']:.2f}) | "
            f"{fmt(r['tatham_cpu_ms'], '.3f')} ({fmt(r['tatham_wall_ms'], '.3f')}) | {fmt(r['target_ms'])} | "
            f"{'yes' if r['meets_target'] else 'no'} | {r['clues_ours']:.1f} / {fmt(r.get('clues_tatham'), '.1f')} "
            f"({ratio(r)}) | "
            f"{hist(r['grades_ours'])} | {hist(r.get('grades_tatham'))} | {r['verify_per_s']:.0f} | "
            f"{r['solve_unique_ms']:.1f} | {r.get('cut_rounds', 0):.1f} ({r.get('cut_max', 0)}) |")
    return "\n".join(lines)


def ratio(r: dict) -> str:
    if r.get("clue_ratio") is None:
        return "n/a"
    return f"{r['clue_ratio']:.2f} ± {r.get('clue_ratio_se', 0.0):.2f}"


def hist(h: dict | None) -> str:
    return "n/a" if not h else " ".join(f"g{k}:{v}" for k, v in sorted(h.items()))


if __name__ == "__main__":
    raise SystemExit(main())
