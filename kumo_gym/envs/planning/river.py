"""River Crossing (planning spec §2.3, §8.2)."""
from __future__ import annotations

import re
from functools import lru_cache
from itertools import combinations
from typing import Any, ClassVar

import numpy as np

from ...core.errors import ConfigError, ParseError, UnsolvableInstanceError, check_choice, check_int
from ...core.instance import Instance
from ...solvers.planning import river_moves, river_optimal_length
from .base import PlanningTask, bucket_presets

REASONS = ("unknown_person", "empty_boat", "duplicate_passenger", "over_capacity", "not_on_boat_side",
           "unsafe_boat", "unsafe_departure_bank", "unsafe_arrival_bank")
K_SCHEDULES = ("paper", "solvable")
_PERSON = re.compile(r"([aA])_?(\d{1,6})")
#: direction words some models add inside a boat list; the direction is implied (spec §2.3)
_DIRECTION_WORDS = frozenset({"left", "right", "l", "r", "lr", "rl", "forward", "back", "backward", "return", "go",
                              "to_left", "to_right", "left_to_right", "right_to_left"})
#: the structured wrapper's catalogue lists every boat group; refuse sizes where it explodes
MAX_CATALOG = 20_000


def schedule_k(n: int, schedule: str) -> int:
    """Boat capacity of a k schedule (spec §3): ``paper`` 2 for N <= 3 else 3; ``solvable`` 2/3/4."""
    check_choice("k_schedule", schedule, K_SCHEDULES)
    if schedule == "paper":
        return 2 if n <= 3 else 3
    return 2 if n <= 3 else 3 if n <= 5 else 4


@lru_cache(maxsize=512)
def _optimum(n: int, k: int) -> int | None:
    return river_optimal_length(n, k)


@lru_cache(maxsize=128)
def _people(n: int) -> tuple[str, ...]:
    """All 2N people in the order A_1, a_1, A_2, a_2, ..."""
    return tuple(p for i in range(1, n + 1) for p in (f"A_{i}", f"a_{i}"))


@lru_cache(maxsize=128)
def _everyone(n: int) -> frozenset:
    return frozenset(_people(n))


def solvable_choices(n: int) -> str:
    """The capacities that make N pairs solvable, in words (spec §2.3)."""
    if n <= 3:
        return "k >= 2"
    if n <= 5:
        return "k >= 3"
    return "k >= 4"


class RiverCrossingTask(PlanningTask):
    """River Crossing: N actors and their N agents cross a river in a boat that holds k people.

    ## Description
    Actors ``a_1 .. a_N`` and agents ``A_1 .. A_N`` (case matters) start on the left bank with
    the boat; everyone must reach the right bank (planning spec §2.3). The boat carries 1..k
    people and never crosses empty; trips alternate left->right, right->left, ... An actor may
    never be with another agent while their own agent is absent: this holds on both banks and
    on the boat. Solvable iff (k = 2, N <= 3) or (k = 3, N <= 5) or k >= 4.

    ## Answer (``mode="answer"``, default)
    ``moves = [["A_2", "a_2"], ["A_2"], ...]``: one list of passengers per trip, no direction
    (it alternates). ``A1`` is read as ``A_1``. With ``accept_impossibility_claim=True`` the
    answer ``moves = UNSOLVABLE`` is right on unsolvable instances (spec §8.2).

    ## Interactive (``mode="interactive"``)
    One trip per step, e.g. ``["A_1", "a_1"]``; the boat's side says the direction.

    ## Verdicts
    ``illegal_move`` reasons, in order of checking: ``unknown_person``, ``empty_boat``,
    ``duplicate_passenger``, ``over_capacity``, ``not_on_boat_side``, ``unsafe_boat``,
    ``unsafe_departure_bank``, ``unsafe_arrival_bank``. A name that is no actor or agent is a
    parse error (``bad_token``). Otherwise ``solved``, ``incomplete``, ``parse_error``,
    ``truncated``; a wrong impossibility claim is ``wrong`` (``false_unsolvable_claim``).

    ## Arguments
    ``n`` (1..100 pairs) or ``difficulty``; ``k`` (boat capacity; default from ``k_schedule``,
    ``paper`` = 2 for N <= 3 else 3, or ``solvable`` = 2 / 3 / 4 for N <= 3 / 4..5 / >= 6);
    ``allow_unsolvable`` (otherwise an unsolvable (N, k) raises ``UnsolvableInstanceError``;
    when allowed, ``info``/verdict details carry ``solvable=False``);
    ``accept_impossibility_claim``; ``algorithm_hint``; ``stepwise``.

    ## Difficulty presets
    ``easy`` N in 1..3, ``medium`` N in 4..6, ``hard`` N in 7..20 (all with the ``solvable``
    schedule); ``paper`` N in 1..5 with the paper's schedule (N >= 6 with k = 3 is unsolvable);
    ``solvable`` N in 1..20; fixed ``n2`` (k = 2), ``n3`` (k = 2), ``n5`` (k = 3). Default: ``n3`` (a fixed size keeps the structured wrapper's spaces fixed).

    ## Version history
    * v0: first version.
    """

    family = "river_crossing"
    puzzle = "River Crossing"
    max_n = 100
    size_names = ("n", "k", "k_schedule")
    difficulties: ClassVar[dict[str, dict]] = {
        **bucket_presets({"easy": (1, 3), "medium": (4, 6), "hard": (7, 20), "solvable": (1, 20)},
                         k_schedule="solvable"),
        "paper": {"n_range": [1, 5], "k_schedule": "paper"},
        "n2": {"n": 2, "k": 2}, "n3": {"n": 3, "k": 2}, "n5": {"n": 5, "k": 3},
    }
    default_difficulty = "n3"
    answer_format = 'moves = [["A_2", "a_2"], ["A_2"], ...]'
    move_format = 'a list of the people in the boat, e.g. ["A_1", "a_1"]'
    flag_names: ClassVar[tuple[str, ...]] = ("algorithm_hint", "stepwise", "allow_unsolvable",
                                             "accept_impossibility_claim")

    # ---- parameters -------------------------------------------------------------------------
    def validate_params(self, params: dict) -> dict:
        params = super().validate_params(params)
        params.setdefault("k_schedule", "solvable" if params.get("k") is None else None)
        if params.get("k_schedule") is not None:
            check_choice("k_schedule", params["k_schedule"], K_SCHEDULES)
        if params.get("k") is not None:
            params["k"] = check_int("k", params["k"], 1, 1000)
        if params.get("n") is not None:
            self._check_solvable(params["n"], self._k(params["n"], params), params)
        return params

    def _k(self, n: int, params: dict) -> int:
        return params["k"] if params.get("k") is not None else schedule_k(n, params.get("k_schedule") or "solvable")

    def _check_solvable(self, n: int, k: int, params: dict) -> bool:
        ok = _optimum(n, k) is not None
        if not ok and not params.get("allow_unsolvable"):
            raise UnsolvableInstanceError(
                f"River Crossing with N={n}, k={k} has no solution; solvable choices for N={n}: "
                f"{solvable_choices(n)} (or pass allow_unsolvable=True)")
        return ok

    def build(self, n: int, params: dict) -> dict:
        k = self._k(n, params)
        solvable = self._check_solvable(n, k, params)
        return {"n": n, "k": k, "solvable": solvable, "initial_left": self.people(n), "boat": "left"}

    def load(self, obj: Any) -> Instance:
        if isinstance(obj, dict) and "family" not in obj and "k" in obj:
            params = self.validate_params(dict(obj))
            return Instance(self.family, self.build(params["n"], params), params=params)
        return super().load(obj)

    # ---- state ------------------------------------------------------------------------------
    @staticmethod
    def people(n: int) -> list[str]:
        return list(_people(n))

    def initial_state(self, instance: Instance) -> tuple:
        return (frozenset(instance.data["initial_left"]), 0)

    def goal_state(self, instance: Instance) -> tuple:
        return (frozenset(), 1)

    def optimal_length(self, instance: Instance) -> int | None:
        return _optimum(instance.data["n"], instance.data["k"])

    def solve(self, instance: Instance) -> Any:
        sol = river_moves(instance.data["n"], instance.data["k"])
        if sol is None:
            return "UNSOLVABLE"
        return sol

    @staticmethod
    def unsafe(group) -> bool:
        """An actor without their own agent, next to some other agent (spec §2.3)."""
        agents = {p[2:] for p in group if p[0] == "A"}
        if not agents:
            return False
        return any(p[0] == "a" and p[2:] not in agents for p in group)

    # ---- rules (§2.3, checks in order) ------------------------------------------------------
    def check_move(self, instance: Instance, state: tuple, move: list) -> str | None:
        n, k = instance.data["n"], instance.data["k"]
        left, boat = state
        if any(not 1 <= int(p[2:]) <= n for p in move):
            return "unknown_person"
        if not move:
            return "empty_boat"
        group = set(move)
        if len(group) != len(move):
            return "duplicate_passenger"
        if len(move) > k:
            return "over_capacity"
        everyone = _everyone(n)
        here = left if boat == 0 else everyone - left
        if not group <= here:
            return "not_on_boat_side"
        if self.unsafe(group):
            return "unsafe_boat"
        if self.unsafe(here - group):
            return "unsafe_departure_bank"
        if self.unsafe((everyone - here) | group):
            return "unsafe_arrival_bank"
        return None

    def apply(self, instance: Instance, state: tuple, move: list) -> tuple:
        left, boat = state
        return (left - set(move), 1) if boat == 0 else (left | set(move), 0)

    def coerce_move(self, value: Any) -> list:
        if not isinstance(value, list) or any(isinstance(v, list) for v in value):
            raise ParseError(f"a boat trip is a list of names, got {str(value)[:60]}", "malformed_move")
        out = []
        for v in value:
            if not isinstance(v, str):
                raise ParseError(f"{v!r} is not a person (expected a name like A_1 or a_1)", "bad_token")
            text = v.strip()
            m = _PERSON.fullmatch(text)
            if m is None:
                if text.lower() in _DIRECTION_WORDS:
                    continue
                raise ParseError(f"{text[:20]!r} is not an actor (a_i) or agent (A_i)", "bad_token")
            out.append(f"{m.group(1)}_{int(m.group(2))}")
        return out

    def is_single_move(self, value: Any) -> bool:
        return isinstance(value, list) and bool(value) and all(isinstance(v, str) for v in value)

    # ---- structured wrapper -----------------------------------------------------------------
    def move_catalog(self, instance: Instance) -> list:
        """Every group of 1..k people, in a fixed order (refused above 20,000 groups)."""
        people, k = self.people(instance.data["n"]), instance.data["k"]
        total = sum(_comb(len(people), r) for r in range(1, min(k, len(people)) + 1))
        if total > MAX_CATALOG:
            raise ConfigError(f"River Crossing N={instance.data['n']}, k={k} has {total} boat groups; "
                              f"the structured catalogue allows at most {MAX_CATALOG}")
        return [list(c) for r in range(1, min(k, len(people)) + 1) for c in combinations(people, r)]

    def encode_state(self, instance: Instance, state: tuple) -> np.ndarray:
        """Side of every person (1 = right bank), then the boat's side: 2N + 1 floats."""
        left, boat = state
        people = self.people(instance.data["n"])
        return np.array([0.0 if p in left else 1.0 for p in people] + [float(boat)], np.float32)

    def legal_moves(self, instance: Instance, state: tuple) -> list:
        left, boat = state
        people = self.people(instance.data["n"])
        here = [p for p in people if (p in left) == (boat == 0)]
        k = instance.data["k"]
        return [list(c) for r in range(1, min(k, len(here)) + 1) for c in combinations(here, r)
                if self.check_move(instance, state, list(c)) is None]

    def cells(self, instance: Instance, state: tuple) -> list[list[int]]:
        """Row 0 = left bank, row 2 = right bank; agents red, actors blue; the boat in column 0."""
        left, boat = state
        people = self.people(instance.data["n"])
        rows = [[0] * (len(people) + 2) for _ in range(3)]
        rows[1] = [1] * (len(people) + 2)
        rows[0 if boat == 0 else 2][0] = 4
        for i, p in enumerate(people):
            rows[0 if p in left else 2][i + 2] = 2 if p[0] == "A" else 3
        return rows

    # ---- text -------------------------------------------------------------------------------
    def rules(self, instance: Instance) -> str:
        return ("You are solving a River Crossing puzzle. N actors a_1, ..., a_N and their N agents "
                "A_1, ..., A_N must all cross from the left bank to the right bank of a river. Names are "
                "case-sensitive: a_1 is an actor, A_1 is an agent. Rules:\n"
                "1. The boat holds at least one and at most k people, and it never crosses empty.\n"
                "2. The boat starts on the left bank; trips alternate: the 1st, 3rd, 5th ... go from left to "
                "right and the 2nd, 4th ... go back from right to left.\n"
                "3. Safety: no actor may be in the presence of another agent unless the actor's own agent is "
                "also there. This applies on each bank and in the boat, and the people in the boat count as "
                "being on the bank where the boat lands.\n"
                "Each trip is written as the list of people in the boat, without a direction.")

    def example(self) -> tuple[str, list]:
        return ("With N = 2 pairs and a boat for k = 2 people, everyone starts on the left bank.",
                [["A_2", "a_2"], ["A_2"], ["A_1", "A_2"], ["A_1"], ["A_1", "a_1"]])

    def system_prompt(self, instance: Instance) -> str:
        text = super().system_prompt(instance) + "\n\nDo not write comments inside the move list."
        if instance.params.get("accept_impossibility_claim"):
            text += ("\nIf you are certain that no sequence of trips solves the instance, answer exactly "
                     "moves = UNSOLVABLE instead.")
        return text

    def render_state(self, instance: Instance, state: tuple) -> str:
        left, boat = state
        people = self.people(instance.data["n"])
        lb = [p for p in people if p in left]
        rb = [p for p in people if p not in left]
        return (f"Left bank: {', '.join(lb) if lb else '(nobody)'}\n"
                f"Right bank: {', '.join(rb) if rb else '(nobody)'}\n"
                f"Boat: at the {'left' if boat == 0 else 'right'} bank")

    def describe(self, instance: Instance) -> str:
        n, k = instance.data["n"], instance.data["k"]
        return (f"N = {n}: actors {', '.join(f'a_{i}' for i in range(1, n + 1))} and agents "
                f"{', '.join(f'A_{i}' for i in range(1, n + 1))}. The boat holds at most k = {k} people.\n"
                "Everyone and the boat start on the left bank; everyone must end on the right bank. "
                "No actor may be with another agent unless their own agent is present, on either bank and "
                "in the boat, and the boat never crosses empty.\n"
                "Find a sequence of boat trips that brings everyone safely to the right bank.")


def _comb(n: int, r: int) -> int:
    from math import comb

    return comb(n, r)
