"""A small interactive puzzle registered only for the training tests.

"Doubling counter": start at 1, reach ``target`` with the moves ``+1`` and ``*2``. It has both
modes, a BFS solver, legal moves and an answer format, so the harness, the agents and the
trainers can be tested without depending on which families have landed.
"""
from __future__ import annotations

import re
from collections import deque

from kumo_gym.core.errors import ParseError
from kumo_gym.core.instance import Instance
from kumo_gym.core.registry import EnvEntry, register_all
from kumo_gym.core.task import InteractiveTask
from kumo_gym.core.verdict import Verdict

MOVES = ("+1", "*2")
ENV_ID = "kumo_gym/ToyCounter-v0"


class ToyCounterTask(InteractiveTask):
    family = "toycounter"
    difficulties = {"easy": {"lo": 3, "hi": 8}, "hard": {"lo": 20, "hi": 40}}
    default_difficulty = "easy"
    param_names = ("lo", "hi")

    def generate(self, rng, lo=3, hi=8, difficulty=None, **_):
        return Instance(self.family, {"target": int(rng.integers(lo, hi + 1))},
                        params={"difficulty": difficulty, "lo": lo, "hi": hi})

    def prompt(self, inst):
        return (f"Start at 1. Reach {inst.data['target']} using the moves +1 and *2. "
                "Answer with moves = [m1, m2, ...] inside <answer></answer>.")

    def parse(self, text):
        m = re.findall(r"moves\s*=\s*\[([^\[\]]{0,2000})\]", text[-20000:])
        if not m:
            raise ParseError("no moves = [...] list", "no_answer")
        items = [x.strip() for x in m[-1].split(",") if x.strip()]
        for x in items:
            if x not in MOVES:
                raise ParseError(f"unknown move {x[:20]!r}", "malformed_move")
        return items

    def verify(self, inst, answer):
        v = 1
        for i, mv in enumerate(answer, 1):
            v = v + 1 if mv == "+1" else v * 2
            if v > inst.data["target"]:
                return Verdict("illegal_move", f"move {i} overshoots", first_error=i, details={"n_moves": len(answer)})
        if v == inst.data["target"]:
            return Verdict("solved", "reached", details={"n_moves": len(answer)})
        return Verdict("incomplete", "not reached", score=v / inst.data["target"], details={"n_moves": len(answer)})

    def solve(self, inst):
        t = inst.data["target"]
        prev = {1: None}
        q = deque([1])
        while q:
            v = q.popleft()
            if v == t:
                break
            for mv, w in (("+1", v + 1), ("*2", v * 2)):
                if w <= t and w not in prev:
                    prev[w] = (v, mv)
                    q.append(w)
        path = []
        v = t
        while prev[v] is not None:
            v, mv = prev[v]
            path.append(mv)
        return path[::-1]

    def format_answer(self, answer):
        return "<answer>moves = [" + ", ".join(answer) + "]</answer>"

    def optimal_steps(self, inst):
        return len(self.solve(inst))

    # interactive
    def initial_state(self, inst):
        return 1

    def parse_move(self, text):
        m = re.findall(r"\+1|\*2", text[-2000:])
        if not m:
            raise ParseError("no move", "no_answer")
        return m[-1]

    def check_move(self, inst, state, move):
        nxt = state + 1 if move == "+1" else state * 2
        return "overshoot" if nxt > inst.data["target"] else None

    def apply(self, inst, state, move):
        return state + 1 if move == "+1" else state * 2

    def is_goal(self, inst, state):
        return state == inst.data["target"]

    def legal_moves(self, inst, state):
        return [m for m in MOVES if self.check_move(inst, state, m) is None]

    def render_state(self, inst, state):
        return f"value {state}, target {inst.data['target']}"


ENTRY = EnvEntry(name="ToyCounter", task="toy:ToyCounterTask", family="toycounter",
                 summary="test-only counter puzzle", modes=("answer", "interactive"))


def install() -> str:
    """Add the toy entry to the catalogue and register it with Gymnasium (idempotent)."""
    from kumo_gym.envs import catalog

    if all(e.name != ENTRY.name for e in catalog.ENVIRONMENTS):
        catalog.ENVIRONMENTS.append(ENTRY)
    register_all()
    return ENV_ID
