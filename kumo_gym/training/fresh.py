"""Held-out evaluation on *fresh* puzzles: test-split instances whose content is in no training
instance, played greedily in batches by a local model, with paired confidence intervals.

Small puzzle sizes have few distinct instances, so different seeds (and splits) can draw the same
puzzle; an instance id hashes the puzzle's content, so a test instance is fresh exactly when its
id is not among the training ids. :func:`fresh_split` builds both sides from the same
environment spec; :func:`greedy_eval` plays a list of instances through the environment's own
prompt (``prompt_template`` and the other environment options included) and scores each reply
with the verifier; :func:`paired_bootstrap` gives the confidence interval of a before/after
difference on the same instances.

Used by ``benchmarks/train_real.py`` and the demo (:mod:`kumo_gym.training.demo`).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core.verdict import UNREADABLE
from .evaluate import EvalSpec
from .progress import _Base as TrainerCallbackBase


@dataclass
class FreshSplit:
    """Distinct training instances and distinct test instances unseen in training, of one spec."""

    spec: EvalSpec
    train: list = field(default_factory=list)
    test: list = field(default_factory=list)
    train_seeds: int = 0
    test_seeds: int = 0

    @property
    def train_ids(self) -> set[str]:
        return {i.instance_id for i in self.train}

    def summary(self) -> dict:
        return {"env_id": self.spec.env_id, "kwargs": self.spec.generation_params(), "train_items": self.train_seeds,
                "train_distinct": len(self.train), "test_items": self.test_seeds, "test_fresh_distinct": len(self.test)}


def fresh_split(spec: EvalSpec, n_train: int, n_test: int, seed: int = 0, max_test_items: int | None = None
                ) -> FreshSplit:
    """``n_train`` training items (kept once each) and up to ``n_test`` distinct test instances
    whose ids are not training ids, scanning at most ``max_test_items`` test items (default
    ``4 * n_test``)."""
    from .data import generate_instances

    params = spec.generation_params()
    train, seen = [], set()
    for inst in generate_instances(spec.env_id, n_train, split="train", seed=seed, env_kwargs=params):
        if inst.instance_id not in seen:
            seen.add(inst.instance_id)
            train.append(inst)
    test, tseen, scanned = [], set(), 0
    limit = max_test_items or 4 * n_test
    for inst in generate_instances(spec.env_id, limit, split="test", seed=seed, env_kwargs=params):
        scanned += 1
        if inst.instance_id not in seen and inst.instance_id not in tseen:
            tseen.add(inst.instance_id)
            test.append(inst)
            if len(test) >= n_test:
                break
    return FreshSplit(spec, train, test, n_train, scanned)


def chat_prompt(tok, messages: list[dict]) -> str:
    from .rollout import render

    return render(tok, messages, True)


def greedy_eval(model, tok, spec: EvalSpec, instances: list, max_new_tokens: int = 48, batch_size: int = 16,
                progress=None, keep_text: int = 200) -> list[dict]:
    """Play every instance once, greedily, in batches; one record per instance.

    Record fields: ``instance_id``, ``status``, ``solved`` (0/1), ``score`` (the verdict's partial
    score), ``answer_found`` (0/1: the reply held a readable answer), ``tokens`` (generated) and
    the start of the reply (``text``, ``keep_text`` characters). ``progress(k)`` is called after
    each batch with the number of instances done in it. The time spent on the environment side
    (building prompts, parsing and scoring) is in each record's ``env_s`` share.
    """
    import torch

    from ..core.registry import get_task
    from .trainset import opening_messages

    task = get_task(spec.env_id)
    was_training = model.training
    model.eval()
    side = tok.padding_side
    tok.padding_side = "left"
    pad = tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id
    out: list[dict] = []
    try:
        for at in range(0, len(instances), batch_size):
            chunk = instances[at:at + batch_size]
            t = time.process_time()
            prompts = [chat_prompt(tok, opening_messages(spec, inst)) for inst in chunk]
            env_s = time.process_time() - t
            enc = tok(prompts, return_tensors="pt", padding=True, add_special_tokens=False).to(model.device)
            with torch.no_grad():
                gen = model.generate(**enc, max_new_tokens=max_new_tokens, do_sample=False, pad_token_id=pad,
                                     eos_token_id=tok.eos_token_id)
            rows = gen[:, enc["input_ids"].shape[1]:].tolist()
            t = time.process_time()
            recs = []
            for inst, ids in zip(chunk, rows):
                hit_eos = tok.eos_token_id in ids
                if hit_eos:
                    ids = ids[:ids.index(tok.eos_token_id)]
                ids = [i for i in ids if i != pad]
                text = tok.decode(ids, skip_special_tokens=True)
                v = task.score(inst, text, finish_reason="stop" if hit_eos else "length", n_output_tokens=len(ids),
                               max_new_tokens=max_new_tokens)
                recs.append({"instance_id": inst.instance_id, "status": v.status, "solved": int(v.status == "solved"),
                             "score": float(v.score), "answer_found": int(v.status not in UNREADABLE),
                             "tokens": len(ids), "text": text[:keep_text]})
            env_s += time.process_time() - t
            for r in recs:
                r["env_s"] = env_s / len(recs)
            out += recs
            if progress is not None:
                progress(len(chunk))
    finally:
        tok.padding_side = side
        if was_training:
            model.train()
    return out


def rates(records: list[dict]) -> dict[str, float]:
    """Solved rate, mean partial score and answer-found rate of evaluation records."""
    n = max(1, len(records))
    return {"episodes": len(records), "solved": sum(r["solved"] for r in records) / n,
            "score": sum(r["score"] for r in records) / n,
            "answer_found": sum(r["answer_found"] for r in records) / n}


def paired_bootstrap(before: list[float], after: list[float], n_boot: int = 10_000, seed: int = 0,
                     level: float = 0.95) -> dict[str, Any]:
    """Mean of ``after - before`` over paired items and its percentile bootstrap interval."""
    a, b = np.asarray(before, dtype=float), np.asarray(after, dtype=float)
    if a.shape != b.shape or a.size == 0:
        raise ValueError(f"paired samples must have the same non-zero length ({a.size} and {b.size})")
    d = b - a
    rng = np.random.default_rng(seed)
    means = d[rng.integers(0, d.size, size=(n_boot, d.size))].mean(axis=1)
    lo, hi = np.quantile(means, [(1 - level) / 2, 1 - (1 - level) / 2])
    return {"before": float(a.mean()), "after": float(b.mean()), "diff": float(d.mean()), "lo": float(lo),
            "hi": float(hi), "n": int(d.size), "excludes_zero": bool(lo > 0 or hi < 0)}


def compare(before: list[dict], after: list[dict], keys=("solved", "score", "answer_found")) -> dict[str, dict]:
    """:func:`paired_bootstrap` of each metric over the instances both record lists share."""
    b = {r["instance_id"]: r for r in before}
    pairs = [(b[r["instance_id"]], r) for r in after if r["instance_id"] in b]
    return {k: paired_bootstrap([x[k] for x, _ in pairs], [y[k] for _, y in pairs]) for k in keys}


#: environments with many distinct small instances (trivial presets), each with a shorter prompt of the
#: same instance (the rules in a sentence or two and the state as one line of JSON): prompt length
#: dominates the cost of a training step on a CPU
FRESH_ENVS = [
    {"id": "kumo_gym/Mosaic-v0", "difficulty": "trivial", "max_new_tokens": 40,
     "prompt_template": "Mosaic puzzle, {rows}x{cols} grid. Colour every cell 1 (black) or 2 (white). A clue (a number "
                        "that is not -1) equals the number of black cells in the 3x3 square centred on it, the clue's "
                        "own cell included.\nClues: {state}\nReply with the grid only, as a JSON array of {rows} rows."},
    {"id": "kumo_gym/Solo-v0", "difficulty": "trivial", "max_new_tokens": 64,
     "prompt_template": "Sudoku, {rows}x{cols} with 2x2 boxes. Write a digit 1 to 4 in every 0 cell and keep the given "
                        "digits, so that every row, column and box holds each digit once.\nGrid: {state}\nReply with the "
                        "grid only, as a JSON array of {rows} rows."},
    {"id": "kumo_gym/Filling-v0", "difficulty": "trivial", "max_new_tokens": 40,
     "prompt_template": "Filling puzzle, {rows}x{cols} grid. Write a digit 1 to 9 in every 0 cell and keep the given "
                        "digits. Cells with the same digit that share a side form a block, and every block has exactly "
                        "as many cells as its digit.\nGrid: {state}\nReply with the grid only, as a JSON array of "
                        "{rows} rows."},
]


def plot_run(result: dict, path):
    """The learning curves of a :func:`run_fresh` result (with its ``settings``) as a PNG."""
    from pathlib import Path

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    envs = [s["id"] for s in result["specs"]]
    fig, axes = plt.subplots(1, 3, figsize=(14, 3.8))
    ax = axes[0]
    hist = result["histories"].get("grpo", [])
    off = result["settings"]["sft_steps"]
    for key, label in (("reward", "total reward"), ("rewards/puzzle_binary/mean", "solved"),
                       ("rewards/puzzle_partial/mean", "partial score"), ("rewards/puzzle_format/mean", "answer found")):
        pts = [(off + h["step"], h[key]) for h in hist if key in h]
        if pts:
            ax.plot(*zip(*pts), marker=".", alpha=0.7, label=label)
    sft = [(h["step"], h["loss"]) for h in result["histories"].get("sft", []) if "loss" in h]
    ax.set(title=f"GRPO training reward (sampled, T={result['settings']['temperature']:g})", xlabel="step",
           ylabel="mean per completion")
    ax.legend(fontsize=7)
    if sft:
        ax2 = ax.twinx()
        ax2.plot(*zip(*sft), color="gray", alpha=0.5, label="SFT loss")
        ax2.set_ylabel("SFT loss (gray)")
    for ax, metric, title in ((axes[1], "solved", "held-out solved (greedy)"),
                              (axes[2], "score", "held-out partial score / answer found")):
        for e in envs:
            pts = [(p["step"], p[e][metric]) for p in result["curve"] if e in p]
            line, = ax.plot(*zip(*pts), marker="o", label=e.split("/")[-1])
            if metric == "score":
                pts = [(p["step"], p[e]["answer_found"]) for p in result["curve"] if e in p]
                ax.plot(*zip(*pts), marker="x", linestyle=":", color=line.get_color(),
                        label=e.split("/")[-1] + " answer found")
        if off:
            ax.axvline(off, color="gray", linestyle="--", linewidth=1)
        ax.set(title=title + f" ({result['settings']['curve_n']} fresh puzzles/env)", xlabel="step (SFT, then GRPO)")
        ax.legend(fontsize=7)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


# ---------------------------------------------------------------------------------------------
# before / training / after
# ---------------------------------------------------------------------------------------------
@dataclass
class FreshRun:
    """The held-out side of a before/after experiment: greedy evaluations of the fresh test
    instances of every split, and the points of the held-out learning curve."""

    splits: list[FreshSplit]
    tok: Any
    max_new_tokens: dict[str, int]
    batch_size: int = 16
    curve_n: int = 32
    points: list[dict] = field(default_factory=list)
    progress: bool = True
    #: generate under bfloat16 autocast on a CPU (as the trainers do with ``bf16``)
    bf16: bool = False

    def evaluate(self, model, label: str, instances: dict[str, list] | None = None) -> dict[str, list[dict]]:
        import torch
        from tqdm.auto import tqdm

        todo = instances or {s.spec.env_id: s.test for s in self.splits}
        bar = tqdm(total=sum(len(v) for v in todo.values()), desc=label, unit="puzzle", dynamic_ncols=True,
                   disable=not self.progress)
        res = {}
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=self.bf16 and model.device.type == "cpu"):
            for s in self.splits:
                if s.spec.env_id in todo:
                    res[s.spec.env_id] = greedy_eval(model, self.tok, s.spec, todo[s.spec.env_id],
                                                     self.max_new_tokens[s.spec.env_id], self.batch_size,
                                                     progress=bar.update)
        bar.close()
        return res

    def curve_point(self, model, phase: str, step: int, records: dict[str, list[dict]] | None = None) -> None:
        """A point of the held-out curve: the first ``curve_n`` fresh instances of every split
        (taken from ``records`` when a full evaluation just ran, else evaluated now)."""
        if records is None:
            sub = {s.spec.env_id: s.test[:self.curve_n] for s in self.splits}
            records = self.evaluate(model, f"held-out check ({phase}, step {step})", sub)
        else:
            ids = {s.spec.env_id: {i.instance_id for i in s.test[:self.curve_n]} for s in self.splits}
            records = {e: [r for r in recs if r["instance_id"] in ids[e]] for e, recs in records.items()}
        self.points.append({"phase": phase, "step": step, **{e: rates(r) for e, r in records.items()}})


class HeldoutCurve(TrainerCallbackBase):
    """Adds a point to ``run``'s held-out curve every ``every`` optimizer steps (the step numbers
    of the plot are ``offset`` + the trainer's step)."""

    def __init__(self, run: FreshRun, phase: str, every: int, offset: int = 0):
        self.run, self.phase, self.every, self.offset = run, phase, every, offset

    def on_step_end(self, args, state, control, model=None, **kwargs):
        if self.every > 0 and state.global_step % self.every == 0 and state.global_step < state.max_steps:
            self.run.curve_point(model, self.phase, self.offset + state.global_step)


def cpu_threads() -> int:
    """Every core on an idle machine; one on a busy one (the load average is at least the number of
    cores), where more threads of a model this small mostly wait for each other."""
    import os

    cores = os.cpu_count() or 1
    try:
        busy = os.getloadavg()[0] >= cores
    except OSError:
        busy = False
    return 1 if busy else cores


def _clock() -> tuple[float, float]:
    return time.time(), time.process_time()


def _since(t: tuple[float, float]) -> dict[str, float]:
    return {"wall_s": round(time.time() - t[0], 1), "cpu_s": round(time.process_time() - t[1], 1)}


def run_fresh(envs: list[dict], *, model: str, out, n_train: int = 300, n_test: int = 120, seed: int = 0,
              max_test_items: int | None = None,
              sft_steps: int = 60, sft_batch: int = 8, sft_lr: float = 1e-4, grpo_steps: int = 40,
              prompts_per_step: int = 4, num_generations: int = 4, grpo_lr: float = 1e-5, temperature: float = 1.0,
              max_completion_length: int = 64, curve_every: int = 10, curve_n: int = 32, batch_size: int = 16,
              threads: int | None = None, bf16: bool = True, progress: bool = True, reward_weights: dict | None = None,
              beta: float = 0.0, grpo_trainer_args: dict | None = None, grpo_model_args: dict | None = None
              ) -> dict:
    """Base model, SFT warm-up on golden answers of the training split, GRPO, each followed by a
    greedy evaluation on the fresh test instances; returns every record, rate, interval and time.

    ``envs``: ``{"id": ..., "max_new_tokens": ..., other environment kwargs}`` (``difficulty``,
    ``prompt_template`` ...). Training instances come from ``n_train`` train-split items, the
    held-out ones are up to ``n_test`` distinct test-split instances that are in no training item,
    found among at most ``max_test_items`` test items (default ``4 * n_test``; the trainers refuse
    any held-out id: ContaminationError). ``sft_steps=0`` skips the warm-up.
    Trainer logs go to ``out/<phase>/log.jsonl``; ``threads``: torch's CPU threads (default
    :func:`cpu_threads`). ``beta``: GRPO's KL weight toward the starting model;
    ``grpo_trainer_args``: any other ``GRPOConfig`` field (``scale_rewards``, ``top_p`` ...);
    ``grpo_model_args``: TRL ``ModelConfig`` fields of the GRPO phase (LoRA: ``use_peft``, ``lora_r`` ...).
    """
    from pathlib import Path

    import torch

    from .backends import load_pretrained
    from .grpo import train_grpo
    from .sft import train_sft

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    saved_threads = torch.get_num_threads()
    threads = threads or cpu_threads()
    torch.set_num_threads(threads)
    t_all = _clock()
    times: dict[str, dict] = {}
    specs: list[EvalSpec] = []
    max_new: dict[str, int] = {}
    for e in envs:
        kw = {k: v for k, v in e.items() if k not in ("id", "max_new_tokens")}
        spec = EvalSpec(e["id"], kw)
        specs.append(spec)
        max_new[spec.env_id] = int(e.get("max_new_tokens", max_completion_length))
    t = _clock()
    splits = [fresh_split(s, n_train, n_test, seed, max_test_items) for s in specs]
    heldout = set().union(*(ids for ids in ({i.instance_id for i in s.test} for s in splits)))
    times["split"] = _since(t)
    # no activation checkpointing: a model this small fits, and recomputing costs a third of a step
    trainer_args = {"bf16": bool(bf16), "disable_tqdm": True, "logging_steps": 1, "gradient_checkpointing": False}
    try:
        lm, tok, path = load_pretrained(model)
        run = FreshRun(splits, tok, max_new, batch_size=batch_size, curve_n=curve_n, progress=progress,
                       bf16=bool(bf16))
        records: dict[str, dict] = {}

        def evaluate(phase: str, m, step: int) -> None:
            t = _clock()
            records[phase] = run.evaluate(m, f"held-out ({phase})")
            times[f"eval_{phase}"] = _since(t)
            run.curve_point(m, phase, step, records[phase])

        evaluate("base", lm, 0)
        start = lm
        histories: dict[str, list] = {}
        if sft_steps > 0:
            t = _clock()
            sft = train_sft(specs, model=path, size=n_train, output_dir=str(out / "sft"), max_steps=sft_steps,
                            batch_size=sft_batch, learning_rate=sft_lr, seed=seed, exclude_ids=heldout,
                            trainer_args={**trainer_args, "max_length": 1024}, save=True,
                            log_file=str(out / "sft" / "log.jsonl"))
            times["sft"] = _since(t)
            histories["sft"] = sft.state.log_history
            start = sft.model
            evaluate("sft", start, sft_steps)
            path = str(out / "sft" / "model")
            del sft
        del lm, start
        t = _clock()
        grpo = train_grpo(list[Any](specs), model=path, size=n_train, output_dir=str(out / "grpo"), seed=seed,
                          max_steps=grpo_steps, num_generations=num_generations, prompts_per_step=prompts_per_step,
                          max_completion_length=max_completion_length, learning_rate=grpo_lr, temperature=temperature,
                          reward_weights=reward_weights, beta=beta, exclude_ids=heldout,
                          trainer_args={**trainer_args, **(grpo_trainer_args or {})}, model_args=grpo_model_args,
                          save=False,
                          callbacks=[HeldoutCurve(run, "grpo", curve_every, offset=max(0, sft_steps))],
                          log_file=str(out / "grpo" / "log.jsonl"))
        times["grpo"] = _since(t)
        histories["grpo"] = grpo.state.log_history
        evaluate("grpo", grpo.model, max(0, sft_steps) + grpo_steps)
    finally:
        torch.set_num_threads(saved_threads)
    times["total"] = _since(t_all)
    comparisons: dict[str, dict] = {}
    for sp in splits:
        eid = sp.spec.env_id
        comparisons[eid] = {"base->grpo": compare(records["base"][eid], records["grpo"][eid])}
        if "sft" in records:
            comparisons[eid]["base->sft"] = compare(records["base"][eid], records["sft"][eid])
            comparisons[eid]["sft->grpo"] = compare(records["sft"][eid], records["grpo"][eid])
    cost = [h for h in histories["grpo"] if "env/step_cpu_s" in h]
    step_cpu = sum(h["env/step_cpu_s"] for h in cost)
    env_cpu = sum(h["env/reward_cpu_s"] for h in cost)
    settings = {"model": model, "n_train": n_train, "n_test": n_test, "max_test_items": max_test_items,
                "seed": seed, "sft_steps": sft_steps,
                "sft_batch": sft_batch, "sft_lr": sft_lr, "grpo_steps": grpo_steps, "prompts_per_step": prompts_per_step,
                "num_generations": num_generations, "grpo_lr": grpo_lr, "temperature": temperature,
                "max_completion_length": max_completion_length, "curve_every": curve_every, "curve_n": curve_n,
                "threads": threads, "bf16": bf16, "reward_weights": reward_weights, "beta": beta,
                "grpo_trainer_args": grpo_trainer_args, "grpo_model_args": grpo_model_args}
    return {"settings": settings, "splits": [sp.summary() for sp in splits],
            "specs": [{"id": sp.env_id, **sp.kwargs} for sp in specs],
            "rates": {ph: {e: rates(r) for e, r in recs.items()} for ph, recs in records.items()},
            "comparisons": comparisons, "curve": run.points, "histories": histories, "times": times,
            "env_cost": {"grpo_step_cpu_s": round(step_cpu, 2), "reward_cpu_s": round(env_cpu, 3),
                         "share": round(env_cpu / step_cpu, 5) if step_cpu else None},
            "records": records}
