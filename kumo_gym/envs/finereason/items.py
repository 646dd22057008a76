"""FineReason items: sampled from our puzzles or read from the reference files (spec §4, §9).

An item is one node of a puzzle tree with the history a prompt shows. As Instance data::

    {"puzzle": "sudoku", "puzzle_data": {...}, "depth": d, "current": state, "label": "Solvable",
     "history": [{"depth": j, "state": s, "label": l, "clue": tag}, ...],   # root first, parent last
     "explored": child | None, "explored_clue": tag | None, "defects": [...], "source": "..."}

Labels are always computed by the oracle of :mod:`.tree`: when a reference row is loaded its
stored ``current_status`` is ignored. Defects of the reference data (spec §9) are recorded by
name in ``defects``; nothing is dropped silently.
"""
from __future__ import annotations

import itertools
import json
from typing import Any

import numpy as np

from ...core.errors import ConfigError
from ...core.seeding import derive_seed
from . import coloring, game24, logicgrid, sudoku
from .tree import SOLVABLE, UNSOLVABLE, PuzzleRules, explored_child, sample_item

PUZZLES = ("sudoku", "coloring", "game24", "logicgrid")
RULES: dict[str, PuzzleRules] = {"sudoku": sudoku.RULES, "coloring": coloring.RULES,
                                 "game24": game24.RULES, "logicgrid": logicgrid.RULES}
LOADERS = {"sudoku": sudoku.load_question, "coloring": coloring.load_question,
           "game24": game24.load_question, "logicgrid": logicgrid.load_question}

#: named tolerances for the reference data (spec §9, "Defects to tolerate")
DEFECTS = {
    "stale_unsolvable_child": "the reference explored child is not a one-move child of current (Sudoku)",
    "uc_not_single_clue_child": "the reference explored child is not a canonical child of its clue (grid)",
    "uses_overwrite_quirk": "a step of the reference path is not a canonical clue application (grid)",
    "explored_child_differs": "the reference explored child is a valid unsolvable child, but not the first one",
    "dead_end_current": "current has no child, so no explored child can be shown",
}


def label_of(rules: PuzzleRules, data: dict, state) -> str:
    return SOLVABLE if rules.solvable(data, state) else UNSOLVABLE


def history_depths(puzzle: str, depth: int) -> list[int]:
    """The ancestor depths a prompt shows (§5): S(0), S(i-2), S(i-1) or the whole path."""
    if puzzle in ("sudoku", "coloring"):
        return sorted({0, max(0, depth - 2), depth - 1})
    return list(range(depth))


def item_from_sample(puzzle: str, data: dict, s: dict) -> dict:
    keep = history_depths(puzzle, s["depth"])
    return {
        "puzzle": puzzle, "puzzle_data": data, "depth": s["depth"], "current": s["state"],
        "label": s["label"],
        "history": [{"depth": j, "state": s["path"][j], "label": s["path_labels"][j], "clue": s["path_tags"][j]}
                    for j in keep],
        "explored": s["explored"], "explored_clue": s["explored_tag"], "defects": [], "source": "generated",
    }


def sample_puzzle_item(puzzle: str, rng: np.random.Generator, params: dict, label: str | None = None,
                       max_puzzles: int = 20) -> dict:
    """Generate a puzzle and draw one item of ``label`` (random when None) from its tree."""
    rules = RULES[puzzle]
    if label is None:
        label = SOLVABLE if rng.random() < 0.5 else UNSOLVABLE
    depth = params.get("depth")
    for _ in range(max_puzzles):
        data = rules.generate(rng, params)
        if depth is not None and depth not in rules.feasible_depths(data):
            raise ConfigError(f"depth {depth} is not one of the feasible depths "
                              f"{rules.feasible_depths(data)} for {puzzle}")
        s = sample_item(rules, data, rng, label, depth=depth,
                        unsolvable_mode=params.get("unsolvable_mode"), max_tries=60)
        if s is not None:
            return item_from_sample(puzzle, data, s)
    raise ConfigError(f"no {label} {puzzle} item found in {max_puzzles} puzzles with {params}")


# ---- reference rows ------------------------------------------------------------------------------
def detect_puzzle(inputs: dict) -> str:
    if "clues" in inputs:
        return "logicgrid"
    if "graph" in inputs:
        return "coloring"
    if "initial_state" in inputs:
        return "game24"
    if "initial" in inputs:
        return "sudoku"
    raise ConfigError("a FineReason record needs one of the fields clues, graph, initial_state, initial")


def _depth_of(puzzle: str, data: dict, current) -> int:
    if puzzle == "sudoku":
        filled = lambda g: sum(v != 0 for row in g for v in row)
        return filled(current) - filled(data["initial"])
    if puzzle == "coloring":
        return sum(c != 0 for c in current) - 1
    if puzzle == "game24":
        return 4 - len(current)
    return len(current["applied"])


def load_reference(record: dict | str) -> dict:
    """An item from a reference row (``*_states_*`` with a current state, or a question row).

    A question row has no current state: an item is drawn from its tree with a generator seeded
    by the row's content, so the same row always gives the same item.
    """
    if isinstance(record, str):
        record = json.loads(record)
    inputs = record.get("inputs", record)
    puzzle = detect_puzzle(inputs)
    rules = RULES[puzzle]
    data = LOADERS[puzzle](record)
    if "current" not in inputs:
        rng = np.random.default_rng(derive_seed("finereason-reference", record))
        label = SOLVABLE if rng.random() < 0.5 else UNSOLVABLE
        s = sample_item(rules, data, rng, label) or sample_item(rules, data, rng, SOLVABLE if label == UNSOLVABLE
                                                                 else UNSOLVABLE)
        if s is None:
            raise ConfigError(f"no item could be drawn from this {puzzle} question")
        item = item_from_sample(puzzle, data, s)
        item["source"] = "reference_question"
        return item
    defects: list[str] = []
    if puzzle == "logicgrid":
        tables = inputs["initial_to_current"]
        applied = [str(c) for c in inputs["applied_clues"]]
        states = [{"table": logicgrid.RULES.normalize(data, t), "applied": applied[:j]} for j, t in enumerate(tables)]
        for j in range(1, len(states)):
            clue = applied[j - 1]
            kids = logicgrid.apply_clue(data, states[j - 1]["table"], clue) if clue in data["clues"] else []
            if states[j]["table"] not in kids:
                defects.append("uses_overwrite_quirk")
                break
        tags = [None] + applied
    else:
        seq = [inputs.get("initial") if puzzle == "sudoku" else rules.root(data)]
        if puzzle == "game24":
            seq = [list(data["numbers"])]
        for key in ("grandparent", "parent", "current"):
            if inputs.get(key) is not None:
                seq.append(rules.normalize(data, inputs[key]))
        seq[0] = rules.normalize(data, seq[0])
        # drop repeats (at depth 1 the parent is the root)
        states = [seq[0]] + [s for a, s in itertools.pairwise(seq) if s != a]
        tags = [None] * len(states)
    current = states[-1]
    depth = _depth_of(puzzle, data, current)
    depths = [_depth_of(puzzle, data, s) for s in states]
    history = [{"depth": d, "state": rules.visible(s), "label": label_of(rules, data, s), "clue": t}
               for d, s, t in zip(depths[:-1], states[:-1], tags[:-1])]
    ex = explored_child(rules, data, current)
    ref_uc = inputs.get("unsolvable_child")
    if ref_uc is not None:
        try:
            uc = rules.normalize(data, ref_uc)
        except (ValueError, TypeError):
            uc = None
        if puzzle == "logicgrid":
            clue = str(inputs.get("clue_applied_to_unsolvable_child"))
            ok = uc is not None and any(t == uc for t in logicgrid.apply_clue(data, current["table"], clue)) \
                if clue in data["clues"] and clue not in current["applied"] else False
            if not ok:
                defects.append("uc_not_single_clue_child")
        else:
            err, _ = rules.forward_error(data, current, uc) if uc is not None else ("shape", None)
            if err is not None:
                defects.append("stale_unsolvable_child")
            elif ex is None or not rules.same(data, rules.visible(ex[1]), uc):
                defects.append("explored_child_differs")
    if ex is None:
        defects.append("dead_end_current")
    return {
        "puzzle": puzzle, "puzzle_data": data, "depth": depth, "current": current,
        "label": label_of(rules, data, current), "history": history,
        "explored": None if ex is None else rules.visible(ex[1]), "explored_clue": None if ex is None else ex[0],
        "defects": sorted(set(defects)), "source": "reference",
    }


def parent_state(item: dict) -> Any:
    """The parent of ``current`` as a tree state (grid: table and applied clues)."""
    parent = item["history"][-1]["state"]
    if item["puzzle"] == "logicgrid":
        return {"table": parent, "applied": item["current"]["applied"][:-1]}
    return parent
