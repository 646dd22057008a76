"""Datasets for the Hugging Face Hub: ``kumo-gym generate ENV --format datasets --out DIR``.

:func:`save_dataset` writes the records of :func:`kumo_gym.make_dataset` as a ``datasets``
dataset (``Dataset.save_to_disk``, so ``datasets.load_from_disk(DIR)`` reads it back) with a
dataset card, ``DIR/README.md``, that says what is inside: the environment and its parameters,
the split, seed and item range (enough to regenerate every row), the split guard, the licence of
the data and how to score a model's completion with :func:`kumo_gym.score`. ``push_to_hub``
uploads the dataset and its card to a Hub repository (for users with network access).

Needs ``datasets`` (``pip install 'kumo-gym[train]'``); imported only when called.
"""
from __future__ import annotations

import json
import os
import shlex
import shutil
from pathlib import Path

from ..core.errors import ConfigError
from ..core.registry import entry, get_task
from ..core.seeding import shard_range
from ..training.data import generation_params
from . import require

#: where the generated data comes from, by family (the card's licence section)
SOURCES = {
    "kumo": "The KUMO diagnosis domains shipped with kumo_gym (built from the KUMO paper's domain format); "
            "every case (hidden truth, outcome tables) is drawn by kumo_gym's generator.",
    "sparc": "Grids drawn by kumo_gym's SPaRC generator. The official SPaRC test puzzles are evaluation data "
             "and never appear in a train split (the split guard below).",
    "finereason": "Puzzles drawn by kumo_gym's FineReason generators. Items read from the FineReason reference "
                  "files are evaluation data and never appear in a train split.",
}
DEFAULT_SOURCE = "Puzzles drawn by kumo_gym's own generator; no third-party data."


def save_dataset(env_id: str, size: int, out: str | os.PathLike, *, split: str = "train", seed: int = 0,
                 env_kwargs: dict | None = None, shard: str | None = None, prompt_format: str = "conversational",
                 with_golden: bool = False, push_to_hub: str | None = None, private: bool = False) -> Path:
    """Write ``size`` records of ``env_id`` (or shard ``i/n`` of them) to the new directory ``out``.

    The directory is written beside ``out`` first and renamed into place, so a reader never sees
    half a dataset; an existing non-empty ``out`` is refused. Returns the directory.
    """
    datasets = require("datasets", "train", "--format datasets")
    from ..training.data import make_dataset

    out = Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ConfigError(f"--out {out} already exists; give a new directory for the dataset")
    kw = dict(env_kwargs or {})
    ds = make_dataset(env_id, size, split, seed, env_kwargs=kw, shard=shard, with_golden=with_golden,
                      format="datasets", prompt_format=prompt_format)
    card = dataset_card(env_id, size, split=split, seed=seed, env_kwargs=kw, shard=shard,
                        prompt_format=prompt_format, with_golden=with_golden, rows=len(ds),
                        distinct=len(set(ds["instance_id"])), columns=list(ds.column_names))
    tmp = out.with_name(out.name + ".partial")
    if tmp.exists():
        shutil.rmtree(tmp)
    try:
        ds.save_to_disk(str(tmp))
        (tmp / "README.md").write_text(card, encoding="utf-8")
        if out.exists():
            out.rmdir()  # empty (checked above)
        os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if push_to_hub:
        upload(datasets.load_from_disk(str(out)), card, push_to_hub, private=private)
    return out


def upload(ds, card: str, repo: str, private: bool = False) -> None:
    """Push ``ds`` and its card to the Hub dataset repository ``repo`` (needs network and a token)."""
    from huggingface_hub import DatasetCard

    ds.push_to_hub(repo, private=private)
    DatasetCard(card).push_to_hub(repo)


def dataset_card(env_id: str, size: int, *, split: str, seed: int, env_kwargs: dict, shard: str | None,
                 prompt_format: str, with_golden: bool, rows: int, distinct: int, columns: list[str]) -> str:
    """The README.md of a generated dataset (Hub YAML header, then the facts in prose)."""
    import kumo_gym

    e = entry(env_id)
    task = get_task(env_id)
    params = task.resolve_params(**generation_params(env_kwargs))
    items = shard_range(size, shard)
    kwargs_text = json.dumps(env_kwargs, sort_keys=True) if env_kwargs else "{}"
    regenerate = (f"kumo-gym generate {env_id} --size {size} --split {split} --seed {seed}"
                  + (f" --shard {shard}" if shard else "")
                  + (" --env-kwargs " + " ".join(shlex.quote(f"{k}={v if isinstance(v, str) else json.dumps(v)}")
                                                 for k, v in sorted(env_kwargs.items())) if env_kwargs else "")
                  + (" --prompt-format text" if prompt_format == "text" else "")
                  + (" --golden" if with_golden else "") + " --format datasets --out DIR")
    guard = ("Every row was checked by the family's `check_trainable` (evaluation-only and held-out "
             "puzzles raise `ContaminationError`), so none of them is evaluation data."
             if split == "train" else
             f"This is a `{split}` split: keep it out of training. Its item seeds are hashed with the "
             "split name, so no train split of the same environment draws the same stream.")
    return f"""---
license: apache-2.0
pretty_name: kumo_gym {e.name} ({split})
task_categories:
- text-generation
tags:
- kumo_gym
- reasoning
- reinforcement-learning
- puzzles
size_categories:
- {_size_category(rows)}
---

# kumo_gym {e.name}: {rows} {split} prompts

{e.summary}. Generated by kumo_gym {kumo_gym.__version__} from the environment `{env_id}`
(family `{e.family}`{f"; {e.paper}" if e.paper else ""}).

## Contents

| field | value |
|---|---|
| environment | `{env_id}` |
| environment kwargs | `{kwargs_text}` |
| generation parameters (resolved) | `{json.dumps(params, sort_keys=True, default=str)}` |
| split | `{split}` |
| seed | `{seed}` |
| items | indices {items.start} to {items.stop - 1} of {size}{f" (shard {shard})" if shard else ""} |
| rows | {rows} ({distinct} distinct instance ids) |
| prompt format | `{prompt_format}` |
| golden answers | {"yes (`golden`, `completion`)" if with_golden else "no"} |
| columns | {", ".join(f"`{c}`" for c in columns)} |

Row `i` is the instance with item seed `kumo_gym.core.seeding.item_seed(env_id, params, split, seed, i)`,
the same instance `gym.make("{env_id}", **kwargs).reset(seed=...)` gives, so this command writes the
same rows again on any machine:

```
{regenerate}
```

## Split guard

{guard}

## Licence and source data

{SOURCES.get(e.family, DEFAULT_SOURCE)} The rows are released under the Apache-2.0 licence of
kumo_gym.

## Scoring a completion

The `instance` column (JSON text) carries everything the verifier needs:

```python
import datasets, kumo_gym

ds = datasets.load_from_disk("DIR")
row = ds[0]
verdict = kumo_gym.score(row["env_id"], row["instance"], completion)  # completion: the model's text
print(verdict.status, verdict.reward)  # solved/wrong/parse_error/truncated, 1.0 or 0.0
```

`kumo_gym.reward_function()` scores a whole batch with TRL's reward signature (it reads the
`env_id` and `instance` columns), so `GRPOTrainer(reward_funcs=kumo_gym.reward_function(), train_dataset=ds)`
takes this dataset as it is.
"""


def _size_category(n: int) -> str:
    for limit, name in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M")):
        if n < limit:
            return name
    return "n>1M"
