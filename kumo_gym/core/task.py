"""The Task protocol: one puzzle's whole logic, free of Gymnasium (docs/architecture.md §2).

A Task is stateless. Everything an item needs (sizes, prompt variants, the puzzle data) lives in
its :class:`~kumo_gym.core.instance.Instance`, so a Task can score completions in a training loop,
build datasets or analyse traces with no environment around it.
"""
from __future__ import annotations

import contextlib
import logging
import textwrap
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from .capabilities import AnswerPicture, ImageRendering
from .errors import ConfigError, ParseError, check_choice
from .extract import looks_truncated, split_thinking
from .instance import Instance
from .params import Params
from .verdict import Verdict, too_long

log = logging.getLogger(__name__)



def reply_start(text: Any, limit: int = 80) -> str:
    """How a reply began, for feedback: ``the reply began: '...'`` (whitespace folded, at most ``limit``
    characters quoted; only the first few hundred characters are read), or ``the reply was empty``."""
    head = " ".join(str(text or "")[:4 * limit].split())
    if not head:
        return "the reply was empty"
    return f"the reply began: {head[:limit]!r}" + ("..." if len(head) > limit else "")

class Task(ABC):
    """Base class of every puzzle.

    Subclasses set :attr:`family`, :attr:`Params` (the frozen parameter dataclass,
    :mod:`kumo_gym.core.params`), :attr:`difficulties` (preset name -> parameter values),
    :attr:`default_difficulty` and :attr:`rule_codes`, and implement ``generate``, ``prompt``,
    ``parse``, ``verify``, ``solve`` and ``format_answer``. ``parse(format_answer(a)) == a`` must
    hold. Optional capabilities (corruption, golden moves, near misses, cheap strategies, images
    ...) are the protocols of :mod:`kumo_gym.core.capabilities`.

    Older tasks without a ``Params`` class list :attr:`param_names` and check values in
    :meth:`validate_params`; :attr:`prompt_options` then names their prompt-only parameters.
    """

    family: ClassVar[str] = ""
    #: the parameter dataclass; when set, names, defaults, ranges and prompt options come from it
    Params: ClassVar[type[Params] | None] = None
    difficulties: ClassVar[dict[str, dict]] = {}
    default_difficulty: ClassVar[str | None] = None
    #: generation parameters accepted besides ``difficulty`` (tasks without a ``Params`` class)
    param_names: ClassVar[tuple[str, ...]] = ()
    #: parameters that change only the prompt (tasks without a ``Params`` class)
    prompt_options: ClassVar[tuple[str, ...]] = ()
    #: every rule the verifier checks: code -> one-line statement. Verdicts report broken rules
    #: under these codes (``Verdict.rules``); the manual and the adversarial suite read them.
    rule_codes: ClassVar[dict[str, str]] = {}
    #: how ``reward="partial"`` is computed, one sentence for the manual and the family guide
    partial_credit: ClassVar[str] = "the verdict's score (the fraction of the puzzle's checks that pass)"
    #: tags tried by the shared answer extraction, most specific first
    answer_tags: ClassVar[tuple[str, ...]] = ("answer",)
    #: extra ``{fields}`` a ``prompt_template`` may use besides ``prompt`` and the parameters
    template_field_names: ClassVar[tuple[str, ...]] = ()

    def template_fields(self, instance: Instance) -> dict:
        """Values of :attr:`template_field_names` for ``instance``."""
        return {}

    def __init__(self):
        self._disabled_rules: frozenset[str] = frozenset()

    # ---- parameters -------------------------------------------------------------------------
    @classmethod
    def accepted_params(cls) -> tuple[str, ...]:
        """Every parameter name a user may pass (besides ``difficulty``)."""
        return cls.Params.names() if cls.Params is not None else tuple(cls.param_names)

    @classmethod
    def prompt_option_names(cls) -> tuple[str, ...]:
        return cls.Params.prompt_names() if cls.Params is not None else tuple(cls.prompt_options)

    def resolve_difficulty(self, difficulty):
        """``difficulty`` as a preset name; numbers naming a preset (SPaRC level 3) are accepted."""
        if difficulty is None or difficulty in self.difficulties:
            return difficulty
        if isinstance(difficulty, (int, float)) and not isinstance(difficulty, bool) and str(difficulty) in self.difficulties:
            return str(difficulty)
        check_choice("difficulty", difficulty, list(self.difficulties))
        return difficulty

    def plain_kwargs(self, kwargs: dict) -> dict:
        """``kwargs`` with every value given as a Python object (a KUMO ``Domain``) replaced by the
        plain JSON value that stands for it, so the kwargs can be hashed, recorded and compared.

        :meth:`resolve_params` applies it, and so does everything that records environment kwargs
        (dataset records, evaluation specs). Default: ``kwargs`` unchanged.
        """
        return kwargs

    def resolve_params(self, difficulty: str | None = None, **params) -> dict:
        """Merge a difficulty preset with explicit parameters and validate the result.

        Unknown parameter names and unknown presets raise :class:`ConfigError` listing the valid
        choices. Explicit parameters override the preset's values.
        """
        accepted = self.accepted_params()
        for key in params:
            check_choice("parameter", key, sorted(set(accepted) | {"difficulty"}))
        params = self.plain_kwargs(params)
        merged: dict[str, Any] = {}
        if difficulty is None and not params:
            difficulty = self.default_difficulty
        if difficulty is not None and self.difficulties:
            difficulty = self.resolve_difficulty(difficulty)
            merged.update(self.difficulties[difficulty])
        merged.update(params)
        if self.Params is not None:
            out = self.Params.from_kwargs(merged).to_dict()
            if difficulty is not None:
                out["difficulty"] = difficulty
            return self.validate_params(out)
        if difficulty is not None:
            merged["difficulty"] = difficulty
        return self.validate_params(merged)

    def validate_params(self, params: dict) -> dict:
        """Check parameter values; return the (possibly completed) dict. Raise ConfigError."""
        return params

    def seed_params(self, params: dict) -> dict:
        """The part of ``params`` that decides which instance is drawn (hashed into item seeds).

        Prompt options are left out, so the same seed gives the same instance whatever they are.
        """
        skip = set(self.prompt_option_names())
        return {k: v for k, v in params.items() if k not in skip}

    # ---- rule switches (the adversarial suite's mutation test) --------------------------------
    def rule_enabled(self, code: str) -> bool:
        """False while ``code`` is switched off by :meth:`rules_disabled` (tests only)."""
        return code not in getattr(self, "_disabled_rules", ())

    def rules_of(self, instance: Instance) -> list[str]:
        """The rule codes that can be broken on ``instance`` (default: all of :attr:`rule_codes`;
        a family overrides it where some rules do not apply to every instance)."""
        return list(self.rule_codes)

    @contextlib.contextmanager
    def rules_disabled(self, *codes: str):
        """Switch rule checks off for the duration (the mutation test in miniature).

        Verifiers consult :meth:`rule_enabled` where each rule is checked, so a switched-off rule
        behaves exactly as if its check had been deleted from the source.
        """
        for code in codes:
            check_choice("rule code", code, list(self.rule_codes))
        before: frozenset[str] = getattr(self, "_disabled_rules", frozenset())
        self._disabled_rules = frozenset(before) | set(codes)
        try:
            yield self
        finally:
            self._disabled_rules = before

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

    def expected_answer(self, instance: Instance) -> str:
        """What a readable answer to ``instance`` looks like, in a few words with the exact marker or
        shape (``a final line `Answer: (A)` or `Answer: (B)```): every ``parse_error`` verdict names it,
        since that message is the next turn's lesson in a multi-turn episode. Families override this."""
        return "an answer in the form the prompt gives"

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
              max_new_tokens: int | None = None, max_answer_chars: int | None = None) -> Verdict:
        """Parse and verify a raw completion. Never raises.

        A completion (or reasoning channel) longer than ``max_answer_chars`` (default
        :data:`~kumo_gym.core.verdict.MAX_ANSWER_CHARS`) is ``too_long``, refused unread.

        The thinking part (before ``</think>`` or the separate ``reasoning`` channel) is never
        used as the answer. A missing answer in a cut-off output is ``truncated``, not wrong.
        """
        refused = too_long(completion, reasoning, max_answer_chars)
        if refused is not None:
            return refused
        if not isinstance(completion, str):
            completion = "" if completion is None else str(completion)
        regions = split_thinking(completion, reasoning)
        cut = looks_truncated(completion, finish_reason, n_output_tokens, max_new_tokens) or regions.unclosed_thinking
        try:
            answer = self.parse(regions.answer)
        except ParseError as e:
            status = "truncated" if (cut or e.truncated) else "hedge" if e.reason == "hedge" else "parse_error"
            msg = ("The output was cut off before a complete answer." if status == "truncated"
                   else f"The answer hedges: {e}" if status == "hedge"
                   else f"No valid answer could be read: {e}")
            return self.teach(instance, Verdict(status, msg, details={"reason": e.reason,
                                                                      "truncated": status == "truncated"}), completion)
        except Exception as e:  # noqa: BLE001 - a parser bug, not the model's mistake
            return scoring_error(self, "parse", e)
        try:
            verdict = self.teach(instance, self.verify(instance, answer), completion)
        except Exception as e:  # noqa: BLE001 - a verifier bug or a bad instance
            return scoring_error(self, "verify", e)
        verdict.details.setdefault("truncated", cut)
        if cut and not verdict.solved and verdict.status not in ("error", "ended"):
            # whatever was read from a cut-off output is not the model's final answer
            # (docs/architecture.md §6): truncated in every family, not wrong or illegal
            return Verdict("truncated", "The output was cut off before a complete answer "
                           f"(what could be read was {verdict.status}: {verdict.message})",
                           score=verdict.score, first_error=verdict.first_error,
                           details={**verdict.details, "read_as": verdict.status})
        return verdict

    def teach(self, instance: Instance, verdict: Verdict, text: str, expected: str | None = None) -> Verdict:
        """``verdict`` with, when nothing could be read from ``text`` (``parse_error``, or ``truncated``
        with nothing read), what was expected (:meth:`expected_answer` unless ``expected`` is given) and
        how the reply began."""
        unread = verdict.status == "parse_error" or (verdict.status == "truncated" and "read_as" not in verdict.details)
        if unread and "Expected " not in verdict.message:
            want = self.expected_answer(instance) if expected is None else expected
            verdict.message = f"{verdict.message.rstrip(' .')}. Expected {want}; {reply_start(text)}."
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

    def load_instance(self, obj: Any) -> Instance:
        """:meth:`load` followed by the family's schema check (``validate_instance``).

        A malformed instance fails here with a ConfigError naming what is wrong, never later in
        ``step()``. Families check their fields in ``validate_instance``; anything their loader
        raises beyond ConfigError is reported as a malformed instance too.
        """
        from .capabilities import InstanceSchema

        try:
            inst = self.load(obj)
            if isinstance(self, InstanceSchema):
                self.validate_instance(inst)
        except ConfigError:
            raise
        except (TypeError, KeyError, IndexError, AttributeError, ValueError, RecursionError, OverflowError) as e:
            raise ConfigError(f"malformed {self.family} instance: {type(e).__name__}: {str(e)[:200]}") from None
        return inst

    def optimal_steps(self, instance: Instance) -> int | None:
        """The optimal number of moves/steps, where the family defines it."""
        return None

    def record_fields(self, instance: Instance) -> dict:
        """Extra JSON-safe fields of this family for dataset records (``make_dataset``)."""
        return {}

    def render(self, instance: Instance, state: Any = None) -> str:
        """A text picture of the instance (or of ``state``) for people."""
        return self.prompt(instance)

    # ---- pictures of answers (kumo-gym report) ------------------------------------------------
    def final_state(self, instance: Instance, answer: Any) -> Any:
        """The state a parsed answer leaves, as :meth:`render` (and ``render_rgb``) take it: a
        grid puzzle's grid, a planning puzzle's state after its legal moves, a SPaRC path. None
        where an answer is no state (a label, a prediction); the default."""
        return None

    def answer_picture(self, instance: Instance, answer: Any, verdict: dict) -> AnswerPicture | None:
        """The final state of ``answer`` (a parsed answer-mode answer) drawn, with what ``verdict``
        (a Verdict as a dict) names marked; None where the answer leaves no state to draw."""
        state = self.final_state(instance, answer)
        return None if state is None else self.state_picture(instance, state, verdict)

    def state_picture(self, instance: Instance, state: Any, verdict: dict, move: Any = None) -> AnswerPicture:
        """``state`` drawn, with what ``verdict`` names marked; ``move`` is the move the verdict
        refuses where the caller knows it (the last move of interactive play).

        The default draws ``render_rgb`` (where the family has it) and :meth:`render` and marks
        nothing; families whose verdicts name cells or moves mark them.
        """
        image = self.render_rgb(instance, state) if isinstance(self, ImageRendering) else None
        return AnswerPicture(image=image, text=self.render(instance, state), caption="The final state.")

    def difficulty_of(self, instance: Instance) -> str | None:
        d = instance.params.get("difficulty")
        return None if d is None else str(d)

    def check_trainable(self, instance: Instance) -> None:  # noqa: B027 - a hook whose default allows all
        """Raise ContaminationError when ``instance`` must not be used for training. Every instance
        may be by default; families with evaluation-only data (official test puzzles, held-out
        domains) override this."""


_LOGGED: set[tuple[str, str, str]] = set()


def folded(text: str) -> list[str]:
    """The lines of a text block written wrapped in the source: a line indented further than the
    block continues the line above (joined with one space); blank lines are dropped."""
    out: list[str] = []
    for line in textwrap.dedent(text).splitlines():
        if not line.strip():
            continue
        if line[0].isspace():
            if not out:
                raise ValueError(f"continuation line before the first line: {line.strip()!r}")
            out[-1] += " " + line.strip()
        else:
            out.append(line.rstrip())
    return out


def rule_table(family: str, text: str) -> dict[str, str]:
    """:attr:`Task.rule_codes` written as a table (:func:`folded`): one rule per line, its short code
    first (``R2 no two tents touch``, or ``bad_peg: ...``). Codes get the prefix ``family.`` (none when
    ``family`` is empty)."""
    table: dict[str, str] = {}
    for line in folded(text):
        code, _, rule = line.partition(" ")
        code = code.removesuffix(":")
        key = f"{family}.{code}" if family else code
        if key in table or not rule.strip():
            raise ValueError(f"rule_table: rule {code!r} repeated or without text")
        table[key] = rule.strip()
    return table


def scoring_error(task: Task, stage: str, exc: BaseException) -> Verdict:
    """The ``error`` verdict for an exception raised while parsing or verifying.

    It pays 0 like a wrong answer but is never confused with one: its status is ``error`` and
    each (family, stage, exception type) is logged once with its traceback.
    """
    key = (task.family, stage, type(exc).__name__)
    if key not in _LOGGED:
        _LOGGED.add(key)
        log.error("%s %s raised %s: %s", task.family, stage, type(exc).__name__, exc, exc_info=exc)
    return Verdict("error", f"The scorer failed ({stage}: {type(exc).__name__}); this is not the answer's fault.",
                   details={"reason": "scoring_error", "stage": stage, "exception": type(exc).__name__,
                            "error": str(exc)[:500]})


class SystemAndUser:
    """Mixin for a task whose prompt is a system part and a user part (``system_prompt`` and
    ``user_prompt``): :meth:`messages` gives them as two chat messages, :meth:`prompt` joins them."""

    def system_prompt(self, instance: Instance) -> str:
        raise NotImplementedError

    def user_prompt(self, instance: Instance) -> str:
        raise NotImplementedError

    def messages(self, instance: Instance) -> list[dict]:
        return [{"role": "system", "content": self.system_prompt(instance)},
                {"role": "user", "content": self.user_prompt(instance)}]

    def prompt(self, instance: Instance) -> str:
        return self.system_prompt(instance) + "\n\n" + self.user_prompt(instance)


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

    Every interactive task supplies ``initial_state``, ``parse_move`` and ``transition``. Games
    with hidden information (KUMO) and tree walks implement ``transition`` directly; puzzles whose
    moves simply change a visible state derive from :class:`StepwiseTask`, which builds
    ``transition`` from ``check_move``, ``apply`` and ``is_goal``.
    """

    @abstractmethod
    def initial_state(self, instance: Instance) -> Any:
        """The state an interactive episode starts from."""

    @abstractmethod
    def parse_move(self, text: str) -> Any:
        """One move from ``text`` (the last move-shaped item). Raises ParseError."""

    @abstractmethod
    def transition(self, instance: Instance, state: Any, move: Any) -> Transition:
        """The outcome of ``move`` in ``state``. An illegal move returns status ``illegal_move``
        with the state unchanged and its rule code in ``details["rule"]``."""

    def format_move(self, move: Any) -> str:
        return str(move)

    def expected_move(self, instance: Instance) -> str:
        """What one readable move looks like (the ``parse_error`` feedback of interactive play names it);
        the answer's form by default."""
        return self.expected_answer(instance)

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


class StepwiseTask(InteractiveTask):
    """An interactive puzzle whose moves change a visible state (planning, SPaRC, grids).

    Implement ``check_move`` (None when legal, else the rule code), ``apply``, ``is_goal`` and
    ``legal_moves``; :meth:`transition` combines them.
    """

    def check_move(self, instance: Instance, state: Any, move: Any) -> str | None:
        """None when ``move`` is legal in ``state``; otherwise its reason (rule) code."""
        return None

    @abstractmethod
    def apply(self, instance: Instance, state: Any, move: Any) -> Any:
        """The state after the legal ``move``."""

    @abstractmethod
    def is_goal(self, instance: Instance, state: Any) -> bool:
        """Whether ``state`` solves the puzzle."""

    @abstractmethod
    def legal_moves(self, instance: Instance, state: Any) -> list:
        """Every legal move in ``state`` (used by the structured wrapper and random agents)."""

    def transition(self, instance: Instance, state: Any, move: Any) -> Transition:
        return self.checked_step(instance, state, move)

    def checked_step(self, instance: Instance, state: Any, move: Any,
                     solved: str = "Solved: the goal is reached.") -> Transition:
        """``check_move``, ``apply`` and ``is_goal`` as one transition; ``solved`` is the goal's feedback."""
        reason = self.check_move(instance, state, move)
        if reason is not None:  # the rule's code, and its text where the task has one (what a fix needs)
            codes = getattr(self, "rule_codes", None)
            text = codes.get(reason) if isinstance(codes, dict) else None
            return Transition(state, "illegal_move",
                              f"Illegal move {self.format_move(move)}: {reason}{f' ({text})' if text else ''}.",
                              details={"reason": reason, "rule": reason})
        new_state = self.apply(instance, state, move)
        if self.is_goal(instance, new_state):
            return Transition(new_state, "solved", solved, reward=1.0)
        return Transition(new_state, "continue", f"Move {self.format_move(move)} applied.")
