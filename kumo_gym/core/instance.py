"""Instance: one puzzle, as plain JSON-safe data, with a stable content hash."""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from itertools import chain
from typing import Any

#: how deep :func:`integral_floats` descends (official records are a few levels deep; deeper
#: values are left as they are, for the family's schema check to refuse)
MAX_JSON_DEPTH = 64


def integral_floats(obj: Any, _depth: int = 0) -> Any:
    """``obj`` (parsed JSON: dicts, lists, numbers, strings) with every integral float made an int:
    ``7.0`` is read as ``7``, as the official tools that compare values with ``==`` read it;
    ``7.5``, ``nan``, ``inf`` and booleans stay as they are. Used by the loaders of official
    records (FineReason rows, KUMO records, SPaRC records), whose formats hold integers; our own
    instance files are not rewritten (their content hash covers the values as written)."""
    if isinstance(obj, float):
        return int(obj) if obj.is_integer() and abs(obj) < 2**63 else obj
    if _depth >= MAX_JSON_DEPTH:
        return obj
    if isinstance(obj, dict):
        return {k: integral_floats(v, _depth + 1) for k, v in obj.items()}
    if isinstance(obj, list):
        return [integral_floats(v, _depth + 1) for v in obj]
    if type(obj) is tuple:
        return tuple(integral_floats(v, _depth + 1) for v in obj)
    return obj


def canonical_json(obj: Any) -> str:
    """The canonical JSON text of ``obj``: sorted keys, no spaces, no NaN."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _plain(obj: Any) -> Any:
    """A copy of ``obj`` as plain JSON data (tuples -> lists, numpy scalars -> Python): exactly
    ``json.loads(json.dumps(obj, default=_json_default))``.

    Lists, tuples and string-keyed dicts of ``str``, ``int``, ``float``, ``bool`` and ``None``
    (by exact type) are copied directly, which is what generated instances hold (a JSON
    round trip per instance was a fifth of the shared generation overhead); any other part (numpy
    values, sets, subclasses, dicts with non-string keys) takes the JSON round trip, so the result
    is the same either way.
    """
    t = type(obj)
    if t is list or t is tuple:
        kinds = set(map(type, obj))
        if _ATOMS.issuperset(kinds):
            return list(obj)
        # a grid of atoms or of flat records (Net's tiles), or a row of flat records: checked and
        # copied by C-level passes instead of one call per row or per cell
        if _SEQS.issuperset(kinds):
            cells = list(chain.from_iterable(obj))
            inner = set(map(type, cells))
            if _ATOMS.issuperset(inner):
                return list(map(list, obj))
            if inner == _DICT and _flat_records(cells):
                return [list(map(dict, row)) for row in obj]
        elif kinds == _DICT and _flat_records(obj):
            return list(map(dict, obj))
        return [x if type(x) in _ATOMS else _plain(x) for x in obj]
    if t is dict:
        if not _STRS.issuperset(map(type, obj)):
            return _json_copy(obj)
        if _ATOMS.issuperset(map(type, obj.values())):  # a flat record (a grid cell's dict): one copy
            return dict(obj)
        return {k: v if type(v) in _ATOMS else _plain(v) for k, v in obj.items()}
    if t in _ATOMS:
        return obj
    return _json_copy(obj)


#: the exact types JSON writes and reads back as themselves (a float subclass such as
#: ``np.float64`` is not one of them: it takes the round trip and comes back a float)
_ATOMS = frozenset({str, int, float, bool, type(None)})
_STRS = frozenset({str})
_SEQS = frozenset({list, tuple})
_DICT = {dict}


def _flat_records(dicts: list[dict]) -> bool:
    """Whether every dict of ``dicts`` (exact dicts) has string keys and atom values only."""
    return _STRS.issuperset(map(type, chain.from_iterable(dicts))) \
        and _ATOMS.issuperset(map(type, chain.from_iterable(map(dict.values, dicts))))


def _json_copy(obj: Any) -> Any:
    return json.loads(json.dumps(obj, default=_json_default))


def _json_default(obj: Any):
    import numpy as np

    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, (set, frozenset)):
        return sorted(obj)
    raise TypeError(f"value of type {type(obj).__name__} is not JSON-safe: {obj!r}")


@dataclass(frozen=True)
class Instance:
    """A puzzle instance.

    ``family`` names the Task (``hanoi``, ``kumo``, ``sparc`` ...); ``params`` are the generation
    parameters (difficulty preset, sizes, prompt variants); ``data`` is the puzzle itself.
    ``seed`` and ``split`` record where it came from. Everything is normalised to plain JSON at
    construction, so ``Instance.from_json(inst.to_json()) == inst`` always holds.

    ``instance_id`` hashes ``family`` and ``data`` only: the same puzzle reached through two
    presets or two seeds has one id, which is what split guards and dedup need.
    """

    family: str
    data: dict
    params: dict = field(default_factory=dict)
    seed: int | None = None
    split: str | None = None

    def __post_init__(self):
        object.__setattr__(self, "data", _plain(self.data))
        object.__setattr__(self, "params", _plain(self.params))
        if self.seed is not None:
            object.__setattr__(self, "seed", int(self.seed))

    @property
    def instance_id(self) -> str:
        digest = hashlib.sha256(canonical_json([self.family, self.data]).encode("utf-8"))
        return digest.hexdigest()[:16]

    def to_dict(self) -> dict:
        return {
            "family": self.family,
            "params": self.params,
            "data": self.data,
            "seed": self.seed,
            "split": self.split,
            "instance_id": self.instance_id,
        }

    @classmethod
    def from_dict(cls, d: dict) -> Instance:
        from .errors import ConfigError

        if not isinstance(d, dict) or "family" not in d or "data" not in d:
            raise ConfigError("an instance dict needs the keys 'family' and 'data'")
        for key, kinds, what in (("family", (str,), "a string"), ("data", (dict,), "a dict"),
                                 ("params", (dict, type(None)), "a dict or null"),
                                 ("split", (str, type(None)), "a string or null")):
            if not isinstance(d.get(key), kinds):
                raise ConfigError(f"instance field {key!r} must be {what}, not {str(d.get(key))[:60]!r}")
        seed = d.get("seed")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise ConfigError(f"instance field 'seed' must be an integer or null, not {str(seed)[:60]!r}")
        inst = cls(family=d["family"], data=d["data"], params=d.get("params") or {},
                   seed=d.get("seed"), split=d.get("split"))
        if d.get("instance_id") not in (None, inst.instance_id):
            raise ConfigError(
                f"instance_id {d['instance_id']!r} does not match the content hash {inst.instance_id!r}"
            )
        return inst

    def to_json(self) -> str:
        return canonical_json(self.to_dict())

    @classmethod
    def from_json(cls, text: str) -> Instance:
        return cls.from_dict(json.loads(text))

    def __hash__(self):
        return hash((self.family, canonical_json(self.data)))
