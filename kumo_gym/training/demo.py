"""``kumo-gym demo`` (``make demo``): the suite end to end in a few minutes on a CPU.

1. the environment table (every registered id, its family, modes and difficulty presets);
2. one prompt, the golden answer from our solver and its verdict;
3. the oracle and random agents on every registered environment, in every mode, through the
   evaluation harness (traces, tables, plots);
4. a short GRPO run of the tiny local model on one environment with the held-out evaluation
   callback (reward components and callback metrics logged every step);
5. a report, ``runs/demo-<time>/report.md``, with all of the above.

The tiny model learns nothing useful in a few steps; the point is that the whole pipeline, the
same one a real model goes through (``--model``/``--base-url`` of ``kumo-gym eval`` and
``kumo-gym train``), runs here with nothing downloaded.
"""
from __future__ import annotations

import json
import time
from pathlib import Path


def _section(title: str) -> None:
    print(f"\n{'=' * 8} {title} {'=' * max(2, 70 - len(title))}", flush=True)


def pick_grpo_env() -> str:
    """A registered environment with an answer mode for the short GRPO run (Hanoi when present)."""
    from ..core.registry import entries

    rows = [e for e in entries() if "answer" in e.modes]
    if not rows:
        raise SystemExit("error: no environment with an answer mode is registered")
    for e in rows:
        if e.name == "Hanoi":
            return e.id
    return rows[0].id


def grpo_table(history: list[dict]) -> list[dict]:
    rows = []
    for h in history:
        if "reward" in h or any(k.startswith("kumo_eval/") for k in h):
            row = {"step": h.get("step")}
            for k in ("reward", "rewards/kumo_binary/mean", "rewards/kumo_partial/mean", "rewards/kumo_format/mean",
                      "completions/mean_length", "kumo_eval/success", "kumo_eval/parse_error",
                      "kumo_eval/truncated"):
                if k in h:
                    v = h[k]
                    row[k.replace("rewards/", "").replace("/mean", "")] = f"{v:.3f}" if isinstance(v, float) else v
            rows.append(row)
    return rows


def plot_grpo(history: list[dict], path: Path) -> Path | None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    fig, ax = plt.subplots(figsize=(6, 3.5))
    for key in ("rewards/kumo_binary/mean", "rewards/kumo_partial/mean", "rewards/kumo_format/mean",
                "kumo_eval/success"):
        pts = [(h["step"], h[key]) for h in history if key in h and h[key] is not None]
        if pts:
            ax.plot(*zip(*pts), marker="o", label=key)
    ax.set(xlabel="step", ylabel="value", title="GRPO (tiny model): reward components and held-out success")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def run_demo(out: str | Path | None = None, n: int = 3, grpo_env: str | None = None, grpo_steps: int = 4,
             quick: bool = False, model: str = "tiny") -> Path:
    """Run the demo and return the report path (``model``: the GRPO model, the tiny one by default)."""
    import os

    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    from ..cli import catalogue_rows, format_table, resolve_env_id
    from ..core.registry import entries, get_task
    from .agents import OracleAgent, RandomAgent
    from .data import generate_instances
    from .evaluate import Evaluator, format_results, make_specs, report

    t0 = time.time()
    out = Path(out or f"runs/demo-{time.strftime('%Y%m%d-%H%M%S')}")
    out.mkdir(parents=True, exist_ok=True)
    md = ["# kumo_gym demo", "", f"Run at {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}; "
          "everything below ran on this machine's CPU with nothing downloaded.", ""]

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
    md += ["## 3. Oracle and random agents", "", f"{n} test instances per environment and mode "
           f"(traces: `{eval_dir}/traces.jsonl`).", "", format_results(summary, markdown=True, families=False), ""]
    if (eval_dir / "accuracy_tokens.png").exists():
        md += ["![accuracy vs difficulty](eval/accuracy_tokens.png)", ""]

    _section(f"4. A short GRPO run of the tiny model on {env_id}")
    from .grpo import train_grpo

    grpo_dir = out / "grpo"
    trainer = train_grpo([env_id], model=model, n=16, output_dir=str(grpo_dir), max_steps=2 if quick else grpo_steps,
                         num_generations=4, prompts_per_step=1, max_completion_length=32 if quick else 64,
                         callback_every=2, callback_n=1 if quick else 2, callback_max_tokens=32, save=False)
    history = trainer.state.log_history
    table = grpo_table(history)
    tcols = sorted({k for r in table for k in r}, key=lambda k: (k != "step", k))
    print()
    print(format_table(table, tcols))
    md += [f"## 4. GRPO on `{env_id}` (tiny model, {trainer.state.global_step} steps)", "",
           "Reward components (`kumo_binary`, `kumo_partial`, `kumo_format`) as TRL logs them, and the held-out "
           "callback's metrics (`kumo_eval/*`, validation split):", "", format_table(table, tcols, markdown=True), ""]
    img = plot_grpo(history, grpo_dir / "grpo.png")
    if img is not None:
        md += ["![GRPO curves](grpo/grpo.png)", ""]
    (out / "summary.json").write_text(json.dumps({"eval": summary, "grpo": history}, indent=2, default=str) + "\n")

    md += ["## Next", "", "- `kumo-gym eval --env kumo_gym/Hanoi-v0 --model Qwen/Qwen3-0.6B --n 50` (a local model) or "
           "`--base-url http://localhost:8000/v1 --model NAME` (vLLM/SGLang);",
           "- `kumo-gym train grpo --env Hanoi:difficulty=easy --model PATH`; `kumo-gym train sft ...`;",
           "- see docs/training.md.", "", f"Total time: {time.time() - t0:.0f} s."]
    path = out / "report.md"
    path.write_text("\n".join(md) + "\n")
    _section("Report")
    print(f"{path}  ({time.time() - t0:.0f} s)")
    return path


def cmd_demo(args) -> int:
    run_demo(args.out, n=args.n, grpo_env=args.grpo_env, grpo_steps=args.grpo_steps, quick=args.quick)
    return 0


def register_demo(subparsers) -> None:
    from ..cli import positive_int

    p = subparsers.add_parser("demo", help="the suite end to end: table, prompt, oracle/random eval, short GRPO run",
                              description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default=None, help="report directory (default runs/demo-<time>)")
    p.add_argument("--n", type=positive_int, default=3, help="instances per environment for the agents")
    p.add_argument("--grpo-env", default=None, help="environment of the GRPO run (default Hanoi)")
    p.add_argument("--grpo-steps", type=positive_int, default=4)
    p.add_argument("--quick", action="store_true", help="shortest run (tests)")
    p.set_defaults(func=cmd_demo)
