"""A small real Task used to test the generic machinery without any family.

"Reach the target": start at 0, each move adds 1, 2 or 3, reach ``target`` exactly in as few
moves as possible. Answer mode takes the move list ``[1, 3, ...]``; interactive mode one number.
"""
from __future__ import annotations

import re
from typing import ClassVar

import numpy as np

from kumo_gym.core import ConfigError, Instance, ParseError, StepwiseTask, Verdict, check_int
from kumo_gym.core.extract import answer_regions, balanced_spans


class ReachTask(StepwiseTask):
    family = "reach"
    difficulties: ClassVar[dict] = {"easy": {"lo": 3, "hi": 9}, "hard": {"lo": 20, "hi": 40}}
    default_difficulty = "easy"
    param_names = ("lo", "hi")

    def validate_params(self, params):
        lo, hi = check_int("lo", params.get("lo", 3), 1), check_int("hi", params.get("hi", 9), 1)
        if lo > hi:
            raise ConfigError(f"lo {lo} is greater than hi {hi}")
        return {**params, "lo": lo, "hi": hi}

    def generate(self, rng, **params):
        p = self.validate_params(params)
        return Instance("reach", {"target": int(rng.integers(p["lo"], p["hi"] + 1))}, params=p)

    def prompt(self, instance):
        return f"Reach {instance.data['target']} from 0 by adding 1, 2 or 3. Answer as [a, b, ...]."

    def parse(self, text):
        for _, region in answer_regions(text):
            spans = balanced_spans(region)
            if spans:
                s, e = spans[-1]
                body = region[s + 1:e - 1]
                if not re.fullmatch(r"\s*(\d+\s*(,\s*\d+\s*)*)?", body[:10_000]) or len(body) > 10_000:
                    raise ParseError("not a list of integers", "malformed")
                return [int(x) for x in body.split(",") if x.strip()]
        raise ParseError("no list found", "no_answer")

    def verify(self, instance, answer):
        total = 0
        for i, m in enumerate(answer, 1):
            if m not in (1, 2, 3):
                return Verdict.failure("illegal_move", f"move {i} adds {m}", first_error=i, reason="bad_step")
            total += m
        if total == instance.data["target"]:
            return Verdict.success()
        return Verdict.failure("incomplete" if total < instance.data["target"] else "wrong",
                               f"reached {total}", score=0.5 if total < instance.data["target"] else 0.0)

    def solve(self, instance):
        t = instance.data["target"]
        return [3] * (t // 3) + ([t % 3] if t % 3 else [])

    def format_answer(self, answer):
        return "[" + ", ".join(map(str, answer)) + "]"

    def corrupt_answer(self, instance, answer, rng):
        return list(answer) + [1]

    def optimal_steps(self, instance):
        return -(-instance.data["target"] // 3)

    # interactive
    def initial_state(self, instance):
        return 0

    def parse_move(self, text):
        m = re.findall(r"\d+", text[-1000:])
        if not m:
            raise ParseError("no number", "no_answer")
        return int(m[-1])

    def check_move(self, instance, state, move):
        if move not in (1, 2, 3):
            return "bad_step"
        if state + move > instance.data["target"]:
            return "overshoot"
        return None

    def apply(self, instance, state, move):
        return state + move

    def is_goal(self, instance, state):
        return state == instance.data["target"]

    def legal_moves(self, instance, state):
        return [m for m in (1, 2, 3) if self.check_move(instance, state, m) is None]

    def move_catalog(self, instance):
        return [1, 2, 3]

    def encode_state(self, instance, state):
        return np.array([state, instance.data["target"] - state], dtype=np.float32)

    def render_state(self, instance, state):
        return f"At {state}, target {instance.data['target']}."

    def golden_moves(self, instance):
        return self.solve(instance)
