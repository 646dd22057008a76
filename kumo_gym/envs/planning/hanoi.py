"""Tower of Hanoi (docs/specs/planning.md §2.1)."""
from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import numpy as np

from ...core.errors import ConfigError, ParseError
from ...core.instance import Instance
from ...core.params import param
from ...core.task import rule_table
from .. import raster
from . import moves as mv
from .base import BACKGROUND, GROUND, HUES, PEG, PlanningParams, StackTask, bucket_presets, check_stacks
from .search.hanoi import hanoi_distance, hanoi_moves, hanoi_path, hanoi_pegs, hanoi_positions, hanoi_run

#: answers at least this long are checked by the compiled kernel when they were read as an array
KERNEL_FROM = 50_000


@dataclass(frozen=True)
class HanoiParams(PlanningParams):
    n: int | None = param(None, kind=int, lo=1, hi=20, doc="number of disks N")


class HanoiTask(StackTask):
    """Tower of Hanoi: move a tower of N disks from peg 0 to peg 2.

    ## Description
    Three pegs (0, 1, 2); disks 1 (smallest) to N start on peg 0, largest at the bottom. Move
    one top disk at a time, never onto a smaller disk, until the tower stands on peg 2
    (docs/specs/planning.md §2.1). The optimum is 2^N - 1 moves and the optimal solution is unique.
    With ``start="random"`` every disk of the start and of the goal sits on a random peg (each
    peg sorted, so every such configuration is legal), drawn again until they are at least
    2^(N-1) moves apart: each N is then thousands of puzzles of comparable depth, whose exact
    optimum comes from the closed form for any two states (the largest disk that has to move
    moves once or twice, Hinz 1992).

    ## Answer (``mode="answer"``, default)
    The whole solution on one line: ``moves = [[disk, from_peg, to_peg], ...]``, e.g.
    ``moves = [[1, 0, 2], [2, 0, 1], [1, 2, 1]]``. Pegs are 0-based. The last ``moves =`` list
    of the answer counts; text inside ``<think>...</think>`` never does. A complete N=20 answer
    (a million moves, 12 MB) is checked in a fraction of a second.

    ## Interactive (``mode="interactive"``)
    One move per step, e.g. ``[1, 0, 2]``. The observation shows the pegs, the goal, the move
    count and feedback. Reward 1 when the goal configuration is reached.

    ## Verdicts
    ``solved``; ``illegal_move`` with ``first_error`` = 1-based move number and the broken rule
    in ``details["rule"]`` (rules below); ``incomplete`` (all legal, goal not reached: rule
    ``goal_not_reached``); ``parse_error``; ``truncated``. ``algorithm_hint`` adds the recursive
    procedure of docs/specs/planning.md §8.3 to the prompt (canonical start only).

    ## Version history
    * v0: first version; v0.2 adds ``start="random"``, rule switches and progress-based partial credit.
    """

    family = "hanoi"
    puzzle = "Tower of Hanoi"
    Params = HanoiParams
    #: rules that no move can break alone and still leave the goal reachable (tested exhaustively)
    rules_never_alone = rule_table("", """
        empty_peg: an empty peg has no top disk, so with its check gone the move fails not_top_disk
    """)
    #: checked in this order; the base adds goal_not_reached last
    rule_codes = rule_table("", """
        bad_peg: every peg index is 0, 1 or 2
        same_peg: a move puts the disk on another peg (from != to)
        empty_peg: the source peg holds a disk
        not_top_disk: the named disk is the top disk of the source peg
        larger_on_smaller: a disk is never put on a smaller disk
    """)
    difficulties = bucket_presets({"easy": (1, 3), "medium": (4, 7), "hard": (8, 12), "paper": (1, 20)},
                                  {"n3": 3, "n5": 5, "n7": 7, "n10": 10})
    default_difficulty = "n5"
    move_fields = "[disk id, from peg, to peg]"
    move_example = "[1, 0, 2]"
    stack_rules = ("bad_peg", "same_peg", "empty_peg")
    int_moves = True

    # ---- instance ---------------------------------------------------------------------------
    def build(self, n: int, params: dict, rng: np.random.Generator) -> dict:
        if params.get("start") == "random":
            # at least half the canonical optimum apart, so N still sets the depth
            start, goal = [0] * n, [0] * n
            while hanoi_distance(start, goal) < 2 ** (n - 1):
                start, goal = rng.integers(0, 3, n).tolist(), rng.integers(0, 3, n).tolist()
            return {"n": n, "initial": hanoi_pegs(start), "goal": hanoi_pegs(goal)}
        return {"n": n, "initial": [list(range(n, 0, -1)), [], []], "goal": [[], [], list(range(n, 0, -1))]}

    def given_state(self, obj: dict) -> tuple[dict, dict] | None:
        """Reads ``{"initial": [[3, 2, 1], [], []], "goal": [...]}`` (pegs bottom to top)."""
        if "initial" not in obj:
            return None
        initial = check_stacks("initial", obj["initial"], 3)
        return {"n": sum(len(p) for p in initial), "initial": initial, "goal": obj.get("goal")}, {}

    def validate_instance(self, instance: Instance) -> None:
        super().validate_instance(instance)
        d = instance.data
        n = d["n"]
        for key in ("initial", "goal"):
            pegs = check_stacks(key, d.get(key), 3)
            disks = sorted(x for p in pegs for x in p if type(x) is int)
            if disks != list(range(1, n + 1)) or sum(len(p) for p in pegs) != n:
                raise ConfigError(f"{key} must hold the disks 1..{n} once each, got {str(pegs)[:80]}")
            for p, peg in enumerate(pegs):
                if any(a < b for a, b in pairwise(peg)):
                    raise ConfigError(f"{key} peg {p} {peg} has a larger disk on a smaller one "
                                      "(pegs are listed bottom to top)")

    def initial_state(self, instance: Instance) -> tuple:
        return tuple(tuple(p) for p in instance.data["initial"])

    def goal_state(self, instance: Instance) -> tuple:
        return tuple(tuple(p) for p in instance.data["goal"])

    def _goal_positions(self, instance: Instance) -> list[int]:
        return self.cached(instance, "goal_pos", lambda: hanoi_positions(instance.data["goal"]))

    def canonical(self, instance: Instance) -> bool:
        n = instance.data["n"]
        return instance.data["initial"] == [list(range(n, 0, -1)), [], []] and \
            instance.data["goal"] == [[], [], list(range(n, 0, -1))]

    def optimal_length(self, instance: Instance) -> int:
        return hanoi_distance(hanoi_positions(instance.data["initial"]), self._goal_positions(instance))

    def solve(self, instance: Instance) -> list:
        if self.canonical(instance):
            return hanoi_moves(instance.data["n"])
        return hanoi_path(hanoi_positions(instance.data["initial"]), self._goal_positions(instance))

    def distance(self, instance: Instance, state: tuple) -> int | None:
        """Closed form between any two legal states (search.hanoi)."""
        return hanoi_distance(hanoi_positions(state), self._goal_positions(instance))

    def path_from(self, instance: Instance, state: tuple) -> list | None:
        if any(a < b for peg in state for a, b in pairwise(peg)):
            return None  # a larger disk on a smaller one: no legal state
        return hanoi_path(hanoi_positions(state), self._goal_positions(instance))

    # ---- rules (docs/specs/planning.md §2.1, checks in order) ------------------------------------------------------
    def check_piece(self, instance: Instance, state: tuple, disk: Any, src: int, dst: int) -> str | None:
        off = self._disabled_rules
        if "not_top_disk" not in off and (not state[src] or state[src][-1] != disk):
            return "not_top_disk"
        if "larger_on_smaller" not in off and state[dst] and state[dst][-1] < disk:
            return "larger_on_smaller"
        return None

    def simulate(self, instance: Instance, moves: list) -> dict:
        """The generic simulation, or for long answers with every rule on a compiled kernel
        (answers read as an array) or a loop over mutable pegs (same checks, same order)."""
        if self._disabled_rules or len(moves) < 64:
            return super().simulate(instance, moves)
        arr = getattr(moves, "array", None)
        if arr is not None and len(moves) >= KERNEL_FROM:
            k, reason, pegs, goal_at = hanoi_run(arr, instance.data["initial"], instance.data["goal"])
            return {"n_legal_prefix": k, "reason": reason, "state": tuple(tuple(p) for p in pegs),
                    "goal_first_reached_at": goal_at}
        pegs = [list(p) for p in instance.data["initial"]]
        goal = [list(p) for p in instance.data["goal"]]
        n = instance.data["n"]
        pos = [0] + hanoi_positions(pegs)
        goal_pos = [0] + hanoi_positions(goal)
        in_place = sum(pos[d] == goal_pos[d] for d in range(1, n + 1))
        goal_at, reason, k = None, None, len(moves)
        for i, (disk, src, dst) in enumerate(moves):
            if not (0 <= src < 3 and 0 <= dst < 3):
                reason = "bad_peg"
            elif src == dst:
                reason = "same_peg"
            elif not pegs[src]:
                reason = "empty_peg"
            elif pegs[src][-1] != disk:
                reason = "not_top_disk"
            elif pegs[dst] and pegs[dst][-1] < disk:
                reason = "larger_on_smaller"
            if reason is not None:
                k = i
                break
            pegs[dst].append(pegs[src].pop())
            in_place -= pos[disk] == goal_pos[disk]
            pos[disk] = dst
            in_place += dst == goal_pos[disk]
            if in_place == n and goal_at is None:
                goal_at = i + 1
        return {"n_legal_prefix": k, "reason": reason, "state": tuple(tuple(p) for p in pegs),
                "goal_first_reached_at": goal_at}

    def coerce_move(self, value: Any) -> list:
        if not isinstance(value, list) or len(value) != 3:
            raise ParseError(f"a Hanoi move is [disk, from_peg, to_peg], got {_short(value)}", "malformed_move")
        if type(value[0]) is int and type(value[1]) is int and type(value[2]) is int:
            return list(value)  # the common case, kept cheap for long answers
        return [mv.as_int(v) for v in value]

    def min_answer_tokens(self, instance: Instance) -> int:
        # "moves = [" + k moves of 7 marks ("[", d, ",", s, ",", t, "]") + k - 1 commas + "]"
        k = self.optimal_steps(instance)
        return 8 * k + 3 if k else 4

    # ---- near misses, structured wrapper ----------------------------------------------------
    def candidate_moves(self, instance: Instance, state: tuple) -> list:
        """Legal moves first, then every disk between every pair of pegs -3..3 (negative pegs
        alias real ones once the range check is gone, so they break ``bad_peg`` alone)."""
        n = instance.data["n"]
        pegs = range(-3, 4)
        return self.legal_moves(instance, state) + [[d, s, t] for d in range(1, n + 1) for s in pegs for t in pegs]

    def move_catalog(self, instance: Instance) -> list:
        """Every (disk, from, to) with from != to: 6N moves, fixed for N."""
        n = instance.data["n"]
        return [[d, s, t] for d in range(1, n + 1) for s in range(3) for t in range(3) if s != t]

    def encode_state(self, instance: Instance, state: tuple) -> np.ndarray:
        """One-hot peg of every disk (3N floats)."""
        n = instance.data["n"]
        vec = np.zeros(3 * n, np.float32)
        for p, peg in enumerate(state):
            for d in peg:
                vec[3 * (d - 1) + p] = 1.0
        return vec

    def legal_moves(self, instance: Instance, state: tuple) -> list:
        out = []
        for s in range(3):
            if not state[s]:
                continue
            d = state[s][-1]
            for t in range(3):
                if t != s and (not state[t] or state[t][-1] > d):
                    out.append([d, s, t])
        return out

    # ---- text -------------------------------------------------------------------------------
    def rules(self, instance: Instance) -> str:
        return ("You are solving a Tower of Hanoi puzzle. There are three pegs, numbered 0, 1 and 2, and "
                "disks of different sizes, numbered from 1 (the smallest) upwards. Rules:\n"
                "1. A move takes the top disk of one peg and puts it on top of another peg.\n"
                "2. Only one disk moves at a time, and only the topmost disk of a peg can move.\n"
                "3. A disk may never rest on a smaller disk.\n"
                "Each move is written [disk id, from peg, to peg].")

    def example(self) -> tuple[str, list]:
        return ("Three disks start on peg 0 (3 at the bottom, 1 on top) and must end on peg 2 in the same order.",
                hanoi_moves(3))

    def other_examples(self) -> list[tuple[str, list]]:
        return [("Two disks start on peg 0 (2 at the bottom, 1 on top) and must end on peg 2 in the same order.",
                 hanoi_moves(2)),
                ("Three disks start on peg 0 (3 at the bottom, 1 on top) and must end on peg 1 in the same order.",
                 hanoi_moves(3, 0, 1, 2))]

    place_kind = "peg"

    def picture(self, instance: Instance, state: tuple) -> tuple[np.ndarray, dict]:
        """Three pegs on a base, disks as bars whose width grows with their number (each in its
        own colour, numbered where the number fits), peg numbers underneath."""
        n = max(1, instance.data["n"])
        disk_h = max(8, min(24, 360 // (n + 1)))
        unit = max(4, min(16, 150 // n))  # each disk is 2 * unit pixels wider than the one above it
        peg_w = 28 + 2 * unit * n + 24
        top, base = 14, 14 + (n + 1) * disk_h
        width, height = 3 * peg_w + 20, base + 46
        img = np.full((height, width, 3), BACKGROUND, np.uint8)
        places = {}
        for p in range(3):
            x0 = 10 + p * peg_w
            cx = x0 + peg_w / 2
            raster.fill(img, (cx - 3, top, cx + 3, base), PEG)
            raster.fill(img, (x0 + 6, base, x0 + peg_w - 6, base + 8), GROUND)
            raster.draw_text(img, f"peg {p}", base + 25, cx, 2, raster.INK)
            for h, d in enumerate(state[p] if p < len(state) else ()):
                w = 28 + 2 * unit * d
                y1 = base - h * disk_h
                hue = HUES[(d - 1) % len(HUES)]
                raster.fill(img, (cx - w / 2, y1 - disk_h + 2, cx + w / 2, y1), hue)
                scale = 2 if disk_h >= 18 and raster.text_width(str(d), 2) + 6 <= w else 1
                if disk_h >= 10 and raster.text_width(str(d), scale) + 4 <= w:
                    raster.draw_text(img, str(d), y1 - disk_h / 2 + 1, cx, scale, raster.ink_on(hue))
            places[("peg", p)] = (x0 + 2, 4, x0 + peg_w - 2, height - 4)
        return img, places

    def render_state(self, instance: Instance, state: tuple) -> str:
        return "\n".join(f"Peg {i}: " + (", ".join(map(str, peg)) + " (bottom to top)" if peg else "(empty)")
                         for i, peg in enumerate(state))

    def describe(self, instance: Instance) -> str:
        n = instance.data["n"]
        return (f"There are {n} disks, numbered 1 (smallest) to {n} (largest).\n"
                + self.start_and_goal(instance, "Initial configuration:\n", "Goal configuration:\n")
                + "Find a sequence of moves that turns the initial configuration into the goal configuration.")

    procedure_prompt = """
        A procedure that solves the puzzle. To move a tower of n disks from peg `source` to peg `target` using peg
          `spare`, call solve(n, source, target, spare):
        - if n is 0, do nothing;
        - otherwise first call solve(n - 1, source, spare, target), which clears the n - 1 smaller disks away onto the
          spare peg;
        - then move disk n from source to target, written [n, source, target];
        - then call solve(n - 1, spare, target, source) to put the smaller disks back on top of it.
        The whole puzzle is solve(N, 0, 2, 1). Keep track of which disk is on top of each peg as you write the moves.
    """


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."

