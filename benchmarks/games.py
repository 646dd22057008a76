"""Games benchmark: generation and optimal solving per CPU second, beside Tatham's generator (docs/games.md).

Per game of the catalogue and preset:

* **instances/s**: CPU time (``time.process_time``) of ``task.generate`` followed by the instance's optimum
  (an instance is only usable with it: its partial credit and step budget need it);
* **solves/s**: CPU time of re-importing those instances from their game IDs and solving them (so no cached
  result is reused, and a solver that runs on import, as Pegs's does to refuse boards that cannot be won, is
  timed once); Pegs's optimum is fixed (one jump per peg but the last), so its solve is the winning line and
  the mean number of search nodes is reported beside it;
* the mean optimum and, where a solver can stop at a certified bound, the share of exact optima;
* **Tatham**: ``sgt-<game> --generate N PARAMS`` timed at two batch sizes; the marginal
  ``(T(N2) - T(N1)) / (N2 - N1)`` of the children's CPU time is the cost of one game without the process start.

Prints a table and writes ``benchmarks/results/games.json``. ``--quick`` runs fewer instances.
"""
from __future__ import annotations

import argparse
import json
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _common import print_table, write_result

from kumo_gym.core.errors import ConfigError
from kumo_gym.core.registry import entries, get_task
from kumo_gym.envs.games import tatham

#: presets measured on fewer instances (seconds per instance)
SLOW = {("Fifteen", "hard"), ("Fifteen", "tatham_4x4"), ("Guess", "tatham_super"), ("Samegame", "tatham_15x10c3"),
        ("Samegame", "tatham_20x15c4"), ("Twiddle", "tatham_4x4_n3"), ("Twiddle", "tatham_5x5_n3"),
        ("Twiddle", "tatham_6x6_n4"), ("Twiddle", "tatham_3x3_orientable"), ("Twiddle", "tatham_4x4_orientable"),
        *(("Netslide", f"tatham_{n}x{n}{tag}") for n in (4, 5) for tag in ("b1", "", "w")),
        ("Inertia", "hard"), ("Inertia", "tatham_10x8"), ("Inertia", "tatham_15x12"), ("Cube", "tatham_icosahedron"),
        ("Pegs", "tatham_7x7octagon"), ("Pegs", "tatham_9x9random")}


#: presets whose loaded boards are searched under a smaller node budget than the task's: the search for a line on
#: a board grown to a 9x9 grid's edges is heavy-tailed (0.1 s on one board, over ten minutes on another), so the row
#: gives the share of boards won within the budget beside the solves per CPU second
SEARCH_BUDGET = {("Pegs", "tatham_9x9random"): 3_000_000}


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def tatham_marginal(name: str, params: str, n1: int, n2: int) -> float | None:
    """CPU seconds per game of ``sgt-<name> --generate`` (marginal between batch sizes n1 and n2)."""
    exe = tatham.sgt_binary(name)
    if exe is None:
        return None
    times = []
    for n in (n1, n2):
        c0 = children_cpu()
        subprocess.run([exe, "--generate", str(n), f"{params}#bench"], capture_output=True, check=True)
        times.append(children_cpu() - c0)
    return max(0.0, (times[1] - times[0]) / (n2 - n1))


def measure(task, difficulty: str, n: int, budget: int | None = None) -> dict:
    for s in range(n):  # untimed pass over the same seeds: numba kernels compile here, not in the timing
        task.optimal_steps(task.generate(np.random.default_rng([20261202, s]), difficulty=difficulty))
    c0 = time.process_time()
    insts = []
    for s in range(n):
        inst = task.generate(np.random.default_rng([20261202, s]), difficulty=difficulty)
        task.optimal_steps(inst)
        insts.append(inst)
    gen = time.process_time() - c0
    c0 = time.process_time()
    fresh, out_of_budget = [], 0
    saved = getattr(task, "solve_budget", None)
    if budget is not None:
        task.solve_budget = budget
    try:
        for i in insts:
            try:
                fresh.append(task.load(i.data["game_id"]))
            except ConfigError:  # only under a budget: the search ran out of it
                if budget is None:
                    raise
                out_of_budget += 1
    finally:
        if budget is not None:
            task.solve_budget = saved
    optima = [task.optimal_steps(i) for i in fresh]
    for i in fresh:
        task.solve(i)
    solve = time.process_time() - c0
    nodes = [task.search_nodes(i) for i in fresh] if hasattr(task, "search_nodes") else []
    exact = [getattr(task, "optimum_bounds", lambda i: (0, 0))(i) for i in fresh]
    return {"n": n, "instances_per_cpu_s": n / max(gen, 1e-9), "solves_per_cpu_s": len(fresh) / max(solve, 1e-9),
            "mean_optimum": float(np.mean(optima)),
            "exact_share": float(np.mean([lo == hi for lo, hi in exact])),
            **({"mean_search_nodes": float(np.mean(nodes))} if nodes else {}),
            **({"search_budget": budget, "won_within_budget": (n - out_of_budget) / n} if budget is not None else {})}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer instances per preset")
    ap.add_argument("--game", action="append", help="only this game (repeatable; default: every game)")
    ap.add_argument("--presets", nargs="*", help="only these presets (default: all of each game)")
    ap.add_argument("--merge", action="store_true",
                    help="keep the entries of --out for the games and presets not measured in this run")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "games.json"))
    args = ap.parse_args()
    rows, result = [], {"machine": platform.processor() or platform.machine(), "python": platform.python_version(),
                        "games": {}}
    for e in entries():
        if e.family != "games" or (args.game and e.name not in args.game):
            continue
        task = get_task(e.id)
        result["games"][e.name] = {}
        for difficulty in task.difficulties:
            if args.presets and difficulty not in args.presets:
                continue
            full = task.tatham_preset(difficulty)
            slow = (e.name, difficulty) in SLOW
            n = (3 if slow else 10) if args.quick else (10 if slow else 50)
            m = measure(task, difficulty, n, SEARCH_BUDGET.get((e.name, difficulty)))
            m["tatham_params"] = full
            m["tatham_cpu_s_per_game"] = tatham_marginal(task.tatham_name, full, 10, 110 if args.quick else 510)
            m["ours_cpu_s_per_instance"] = 1 / m["instances_per_cpu_s"]
            result["games"][e.name][difficulty] = m
            t = m["tatham_cpu_s_per_game"]
            rows.append((e.name, difficulty, full, m["instances_per_cpu_s"], m["solves_per_cpu_s"],
                         m["mean_optimum"], m["exact_share"], 1e3 / m["instances_per_cpu_s"],
                         float("nan") if t is None else 1e3 * t))
    print_table([("game", "<8"), ("preset", "<12"), ("sgt", "<5"), ("inst/s", ">9,.1f"), ("solves/s", ">9,.1f"),
                 ("mean opt", ">8.1f"), ("exact", ">5.2f"), ("ours ms", ">9.3f"), ("Tatham ms", ">9.3f")], rows)
    if args.merge and Path(args.out).exists():  # the rows measured now replace theirs; the rest stay
        old = json.loads(Path(args.out).read_text())
        for game, presets in result["games"].items():
            old["games"].setdefault(game, {}).update(presets)
        result = {**old, "machine": result["machine"], "python": result["python"]}
    write_result(args.out, result)


if __name__ == "__main__":
    main()
