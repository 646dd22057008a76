"""Does training on our rewards teach SmolLM2-135M-Instruct to solve puzzles it has never seen?

For each environment of the run: the training items of the train split, and the held-out
*content-fresh* test instances (test-split instances whose id, a hash of the puzzle's content, is
the id of no training item). The base model plays every held-out instance greedily; then a
short SFT warm-up on the golden answers of the training items, another held-out evaluation;
then GRPO on the training items (our verifiers as rewards) and the last held-out evaluation.
Reported per environment and phase: solved rate, mean partial score (the verdict's score, which
pays nothing a blind grid gets: docs/specs/grid_puzzles.md) and answer-found rate, with paired
bootstrap 95 % intervals of base -> SFT, SFT -> GRPO and base -> GRPO; the learning curves
(training reward per GRPO step, held-out success on a fixed subset every few steps) as PNG;
wall and CPU time per phase; the CPU share of a GRPO step spent in the environment (parsing and
verifying completions).

The prompts are shorter variants of each environment's own prompt (``prompt_template`` with the
grid's ``{state}``: the same instance, fewer tokens), since prompt length dominates the cost of
a training step on a CPU.

    python benchmarks/train_real.py --model /path/to/SmolLM2-135M-Instruct [--config examples/grpo_smollm2.yaml]

Writes ``benchmarks/results/train_real.json`` and ``docs/img/train_real_*.png``.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

from _common import ROOT, print_table, write_result

sys.path.insert(0, str(ROOT))

def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default="smollm2", help="model name or folder (default smollm2)")
    ap.add_argument("--envs", nargs="*", default=None, help="environment ids of ENVS to run (default all)")
    ap.add_argument("--n-train", type=int, default=300)
    ap.add_argument("--n-test", type=int, default=120)
    ap.add_argument("--max-test-items", type=int, default=1000,
                    help="test items scanned for fresh puzzles (Filling's trivial preset needs many)")
    ap.add_argument("--sft-steps", type=int, default=60)
    ap.add_argument("--sft-batch", type=int, default=8)
    ap.add_argument("--sft-lr", type=float, default=1e-4)
    ap.add_argument("--grpo-steps", type=int, default=40)
    ap.add_argument("--prompts-per-step", type=int, default=4)
    ap.add_argument("--num-generations", type=int, default=4)
    ap.add_argument("--grpo-lr", type=float, default=1e-5)
    ap.add_argument("--temperature", type=float, default=1.0)
    ap.add_argument("--max-completion-length", type=int, default=64)
    ap.add_argument("--curve-every", type=int, default=10)
    ap.add_argument("--curve-n", type=int, default=32)
    ap.add_argument("--threads", type=int, default=0, help="torch CPU threads (default: all cores when idle, "
                    "1 when the load average is at least the number of cores)")
    ap.add_argument("--no-bf16", action="store_true")
    ap.add_argument("--out", default="runs/train_real")
    ap.add_argument("--name", default="train_real", help="result file and plot name")
    args = ap.parse_args()
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    from kumo_gym.training.fresh import FRESH_ENVS as ENVS
    from kumo_gym.training.fresh import plot_run, run_fresh

    envs = [e for e in ENVS if not args.envs or any(e["id"].endswith(x) or e["id"] == x for x in args.envs)]
    settings = {k: v for k, v in vars(args).items() if k not in ("envs", "out", "name")}
    t0 = time.time()
    res = run_fresh(envs, model=args.model, out=args.out, n_train=args.n_train, n_test=args.n_test,
                    max_test_items=args.max_test_items,
                    sft_steps=args.sft_steps, sft_batch=args.sft_batch, sft_lr=args.sft_lr, grpo_steps=args.grpo_steps,
                    prompts_per_step=args.prompts_per_step, num_generations=args.num_generations,
                    grpo_lr=args.grpo_lr, temperature=args.temperature,
                    max_completion_length=args.max_completion_length, curve_every=args.curve_every,
                    curve_n=args.curve_n, threads=args.threads or None, bf16=not args.no_bf16)
    res["settings"] = {**res["settings"], **settings}
    res["machine"] = {"cpus": os.cpu_count(), "platform": platform.platform(),
                      "load_avg_end": os.getloadavg(), "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(t0))}
    records = res.pop("records")
    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / "records.json").write_text(json.dumps(records) + "\n")
    res["samples"] = {ph: {e: [r["text"] for r in recs[:3]] for e, recs in per.items()} for ph, per in records.items()}
    img = ROOT / "docs" / "img" / f"{args.name}.png"
    plot_run(res, img)
    res["plot"] = str(img.relative_to(ROOT))
    cols = [("env", "<20"), ("phase", "<6"), ("solved", ">7.3f"), ("score", ">7.3f"), ("found", ">7.3f"), ("n", ">5d")]
    rows = []
    for ph, per in res["rates"].items():
        for e, r in per.items():
            rows.append((e.split("/")[-1], ph, r["solved"], r["score"], r["answer_found"], r["episodes"]))
    print_table(cols, rows)
    for e, comp in res["comparisons"].items():
        for which, c in comp.items():
            print(e.split("/")[-1], which, {k: f"{v['diff']:+.3f} [{v['lo']:+.3f}, {v['hi']:+.3f}]" for k, v in c.items()})
    print("times", res["times"], "env share of a GRPO step", res["env_cost"])
    write_result(ROOT / "benchmarks" / "results" / f"{args.name}.json", res)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
