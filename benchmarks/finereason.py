"""FineReason benchmark (docs/specs/finereason.md §2, §4).

In one run:

* **Labelling 9x9 Sudoku trees.** Every node of the full puzzle tree (first empty cell, values
  1-9) of a set of Sudoku puzzles is labelled three ways:
  - the oracle per node with the numba bitmask DFS kernel,
  - the oracle per node with the pure-Python reference of the same kernel (same algorithm),
  - the plain labelling: build the whole tree and label it bottom-up (no oracle).
  The puzzles are generated (seeded, 47 empty cells like the reference set) so the benchmark
  runs from a fresh clone; with ``../shared/reference`` present the 51 reference questions are
  labelled as well.
* **Sampling 500 balanced items per puzzle** (:func:`kumo_gym.envs.finereason.export.sample_items`),
  each item on a freshly generated puzzle; for Sudoku and graph colouring also with the
  pure-Python kernels swapped in (on fewer items, scaled to items per second).
* **Logic grids against the previous implementation** (the last main commit before the vectorised
  searches, extracted with ``git archive``): generating puzzles of several sizes and sampling
  items, the same harness in fresh subprocesses, rounds interleaved; CPU time beside wall time.
  And labelling every table of the reference grid paths with the shipped oracle against the cell
  search alone.
* **One step on hostile text** beside the gold answer, per task.

Prints a table and writes ``benchmarks/results/finereason.json``. ``--quick`` uses fewer items.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _common import write_result

from kumo_gym.envs.finereason import cluelang, logicgrid, sudoku
from kumo_gym.envs.finereason import search as kernels
from kumo_gym.envs.finereason.export import sample_items
from kumo_gym.envs.finereason.tree import label_tree, walk


def reference_dir() -> Path | None:
    env = os.environ.get("KUMO_GYM_REFERENCE")
    base = Path(env) if env else ROOT.parent / "shared" / "reference"
    return base if base.is_dir() else None


def reference_questions() -> list[dict] | None:
    base = reference_dir()
    if base is None:
        return None
    path = base / "finereason" / "sudoku_questions.jsonl"
    if not path.is_file():
        return None
    return [sudoku.load_question(json.loads(x)) for x in path.read_text().splitlines() if x.strip()]


def generated_puzzles(n: int) -> list[dict]:
    return [sudoku.RULES.generate(np.random.default_rng(1000 + i), {"empty_cells": 47}) for i in range(n)]


@contextmanager
def python_kernels():
    """Swap the compiled kernels for their pure-Python reference."""
    saved = kernels._sudoku_search_nb, kernels._coloring_search_nb
    kernels._sudoku_search_nb, kernels._coloring_search_nb = kernels._sudoku_search, kernels._coloring_search
    try:
        yield
    finally:
        kernels._sudoku_search_nb, kernels._coloring_search_nb = saved


def label_all(puzzles: list[dict]) -> dict:
    states = [(d, s) for d in puzzles for _, s in walk(sudoku.RULES, d)]
    out = {"puzzles": len(puzzles), "nodes": len(states)}
    sudoku.RULES.solvable(puzzles[0], puzzles[0]["initial"])  # compile outside the timing
    t = time.perf_counter()
    numba_labels = [sudoku.RULES.solvable(d, s) for d, s in states]
    out["oracle_numba_s"] = time.perf_counter() - t
    with python_kernels():
        t = time.perf_counter()
        py_labels = [sudoku.RULES.solvable(d, s) for d, s in states]
        out["oracle_python_s"] = time.perf_counter() - t
    t = time.perf_counter()
    plain = [lab for d in puzzles for _, _, lab in label_tree(sudoku.RULES, d)[1]]
    out["plain_bottom_up_s"] = time.perf_counter() - t
    out["labels_agree"] = numba_labels == py_labels == plain
    out["solvable"] = int(sum(plain))
    return out


@contextmanager
def cell_search_only():
    """The grid oracle with the cell-by-cell search for every table (the previous algorithm)."""
    saved = cluelang.COLUMN_SEARCH_MAX
    cluelang.COLUMN_SEARCH_MAX = -1
    cluelang._SOLVABLE_CACHE.clear()
    try:
        yield
    finally:
        cluelang.COLUMN_SEARCH_MAX = saved
        cluelang._SOLVABLE_CACHE.clear()


def timed(fn) -> tuple[float, float]:
    w, c = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - w, time.process_time() - c


_HARNESS = """
import json, os, sys, time
import kumo_gym
assert kumo_gym.__file__.startswith(os.getcwd()), kumo_gym.__file__  # the implementation asked for
import numpy as np
from kumo_gym.envs.finereason import logicgrid
from kumo_gym.envs.finereason.export import sample_items
case, k, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rows, cols = {"generate 4x3 (normal)": (4, 3), "generate 5x3 (hard)": (5, 3), "generate 4x4": (4, 4),
              "generate 6x3": (6, 3)}.get(case, (4, 3))
logicgrid.generate_puzzle(np.random.default_rng(10**6), rows, cols)  # warm up: imports, caches of code
w, c = time.perf_counter(), time.process_time()
if case.startswith("generate"):
    for i in range(k):
        logicgrid.generate_puzzle(np.random.default_rng(seed * 10**4 + i), rows, cols)
else:
    sample_items("logicgrid", k, seed=seed)
print(json.dumps([time.perf_counter() - w, time.process_time() - c]))
"""


def _run_harness(path: str, case: str, k: int, seed: int) -> tuple[float, float]:
    import subprocess

    # run inside ``path``: ``python -c`` puts the working directory first on sys.path
    res = subprocess.run([sys.executable, "-c", _HARNESS, case, str(k), str(seed)], capture_output=True, text=True,
                         check=True, cwd=path, env={**os.environ, "PYTHONPATH": path})
    return tuple(json.loads(res.stdout.strip().splitlines()[-1]))


@contextmanager
def previous_source():
    """The previous implementation (``PREVIOUS``) extracted with ``git archive``; None without git."""
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        try:
            archive = subprocess.run(["git", "-C", str(ROOT), "archive", PREVIOUS, "kumo_gym"], capture_output=True,
                                     check=True).stdout
            subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        except (OSError, subprocess.CalledProcessError):
            yield None
            return
        yield tmp


def grid_vs_previous(n: int, rounds: int) -> dict | None:
    """Logic-grid generation and sampling, ours against the previous implementation: the same harness
    in fresh subprocesses (work timed inside, after a warm-up), rounds interleaved, new seeds per round."""
    out = {}
    with previous_source() as old:
        if old is None:
            return None
        for case, k in (("generate 4x3 (normal)", n), ("generate 5x3 (hard)", n), ("generate 4x4", n // 2),
                        ("generate 6x3", max(2, n // 10)), ("items 4x3 (normal)", n)):
            acc = {"ours": [0.0, 0.0], "previous": [0.0, 0.0]}
            for r in range(rounds):
                for who, path in (("previous", old), ("ours", str(ROOT))):
                    w, c = _run_harness(path, case, k, r + 1)
                    acc[who][0] += w
                    acc[who][1] += c
            total = k * rounds
            out[case] = {"n": total, **{f"{who}_per_s_wall": total / t[0] for who, t in acc.items()},
                         **{f"{who}_per_s_cpu": total / t[1] for who, t in acc.items()}}
    return out


def grid_label_search(reference: Path | None, rounds: int) -> dict | None:
    """Labels of every table on the reference grid paths: the shipped oracle (column search where
    the candidate tables are few) against the cell search alone, interleaved rounds."""
    if reference is None:
        return None
    path = reference / "finereason" / "gridpuzzle_states_dev_50.jsonl"
    if not path.is_file():
        return None
    jobs = []
    for line in path.read_text().splitlines():
        row = json.loads(line)
        data = logicgrid.load_question(row)
        tables = row["inputs"]["initial_to_current"] + [row["inputs"]["unsolvable_child"]]
        jobs += [(data, logicgrid.RULES_BY_SEMANTICS["finereason"].normalize(data, t)) for t in tables]
    acc = {"ours": [0.0, 0.0], "cell": [0.0, 0.0]}
    for _ in range(rounds):
        cluelang._SOLVABLE_CACHE.clear()
        w, c = timed(lambda: [cluelang.solvable_table(d, t) for d, t in jobs])
        acc["ours"][0] += w
        acc["ours"][1] += c
        with cell_search_only():
            w, c = timed(lambda: [cluelang.solvable_table(d, t) for d, t in jobs])
        acc["cell"][0] += w
        acc["cell"][1] += c
    total = len(jobs) * rounds
    return {"labels": total, **{f"{who}_per_s_wall": total / t[0] for who, t in acc.items()},
            **{f"{who}_per_s_cpu": total / t[1] for who, t in acc.items()}}


HOSTILE = {"Answer + 20k blanks": "Answer" + " " * 20_000 + "x", "1 MB of x": "x" * 1_000_000,
           "10k open brackets": "[" * 10_000, "Answer: x 50k": "Answer: " * 50_000,
           "long 24 sum": "Next state: ['" + "+".join(["1"] * 120) + "', '2']",
           "50k-element list": "Next state: [" + "1, " * 50_000 + "1]", "(A) 100k": "(A)" * 100_000 + "(B)"}


def hostile_steps() -> dict:
    """Seconds of one ``step`` on hostile text beside the gold answer, per id (worst of the set)."""
    import gymnasium as gym

    import kumo_gym  # noqa: F401

    out = {}
    for env_id, kw in (("kumo_gym/FineReasonStateChecking-v0", {}), ("kumo_gym/FineReasonStateTransition-v0", {}),
                       ("kumo_gym/FineReasonStateTransition-v0", {"puzzle": "game24"}),
                       ("kumo_gym/FineReasonTreeWalk-v0", {"mode": "interactive", "puzzle": "logicgrid"})):
        env = gym.make(env_id, **kw)
        env.reset(seed=0)
        inst, task = env.unwrapped.instance, env.unwrapped.task
        gold = task.format_move(task.golden_moves(inst)[0]) if kw.get("mode") else task.format_answer(task.solve(inst))
        times = {}
        for name, text in [("gold", gold), *HOSTILE.items()]:
            env.reset(options={"instance": inst})
            times[name] = timed(lambda env=env, text=text: env.step(text))
        worst = max((k for k in times if k != "gold"), key=lambda k: times[k][1])
        label = env_id.split("/")[1].replace("-v0", "") + (f" {kw.get('puzzle', 'sudoku')}")
        out[label] = {"gold_wall": times["gold"][0], "gold_cpu": times["gold"][1], "worst": worst,
                      "worst_wall": times[worst][0], "worst_cpu": times[worst][1]}
    return out


#: the last main commit before the column search; its logic-grid sampling is the reference
PREVIOUS = "35b449e"


def sample_all(n: int, n_python: int) -> dict:
    out = {}
    for puzzle in ("sudoku", "coloring", "game24", "logicgrid"):
        t, c = time.perf_counter(), time.process_time()
        items = sample_items(puzzle, n, seed=0)
        dt, dc = time.perf_counter() - t, time.process_time() - c
        labels = [it["label"] for it in items]
        depths = sorted({it["depth"] for it in items})
        row = {"items": n, "seconds": dt, "cpu_seconds": dc, "items_per_s": n / dt, "items_per_cpu_s": n / dc,
               "solvable": labels.count("Solvable"),
               "unsolvable": labels.count("Unsolvable"), "depths": f"{depths[0]}..{depths[-1]}"}
        if puzzle in ("sudoku", "coloring"):
            with python_kernels():
                t = time.perf_counter()
                sample_items(puzzle, n_python, seed=0)
                row["python_items_per_s"] = n_python / (time.perf_counter() - t)
        out[puzzle] = row
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer puzzles and items")
    args = ap.parse_args()
    n_items = 100 if args.quick else 500
    n_python = 20 if args.quick else 50
    results = {"machine": platform.platform(), "python": platform.python_version(), "labelling": {}, "sampling": {}}
    sets = {"generated_47_empty": generated_puzzles(10 if args.quick else 51)}
    ref = reference_questions()
    if ref is not None:
        sets["reference_51"] = ref
    print("Labelling every node of 9x9 Sudoku trees")
    print(f"{'set':<22}{'trees':>6}{'nodes':>8}{'S':>7}{'numba oracle':>14}{'python oracle':>15}"
          f"{'plain bottom-up':>17}{'agree':>7}")
    for name, puzzles in sets.items():
        r = label_all(puzzles)
        results["labelling"][name] = r
        print(f"{name:<22}{r['puzzles']:>6}{r['nodes']:>8}{r['solvable']:>7}{r['oracle_numba_s']:>13.3f}s"
              f"{r['oracle_python_s']:>14.3f}s{r['plain_bottom_up_s']:>16.3f}s{r['labels_agree']!s:>7}")
    print(f"\nSampling {n_items} balanced items per puzzle (a new puzzle per item)")
    print(f"{'puzzle':<11}{'items':>6}{'wall s':>8}{'cpu s':>8}{'items/s':>9}{'per cpu s':>10}{'S/U':>9}{'depths':>9}"
          f"{'items/s (py kernels)':>22}")
    results["sampling"] = sample_all(n_items, n_python)
    for puzzle, r in results["sampling"].items():
        py = f"{r['python_items_per_s']:.1f}" if "python_items_per_s" in r else "-"
        print(f"{puzzle:<11}{r['items']:>6}{r['seconds']:>8.2f}{r['cpu_seconds']:>8.2f}{r['items_per_s']:>9.1f}"
              f"{r['items_per_cpu_s']:>10.1f}{r['solvable']:>4}/{r['unsolvable']:<4}{r['depths']:>9}{py:>22}")
    rounds = 2 if args.quick else 3
    print(f"\nLogic grids: ours vs the previous implementation ({PREVIOUS}), {rounds} interleaved rounds")
    print(f"{'case':<24}{'n':>5}{'ours/s wall':>13}{'ours/s cpu':>12}{'prev/s wall':>13}{'prev/s cpu':>12}"
          f"{'speed-up':>10}")
    results["logic_grid_vs_previous"] = grid_vs_previous(10 if args.quick else 40, rounds)
    for name, r in (results["logic_grid_vs_previous"] or {}).items():
        print(f"{name:<24}{r['n']:>5}{r['ours_per_s_wall']:>13.1f}{r['ours_per_s_cpu']:>12.1f}"
              f"{r['previous_per_s_wall']:>13.1f}{r['previous_per_s_cpu']:>12.1f}"
              f"{r['ours_per_s_cpu'] / r['previous_per_s_cpu']:>9.1f}x")
    lab = grid_label_search(reference_dir(), rounds)
    results["logic_grid_labels"] = lab
    if lab is not None:
        print(f"\nLabelling the {lab['labels'] // rounds} tables of the reference grid paths: "
              f"{lab['ours_per_s_cpu']:.0f}/CPU s with the shipped oracle, {lab['cell_per_s_cpu']:.0f}/CPU s with the "
              f"cell search alone ({lab['ours_per_s_cpu'] / lab['cell_per_s_cpu']:.1f}x)")
    print("\nOne step on hostile text (worst of: " + ", ".join(HOSTILE) + ") beside the gold answer")
    print(f"{'env':<40}{'gold wall':>11}{'gold cpu':>10}{'worst wall':>12}{'worst cpu':>11}  worst input")
    results["hostile_step"] = hostile_steps()
    for name, r in results["hostile_step"].items():
        print(f"{name:<40}{r['gold_wall']:>10.4f}s{r['gold_cpu']:>9.4f}s{r['worst_wall']:>11.4f}s"
              f"{r['worst_cpu']:>10.4f}s  {r['worst']}")
    write_result(ROOT / "benchmarks" / "results" / "finereason.json", results, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
