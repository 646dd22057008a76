"""FineReason items: sampled from our puzzles or read from the reference files (docs/specs/finereason.md §4, §9).

An item is one node of a puzzle tree with the history a prompt shows. As Instance data::

    {"puzzle": "sudoku", "puzzle_data": {...}, "depth": d, "current": state, "label": "Solvable",
     "history": [{"depth": j, "state": s, "label": l, "clue": tag}, ...],   # root first, parent last
     "explored": child | None, "explored_clue": tag | None, "defects": [...], "source": "..."}

A reference row keeps its own states: its path, its current state and its explored child. Only a
defective explored child (not a one-move child of ``current``, or not unsolvable) is replaced by
the oracle's first unsolvable child; the row's own is kept as ``reference_explored`` (shown with
``faithful_labels``) and the defect is named in ``defects``.

Labels are computed by :func:`label_of`, the one code path every task, loader and export uses:
a stored ``current_status`` is never read.
"""
from __future__ import annotations

import itertools
import json
from typing import Any

import numpy as np

from ...core.errors import ConfigError
from ...core.instance import integral_floats
from ...core.seeding import derive_seed
from . import coloring, game24, logicgrid, sudoku
from .tree import SOLVABLE, UNSOLVABLE, PuzzleRules, explored_child, sample_item

PUZZLES = ("sudoku", "coloring", "game24", "logicgrid")
RULES: dict[str, PuzzleRules] = {"sudoku": sudoku.RULES, "coloring": coloring.RULES,
                                 "game24": game24.RULES, "logicgrid": logicgrid.RULES}
LOADERS = {name: rules.load_question for name, rules in RULES.items()}

#: named tolerances for the reference data (docs/specs/finereason.md §9, "Defects to tolerate")
DEFECTS = {
    "stale_unsolvable_child": "the reference explored child is not a one-move child of current; ours is shown",
    "uc_not_single_clue_child": "the reference explored child is a child only under the compat semantics of the "
                                "reference builder (grid); it is shown",
    "uc_not_a_child": "the reference explored child is not a child of current under any semantics (grid); ours is "
                      "shown",
    "reference_child_solvable": "the reference explored child is solvable; ours is shown",
    "uses_overwrite_quirk": "a step of the reference path is not a canonical clue application (grid)",
    "explored_child_differs": "the reference explored child is a valid unsolvable child, but not the first one",
    "dead_end_current": "current has no child, so no explored child can be shown",
    "path_does_not_end_at_current": "the reference path does not end at the current state (grid)",
    "solution_breaks_clue": "the stored solution breaks one of the puzzle's coded clues; labels follow the "
                            "solution (grid)",
}


def rules_for(puzzle: str, params: dict | None = None) -> PuzzleRules:
    """The rules object of ``puzzle`` (grids: under ``params["grid_semantics"]``)."""
    if puzzle == "logicgrid":
        return logicgrid.RULES_BY_SEMANTICS[(params or {}).get("grid_semantics") or "canonical"]
    return RULES[puzzle]


def label_of(puzzle: str, data: dict, state) -> str:
    """The label of ``state`` (docs/specs/finereason.md §2): the one oracle call of the whole family."""
    return SOLVABLE if RULES[puzzle].solvable(data, state) else UNSOLVABLE


def history_depths(puzzle: str, depth: int) -> list[int]:
    """The ancestor depths a prompt shows (docs/specs/finereason.md §5): S(0), S(i-2), S(i-1) or the whole path."""
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
    rules = rules_for(puzzle, params)
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
    if not isinstance(inputs, dict):
        raise ConfigError("a FineReason record's 'inputs' must be an object")
    if "clues" in inputs:
        return "logicgrid"
    if "graph" in inputs:
        return "coloring"
    if "initial_state" in inputs:
        return "game24"
    if "initial" in inputs:
        return "sudoku"
    raise ConfigError("a FineReason record needs one of the fields clues, graph, initial_state, initial")


def depth_of(puzzle: str, data: dict, current) -> int:
    """The number of moves from the root to ``current``."""
    if puzzle == "sudoku":
        filled = lambda g: sum(v != 0 for row in g for v in row)
        return filled(current) - filled(data["initial"])
    if puzzle == "coloring":
        return sum(c != 0 for c in current) - 1
    if puzzle == "game24":
        return 4 - len(current)
    return len(current["applied"])


def _normalized(rules: PuzzleRules, data: dict, raw, field: str):
    try:
        return rules.normalize(data, raw)
    except (ValueError, TypeError) as e:
        raise ConfigError(f"reference field {field}: {e}") from None


def _grid_path(data: dict, inputs: dict, defects: list) -> tuple[list, dict]:
    """The row's own path of tables (with applied clues) and its current state."""
    rules = logicgrid.RULES
    applied = [str(c) for c in inputs.get("applied_clues") or []]
    tables = [_normalized(rules, data, t, "initial_to_current") for t in inputs.get("initial_to_current") or []]
    current = {"table": _normalized(rules, data, inputs["current"], "current"), "applied": applied}
    if not tables or tables[-1] != current["table"]:
        defects.append("path_does_not_end_at_current")
        tables.append(current["table"])
    path = [{"table": t, "applied": applied[:j]} for j, t in enumerate(tables[:-1])]
    for j in range(1, len(tables)):
        clue = applied[j - 1] if j - 1 < len(applied) else None
        if clue not in data["clues"] or tables[j] not in logicgrid.apply_clue(data, tables[j - 1], clue):
            defects.append("uses_overwrite_quirk")
            break
    return path, current


def _grid_uc_is_child(data: dict, current: dict, uc, clue) -> tuple[bool, bool]:
    """(a child under compat semantics or its closure, a canonical child) for the row's explored child."""
    if uc is None or clue not in data["clues"] or clue in current["applied"]:
        return False, False
    canonical = uc in logicgrid.apply_clue(data, current["table"], clue)
    kids = logicgrid.apply_clue(data, current["table"], clue, "finereason")
    compat = uc in kids or uc in [logicgrid.forced_closure(data, k) for k in kids]
    return canonical or compat, canonical


def load_reference(record: dict | str) -> dict:
    """An item from a reference row (``*_states_*`` with a current state, or a question row).

    A question row has no current state: an item is drawn from its tree with a generator seeded
    by the row's content, so the same row always gives the same item.
    """
    if isinstance(record, str):
        record = json.loads(record)
    record = integral_floats(record)  # 7.0 is 7, as FineReason's == reads it
    inputs = record.get("inputs", record)
    puzzle = detect_puzzle(inputs)
    rules = RULES[puzzle]
    data = LOADERS[puzzle](record)
    rules.validate_data(data)
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
    defects: list[str] = ["solution_breaks_clue"] if data.get("oracle") == "solution" else []
    if puzzle == "logicgrid":
        path, current = _grid_path(data, inputs, defects)
    else:
        seq = [list(data["numbers"]) if puzzle == "game24" else rules.root(data)]
        if puzzle == "sudoku":
            seq = [data["initial"]]
        for key in ("grandparent", "parent"):
            if inputs.get(key) is not None:
                seq.append(_normalized(rules, data, inputs[key], key))
        current = _normalized(rules, data, inputs["current"], "current")
        # drop repeats (at depth 1 the parent is the root) and the current state itself
        path = [s for s, nxt in itertools.zip_longest(seq, seq[1:]) if s != nxt and s != current]
    depth = depth_of(puzzle, data, current)
    history = [{"depth": depth_of(puzzle, data, s), "state": rules.visible(s), "label": label_of(puzzle, data, s),
                "clue": s["applied"][-1] if puzzle == "logicgrid" and s["applied"] else None} for s in path]
    ours = explored_child(rules, data, current)
    if ours is None:
        defects.append("dead_end_current")
    explored = None if ours is None else (rules.visible(ours[1]), ours[0])
    reference = None
    ref_uc = inputs.get("unsolvable_child")
    if ref_uc is not None:
        try:
            uc = rules.normalize(data, ref_uc)
        except (ValueError, TypeError):
            uc = None
        clue = None
        if puzzle == "logicgrid":
            clue = str(inputs.get("clue_applied_to_unsolvable_child"))
            is_child, canonical = _grid_uc_is_child(data, current, uc, clue)
            child_state = {"table": uc, "applied": current["applied"] + [clue]} if is_child else None
            if is_child and not canonical:
                defects.append("uc_not_single_clue_child")
            bad = None if is_child else "uc_not_a_child"
        else:
            move = rules.check_forward(data, current, uc) if uc is not None else None
            child_state = move.child if move is not None and move.legal else None
            bad = None if child_state is not None else "stale_unsolvable_child"
        if bad is None and rules.solvable(data, child_state):
            bad = "reference_child_solvable"
        if bad is None:
            if puzzle != "logicgrid" and (ours is None or not rules.same(data, rules.visible(ours[1]), uc)):
                defects.append("explored_child_differs")
            explored = (uc, clue)
        else:
            defects.append(bad)
            reference = {"state": ref_uc if uc is None else uc, "clue": clue}
    item = {
        "puzzle": puzzle, "puzzle_data": data, "depth": depth, "current": current,
        "label": label_of(puzzle, data, current), "history": history,
        "explored": None if explored is None else explored[0],
        "explored_clue": None if explored is None else explored[1],
        "defects": sorted(set(defects)), "source": "reference",
    }
    if reference is not None:
        item["reference_explored"] = reference
    return item


def parent_state(item: dict) -> Any:
    """The parent of ``current`` as a tree state (grid: table and applied clues)."""
    parent = item["history"][-1]["state"]
    if item["puzzle"] == "logicgrid":
        return {"table": parent, "applied": item["current"]["applied"][:-1]}
    return parent
