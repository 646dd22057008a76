"""``kumo-gym demo`` (``make demo``): the suite end to end in about ten minutes on a CPU.

1. the environment table (every registered id, its family, modes and difficulty presets);
2. one prompt, the golden answer from our solver and its verdict;
3. the oracle and random agents on every registered environment, in every mode, through the
   evaluation harness (traces, tables, plots);
4. a real model learning on fresh puzzles (SmolLM2-135M-Instruct by default, installed with the
   package, nothing downloaded): it answers held-out test puzzles whose content is in no training
   puzzle, then a short SFT warm-up on golden answers of the training split and a few GRPO steps
   with our verifier as the reward, then the same held-out puzzles again; one progress bar per
   phase, a before/after table with paired 95% intervals and a plot of the learning curves;
5. a report, ``runs/demo-<time>/report.md``, with all of the above. The trainers' log
   dictionaries go to ``runs/demo-<time>/learn/<phase>/log.jsonl``, not to the terminal.

Why a warm-up: GRPO learns from differences between the answers of a group. The bare model
never writes a readable grid, so every answer earns 0, every group has zero spread and the
gradient is 0 (the report's diagnosis says so whenever it happens). A few SFT steps teach the
answer format; GRPO then has spread to learn from. ``--model tiny`` runs the same part with the
tiny local model (seconds; what the tests use), which cannot solve anything it has not seen.
"""
from __future__ import annotations

import json
import time
from pathlib import Path


def quiet_libraries() -> None:
    """Keep the terminal to our progress bars and tables: library warnings and progress bars off
    (the trainers' log dictionaries go to the run directory)."""
    import warnings

    warnings.filterwarnings("ignore", category=FutureWarning)
    warnings.filterwarnings("ignore", category=UserWarning)
    try:
        import datasets
        import transformers

        datasets.disable_progress_bars()
        transformers.logging.set_verbosity_error()
        transformers.logging.disable_progress_bar()
    except ImportError:
        pass


def _section(title: str) -> None:
    print(f"\n{'=' * 8} {title} {'=' * max(2, 70 - len(title))}", flush=True)


def pick_grpo_env() -> str:
    """A registered environment with an answer mode for the GRPO run (Hanoi when present)."""
    from ..core.registry import entries

    rows = [e for e in entries() if "answer" in e.modes]
    if not rows:
        raise SystemExit("error: no environment with an answer mode is registered")
    for e in rows:
        if e.name == "Hanoi":
            return e.id
    return rows[0].id


REWARD_KEYS = ("reward", "rewards/puzzle_binary/mean", "rewards/puzzle_partial/mean", "rewards/puzzle_format/mean")


def grpo_table(history: list[dict]) -> list[dict]:
    rows = []
    for h in history:
        if "reward" in h or any(k.startswith("kumo_eval/") for k in h):
            row = {"step": h.get("step")}
            for k in (*REWARD_KEYS, "frac_reward_zero_std", "completions/mean_length", "kumo_eval/success"):
                if k in h:
                    v = h[k]
                    row[k.replace("rewards/", "").replace("/mean", "")] = f"{v:.3f}" if isinstance(v, float) else v
            for k, v in h.items():
                if k.startswith("curriculum/") and k.endswith("/level"):
                    row["level"] = f"{v:.1f}"
            rows.append(row)
    return rows


def learning_diagnosis(history: list[dict]) -> str:
    """Whether GRPO had anything to learn from (groups with reward spread), and how the reward moved
    on each curriculum level (it drops at a promotion: the new level is harder)."""
    steps = [h for h in history if "frac_reward_zero_std" in h and "reward" in h]
    if not steps:
        return ""
    flat = sum(h["frac_reward_zero_std"] for h in steps) / len(steps)
    if flat >= 0.999:
        return ("Every group of completions earned the same reward at every step (frac_reward_zero_std = 1), so "
                "GRPO's advantages, and with them the loss and the gradient, were 0: nothing could be learned. "
                "The model must succeed some of the time before RL can help: warm it up with SFT on golden "
                "answers (kumo-gym train sft), start from a stronger model, or use an easier level.")
    level_key = next((k for h in steps for k in h if k.startswith("curriculum/") and k.endswith("/level")), None)
    stretches: list[list[dict]] = []
    for h in steps:
        if not stretches or (level_key and h.get(level_key) != stretches[-1][-1].get(level_key)):
            stretches.append([])
        stretches[-1].append(h)
    parts = []
    for run in stretches:
        k = max(1, min(3, len(run) // 3))
        first = sum(h["reward"] for h in run[:k]) / k
        last = sum(h["reward"] for h in run[-k:]) / k
        where = f"level {run[0][level_key]:g}" if level_key else "the run"
        parts.append(f"{where} (steps {run[0]['step']}-{run[-1]['step']}): {first:.2f} -> {last:.2f}")
    return (f"{100 * (1 - flat):.0f}% of the groups had a spread of rewards to learn from. Mean reward over the first "
            f"and last {'three steps' if len(steps) > 8 else 'steps'} of each stretch: " + "; ".join(parts)
            + (". A promotion makes the reward drop (the next level is harder) before GRPO raises it again."
               if level_key and len(stretches) > 1 else "."))


def run_demo(out: str | Path | None = None, n: int = 3, grpo_env: str | None = None, grpo_steps: int | None = None,
             quick: bool = False, model: str = "smollm2", sft_steps: int | None = None) -> Path:
    """Run the demo and return the report path (``model``: the model that learns, SmolLM2 by default)."""
    import os

    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    quiet_libraries()
    settings = {k: v for k, v in (("grpo_steps", grpo_steps), ("sft_steps", sft_steps)) if v is not None}
    from ..analysis.results import format_results
    from ..core.registry import catalogue_rows, entries, get_task, resolve_env_id
    from ..core.tables import format_table
    from .agents import OracleAgent, RandomAgent
    from .data import generate_instances
    from .evaluate import Evaluator, make_specs, report

    t0 = time.time()
    out = Path(out or f"runs/demo-{time.strftime('%Y%m%d-%H%M%S')}")
    out.mkdir(parents=True, exist_ok=True)
    md = ["# kumo_gym demo", "", (f"Run at {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}; "
          "everything below ran on this machine's CPU with nothing downloaded."), ""]

    _section("1. The suite")
    rows = catalogue_rows()
    cols = ["id", "family", "modes", "difficulties", "summary"]
    print(format_table(rows, cols))
    md += ["## 1. The suite", "", format_table(rows, cols, markdown=True), ""]

    _section("2. A prompt, the golden answer and its verdict")
    env_id = resolve_env_id(grpo_env) if grpo_env else pick_grpo_env()
    task = get_task(env_id)
    inst = next(generate_instances(env_id, 1, split="test", seed=0))
    prompt = task.prompt(inst)
    golden = task.format_answer(task.solve(inst))
    verdict = task.score(inst, golden)
    print(f"{env_id}  instance {inst.instance_id}\n\n{prompt}\n\n--- golden answer ---\n{golden}\n\n"
          f"--- verdict --- {verdict.status}: {verdict.message}")
    md += ["## 2. A prompt and the golden answer", "", f"`{env_id}`, instance `{inst.instance_id}`:", "",
           "```text", prompt, "```", "", "Golden answer from our solver:", "", "```text", golden, "```", "",
           f"Verdict: **{verdict.status}** ({verdict.message})", ""]

    _section("3. Oracle and random agents on every environment")
    eval_dir = out / "eval"
    specs = [s for e in entries() for m in e.modes for s in make_specs([e.id], mode=m)]
    for agent in (OracleAgent(), RandomAgent(seed=0)):
        Evaluator(agent, eval_dir, model_name=agent.name, split="test", progress=True).run(specs, n)
    summary = report(eval_dir, quiet=True)
    print(format_results(summary, families=False))
    md += ["## 3. Oracle and random agents", "", (f"{n} test instances per environment and mode "
           f"(traces: `{eval_dir}/traces.jsonl`)."), "", format_results(summary, markdown=True, families=False), ""]
    if (eval_dir / "accuracy_tokens.png").exists():
        md += ["![accuracy vs difficulty](eval/accuracy_tokens.png)", ""]

    env = demo_env(grpo_env)
    _section(f"4. {model} learns on fresh puzzles of {env['id']}: before, training, after")
    res = learn(out, md, env, model=model, quick=quick, settings=settings)
    (out / "summary.json").write_text(json.dumps({"eval": summary, "learn": res}, indent=2, default=str) + "\n")

    md += ["## Next", "",
           ("- the longer run on three environments: `python benchmarks/train_real.py` (about 40 minutes of CPU; "
            "docs/training.md shows its curves); the same training from the command line: "
            "`kumo-gym train grpo --config examples/grpo_smollm2.yaml`;"),
           ("- a larger model: `kumo-gym train grpo --config examples/grpo_qwen.yaml` (downloads "
            "Qwen2.5-0.5B-Instruct, about 1 GB; a GPU with about 24 GB, or 12 GB with `--use_peft`);"),
           "- an OpenAI-compatible endpoint: `kumo-gym eval --base-url http://localhost:8000/v1 --model NAME ...`;",
           "- see docs/training.md.", "", f"Total time: {time.time() - t0:.0f} s."]
    path = out / "report.md"
    path.write_text("\n".join(md) + "\n")
    _section("Report")
    print(f"{path}  ({time.time() - t0:.0f} s)")
    return path


#: the demo's training run on a real model: about seven minutes of an idle 2-core machine (the whole demo
#: took 7.5 minutes there on 2026-12-06; 30 SFT and 8 GRPO steps took 11, over the 10 the demo may take)
DEMO_RUN = {"n_train": 300, "n_test": 48, "sft_steps": 24, "sft_batch": 8, "sft_lr": 1e-4, "grpo_steps": 4,
            "prompts_per_step": 4, "num_generations": 4, "grpo_lr": 3e-6, "max_completion_length": 48,
            "curve_every": 0, "curve_n": 48}  # the plot's points: the three evaluations of all 48 held-out puzzles
#: the demo's environment: Filling's trivial preset learned most from the warm-up in benchmarks/train_real.py
DEMO_ENV = "kumo_gym/Filling-v0"
#: the quick settings (tests)
QUICK_RUN = {"n_train": 12, "n_test": 4, "sft_steps": 3, "sft_batch": 4, "sft_lr": 1e-2, "grpo_steps": 2,
             "prompts_per_step": 2, "num_generations": 2, "grpo_lr": 1e-3, "max_completion_length": 24,
             "curve_every": 0, "bf16": False}


def demo_env(env_id: str | None) -> dict:
    """The environment of the learning part: ``env_id`` (default :data:`DEMO_ENV`), with its short
    prompt when :data:`kumo_gym.training.fresh.FRESH_ENVS` has one."""
    from ..core.registry import resolve_env_id
    from .fresh import FRESH_ENVS

    env_id = resolve_env_id(env_id or DEMO_ENV)
    for e in FRESH_ENVS:
        if e["id"] == env_id:
            return dict(e)
    return {"id": env_id}


def learn(out: Path, md: list[str], env: dict, model: str = "smollm2", quick: bool = False,
          settings: dict | None = None) -> dict:
    """Part 4 of the demo: the model on fresh held-out puzzles of ``env`` (test-split instances in
    no training item), a short SFT warm-up and GRPO on the training split, the same held-out
    puzzles after (:func:`kumo_gym.training.fresh.run_fresh`). Appends its section to ``md``;
    returns the run's result."""
    from ..core.tables import format_table
    from .fresh import plot_run, run_fresh

    run = {**(QUICK_RUN if quick else DEMO_RUN), **(settings or {})}
    t0, c0 = time.time(), time.process_time()
    res = run_fresh([env], model=model, out=out / "learn", progress=True, **run)
    res["times"]["demo_part"] = {"wall_s": round(time.time() - t0, 1), "cpu_s": round(time.process_time() - c0, 1)}
    records = res.pop("records")
    (out / "learn" / "records.json").write_text(json.dumps(records) + "\n")
    (out / "learn" / "result.json").write_text(json.dumps(res, indent=1, default=str) + "\n")
    e = env["id"]
    names = {"base": "before (base model)", "sft": "after the SFT warm-up", "grpo": "after GRPO"}
    rows = [{"phase": names.get(ph, ph), "held-out puzzles": r[e]["episodes"], "solved": f"{r[e]['solved']:.3f}",
             "partial score": f"{r[e]['score']:.3f}", "answer found": f"{r[e]['answer_found']:.3f}"}
            for ph, r in res["rates"].items()]
    cols = ["phase", "held-out puzzles", "solved", "partial score", "answer found"]
    diffs = []
    for which, c in res["comparisons"][e].items():
        a, b = which.split("->")
        diffs.append(f"{names.get(a, a)} -> {names.get(b, b)}: " + ", ".join(
            f"{k} {v['diff']:+.3f} [{v['lo']:+.3f}, {v['hi']:+.3f}]" for k, v in c.items()))
    split = res["splits"][0]
    times = res["times"]
    print()
    print(format_table(rows, cols))
    print("\nChange on the same held-out puzzles (mean, 95% paired bootstrap interval):\n  " + "\n  ".join(diffs))
    img = plot_run(res, out / "learn" / "learning.png")
    print(f"\nplot: {img}; trainer logs: {out / 'learn'}/sft/log.jsonl, {out / 'learn'}/grpo/log.jsonl")
    md += [f"## 4. {res['settings']['model']} learns on fresh puzzles ({e})", "",
           (f"Held out: {split['test_fresh_distinct']} test-split puzzles whose content is in none of the "
            f"{split['train_distinct']} distinct training puzzles. The model answers each greedily before training, "
            f"after an SFT warm-up of {run['sft_steps']} steps on golden answers of the training split, and after "
            f"{run['grpo_steps']} GRPO steps ({run['prompts_per_step']} puzzles x {run['num_generations']} sampled "
            "answers per step, rewards from our verifier)."), "",
           format_table(rows, cols, markdown=True), "",
           "Change on the same held-out puzzles (mean, 95% paired bootstrap interval):", "",
           *[f"- {d}" for d in diffs], "",
           ("Time: " + ", ".join(f"{k} {v['wall_s']:.0f} s wall / {v['cpu_s']:.0f} s CPU" for k, v in times.items())
            + "."), ""]
    if img is not None:
        md += ["![learning curves](learn/learning.png)", ""]
    history = res["histories"].get("grpo", [])
    table = grpo_table(history)
    if table:
        tcols = sorted({k for r in table for k in r}, key=lambda k: (k != "step", k))
        md += ["GRPO steps as TRL logs them (rewards of the sampled answers):", "",
               format_table(table, tcols, markdown=True), "", learning_diagnosis(history), ""]
    md += [("What this shows and what it does not: the partial score pays only cells a blind grid (one symbol "
            "everywhere, a checkerboard, a cyclic Latin square) does not get right, so a rise is the model using the "
            "puzzle in front of it; most of it comes from the SFT warm-up, and a few GRPO steps move it little. "
            "It does not learn to solve these puzzles reliably: see docs/training.md for the longer benchmark."), ""]
    return res
