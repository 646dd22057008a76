"""Balanced item sets and GRPO/SFT training data for FineReason (docs/specs/finereason.md §4, §8).

* :func:`sample_items` - ``n`` items of one puzzle, exactly balanced between Solvable and
  Unsolvable and reproducible from ``seed`` (item seeds come from hashing, never seed + index).
* :func:`export_training` - mixed state-checking and state-transition rows (the mixing ratio is
  ``sc_fraction``) over several puzzles, as records, a ``datasets.Dataset`` or a JSONL file. Each
  row carries ``env_id`` and ``instance`` so :func:`kumo_gym.training.rewards.make_reward_function`
  scores it, plus the golden ``answer``.
* :func:`mix_with` - blend those rows with general rows (the paper mixed MetaMathQA) at a ratio.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ...core.errors import ConfigError, check_choice, check_int
from ...core.instance import Instance
from ...core.seeding import check_split, derive_seed
from .items import PUZZLES, sample_puzzle_item
from .tasks import StateCheckingTask, StateTransitionTask
from .tree import SOLVABLE, UNSOLVABLE

SC_ID = "kumo_gym/FineReasonStateChecking-v0"
ST_ID = "kumo_gym/FineReasonStateTransition-v0"
FORMATS = ("records", "datasets", "jsonl")


def sample_items(puzzle: str, n: int, seed: int = 0, split: str = "train", difficulty: str = "normal",
                 **params) -> list[dict]:
    """``n`` items of ``puzzle``: labels alternate S, U, S, U ... (exact balance for even ``n``).

    Depths are drawn uniformly among the feasible ones for each item (Game of 24: {1, 2}).
    """
    check_choice("puzzle", puzzle, PUZZLES)
    check_split(split)
    n = check_int("n", n, 0)
    resolved = StateCheckingTask().resolve_params(difficulty=difficulty, puzzle=puzzle, **params)
    items = []
    for i in range(n):
        rng = np.random.default_rng(derive_seed("finereason-items", resolved, split, int(seed), i))
        label = SOLVABLE if i % 2 == 0 else UNSOLVABLE
        item = sample_puzzle_item(puzzle, rng, resolved, label)
        item["params"] = resolved
        items.append(item)
    return items


def export_training(n: int = 1000, *, sc_fraction: float = 0.5, puzzles=("sudoku", "coloring", "game24"),
                    seed: int = 0, split: str = "train", difficulty: str = "normal", format: str = "records",
                    path: str | Path | None = None, max_prompt_chars: int | None = None,
                    allow_reference: bool = False, items: list[dict] | None = None):
    """Mixed SC/ST training rows (docs/specs/finereason.md §8): ``{prompt, task, puzzle, answer, reward_fn, env_id,
    instance, meta}``.

    ``sc_fraction`` is the share of state-checking rows (the paper's 1:1 is 0.5); puzzles are
    balanced and each item yields one row. ``max_prompt_chars`` drops items whose prompt is
    longer. ``items`` exports given items instead (those read from the reference files need
    ``allow_reference=True``). ``format``: ``records`` (a list of dicts), ``datasets`` (a
    ``datasets.Dataset``) or ``jsonl`` (written to ``path``; returns the path).
    """
    check_choice("format", format, FORMATS)
    if not 0.0 <= float(sc_fraction) <= 1.0:
        raise ConfigError(f"sc_fraction {sc_fraction} is outside the valid range 0..1")
    for p in puzzles:
        check_choice("puzzle", p, PUZZLES)
    if format == "jsonl" and path is None:
        raise ConfigError("format='jsonl' needs a path")
    if items is None:
        per = [n // len(puzzles) + (1 if i < n % len(puzzles) else 0) for i in range(len(puzzles))]
        items = [it for p, k in zip(puzzles, per) for it in sample_items(p, k, seed=seed, split=split,
                                                                        difficulty=difficulty)]
    rng = np.random.default_rng(derive_seed("finereason-export", int(seed), split, float(sc_fraction)))
    order = rng.permutation(len(items))
    n_sc = round(float(sc_fraction) * len(items))
    sc_task, st_task = StateCheckingTask(), StateTransitionTask()
    rows = []
    for rank, idx in enumerate(order):
        item = dict(items[int(idx)])
        if item.get("source", "generated") != "generated" and not allow_reference:
            raise ConfigError("items read from the reference files are evaluation data; pass allow_reference=True")
        params = item.pop("params", {"puzzle": item["puzzle"]})
        inst = Instance("finereason", item, params=params, split=split)
        task, env_id, kind = (sc_task, SC_ID, "sc") if rank < n_sc else (st_task, ST_ID, "st")
        prompt = task.prompt(inst)
        if max_prompt_chars is not None and len(prompt) > max_prompt_chars:
            continue
        rows.append({
            "prompt": prompt, "task": kind, "puzzle": item["puzzle"],
            "answer": task.format_answer(task.solve(inst)), "reward_fn": f"kumo_gym:{env_id}",
            "env_id": env_id, "instance": inst.to_json(),
            "meta": json.dumps({"label": item["label"], "depth": item["depth"], "instance_id": inst.instance_id}),
        })
    # keep the SC/ST interleaving random but the row order reproducible
    rows = [rows[int(i)] for i in rng.permutation(len(rows))]
    if format == "records":
        return rows
    if format == "datasets":
        import datasets

        return datasets.Dataset.from_list(rows)
    path = Path(path)
    with path.open("w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    return path


def mix_with(general_rows: list[dict], finereason_rows: list[dict], math_ratio: float = 0.8,
             total: int = 10_000, seed: int = 0) -> list[dict]:
    """``total`` rows of which ``math_ratio`` come from ``general_rows`` (e.g. MetaMathQA), the
    rest from ``finereason_rows``; rows are drawn without replacement and shuffled reproducibly."""
    if not 0.0 <= float(math_ratio) <= 1.0:
        raise ConfigError(f"math_ratio {math_ratio} is outside the valid range 0..1")
    total = check_int("total", total, 0)
    n_math = round(total * float(math_ratio))
    n_fr = total - n_math
    if n_math > len(general_rows) or n_fr > len(finereason_rows):
        raise ConfigError(f"need {n_math} general and {n_fr} FineReason rows, have {len(general_rows)} and "
                          f"{len(finereason_rows)}")
    rng = np.random.default_rng(derive_seed("finereason-mix", int(seed), float(math_ratio), total))
    picked = [general_rows[int(i)] for i in rng.choice(len(general_rows), n_math, replace=False)] + \
             [finereason_rows[int(i)] for i in rng.choice(len(finereason_rows), n_fr, replace=False)]
    return [picked[int(i)] for i in rng.permutation(len(picked))]
