"""``kumo-gym demo`` (``make demo``): the suite end to end in a few minutes on a CPU.

1. the environment table (every registered id, its family, modes and difficulty presets);
2. one prompt, the golden answer from our solver and its verdict;
3. the oracle and random agents on every registered environment, in every mode, through the
   evaluation harness (traces, tables, plots);
4. the tiny local model learning: a short SFT warm-up on golden answers, then GRPO with a
   success-driven curriculum (Hanoi with 1, 2, then 3 disks), the reward components, the
   curriculum level and the held-out callback logged every step and plotted;
5. a report, ``runs/demo-<time>/report.md``, with all of the above.

Why a warm-up: GRPO learns from differences between the completions of a group. A freshly built
tiny model never writes a readable answer, so every completion earns 0, every group has zero
spread, the advantages and the loss are 0 and nothing is learned (the report says so whenever it
happens). A few SFT steps on golden answers make it right some of the time; GRPO then raises the
reward, and the curriculum moves on when the recent success rate reaches its threshold. What the
tiny model learns is to reproduce the answers of a handful of puzzles it has seen, not to solve
new ones: for that, the same commands take a real model (``--model``/``--base-url`` of
``kumo-gym eval`` and ``kumo-gym train``).
"""
from __future__ import annotations

import json
import time
from pathlib import Path


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


def demo_levels(env_id: str) -> list:
    """The curriculum of the demo: Hanoi with 1, 2 and 3 disks, or the first three presets."""
    from ..core.registry import entry, get_task

    if entry(env_id).name == "Hanoi":
        return [{"n": 1}, {"n": 2}, {"n": 3}]
    presets = list(get_task(env_id).difficulties)
    return presets[:3] or [{}]


#: GRPO samples the warmed-up model at this temperature: hot enough that it is right only part of the
#: time (a model that always answers right gives GRPO nothing to learn), so RL has to make it reliable
DEMO_TEMPERATURE = 1.5

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


def plot_grpo(history: list[dict], path: Path) -> Path | None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    fig, ax = plt.subplots(figsize=(7, 3.8))
    for key in REWARD_KEYS:
        pts = [(h["step"], h[key]) for h in history if key in h and h[key] is not None]
        if pts:
            ax.plot(*zip(*pts), marker="o", markersize=3, alpha=0.5,
                    label=key.replace("rewards/", "").replace("/mean", ""))
    pts = [(h["step"], h["kumo_eval/success"]) for h in history if h.get("kumo_eval/success") is not None]
    if pts:  # a few evaluations: points, not a line that suggests a trend between them
        ax.plot(*zip(*pts), linestyle="none", marker="*", markersize=10, label="held-out success (greedy)")
    pts = [(h["step"], h["rewards/puzzle_binary/mean"]) for h in history if "rewards/puzzle_binary/mean" in h]
    if len(pts) >= 5:  # the trend of the solved rate, over 5 steps (one step is 32 noisy samples)
        xs, ys = zip(*pts)
        smooth = [sum(ys[max(0, i - 4):i + 1]) / len(ys[max(0, i - 4):i + 1]) for i in range(len(ys))]
        ax.plot(xs, smooth, color="black", linewidth=2, label="puzzle_binary, 5-step mean")
    ax.set(xlabel="step", ylabel="reward", title="GRPO of the tiny model: rewards and held-out success")
    levels = sorted({k for h in history for k in h if k.startswith("curriculum/") and k.endswith("/level")})
    if levels:
        ax2 = ax.twinx()
        for key in levels:
            pts = [(h["step"], h[key]) for h in history if key in h]
            ax2.step(*zip(*pts), where="post", color="gray", linestyle="--", label=key)
        ax2.set_ylabel("curriculum level")
        ax2.legend(fontsize=7, loc="lower right")
    ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def run_demo(out: str | Path | None = None, n: int = 3, grpo_env: str | None = None, grpo_steps: int = 40,
             quick: bool = False, model: str = "tiny", sft_steps: int = 200) -> Path:
    """Run the demo and return the report path (``model``: the GRPO model, the tiny one by default)."""
    import os

    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
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

    _section(f"4. The tiny model learns: SFT warm-up, then GRPO with a curriculum on {env_id}")
    grpo_path = learn(out, md, env_id, model=model, sft_steps=10 if quick else sft_steps,
                      grpo_steps=3 if quick else grpo_steps, quick=quick)
    history = json.loads((grpo_path / "log_history.json").read_text())
    (out / "summary.json").write_text(json.dumps({"eval": summary, "grpo": history}, indent=2, default=str) + "\n")

    md += ["## Next", "",
           ("- A real model: `kumo-gym train grpo --config examples/grpo_qwen.yaml` (downloads Qwen2.5-0.5B-Instruct, "
           "about 1 GB; a GPU with about 24 GB, or 12 GB with `--use_peft`), then "
           "`kumo-gym eval --env Hanoi --difficulty easy medium hard --model runs/grpo-qwen0.5b/model --size 50`;"),
           "- an OpenAI-compatible endpoint: `kumo-gym eval --base-url http://localhost:8000/v1 --model NAME ...`;",
           "- see docs/training.md.", "", f"Total time: {time.time() - t0:.0f} s."]
    path = out / "report.md"
    path.write_text("\n".join(md) + "\n")
    _section("Report")
    print(f"{path}  ({time.time() - t0:.0f} s)")
    return path


def learn(out: Path, md: list[str], env_id: str, model: str = "tiny", sft_steps: int = 200, grpo_steps: int = 40,
          quick: bool = False) -> Path:
    """Part 4 of the demo: SFT warm-up on golden answers of the curriculum's levels, then GRPO with
    the curriculum from the warmed-up model. Appends its section to ``md``; returns the GRPO dir."""
    import torch

    from ..core.tables import format_table
    from .curriculum import Curriculum
    from .evaluate import EvalSpec
    from .grpo import train_grpo
    from .sft import train_sft

    # a model this small runs fastest on one thread (more threads only add synchronisation)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        levels = demo_levels(env_id)
        specs = [EvalSpec(env_id, {"difficulty": x} if isinstance(x, str) else dict(x)) for x in levels]
        t = time.process_time()
        sft = train_sft(specs, model=model, size=2 if quick else 8, output_dir=str(out / "sft"), max_steps=sft_steps,
                        batch_size=3, learning_rate=1e-2, save=True, trainer_args={"disable_tqdm": True})
        sft_cpu = time.process_time() - t
        losses = [h["loss"] for h in sft.state.log_history if "loss" in h]
        cur = Curriculum({env_id: levels}, window=4 if quick else 16, promote_at=0.75)
        t = time.process_time()
        trainer = train_grpo([], curriculum=cur, model=str(out / "sft" / "model"), size=64,
                             output_dir=str(out / "grpo"), max_steps=grpo_steps, num_generations=8,
                             prompts_per_step=2 if quick else 4, max_completion_length=24 if quick else 56,
                             learning_rate=1e-3,
                             temperature=DEMO_TEMPERATURE,
                             callback_every=0 if quick else max(1, grpo_steps // 2), callback_n=1,
                             callback_max_tokens=56, save=False, trainer_args={"disable_tqdm": True})
        grpo_cpu = time.process_time() - t
    finally:
        torch.set_num_threads(threads)
    history = trainer.state.log_history
    table = grpo_table(history)
    tcols = sorted({k for r in table for k in r}, key=lambda k: (k != "step", k))
    print()
    print(format_table(table, tcols))
    diagnosis = learning_diagnosis(history)
    print("\n" + diagnosis)
    names = ", ".join(cur.schedules[env_id].names)
    moves = "; ".join(f"step {e['step']}: {e['event']} {e['from']} -> {e['to']}" for e in cur.history) or "none"
    md += [f"## 4. The tiny model learns ({env_id})", "",
           (f"**SFT warm-up**: {sft.state.global_step} steps on golden answers of the levels {names} "
           f"(loss {losses[0]:.2f} -> {losses[-1]:.2f}; {sft_cpu:.0f} s of CPU)."), "",
           (f"**GRPO with a curriculum** from the warmed-up model, sampled at temperature {DEMO_TEMPERATURE} (so that "
           f"it is right only part of the time): {trainer.state.global_step} steps "
           f"({grpo_cpu:.0f} s of CPU), levels {names}, promotion when the success rate of the last "
           f"{cur.schedules[env_id].rule.window} training episodes reaches 0.75. Curriculum moves: {moves}. "
           f"Reward components (`puzzle_binary`, `puzzle_partial`, `puzzle_format`, weights 1, 0.5, 0.1), the share of "
           "groups without reward spread (nothing to learn from) and the curriculum level, as TRL logs them:"), "",
           format_table(table, tcols, markdown=True), "", diagnosis, ""]
    img = plot_grpo(history, out / "grpo" / "grpo.png")
    if img is not None:
        md += ["![GRPO curves](grpo/grpo.png)", ""]
    md += [("What the tiny model (about 200K parameters, built here) can learn in minutes: to reproduce the answers "
           "of the few puzzles it was shown (one puzzle per level here) and, by RL, to produce them more reliably. "
           "What it cannot: solve puzzles it has not seen, or reason about new ones; the same pipeline with a "
           "real model is the next section's."), ""]
    return out / "grpo"
