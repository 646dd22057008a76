"""Worst-case step time on hostile model output, per family, beside the time of its gold answer:
hostile text must never cost much more than an honest answer.

For every registered environment (answer mode, and interactive mode where the env has it) one
instance is drawn; each hostile reply of ``tests/fuzz/strategies.BIG`` (1 MB strings, 40,000
nested boxes, 20,000 spaces after a marker, lone surrogates ...) is stepped once, and so is the
gold answer (answer mode) or the first golden move (interactive). Reported per env and mode: the
slowest hostile reply (CPU ms from ``time.process_time`` beside wall ms), which one it was, and
the gold step. Ours only: there is no reference implementation of "a reply built to stall the
parser"; the gold step is the yardstick. Prints a table and writes
``benchmarks/results/hostile.json``.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import gymnasium as gym
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _common import write_result

import kumo_gym  # noqa: F401
from kumo_gym.core.capabilities import GoldenMoves, OracleMoves
from kumo_gym.core.registry import entries, get_task
from tests.fuzz.strategies import BIG


def timed(env, inst, text):
    env.reset(options={"instance": inst})
    c0, w0 = time.process_time(), time.perf_counter()
    env.step(text)
    return (time.process_time() - c0) * 1e3, (time.perf_counter() - w0) * 1e3


def gold_reply(task, inst, mode, env):
    if mode == "answer":
        return task.format_answer(task.solve(inst))
    env.reset(options={"instance": inst})
    if isinstance(task, GoldenMoves):
        m = task.golden_moves(inst)[0]
    elif isinstance(task, OracleMoves):
        m = task.oracle_move(inst, env.unwrapped.state)
    else:
        return None
    return m if isinstance(m, str) else task.format_move(m)


def main() -> None:
    rows = []
    for e in entries():
        task = get_task(e.id)
        diff = list(task.difficulties)[:1]
        inst = task.generate(np.random.default_rng(0), **task.resolve_params(**({"difficulty": diff[0]} if diff else {})))
        for mode in e.modes:
            env = gym.make(e.id, mode=mode, disable_env_checker=True)
            timed(env, inst, "warm-up")
            worst = max(((*timed(env, inst, t), t) for t in BIG), key=lambda x: x[0])
            gold = gold_reply(task, inst, mode, env)
            g = timed(env, inst, gold) if gold is not None else (float("nan"), float("nan"))
            rows.append({"env_id": e.id, "mode": mode, "worst_cpu_ms": round(worst[0], 2),
                         "worst_wall_ms": round(worst[1], 2), "worst_input": repr(worst[2][:24]) + f"... ({len(worst[2])} chars)",
                         "gold_cpu_ms": round(g[0], 3), "gold_wall_ms": round(g[1], 3)})
            r = rows[-1]
            print(f"{e.id:40s} {mode:11s} worst {r['worst_cpu_ms']:9.1f} ms CPU ({r['worst_wall_ms']:9.1f} wall) "
                  f"on {r['worst_input']:48s} gold {r['gold_cpu_ms']:8.2f} ms", flush=True)
    write_result(ROOT / "benchmarks" / "results" / "hostile.json",
                 {"method": "one step per input, time.process_time and perf_counter", "rows": rows})


if __name__ == "__main__":
    main()
