"""InteractiveEnv: a move per step, until solved, failed or out of steps."""
from __future__ import annotations

from typing import Any

from ..core.errors import ParseError, check_choice, check_int
from ..core.verdict import Verdict
from .base import PuzzleEnv, to_charset

ILLEGAL_ACTIONS = ("terminate", "reject")


class InteractiveEnv(PuzzleEnv):
    """Multi-step environment over an InteractiveTask.

    ## Description
    ``reset`` returns the rules for step-by-step play followed by the initial state. Each
    ``step(text)`` reads one move (the last move-shaped item in the text), applies it and
    returns the new state with feedback.

    ## Observation space
    ``Text``: the rendered state, the goal where there is one, and feedback on the last move.

    ## Action space
    ``Text`` holding one move in the family's move format. Any string is accepted.

    ## Rewards
    1 when the goal is reached (or, in games, the right final answer is given), else 0. With
    ``reward="partial"`` the final step pays the verdict's score.

    ## Episode end
    Terminated when solved, on an illegal or unreadable move (``illegal_action="terminate"``,
    the default), or on a wrong final answer. Truncated after ``max_steps`` moves (default: the
    family's budget, usually twice the optimum). With ``illegal_action="reject"`` an illegal or
    unreadable move leaves the state unchanged and returns feedback, at most ``max_illegal``
    times.

    ## Info
    As AnswerEnv, plus ``step`` and ``status``; ``verdict`` when the episode ends.
    """

    def __init__(self, task, env_id: str, *, max_steps: int | None = None, illegal_action: str = "terminate",
                 max_illegal: int = 5, **kwargs: Any):
        super().__init__(task, env_id, **kwargs)
        check_choice("illegal_action", illegal_action, ILLEGAL_ACTIONS)
        self.illegal_action = illegal_action
        self.max_illegal = check_int("max_illegal", max_illegal, 0)
        self._max_steps_arg = None if max_steps is None else check_int("max_steps", max_steps, 1)
        self.state = None
        self.steps = 0
        self.illegal = 0
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
        self.steps = self.illegal = 0
        self.done = False
        self.moves = []
        obs = self._prompt_text_interactive(inst) + "\n\n" + self.task.observation(inst, self.state, "", 0)
        info = self._info()
        info.update(step=0, status="continue")
        return to_charset(obs), info

    def _prompt_text_interactive(self, inst) -> str:
        return self.task.interactive_prompt(inst)

    def _finish(self, status: str, message: str, details: dict | None = None, score: float = 0.0):
        verdict = Verdict(status, message, score=score, first_error=self.steps if status == "illegal_move" else None,
                          details={"moves": len(self.moves), **(details or {})})
        self.done = True
        return verdict

    def step(self, action):
        text = action if isinstance(action, str) else str(action)
        info = self._info()
        if self.done:
            verdict = Verdict("wrong", "The episode has already ended; call reset().")
            info.update(step=self.steps, status="ended", verdict=verdict.to_dict())
            return "The episode has already ended.", 0.0, True, False, info
        self.steps += 1
        verdict = None
        try:
            move = self.task.parse_move(text)
        except (ParseError, ValueError, TypeError, IndexError, KeyError, RecursionError) as e:
            feedback = f"Could not read a move: {e}"
            if self.illegal_action == "reject" and self.illegal < self.max_illegal:
                self.illegal += 1
                return self._continue(feedback, info, "parse_error")
            verdict = self._finish("parse_error", feedback, {"reason": getattr(e, "reason", "malformed")})
            return self._end(verdict, info)
        t = self.task.transition(self.instance, self.state, move)
        if t.status == "illegal_move" and self.illegal_action == "reject" and self.illegal < self.max_illegal:
            self.illegal += 1
            return self._continue(t.feedback + " The state is unchanged.", info, "illegal_move")
        self.state = t.state
        self.moves.append(move)
        if t.status == "continue":
            if self.steps >= self.max_steps:
                verdict = self._finish("incomplete", f"Out of steps after {self.steps} moves.", t.details)
                obs, _, _, _, info = self._end(verdict, info)
                return obs, 0.0, False, True, info
            return self._continue(t.feedback, info, "continue")
        status = t.status if t.status in ("solved", "illegal_move", "wrong", "incomplete") else "wrong"
        verdict = self._finish(status, t.feedback, t.details, score=t.details.get("score", 1.0 if status == "solved" else 0.0))
        return self._end(verdict, info)

    def _continue(self, feedback: str, info: dict, status: str):
        info.update(step=self.steps, status=status)
        if self.steps >= self.max_steps:
            verdict = self._finish("incomplete", f"Out of steps after {self.steps} moves.")
            obs, _, _, _, info = self._end(verdict, info)
            return obs, 0.0, False, True, info
        obs = self.task.observation(self.instance, self.state, feedback, self.steps)
        return to_charset(obs), 0.0, False, False, info

    def _end(self, verdict: Verdict, info: dict):
        info.update(step=self.steps, status=verdict.status, verdict=verdict.to_dict())
        obs = self.task.observation(self.instance, self.state, verdict.message, self.steps)
        return to_charset(obs), self._reward(verdict), True, False, info
