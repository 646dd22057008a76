"""River Crossing (docs/specs/planning.md §2.3, §8.2)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from math import comb
from typing import Any, ClassVar

import numpy as np

from ...core.errors import ConfigError, ParseError, UnsolvableInstanceError, check_choice
from ...core.instance import Instance
from ...core.params import param
from ...core.task import rule_table
from .. import raster
from .base import BACKGROUND, PEG, PlanningParams, PlanningTask, bucket_presets, check_size
from .search.river import bank_unsafe_counts, river_counts, river_distance, river_distances, river_moves

AGENT, ACTOR, WATER, SAND = (214, 39, 40), (31, 119, 180), (170, 205, 240), (238, 226, 190)

K_SCHEDULES = ("paper", "solvable")
BOAT_SIDES = ("left", "right")
_PERSON = re.compile(r"([aA])_?(\d{1,6})")
#: direction words some models add inside a boat list; the direction is implied (docs/specs/planning.md §2.3)
_DIRECTION_WORDS = frozenset({"left", "right", "l", "r", "lr", "rl", "forward", "back", "backward", "return", "go",
                              "to_left", "to_right", "left_to_right", "right_to_left"})
#: the structured wrapper's catalogue lists every boat group; refuse sizes where it explodes
MAX_CATALOG = 20_000


def schedule_k(n: int, schedule: str) -> int:
    """Boat capacity of a k schedule (docs/specs/planning.md §3): ``paper`` 2 for N <= 3 else 3; ``solvable`` 2/3/4."""
    check_choice("k_schedule", schedule, K_SCHEDULES)
    if schedule == "paper":
        return 2 if n <= 3 else 3
    return 2 if n <= 3 else 3 if n <= 5 else 4


@lru_cache(maxsize=128)
def _people(n: int) -> tuple[str, ...]:
    """All 2N people in the order A_1, a_1, A_2, a_2, ..."""
    return tuple(p for i in range(1, n + 1) for p in (f"A_{i}", f"a_{i}"))


@lru_cache(maxsize=128)
def _everyone(n: int) -> frozenset:
    return frozenset(_people(n))


def solvable_choices(n: int) -> str:
    """The capacities that make N pairs solvable, in words (docs/specs/planning.md §2.3)."""
    if n <= 3:
        return "k >= 2"
    if n <= 5:
        return "k >= 3"
    return "k >= 4"


def group_unsafe(group) -> bool:
    """An actor without their own agent, next to some other agent (docs/specs/planning.md §2.3)."""
    agents, actors = set(), []
    for p in group:  # one pass: names are "A_i" (agent i) or "a_i" (actor i)
        if p[0] == "A":
            agents.add(p[2:])
        elif p[0] == "a":
            actors.append(p[2:])
    return bool(agents) and any(a not in agents for a in actors)


@dataclass(frozen=True)
class RiverParams(PlanningParams):
    n: int | None = param(None, kind=int, lo=1, hi=100, doc="actor/agent pairs N")
    k: int | None = param(None, kind=int, lo=1, hi=20, doc="boat capacity; default from k_schedule")
    k_schedule: str = param("paper", choices=K_SCHEDULES,
                            doc="k when not given: paper = 2 for N <= 3 else 3 (unsolvable from N = 6); "
                                "solvable = 2 / 3 / 4 for N <= 3 / 4..5 / >= 6")
    allow_unsolvable: bool = param(False, doc="build unsolvable (N, k) with solvable=False instead of refusing")
    accept_impossibility_claim: bool = param(False, prompt=True,
                                             doc="the answer 'moves = UNSOLVABLE' is right on unsolvable "
                                                 "instances (docs/specs/planning.md §8.2)")


class RiverCrossingTask(PlanningTask):
    """River Crossing: N actors and their N agents cross a river in a boat that holds k people.

    ## Description
    Actors ``a_1 .. a_N`` and agents ``A_1 .. A_N`` (case matters) start on the left bank with
    the boat; everyone must reach the right bank (docs/specs/planning.md §2.3). The boat carries 1..k
    people and never crosses empty; trips alternate left->right, right->left, ... An actor may
    never be with another agent while their own agent is absent: this holds on both banks and
    on the boat. Solvable iff (k = 2, N <= 3) or (k = 3, N <= 5) or k >= 4. With
    ``start="random"`` each pair starts in a random place (both left, both right, or split, with
    both banks safe) and the boat on a random bank, at least half the canonical optimum from the
    goal; the goal stays everyone on the right, and the optimum comes from the exact search over
    pair-type counts.

    ## Answer (``mode="answer"``, default)
    ``moves = [["A_2", "a_2"], ["A_2"], ...]``: one list of passengers per trip, no direction
    (it alternates). ``A1`` is read as ``A_1``. With ``accept_impossibility_claim=True`` the
    answer ``moves = UNSOLVABLE`` is right on unsolvable instances (docs/specs/planning.md §8.2).

    ## Interactive (``mode="interactive"``)
    One trip per step, e.g. ``["A_1", "a_1"]``; the boat's side says the direction.

    ## Verdicts
    ``illegal_move`` names the broken rule (below). A name that is no actor or agent is a parse
    error (``bad_token``). Otherwise ``solved``, ``incomplete`` (``goal_not_reached``),
    ``parse_error``, ``truncated``; a wrong impossibility claim is ``wrong``
    (``false_unsolvable_claim``). Unsolvable (N, k) raise ``UnsolvableInstanceError`` unless
    ``allow_unsolvable=True``; their instances carry ``solvable=False``.

    ## Version history
    * v0: first version; v0.2 makes the paper's k schedule the default, adds ``start="random"``,
      rule switches and progress-based partial credit.
    """

    family = "river_crossing"
    puzzle = "River Crossing"
    Params = RiverParams
    #: rules that no move can break alone and still leave the goal reachable (tested exhaustively)
    rules_never_alone = rule_table("", """
        unknown_person: nobody unknown waits on the boat's bank, so the move also fails not_on_boat_side
        unsafe_boat: an actor boarding with another agent left their own agent behind on a safe bank, so the bank the
                     boat reaches is unsafe too
    """)
    #: checked in this order; the base adds goal_not_reached last
    rule_codes = rule_table("", """
        unknown_person: every name is an actor a_i or an agent A_i with i in 1..N
        empty_boat: the boat carries at least one person
        duplicate_passenger: nobody is listed twice in one trip
        over_capacity: the boat carries at most k people
        not_on_boat_side: everyone in the boat starts on the bank where the boat is
        unsafe_boat: no actor is in the boat with another agent unless their own agent is there too
        unsafe_departure_bank: the same safety holds on the bank the boat leaves
        unsafe_arrival_bank: the same safety holds on the bank the boat reaches, its passengers included
    """)
    difficulties: ClassVar[dict[str, dict]] = {
        **bucket_presets({"easy": (1, 3), "medium": (4, 6), "hard": (7, 20), "solvable": (1, 20)},
                         k_schedule="solvable"),
        "paper": {"n_range": [1, 5], "k_schedule": "paper"},
        "n2": {"n": 2, "k": 2}, "n3": {"n": 3, "k": 2}, "n5": {"n": 5, "k": 3},
    }
    default_difficulty = "n3"
    answer_format = 'moves = [["A_2", "a_2"], ["A_2"], ...]'  # trips of one or two people
    move_fields = "a list of the people in the boat"
    move_example = '["A_1", "a_1"]'

    # ---- parameters -------------------------------------------------------------------------
    def validate_params(self, params: dict) -> dict:
        params = super().validate_params(params)
        if params.get("n") is not None:
            self._check_solvable(params["n"], self._k(params["n"], params), params)
        return params

    def _k(self, n: int, params: dict) -> int:
        return params["k"] if params.get("k") is not None else schedule_k(n, params.get("k_schedule") or "paper")

    def _check_solvable(self, n: int, k: int, params: dict) -> bool:
        ok = river_distances(n, k).get((n, 0, 0, 0)) is not None
        if not ok and not params.get("allow_unsolvable"):
            hint = "" if params.get("k") is not None else ", or k_schedule='solvable'"
            raise UnsolvableInstanceError(
                f"River Crossing with N={n}, k={k} has no solution; solvable choices for N={n}: "
                f"{solvable_choices(n)} (or pass allow_unsolvable=True{hint})")
        return ok

    def build(self, n: int, params: dict, rng: np.random.Generator) -> dict:
        k = self._k(n, params)
        solvable = self._check_solvable(n, k, params)
        left, boat = list(self.people(n)), "left"
        if params.get("start") == "random" and solvable:
            left, boat = self._random_start(n, k, rng)
        return {"n": n, "k": k, "solvable": solvable, "initial_left": left, "boat": boat}

    def _random_start(self, n: int, k: int, rng: np.random.Generator) -> tuple[list[str], str]:
        """A count state drawn uniformly among those at least half the canonical optimum from the
        goal (every state of the search has both banks safe), its pair types dealt to random pairs.
        """
        dist = river_distances(n, k)
        floor = max(1, (dist[(n, 0, 0, 0)] + 1) // 2)
        states = sorted(s for s, d in dist.items() if d >= floor)
        nll, nlr, nrl, boat = states[int(rng.integers(len(states)))]
        kinds = [0] * nll + [2] * nlr + [3] * nrl + [1] * (n - nll - nlr - nrl)
        kinds = [kinds[i] for i in rng.permutation(n)]  # 0 both left, 1 both right, 2 agent left, 3 actor left
        left = [p for i, kind in enumerate(kinds, 1)
                for p in ((f"A_{i}", f"a_{i}") if kind == 0 else (f"A_{i}",) if kind == 2
                          else (f"a_{i}",) if kind == 3 else ())]
        return left, BOAT_SIDES[boat]

    def given_state(self, obj: dict) -> tuple[dict, dict] | None:
        """Reads ``{"n": 3, "k": 2, "initial_left": [...], "boat": "right"}``."""
        if "initial_left" not in obj:
            return None
        params = self.resolve_params(**{k: v for k, v in obj.items() if k not in ("initial_left", "boat")})
        n, k = params["n"], self._k(params["n"], params)
        data = {"n": n, "k": k, "solvable": True, "initial_left": obj["initial_left"], "boat": obj.get("boat", "left")}
        try:
            data["solvable"] = self._state_distance(n, k, data) is not None
        except (TypeError, AttributeError):
            pass  # validate_instance names the bad field
        return data, {k: v for k, v in params.items() if v is not None}

    def validate_instance(self, instance: Instance) -> None:
        super().validate_instance(instance)
        d = instance.data
        n = d["n"]
        k = check_size("k", d.get("k"), 20)
        people = d.get("initial_left")
        if not isinstance(people, list) or not all(isinstance(p, str) for p in people):
            raise ConfigError(f"initial_left must be a list of names such as 'A_1', got {str(people)[:80]}")
        bad = [p for p in people if p not in _everyone(n)]
        if bad or len(set(people)) != len(people):
            raise ConfigError(f"initial_left must name distinct people A_1..A_{n}, a_1..a_{n}; "
                              f"bad: {(bad or people)[:5]}")
        if d.get("boat") not in BOAT_SIDES:
            raise ConfigError(f"boat {d.get('boat')!r} is not one of: left, right")
        unsafe = bank_unsafe_counts(n, *river_counts(n, set(people)))
        if any(unsafe):
            raise ConfigError(f"initial_left puts an actor with another agent without their own on the "
                              f"{'left' if unsafe[0] else 'right'} bank")
        solvable = self._state_distance(n, k, d) is not None
        if d.get("solvable") is not solvable:
            raise ConfigError(f"solvable {d.get('solvable')!r} does not match the instance (it is {solvable})")
        if not solvable and not instance.params.get("allow_unsolvable"):
            raise UnsolvableInstanceError(f"River Crossing instance with N={n}, k={k} has no solution "
                                          "(pass allow_unsolvable=True to use it)")

    def _state_distance(self, n: int, k: int, data: dict) -> int | None:
        return river_distance(n, k, set(data["initial_left"]), BOAT_SIDES.index(data["boat"]))

    # ---- state ------------------------------------------------------------------------------
    @staticmethod
    def people(n: int) -> list[str]:
        return list(_people(n))

    def initial_state(self, instance: Instance) -> tuple:
        return (frozenset(instance.data["initial_left"]), BOAT_SIDES.index(instance.data["boat"]))

    def goal_state(self, instance: Instance) -> tuple:
        return (frozenset(), 1)

    def optimal_length(self, instance: Instance) -> int | None:
        d = instance.data
        return self._state_distance(d["n"], d["k"], d)

    def solve(self, instance: Instance) -> Any:
        left, boat = self.initial_state(instance)
        sol = river_moves(instance.data["n"], instance.data["k"], left, boat)
        return "UNSOLVABLE" if sol is None else sol

    def distance(self, instance: Instance, state: tuple) -> int | None:
        """Exact trips left, from the search over pair-type counts (search.river)."""
        left, boat = state
        if not left <= _everyone(instance.data["n"]):
            return None
        return river_distance(instance.data["n"], instance.data["k"], left, boat)

    def path_from(self, instance: Instance, state: tuple) -> list | None:
        left, boat = state
        if not left <= _everyone(instance.data["n"]):
            return None
        return river_moves(instance.data["n"], instance.data["k"], left, boat)

    unsafe = staticmethod(group_unsafe)

    # ---- rules (docs/specs/planning.md §2.3, checks in order) ------------------------------------------------------
    def check_move(self, instance: Instance, state: tuple, move: list) -> str | None:
        n, k = instance.data["n"], instance.data["k"]
        left, boat = state
        off = self._disabled_rules
        if "unknown_person" not in off and any(not 1 <= int(p[2:]) <= n for p in move):
            return "unknown_person"
        if "empty_boat" not in off and not move:
            return "empty_boat"
        group = set(move)
        if "duplicate_passenger" not in off and len(group) != len(move):
            return "duplicate_passenger"
        if "over_capacity" not in off and len(group) > k:
            return "over_capacity"
        everyone = _everyone(n)
        here = left if boat == 0 else everyone - left
        if "not_on_boat_side" not in off and not group <= here:
            return "not_on_boat_side"
        if "unsafe_boat" not in off and group_unsafe(group):
            return "unsafe_boat"
        if "unsafe_departure_bank" not in off and group_unsafe(here - group):
            return "unsafe_departure_bank"
        if "unsafe_arrival_bank" not in off and group_unsafe((everyone - here) | group):
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
                raise ParseError(f"{str(v)[:20]!r} is not a person (expected a name like A_1 or a_1)", "bad_token")
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

    # ---- near misses, structured wrapper ----------------------------------------------------
    def candidate_moves(self, instance: Instance, state: tuple) -> list:
        """Legal trips first, then groups of up to k + 1 of the first eight people on either bank,
        each legal trip with its first passenger twice, the empty trip and unknown people."""
        n, k = instance.data["n"], instance.data["k"]
        legal = self.legal_moves(instance, state)
        people = self.people(n)[:8]
        groups = [list(c) for r in range(1, min(k + 1, len(people)) + 1) for c in combinations(people, r)]
        extra = [m + m[:1] for m in legal] + [[], [f"A_{n + 1}"], [f"a_{n + 1}"], [f"A_{n + 1}", f"a_{n + 1}"]]
        return legal + groups + extra

    def move_catalog(self, instance: Instance) -> list:
        """Every group of 1..k people, in a fixed order (refused above 20,000 groups)."""
        people, k = self.people(instance.data["n"]), instance.data["k"]
        total = sum(comb(len(people), r) for r in range(1, min(k, len(people)) + 1))
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

    def picture(self, instance: Instance, state: tuple) -> tuple[np.ndarray, dict]:
        """Two banks with a river between them: pair i on row i, the agent A_i as a red square,
        the actor a_i as a blue disc, each on the bank where they are; the boat at its bank."""
        n = instance.data["n"]
        left, boat = state
        row = max(14, min(36, 900 // max(n, 1)))
        scale = 2 if row >= 28 else 1
        token = max(row - 4, raster.text_width("a_" + str(n), scale) + 8)
        bank_w, river_w, head = max(2 * token + 24, raster.text_width("right bank", 2) + 16), 120, 36
        width, height = 2 * bank_w + river_w + 20, head + n * row + 14
        img = np.full((height, width, 3), BACKGROUND, np.uint8)
        banks = (10, 10 + bank_w + river_w)
        raster.fill(img, (10 + bank_w, head - 6, 10 + bank_w + river_w, height - 8), WATER)
        for side, x0 in enumerate(banks):
            raster.fill(img, (x0, head - 6, x0 + bank_w, height - 8), SAND)
            raster.draw_text(img, ("left", "right")[side] + " bank", 16, x0 + bank_w / 2, 2, raster.INK)
        bx = 10 + bank_w + (8 if boat == 0 else river_w - 8 - 64)
        raster.fill(img, (bx, head + 2, bx + 64, head + 30), PEG)
        raster.draw_text(img, "boat", head + 16, bx + 32, 2, (255, 255, 255))
        places = {}
        for i in range(1, n + 1):
            y0 = head + (i - 1) * row + 2
            for j, name in enumerate((f"A_{i}", f"a_{i}")):
                x0 = banks[0 if name in left else 1] + 8 + j * (token + 8)
                box = (x0, y0, x0 + token, y0 + row - 4)
                if name[0] == "A":
                    raster.fill(img, box, AGENT)
                else:
                    raster.disc(img, x0 + token / 2, y0 + (row - 4) / 2, (row - 4) / 2, ACTOR)
                    raster.fill(img, (x0 + (row - 4) / 2, y0, x0 + token - (row - 4) / 2, y0 + row - 4), ACTOR)
                    raster.disc(img, x0 + token - (row - 4) / 2, y0 + (row - 4) / 2, (row - 4) / 2, ACTOR)
                raster.draw_text(img, name.replace("_", ""), y0 + (row - 4) / 2 + 1, x0 + token / 2, scale,
                                 (255, 255, 255), keep_case=True)
                places[("person", name)] = (x0 - 3, y0 - 2, x0 + token + 3, y0 + row - 2)
        return img, places

    def move_places(self, instance: Instance, move: Any) -> list:
        """The people in the refused trip."""
        return [("person", p) for p in move if isinstance(p, str)] if isinstance(move, (list, tuple)) else []

    # ---- text -------------------------------------------------------------------------------
    def rules(self, instance: Instance) -> str:
        side = instance.data.get("boat", "left")
        first, second = ("left to right", "right to left") if side == "left" else ("right to left", "left to right")
        return ("You are solving a River Crossing puzzle. N actors a_1, ..., a_N and their N agents "
                "A_1, ..., A_N must all end on the right bank of a river. Names are "
                "case-sensitive: a_1 is an actor, A_1 is an agent. Rules:\n"
                "1. The boat holds at least one and at most k people, and it never crosses empty.\n"
                f"2. The boat starts on the {side} bank; trips alternate: the 1st, 3rd, 5th ... go from {first} "
                f"and the 2nd, 4th ... go back from {second}.\n"
                "3. Safety: no actor may be in the presence of another agent unless the actor's own agent is "
                "also there. This applies on each bank and in the boat, and the people in the boat count as "
                "being on the bank where the boat lands.\n"
                "Each trip is written as the list of people in the boat, without a direction.")

    def example(self) -> tuple[str, list]:
        return ("With N = 2 pairs and a boat for k = 2 people, everyone starts on the left bank.",
                [["A_2", "a_2"], ["A_2"], ["A_1", "A_2"], ["A_1"], ["A_1", "a_1"]])

    def other_examples(self) -> list[tuple[str, list]]:
        return [("With N = 2 pairs and a boat for k = 3 people, everyone starts on the left bank.",
                 [["a_1", "a_2"], ["a_1"], ["A_1", "a_1", "A_2"]]),
                ("With N = 1 pair and a boat for k = 2 people, everyone starts on the left bank.",
                 [["A_1", "a_1"]])]

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
        names = (f"N = {n}: actors {', '.join(f'a_{i}' for i in range(1, n + 1))} and agents "
                 f"{', '.join(f'A_{i}' for i in range(1, n + 1))}. The boat holds at most k = {k} people.\n")
        left, boat = self.initial_state(instance)
        if left == _everyone(n) and boat == 0:
            start = "Everyone and the boat start on the left bank; everyone must end on the right bank. "
        else:
            start = (f"At the start:\n{self.render_state(instance, (left, boat))}\n"
                     "Everyone must end on the right bank. ")
        return (names + start +
                "No actor may be with another agent unless their own agent is present, on either bank and "
                "in the boat, and the boat never crosses empty.\n"
                "Find a sequence of boat trips that brings everyone safely to the right bank.")
