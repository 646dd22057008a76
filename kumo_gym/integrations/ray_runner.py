"""``kumo-gym generate ... --ray`` and ``kumo-gym eval ... --ray``: the same work on a Ray cluster.

Ray tasks do the expensive part (generating and rendering instances; playing episodes) and the
driver, the process that runs the command, writes what they return **in item order**, through
the same writers as a local run. So for the same command the output is the same, byte for byte
(``generate``: the JSONL file; ``eval``: the trace records but for their ``seconds`` of wall time,
and the results tables), whatever the number of workers, and the resume rules are the local
ones: ``generate`` keeps ``OUT.partial`` after an interruption and the same command continues
from the records there; ``eval`` skips the episodes whose keys are already in the trace file.
Records reach the file chunk by chunk, in order; an interruption loses only the chunks in flight.

``--shard i/n`` and ``--ray`` compose: a shard is a fixed slice of the items (disjoint slices for
separate jobs, one output file each), and ``--ray`` spreads one command's slice over a cluster.

Ray is found the usual way: ``RAY_ADDRESS`` (or ``ray start`` on this machine) names a running
cluster; without one ``ray.init()`` starts a local instance. The workers must be able to import
kumo_gym (install it on the cluster's nodes, or pass a ``runtime_env``). Needs ``pip install
'kumo-gym[ray]'``.

Determinism: items are seeded by index (``kumo_gym.core.seeding``), so where an item is made
does not matter. An evaluation is identical to the local one when the model's replies are: the
oracle agent, or a served model at temperature 0. The random agent draws from one stream per
process, so its replies differ between a local run and a Ray run (and between shards).
"""
from __future__ import annotations

import itertools
import math
import os
import tempfile
from collections import deque
from collections.abc import Callable, Iterator

from . import require

#: chunks in flight per CPU of the cluster (keeps every worker busy without holding everything)
IN_FLIGHT_PER_CPU = 2
#: the largest chunk: how much work an interruption can lose per worker
MAX_CHUNK = 64


def _ray():
    ray = require("ray", "ray", "--ray")
    if not ray.is_initialized():
        ray.init(address=os.environ.get("RAY_ADDRESS") or None, log_to_driver=False)
    return ray


def _cluster_cpus(ray) -> int:
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def _chunks(count: int, cpus: int, chunk: int | None) -> list[range]:
    """``range(count)`` cut into consecutive chunks: a few per CPU, none larger than MAX_CHUNK."""
    size = chunk or max(1, min(MAX_CHUNK, math.ceil(count / (4 * cpus))))
    return [range(lo, min(lo + size, count)) for lo in range(0, count, size)]


def _in_order(ray, remote, args_of, parts: list, cpus: int) -> Iterator:
    """``remote.remote(*args_of(part))`` for each part, results yielded in the parts' order with
    at most ``IN_FLIGHT_PER_CPU * cpus`` tasks outstanding; pending tasks are cancelled when the
    consumer stops early (an error, Ctrl-C)."""
    pending: deque = deque()
    todo = iter(parts)
    limit = IN_FLIGHT_PER_CPU * cpus
    try:
        for part in itertools.islice(todo, limit):
            pending.append(remote.remote(*args_of(part)))
        while pending:
            result = ray.get(pending.popleft())
            for part in itertools.islice(todo, 1):
                pending.append(remote.remote(*args_of(part)))
            yield result
    finally:
        for ref in pending:
            ray.cancel(ref)


# ---------------------------------------------------------------------------------------------
# generate
# ---------------------------------------------------------------------------------------------
def _record_chunk(env_id: str, env_kwargs: dict, size: int, split: str, seed: int, shard: str | None,
                  lo: int, hi: int, prompt_format: str, with_golden: bool) -> list[dict]:
    """The records at positions ``lo..hi-1`` of the (shard's) item list (runs in a Ray task)."""
    from ..core.registry import get_task
    from ..training.data import RecordMaker, generate_instances

    task = get_task(env_id)
    maker = RecordMaker(env_id, env_kwargs, split, prompt_format, with_golden)
    try:
        out = []
        insts = generate_instances(env_id, size, split=split, seed=seed, shard=shard, env_kwargs=env_kwargs, start=lo)
        for inst in itertools.islice(insts, hi - lo):
            if split == "train":
                task.check_trainable(inst)
            out.append(maker.record(inst))
        return out
    finally:
        maker.close()


def generate_records(env_id: str, env_kwargs: dict, size: int, *, split: str = "train", seed: int = 0,
                     shard: str | None = None, start: int = 0, prompt_format: str = "conversational",
                     with_golden: bool = False, chunk: int | None = None) -> Iterator[dict]:
    """The records ``kumo-gym generate`` writes from position ``start`` on, made by Ray tasks and
    yielded in order (each is exactly the local run's record at that position)."""
    from ..core.seeding import shard_range

    ray = _ray()
    count = len(shard_range(size, shard)) - start
    cpus = _cluster_cpus(ray)
    remote = ray.remote(_record_chunk)
    parts = _chunks(count, cpus, chunk)

    def args_of(part: range):
        return (env_id, env_kwargs, size, split, seed, shard, start + part.start, start + part.stop, prompt_format,
                with_golden)

    for records in _in_order(ray, remote, args_of, parts, cpus):
        yield from records


# ---------------------------------------------------------------------------------------------
# eval
# ---------------------------------------------------------------------------------------------
class _Collector:
    """A trace writer that keeps the records (a Ray task's episodes go back to the driver)."""

    def __init__(self):
        self.path = os.path.join(tempfile.gettempdir(), "kumo_gym-ray", "traces.jsonl")
        self.records: list[dict] = []

    def append(self, record: dict) -> None:
        self.records.append(record)


def _episode_chunk(make_backend: Callable, settings: dict, jobs: list) -> list[list[dict]]:
    """Play ``jobs`` with a backend made here; each job's trace records, in order (a Ray task)."""
    from ..training.evaluate import Evaluator

    ev = Evaluator(make_backend(), settings.pop("out_dir"), workers=1, progress=False, **settings)
    out = []
    for job in jobs:
        writer = _Collector()
        ev.run_job(job, writer)
        out.append(writer.records)
    return out


class RayEvalRunner:
    """The ``runner`` of :meth:`kumo_gym.training.evaluate.Evaluator.run` that plays the jobs in
    Ray tasks. ``make_backend`` (no arguments) builds the backend inside each task: a model
    client or a local model does not travel, its recipe does."""

    def __init__(self, make_backend: Callable, chunk: int | None = None):
        self.make_backend = make_backend
        self.chunk = chunk

    def __call__(self, evaluator, jobs: list, writer, advance: Callable[[int], object]) -> None:
        ray = _ray()
        cpus = _cluster_cpus(ray)
        settings = {"out_dir": str(evaluator.out_dir), "model_name": evaluator.model_name, "split": evaluator.split,
                     "seed": evaluator.seed, "max_tokens": evaluator.max_tokens,
                     "temperature": evaluator.temperature, "tokenizer": evaluator.tokenizer}
        remote = ray.remote(_episode_chunk)
        parts = [jobs[r.start:r.stop] for r in _chunks(len(jobs), cpus, self.chunk)]
        for part, results in zip(parts, _in_order(ray, remote, lambda p: (self.make_backend, dict(settings), p),
                                                  parts, cpus)):
            for job, records in zip(part, results):
                for record in records:
                    writer.append(record)
                advance(len(job.samples))
