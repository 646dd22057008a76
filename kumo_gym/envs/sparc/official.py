"""The official SPaRC records: loading them and keeping them out of training (docs/specs/sparc.md §13).

The official test split is evaluation-only. Official test puzzles are recognised by content
alone (:meth:`SparcPuzzle.fingerprint`), never by tags, ids or file names, so a renamed copy is
caught and our own generated files are never mistaken for official ones. :func:`known_official`
lists the fingerprints this machine knows: the reference sample under ``../shared/reference``
(or ``$KUMO_GYM_REFERENCE``) and every record loaded with ``load_official(split="test")`` in
this process. Training builders and the generator refuse them.
"""
from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path

from ...core.errors import ConfigError, check_choice
from ...core.instance import Instance
from .puzzle import SparcPuzzle

FAMILY = "sparc"
CONFIGS = ("all", "dots", "dots_stars_polys", "gaps", "gaps_dots_triangles", "polys", "polys_ylops", "stars",
           "stones", "stones_stars", "triangles")
OFFICIAL_SPLITS = ("train", "test")
_SEEN_TEST: dict = {"ids": set(), "fingerprints": set()}


def reference_file() -> Path | None:
    """``sparc/sparc_dev_50.jsonl`` under ``$KUMO_GYM_REFERENCE`` or ``../shared/reference``
    beside the repository root; None when absent."""
    env = os.environ.get("KUMO_GYM_REFERENCE")
    root = Path(env) if env else Path(__file__).resolve().parents[3].parent / "shared" / "reference"
    path = root / "sparc" / "sparc_dev_50.jsonl"
    return path if path.is_file() else None


def instance_from_record(record: dict, official_split: str | None = None, config: str = "all") -> Instance:
    """An Instance holding ``record`` verbatim. ``official_split`` tags it as official data of
    that split; a record whose content is a known official test puzzle is tagged ``test``
    whatever it says."""
    p = SparcPuzzle.from_record(record)  # validates, warns on YAML mismatch
    if official_split not in (None, "train", "test"):
        official_split = None
    if is_official(p):
        official_split = "test"
    params = {"source": "official", "official_split": official_split, "config": config} if official_split \
        else {"source": "record"}
    split = official_split if official_split in ("train", "test") else None
    return Instance(family=FAMILY, data=record, params=params, split=split)


def read_records(path) -> list[dict]:
    """Records from a JSONL, JSON (list) or parquet file."""
    path = Path(path)
    if path.suffix == ".parquet":
        import pandas as pd  # optional, only for parquet files

        return json.loads(pd.read_parquet(path).to_json(orient="records"))
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        data = json.loads(text)
        return data if isinstance(data, list) else [data]
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def load_official(path=None, config: str = "all", split: str = "test", revision: str | None = None) -> list[Instance]:
    """Official records as Instances tagged ``official_split=split``.

    ``path``: a JSONL/JSON/parquet file; None fetches ``lkaesberg/SPaRC`` (``config``, ``split``)
    with the ``datasets`` package (pin ``revision`` for reproducible evaluation).
    """
    check_choice("config", config, CONFIGS)
    check_choice("split", split, OFFICIAL_SPLITS)
    if path is None:
        try:
            import datasets
        except ImportError:
            raise ConfigError("loading lkaesberg/SPaRC needs the 'datasets' package (pip install "
                              "kumo-gym[train]) or a local file path") from None
        ds = datasets.load_dataset("lkaesberg/SPaRC", config, split=split, revision=revision)
        records = [dict(r) for r in ds]
    else:
        records = read_records(path)
    if split == "test":
        for r in records:
            _SEEN_TEST["ids"].add(r.get("id"))
            _SEEN_TEST["fingerprints"].add(SparcPuzzle.from_record(r).fingerprint())
    return [instance_from_record(r, split, config) for r in records]


@lru_cache(maxsize=1)
def _reference_keys() -> tuple[frozenset, frozenset]:
    path = reference_file()
    if path is None:
        return frozenset(), frozenset()
    ids, fps = set(), set()
    for rec in read_records(path):
        ids.add(rec.get("id"))
        fps.add(SparcPuzzle.from_record(rec).fingerprint())
    return frozenset(ids), frozenset(fps)


def known_official() -> tuple[set, set]:
    """(ids, fingerprints) of the official test records known here."""
    ids, fps = _reference_keys()
    return set(ids) | _SEEN_TEST["ids"], set(fps) | _SEEN_TEST["fingerprints"]


def is_official(puzzle: SparcPuzzle) -> bool:
    """Whether ``puzzle`` is a known official test puzzle (by content fingerprint)."""
    fp = puzzle.fingerprint()
    return fp in _reference_keys()[1] or fp in _SEEN_TEST["fingerprints"]
