"""The evaluation harness behind ``kumo-gym eval``.

Any set of environments (ids, kwargs, difficulties), ``n`` instances each, ``samples`` replies
per instance (pass@k), single-turn (answer mode) and multi-turn (interactive mode), with any
:class:`~kumo_gym.core.backend.ChatBackend`: a remote OpenAI-compatible server, a local model,
or the oracle and random agents.

Every finished episode is appended to ``OUT/traces[-i-of-n].jsonl`` by the trace wrapper
(:class:`kumo_gym.wrappers.TraceWrapper`) the moment it ends. Each record carries a ``key``
hashing (model, environment, kwargs, split, seed, item index, instance id, sample index), so a rerun of the same command
skips what is done and redoes only episodes that had not finished: an interrupted run loses
nothing and repeats nothing. ``shard="i/n"`` evaluates one contiguous slice of the instances
(disjoint shards, separate trace files); :func:`report` summarises every trace file in the
directory once all shards are in.

Results: a table per environment and difficulty, and per family and difficulty (success,
pass@k, completion tokens, parse-error and truncation rates, steps, optimal steps and the
ratio of steps to the optimum on solved episodes) printed, written as ``results.json`` and
``results.md`` with plots of accuracy and tokens against difficulty.
"""
from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..analysis.results import format_results, summarize
from ..core.errors import ConfigError
from ..core.instance import Instance, canonical_json
from ..core.params import parse_value
from ..core.registry import entry, get_task, resolve_env_id
from ..core.seeding import check_split, shard_range
from .data import ENV_ONLY, generate_instances


@dataclass(frozen=True)
class EvalSpec:
    """One environment configuration to evaluate: an id and its kwargs (difficulty, sizes, mode ...)."""

    env_id: str
    kwargs: dict = field(default_factory=dict)

    def __post_init__(self):
        # objects given in code (a KUMO Domain) become the JSON values that stand for them, so the
        # spec can be hashed, labelled and written to the run's manifest
        try:
            task = get_task(self.env_id)
        except ConfigError:
            return  # an unknown id is reported where the spec is used
        object.__setattr__(self, "kwargs", task.plain_kwargs(dict(self.kwargs)))

    @property
    def mode(self) -> str:
        return self.kwargs.get("mode") or entry(self.env_id).modes[0]

    def generation_params(self) -> dict:
        return {k: v for k, v in self.kwargs.items() if k not in ENV_ONLY}

    def env_kwargs(self) -> dict:
        return {k: v for k, v in self.kwargs.items() if k in ENV_ONLY}

    def label(self) -> str:
        extra = {k: v for k, v in self.kwargs.items() if k != "difficulty"}
        name = entry(self.env_id).name
        return name + ("" if not extra else "(" + ",".join(f"{k}={v}" for k, v in sorted(extra.items())) + ")")

    def __hash__(self):
        return hash((self.env_id, canonical_json(self.kwargs)))


def make_specs(env_ids: list[str], kwargs: dict | None = None, difficulties: list[str] | None = None,
               mode: str | None = None) -> list[EvalSpec]:
    """One spec per (environment, difficulty); ``kwargs`` apply to every environment."""
    specs = []
    for env_id in env_ids:
        e = entry(env_id)
        kw = dict(kwargs or {})
        if mode:
            kw["mode"] = mode
        if kw.get("mode") and kw["mode"] not in e.modes:
            raise ConfigError(f"mode {kw['mode']!r} is not one of: {', '.join(e.modes)} (for {e.id})")
        choices: list[str | None] = list(difficulties) if difficulties else [None]
        for d in choices:
            k = dict(kw)
            if d is not None:
                k["difficulty"] = d
            get_task(e.id).resolve_params(**{x: v for x, v in k.items() if x not in ENV_ONLY})  # validate early
            specs.append(EvalSpec(e.id, k))
    return specs


def episode_key(model: str, spec: EvalSpec, split: str, seed: int, index: int, instance_id: str, sample: int) -> str:
    blob = canonical_json([model, spec.env_id, spec.kwargs, split, int(seed), int(index), instance_id, int(sample)])
    return hashlib.sha256(blob.encode()).hexdigest()[:20]


def trace_path(out_dir: str | Path, shard: str | None = None) -> Path:
    if shard is None:
        return Path(out_dir) / "traces.jsonl"
    i, n = shard.split("/")
    return Path(out_dir) / f"traces-{int(i)}-of-{int(n)}.jsonl"


# ---------------------------------------------------------------------------------------------
# running episodes
# ---------------------------------------------------------------------------------------------
@dataclass
class _Job:
    spec: EvalSpec
    instance: Instance
    samples: list[tuple[int, str]]  # (sample index, key) still to do
    index: int = 0  # the item's index in the (unsharded) instance list


class Evaluator:
    """Runs episodes of ``specs`` with ``backend`` and appends them to ``out_dir``'s trace file.

    ``max_tokens``/``temperature`` are passed to the backend; ``workers`` episodes run at once
    (default: the backend's ``concurrency`` for remote backends, else 1).

    A backend with ``chat_batch`` and ``batch_size`` (a local
    :class:`~kumo_gym.training.backends.TransformersBackend`) is batched: single-turn episodes
    are asked ``batch_size`` replies at a time in one ``chat_batch`` call, and greedy multi-turn
    episodes run in at least ``batch_size`` threads whose ``chat`` calls the backend gathers into
    shared ``generate`` calls (sampled ones run one at a time, so that a seeded run repeats its
    samples). ``batch_size=1`` asks one prompt at a time.
    """

    def __init__(self, backend, out_dir: str | Path, *, model_name: str | None = None, split: str = "test",
                 seed: int = 0, max_tokens: int | None = None, temperature: float | None = None,
                 workers: int | None = None, progress: bool = True, tokenizer: Any = None):
        self.backend = backend
        self.out_dir = Path(out_dir)
        self.model_name = model_name or getattr(backend, "name", None) or type(backend).__name__
        self.split = check_split(split)
        self.seed = int(seed)
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.workers = int(workers or getattr(backend, "concurrency", 1) or 1)
        self.progress = progress
        self.tokenizer = tokenizer
        self._bind_lock = threading.Lock()

    # -- planning the work ----------------------------------------------------------------
    def jobs(self, specs: list[EvalSpec], n: int, samples: int, shard: str | None, done: set[str]) -> list[_Job]:
        out = []
        for spec in specs:
            insts = generate_instances(spec.env_id, n, split=self.split, seed=self.seed, shard=shard,
                                       env_kwargs=spec.generation_params())
            for index, inst in zip(shard_range(n, shard), insts):
                todo = [(j, episode_key(self.model_name, spec, self.split, self.seed, index, inst.instance_id, j))
                        for j in range(samples)]
                todo = [(j, k) for j, k in todo if k not in done]
                if todo:
                    out.append(_Job(spec, inst, todo, index))
        return out

    def run(self, specs: list[EvalSpec], n: int, samples: int = 1, shard: str | None = None,
            runner=None) -> Path:
        """Evaluate and return the trace file; finished episodes of an earlier run are skipped.

        ``runner(evaluator, jobs, writer, advance)``, when given, runs the jobs instead of this
        process (``kumo-gym eval --ray``: :mod:`kumo_gym.integrations.ray_runner`).
        """
        from tqdm import tqdm

        from ..core.errors import check_int

        samples = check_int("samples", samples, 1)

        from ..wrappers.trace import TraceWriter, read_traces

        path = trace_path(self.out_dir, shard)
        done = {key for r in read_traces(path) if isinstance(key := r.get("key"), str)}
        jobs = self.jobs(specs, n, samples, shard, done)
        total = sum(len(j.samples) for j in jobs)
        kept = len(specs) * len(shard_range(n, shard)) * samples - total
        writer = TraceWriter(path)
        self._write_config(specs, n, samples, shard)
        bar = tqdm(total=total, desc=f"eval {self.model_name}", unit="ep", disable=not self.progress)
        if kept:
            bar.write(f"resuming: {kept} finished episode(s) in {path} are kept")

        def work(job: _Job):
            self.run_job(job, writer)
            bar.update(len(job.samples))

        try:
            if runner is not None:
                runner(self, jobs, writer, bar.update)
            else:
                workers = self.workers
                if _batches(self.backend):
                    single = [j for j in jobs if j.spec.mode == "answer"]
                    jobs = [j for j in jobs if j.spec.mode != "answer"]
                    self._single_turn_batched(single, writer, bar.update)
                    if self._greedy():
                        # sampled episodes stay sequential: which rows share a generate call would
                        # depend on the threads' timing, and so would the samples of a seeded run
                        workers = max(workers, int(self.backend.batch_size))
                if workers <= 1 or _needs_binding(self.backend):
                    for job in jobs:
                        work(job)
                else:
                    with ThreadPoolExecutor(max_workers=workers) as pool:
                        for f in [pool.submit(work, job) for job in jobs]:
                            f.result()
        finally:
            bar.close()
        return path

    def config(self, specs, size, samples) -> dict:
        """The run's configuration as written to ``config.json`` (JSON-normalised)."""
        return json.loads(json.dumps({
            "model": self.model_name, "split": self.split, "seed": self.seed, "size": size, "samples": samples,
            "max_tokens": self.max_tokens, "temperature": self.temperature,
            "specs": [{"env_id": s.env_id, "kwargs": s.kwargs} for s in specs]}))

    def _write_config(self, specs, n, samples, shard):
        self.out_dir.mkdir(parents=True, exist_ok=True)
        cfg = self.config(specs, n, samples)
        name = "config.json" if shard is None else f"config-{shard.replace('/', '-of-')}.json"
        (self.out_dir / name).write_text(json.dumps(cfg, indent=2) + "\n")

    # -- one instance, all its samples ------------------------------------------------------
    def _make_env(self, spec: EvalSpec, writer, key: str, sample: int, index: int):
        import gymnasium as gym

        import kumo_gym  # noqa: F401  (registers the ids)

        from ..wrappers.chat import ChatEnv
        from ..wrappers.trace import TraceWrapper

        env = gym.make(spec.env_id, split=self.split, **spec.kwargs)
        traced = TraceWrapper(env, writer.path, key=key, sample=sample, index=index, model=self.model_name,
                              spec=spec.label(), env_kwargs=spec.kwargs, mode=spec.mode)
        traced.writer = writer  # one writer (and lock) for every episode of this run
        return traced, ChatEnv(traced, tokenizer=self.tokenizer)

    def _ask(self, chat, messages: list[dict], n: int):
        backend = self.backend
        if _needs_binding(backend):
            with self._bind_lock:
                backend.bind(chat.unwrapped)
                return backend.chat(messages, max_tokens=self.max_tokens, temperature=self.temperature, n=n)
        return backend.chat(messages, max_tokens=self.max_tokens, temperature=self.temperature, n=n)

    def run_job(self, job: _Job, writer) -> None:
        if job.spec.mode == "answer":
            self._single_turn(job, writer)
        else:
            for sample, key in job.samples:
                self._multi_turn(job, sample, key, writer)

    def _single_turn(self, job: _Job, writer) -> None:
        replies = None
        for idx, (sample, key) in enumerate(job.samples):
            traced, chat = self._make_env(job.spec, writer, key, sample, job.index)
            messages, _info = chat.reset(options={"instance": job.instance})
            if replies is None:
                # one request for every sample of this instance (servers batch them)
                replies = self._ask(chat, messages, len(job.samples))
            self._finish_single(traced, chat, replies[idx])

    def _greedy(self) -> bool:
        temperature = self.temperature if self.temperature is not None else getattr(self.backend, "temperature", 1.0)
        return not temperature or temperature <= 0

    def _single_turn_batched(self, jobs: list[_Job], writer, advance) -> None:
        """Single-turn jobs with a batching backend: ``batch_size`` replies per ``chat_batch`` call
        (jobs with the same number of samples to do are batched together; a job's samples share a call)."""
        by_samples: dict[int, list[_Job]] = defaultdict(list)
        for job in jobs:
            by_samples[len(job.samples)].append(job)
        size = int(self.backend.batch_size)
        for n, group in by_samples.items():
            per_call = max(1, size // n)
            for i in range(0, len(group), per_call):
                chunk = group[i:i + per_call]
                episodes = []
                for job in chunk:
                    envs = [self._make_env(job.spec, writer, key, sample, job.index) for sample, key in job.samples]
                    messages = [chat.reset(options={"instance": job.instance})[0] for _traced, chat in envs]
                    episodes.append((envs, messages[0]))
                replies = self.backend.chat_batch([m for _e, m in episodes], max_tokens=self.max_tokens,
                                                  temperature=self.temperature, n=n)
                for (envs, _m), rs in zip(episodes, replies, strict=True):
                    for (traced, chat), r in zip(envs, rs, strict=True):
                        self._finish_single(traced, chat, r)
                advance(n * len(chunk))

    def _finish_single(self, traced, chat, r) -> None:
        traced.annotate(**_turn_meta([r], with_reasoning=False))
        chat.step(r.text, reasoning=r.reasoning, finish_reason=r.finish_reason,
                  n_output_tokens=r.completion_tokens, max_new_tokens=self.max_tokens)
        traced.close()

    def _multi_turn(self, job: _Job, sample: int, key: str, writer) -> None:
        traced, chat = self._make_env(job.spec, writer, key, sample, job.index)
        messages, _ = chat.reset(options={"instance": job.instance})
        turns = []
        while True:
            r = self._ask(chat, messages, 1)[0]
            turns.append(r)
            # annotate before the step: the wrapper writes the record when the episode ends
            traced.annotate(**_turn_meta(turns))
            messages, _reward, terminated, truncated, _info = chat.step(
                r.text, reasoning=r.reasoning, finish_reason=r.finish_reason,
                n_output_tokens=r.completion_tokens, max_new_tokens=self.max_tokens)
            if terminated or truncated:
                break
        traced.close()


def _batches(backend) -> bool:
    """Whether ``backend`` batches prompts itself (``chat_batch`` and ``batch_size``)."""
    return callable(getattr(backend, "chat_batch", None)) and isinstance(getattr(backend, "batch_size", None), int)


def _needs_binding(backend) -> bool:
    return callable(getattr(backend, "bind", None))


def _turn_meta(turns, with_reasoning: bool = True) -> dict:
    """Reply fields for the trace record (single-turn reasoning is recorded by the trace wrapper itself)."""
    meta = {
        "replies": [{"text": t.text, "reasoning": t.reasoning, "finish_reason": t.finish_reason,
                     "completion_tokens": t.completion_tokens} for t in turns],
        "prompt_tokens": sum(t.prompt_tokens or 0 for t in turns),
        "completion_tokens": sum(t.completion_tokens or 0 for t in turns),
    }
    if with_reasoning:
        meta["reasoning"] = "\n".join(t.reasoning for t in turns if t.reasoning) or None
    return meta


# ---------------------------------------------------------------------------------------------
# summarising
# ---------------------------------------------------------------------------------------------
def plot_results(summary: dict, path: str | Path) -> Path | None:
    """Accuracy and completion tokens against difficulty, one line per (model, environment)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    lines: dict[tuple, list[dict]] = defaultdict(list)
    for row in summary["by_env"]:
        lines[(row["model"], row["group"], row["mode"])].append(row)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for (model, group, mode), rows in lines.items():
        xs = [str(r["difficulty"]) for r in rows]
        label = f"{group} [{mode}] {model}"
        axes[0].plot(xs, [r["success"] for r in rows], marker="o", label=label)
        axes[1].plot(xs, [r["tokens"] or 0 for r in rows], marker="o", label=label)
    axes[0].set(title="accuracy vs difficulty", xlabel="difficulty", ylabel="success rate", ylim=(-0.05, 1.05))
    axes[1].set(title="completion tokens vs difficulty", xlabel="difficulty", ylabel="mean completion tokens")
    if lines and len(lines) <= 12:
        axes[0].legend(fontsize=7)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def report(out_dir: str | Path, plots: bool = True, quiet: bool = False) -> dict:
    """Summarise every trace file in ``out_dir``; write ``results.json``, ``results.md`` and the plot."""
    from ..wrappers.trace import read_traces

    out_dir = Path(out_dir)
    records = []
    for p in sorted(out_dir.glob("traces*.jsonl")):
        records.extend(read_traces(p))
    # one record per key: a duplicate can only come from two shards given the same range
    unique: dict = {}
    for r in records:
        unique.setdefault(r.get("key") or id(r), r)
    summary = summarize(list(unique.values()))
    summary["generated"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    (out_dir / "results.json").write_text(json.dumps(summary, indent=2, default=str) + "\n")
    md = ["# Evaluation results", "", f"{summary['episodes']} episodes from `{out_dir}`.", "",
          format_results(summary, markdown=True)]
    if plots and summary["by_env"]:
        img = plot_results(summary, out_dir / "accuracy_tokens.png")
        if img is not None:
            md += ["", f"![accuracy and tokens vs difficulty]({img.name})"]
    (out_dir / "results.md").write_text("\n".join(md) + "\n")
    if not quiet:
        print(format_results(summary))
    return summary


def evaluate(env_ids: list[str], backend, out_dir: str | Path, size: int | None = None, *, samples: int = 1,
             env_kwargs: dict | None = None, difficulties: list[str] | None = None, mode: str | None = None,
             shard: str | None = None, plots: bool = True, quiet: bool = False, n: int | None = None,
             **evaluator_kwargs) -> dict:
    """Evaluate ``backend`` on ``size`` instances (default 10) of each of ``env_ids`` with
    ``env_kwargs`` and return the summary (see the module docstring); ``n`` is the deprecated
    name of ``size``."""
    from .data import count_arg

    size = count_arg("evaluate", size, n, 10)
    specs = make_specs(env_ids, env_kwargs, difficulties, mode)
    Evaluator(backend, out_dir, progress=not quiet, **evaluator_kwargs).run(specs, size, samples, shard)
    return report(out_dir, plots=plots, quiet=quiet)


def parse_env_spec(text: str) -> EvalSpec:
    """``"ID"`` or ``"ID:key=value,key=value"`` (e.g. ``Hanoi:difficulty=easy,mode=interactive``)."""
    name, _, rest = text.partition(":")
    kwargs = {}
    for part in filter(None, (p.strip() for p in rest.split(","))):
        if "=" not in part:
            raise ConfigError(f"environment option {part!r} in {text!r} is not of the form key=value")
        k, v = part.split("=", 1)
        kwargs[k.strip()] = parse_value(v.strip())
    env_id = resolve_env_id(name)
    mode = kwargs.pop("mode", None)
    return make_specs([env_id], kwargs, None, mode)[0]


def to_spec(env) -> EvalSpec:
    """An EvalSpec from an EvalSpec, ``"ID:key=value,..."`` or a mapping ``{"id": ID, key: value}``
    (the form of a YAML config's ``envs`` list)."""
    if isinstance(env, EvalSpec):
        return env
    if isinstance(env, str):
        return parse_env_spec(env)
    if isinstance(env, dict):
        kw = dict(env)
        name = kw.pop("id", None) or kw.pop("env", None)
        if not isinstance(name, str):
            raise ConfigError(f"environment entry {env!r} needs an 'id' (e.g. {{id: Hanoi, difficulty: easy}})")
        kw = {**kw.pop("env_kwargs", {}), **kw}
        return make_specs([resolve_env_id(name)], kw, None, kw.pop("mode", None))[0]
    raise ConfigError(f"environment entry {env!r} is not an id, an 'ID:key=value' string or a mapping")
