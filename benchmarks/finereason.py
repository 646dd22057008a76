"""FineReason benchmark (spec finereason.md §2, §4; issue 5).

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

from kumo_gym.envs.finereason import sudoku
from kumo_gym.envs.finereason.export import sample_items
from kumo_gym.envs.finereason.tree import label_tree, walk
from kumo_gym.solvers import finereason as kernels


def reference_questions() -> list[dict] | None:
    env = os.environ.get("KUMO_GYM_REFERENCE")
    base = Path(env) if env else ROOT.parent / "shared" / "reference"
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


def sample_all(n: int, n_python: int) -> dict:
    out = {}
    for puzzle in ("sudoku", "coloring", "game24", "logicgrid"):
        t = time.perf_counter()
        items = sample_items(puzzle, n, seed=0)
        dt = time.perf_counter() - t
        labels = [it["label"] for it in items]
        depths = sorted({it["depth"] for it in items})
        row = {"items": n, "seconds": dt, "items_per_s": n / dt, "solvable": labels.count("Solvable"),
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
    print(f"{'puzzle':<11}{'items':>6}{'seconds':>9}{'items/s':>9}{'S/U':>9}{'depths':>9}{'items/s (py kernels)':>22}")
    results["sampling"] = sample_all(n_items, n_python)
    for puzzle, r in results["sampling"].items():
        py = f"{r['python_items_per_s']:.1f}" if "python_items_per_s" in r else "-"
        print(f"{puzzle:<11}{r['items']:>6}{r['seconds']:>9.2f}{r['items_per_s']:>9.1f}"
              f"{r['solvable']:>4}/{r['unsolvable']:<4}{r['depths']:>9}{py:>22}")
    out = ROOT / "benchmarks" / "results" / "finereason.json"
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"\nwrote {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
