"""Replies to prompts exported by ``real_model.py --export-prompts``, on whatever machine has the
accelerator: the generation step of the real-model baselines, apart from the environments.

The environments stay where they are installed: ``real_model.py --export-prompts`` writes each answer
row's prompts as token ids (the chat template applied), their caps and the decoding; this script needs
only PyTorch and transformers (with the ``gguf`` package for a GGUF file) and writes the replies as
token ids; ``real_model.py --import-replies`` then checks that the episodes still give the very same
prompts, decodes the replies and scores them. Decoding is the benchmark's own
(:func:`real_model.generate_ids`: left padding, the same caps, temperature, ``top_k=0``, ``top_p=1``),
in float32 with TF32 off; rows with the same decoding are batched together (about ``--batch``
sequences a chunk, the file rewritten after each), and each row's ``seconds`` is its share of
its chunk's generation time by tokens generated.

Usage::

    python benchmarks/real_model.py --only-sampled --harder --export-prompts prompts.json.gz
    python benchmarks/offline_generate.py prompts.json.gz replies.json.gz --model DIR --gguf FILE.gguf
    python benchmarks/real_model.py --only-sampled --harder --import-replies replies.json.gz
"""
from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.real_model import _read_gz, _write_gz, generate_ids


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("prompts", help="the file real_model.py --export-prompts wrote")
    ap.add_argument("out", help="where the replies go (.json.gz)")
    ap.add_argument("--model", required=True, help="a model folder (save_pretrained), or the folder of --gguf")
    ap.add_argument("--gguf", default="", help="a GGUF file in --model to load (needs the gguf package)")
    ap.add_argument("--device", default="cuda" if _cuda() else "cpu")
    ap.add_argument("--batch", type=int, default=1024, help="sequences per generate call at most")
    ap.add_argument("--max-tokens", type=int, default=1_500_000,
                    help="positions per generate call at most (sequences x (prompt width + new tokens))")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rows", type=int, default=0, help="only the first N rows (a quick check)")
    ap.add_argument("--resume", action="store_true",
                    help="keep the rows already in OUT (a run cut short) and generate only the others")
    ap.add_argument("--budget-s", type=float, default=0,
                    help="start no chunk of rows after this many seconds (the rows done are written)")
    args = ap.parse_args(argv)

    import torch
    from transformers import AutoModelForCausalLM

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    data = _read_gz(args.prompts, ("rows", "eos", "pad"))
    rows = data["rows"][:args.rows] if args.rows else data["rows"]
    t0 = time.time()
    kw = {"gguf_file": args.gguf} if args.gguf else {}
    if not Path(args.model).is_dir():
        raise SystemExit(f"--model {args.model!r}: no such folder (a save_pretrained folder, or the folder of --gguf)")
    if args.gguf and not (Path(args.model) / args.gguf).is_file():
        raise SystemExit(f"--gguf {args.gguf!r}: no such file in {args.model}")
    try:
        model = AutoModelForCausalLM.from_pretrained(args.model, dtype=torch.float32, **kw)
    except (OSError, ValueError) as exc:
        raise SystemExit(f"cannot load the model {args.model!r}{' / ' + args.gguf if args.gguf else ''}: "
                         f"{str(exc).strip().splitlines()[0][:300] if str(exc).strip() else type(exc).__name__}") from None
    model = model.to(args.device).eval()
    torch.set_grad_enabled(False)
    load_s = time.time() - t0
    torch.manual_seed(args.seed)
    name = torch.cuda.get_device_name() if args.device.startswith("cuda") else platform.processor() or "CPU"
    head = {"machine": f"{name} ({args.device}, float32, TF32 off)",
            "generation": f"benchmarks/offline_generate.py, batch {args.batch}, seed {args.seed}", "load_s": load_s}
    done: list[dict] = _read_gz(args.out)["rows"] if args.resume and Path(args.out).exists() else []
    have = {tuple(r["key"]) for r in done}
    rows = [r for r in rows if tuple(r["key"]) not in have]
    total = len(done) + len(rows)
    if done:
        print(f"{len(done)} rows kept from {args.out}; {len(rows)} to generate", flush=True)
    # rows of one decoding, in chunks of about one batch, the file rewritten after each chunk (a run cut
    # short keeps the rows it finished)
    chunks = []
    for temperature, k in sorted({(r["temperature"], r["k"]) for r in rows}):
        group = sorted((r for r in rows if (r["temperature"], r["k"]) == (temperature, k)),
                       key=lambda r: sum(r["caps"]) / len(r["caps"]))
        chunk: list[dict] = []
        for r in group:
            if chunk and (len(chunk) + 1) * len(r["caps"]) * k > args.batch:
                chunks.append(chunk)
                chunk = []
            chunk.append(r)
        chunks.append(chunk)
    for n, chunk in enumerate(chunks):
        if args.budget_s and time.time() - t0 > args.budget_s:
            print(f"time budget spent: {len(chunks) - n} chunks left", flush=True)
            break
        temperature, k = chunk[0]["temperature"], chunk[0]["k"]
        prompts = [p for r in chunk for p in r["prompts"]]
        caps = [c for r in chunk for c in r["caps"]]
        t1 = time.time()
        got = generate_ids(model, prompts, caps, temperature, k, args.batch, data["eos"], data["pad"],
                           args.max_tokens)
        if args.device.startswith("cuda"):
            torch.cuda.synchronize()
        spent = time.time() - t1
        made = sum(len(ids) for g in got for ids, _ in g)
        at = 0
        for r in chunk:
            part = got[at:at + len(r["prompts"])]
            at += len(r["prompts"])
            share = sum(len(ids) for g in part for ids, _ in g)
            done.append({"key": r["key"], "temperature": temperature, "k": k, "caps": r["caps"],
                         "prompts_sha256": prompts_digest(r["prompts"]),
                         "replies": [[[ids, stopped] for ids, stopped in g] for g in part],
                         "seconds": spent * share / max(1, made), "machine": head["machine"]})
        _write_gz(args.out, {**head, "rows": done})
        print(f"chunk {n + 1}/{len(chunks)} (T={temperature}, k={k}): {len(chunk)} rows, {len(prompts) * k} "
              f"replies, {made} tokens in {spent:.1f} s; {time.time() - t0:.0f} s so far", flush=True)
    print(f"wrote {args.out}: {len(done)} of {total} rows (model loaded in {load_s:.1f} s)")


def prompts_digest(prompts: list[list[int]]) -> str:
    """What ``--import-replies`` compares to the prompts its episodes give (the prompts themselves stay here)."""
    import hashlib
    import json

    return hashlib.sha256(json.dumps(prompts).encode()).hexdigest()


def _cuda() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


if __name__ == "__main__":
    main()
