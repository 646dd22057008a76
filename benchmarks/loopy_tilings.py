"""Loopy on Tatham's other tilings (docs/grid.md "Loopy"): our generator beside Tatham's, per tiling.

Per tiling, at Tatham's preset size for it (or a small size where his presets have none), in one run:

* **ours**: CPU time (``time.process_time``) and wall time per instance of ``task.generate`` (after one
  untimed warm-up instance), every instance checked unique;
* **Tatham**: ``sgt-loopy --generate N PARAMS`` at N1 = 1 and N2 = 1 + extra; the per-game cost is the
  marginal ``(T(N2) - T(N1)) / (N2 - N1)`` (CPU from ``RUSAGE_CHILDREN``, wall beside it);
* **clue share**: the mean share of faces with a clue in our puzzles and in Tatham's (his imported from
  ``--save`` files of a fixed seed).

Prints a table and writes ``benchmarks/results/loopy_tilings.json``. ``--quick`` runs fewer instances.
"""
from __future__ import annotations

import argparse
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

from kumo_gym.envs.grid import tatham
from kumo_gym.envs.grid.loopy import LoopyTask
from kumo_gym.envs.grid.loopy.tiling import NAMES

#: Tatham's preset per tiling where he has one (his t13-t15 have none in the build we read: small sizes)
PARAMS = {1: "10x10t1dh", 2: "12x10t2dh", 3: "7x7t3dh", 4: "9x9t4dh", 5: "5x4t5dh", 6: "7x7t6dh", 7: "5x5t7dh",
          8: "5x5t8dh", 9: "5x4t9dh", 10: "5x4t10dh", 11: "10x10t11dh", 12: "10x10t12dh", 13: "4x4t13dn", 14: "5x5t14dn",
          15: "5x5t15dn"}


def tatham_time(exe: str, params: str, n: int) -> tuple[float, float]:
    r0, w0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    subprocess.run([exe, "--generate", str(n), f"{params}#bench"], capture_output=True, check=True)
    r1, w1 = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    return (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime), w1 - w0


def share(state: dict) -> float:
    return sum(v >= 0 for v in state["clues"]) / len(state["clues"])


def bench(task: LoopyTask, kind: int, n_ours: int, n_tatham: int) -> dict:
    params = PARAMS[kind]
    kw = task.decode_params(params)
    task.generate(np.random.default_rng([20261203, kind, 0]), **kw)  # warm-up, untimed
    insts, c0, w0 = [], time.process_time(), time.perf_counter()
    for s in range(n_ours):
        insts.append(task.generate(np.random.default_rng([20261203, kind, s + 1]), **kw))
    cpu, wall = (time.process_time() - c0) / n_ours, (time.perf_counter() - w0) / n_ours
    unique = all(task.count_solutions(i) == 1 for i in insts)
    exe = tatham.sgt_binary("loopy")
    c1, w1 = tatham_time(exe, params, 1)
    c2, w2 = tatham_time(exe, params, 1 + n_tatham)
    saves = tatham.sgt_generate_saves("loopy", params, n_tatham, seed=f"kumo-tilings-{params}")
    short = task.encode_params(kw, full=False)
    theirs = [task.load(f"{short}:{s['DESC']}").data["state"] for s in saves]
    return {"tiling": kind, "name": NAMES[kind], "params": params, "faces": len(insts[0].data["state"]["clues"]),
            "ours_cpu_ms": 1000 * cpu, "ours_wall_ms": 1000 * wall, "ours_unique": unique,
            "tatham_cpu_ms": 1000 * max(c2 - c1, 0.0) / n_tatham, "tatham_wall_ms": 1000 * max(w2 - w1, 0.0) / n_tatham,
            "share_ours": float(np.mean([share(i.data["state"]) for i in insts])),
            "share_tatham": float(np.mean([share(s) for s in theirs])), "n_ours": n_ours, "n_tatham": n_tatham}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer instances per tiling")
    ap.add_argument("--tilings", nargs="*", type=int, default=list(PARAMS))
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "loopy_tilings.json"))
    args = ap.parse_args(argv)
    if tatham.sgt_binary("loopy") is None:
        print("sgt-loopy not found: install sgt-puzzles")
        return 1
    task = LoopyTask()
    n_ours, n_tatham = (3, 6) if args.quick else (10, 20)
    rows = []
    for kind in args.tilings:
        rows.append(bench(task, kind, n_ours, n_tatham))
        r = rows[-1]
        print(f"t{kind} {r['params']:10s} ours {r['ours_cpu_ms']:9.1f} ms cpu ({r['ours_wall_ms']:9.1f} wall)  tatham "
              f"{r['tatham_cpu_ms']:8.2f} ms cpu  share {r['share_ours']:.3f} vs {r['share_tatham']:.3f}", flush=True)
    print()
    print_table([("tiling", "<28"), ("params", "<11"), ("faces", ">5"), ("ours ms cpu", ">12,.1f"),
                 ("Tatham ms cpu", ">14,.2f"), ("clue share ours", ">16.3f"), ("Tatham's", ">9.3f")],
                [(f"t{r['tiling']} {r['name']}", r["params"], r["faces"], r["ours_cpu_ms"], r["tatham_cpu_ms"],
                  r["share_ours"], r["share_tatham"]) for r in rows])
    write_result(args.out, {"rows": rows, "quick": args.quick, "machine": platform.platform(),
                            "python": platform.python_version(), "sgt_version": tatham.sgt_version("loopy")})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
