"""InteractiveEnv: a move per step, until solved, failed or out of steps."""
from __future__ import annotations

import warnings
from typing import Any

import gymnasium as gym

from ..core.errors import ParseError, check_choice, check_int
from ..core.verdict import Verdict, too_long
from .base import PuzzleEnv

#: the old switch, kept for a deprecation period: "reject" is now the only policy
ILLEGAL_ACTIONS = ("terminate", "reject")
DEFAULT_MAX_INVALID = 3


class InteractiveEnv(PuzzleEnv):
    """Multi-step environment over an InteractiveTask.

    ## Description
    ``reset`` returns the rules for step-by-step play followed by the initial state. Each
    ``step(text)`` reads one move (the last move-shaped item in the text), applies it and
    returns the new state with feedback.

    ## Observation space
    ``Text``: the rendered state, the goal where there is one, and feedback on the last move. With
    ``observation="image+text"`` (families that draw images) a dict of that text and a picture of
    the current state (``image_size`` square, RGB).

    ## Action space
    ``Text`` holding one move in the family's move format. Any string is accepted.

    ## Rewards
    1 when the goal is reached (or, in games, the right final answer is given), else 0. With
    ``reward="partial"`` the final step pays the verdict's score.

    ## Episode end
    Terminated when solved or on a wrong final answer. An unreadable or illegal move has no
    effect: the state is unchanged, the next observation says what was wrong, and ``max_invalid``
    consecutive invalid moves (default 3) truncate the episode. Truncated too after ``max_steps``
    moves (default: the family's budget, usually twice the optimum). A step after the end pays 0
    with the verdict status ``ended``.

    ## Info
    As AnswerEnv, plus ``step``, ``status`` (``continue``, ``invalid`` or the final verdict's
    status) and ``verdict`` on every step: ``incomplete`` while play goes on, ``illegal_move`` or
    ``parse_error`` for an invalid move (``details.rule`` names the broken rule), the final
    verdict at the end.
    """

    def __init__(self, task, env_id: str, *, max_steps: int | None = None, max_invalid: int = DEFAULT_MAX_INVALID,
                 illegal_action: str | None = None, max_illegal: int | None = None, **kwargs: Any):
        super().__init__(task, env_id, **kwargs)
        if illegal_action is not None or max_illegal is not None:
            warnings.warn("illegal_action= and max_illegal= are deprecated: an invalid move never ends the "
                          "episode by itself; use max_invalid= (consecutive invalid moves that truncate)",
                          DeprecationWarning, stacklevel=3)
            if illegal_action is not None:
                check_choice("illegal_action", illegal_action, ILLEGAL_ACTIONS)
            if max_illegal is not None:
                max_invalid = max_illegal
            if illegal_action == "terminate":
                max_invalid = 1
        self.max_invalid = check_int("max_invalid", max_invalid, 1, 10_000)
        self._max_steps_arg = None if max_steps is None else check_int("max_steps", max_steps, 1, 10_000_000)
        self.state = None
        self.steps = 0
        self.invalid = 0
        self.done = False
        self.moves: list = []

    def _render_state(self):
        return self.state

    @property
    def max_steps(self) -> int:
        return self._max_steps_arg or self.task.max_steps(self.instance)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        inst = self._next_instance(seed, options)
        self.state = self.task.initial_state(inst)
        self.steps = self.invalid = 0
        self.done = False
        self.moves = []
        obs = (self._prompt_text(inst, self._interactive_prompt(inst)) + "\n\n"
               + self.task.observation(inst, self.state, "", 0))
        info = self._info()
        info.update(step=0, status="continue")
        return self._obs(obs), info

    def _interactive_prompt(self, inst) -> str:
        return self.task.interactive_prompt(inst)

    def _finish(self, status: str, message: str, details: dict | None = None, score: float = 0.0) -> Verdict:
        verdict = Verdict(status, message, score=score, first_error=self.steps if status == "illegal_move" else None,
                          details={"moves": len(self.moves), **(details or {})})
        self.done = True
        return verdict

    def step(self, action):
        if self.instance is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        text = action if isinstance(action, str) else str(action)
        info = self._info()
        if self.done:
            verdict = Verdict("ended", "The episode has already ended; call reset() for a new puzzle.")
            info.update(step=self.steps, status="ended", verdict=verdict.to_dict())
            return self._obs(verdict.message), 0.0, True, False, info
        self.steps += 1
        refused = too_long(text, None, self.max_answer_chars)
        if refused is not None:  # refused unread, in constant time: an invalid step like an unreadable move
            return self._invalid(refused, info)
        try:
            move = self.task.parse_move(text)
        except ParseError as e:
            hedge = e.reason == "hedge"  # two moves offered as alternatives: its own status
            verdict = Verdict("hedge" if hedge else "parse_error",
                              f"{'The move hedges' if hedge else 'Could not read a move'}: {e}",
                              details={"reason": e.reason})
            if not hedge:
                verdict = self.task.teach(self.instance, verdict, text, self.task.expected_move(self.instance))
            return self._invalid(verdict, info)
        t = self.task.transition(self.instance, self.state, move)
        if t.status == "illegal_move":
            details = {"reason": t.details.get("reason", "illegal"), **t.details}
            return self._invalid(Verdict("illegal_move", t.feedback + " The state is unchanged.",
                                         first_error=self.steps, details=details), info)
        self.invalid = 0
        self.state = t.state
        self.moves.append(move)
        if t.status == "continue":
            if self.steps >= self.max_steps:
                return self._truncate(f"Out of steps after {self.steps} moves.", info, t.details)
            verdict = Verdict("incomplete", t.feedback, details={"moves": len(self.moves), **t.details})
            info.update(step=self.steps, status="continue", verdict=verdict.to_dict())
            obs = self.task.observation(self.instance, self.state, t.feedback, self.steps)
            return self._obs(obs), 0.0, False, False, info
        status = t.status if t.status in ("solved", "wrong", "incomplete") else "wrong"
        verdict = self._finish(status, t.feedback, t.details, score=t.details.get("score", 1.0 if status == "solved" else 0.0))
        return self._end(verdict, info)

    def _invalid(self, verdict: Verdict, info: dict):
        """An unreadable or illegal move: no effect, feedback, truncation after max_invalid in a row."""
        self.invalid += 1
        if self.invalid >= self.max_invalid:
            return self._truncate(f"{verdict.message} That is {self.invalid} invalid moves in a row; the episode "
                                  "stops here.", info, {**verdict.details, "reason": "too_many_invalid",
                                                        "last_reason": verdict.details.get("reason")},
                                  status=verdict.status)
        if self.steps >= self.max_steps:  # the last reply's own verdict first: it is the feedback a trainer sees
            return self._truncate(f"{verdict.message.rstrip(' .')}. Out of steps after {self.steps} moves.", info,
                                  {**verdict.details, "last_move": verdict.status})
        info.update(step=self.steps, status="invalid", verdict=verdict.to_dict())
        left = self.max_invalid - self.invalid
        feedback = f"{verdict.message} ({left} more invalid move{'s' if left != 1 else ''} in a row ends the episode.)"
        obs = self.task.observation(self.instance, self.state, feedback, self.steps)
        return self._obs(obs), 0.0, False, False, info

    def _truncate(self, message: str, info: dict, details: dict | None = None, status: str = "incomplete"):
        verdict = self._finish(status, message, details)
        obs, _, _, _, info = self._end(verdict, info)
        return obs, 0.0, False, True, info

    def _end(self, verdict: Verdict, info: dict):
        info.update(step=self.steps, status=verdict.status, verdict=verdict.to_dict())
        obs = self.task.observation(self.instance, self.state, verdict.message, self.steps)
        return self._obs(obs), self._reward(verdict), True, False, info

