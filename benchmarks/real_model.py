"""A real language model on every registered environment: SmolLM2-135M-Instruct baselines.

For each environment, at its easiest preset (and, with ``--harder``, one harder preset), ``--episodes``
episodes on the fixed test-split seeds 0..N-1, played through :class:`kumo_gym.wrappers.ChatEnv` with
the tokenizer's chat template:

* answer mode: one reply per episode, at most ``min(--max-new, 2 x golden answer tokens + 64)`` new
  tokens (the golden answer's length caps the cost without cutting a right answer short);
* interactive mode (KUMO, and the interactive modes of the others with ``--interactive``): multi-turn,
  ``--turn-tokens`` new tokens per turn, at most ``--max-turns`` turns, the environment's own feedback
  as the next user message.

Greedy decoding by default; ``--sampled`` adds temperature 0.7 with ``--k`` samples per prompt
(pass@k: solved when any sample is). Generation is batched with left padding.

Per row: answer-found rate (a reply from which an answer or move was read: any status but
``parse_error``, ``error`` and a ``truncated`` reply with nothing read), solved rate, mean partial
reward (the verdict's score), verdict-status counts, prompt and completion tokens, seconds, and a
few replies per status (the first 240 characters) for reading the failures.

Usage::

    python benchmarks/real_model.py                       # greedy, easiest preset, 30 episodes, every env
    python benchmarks/real_model.py --harder --sampled    # also one harder preset and pass@4
    python benchmarks/real_model.py --envs Tents,Hanoi --episodes 8

Results are merged into ``benchmarks/results/real_model.json`` (one row per env, mode, preset and
decoding; a rerun replaces its rows) and ``benchmarks/readme_tables.py`` writes the table of
``docs/baselines.md`` from it.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import ROOT, write_result

RESULT = ROOT / "benchmarks" / "results" / "real_model.json"
#: the easiest preset of each family, and the harder one ``--harder`` adds
EASIEST = {"grid": "trivial", "planning": "easy", "kumo": "easy", "sparc": "1", "finereason": "easy"}
HARDER = {"grid": "easy", "planning": "medium", "kumo": "hard", "sparc": "2", "finereason": "normal"}
DEFAULT_MODEL = "smollm2"
FALLBACK_MODEL = "/tmp/smol_st"
#: the run before the prompts and verdicts were rewritten (commit e342374, the original prompts): SmolLM2-135M-Instruct,
#: greedy, easiest preset, 30 test-split seeds, at most min(384, 2 x golden + 64) new tokens, 96 tokens a turn in
#: interactive play; the rates of every environment not listed were 0 (answer found and solved)
BEFORE = {"commit": "e342374", "episodes": 30, "decoding": "greedy",
          "answer_found": {"Rect": 16 / 30, "RiverCrossing": 30 / 30, "SPaRC": 3 / 30,
                           "FineReasonStateTransition": 1 / 30},
          "solved": {"FineReasonStateTransition": 1 / 30},
          "notes": ("Rect's answers were wrong grids, River Crossing's all illegal_move; grid prompts were continued as "
                    "JSON or answered with Python code; FineReason state checking replied 'A Unsolvable' (no Answer "
                    "line); KUMO ended after one turn; planning replies were prose; Blocks World copied the worked "
                    "example's goal")}
#: statuses from which no answer (or move) was read
NO_ANSWER = ("parse_error", "error", "too_long", "hedge")
#: rows written since a cut-off reply counts as an answer found only when what was read before the cut was one
#: (before, any readable part counted, even a grid of the wrong shape: an upper bound; the table marks such rows)
FOUND_RULE = "cut replies: only when read as an answer"


def load_model(name: str):
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    try:
        from kumo_gym.training.backends import load_pretrained

        model, tok, _ = load_pretrained(name)
    except Exception:
        if name != DEFAULT_MODEL:
            raise
        name = FALLBACK_MODEL
        model, tok = AutoModelForCausalLM.from_pretrained(name), AutoTokenizer.from_pretrained(name)
    tok.padding_side = "left"
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    model.eval()
    torch.set_grad_enabled(False)
    return model, tok, name


def prompt_ids(tok, conversations: list[list[dict]]) -> list[list[int]]:
    """Each conversation as the token ids the model is given (the chat template, reply prompt added)."""
    prompts = [tok.apply_chat_template(c, add_generation_prompt=True, tokenize=True) for c in conversations]
    return [list(p["input_ids"]) if hasattr(p, "keys") else list(p) for p in prompts]


def generate_ids(model, prompts: list[list[int]], caps: list[int], temperature: float, k: int, batch: int,
                 eos: int, pad: int, max_tokens: int = 0) -> list[list[tuple[list[int], bool]]]:
    """``k`` replies to each prompt as ``(token ids, stopped)``: the ids up to the prompt's own cap or
    to the end-of-sequence token (not included; ``stopped`` says whether it came). Prompts are
    batched with left padding, in order of cap and length, ``batch`` sequences at most a call and,
    when ``max_tokens`` is set, at most that many positions (sequences x (width + new tokens))."""
    import torch

    device = next(model.parameters()).device
    order = sorted(range(len(prompts)), key=lambda i: (caps[i], len(prompts[i])))
    out: list[list[tuple[list[int], bool]]] = [[] for _ in prompts]
    per = max(1, batch // k)
    start = 0
    while start < len(order):
        idx = order[start:start + per]
        while max_tokens and len(idx) > 1 and len(idx) * k * (
                max(len(prompts[i]) for i in idx) + max(caps[i] for i in idx)) > max_tokens:
            idx = idx[:len(idx) // 2]
        start += len(idx)
        width = max(len(prompts[i]) for i in idx)
        ids = torch.tensor([[pad] * (width - len(prompts[i])) + prompts[i] for i in idx], device=device)
        mask = torch.tensor([[0] * (width - len(prompts[i])) + [1] * len(prompts[i]) for i in idx], device=device)
        kw = {"do_sample": True, "temperature": temperature, "top_k": 0, "top_p": 1.0} if temperature > 0 \
            else {"do_sample": False}
        gen = model.generate(ids, attention_mask=mask, max_new_tokens=max(caps[i] for i in idx),
                             num_return_sequences=k, pad_token_id=pad, eos_token_id=eos, **kw)
        rows = gen[:, width:].tolist()
        for j, i in enumerate(idx):
            for row in rows[j * k:(j + 1) * k]:
                row = row[:caps[i]]
                stop = row.index(eos) if eos in row else None
                out[i].append((row if stop is None else row[:stop], stop is not None))
    return out


def reply_of(tok, ids: list[int], stopped: bool, n_prompt: int) -> dict:
    """A reply as the scoring reads it."""
    return {"text": tok.decode(ids, skip_special_tokens=True), "finish_reason": "stop" if stopped else "length",
            "tokens": len(ids) + stopped, "prompt_tokens": n_prompt}


def load_tokenizer(name: str):
    """The tokenizer of ``name`` (``smollm2``, ``tiny`` or a model folder), without its weights."""
    from transformers import AutoTokenizer

    from kumo_gym.training.backends import model_path

    tok = AutoTokenizer.from_pretrained(model_path(name))
    tok.padding_side = "left"
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    return tok


def generate(model, tok, conversations: list[list[dict]], caps: list[int], temperature: float, k: int,
             batch: int) -> list[list[dict]]:
    """Replies to each conversation (``k`` each), batched with left padding; each reply stops at its
    own cap (``finish_reason`` ``length``) or at the end-of-sequence token (``stop``)."""
    prompts = prompt_ids(tok, conversations)
    got = generate_ids(model, prompts, caps, temperature, k, batch, tok.eos_token_id, tok.pad_token_id)
    return [[reply_of(tok, ids, stopped, len(p)) for ids, stopped in g] for p, g in zip(prompts, got)]


def _found(verdict: dict) -> bool:
    status = verdict.get("status")
    if status in NO_ANSWER:
        return False
    if status == "incomplete" and (verdict.get("details") or {}).get("last_move") in NO_ANSWER:
        return False  # out of steps on an unreadable reply
    if status == "truncated":  # cut off: found only when what was read before the cut was an answer
        read_as = (verdict.get("details") or {}).get("read_as")
        return read_as is not None and read_as not in NO_ANSWER
    return True


def golden_tokens(tok, env) -> int:
    base = env.unwrapped
    return len(tok(base.task.format_answer(base.task.solve(base.instance)))["input_ids"])


def prepare_answer(tok, env_id: str, preset: str, n: int, args) -> tuple[list, list, list[int]]:
    """The answer-mode episodes of a row: ``(envs, conversations, caps)`` for seeds 0..n-1."""
    import gymnasium as gym

    from kumo_gym.wrappers import ChatEnv

    envs, convs, caps = [], [], []
    for seed in range(n):
        env = ChatEnv(gym.make(env_id, difficulty=preset, split="test", reward="partial"), tok)
        msgs, _ = env.reset(seed=seed)
        envs.append(env)
        convs.append(msgs)
        caps.append(min(args.max_new, 2 * golden_tokens(tok, env) + 64))
    return envs, convs, caps


def run_answer(model, tok, env_id: str, preset: str, n: int, args, temperature: float, k: int) -> dict:
    envs, convs, caps = prepare_answer(tok, env_id, preset, n, args)
    t0 = time.time()
    replies = generate(model, tok, convs, caps, temperature, k, args.batch)
    return score_answer(envs, caps, replies, n, k, time.time() - t0)


def score_answer(envs: list, caps: list[int], replies: list[list[dict]], n: int, k: int, gen_s: float) -> dict:
    """A row's rates and counts from its replies (``k`` per episode)."""
    statuses, found, solved, partial, examples = Counter(), 0, 0, [], {}
    cut_read_as = Counter()  # what the cut-off replies with something readable were read as
    comp_tokens = prompt_tokens = 0
    traces = []
    for env, cap, group in zip(envs, caps, replies):
        any_solved, best = False, 0.0
        base = env.unwrapped
        for r in group:
            v = base.score_completion(r["text"], finish_reason=r["finish_reason"], n_output_tokens=r["tokens"],
                                      max_new_tokens=cap).to_dict()
            statuses[v["status"]] += 1
            if v["status"] == "truncated" and "read_as" in (v.get("details") or {}):
                cut_read_as[v["details"]["read_as"]] += 1
            found += _found(v)
            any_solved |= v["status"] == "solved"
            best = max(best, float(v.get("score") or 0.0))
            comp_tokens += r["tokens"]
            prompt_tokens += r["prompt_tokens"]
            examples.setdefault(v["status"], []).append(r["text"][:240]) if len(
                examples.get(v["status"], [])) < 3 else None
            traces.append({"seed": len(traces) // k, "status": v["status"], "message": v["message"][:300],
                           "reply": r["text"]})
        solved += any_solved
        partial.append(best)
    return {"answer_found_rate": found / (n * k), "solved_rate": solved / n,
            "mean_partial": sum(partial) / n, "statuses": dict(statuses), "cut_read_as": dict(cut_read_as),
            "found_rule": FOUND_RULE,
            "prompt_tokens_mean": prompt_tokens / (n * k), "completion_tokens_mean": comp_tokens / (n * k),
            "max_new_tokens_mean": sum(caps) / n, "seconds": gen_s, "examples": examples, "_traces": traces}


def run_interactive(model, tok, env_id: str, preset: str, n: int, args, temperature: float, k: int) -> dict:
    """Multi-turn play through ChatEnv, all episodes in lockstep (one batch per turn); with ``k`` > 1
    each seed is played ``k`` times (pass@k over independent samples)."""
    import gymnasium as gym

    from kumo_gym.wrappers import ChatEnv

    games = []
    for seed in range(n):
        for _ in range(k):
            env = ChatEnv(gym.make(env_id, mode="interactive", difficulty=preset, split="test"), tok)
            msgs, _ = env.reset(seed=seed)
            games.append({"seed": seed, "env": env, "msgs": msgs, "done": False, "final": None, "turns": 0,
                          "found": 0, "tokens": 0, "prompt_tokens": 0, "replies": []})
    t0 = time.time()
    for _turn in range(args.max_turns):
        live = [g for g in games if not g["done"]]
        if not live:
            break
        replies = generate(model, tok, [g["msgs"] for g in live], [args.turn_tokens] * len(live), temperature, 1,
                           args.batch)
        for g, (r,) in zip(live, replies):
            msgs, reward, term, trunc, info = g["env"].step(r["text"])
            g["msgs"], g["turns"] = msgs, g["turns"] + 1
            v = info.get("verdict") or {}
            g["found"] += _found(v)
            g["tokens"] += r["tokens"]
            g["prompt_tokens"] += r["prompt_tokens"]
            g["replies"].append({"reply": r["text"], "status": v.get("status"),
                                 "message": str(v.get("message", ""))[:300]})
            if term or trunc:
                g["done"], g["final"] = True, {"status": v.get("status", "incomplete"),
                                               "score": float(v.get("score") or reward or 0.0)}
    for g in games:
        if g["final"] is None:
            g["final"] = {"status": "turn_limit", "score": 0.0}
    gen_s = time.time() - t0
    statuses = Counter(g["final"]["status"] for g in games)
    by_seed: dict[int, list] = {}
    for g in games:
        by_seed.setdefault(g["seed"], []).append(g)
    turns = sum(g["turns"] for g in games)
    examples: dict[str, list] = {}
    for g in games:
        for r in g["replies"]:
            if len(examples.setdefault(r["status"], [])) < 3:
                examples[r["status"]].append(r["reply"][:240])
    return {"answer_found_rate": sum(g["found"] for g in games) / max(1, turns),
            "solved_rate": sum(any(g["final"]["status"] == "solved" for g in gs) for gs in by_seed.values()) / n,
            "mean_partial": sum(max(g["final"]["score"] for g in gs) for gs in by_seed.values()) / n,
            "statuses": dict(statuses), "turns_mean": turns / len(games), "found_rule": FOUND_RULE,
            "prompt_tokens_mean": sum(g["prompt_tokens"] for g in games) / max(1, turns),
            "completion_tokens_mean": sum(g["tokens"] for g in games) / max(1, turns),
            "seconds": gen_s, "examples": examples,
            "_traces": [{"seed": g["seed"], "final": g["final"], "turns": g["replies"]} for g in games]}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default=DEFAULT_MODEL)
    ap.add_argument("--episodes", type=int, default=30)
    ap.add_argument("--envs", default="", help="comma-separated env names (Tents, Hanoi ...); default every env")
    ap.add_argument("--harder", action="store_true", help="also the harder preset")
    ap.add_argument("--only-harder", action="store_true")
    ap.add_argument("--sampled", action="store_true", help="also temperature 0.7, pass@k")
    ap.add_argument("--only-sampled", action="store_true")
    ap.add_argument("--k", type=int, default=4)
    ap.add_argument("--interactive", action="store_true", help="also the interactive modes of answer envs")
    ap.add_argument("--only-interactive", action="store_true",
                    help="only the interactive modes (of answer envs too), not the answer mode")
    ap.add_argument("--max-new", type=int, default=384)
    ap.add_argument("--turn-tokens", type=int, default=96)
    ap.add_argument("--max-turns", type=int, default=8)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--threads", type=int, default=1, help="torch threads (1 is fastest on a loaded machine)")
    ap.add_argument("--traces", default="", help="also write every reply to this JSON file")
    ap.add_argument("--out", default=str(RESULT))
    ap.add_argument("--export-prompts", default="", metavar="FILE",
                    help="write the answer rows' prompts (token ids), caps and decodings to FILE (.json.gz) "
                         "instead of generating: benchmarks/offline_generate.py replies to them elsewhere")
    ap.add_argument("--import-replies", default="", metavar="FILE",
                    help="score the replies offline_generate.py wrote (.json.gz) instead of generating")
    args = ap.parse_args(argv)
    if args.export_prompts and args.import_replies:
        ap.error("--export-prompts and --import-replies are two steps; give one")

    import torch

    torch.set_num_threads(args.threads)
    import kumo_gym  # noqa: F401
    from kumo_gym.core.registry import entries, get_task

    exported: list[dict] = []
    imported = _read_gz(args.import_replies, ("rows", "machine", "generation")) if args.import_replies else None
    if args.export_prompts or imported is not None:  # the tokenizer is all these steps need
        model, tok, model_name = None, load_tokenizer(args.model), args.model
    else:
        model, tok, model_name = load_model(args.model)
    wanted = {w.strip().lower() for w in args.envs.split(",") if w.strip()}
    out_path = Path(args.out)
    result = json.loads(out_path.read_text()) if out_path.exists() else {"rows": []}
    traces = {}
    order = [w.strip().lower() for w in args.envs.split(",") if w.strip()]
    listed = sorted(entries(), key=lambda e: order.index(e.id.split("/")[-1].removesuffix("-v0").lower())
                    if e.id.split("/")[-1].removesuffix("-v0").lower() in order else len(order))
    for e in listed:
        short = e.id.split("/")[-1].removesuffix("-v0")
        if wanted and short.lower() not in wanted:
            continue
        names = list(get_task(e.id).difficulties)  # a family not listed: its first and second presets
        presets = [] if args.only_harder else [EASIEST.get(e.family, names[0] if names else None)]
        if args.harder or args.only_harder:
            presets.append(HARDER.get(e.family, names[1] if len(names) > 1 else None))
        modes = [m for m in e.modes if m == "answer" or e.modes == ("interactive",) or args.interactive
                 or args.only_interactive]
        if args.only_interactive:
            modes = [m for m in modes if m == "interactive"]
        decodings = [] if args.only_sampled else [("greedy", 0.0, 1)]
        if args.sampled or args.only_sampled:
            decodings.append((f"T=0.7 pass@{args.k}", 0.7, args.k))
        for preset in presets:
            for mode in modes:
                for name, temp, k in decodings:
                    key = [e.id, mode, preset, name]
                    if (args.export_prompts or imported) and mode != "answer":
                        print(f"{short} {mode} {preset} {name}: interactive play needs the environment in the "
                              "loop; not exported", flush=True)
                        continue
                    t0, c0 = time.time(), time.process_time()
                    if args.export_prompts:
                        _, convs, caps = prepare_answer(tok, e.id, preset, args.episodes, args)
                        exported.append({"key": key, "temperature": temp, "k": k, "caps": caps,
                                         "prompts": prompt_ids(tok, convs)})
                        print(f"{short} {mode} {preset} {name}: {len(caps)} prompts exported", flush=True)
                        continue
                    if imported is not None:
                        row = _imported_row(tok, imported, key, args)
                        if row is None:
                            continue
                    else:
                        run = run_answer if mode == "answer" else run_interactive
                        row = run(model, tok, e.id, preset, args.episodes, args, temp, k)
                    traces[f"{short}/{mode}/{preset}/{name}"] = row.pop("_traces")
                    row.update(env=e.id, family=e.family, mode=mode, preset=preset, decoding=name,
                               episodes=args.episodes, seeds=f"test split, seeds 0-{args.episodes - 1}",
                               wall_s=time.time() - t0, cpu_s=time.process_time() - c0)
                    result["rows"] = [r for r in result["rows"] if (r["env"], r["mode"], r["preset"],
                                                                    r["decoding"]) != (e.id, mode, preset, name)]
                    result["rows"].append(row)
                    print(f"{short:28s} {mode:11s} {preset:8s} {name:12s} found {row['answer_found_rate']:.2f} "
                          f"solved {row['solved_rate']:.2f} partial {row['mean_partial']:.2f} "
                          f"{dict(row['statuses'])} {row['wall_s']:.0f}s", flush=True)
                    result.update(before=BEFORE, model=model_name, method=(
                        "ChatEnv with the tokenizer's chat template; answer mode: one reply, at most min("
                        f"{args.max_new}, 2 x golden tokens + 64) new tokens; interactive: {args.turn_tokens} "
                        f"tokens per turn, at most {args.max_turns} turns; batched generation with left "
                        f"padding (batch {args.batch}), torch threads {args.threads}"),
                        machine=f"{platform.machine()}, {os.cpu_count()} cores (shared)",
                        date=time.strftime("%Y-%m-%d", time.gmtime()))
                    result["rows"].sort(key=lambda r: (r["family"], r["env"], r["mode"], r["preset"], r["decoding"]))
                    write_result(out_path, result)
                    if args.traces:
                        tpath = Path(args.traces)
                        old = json.loads(tpath.read_text()) if tpath.exists() else {}
                        old.update(traces)
                        tpath.write_text(json.dumps(old, indent=1))
    if args.export_prompts:
        _write_gz(args.export_prompts, {"model": model_name, "eos": tok.eos_token_id, "pad": tok.pad_token_id,
                                        "episodes": args.episodes, "max_new": args.max_new, "rows": exported})
        print(f"wrote {args.export_prompts}: {len(exported)} rows, "
              f"{sum(len(r['caps']) * r['k'] for r in exported)} replies to generate")


def _write_gz(path: str | Path, data: dict) -> None:
    """``data`` as gzipped JSON, written whole or not at all."""
    import gzip

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".part")
    with gzip.open(tmp, "wt") as f:
        json.dump(data, f)
    tmp.replace(path)


def _read_gz(path: str | Path, needs: tuple[str, ...] = ("rows",)) -> dict:
    """A file ``_write_gz`` wrote; SystemExit naming the file and what is wrong with it otherwise."""
    import gzip

    try:
        with gzip.open(path, "rt") as f:
            data = json.load(f)
    except FileNotFoundError:
        raise SystemExit(f"{path}: no such file") from None
    except (OSError, EOFError, ValueError) as exc:
        raise SystemExit(f"{path}: not gzipped JSON as real_model.py and offline_generate.py write it ({exc})") from None
    missing = [k for k in needs if not isinstance(data, dict) or k not in data]
    if missing:
        raise SystemExit(f"{path}: has no {', '.join(repr(k) for k in missing)}; is it the right file?")
    return data


def _imported_row(tok, imported: dict, key: list, args) -> dict | None:
    """A row scored from replies generated elsewhere (``--import-replies``), after checking that the
    episodes give the very prompts that were exported (same instances, same template); None when the
    file has no replies for ``key``."""
    got = next((r for r in imported["rows"] if r["key"] == key), None)
    if got is None:
        print(f"{' '.join(key)}: not in {args.import_replies}", flush=True)
        return None
    env_id, _, preset, _ = key
    envs, convs, caps = prepare_answer(tok, env_id, preset, len(got["replies"]), args)
    prompts = prompt_ids(tok, convs)
    from benchmarks.offline_generate import prompts_digest

    if prompts_digest(prompts) != got["prompts_sha256"] or caps != got["caps"]:
        raise SystemExit(f"{' '.join(key)}: the episodes no longer give the exported prompts; export them again")
    replies = [[reply_of(tok, ids, stopped, len(p)) for ids, stopped in group]
               for p, group in zip(prompts, got["replies"])]
    row = score_answer(envs, caps, replies, len(envs), got["k"], got["seconds"])
    row.update(generated_on=got.get("machine", imported["machine"]), generation=imported["generation"])
    return row


if __name__ == "__main__":
    main()
