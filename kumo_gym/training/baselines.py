"""Stable-Baselines3 PPO baselines on the structured environments, next to random play.

Each environment is wrapped with :class:`kumo_gym.wrappers.StructuredWrapper` (numeric
observation, ``Discrete`` action over the task's move catalogue, an action mask). PPO trains
for a fixed number of timesteps on the train split, then plays ``n_eval`` test episodes
greedily; masked random play (uniform over legal moves) is evaluated on the same episodes. The
table reports success rate, mean moves and optimal moves, and the ratio of moves to the
optimum on solved episodes. These are the non-LLM reference points for the LLM tables of
``kumo-gym eval``; an oracle row is 1.0 by construction (the oracle agent there).

Run ``python -m kumo_gym.training.baselines [--timesteps 20000] [--out runs/baselines]``.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np

#: (env id, env kwargs, share of --timesteps): small sizes PPO can learn in minutes on a CPU, with
#: a move budget of 30 (rejected illegal moves count). KUMO draws a fresh SAT-generated instance
#: every episode (tens of steps per second), so it gets a tenth of the budget.
DEFAULT_CONFIGS: list[tuple[str, dict[str, Any], float]] = [
    ("kumo_gym/Hanoi-v0", {"n": 3, "max_steps": 30}, 2.0),
    ("kumo_gym/CheckerJumping-v0", {"n": 1, "max_steps": 30}, 0.5),
    ("kumo_gym/RiverCrossing-v0", {"n": 2, "k": 2, "max_steps": 30}, 0.5),
    ("kumo_gym/BlocksWorld-v0", {"n": 4, "max_steps": 30}, 0.5),
    ("kumo_gym/KUMO-v0", {"difficulty": "easy"}, 0.1),
]


def structured_env(env_id: str, kwargs: dict, split: str = "train", max_steps: int | None = None):
    import gymnasium as gym

    import kumo_gym  # noqa: F401

    from ..wrappers.structured import StructuredWrapper

    kw = dict(kwargs)
    kw.setdefault("max_invalid", 50)
    if max_steps is not None:
        kw["max_steps"] = max_steps
    env = gym.make(env_id, mode="interactive", split=split, **kw)
    return StructuredWrapper(env, step_penalty=-0.01, illegal_penalty=-0.05)


def play(env, policy, n: int, seed: int = 10_000) -> dict:
    """Success rate and move counts of ``policy(obs, info) -> action`` over ``n`` episodes."""
    solved, moves, optimal, ratios = 0, [], [], []
    for ep in range(n):
        obs, info = env.reset(seed=seed + ep)
        opt = info.get("optimal_steps")
        done = trunc = False
        while not (done or trunc):
            obs, _, done, trunc, info = env.step(int(policy(obs, info)))
        verdict = info.get("verdict") or {}
        n_moves = int((verdict.get("details") or {}).get("moves", info.get("step", 0)) or 0)
        moves.append(n_moves)
        if opt:
            optimal.append(opt)
        if verdict.get("status") == "solved":
            solved += 1
            if opt:
                ratios.append(n_moves / opt)
    return {"episodes": n, "success": solved / n, "moves": float(np.mean(moves)),
            "optimal_moves": float(np.mean(optimal)) if optimal else None,
            "opt_ratio": float(np.mean(ratios)) if ratios else None}


def ppo_baseline(env_id: str, kwargs: dict, timesteps: int = 20_000, n_eval: int = 20, seed: int = 0,
                 n_envs: int = 4) -> list[dict]:
    """PPO (trained ``timesteps`` steps) and masked random play on ``env_id``; two table rows."""
    import stable_baselines3 as sb3
    import torch
    from stable_baselines3.common.env_util import make_vec_env

    torch.manual_seed(seed)
    venv = make_vec_env(lambda: structured_env(env_id, kwargs), n_envs=n_envs, seed=seed)
    model = sb3.PPO("MlpPolicy", venv, n_steps=128, batch_size=128, n_epochs=8, learning_rate=3e-3, gamma=0.97,
                    ent_coef=0.01, seed=seed, device="cpu", verbose=0)
    model.learn(total_timesteps=timesteps)
    env = structured_env(env_id, kwargs, split="test")
    rng = np.random.default_rng(seed)
    ppo = play(env, lambda obs, info: model.predict(obs, deterministic=True)[0], n_eval)
    rand = play(env, lambda obs, info: rng.choice(np.flatnonzero(info["action_mask"])), n_eval)
    label = env_id.split("/")[-1].removesuffix("-v0") + "(" + ",".join(f"{k}={v}" for k, v in kwargs.items()) + ")"
    return [{"env": label, "agent": f"PPO {timesteps / 1000:g}k", **ppo}, {"env": label, "agent": "random (masked)", **rand}]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="PPO baselines on the structured environments")
    ap.add_argument("--timesteps", type=int, default=20_000)
    ap.add_argument("--n-eval", type=int, default=20)
    ap.add_argument("--env", action="append", default=None, help="ID:key=value,... (default: the planning "
                    "puzzles at small sizes and KUMO easy)")
    ap.add_argument("--out", default="runs/baselines")
    args = ap.parse_args(argv)
    from ..core.registry import entries
    from ..core.tables import format_table

    if args.env:
        from .evaluate import parse_env_spec

        configs = [(s.env_id, {k: v for k, v in s.kwargs.items() if k != "mode"}, 1.0)
                   for s in map(parse_env_spec, args.env)]
    else:
        known = {e.id for e in entries()}
        configs = [c for c in DEFAULT_CONFIGS if c[0] in known]
    rows = []
    for env_id, kw, share in configs:
        rows.extend(ppo_baseline(env_id, kw, int(args.timesteps * share), args.n_eval))
        print(format_table(rows[-2:], list(rows[-1])), flush=True)
    shown = [{k: (f"{v:.3f}" if isinstance(v, float) else ("-" if v is None else v)) for k, v in r.items()}
             for r in rows]
    cols = ["env", "agent", "episodes", "success", "moves", "optimal_moves", "opt_ratio"]
    print("\n" + format_table(shown, cols))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "ppo_baselines.json").write_text(json.dumps(rows, indent=2) + "\n")
    (out / "ppo_baselines.md").write_text(format_table(shown, cols, markdown=True) + "\n")
    print(f"\nwrote {out}/ppo_baselines.json and .md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
