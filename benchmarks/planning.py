"""Planning puzzle benchmark (docs/specs/planning.md).

In one run, side by side:

* env steps per second in text mode (answer mode: reset + one golden answer; interactive mode:
  one golden move per step), in the structured mode of ``kumo_gym.wrappers.structured`` (Box
  observation, Discrete action), next to Gymnasium's ``CartPole-v1`` with random actions;
* solver time, numba kernel against the pure-Python implementation of the same search: River
  Crossing BFS over pair-type counts (N = 5..100, k = 4..6) and Blocks World A* over packed
  states (interleaved and custom start/goal pairs); numba compile time is reported apart;
* answers verified per second: Hanoi N = 10 full move lists (1023 moves), from raw text
  (extraction + simulation) and from parsed lists (simulation only);
* scoring a golden answer, ours (``task.score`` on the reply text) beside reasoning-gym's
  ``dataset.score_answer`` on the tasks both suites have, at matching sizes: Solo 9x9 vs sudoku,
  Towers 5x5 vs futoshiki 5x5, Hanoi N = 5 vs tower_of_hanoi (5 disks, 3 pegs); CPU time per
  call, measured in alternating batches in one process, the target being at most
  3x reasoning-gym's; beside them, what our TRL reward function pays per completion on dataset
  rows, 8 correct completions per row (a GRPO group). Skipped (and said so) when
  ``reasoning_gym`` is not installed (``pip install reasoning-gym``: the ``bench`` extra).

Interactive step rates count the resets between episodes (as a training loop pays them); the
rate of steps alone is given beside them. The target is a ratio to CartPole
within 3x.

Prints a table and writes ``benchmarks/results/planning.json``. ``--quick`` runs shorter.
"""
from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import gymnasium as gym
from _common import print_table, write_result

import kumo_gym  # noqa: F401
from kumo_gym.core.registry import get_task
from kumo_gym.envs.planning import search as sp

ENVS = {"Hanoi": {"n": 5}, "CheckerJumping": {"n": 3}, "RiverCrossing": {"n": 3, "k": 2}, "BlocksWorld": {"n": 6}}


def rate(fn, min_time: float) -> tuple[float, int]:
    """Calls per second of ``fn`` (which returns how many steps it made), over >= min_time s."""
    steps, t0 = 0, time.perf_counter()
    while True:
        steps += fn()
        dt = time.perf_counter() - t0
        if dt >= min_time:
            return steps / dt, steps


def best_time(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


# ---- env throughput -------------------------------------------------------------------------
def cartpole_rate(min_time: float) -> float:
    env = gym.make("CartPole-v1")
    env.reset(seed=0)
    rng = np.random.default_rng(0)

    def run():
        for _ in range(1000):
            _, _, term, trunc, _ = env.step(int(rng.integers(2)))
            if term or trunc:
                env.reset()
        return 1000

    return rate(run, min_time)[0]


def answer_rate(name: str, params: dict, min_time: float) -> float:
    env = gym.make(f"kumo_gym/{name}-v0", **params)
    env.reset(seed=0)
    task = env.unwrapped.task
    gold = task.format_answer(task.solve(env.unwrapped.instance))

    def run():
        env.reset()
        _, r, _, _, _ = env.step(gold)
        assert r == 1.0
        return 1

    return rate(run, min_time)[0]


def interactive_rate(name: str, params: dict, min_time: float) -> tuple[float, float]:
    """(steps per second counting the resets between episodes, steps per second alone)."""
    env = gym.make(f"kumo_gym/{name}-v0", mode="interactive", **params)
    env.reset(seed=0)
    task = env.unwrapped.task
    moves = [task.format_move(m) for m in task.solve(env.unwrapped.instance)]
    in_steps = [0.0]

    def run():
        env.reset()
        t0 = time.perf_counter()
        for a in moves:
            env.step(a)
        in_steps[0] += time.perf_counter() - t0
        return len(moves)

    per_s, steps = rate(run, min_time)
    return per_s, steps / in_steps[0]


def structured_rate(name: str, params: dict, min_time: float) -> float | None:
    try:
        from kumo_gym.wrappers.structured import StructuredWrapper
    except ImportError:
        return None
    env = StructuredWrapper(gym.make(f"kumo_gym/{name}-v0", mode="interactive", **params))
    env.reset(seed=0)
    base = env.unwrapped
    task = base.task
    catalog = [repr(m) for m in task.move_catalog(base.instance)]
    actions = [catalog.index(repr(m)) for m in task.solve(base.instance)]

    def run():
        env.reset()
        for a in actions:
            env.step(a)
        return len(actions)

    return rate(run, min_time)[0]


# ---- solvers --------------------------------------------------------------------------------
def river_rows(ns, ks, repeat) -> list[dict]:
    rows = []
    for n in ns:
        for k in ks:
            t_nb = best_time(lambda n=n, k=k: sp.river_count_moves(n, k, "numba"), repeat)
            t_py = best_time(lambda n=n, k=k: sp.river_count_moves(n, k, "python"), max(1, repeat // 2))
            rows.append({"puzzle": "RiverCrossing", "instance": f"N={n} k={k}",
                         "optimal": sp.river_optimal_length(n, k), "numba_ms": 1e3 * t_nb, "python_ms": 1e3 * t_py,
                         "speedup": t_py / t_nb if t_nb > 0 else None})
    return rows


def blocks_instances(quick: bool) -> list[tuple[str, list, list]]:
    out = []
    for n in ((5, 6) if quick else (5, 6, 7, 8)):
        initial, goal = sp.blocks_interleaved(n)
        out.append((f"interleaved N={n}", initial, goal))
    rng = np.random.default_rng(7)
    for n, stacks in ((6, 3), (7, 4)) if quick else ((6, 3), (7, 3), (7, 4), (8, 4)):
        names = sp.block_names(n)
        out.append((f"random N={n} S={stacks}", _random_stacks(names, stacks, rng), _random_stacks(names, stacks, rng)))
    return out


def _random_stacks(names, stacks, rng) -> list[list[str]]:
    piles = [[] for _ in range(stacks)]
    for b in rng.permutation(names):
        piles[int(rng.integers(stacks))].append(str(b))
    return piles


def blocks_rows(quick: bool, repeat: int) -> list[dict]:
    rows = []
    for label, initial, goal in blocks_instances(quick):
        sol = sp.blocks_search(initial, goal)
        t_nb = best_time(lambda i=initial, g=goal: sp.blocks_search(i, g, backend="numba"), repeat)
        t_py = best_time(lambda i=initial, g=goal: sp.blocks_search(i, g, backend="python"), 1)
        rows.append({"puzzle": "BlocksWorld", "instance": label, "optimal": len(sol),
                     "numba_ms": 1e3 * t_nb, "python_ms": 1e3 * t_py, "speedup": t_py / t_nb if t_nb > 0 else None})
    return rows


def compile_times() -> dict:
    """Seconds of the first call in this process (numba compile or cache load)."""
    t0 = time.perf_counter()
    sp.river_count_moves(3, 2, "numba")
    t1 = time.perf_counter()
    sp.blocks_search([["A", "B"], [], []], [["B", "A"], [], []])
    t2 = time.perf_counter()
    return {"river_first_call_s": t1 - t0, "blocks_first_call_s": t2 - t1}


# ---- verification ---------------------------------------------------------------------------
def verify_rates(min_time: float) -> dict:
    task = get_task("kumo_gym/Hanoi-v0")
    inst = task.load({"n": 10})
    gold = task.solve(inst)
    text = "Thinking done.\n" + task.format_answer(gold)

    def from_text():
        assert task.score(inst, text).solved
        return 1

    def from_list():
        assert task.verify(inst, gold).solved
        return 1

    return {"hanoi10_text_per_s": rate(from_text, min_time)[0], "hanoi10_list_per_s": rate(from_list, min_time)[0],
            "moves_per_answer": len(gold)}


# ---- scoring against reasoning-gym ----------------------------------------------------------
#: (our env, its parameters, reasoning-gym dataset, its config), matching sizes
RG_PAIRS = (("Solo", {"difficulty": "normal"}, "sudoku", {}),
            ("Towers", {"difficulty": "normal"}, "futoshiki", {"min_board_size": 5, "max_board_size": 5}),
            ("Hanoi", {"n": 5}, "tower_of_hanoi", {"min_disks": 5, "max_disks": 5, "min_pegs": 3, "max_pegs": 3}))


def cpu_rate(fn, min_time: float) -> float:
    """Calls per CPU second of ``fn``, over >= min_time s of CPU."""
    calls, c0 = 0, time.process_time()
    while True:
        fn()
        calls += 1
        dt = time.process_time() - c0
        if dt >= min_time:
            return calls / dt


def interleaved_cpu_rates(a, b, min_time: float, batch: int = 200) -> tuple[float, float]:
    """Calls per CPU second of ``a`` and ``b``, measured in alternating batches (so a change in
    the machine's load hits both alike) until each has run >= min_time s of CPU."""
    spent, calls = [0.0, 0.0], [0, 0]
    while min(spent) < min_time:
        for i, fn in enumerate((a, b)):
            c0 = time.process_time()
            for _ in range(batch):
                fn()
            spent[i] += time.process_time() - c0
            calls[i] += batch
    return calls[0] / spent[0], calls[1] / spent[1]


def first_scoring_us(task, inst, text: str, min_time: float, batch: int = 200) -> float:
    """CPU microseconds of scoring ``text`` on an instance object never scored before (each call
    gets its own copy, made untimed, as a reward function that loads every row's instance does):
    the rule checks run in full, where scoring on the same object again can reuse a grid that
    verify already found solved (a GRPO group's correct completions, repeated evaluations)."""
    spent, calls = 0.0, 0
    while spent < min_time:
        fresh = [task.load(inst.to_dict()) for _ in range(batch)]
        c0 = time.process_time()
        for one in fresh:
            task.score(one, text)
        spent += time.process_time() - c0
        calls += batch
    return 1e6 * spent / calls


def group_scoring_us(env_id: str, params: dict, min_time: float, group: int = 8, n_rows: int = 16) -> float:
    """CPU microseconds per completion of our TRL reward function (``kind="binary"``) on dataset
    rows (instance as JSON text), ``group`` correct completions per row with distinct texts (a GRPO
    group: no verdict is reused, the row's instance is loaded once per group). Each round's rows
    are new to the function: its caches are emptied, untimed, before the round."""
    import warnings

    from kumo_gym.training import rewards
    from kumo_gym.training.data import make_dataset

    task = get_task(env_id)
    with warnings.catch_warnings():  # Hanoi N=5 is one puzzle: its rows repeat, as they would in training
        warnings.simplefilter("ignore")
        rows = make_dataset(env_id, n_rows, **params)
    insts = [r["instance"] for r in rows for _ in range(group)]
    golds = [task.format_answer(task.solve(task.load(r["instance"]))) for r in rows]
    reward = rewards.make_reward_function(env_id=env_id, kind="binary")
    spent, calls, k = 0.0, 0, 0
    while spent < min_time:
        k += 1
        texts = [f"Attempt {k}.{g}: done thinking.\n{gold}" for gold in golds for g in range(group)]
        rewards._CACHE._items.clear()
        rewards._INSTANCES._items.clear()
        c0 = time.process_time()
        out = reward(completions=texts, instance=insts)
        spent += time.process_time() - c0
        calls += len(texts)
        assert out == [1.0] * len(texts)
    return 1e6 * spent / calls


def scoring_rows(min_time: float) -> list[dict] | None:
    """Golden answers scored per CPU second, ours beside reasoning-gym's (None: not installed)."""
    try:
        import reasoning_gym
    except ImportError:
        return None
    rows = []
    for name, params, rg_name, rg_config in RG_PAIRS:
        task = get_task(f"kumo_gym/{name}-v0")
        inst = task.generate(np.random.default_rng(0), **params)
        text = "Done thinking.\n" + task.format_answer(task.solve(inst))
        assert task.score(inst, text).solved

        def ours(task=task, inst=inst, text=text):
            task.score(inst, text)

        ds = reasoning_gym.create_dataset(rg_name, size=1, seed=0, **rg_config)
        entry = ds[0]
        assert ds.score_answer(entry["answer"], entry) == 1.0

        def theirs(ds=ds, entry=entry):
            ds.score_answer(entry["answer"], entry)

        ours_per_s, theirs_per_s = interleaved_cpu_rates(ours, theirs, min_time)
        rows.append({"ours": f"kumo_gym/{name}-v0", "params": params, "reasoning_gym": rg_name,
                     "rg_config": rg_config, "ours_us": 1e6 / ours_per_s, "rg_us": 1e6 / theirs_per_s,
                     "ours_first_us": first_scoring_us(task, inst, text, min_time),
                     "ours_reward_fn_us": group_scoring_us(f"kumo_gym/{name}-v0", params, min_time),
                     "ratio": theirs_per_s / ours_per_s, "meets_target": theirs_per_s / ours_per_s <= 3.0})
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="shorter timings and fewer instances")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "planning.json"))
    args = ap.parse_args(argv)
    min_time = 0.3 if args.quick else 1.0
    repeat = 2 if args.quick else 5

    compiled = compile_times()
    cart = cartpole_rate(min_time)
    env_rows = []
    for name, params in ENVS.items():
        with_resets, alone = interactive_rate(name, params, min_time)
        env_rows.append({"env": f"kumo_gym/{name}-v0", "params": params,
                         "answer_episodes_per_s": answer_rate(name, params, min_time),
                         "interactive_steps_per_s": with_resets, "interactive_step_only_per_s": alone,
                         "cartpole_ratio": cart / with_resets,
                         "structured_steps_per_s": structured_rate(name, params, min_time)})
    solver_rows = river_rows((5, 10) if args.quick else (5, 10, 20, 50, 100), (4, 5, 6), repeat)
    solver_rows += blocks_rows(args.quick, repeat)
    verify = verify_rates(min_time)
    scoring = scoring_rows(min_time)

    print(f"\nGymnasium CartPole-v1 (random actions): {cart:,.0f} steps/s")
    print()
    print_table([("env", "<30"), ("answer ep/s", ">12,.0f"), ("interactive st/s", ">17,.0f"),
                 ("steps alone", ">12,.0f"), ("x CartPole", ">11.2f"), ("structured st/s", ">16")],
                [(r["env"], r["answer_episodes_per_s"], r["interactive_steps_per_s"], r["interactive_step_only_per_s"],
                  r["cartpole_ratio"],
                  "n/a" if r["structured_steps_per_s"] is None else f"{r['structured_steps_per_s']:,.0f}")
                 for r in env_rows])
    print()
    print_table([("solver", "<14"), ("instance", "<22"), ("optimal", ">7"), ("numba ms", ">10.3f"),
                 ("python ms", ">10.2f"), ("speedup", ">8.1f")],
                [(r["puzzle"], r["instance"], r["optimal"], r["numba_ms"], r["python_ms"], r["speedup"])
                 for r in solver_rows])
    print(f"\nnumba first calls (compile or cache load): river {compiled['river_first_call_s']:.2f} s, "
          f"blocks {compiled['blocks_first_call_s']:.2f} s")
    print(f"Hanoi N=10 answers verified per second ({verify['moves_per_answer']} moves each): "
          f"{verify['hanoi10_text_per_s']:,.1f} from text, {verify['hanoi10_list_per_s']:,.1f} from parsed lists")

    if scoring is None:
        print("\nreasoning-gym is not installed: the scoring comparison is skipped")
    else:
        print(f"\n{'scoring a golden answer':28} {'ours us':>9} {'first us':>9} {'reward fn us':>13} "
              f"{'reasoning-gym':>16} {'rg us':>9} {'ratio':>6}")
        for r in scoring:
            print(f"{r['ours']:28} {r['ours_us']:9.1f} {r['ours_first_us']:9.1f} {r['ours_reward_fn_us']:13.1f} "
                  f"{r['reasoning_gym']:>16} {r['rg_us']:9.1f} {r['ratio']:6.2f}")
    result = {"benchmark": "planning", "quick": args.quick, "python": platform.python_version(),
              "machine": platform.machine(), "processor": platform.processor(), "numba_first_call_s": compiled,
              "cartpole_steps_per_s": cart, "envs": env_rows, "solvers": solver_rows, "verification": verify,
              "scoring_vs_reasoning_gym": scoring,
              "method": "rates over >= min_time s of wall time (perf_counter) in one process; interactive rates "
                        "count resets between episodes; scoring: calls per CPU second (process_time)"}
    write_result(args.out, result, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
