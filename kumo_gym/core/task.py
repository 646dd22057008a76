"""The Task protocol: one puzzle's whole logic, free of Gymnasium (ARCHITECTURE.md).

A Task is stateless. Everything an item needs (sizes, prompt variants, the puzzle data) lives in
its :class:`~kumo_gym.core.instance.Instance`, so a Task can score completions in a training loop,
build datasets or analyse traces with no environment around it.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from .errors import ConfigError, ParseError, check_choice
from .extract import looks_truncated, split_thinking
from .instance import Instance
from .verdict import Verdict


class Task(ABC):
    """Base class of every puzzle.

    Subclasses set :attr:`family`, :attr:`difficulties` (preset name -> generation params),
    :attr:`default_difficulty` and :attr:`param_names` (the generation parameters a user may
    pass), and implement ``generate``, ``prompt``, ``parse``, ``verify``, ``solve`` and
    ``format_answer``. ``parse(format_answer(a)) == a`` must hold.
    """

    family: ClassVar[str] = ""
    difficulties: ClassVar[dict[str, dict]] = {}
    default_difficulty: ClassVar[str | None] = None
    #: generation parameters accepted besides ``difficulty`` (checked by ``resolve_params``)
    param_names: ClassVar[tuple[str, ...]] = ()
    #: tags tried by the shared answer extraction, most specific first
    answer_tags: ClassVar[tuple[str, ...]] = ("answer",)

    # ---- parameters -------------------------------------------------------------------------
    def resolve_params(self, difficulty: str | None = None, **params) -> dict:
        """Merge a difficulty preset with explicit parameters and validate the result.

        Unknown parameter names and unknown presets raise :class:`ConfigError` listing the valid
        choices. Explicit parameters override the preset's values.
        """
        for key in params:
            check_choice("parameter", key, sorted(set(self.param_names) | {"difficulty"}))
        merged: dict[str, Any] = {}
        if difficulty is None and not params:
            difficulty = self.default_difficulty
        if difficulty is not None:
            if self.difficulties:
                check_choice("difficulty", difficulty, list(self.difficulties))
                merged.update(self.difficulties[difficulty])
            merged["difficulty"] = difficulty
        merged.update(params)
        return self.validate_params(merged)

    def validate_params(self, params: dict) -> dict:
        """Check parameter values; return the (possibly completed) dict. Raise ConfigError."""
        return params

    # ---- the protocol -----------------------------------------------------------------------
    @abstractmethod
    def generate(self, rng: np.random.Generator, **params) -> Instance:
        """A new instance, deterministic for a given generator state."""

    @abstractmethod
    def prompt(self, instance: Instance) -> str:
        """The whole text the model sees for answer mode (rules, state, answer format)."""

    def messages(self, instance: Instance) -> list[dict]:
        """The prompt as chat messages; families with a system part override this."""
        return [{"role": "user", "content": self.prompt(instance)}]

    @abstractmethod
    def parse(self, text: str) -> Any:
        """The answer in ``text`` (the answer region of a completion). Raises ParseError."""

    @abstractmethod
    def verify(self, instance: Instance, answer: Any) -> Verdict:
        """Check ``answer`` against the rules of ``instance``."""

    @abstractmethod
    def solve(self, instance: Instance) -> Any:
        """A golden answer (optimal where the family defines optimality)."""

    @abstractmethod
    def format_answer(self, answer: Any) -> str:
        """The canonical answer text; ``parse(format_answer(a)) == a``."""

    # ---- shared behaviour -------------------------------------------------------------------
    def score(self, instance: Instance, completion: str, *, reasoning: str | None = None,
              finish_reason: str | None = None, n_output_tokens: int | None = None,
              max_new_tokens: int | None = None) -> Verdict:
        """Parse and verify a raw completion. Never raises.

        The thinking part (before ``</think>`` or the separate ``reasoning`` channel) is never
        used as the answer. A missing answer in a cut-off output is ``truncated``, not wrong.
        """
        if not isinstance(completion, str):
            completion = "" if completion is None else str(completion)
        regions = split_thinking(completion, reasoning)
        cut = looks_truncated(completion, finish_reason, n_output_tokens, max_new_tokens) or regions.unclosed_thinking
        try:
            answer = self.parse(regions.answer)
        except ParseError as e:
            status = "truncated" if (cut or e.truncated) else "parse_error"
            msg = ("The output was cut off before a complete answer." if status == "truncated"
                   else f"No valid answer could be read: {e}")
            return Verdict(status, msg, details={"reason": e.reason, "truncated": status == "truncated"})
        except (ValueError, TypeError, KeyError, IndexError, RecursionError, OverflowError) as e:
            return Verdict("parse_error", f"No valid answer could be read: {e}",
                           details={"reason": "malformed", "truncated": cut})
        verdict = self.verify(instance, answer)
        verdict.details.setdefault("truncated", cut)
        return verdict

    def load(self, obj: Any) -> Instance:
        """An Instance from ``obj``: an Instance, its dict form or its JSON text.

        Families extend this to read foreign formats (a Tatham game ID, an official SPaRC
        record, a KUMO instance ...).
        """
        if isinstance(obj, Instance):
            inst = obj
        elif isinstance(obj, dict):
            inst = Instance.from_dict(obj)
        elif isinstance(obj, str) and obj.lstrip().startswith("{"):
            inst = Instance.from_json(obj)
        else:
            raise ConfigError(f"cannot read a {self.family} instance from {type(obj).__name__} {str(obj)[:80]!r}")
        if inst.family != self.family:
            raise ConfigError(f"instance family {inst.family!r} is not {self.family!r}")
        return inst

    def optimal_steps(self, instance: Instance) -> int | None:
        """The optimal number of moves/steps, where the family defines it."""
        return None

    def render(self, instance: Instance, state: Any = None) -> str:
        """A text picture of the instance (or of ``state``) for people."""
        return self.prompt(instance)

    def render_rgb(self, instance: Instance, state: Any = None) -> np.ndarray | None:
        """An RGB image of the instance, where the family has one."""
        return None

    def difficulty_of(self, instance: Instance) -> str | None:
        d = instance.params.get("difficulty")
        return None if d is None else str(d)

    def check_trainable(self, instance: Instance) -> None:
        """Raise ContaminationError when ``instance`` must not be used for training."""


@dataclass
class Transition:
    """The outcome of one move in an interactive episode."""

    state: Any
    status: str = "continue"  # continue | solved | illegal_move | wrong | incomplete
    feedback: str = ""
    reward: float = 0.0
    details: dict = field(default_factory=dict)

    @property
    def done(self) -> bool:
        return self.status != "continue"


class InteractiveTask(Task):
    """A Task that can also be played one move at a time.

    Puzzle-style families implement ``initial_state``, ``parse_move``, ``check_move``,
    ``apply`` and ``is_goal``; :meth:`transition` combines them. Games with hidden information
    (KUMO) override :meth:`transition` directly.
    """

    def initial_state(self, instance: Instance) -> Any:
        raise NotImplementedError(f"{type(self).__name__} has no interactive mode")

    def parse_move(self, text: str) -> Any:
        """One move from ``text`` (the last move-shaped item). Raises ParseError."""
        raise NotImplementedError(f"{type(self).__name__} has no interactive mode")

    def check_move(self, instance: Instance, state: Any, move: Any) -> str | None:
        """None when ``move`` is legal in ``state``; otherwise its reason code."""
        return None

    def apply(self, instance: Instance, state: Any, move: Any) -> Any:
        raise NotImplementedError

    def is_goal(self, instance: Instance, state: Any) -> bool:
        raise NotImplementedError

    def legal_moves(self, instance: Instance, state: Any) -> list:
        """Every legal move in ``state`` (used by the structured wrapper and random agents)."""
        raise NotImplementedError

    def format_move(self, move: Any) -> str:
        return str(move)

    def render_state(self, instance: Instance, state: Any) -> str:
        return str(state)

    def interactive_prompt(self, instance: Instance) -> str:
        """The rules and move format for one-move-per-step play."""
        return self.prompt(instance)

    def observation(self, instance: Instance, state: Any, feedback: str = "", step: int = 0) -> str:
        text = self.render_state(instance, state)
        return f"{feedback}\n\n{text}" if feedback else text

    def max_steps(self, instance: Instance) -> int:
        opt = self.optimal_steps(instance)
        return max(10, 2 * opt) if opt else 100

    def transition(self, instance: Instance, state: Any, move: Any) -> Transition:
        reason = self.check_move(instance, state, move)
        if reason is not None:
            return Transition(state, "illegal_move", f"Illegal move {self.format_move(move)}: {reason}.",
                              details={"reason": reason})
        new_state = self.apply(instance, state, move)
        if self.is_goal(instance, new_state):
            return Transition(new_state, "solved", "Solved: the goal is reached.", reward=1.0)
        return Transition(new_state, "continue", f"Move {self.format_move(move)} applied.")
