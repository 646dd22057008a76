"""Reward functions with TRL's signature, built from our verifiers.

TRL calls ``reward(prompts=..., completions=..., **dataset_columns)``; our datasets carry the
columns ``env_id`` and ``instance`` (JSON text), so one function scores a mix of environments.
Multi-turn rollouts (:mod:`kumo_gym.training.grpo`) have already played the episode in the
environment; they pass its final verdict as the extra column ``kumo_verdict``, which then
replaces scoring the completion text.

Scoring errors never look like a model mistake. A crash inside a parser or verifier, an
instance that does not load or an unknown environment id gives the verdict status ``error``
(reward 0 in every kind, ``format`` included), is logged once per kind of failure with its
traceback, counted in :data:`SCORING_ERRORS`, and reported to the trainer through TRL's
``log_metric`` hook as ``rewards/scoring_errors`` (completions of the batch whose scoring
failed; anything above 0 is a bug to fix, not a property of the model). A dataset without the
columns the functions need raises :class:`~kumo_gym.core.errors.ConfigError` at the first call.

The components of one batch (``binary``, ``partial``, ``format``) share their verdicts through a
small cache, so each completion is parsed and verified once, not once per component; and the
completions of one row (a GRPO group) share the row's loaded instance, so its JSON is read once
per group, and a grid answer already found correct on it is not checked rule by rule again
(``GridTask.verify``). Both caches are keyed by content (the row's env id and instance text).
"""
from __future__ import annotations

import logging
import threading
from collections import Counter, OrderedDict

from ..core.errors import ConfigError, check_choice
from ..core.instance import canonical_json
from ..core.verdict import UNREADABLE, Verdict
from .data import load_instance, score

log = logging.getLogger(__name__)

KINDS = ("binary", "partial", "format")
#: the metric name under which the number of failed scorings of a batch is logged
SCORING_ERROR_METRIC = "rewards/scoring_errors"


class ScoringErrorCounter:
    """Thread-safe counts of scoring errors by ``(env_id, stage, exception type)``."""

    def __init__(self):
        self._counts: Counter = Counter()
        self._lock = threading.Lock()

    def add(self, verdict: Verdict, env_id: str | None) -> None:
        d = verdict.details
        with self._lock:
            self._counts[(str(env_id), str(d.get("stage")), str(d.get("exception")))] += 1

    @property
    def total(self) -> int:
        with self._lock:
            return sum(self._counts.values())

    def by_kind(self) -> dict[tuple[str, str, str], int]:
        with self._lock:
            return dict(self._counts)

    def reset(self) -> None:
        with self._lock:
            self._counts.clear()


#: every scoring error seen by the reward functions of this process
SCORING_ERRORS = ScoringErrorCounter()
_LOGGED: set[tuple[str, str, str]] = set()


def completion_text(completion) -> str:
    """The text of a completion: a string, or the last assistant message of a conversation."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, dict):
        return str(completion.get("content", ""))
    if isinstance(completion, (list, tuple)):
        for msg in reversed(completion):
            if isinstance(msg, dict) and msg.get("role", "assistant") == "assistant":
                return str(msg.get("content", ""))
    return "" if completion is None else str(completion)


def verdict_reward(verdict: Verdict, kind: str) -> float:
    """The reward of ``kind`` for ``verdict``; an ``error`` verdict pays 0 in every kind."""
    if verdict.status == "error":
        return 0.0
    if kind == "binary":
        return 0.0 if verdict.reward is None else float(verdict.reward)
    if kind == "partial":
        return float(verdict.score)
    return 0.0 if verdict.status in UNREADABLE else 1.0


def row_error(env_id: str | None, stage: str, exc: BaseException) -> Verdict:
    """The ``error`` verdict for a row that could not be scored at all (its instance does not
    load, its environment id is unknown, its played verdict is malformed); logged once per
    ``(env_id, stage, exception type)``."""
    key = (str(env_id), stage, type(exc).__name__)
    if key not in _LOGGED:
        _LOGGED.add(key)
        log.error("reward: %s of a %s row raised %s: %s", stage, env_id, type(exc).__name__, exc, exc_info=exc)
    return Verdict("error", f"The row could not be scored ({stage}: {type(exc).__name__}); this is not the "
                            "answer's fault.",
                   details={"reason": "scoring_error", "stage": stage, "exception": type(exc).__name__,
                            "error": str(exc)[:500]})


class _LRU:
    """The last ``size`` values by key, thread-safe: verdicts by ``(env_id, instance, completion)``
    (the reward components of one batch score each completion once) and loaded instances by
    ``(env_id, instance)`` (the completions of a row share one). Keys hold the row's own strings."""

    def __init__(self, size: int):
        self.size = size
        self._items: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key):
        with self._lock:
            v = self._items.get(key)
            if v is not None:
                self._items.move_to_end(key)
            return v

    def put(self, key, value) -> None:
        with self._lock:
            self._items[key] = value
            while len(self._items) > self.size:
                self._items.popitem(last=False)


_CACHE = _LRU(2048)
_INSTANCES = _LRU(512)


def _cache_key(env_id, instance, text: str):
    # by content, never by object id (ids are reused); records hold dicts, TRL datasets JSON text
    if not isinstance(env_id, str):
        return None
    if isinstance(instance, dict):
        try:
            instance = canonical_json(instance)
        except (TypeError, ValueError):
            return None
    return (env_id, instance, text) if isinstance(instance, str) else None


def score_row(env_id: str | None, instance, completion, played=None) -> Verdict:
    """The verdict of one row; never raises (failures are ``error`` verdicts, counted and logged)."""
    if played is not None:
        try:
            return Verdict.from_dict(played)
        except Exception as exc:  # noqa: BLE001 - a malformed rollout verdict is our bug, not the model's
            verdict = row_error(env_id, "played verdict", exc)
            SCORING_ERRORS.add(verdict, env_id)
            return verdict
    try:
        text = completion_text(completion)
    except Exception as exc:  # noqa: BLE001 - e.g. a str() that raises
        verdict = row_error(env_id, "completion", exc)
        SCORING_ERRORS.add(verdict, env_id)
        return verdict
    key = _cache_key(env_id, instance, text)
    cached = _CACHE.get(key) if key is not None else None
    if cached is not None:
        return cached
    try:
        if env_id is None:
            raise ConfigError("the row names no environment (no env_id column, and none given)")
        if key is not None:
            loaded = _INSTANCES.get(key[:2])
            if loaded is None:
                loaded = load_instance(env_id, instance)
                _INSTANCES.put(key[:2], loaded)
            instance = loaded
        verdict = score(env_id, instance, text)  # parse/verify crashes come back as `error` (Task.score)
    except Exception as exc:  # noqa: BLE001 - unknown env id or an instance that does not load
        verdict = row_error(env_id, "load", exc)
    if verdict.status == "error":
        SCORING_ERRORS.add(verdict, env_id)
    if key is not None:
        _CACHE.put(key, verdict)
    return verdict


def _column(columns: dict, name: str, n: int, why: str):
    values = columns.get(name)
    if values is None:
        given = ", ".join(sorted(k for k in columns if k not in ("log_metric", "log_extra", "trainer_state"))) or "none"
        raise ConfigError(f"the kumo reward functions need the dataset column {name!r} ({why}); the columns given "
                          f"are: {given}. Build the dataset with kumo_gym.make_dataset or "
                          "kumo_gym.training.trainset.build_records.")
    if len(values) != n:
        raise ConfigError(f"dataset column {name!r} has {len(values)} values for {n} completions")
    return values


def make_reward_function(env_id: str | None = None, kind: str = "binary"):
    """``reward(prompts, completions, **columns) -> list[float]``.

    ``kind``: ``binary`` (1 iff solved), ``partial`` (fraction of constraints met) or ``format``
    (1 iff an answer could be read). The function's ``__name__`` is ``puzzle_<kind>`` so TRL logs
    each component under its own name (``rewards/puzzle_binary/mean``) whichever environment it
    scores (earlier versions named them ``kumo_<kind>``, which read as the KUMO family). Needs the
    column ``instance`` (and ``env_id`` unless ``env_id`` is given here) unless every row carries a
    played ``kumo_verdict``.
    ``reward.scoring_errors`` counts the rows this function could not score.
    """
    check_choice("kind", kind, KINDS)

    def reward(prompts=None, completions=None, **columns):
        completions = list(completions or [])
        n = len(completions)
        played = columns.get("kumo_verdict")
        if played is not None and len(played) != n:
            raise ConfigError(f"dataset column 'kumo_verdict' has {len(played)} values for {n} completions")
        needs_text = played is None or any(p is None for p in played)
        instances = env_ids = None
        if needs_text and n:
            instances = _column(columns, "instance", n, "the instance JSON of each prompt")
            if env_id is None:
                env_ids = _column(columns, "env_id", n, "the environment id of each prompt")
        if env_id is None and env_ids is None:
            env_ids = columns.get("env_id")
        out, errors = [], 0
        for i, comp in enumerate(completions):
            eid = env_id or (env_ids[i] if env_ids is not None else None)
            v = score_row(eid, None if instances is None else instances[i], comp,
                          None if played is None else played[i])
            if v.status == "error":
                errors += 1
            out.append(verdict_reward(v, kind))
        reward.scoring_errors += errors  # type: ignore[attr-defined]  # set below
        log_metric = columns.get("log_metric")
        if callable(log_metric):
            # every component logs the same batch count, so TRL's average of them is that count
            log_metric(SCORING_ERROR_METRIC, float(errors))
        return out

    reward.__name__ = f"puzzle_{kind}"
    reward.scoring_errors = 0  # type: ignore[attr-defined]  # a function attribute, read by callers
    return reward
