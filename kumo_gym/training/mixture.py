"""Weighted mixtures of environments (reasoning-gym's composite datasets, for kumo_gym).

A mixture is a list of environment configurations with weights, written in Python or YAML::

    # mix.yaml
    seed: 0                      # optional defaults for make_mixture
    size: 1000
    envs:
      - id: kumo_gym/Hanoi-v0
        weight: 2
        env_kwargs: {difficulty: easy}
      - id: Tents                # short names work
        weight: 1
        difficulty: trivial      # env parameters may also sit beside id and weight
      - id: KUMO
        weight: 1
        env_kwargs: {difficulty: easy, mode: interactive}

Row ``i`` of a mixture dataset comes from the environment drawn for it with probability
proportional to its weight (a fixed draw from ``(seed, split)``, so the same mixture, size, split
and seed give the same rows in any process); within an environment the rows are its instances
``0, 1, 2 ...``, exactly those of ``make_dataset`` with the same configuration. Records are
``make_dataset``'s, so one reward function scores them all.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..core.errors import ConfigError
from ..core.seeding import derive_seed


@dataclass(frozen=True)
class MixtureEntry:
    """One environment configuration of a mixture and its weight."""

    env_id: str
    weight: float = 1.0
    env_kwargs: dict = field(default_factory=dict)

    @property
    def label(self) -> str:
        from ..core.registry import entry

        extra = ",".join(f"{k}={v}" for k, v in sorted(self.env_kwargs.items()))
        return entry(self.env_id).name + (f"({extra})" if extra else "")


def parse_entry(obj) -> MixtureEntry:
    """A MixtureEntry from an entry, ``"ID:key=value"`` text or a mapping (``id``, ``weight``,
    ``env_kwargs`` and/or env parameters beside them)."""
    from ..core.registry import resolve_env_id

    if isinstance(obj, MixtureEntry):
        return obj
    if isinstance(obj, str):
        from .evaluate import parse_env_spec

        spec = parse_env_spec(obj)
        return MixtureEntry(spec.env_id, 1.0, dict(spec.kwargs))
    if not isinstance(obj, dict):
        raise ConfigError(f"mixture entry {obj!r} is not a mapping with an 'id' (or 'ID:key=value' text)")
    kw = dict(obj)
    name = kw.pop("id", None) or kw.pop("env", None) or kw.pop("env_id", None)
    if not isinstance(name, str):
        raise ConfigError(f"mixture entry {obj!r} needs an 'id', e.g. {{id: Hanoi, weight: 2, difficulty: easy}}")
    weight = kw.pop("weight", 1.0)
    try:
        weight = float(weight)
    except (TypeError, ValueError):
        raise ConfigError(f"mixture entry {name}: weight {weight!r} is not a number") from None
    if not (weight > 0 and np.isfinite(weight)):
        raise ConfigError(f"mixture entry {name}: weight {weight!r} must be a positive number")
    env_kwargs = kw.pop("env_kwargs", None) or {}
    if not isinstance(env_kwargs, dict):
        raise ConfigError(f"mixture entry {name}: env_kwargs must be a mapping")
    for k, v in kw.items():
        if k in env_kwargs and env_kwargs[k] != v:
            raise ConfigError(f"mixture entry {name}: {k!r} is given twice")
        env_kwargs[k] = v
    env_id = resolve_env_id(name)
    from ..core.registry import get_task
    from .data import generation_params

    get_task(env_id).resolve_params(**generation_params(env_kwargs))  # bad parameters fail here
    return MixtureEntry(env_id, weight, env_kwargs)


@dataclass
class Mixture:
    """Weighted environment configurations (see the module docstring)."""

    entries: list[MixtureEntry]
    defaults: dict = field(default_factory=dict)

    def __post_init__(self):
        self.entries = [parse_entry(e) for e in self.entries]
        if not self.entries:
            raise ConfigError("a mixture needs at least one environment")

    @classmethod
    def from_config(cls, obj) -> Mixture:
        """From a YAML path, a mapping with ``envs`` (and optional ``size``/``seed``/``split``
        defaults) or a list of entries."""
        if isinstance(obj, Mixture):
            return obj
        if isinstance(obj, (str, Path)):
            obj = load_yaml(obj)
        if isinstance(obj, list):
            return cls(list(obj))
        if isinstance(obj, dict):
            data = dict(obj)
            envs = data.pop("envs", None)
            if envs is None:
                raise ConfigError("a mixture mapping needs 'envs': a list of {id, weight, env_kwargs}")
            unknown = set(data) - {"size", "seed", "split"}
            if unknown:
                raise ConfigError(f"mixture key(s) {sorted(unknown)} are not one of: envs, size, seed, split")
            return cls(list(envs), data)
        raise ConfigError(f"a mixture is a YAML file, a mapping with 'envs' or a list of entries, not {obj!r}")

    @property
    def weights(self) -> np.ndarray:
        w = np.array([e.weight for e in self.entries], dtype=float)
        return w / w.sum()

    def assignment(self, size: int, split: str = "train", seed: int = 0) -> list[tuple[int, int]]:
        """``(entry index, item index within that entry)`` for rows ``0..size-1``."""
        rng = np.random.default_rng(derive_seed("mixture", [e.label for e in self.entries],
                                                [e.weight for e in self.entries], split, int(seed)))
        picks: np.ndarray | list[int] = rng.choice(len(self.entries), size=size, p=self.weights) if size else []
        counts = [0] * len(self.entries)
        out = []
        for k in picks:
            out.append((int(k), counts[k]))
            counts[k] += 1
        return out

    def counts(self, size: int, split: str = "train", seed: int = 0) -> list[int]:
        """Rows per entry among ``size`` rows."""
        counts = [0] * len(self.entries)
        for k, _ in self.assignment(size, split, seed):
            counts[k] += 1
        return counts


def load_yaml(path) -> dict | list:
    import yaml

    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"mixture file {str(path)!r} does not exist")
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as e:
        raise ConfigError(f"mixture file {str(path)!r} is not valid YAML: {e}") from None


#: the fields every record has; family-specific fields go into ``extra`` in mixture datasets
STANDARD_FIELDS = ("prompt", "env_id", "family", "instance_id", "difficulty", "split", "mode", "env_kwargs",
                   "instance", "optimal_steps", "golden", "completion")


def make_mixture(mixture, size: int | None = None, split: str | None = None, seed: int | None = None, *,
                 with_golden: bool = False, format: str = "records", prompt_format: str = "conversational"):
    """``size`` records drawn from ``mixture`` (a :class:`Mixture`, YAML path, mapping or list).

    Each record is ``make_dataset``'s for its environment plus ``mixture_entry`` (the entry's
    label); ``format="datasets"`` keeps the standard fields as columns and each family's own
    fields in an ``extra`` JSON column (Arrow needs one schema across families).
    """
    import json

    from ..core.errors import check_choice, check_int
    from .data import FORMATS, DistinctCounter, RecordMaker, _instances

    check_choice("format", format, FORMATS)
    mix = Mixture.from_config(mixture)
    size = check_int("size", size if size is not None else mix.defaults.get("size"), 1, 10**9)
    split = split or mix.defaults.get("split", "train")
    seed = int(seed if seed is not None else mix.defaults.get("seed", 0))
    assignment = mix.assignment(size, split, seed)
    counts = mix.counts(size, split, seed)
    per_entry = []
    for e, c in zip(mix.entries, counts):
        insts = list(_instances(e.env_id, c, split, seed, e.env_kwargs, None)) if c else []
        per_entry.append(insts)
    makers = [RecordMaker(e.env_id, e.env_kwargs, split, prompt_format, with_golden) for e in mix.entries]
    counters = [DistinctCounter(e.env_id, e.env_kwargs) for e in mix.entries]
    from ..core.registry import get_task

    records = []
    try:
        for k, j in assignment:
            inst = per_entry[k][j]
            if split == "train":
                get_task(mix.entries[k].env_id).check_trainable(inst)
            counters[k].add(inst.instance_id)
            rec = makers[k].record(inst)
            rec["mixture_entry"] = mix.entries[k].label
            records.append(rec)
    finally:
        for m in makers:
            m.close()
    for counter in counters:
        msg = counter.message()
        if msg:
            warnings.warn(msg, UserWarning, stacklevel=2)
    if format == "records":
        return records
    rows = []
    for r in records:
        row = {k: r[k] for k in (*STANDARD_FIELDS, "mixture_entry") if k in r}
        row["extra"] = json.dumps({k: v for k, v in r.items() if k not in row}, sort_keys=True, default=str)
        rows.append(row)
    from .data import to_hf_dataset

    return to_hf_dataset(rows)
