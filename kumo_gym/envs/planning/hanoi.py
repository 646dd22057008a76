"""Tower of Hanoi (planning spec §2.1)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...core.errors import ParseError
from ...core.instance import Instance
from ...solvers.planning import hanoi_moves, hanoi_optimal_length
from . import moves as mv
from .base import PlanningTask, bucket_presets, move_top, stack_move_reason

REASONS = ("bad_peg", "same_peg", "empty_peg", "not_top_disk", "larger_on_smaller")


class HanoiTask(PlanningTask):
    """Tower of Hanoi: move a tower of N disks from peg 0 to peg 2.

    ## Description
    Three pegs (0, 1, 2); disks 1 (smallest) to N start on peg 0, largest at the bottom. Move
    one top disk at a time, never onto a smaller disk, until the tower stands on peg 2
    (planning spec §2.1). The optimum is 2^N - 1 moves and the optimal solution is unique.

    ## Answer (``mode="answer"``, default)
    The whole solution on one line: ``moves = [[disk, from_peg, to_peg], ...]``, e.g.
    ``moves = [[1, 0, 2], [2, 0, 1], [1, 2, 1]]``. Pegs are 0-based. The last ``moves =`` list
    of the answer counts; text inside ``<think>...</think>`` never does.

    ## Interactive (``mode="interactive"``)
    One move per step, e.g. ``[1, 0, 2]``. The observation shows the pegs, the goal, the move
    count and feedback. Reward 1 when the tower stands on peg 2. ``max_steps`` defaults to
    2 x the optimum.

    ## Verdicts
    ``solved``; ``illegal_move`` with ``first_error`` = 1-based move number and
    ``details["reason"]`` in order of checking: ``bad_peg``, ``same_peg``, ``empty_peg``,
    ``not_top_disk``, ``larger_on_smaller``; ``incomplete`` (all legal, goal not reached);
    ``parse_error``; ``truncated``. ``score`` = legal prefix / optimum (below 1 unless solved).

    ## Arguments
    ``n`` (1..20, number of disks) or ``difficulty``; ``algorithm_hint`` (adds the recursive
    procedure to the prompt, spec §8.3); ``stepwise`` (asks for the state after each move).

    ## Difficulty presets
    ``easy`` N in 1..3, ``medium`` N in 4..7, ``hard`` N in 8..12 (the paper's simple / moderate
    / complex buckets; N is drawn with the episode's generator), ``paper`` N in 1..20, and fixed
    ``n3``, ``n5``, ``n7``, ``n10``. Default: ``n5`` (a fixed size keeps the structured wrapper's spaces fixed).

    ## Version history
    * v0: first version.
    """

    family = "hanoi"
    puzzle = "Tower of Hanoi"
    max_n = 20
    difficulties = bucket_presets({"easy": (1, 3), "medium": (4, 7), "hard": (8, 12), "paper": (1, 20)},
                                  {"n3": 3, "n5": 5, "n7": 7, "n10": 10})
    default_difficulty = "n5"
    answer_format = "moves = [[disk id, from peg, to peg], ...]"
    move_format = "[disk id, from peg, to peg], e.g. [1, 0, 2]"

    # ---- instance ---------------------------------------------------------------------------
    def build(self, n: int, params: dict) -> dict:
        return {"n": n, "initial": [list(range(n, 0, -1)), [], []], "goal": [[], [], list(range(n, 0, -1))]}

    def initial_state(self, instance: Instance) -> tuple:
        return tuple(tuple(p) for p in instance.data["initial"])

    def goal_state(self, instance: Instance) -> tuple:
        return tuple(tuple(p) for p in instance.data["goal"])

    def optimal_length(self, instance: Instance) -> int:
        return hanoi_optimal_length(instance.data["n"])

    def solve(self, instance: Instance) -> list:
        return hanoi_moves(instance.data["n"])

    # ---- rules (§2.1, checks in order) ------------------------------------------------------
    def check_move(self, instance: Instance, state: tuple, move: list) -> str | None:
        disk, src, dst = move
        reason = stack_move_reason(state, src, dst, ("bad_peg", "same_peg", "empty_peg"))
        if reason is not None:
            return reason
        if state[src][-1] != disk:
            return "not_top_disk"
        if state[dst] and state[dst][-1] < disk:
            return "larger_on_smaller"
        return None

    def apply(self, instance: Instance, state: tuple, move: list) -> tuple:
        return move_top(state, move[1], move[2])

    def coerce_move(self, value: Any) -> list:
        if not isinstance(value, list) or len(value) != 3:
            raise ParseError(f"a Hanoi move is [disk, from_peg, to_peg], got {_short(value)}", "malformed_move")
        if type(value[0]) is int and type(value[1]) is int and type(value[2]) is int:
            return list(value)  # the common case, kept cheap for 1M-move answers
        return [mv.as_int(v) for v in value]

    # ---- structured wrapper -----------------------------------------------------------------
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

    def cells(self, instance: Instance, state: tuple) -> list[list[int]]:
        """Disks as bars of width 2d - 1 over a ground row, one colour per disk."""
        n = instance.data["n"]
        w = 2 * n + 1
        grid = [[0] * (3 * w) for _ in range(n + 1)]
        grid[n] = [1] * (3 * w)
        for p, peg in enumerate(state):
            for h, d in enumerate(peg):
                row, centre = n - 1 - h, p * w + n
                for x in range(centre - d + 1, centre + d):
                    grid[row][x] = 2 + (d - 1) % 12
        return grid

    def render_state(self, instance: Instance, state: tuple) -> str:
        return "\n".join(f"Peg {i}: " + (", ".join(map(str, peg)) + " (bottom to top)" if peg else "(empty)")
                         for i, peg in enumerate(state))

    def describe(self, instance: Instance) -> str:
        n = instance.data["n"]
        return (f"There are {n} disks, numbered 1 (smallest) to {n} (largest).\n"
                f"Initial configuration:\n{self.render_state(instance, self.initial_state(instance))}\n"
                f"Goal configuration:\n{self.render_state(instance, self.goal_state(instance))}\n"
                "Find a sequence of moves that turns the initial configuration into the goal configuration.")

    def algorithm_hint(self, instance: Instance) -> str:
        return ("A procedure that solves the puzzle. To move a tower of n disks from peg `source` to peg "
                "`target` using peg `spare`, call solve(n, source, target, spare):\n"
                "- if n is 0, do nothing;\n"
                "- otherwise first call solve(n - 1, source, spare, target), which clears the n - 1 smaller "
                "disks away onto the spare peg;\n"
                "- then move disk n from source to target, written [n, source, target];\n"
                "- then call solve(n - 1, spare, target, source) to put the smaller disks back on top of it.\n"
                "The whole puzzle is solve(N, 0, 2, 1). Keep track of which disk is on top of each peg as you "
                "write the moves.")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
