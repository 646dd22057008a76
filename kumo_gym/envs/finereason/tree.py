"""Puzzle trees: minimal moves, labels, lazy walks and item sampling (docs/specs/finereason.md §1, §2, §4).

A puzzle tree has states as nodes and one *minimal move* per edge. Each puzzle module provides a
:class:`PuzzleRules` object: the root, the children of a state in canonical order, a label oracle
(``solvable``), the judge's notion of "a valid forward move" and the text format of a state. This
module holds what is the same for all four puzzles:

* :func:`walk` - a lazy depth-first walk (a generator; nothing is stored but the current path);
* :func:`label_tree` - the plain labelling: build the whole tree and label it bottom-up
  (Solvable iff a leaf below is a solution); used by benchmarks and tests as the reference for
  the oracles;
* :func:`sample_item` - one state-checking / state-transition item with its history, drawn by
  random descent with the oracle, so a large tree is never built.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from ...core.errors import ConfigError

SOLVABLE, UNSOLVABLE = "Solvable", "Unsolvable"
LABELS = (SOLVABLE, UNSOLVABLE)

#: the rules a forward move must keep (docs/specs/finereason.md §7, "valid child"); verdicts name them by code
MOVE_RULES = {
    "changes_state": "a forward move changes the state (an unchanged logic grid counts only as the application of "
                     "a clue that already holds, and only with allow_confirming_noop)",
    "single_move": "a forward move is exactly one minimal move: one cell or vertex written, two expressions "
                   "joined into one, or the values of one clue placed",
    "keeps_filled": "what is already written stays: no filled cell, coloured vertex, untouched expression or "
                    "placed table value changes",
    "allowed_values": "every value written is allowed: a digit 1-9, a colour 1..k, only the four given numbers, "
                      "a value of that table column",
    "no_conflict": "no rule is broken: no digit twice in a row, column or box, no neighbours with one colour, "
                   "no division by zero, no clue made false, no value twice in a table column",
}


def every_rule(code: str) -> bool:
    return True


@dataclass(frozen=True)
class MoveCheck:
    """The judgement of one candidate forward move: legal (``rule is None``, ``child`` set) or the
    broken rule's code with the finer sub-reason of docs/specs/finereason.md §7 (``multiple_changes``, ...)."""

    rule: str | None = None
    reason: str | None = None
    child: Any = None

    @property
    def legal(self) -> bool:
        return self.rule is None


class PuzzleRules(ABC):
    """The rules of one puzzle as a tree (docs/specs/finereason.md §2). Stateless; ``data`` is the puzzle.

    A *state* is JSON data. ``visible(state)`` is the part a model sees and writes (the grid
    puzzle keeps the set of applied clues beside its table; the other puzzles show everything).
    Each puzzle module defines one subclass; the Tasks hold them by composition (``RULES``).
    """

    name: ClassVar[str] = ""
    #: the smallest depth of a sampled ``current`` (a grandparent must exist for Sudoku/colouring)
    min_depth: ClassVar[int] = 1
    #: the words of the two labels in prompts (colouring says Colorable/Uncolorable)
    label_words: ClassVar[tuple[str, str]] = ("Solvable", "Unsolvable")
    #: how Unsolvable items are drawn by default (docs/specs/finereason.md §4): "first_wrong_step" or "any"
    unsolvable_mode: ClassVar[str] = "any"
    #: the size parameters of this puzzle, and their values per difficulty preset
    presets: ClassVar[dict[str, dict[str, int]]] = {}

    @classmethod
    def size_params(cls) -> tuple[str, ...]:
        return tuple(next(iter(cls.presets.values()), {}))

    # ---- the tree ---------------------------------------------------------------------------
    @abstractmethod
    def root(self, data: dict) -> Any:
        """The initial state."""

    @abstractmethod
    def children(self, data: dict, state: Any) -> list[tuple[Any, Any]]:
        """``(move_tag, child)`` pairs in canonical order (the tag is the grid clue, else None)."""

    @abstractmethod
    def is_complete(self, data: dict, state: Any) -> bool:
        """A leaf that is a full solution candidate (no move is left to make)."""

    @abstractmethod
    def solvable(self, data: dict, state: Any) -> bool:
        """The label oracle: a complete valid solution exists below ``state``."""

    def is_solution(self, data: dict, state: Any) -> bool:
        """A complete state that is a valid solution."""
        return self.is_complete(data, state) and self.solvable(data, state)

    # ---- the judge --------------------------------------------------------------------------
    def visible(self, state: Any) -> Any:
        return state

    @abstractmethod
    def check_forward(self, data: dict, parent: Any, candidate: Any,
                      enabled: Callable[[str], bool] = every_rule, allow_noop: bool = True) -> MoveCheck:
        """Judge ``candidate`` (a visible state) as one forward move from ``parent``.

        Any legal move counts, not only a tree edge (docs/specs/finereason.md §7). Each rule of :data:`MOVE_RULES` is
        checked only while ``enabled(code)`` (the rule switches of the adversarial suite), so a
        switched-off rule behaves as if its check were deleted. ``allow_noop``: whether an
        unchanged state may count as a move (grids: a clue that already holds).
        """

    def illegal_moves(self, data: dict, state: Any, rng: np.random.Generator,
                      allow_noop: bool = True) -> list[tuple[str, Any]]:
        """Candidates from ``state`` that each break exactly one move rule: ``(rule, visible state)``.

        The near misses of the tasks; positions vary (first and last cells ...). A rule that
        cannot be broken alone in ``state`` is simply absent.
        """
        return []

    def same(self, data: dict, a: Any, b: Any) -> bool:
        """Canonical equality of two visible states (docs/specs/finereason.md §7)."""
        return a == b

    @abstractmethod
    def normalize(self, data: dict, raw: Any) -> Any:
        """A visible state from a parsed literal; ValueError/TypeError when its shape is wrong."""

    def state_problem(self, data: dict, state: Any) -> str | None:
        """Why a normalized state stored in an instance cannot be a state of this puzzle's tree (a value
        out of range, a given changed), or None. :meth:`normalize` checks only the shape, since it also
        reads answers, whose values the judge rules on."""
        return None

    @abstractmethod
    def format_state(self, state: Any) -> str:
        """The state as a Python list literal (what the model reads and writes)."""

    # ---- sources ------------------------------------------------------------------------------
    @abstractmethod
    def generate(self, rng: np.random.Generator, params: dict) -> dict:
        """New puzzle data (every generated puzzle has a solution)."""

    @abstractmethod
    def validate_data(self, data: dict) -> None:
        """Raise ConfigError naming the first bad field of the puzzle data (a loaded instance)."""

    @abstractmethod
    def max_depth(self, data: dict) -> int:
        """The largest depth a non-complete state can have."""

    def feasible_depths(self, data: dict) -> list[int]:
        return list(range(self.min_depth, self.max_depth(data) + 1))

    def label_depths(self, data: dict, label: str, unsolvable_mode: str,
                     require_explored_child: bool = True) -> list[int] | None:
        """The depths where a node of ``label`` exists, when cheap to know exactly; else None."""
        return None

    def solution_path(self, data: dict) -> list[Any]:
        """States from the root to a solution, always taking the first solvable child."""
        path = [self.root(data)]
        while not self.is_complete(data, path[-1]):
            nxt = next((c for _, c in self.children(data, path[-1]) if self.solvable(data, c)), None)
            if nxt is None:
                raise ConfigError(f"{self.name} puzzle has no solution below its root")
            path.append(nxt)
        return path

    # ---- prompt pieces (our own words, docs/specs/finereason.md §5) --------------------------------------------------
    @abstractmethod
    def rules_text(self, data: dict) -> str:
        """The rules of the puzzle."""

    #: what one forward move is
    move_rule: ClassVar[str]
    #: what one backward move is
    backward_rule: ClassVar[str] = "A backward move returns to the previous state (it undoes the last forward move)."

    def data_text(self, data: dict) -> str:
        """The fixed puzzle data shown before the states (graph, numbers, clues ...)."""
        return ""

    # ---- the reference data (docs/specs/finereason.md §9) ---------------------------------------------------------
    def load_question(self, record: dict) -> dict:
        """Puzzle data from a row of the reference data, ``{"inputs": ..., "outputs": ...}`` or the
        inputs alone (read by :meth:`from_reference`)."""
        return self.from_reference(record.get("inputs", record), record.get("outputs") or {})

    def from_reference(self, inputs: dict, outputs: dict) -> dict:
        """Puzzle data from a reference row's inputs (and outputs, where the puzzle keeps its solution)."""
        raise NotImplementedError(f"{type(self).__name__} reads no reference rows")


# ---- walking and labelling ------------------------------------------------------------------
def walk(rules: PuzzleRules, data: dict, max_depth: int | None = None) -> Iterator[tuple[int, Any]]:
    """Depth-first, canonical order, lazily: yields ``(depth, state)`` for every node.

    Only the current path of child iterators is kept in memory.
    """
    root = rules.root(data)
    yield 0, root
    stack = [iter(rules.children(data, root))]
    while stack:
        nxt = next(stack[-1], None)
        if nxt is None:
            stack.pop()
            continue
        child = nxt[1]
        depth = len(stack)
        yield depth, child
        if max_depth is None or depth < max_depth:
            stack.append(iter(rules.children(data, child)))


@dataclass
class TreeStats:
    """Counts of a fully built tree (the numbers of docs/specs/finereason.md §9); ``by_depth`` maps a
    depth to its ``[nodes, solvable nodes]``."""

    by_depth: dict[int, list[int]] = field(default_factory=dict)
    nodes: int = 0
    solvable: int = 0
    unsolvable: int = 0
    dead_ends: int = 0
    solvable_with_unsolvable_child: int = 0

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def label_tree(rules: PuzzleRules, data: dict, max_depth: int | None = None,
               max_nodes: int = 5_000_000) -> tuple[TreeStats, list[tuple[int, Any, bool]]]:
    """The plain labelling: build the tree and label it bottom-up (no oracle).

    A node is Solvable iff it is a solution or one of its children is Solvable. Returns the
    counts and every node as ``(depth, state, solvable)`` in depth-first order. With
    ``max_depth`` the nodes at that depth are labelled by the oracle instead (the Game of 24
    counts of docs/specs/finereason.md §9 stop at depth 3). Raises ConfigError past ``max_nodes``.
    """
    nodes: list[list] = []  # [depth, state, solvable]
    stats = TreeStats()

    def visit(depth: int, state: Any) -> bool:
        if len(nodes) >= max_nodes:
            raise ConfigError(f"{rules.name} tree has more than max_nodes={max_nodes} nodes")
        rec = [depth, state, False]
        nodes.append(rec)
        if max_depth is not None and depth == max_depth:
            ok = rules.solvable(data, state)
            kids_labels = None
        else:
            kids = rules.children(data, state)
            kids_labels = [visit(depth + 1, c) for _, c in kids]
            ok = any(kids_labels) or rules.is_solution(data, state)
        rec[2] = ok
        stats.nodes += 1
        per = stats.by_depth.setdefault(depth, [0, 0])
        per[0] += 1
        if ok:
            stats.solvable += 1
            per[1] += 1
            if kids_labels is not None and not all(kids_labels):
                stats.solvable_with_unsolvable_child += 1
        else:
            stats.unsolvable += 1
        if kids_labels is not None and not kids_labels and not rules.is_complete(data, state):
            stats.dead_ends += 1
        return ok

    import sys

    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 10_000))
    try:
        visit(0, rules.root(data))
    finally:
        sys.setrecursionlimit(old)
    return stats, [tuple(n) for n in nodes]


# ---- sampling (docs/specs/finereason.md §4) --------------------------------------------------------------------------
UNSOLVABLE_MODES = ("first_wrong_step", "any")


def _choice(rng: np.random.Generator, seq: list):
    return seq[int(rng.integers(len(seq)))]


def sample_path(rules: PuzzleRules, data: dict, rng: np.random.Generator, label: str, depth: int,
                unsolvable_mode: str, require_explored_child: bool = True) -> list[tuple[Any, Any]] | None:
    """One root-to-node path ending at a node of ``label`` at ``depth``, or None (dead try).

    Solvable: descend along random solvable children; the end must have an unsolvable child.
    Unsolvable, ``first_wrong_step``: solvable down to ``depth - 1`` then one unsolvable child;
    ``any``: leave the solvable path at a random depth, then descend at random in the dead
    subtree. With ``require_explored_child`` the end must have a child (no dead end).
    Path entries are ``(move_tag, state)``; the root's tag is None.
    """
    path = [(None, rules.root(data))]
    if label == UNSOLVABLE:
        leave = depth - 1 if unsolvable_mode == "first_wrong_step" else int(rng.integers(0, depth))
    else:
        leave = depth
    while len(path) - 1 < depth:
        d = len(path) - 1
        kids = rules.children(data, path[-1][1])
        if not kids:
            return None
        if d < leave:
            pool = [kc for kc in kids if rules.solvable(data, kc[1])]
        elif d == leave:
            pool = [kc for kc in kids if not rules.solvable(data, kc[1])]
        else:
            pool = kids  # inside a dead subtree every node is unsolvable
        if not pool:
            return None
        path.append(_choice(rng, pool))
    end = path[-1][1]
    if rules.is_complete(data, end):
        return None
    kids = rules.children(data, end)
    if label == SOLVABLE:
        if not rules.solvable(data, end) or all(rules.solvable(data, c) for _, c in kids):
            return None
        # a solvable state must offer a solvable move that changes what the model writes (a grid
        # whose only solvable children confirm an already-true clue has no such move)
        if not any(rules.solvable(data, c) and rules.visible(c) != rules.visible(end) for _, c in kids):
            return None
    elif require_explored_child and not kids:
        return None
    return path


def explored_child(rules: PuzzleRules, data: dict, state: Any) -> tuple[Any, Any] | None:
    """The first unsolvable child in canonical order (docs/specs/finereason.md §1), as ``(move_tag, child)``."""
    for tag, child in rules.children(data, state):
        if not rules.solvable(data, child):
            return tag, child
    return None


def sample_item(rules: PuzzleRules, data: dict, rng: np.random.Generator, label: str,
                depth: int | None = None, unsolvable_mode: str | None = None,
                require_explored_child: bool = True, max_tries: int = 200) -> dict | None:
    """An item (docs/specs/finereason.md §4): the path to ``current``, the true labels, the explored child.

    ``depth=None`` draws the depth uniformly among the feasible depths on every try. Returns
    None when no node of that kind was found in ``max_tries`` random descents.
    """
    mode = unsolvable_mode or rules.unsolvable_mode
    depths = rules.label_depths(data, label, mode, require_explored_child)
    if depths is None:
        depths = rules.feasible_depths(data)
    if not depths or (depth is not None and int(depth) not in depths):
        return None
    for _ in range(max_tries):
        d = int(depth) if depth is not None else int(_choice(rng, depths))
        path = sample_path(rules, data, rng, label, d, mode, require_explored_child)
        if path is None:
            continue
        current = path[-1][1]
        ex = explored_child(rules, data, current)
        return {
            "path": [rules.visible(s) for _, s in path],
            "path_tags": [t for t, _ in path],
            "path_labels": [SOLVABLE if rules.solvable(data, s) else UNSOLVABLE for _, s in path],
            "state": current,
            "label": label,
            "depth": d,
            "explored": None if ex is None else rules.visible(ex[1]),
            "explored_tag": None if ex is None else ex[0],
        }
    return None
