"""Blocks World (planning spec §2.4)."""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, ClassVar

import numpy as np

from ...core.errors import ConfigError, ParseError, check_int
from ...core.instance import Instance
from ...solvers.planning import (
    blocks_interleaved,
    blocks_interleaved_moves,
    blocks_interleaved_optimal_length,
    blocks_search,
)
from . import moves as mv
from .base import PlanningTask, bucket_presets, move_top, stack_move_reason

REASONS = ("bad_stack", "same_stack", "empty_stack", "unknown_block", "not_top_block")
_BLOCK_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,15}")
#: above this many blocks, optimal search for a custom instance needs allow_slow_search (spec §2.4)
SEARCH_LIMIT = 12


def _freeze(stacks) -> tuple:
    return tuple(tuple(s) for s in stacks)


@lru_cache(maxsize=256)
def _searched(initial: tuple, goal: tuple, allow_slow: bool) -> tuple | None:
    sol = blocks_search([list(s) for s in initial], [list(s) for s in goal], allow_slow_search=allow_slow)
    return None if sol is None else tuple(tuple(m) for m in sol)


class BlocksWorldTask(PlanningTask):
    """Blocks World: restack N blocks into a goal tower, one top block at a time.

    ## Description
    Blocks ``A``, ``B``, ... (``A1``, ``B1``, ... beyond 26) sit in ``n_stacks`` stacks listed
    bottom to top. A move takes the top block of one stack and puts it on top of another stack
    (an empty stack is fine). Generated instances follow the paper's interleaved family
    (planning spec §2.4): stack 0 holds the first N // 2 blocks, stack 1 the rest, and the goal
    builds one tower on stack 0 that alternates between the two original stacks read top down,
    e.g. N = 4: ``[A, B], [C, D], []`` -> ``[D, B, C, A]``. With 3 stacks the optimum is 1 for
    N = 1 and N + 2 (N // 2) - 1 otherwise. A custom start and goal can be replayed with
    ``reset(options={"instance": {"initial": [...], "goal": [...]}})``; its optimum comes
    from A* search (at most 12 blocks unless ``allow_slow_search=True``).

    ## Answer (``mode="answer"``, default)
    ``moves = [[block, from stack, to stack], ...]``, e.g. ``moves = [["C", 1, 2], ["B", 0, 1]]``;
    block names quoted or bare, stacks 0-based.

    ## Interactive (``mode="interactive"``)
    One move per step, e.g. ``["D", 1, 0]``. Reward 1 when the goal stacks are reached.

    ## Verdicts
    ``illegal_move`` reasons, in order of checking: ``bad_stack``, ``same_stack``,
    ``empty_stack``, ``unknown_block``, ``not_top_block``; otherwise ``solved``,
    ``incomplete``, ``parse_error``, ``truncated``.

    ## Arguments
    ``n`` (1..60 blocks) or ``difficulty``; ``n_stacks`` (3..6, default 3; with more than 3 stacks
    the optimum is searched, so N <= 12); ``allow_slow_search``; ``algorithm_hint`` (adds the
    §2.4 construction, 3 stacks only); ``stepwise``.

    ## Difficulty presets
    ``easy`` N in 2..7, ``medium`` N in 8..20, ``hard`` N in 21..50 (the paper's simple /
    moderate / complex buckets), ``paper`` N drawn from {2..10, 15, 20, 25, 30, 40, 50}, fixed
    ``n4``, ``n6``, ``n10``. Default: ``n6`` (a fixed size keeps the structured wrapper's spaces fixed).

    ## Version history
    * v0: first version.
    """

    family = "blocks_world"
    puzzle = "Blocks World"
    max_n = 60
    size_names = ("n", "n_stacks", "n_choices")
    flag_names: ClassVar[tuple[str, ...]] = ("algorithm_hint", "stepwise", "allow_slow_search")
    difficulties: ClassVar[dict[str, dict]] = {
        **bucket_presets({"easy": (2, 7), "medium": (8, 20), "hard": (21, 50)}, {"n4": 4, "n6": 6, "n10": 10}),
        "paper": {"n_choices": [2, 3, 4, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50]},
    }
    default_difficulty = "n6"
    answer_format = "moves = [[block, from stack, to stack], ...]"
    move_format = '[block, from stack, to stack], e.g. ["C", 1, 2]'

    # ---- parameters and instances -----------------------------------------------------------
    def validate_params(self, params: dict) -> dict:
        params = super().validate_params(params)
        params["n_stacks"] = check_int("n_stacks", params.get("n_stacks", 3), 3, 6)
        if params["n_stacks"] != 3 and not params.get("allow_slow_search"):
            top = params.get("n") or max((params.get("n_range") or [0, 0])[1], max(params.get("n_choices") or [0]))
            if top > SEARCH_LIMIT:
                raise ConfigError(f"n_stacks={params['n_stacks']} needs a search for the optimum, so n must be "
                                  f"at most {SEARCH_LIMIT} (got {top}); use n_stacks=3 or allow_slow_search=True")
        return params

    def build(self, n: int, params: dict) -> dict:
        initial, goal = blocks_interleaved(n, params.get("n_stacks", 3))
        return {"n": n, "n_stacks": len(initial), "initial": initial, "goal": goal}

    def load(self, obj: Any) -> Instance:
        """Also reads ``{"initial": [[...], ...], "goal": [[...], ...]}`` (stacks bottom to top)."""
        if isinstance(obj, dict) and "family" not in obj and "initial" in obj:
            return self.custom(obj["initial"], obj.get("goal"), allow_slow_search=bool(obj.get("allow_slow_search")))
        return super().load(obj)

    def custom(self, initial, goal, allow_slow_search: bool = False) -> Instance:
        """An instance with a user-given start and goal (validated)."""
        if not isinstance(initial, list) or not isinstance(goal, list) or len(initial) != len(goal):
            raise ConfigError("initial and goal must be lists of stacks of the same length")
        if not 1 <= len(initial) <= 10:
            raise ConfigError(f"{len(initial)} stacks is outside the valid range 1..10")
        for stacks in (initial, goal):
            for s in stacks:
                if not isinstance(s, list) or not all(isinstance(b, str) and _BLOCK_NAME.fullmatch(b) for b in s):
                    raise ConfigError(f"stack {s!r} is not a list of block names (letters and digits)")
        a = sorted(b for s in initial for b in s)
        if len(set(a)) != len(a) or a != sorted(b for s in goal for b in s):
            raise ConfigError("initial and goal must hold the same blocks, each exactly once")
        if len(a) > SEARCH_LIMIT and not allow_slow_search:
            raise ConfigError(f"a custom instance with {len(a)} blocks (more than {SEARCH_LIMIT}) needs "
                              "allow_slow_search=True")
        params = {"allow_slow_search": True} if allow_slow_search else {}
        return Instance(self.family, {"n": len(a), "n_stacks": len(initial), "initial": initial, "goal": goal},
                        params=params)

    def _is_interleaved(self, instance: Instance) -> bool:
        d = instance.data
        if d["n_stacks"] != 3:
            return False
        initial, goal = blocks_interleaved(d["n"], 3)
        return initial == d["initial"] and goal == d["goal"]

    def _search(self, instance: Instance):
        d = instance.data
        return _searched(_freeze(d["initial"]), _freeze(d["goal"]), bool(instance.params.get("allow_slow_search")))

    def initial_state(self, instance: Instance) -> tuple:
        return _freeze(instance.data["initial"])

    def goal_state(self, instance: Instance) -> tuple:
        return _freeze(instance.data["goal"])

    def optimal_length(self, instance: Instance) -> int | None:
        if self._is_interleaved(instance):
            return blocks_interleaved_optimal_length(instance.data["n"])
        sol = self._search(instance)
        return None if sol is None else len(sol)

    def solve(self, instance: Instance) -> list:
        if self._is_interleaved(instance):
            return blocks_interleaved_moves(instance.data["n"])
        sol = self._search(instance)
        if sol is None:
            raise ConfigError("this Blocks World instance has no solution within the search limit")
        return [list(m) for m in sol]

    # ---- rules (§2.4, checks in order) ------------------------------------------------------
    def check_move(self, instance: Instance, state: tuple, move: list) -> str | None:
        block, src, dst = move
        reason = stack_move_reason(state, src, dst, ("bad_stack", "same_stack", "empty_stack"))
        if reason is not None:
            return reason
        if not any(block in st for st in state):
            return "unknown_block"
        if state[src][-1] != block:
            return "not_top_block"
        return None

    def apply(self, instance: Instance, state: tuple, move: list) -> tuple:
        return move_top(state, move[1], move[2])

    def coerce_move(self, value: Any) -> list:
        if not isinstance(value, list) or len(value) != 3 or not isinstance(value[0], str):
            raise ParseError(f"a Blocks World move is [block, from, to], got {str(value)[:60]}", "malformed_move")
        return [value[0].strip(), mv.as_int(value[1]), mv.as_int(value[2])]

    def is_single_move(self, value: Any) -> bool:
        return isinstance(value, list) and len(value) == 3 and isinstance(value[0], str)

    # ---- structured wrapper -----------------------------------------------------------------
    def _names(self, instance: Instance) -> list[str]:
        return sorted(b for s in instance.data["initial"] for b in s)

    def move_catalog(self, instance: Instance) -> list:
        """Every (block, from, to) with from != to: N S (S - 1) moves."""
        s = instance.data["n_stacks"]
        return [[b, i, j] for b in self._names(instance) for i in range(s) for j in range(s) if i != j]

    def encode_state(self, instance: Instance, state: tuple) -> np.ndarray:
        """Per block: one-hot stack, then height / N: N (S + 1) floats."""
        names = self._names(instance)
        s, n = instance.data["n_stacks"], len(names)
        index = {b: i for i, b in enumerate(names)}
        vec = np.zeros(n * (s + 1), np.float32)
        for si, stack in enumerate(state):
            for h, b in enumerate(stack):
                vec[index[b] * (s + 1) + si] = 1.0
                vec[index[b] * (s + 1) + s] = (h + 1) / max(1, n)
        return vec

    def legal_moves(self, instance: Instance, state: tuple) -> list:
        return [[state[i][-1], i, j] for i in range(len(state)) if state[i] for j in range(len(state)) if j != i]

    def cells(self, instance: Instance, state: tuple) -> list[list[int]]:
        names = self._names(instance)
        colour = {b: 2 + i % 12 for i, b in enumerate(names)}
        height = max(1, len(names))
        grid = [[0] * (2 * len(state)) for _ in range(height)] + [[1] * (2 * len(state))]
        for si, stack in enumerate(state):
            for h, b in enumerate(stack):
                grid[height - 1 - h][2 * si] = colour[b]
        return grid

    # ---- text -------------------------------------------------------------------------------
    def rules(self, instance: Instance) -> str:
        return ("You are solving a Blocks World puzzle. Labelled blocks are arranged in stacks, numbered from "
                "0; each stack is listed from bottom to top. Rules:\n"
                "1. Only the topmost block of a stack can be picked up.\n"
                "2. A move takes the top block of one stack and places it on top of another stack, which may "
                "be empty.\n"
                "3. One block moves at a time.\n"
                "Each move is written [block, from stack, to stack].")

    def example(self) -> tuple[str, list]:
        return ('The start is [["A", "B"], ["C"], []] and the goal is [["A"], ["B"], ["C"]].',
                [["C", 1, 2], ["B", 0, 1]])

    def render_state(self, instance: Instance, state: tuple) -> str:
        return "\n".join(f"Stack {i}: " + (", ".join(s) + " (top)" if s else "(empty)") for i, s in enumerate(state))

    def describe(self, instance: Instance) -> str:
        return (f"There are {instance.data['n']} blocks in {instance.data['n_stacks']} stacks.\n"
                f"Initial state:\n{self.render_state(instance, self.initial_state(instance))}\n"
                f"Goal state:\n{self.render_state(instance, self.goal_state(instance))}\n"
                "Find the shortest sequence of moves that transforms the initial state into the goal state.")

    def algorithm_hint(self, instance: Instance) -> str | None:
        if not self._is_interleaved(instance):
            return None
        return ("A procedure that solves this kind of instance optimally: move all blocks of stack 0 except "
                "its bottom block onto stack 1; move the bottom block of stack 0 to stack 2; move the blocks "
                "you just put on stack 1 over to stack 2; then, starting with stack 1, alternately take the top "
                "block of stack 1 and the top block of stack 2 and put it on stack 0 until both are empty.")
