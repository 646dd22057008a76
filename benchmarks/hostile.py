"""Worst-case step time on hostile model output, per family, beside the time of its gold answer:
hostile text must never cost much more than an honest answer.

For every registered environment (answer mode, and interactive mode where the env has it) one
instance is drawn; each hostile reply of ``tests/fuzz/strategies.BIG`` (1 MB strings, 40,000
nested boxes, 20,000 spaces after a marker, lone surrogates ...) is stepped once, and so is the
gold answer (answer mode) or the first golden move (interactive). Reported per env and mode: the
slowest hostile reply (CPU ms from ``time.process_time`` beside wall ms), which one it was, and
the gold step. Each hostile reply is cut to the answer size limit (``MAX_ANSWER_CHARS``, 1,000,000
characters: the longest text an environment reads), and two 10 MB replies (a move list and plain
letters) are stepped as well: they must be refused unread (status ``too_long``), and their time is
reported apart (``over_limit_*``). Ours only: there is no reference implementation of "a reply built
to stall the parser"; the gold step is the yardstick, and the target is that no step of any
environment takes 1 s. Prints a table and writes ``benchmarks/results/hostile.json``.
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
from kumo_gym.core.verdict import MAX_ANSWER_CHARS
from tests.fuzz.strategies import BIG

#: the hostile replies as an environment may read them (cut to the limit), and two far over it
AT_LIMIT = [t[:MAX_ANSWER_CHARS] for t in BIG]
OVER_LIMIT = ["moves = [[1, 0, 2]] " * 500_000, "x" * 10_000_000]


def timed(env, inst, text, status=None):
    env.reset(options={"instance": inst})
    c0, w0 = time.process_time(), time.perf_counter()
    *_, info = env.step(text)
    out = (time.process_time() - c0) * 1e3, (time.perf_counter() - w0) * 1e3
    if status is not None:
        got = (info.get("verdict") or {}).get("status")
        if got != status:
            raise SystemExit(f"{env.spec.id}: a {len(text):,}-character reply was {got}, not {status}")
    return out


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
            worst = max(((*timed(env, inst, t), t) for t in AT_LIMIT), key=lambda x: x[0])
            over = max(((*timed(env, inst, t, "too_long"), t) for t in OVER_LIMIT), key=lambda x: x[0])
            gold = gold_reply(task, inst, mode, env)
            g = timed(env, inst, gold) if gold is not None else (float("nan"), float("nan"))
            rows.append({"env_id": e.id, "mode": mode, "worst_cpu_ms": round(worst[0], 2),
                         "worst_wall_ms": round(worst[1], 2), "worst_input": repr(worst[2][:24]) + f"... ({len(worst[2])} chars)",
                         "over_limit_cpu_ms": round(over[0], 3), "over_limit_wall_ms": round(over[1], 3),
                         "gold_cpu_ms": round(g[0], 3), "gold_wall_ms": round(g[1], 3)})
            r = rows[-1]
            print(f"{e.id:40s} {mode:11s} worst {r['worst_cpu_ms']:9.1f} ms CPU ({r['worst_wall_ms']:9.1f} wall) "
                  f"on {r['worst_input']:48s} 10 MB {r['over_limit_cpu_ms']:6.2f} ms gold {r['gold_cpu_ms']:8.2f} ms",
                  flush=True)
    slowest = max(rows, key=lambda r: r["worst_cpu_ms"])
    print(f"slowest step at or under the limit: {slowest['worst_cpu_ms']:.1f} ms CPU ({slowest['env_id']} "
          f"{slowest['mode']}); slowest 10 MB refusal: {max(r['over_limit_cpu_ms'] for r in rows):.2f} ms CPU")
    write_result(ROOT / "benchmarks" / "results" / "hostile.json",
                 {"method": "one step per input, time.process_time and perf_counter",
                  "max_answer_chars": MAX_ANSWER_CHARS, "rows": rows})


if __name__ == "__main__":
    main()
