"""KUMO benchmarks (docs/specs/kumo.md §9, §15).

1. **Hard oracle per solve** (12 truths, 16 actions) on every built-in domain and on procedural
   domains: our exact search (``kumo_gym.envs.kumo.search``, numba branch and bound) beside the
   reference algorithm, the paper's Algorithm 3 as its code reads, run in the same process,
   interleaved instance by instance (alternating which goes first): compiled with numba (the
   kernel below, the same code as the paper's search) on a subset of every domain, and in plain
   Python (``kumo_gym.envs.kumo.search.plain_search``) with a timeout on KUMO's Hard Medical
   instances. Every value and chosen action is compared. CPU time (``time.process_time``) beside
   wall time.
2. **Cold start**: the first KUMO reset in a fresh process with an empty numba cache
   (``NUMBA_CACHE_DIR`` pointed at an empty folder), CPU time of the whole process (interpreter,
   imports, reset), at the default (Easy) and at Hard.
3. **Generation**: instances per second through the environment (SAT generation, book and the
   oracle at every reset), Easy and Hard, as ``kumo-gym generate`` runs it.
4. **Golden trajectories**: time for a measured batch, extrapolated to 100,000 (the paper's SFT size).

Prints Markdown tables and writes ``benchmarks/results/kumo.json``. Usage::

    python benchmarks/kumo.py [--per-domain 30] [--reference-per-domain 4] [--python-timeout 60]
"""
from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numba
import numpy as np
from _common import write_result

from kumo_gym.envs.kumo.domain import builtin_domain_names, load_domain, reference_dir
from kumo_gym.envs.kumo.game import procedural_domain
from kumo_gym.envs.kumo.generate import generate_instance, import_kumo_instance
from kumo_gym.envs.kumo.golden import golden_conversations
from kumo_gym.envs.kumo.kernel import _popcount
from kumo_gym.envs.kumo.search import OptimalSearch, SearchTimeout, baseline_play, oracle_tables, plain_search

ROOT = Path(__file__).resolve().parents[1]


# ---- the reference algorithm, compiled ---------------------------------------------------------------
@numba.njit(cache=True)
def _paper(T, A, n, m, masks, nstates, rel, memo):
    """The paper's Algorithm 3 line by line (base cases, memo, ascending actions, break at best)."""
    cnt = _popcount(T)
    if cnt <= 1 or A == 0:
        return 0.0, -1
    for t in range(n):
        if (T >> t) & 1 and (rel[t] & A) == 0:
            return 0.0, -1
    key = T | (A << n)
    if key in memo:
        return memo[key]
    best = np.inf
    best_j = -1
    for j in range(m):
        if not (A >> j) & 1:
            continue
        rest = A & ~(np.int64(1) << j)
        total = 0.0
        for s in range(nstates[j]):
            total += cnt - _popcount(masks[j, s] & T)
        acc = 0.0
        for s in range(nstates[j]):
            p = (cnt - _popcount(masks[j, s] & T)) / (total + 1e-9)
            acc += p * _paper(T & ~masks[j, s], rest, n, m, masks, nstates, rel, memo)[0]
            if acc >= best:
                break
        if acc < best:
            best = acc
            best_j = j
    memo[key] = (1.0 + best, best_j)
    return 1.0 + best, best_j


def paper_numba(tab) -> tuple[float, int, int]:
    memo = numba.typed.Dict.empty(numba.types.int64, numba.types.Tuple((numba.types.float64, numba.types.int64)))
    e, j = _paper(np.int64(tab.all_truths), np.int64(tab.all_actions), tab.n, tab.m, tab.masks, tab.nstates,
                  tab.rel, memo)
    return float(e), int(j), len(memo)


def timed(fn):
    c, w = time.process_time(), time.perf_counter()
    out = fn()
    return out, time.process_time() - c, time.perf_counter() - w


def ours(tab):
    s = OptimalSearch(tab)
    e, j = s.best()
    return e, j, s.states_visited


# ---- 1. the Hard oracle ---------------------------------------------------------------------------------
def hard_domains(n_procedural: int) -> list[tuple[str, object]]:
    out = [(n, load_domain(n)) for n in builtin_domain_names()]
    out += [(f"procedural #{s}", procedural_domain(s)) for s in range(n_procedural)]
    return [(n, d) for n, d in out if len(d.usable_actions()) >= 16]


def bench_oracle(args) -> dict:
    warm = generate_instance(load_domain("minerals"), 12, 16, np.random.default_rng(0))
    ours(oracle_tables(warm))  # compile (or load) both kernels before any timing
    paper_numba(oracle_tables(generate_instance(load_domain("minerals"), 4, 6, np.random.default_rng(0))))
    rows = []
    for name, domain in hard_domains(args.procedural):
        for i in range(args.per_domain):
            data = generate_instance(domain, 12, 16, np.random.default_rng([2024, i]))
            tab = oracle_tables(data)
            row = {"domain": name, "item": i}
            with_ref = i < args.reference_per_domain
            order = ("ours", "ref") if i % 2 == 0 else ("ref", "ours")
            for who in order:
                if who == "ours":
                    (e, j, states), c, w = timed(lambda tab=tab: ours(tab))
                    row.update(ours_cpu=c, ours_wall=w, ours_states=states, E=e, action=j)
                elif with_ref:
                    (e, j, states), c, w = timed(lambda tab=tab: paper_numba(tab))
                    row.update(ref_cpu=c, ref_wall=w, ref_states=states, ref_E=e, ref_action=j)
            if with_ref:
                row["agree"] = row["E"] == row["ref_E"] and row["action"] == row["ref_action"]
            # realised tests of the oracle's play and of the paper's baselines (docs/specs/kumo.md §9)
            row["tests"] = OptimalSearch(tab).play().tests
            for policy in ("greedy", "first_action", "random"):
                row[f"tests_{policy}"] = baseline_play(data, policy, np.random.default_rng(i)).tests
            rows.append(row)
        done = [r for r in rows if r["domain"] == name]
        print(f"  {name}: ours median {statistics.median(r['ours_cpu'] for r in done) * 1e3:.1f} ms", flush=True)
    return {"rows": rows, "medical": bench_medical(args)}


def bench_medical(args) -> list[dict]:
    """KUMO's own Hard instances: ours, the paper's search compiled, and in plain Python."""
    ref = reference_dir()
    if ref is None:
        return []
    out = []
    for line in (ref / "kumo" / "instances_dev.jsonl").read_text().splitlines():
        r = json.loads(line)
        if len(r["truths"]) != 12:
            continue
        tab = oracle_tables(import_kumo_instance(r, load_domain(str(ref / "kumo" / "domains" / f"{r['domain']}.json"))))
        (e, j, states), c, w = timed(lambda tab=tab: ours(tab))
        row = {"instance": f"{r['domain']} hard seed {r['seed']}", "ours_cpu": c, "ours_wall": w, "ours_states": states,
               "E": e}
        (e2, j2, s2), c2, w2 = timed(lambda tab=tab: paper_numba(tab))
        row.update(ref_cpu=c2, ref_wall=w2, ref_states=s2, agree=e == e2 and j == j2)
        masks, rel = tab.state_lists(), [int(x) for x in tab.rel]
        search = plain_search(masks, rel, tab.n, deadline=time.perf_counter() + args.python_timeout)
        try:
            (e3, j3), c3, w3 = timed(lambda tab=tab, search=search: search(tab.all_truths, tab.all_actions))
            row.update(python_cpu=c3, python_wall=w3, agree=row["agree"] and e3 == e and j3 == j)
        except SearchTimeout:
            row.update(python_cpu=None, python_wall=None)
        out.append(row)
        print(f"  medical {row}", flush=True)
    return out


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, math.ceil(q * len(xs)) - 1)] if xs else math.nan


# ---- 2. cold start ------------------------------------------------------------------------------------------
COLD = """
import time, sys
import gymnasium as gym, kumo_gym
t0 = time.process_time()
env = gym.make("kumo_gym/KUMO-v0", difficulty=sys.argv[1])
env.reset(seed=0)
print(time.process_time(), time.process_time() - t0, "numba" in sys.modules)
"""


def bench_cold(rounds: int) -> dict:
    out = {}
    for diff in ("easy", "hard"):
        runs = []
        for _ in range(rounds):
            with tempfile.TemporaryDirectory() as cache:
                env = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": str(ROOT)}
                w = time.perf_counter()
                res = subprocess.run([sys.executable, "-c", COLD, diff], capture_output=True, text=True, env=env,
                                     timeout=600, check=True)
                wall = time.perf_counter() - w
                total, reset, numba_loaded = res.stdout.split()
                runs.append({"process_cpu": float(total), "make_reset_cpu": float(reset), "wall": wall,
                             "numba_imported": numba_loaded == "True"})
        out[diff] = {"runs": runs, "process_cpu": statistics.median(r["process_cpu"] for r in runs),
                     "make_reset_cpu": statistics.median(r["make_reset_cpu"] for r in runs),
                     "wall": statistics.median(r["wall"] for r in runs), "numba_imported": runs[0]["numba_imported"]}
    return out


# ---- 3./4. generation and golden trajectories -----------------------------------------------------------------
def bench_generation(n: int) -> dict:
    import kumo_gym

    out = {}
    for diff in ("easy", "hard"):
        kumo_gym.make_dataset("kumo_gym/KUMO-v0", 2, seed=99, difficulty=diff)  # warm caches
        (recs, c, w) = timed(lambda diff=diff: kumo_gym.make_dataset("kumo_gym/KUMO-v0", n, seed=1, difficulty=diff))
        out[diff] = {"n": n, "cpu_s": c, "wall_s": w, "per_s_cpu": n / c, "per_s_wall": n / w,
                     "oracle_optimal": sum(r.get("optimal_steps") is not None for r in recs)}
    return out


def bench_golden(n: int, **kw) -> dict:
    golden_conversations(2, seed=99, **kw)  # compile and warm caches
    recs, c, w = timed(lambda: golden_conversations(n, seed=1, **kw))
    return {"measured_n": n, "cpu_s": c, "wall_s": w, "extrapolated_100k_hours_cpu": c / n * 100_000 / 3600,
            "solved": sum(r["solved"] for r in recs), "optimal": sum(r["oracle_optimal"] for r in recs),
            "mean_tests": statistics.mean(r["oracle_tests"] for r in recs)}


# ---- report -------------------------------------------------------------------------------------------------
def tables(result: dict, args) -> str:
    rows = result["oracle"]["rows"]
    header = ("| Hard domain | solves | ours CPU median (ms) | ours CPU p95 (ms) | ours max (ms) | ours wall median (ms) "
              "| memo entries median | paper's search (numba) CPU median (ms), first instances | speed-up on those | "
              "agree |")
    lines = [header, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    groups = {}
    for r in rows:
        groups.setdefault(r["domain"], []).append(r)
    groups["**all domains**"] = rows
    for name, rs in groups.items():
        oc = [r["ours_cpu"] * 1e3 for r in rs]
        ref = [r for r in rs if "ref_cpu" in r]
        ref_med = statistics.median(r["ref_cpu"] * 1e3 for r in ref) if ref else math.nan
        # speed-up: total CPU of the paper's search over ours, on the same instances
        up = sum(r["ref_cpu"] for r in ref) / max(sum(r["ours_cpu"] for r in ref), 1e-9) if ref else math.nan
        lines.append(f"| {name} | {len(rs)} | {statistics.median(oc):.1f} | {pct(oc, 0.95):.1f} | {max(oc):.1f} | "
                     f"{statistics.median(r['ours_wall'] * 1e3 for r in rs):.1f} | "
                     f"{statistics.median(r['ours_states'] for r in rs):.0f} | {ref_med:.0f} | "
                     f"{up:.0f}x | {all(r['agree'] for r in ref)} |")
    lines += ["", ("| Hard, all domains: realised tests (mean) | oracle | greedy | first action (the paper's Vanilla) "
                   "| random |"), "|---|---:|---:|---:|---:|",
              "| tests until the prediction | " + " | ".join(
                  f"{statistics.mean(r[k] for r in rows):.2f}"
                  for k in ("tests", "tests_greedy", "tests_first_action", "tests_random")) + " |"]
    med = result["oracle"]["medical"]
    if med:
        lines += ["", ("| KUMO Hard instance | ours CPU (ms) | memo entries | paper's search, numba (ms) | paper's "
                       "search, plain Python (s) | agree |"), "|---|---:|---:|---:|---:|---|"]
        for r in med:
            py = "timeout" if r["python_cpu"] is None else f"{r['python_cpu']:.2f}"
            lines.append(f"| {r['instance']} | {r['ours_cpu'] * 1e3:.2f} | {r['ours_states']} | "
                         f"{r['ref_cpu'] * 1e3:.1f} | {py} | {r['agree']} |")
    cold, gen, gold = result["cold_start"], result["generation"], result["golden"]
    lines += ["", "| measure | CPU | wall |", "|---|---:|---:|"]
    for diff, c in cold.items():
        lines.append(f"| cold start, first reset ({diff}), whole fresh process, empty numba cache"
                     f"{' (numba not imported)' if not c['numba_imported'] else ''} | {c['process_cpu']:.2f} s | "
                     f"{c['wall']:.2f} s |")
    for diff, g in gen.items():
        lines.append(f"| `make_dataset` / `kumo-gym generate` {diff}: items per second (oracle at every reset) | "
                     f"{g['per_s_cpu']:.0f} | {g['per_s_wall']:.0f} |")
    for name, g in gold.items():
        lines.append(f"| golden trajectories {name}: {g['measured_n']} measured | {g['cpu_s']:.1f} s | {g['wall_s']:.1f} s |")
        lines.append(f"| golden trajectories {name}: 100,000 extrapolated | {g['extrapolated_100k_hours_cpu']:.2f} h | |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-domain", type=int, default=30, help="Hard instances per domain (ours)")
    ap.add_argument("--reference-per-domain", type=int, default=4, help="of those, also solved by the paper's search")
    ap.add_argument("--procedural", type=int, default=3, help="procedural domains (seeds 0..k-1)")
    ap.add_argument("--python-timeout", type=float, default=60.0)
    ap.add_argument("--cold-rounds", type=int, default=3)
    ap.add_argument("--gen-n", type=int, default=200)
    ap.add_argument("--golden-easy", type=int, default=2000)
    ap.add_argument("--golden-hard", type=int, default=200)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "kumo.json"))
    args = ap.parse_args()
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = None
    print("cold start", flush=True)
    cold = bench_cold(args.cold_rounds)
    print("Hard oracle: ours vs the paper's search", flush=True)
    oracle = bench_oracle(args)
    print("generation", flush=True)
    gen = bench_generation(args.gen_n)
    print("golden", flush=True)
    golden = {"easy (built-in domains)": bench_golden(args.golden_easy, difficulty="easy"),
              "hard (built-in domains)": bench_golden(args.golden_hard, difficulty="hard")}
    result = {"oracle": oracle, "cold_start": cold, "generation": gen, "golden": golden,
              "machine": {"python": platform.python_version(), "cpu_count": os.cpu_count(), "loadavg_1min_start": load,
                          "platform": platform.platform()}, "args": vars(args)}
    result["table"] = tables(result, args)
    try:
        result["machine"]["loadavg_1min_end"] = os.getloadavg()[0]
    except OSError:
        pass
    print(result["table"])
    write_result(args.out, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
