"""KUMO benchmarks (specs/kumo.md §9, §15; issue 3).

1. Hard oracle time per instance: the numba search vs the plain-Python reference of the same
   algorithm (``tests/kumo/reference_oracle.py``), side by side in one run, with a per-instance
   timeout on the Python side. Instances: the 10 Hard Medical reference instances (when
   ``shared/reference`` is present) and generated Hard instances of a built-in domain.
2. Instances generated per second at Easy and Hard (SAT generator, built-in domains).
3. Golden trajectories: time for a measured batch, extrapolated to 100,000 (the paper's SFT size).

Prints a Markdown table and writes ``benchmarks/results/kumo.json``. Usage::

    python benchmarks/kumo.py [--python-timeout 60] [--golden-easy 2000] [--golden-hard 200]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "kumo"))

from reference_oracle import SearchTimeout, reference_search, reference_tables

from kumo_gym.envs.kumo.domain import load_domain, reference_dir
from kumo_gym.envs.kumo.game import KumoTask
from kumo_gym.envs.kumo.generate import generate_instance, import_kumo_instance
from kumo_gym.envs.kumo.golden import golden_conversations
from kumo_gym.solvers.kumo import OptimalSearch, oracle_tables


def time_oracles(label: str, data: dict, python_timeout: float) -> dict:
    tab = oracle_tables(data)
    t = time.perf_counter()
    fast = OptimalSearch(tab)
    e_fast, j_fast = fast.best()
    t_fast = time.perf_counter() - t
    masks, rel = reference_tables(tab)
    row = {"instance": label, "numba_s": t_fast, "states": fast.states_visited, "root_E": e_fast}
    for key, bound in (("python", True), ("python_paper", False)):
        t = time.perf_counter()
        slow = reference_search(masks, rel, tab.n, deadline=t + python_timeout, bound=bound)
        try:
            e_slow, j_slow = slow(tab.all_truths, tab.all_actions)
            row[f"{key}_s"] = time.perf_counter() - t
            row[f"{key}_agree"] = abs(e_slow - e_fast) < 1e-9 and j_slow == j_fast
        except SearchTimeout:
            row[f"{key}_s"], row[f"{key}_agree"] = None, None
    return row


def bench_oracle(args) -> list[dict]:
    # load or compile the numba kernel before any timing
    OptimalSearch(oracle_tables(generate_instance(load_domain(args.domain), 4, 6, np.random.default_rng(0)))).best()
    rows = []
    ref = reference_dir()
    if ref is not None:
        for line in (ref / "kumo" / "instances_dev.jsonl").read_text().splitlines():
            r = json.loads(line)
            if len(r["truths"]) != 12:
                continue
            data = import_kumo_instance(r, load_domain(str(ref / "kumo" / "domains" / f"{r['domain']}.json")))
            rows.append(time_oracles(f"{r['domain']} hard seed {r['seed']}", data, args.python_timeout))
            print(f"  oracle {rows[-1]}", flush=True)
    domain = load_domain(args.domain)
    for i in range(args.generated_hard):
        data = generate_instance(domain, 12, 16, np.random.default_rng([11, i]))
        rows.append(time_oracles(f"{domain.name} hard #{i}", data, args.python_timeout))
        print(f"  oracle {rows[-1]}", flush=True)
    return rows


def bench_generation(n: int) -> dict:
    task = KumoTask()
    out = {}
    for diff in ("easy", "hard"):
        params = task.resolve_params(difficulty=diff)
        task.generate(np.random.default_rng(0), **params)  # warm caches
        t = time.perf_counter()
        for i in range(n):
            task.generate(np.random.default_rng([5, i]), **params)
        out[diff] = n / (time.perf_counter() - t)
    return out


def bench_golden(n: int, **kw) -> dict:
    golden_conversations(2, seed=99, **kw)  # compile and warm caches
    t = time.perf_counter()
    recs = golden_conversations(n, seed=1, **kw)
    dt = time.perf_counter() - t
    return {"measured_n": n, "seconds": dt, "extrapolated_100k_hours": dt / n * 100_000 / 3600,
            "solved": sum(r["solved"] for r in recs), "optimal": sum(r["oracle_optimal"] for r in recs),
            "mean_tests": statistics.mean(r["oracle_tests"] for r in recs)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python-timeout", type=float, default=60.0)
    ap.add_argument("--domain", default="instruments", help="built-in domain for generated Hard instances")
    ap.add_argument("--generated-hard", type=int, default=3)
    ap.add_argument("--gen-n", type=int, default=300)
    ap.add_argument("--golden-easy", type=int, default=2000)
    ap.add_argument("--golden-hard", type=int, default=100)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "kumo.json"))
    args = ap.parse_args()
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = None
    print("oracle: numba vs plain Python (same algorithm)", flush=True)
    oracle = bench_oracle(args)
    print("generation", flush=True)
    gen = bench_generation(args.gen_n)
    print("golden", flush=True)
    ref = reference_dir()
    hard_domain = str(ref / "kumo" / "domains" / "MedicalEnv.json") if ref is not None else args.domain
    golden = {"easy (built-in domains)": bench_golden(args.golden_easy, difficulty="easy"),
              f"hard ({Path(hard_domain).stem})": bench_golden(args.golden_hard, difficulty="hard", domain=hard_domain)}

    lines = [("| Hard instance | memo states | numba (s) | Python, same algorithm (s) | speed-up | "
              "Python, paper's search without our bound (s) | all agree |"),
             "|---|---:|---:|---:|---:|---:|---|"]

    def secs(x):
        return f"> {args.python_timeout:.0f} (timeout)" if x is None else f"{x:.3f}"

    for r in oracle:
        up = ("-" if r["python_s"] is None or r["states"] == 0
              else f"{r['python_s'] / max(r['numba_s'], 1e-9):.0f}x")
        agree = [a for a in (r["python_agree"], r["python_paper_agree"]) if a is not None]
        lines.append(f"| {r['instance']} | {r['states']} | {r['numba_s']:.4f} | {secs(r['python_s'])} | {up} | "
                     f"{secs(r['python_paper_s'])} | {all(agree) if agree else '-'} |")
    lines += ["", "| measure | value |", "|---|---:|",
              f"| instances/s, Easy (4 truths, 6 actions) | {gen['easy']:.0f} |",
              f"| instances/s, Hard (12 truths, 16 actions) | {gen['hard']:.0f} |"]
    for name, g in golden.items():
        lines.append(f"| golden trajectories {name}: {g['measured_n']} measured | {g['seconds']:.1f} s |")
        lines.append(f"| golden trajectories {name}: 100,000 extrapolated from {g['measured_n']} | "
                     f"{g['extrapolated_100k_hours']:.2f} h |")
    table = "\n".join(lines)
    print(table)
    result = {"oracle": oracle, "generation_per_s": gen, "golden": golden, "table": table,
              "machine": {"python": platform.python_version(), "cpu_count": os.cpu_count(), "loadavg_1min": load,
                          "platform": platform.platform()},
              "args": vars(args)}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
