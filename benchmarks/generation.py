"""SmolLM2-135M-Instruct generation speed on this machine's CPU: batch 1, 8 and 32, prefill and decode
apart, CPU time beside wall time; and ``kumo-gym eval`` end to end with one prompt at a time against
batched prompts (the same greedy replies, checked).

* *prefill*: one forward pass over the left-padded prompts of the batch (real prompts of a
  single-turn environment, one instance each), prompt tokens per second;
* *decode*: ``generate`` of ``--new-tokens`` tokens per row (no early stop), minus the prefill: new
  tokens per second over the whole batch;
* *eval*: the evaluation harness (:class:`kumo_gym.training.evaluate.Evaluator`, what ``kumo-gym eval
  --model smollm2`` runs) on ``--episodes`` episodes, greedy, with ``batch_size=1`` and then batched.

Usage: ``python benchmarks/generation.py`` (writes ``benchmarks/results/generation.json``; then
``python benchmarks/readme_tables.py`` updates the table in docs/performance.md).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's kumo_gym, not an installed one
from _common import ROOT, print_table, write_result


def timed(fn):
    """``(result, wall seconds, CPU seconds of the process)``."""
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


def prompts(backend, env_id: str, difficulty: str, count: int) -> list[list[dict]]:
    from kumo_gym.core.registry import get_task
    from kumo_gym.training.data import generate_instances

    task = get_task(env_id)
    insts = list(generate_instances(env_id, count, split="test", seed=0, env_kwargs={"difficulty": difficulty}))
    return [[{"role": "user", "content": task.prompt(inst)}] for inst in insts]


def generation_row(backend, conversations: list[list[dict]], new_tokens: int) -> dict:
    import torch

    model, tok = backend.model, backend.tokenizer
    ids = [backend.prompt_ids(c) for c in conversations]
    width, pad = max(map(len, ids)), tok.pad_token_id
    input_ids = torch.tensor([[pad] * (width - len(i)) + i for i in ids])
    mask = torch.tensor([[0] * (width - len(i)) + [1] * len(i) for i in ids])
    with torch.no_grad():
        _, pre_wall, pre_cpu = timed(lambda: model(input_ids=input_ids, attention_mask=mask, use_cache=True))
        out, gen_wall, gen_cpu = timed(lambda: model.generate(
            input_ids, attention_mask=mask, max_new_tokens=new_tokens, min_new_tokens=new_tokens, do_sample=False,
            pad_token_id=pad, eos_token_id=tok.eos_token_id))
    rows = len(ids)
    made = int(out[:, width:].numel())
    assert made == rows * new_tokens, (made, rows, new_tokens)
    prompt_tokens = sum(map(len, ids))
    dec_wall, dec_cpu = max(gen_wall - pre_wall, 1e-9), max(gen_cpu - pre_cpu, 1e-9)
    return {"batch": rows, "prompt_tokens": prompt_tokens, "padded_prompt_tokens": rows * width,
            "new_tokens": made,
            "prefill_wall_s": round(pre_wall, 3), "prefill_cpu_s": round(pre_cpu, 3),
            "prefill_tokens_per_s": round(prompt_tokens / pre_wall, 1),
            "generate_wall_s": round(gen_wall, 3), "generate_cpu_s": round(gen_cpu, 3),
            "decode_tokens_per_s": round(made / dec_wall, 1),
            "decode_tokens_per_cpu_s": round(made / dec_cpu, 1),
            "new_tokens_per_s": round(made / gen_wall, 1)}


def eval_row(model, tokenizer, env_id: str, difficulty: str, episodes: int, max_tokens: int,
             batch_size: int) -> tuple[dict, dict]:
    from kumo_gym.training.backends import TransformersBackend
    from kumo_gym.training.evaluate import Evaluator, make_specs

    backend = TransformersBackend(model, tokenizer, device="cpu", temperature=0.0, max_tokens=max_tokens,
                                  batch_size=batch_size)
    with tempfile.TemporaryDirectory() as out:
        ev = Evaluator(backend, out, model_name="smollm2", max_tokens=max_tokens, temperature=0.0, progress=False)
        specs = make_specs([env_id], {"difficulty": difficulty})
        path, wall, cpu = timed(lambda: ev.run(specs, episodes))
        recs = [json.loads(line) for line in Path(path).read_text().splitlines()]
    completions = {r["key"]: r["completion"] for r in recs}
    row = {"batch_size": batch_size, "episodes": len(recs), "wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
           "episodes_per_s": round(len(recs) / wall, 3), "generate_calls": backend.stats["generate_calls"],
           "completion_tokens": backend.stats["completion_tokens"],
           "completion_tokens_per_s": round(backend.stats["completion_tokens"] / wall, 1),
           "solved": sum(bool(r.get("verdict", {}).get("solved")) for r in recs)}
    return row, completions


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--env", default="kumo_gym/Rect-v0", help="single-turn environment whose prompts are used")
    ap.add_argument("--difficulty", default="trivial")
    ap.add_argument("--batches", type=int, nargs="+", default=[1, 8, 32])
    ap.add_argument("--new-tokens", type=int, default=16, help="tokens generated per row in the generation rows")
    ap.add_argument("--episodes", type=int, default=16, help="episodes of the eval comparison (0: skip it)")
    ap.add_argument("--eval-max-tokens", type=int, default=32)
    ap.add_argument("--eval-batch", type=int, default=16, help="batch size of the batched eval run")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "generation.json"))
    args = ap.parse_args(argv)

    import torch

    from kumo_gym.training.backends import TransformersBackend

    (backend, load_wall, load_cpu) = timed(lambda: TransformersBackend("smollm2", device="cpu", temperature=0.0))
    convs = prompts(backend, args.env, args.difficulty, max(args.batches))
    generation_row(backend, convs[:2], 4)  # warm-up: first calls allocate and pick kernels
    rows = []
    for b in args.batches:
        rows.append(generation_row(backend, convs[:b], args.new_tokens))
        print(json.dumps(rows[-1]), flush=True)
    cols = [("batch", ">5"), ("prompt tok", ">10"), ("prefill tok/s", ">13.1f"), ("prefill CPU s", ">13.2f"),
            ("decode tok/s", ">12.1f"), ("decode tok/CPU s", ">16.1f"), ("generate wall s", ">15.2f"),
            ("generate CPU s", ">14.2f")]
    print_table(cols, [(r["batch"], r["prompt_tokens"], r["prefill_tokens_per_s"], r["prefill_cpu_s"],
                        r["decode_tokens_per_s"], r["decode_tokens_per_cpu_s"], r["generate_wall_s"],
                        r["generate_cpu_s"]) for r in rows])
    evals = []
    same = None
    if args.episodes:
        one, c1 = eval_row(backend.model, backend.tokenizer, args.env, args.difficulty, args.episodes,
                           args.eval_max_tokens, 1)
        print(json.dumps(one), flush=True)
        many, cb = eval_row(backend.model, backend.tokenizer, args.env, args.difficulty, args.episodes,
                            args.eval_max_tokens, args.eval_batch)
        print(json.dumps(many), flush=True)
        evals = [one, many]
        same = c1 == cb
        print(f"eval: {one['wall_s']:.1f} s at batch 1, {many['wall_s']:.1f} s at batch {args.eval_batch} "
              f"({one['wall_s'] / many['wall_s']:.2f}x); greedy completions identical: {same}")
    result = {
        "method": (f"SmolLM2-135M-Instruct (float32, transformers {__import__('transformers').__version__}, torch "
                   f"{torch.__version__}, {torch.get_num_threads()} threads) on the CPU; prompts of {args.env} "
                   f"({args.difficulty}, test split, one instance per row), greedy, {args.new_tokens} new tokens "
                   "per row with no early stop"),
        "env": args.env, "difficulty": args.difficulty, "cpus": os.cpu_count(), "torch_threads": torch.get_num_threads(),
        "load_avg_1m": os.getloadavg()[0], "load_wall_s": round(load_wall, 2), "load_cpu_s": round(load_cpu, 2),
        "rows": rows, "eval": evals, "eval_max_tokens": args.eval_max_tokens,
        "eval_same_greedy_completions": same,
        "generated": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    write_result(args.out, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
