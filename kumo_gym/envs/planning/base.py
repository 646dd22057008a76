"""What the four planning puzzles share (docs/specs/planning.md §1, §4-§6, §8).

:class:`PlanningTask` turns a puzzle's rules (``initial_state``, ``check_move``, ``apply``,
``goal_state``) and its exact solver (``distance``, ``path_from``) into the whole Task protocol:
parameters, parsing with the docs/specs/planning.md §5 extraction, move-by-move verification with the
docs/specs/planning.md §6.1 outcomes and the progress-based partial credit, prompts with a system and a user part,
interactive play, and the reward-integrity capabilities (near misses, cheap strategies, a random answer). The puzzle
modules say only what differs.
"""
from __future__ import annotations

import dataclasses
import math
import re
from abc import abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ...core.capabilities import AnswerPicture, CheapAnswer, NearMiss
from ...core.errors import ConfigError, ParseError, check_int
from ...core.instance import Instance
from ...core.params import Params, param, param_bounds
from ...core.task import StepwiseTask, SystemAndUser, folded, scoring_error
from ...core.verdict import Verdict
from .. import raster
from ..answer import AnswerEnv
from ..interactive import DEFAULT_MAX_INVALID, InteractiveEnv
from . import moves as mv

#: Statuses of the docs/specs/planning.md §6.1 mapped onto the core Verdict statuses.
SPEC_OUTCOME = {"solved": "solved", "illegal_move": "illegal_move", "incomplete": "incomplete",
                "parse_error": "parse_failure", "truncated": "truncated", "wrong": "wrong", "error": "error"}
#: the rule code of the goal test (every planning puzzle has it)
GOAL_RULE = "goal_not_reached"
GOAL_RULE_TEXT = "the final state of a move list whose moves are all legal is the goal state"
#: colours of the pictures (:meth:`PlanningTask.picture`): distinct hues for disks and blocks
HUES = [(214, 39, 40), (31, 119, 180), (44, 160, 44), (255, 127, 14), (148, 103, 189), (140, 86, 75),
        (227, 119, 194), (188, 189, 34), (23, 190, 207), (255, 187, 120), (152, 223, 138), (197, 176, 213)]
BACKGROUND, GROUND, PEG = (250, 250, 250), (120, 120, 120), (90, 70, 50)
#: docs/specs/planning.md §6.2: interactive max_steps = ceil(step_budget * optimal_length)
STEP_BUDGET = 2.0
#: verdicts list the parsed moves only up to this many (a Hanoi N=20 answer has a million)
MAX_DETAIL_MOVES = 10_000
#: docs/specs/planning.md §8.1: the paper's output limit and the tokens kept free for prose around the answer
MAX_NEW_TOKENS = 64_000
TOKEN_RESERVE = 512
START_CHOICES = ("canonical", "random")
PARTIAL_CREDIT = (
    "1 when solved; otherwise max(0, 2P - k - 1) / (d0 - 1), where d0 is the optimal number of moves, k the "
    "number of legal moves before the first illegal one (all moves if none is illegal) and P = d0 - d the "
    "distance to the goal those k moves removed (d, the exact distance left after them, comes from the "
    "puzzle's optimal solver): moves that do not bring the goal closer cost as much as they could have gained, "
    "and the first move is free to guess, so walks, back-and-forth moves and lists of every legal move earn "
    "nothing; 0 when the goal was reached and the answer went on past it")


#: parse_move's cache of action texts (at most this many, each at most MOVE_CACHE_TEXT long)
MOVE_CACHE_SIZE = 4096
MOVE_CACHE_TEXT = 200
#: rendered states kept per instance for the observations
STATE_TEXT_CACHE = 4096


def _copy_move(move):
    """A copy of a parsed move (nested lists of atoms)."""
    return [_copy_move(x) for x in move] if isinstance(move, list) else move


# ---- parameters ----------------------------------------------------------------------------
@dataclass(frozen=True)
class PlanningParams(Params):
    """Parameters every planning puzzle takes (subclasses bound ``n`` and add their own)."""

    n: int | None = param(None, kind=int, lo=1, doc="the size N; overrides the preset's bucket")
    # param() returns a dataclasses.field, which ruff cannot see for list-typed fields
    n_range: list | None = param(None, kind=list,  # noqa: RUF009
                                 doc="[lo, hi]: N drawn uniformly from lo..hi for each instance")
    n_choices: list | None = param(None, kind=list,  # noqa: RUF009
                                   doc="N drawn uniformly from these sizes for each instance")
    start: str = param("canonical", choices=START_CHOICES,
                       doc="canonical: the paper's instance for N; random: a random start (and goal) with the "
                           "optimum from the exact solver, so each N is many puzzles")
    algorithm_hint: bool = param(False, prompt=True,
                                 doc="append a solution procedure to the prompt (docs/specs/planning.md §8.3)")
    stepwise: bool = param(False, prompt=True,
                           doc="ask for the full state after every move (docs/specs/planning.md §6.2)")

    #: the largest N: the upper bound of ``n`` (a subclass redeclares ``n`` with its own bound)
    max_n: ClassVar[int] = 100

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        declared = cls.__dict__.get("n")
        if isinstance(declared, dataclasses.Field) and param_bounds(declared)[1] is not None:
            cls.max_n = int(param_bounds(declared)[1])

    def check(self) -> PlanningParams:
        changes: dict[str, Any] = {}
        if self.n_range is not None:
            if len(self.n_range) != 2:
                raise ConfigError(f"n_range {self.n_range!r} is not a pair [lo, hi] of sizes")
            lo, hi = (check_size("n_range", v, self.max_n) for v in self.n_range)
            if lo > hi:
                raise ConfigError(f"n_range {self.n_range!r} is empty (lo > hi)")
            changes["n_range"] = [lo, hi]
        if self.n_choices is not None:
            if not self.n_choices:
                raise ConfigError("n_choices [] is empty; give at least one size")
            changes["n_choices"] = [check_size("n_choices", v, self.max_n) for v in self.n_choices]
        return dataclasses.replace(self, **changes) if changes else self


def check_size(name: str, value: Any, hi: int) -> int:
    """``value`` as an int in 1..hi (ConfigError naming ``name`` otherwise); bounded work on any value."""
    if isinstance(value, str) and len(value) > 20:
        raise ConfigError(f"{name} {value[:20]!r}... is not an integer")
    return check_int(name, value, 1, hi)


def bucket_presets(buckets: dict[str, tuple[int, int]], fixed: dict[str, int] | None = None, **extra) -> dict:
    """Preset table: named N buckets (sampled with the rng) and fixed-N presets."""
    out = {name: {"n_range": [lo, hi], **extra} for name, (lo, hi) in buckets.items()}
    for name, n in (fixed or {}).items():
        out[name] = {"n": n, **extra}
    return out


def _document_rules(cls: type) -> None:
    """Close a task's ``rule_codes`` with the goal rule every planning puzzle checks last, and append
    the rule table, in checking order, to its docstring (its manual)."""
    cls.rule_codes = {**{c: t for c, t in cls.rule_codes.items() if c != GOAL_RULE}, GOAL_RULE: GOAL_RULE_TEXT}
    rows = "\n".join(f"| ``{code}`` | {text} |" for code, text in cls.rule_codes.items())
    cls.__doc__ = (cls.__doc__ or "").rstrip() + (
        "\n\n    ## Rules\n    Checked in this order; a verdict names the first broken rule in "
        "``details['rule']``.\n\n    | code | rule |\n    |---|---|\n"
        + "\n".join("    " + line for line in rows.splitlines()) + "\n")


# ---- the task -------------------------------------------------------------------------------
class PlanningTask(SystemAndUser, StepwiseTask):
    """Base class of Hanoi, Checker Jumping, River Crossing and Blocks World.

    Subclasses define the puzzle (``build``, ``initial_state``, ``goal_state``, ``check_move``,
    ``apply``, ``coerce_move``, ``optimal_length``, ``solve``), its exact solver for any state
    (``distance``, ``path_from``), the candidates of the near-miss search
    (``candidate_moves``), the instance schema (``validate_instance``) and its text (``rules``,
    ``example``, ``describe``). Answers are lists of moves, each move a list (``[disk, from,
    to]``, ``["R", 0, 1]``, ``["A_1", "a_1"]``).
    """

    #: the Instance family, e.g. ``hanoi``; the catalogue groups the four as ``planning``
    family: ClassVar[str] = ""
    #: the puzzle's name in messages
    puzzle: ClassVar[str] = ""
    Params: ClassVar[type[PlanningParams]] = PlanningParams
    partial_credit: ClassVar[str] = PARTIAL_CREDIT
    template_field_names: ClassVar[tuple[str, ...]] = (
        "N", "k", "n_stacks", "initial_state", "goal_state", "rules", "format_example", "answer_format", "system",
        "user")
    #: one move in words, as the answer lists it (``[disk id, from peg, to peg]``)
    move_fields: ClassVar[str] = ""
    #: one move by example (``[1, 0, 2]``), also shown when a move cannot be read
    move_example: ClassVar[str] = ""

    @property
    def answer_format(self) -> str:
        """The shape of the final answer line, shown in prompts (docs/specs/planning.md §4)."""
        return f"moves = [{self.move_fields}, ...]"

    def expected_answer(self, instance: Instance) -> str:
        return f"a final line `{self.answer_format}` listing every move"

    def expected_move(self, instance: Instance) -> str:
        return f"one move written as {self.move_format_for(instance)}"

    @property
    def move_format(self) -> str:
        """One move for interactive play, in words and by the class's example."""
        return f"{self.move_fields}, e.g. {self.move_example}"

    def move_example_for(self, instance: Instance) -> str:
        """One move of the form this instance accepts: the class's ``move_example`` where it is legal
        at the start, else the first legal move there; never one that wins at once (an example must not
        be the answer). Guess, whose catalogue is every code, overrides it."""
        start = self.initial_state(instance)
        try:
            candidates = [self.parse_move(self.move_example)]
        except ParseError:
            candidates = []
        for move in candidates + self.legal_moves(instance, start)[:64]:
            if self.check_move(instance, start, move) is None and \
                    not self.is_goal(instance, self.apply(instance, start, move)):
                return self.format_move(move)
        return self.move_example

    def move_format_for(self, instance: Instance) -> str:
        """One move for interactive play on ``instance``, in words and by an example that fits it."""
        return f"{self.move_fields}, e.g. {self.move_example_for(instance)}"

    #: moves are integer triples (Tower of Hanoi): long answers are read by numpy
    int_moves: ClassVar[bool] = False
    #: rule code -> why no move can break that rule alone and still leave the goal reachable
    #: (with the rule's check switched off such a move is still refused, or strands the puzzle)
    rules_never_alone: ClassVar[dict[str, str]] = {}

    def __init_subclass__(cls, **kwargs):
        """A puzzle that declares ``rule_codes`` gets the goal rule last and the rule table in its
        manual (:func:`_document_rules`)."""
        super().__init_subclass__(**kwargs)
        if "rule_codes" in cls.__dict__:
            _document_rules(cls)

    def __init__(self):
        super().__init__()
        self._cache_key: Instance | None = None
        self._cache: dict = {}

    @property
    def max_n(self) -> int:
        return self.Params.max_n

    def template_fields(self, instance: Instance) -> dict:
        """The ``{placeholders}`` a user ``prompt_template`` may use (docs/specs/planning.md §4)."""
        return template_fields(self, instance)

    def cached(self, instance: Instance, key: str, make):
        """A value computed once per instance (the last instance used; a task is shared by envs). A copy that
        only records where the instance came from (a reset's seed and split, the same ``data`` and ``params``
        objects) is the same instance here: each reset would otherwise solve its puzzle twice."""
        last = self._cache_key
        if last is not instance and not (last is not None and last.data is instance.data
                                         and last.params is instance.params and last.family == instance.family):
            self._cache_key, self._cache = instance, {}
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]

    @property
    def move_rules(self) -> list[str]:
        """The rule codes of single moves (every code but the goal test)."""
        return [c for c in self.rule_codes if c != GOAL_RULE]

    # ---- parameters and generation ----------------------------------------------------------
    def validate_params(self, params: dict) -> dict:
        """Fill the size from the default preset when none is given (e.g. only a prompt option)."""
        params = dict(params)
        if all(params.get(key) is None for key in ("n", "n_range", "n_choices")):
            defaults = {s.name: s.default for s in self.Params.specs()}
            for key, value in self.difficulties[self.default_difficulty].items():
                if params.get(key) == defaults.get(key):
                    params[key] = value
            params = self.Params.from_kwargs({k: v for k, v in params.items() if k != "difficulty"}).to_dict() | (
                {"difficulty": params["difficulty"]} if "difficulty" in params else {})
        return params

    def pick_n(self, rng: np.random.Generator, params: dict) -> int:
        """N from the parameters, or drawn uniformly from the preset's ``n_choices`` or ``n_range``."""
        if params.get("n") is not None:
            return int(params["n"])
        if params.get("n_choices"):
            return int(params["n_choices"][int(rng.integers(0, len(params["n_choices"])))])
        lo, hi = params["n_range"]
        return int(rng.integers(lo, hi + 1))

    def generate(self, rng: np.random.Generator, **params) -> Instance:
        if "start" not in params or any(k not in params for k in self.Params.names()):
            params = self.resolve_params(**{k: v for k, v in params.items() if k != "difficulty"},
                                         **({"difficulty": params["difficulty"]} if "difficulty" in params else {}))
        n = self.pick_n(rng, params)
        data = self.build(n, params, rng)
        inst = Instance(self.family, data, params={k: v for k, v in params.items() if v is not None})
        self.validate_instance(inst)
        return inst

    @abstractmethod
    def build(self, n: int, params: dict, rng: np.random.Generator) -> dict:
        """The instance data for size ``n``; ``start="random"`` draws its variation from ``rng``."""
        raise NotImplementedError

    def load(self, obj: Any) -> Instance:
        """An Instance, its dict/JSON form, or a plain dict of puzzle parameters (``{"n": 3}``)."""
        if isinstance(obj, bool):
            raise ConfigError(f"cannot read a {self.puzzle} instance from {obj!r}")
        if isinstance(obj, int):
            obj = {"n": obj}
        if isinstance(obj, dict) and "family" not in obj:
            given = self.given_state(obj)
            if given is None:
                return self.from_parameters(obj)
            inst = Instance(self.family, *given)
            self.validate_instance(inst)
            return inst
        return super().load(obj)

    def given_state(self, obj: dict) -> tuple[dict, dict] | None:
        """(data, params) of a plain dict that gives the start itself (e.g. ``initial``), else None."""
        return None

    def from_parameters(self, obj: dict) -> Instance:
        """The instance of explicit parameters; ``n`` is required (a replay names its puzzle)."""
        if obj.get("n") is None:
            raise ConfigError(f"a {self.puzzle} instance needs 'n' (an integer 1..{self.max_n}); "
                              f"got keys {sorted(map(str, obj))}")
        params = self.resolve_params(**obj)
        if params.get("start") == "random":
            raise ConfigError("start='random' draws its puzzle from a seed: use generate() or an env, or pass "
                              "'initial' and 'goal' to replay a given one")
        return Instance(self.family, self.build(params["n"], params, np.random.default_rng(0)),
                        params={k: v for k, v in params.items() if v is not None})

    def validate_instance(self, instance: Instance) -> None:
        """Raise ConfigError naming the first bad field of ``instance`` (subclasses check their data)."""
        if not isinstance(instance.data, dict):
            raise ConfigError(f"{self.puzzle} instance data must be a dict, not {type(instance.data).__name__}")
        check_size("n", instance.data.get("n"), self.max_n)

    def record_fields(self, instance: Instance) -> dict:
        """``min_answer_tokens`` and ``budget_feasible`` (docs/specs/planning.md §8.1), for dataset records.

        Tokens of the optimal answer line, counted as words and punctuation marks (the same count
        on every machine, unlike a model's tokenizer), against the paper's 64k output limit less
        a reserve of 512 tokens for prose.
        """
        need = self.min_answer_tokens(instance)
        return {"min_answer_tokens": need, "budget_feasible": need <= MAX_NEW_TOKENS - TOKEN_RESERVE,
                "token_budget": MAX_NEW_TOKENS, "compositional_depth": self.optimal_length(instance),
                "solvable": bool(instance.data.get("solvable", True))}

    def min_answer_tokens(self, instance: Instance) -> int:
        """Tokens (:func:`answer_tokens`) of the optimal answer line, without building the whole text."""
        gold = self.solve(instance)
        if gold == "UNSOLVABLE":
            return answer_tokens("moves = UNSOLVABLE")
        # "moves = [" + moves joined by ", " + "]": separators are one comma each
        return 3 + sum(answer_tokens(self.format_move(m)) for m in gold) + max(0, len(gold) - 1) + 1

    def difficulty_of(self, instance: Instance) -> str | None:
        d = instance.params.get("difficulty")
        return None if d is None else str(d)

    # ---- the puzzle (subclasses) ------------------------------------------------------------
    @abstractmethod
    def goal_state(self, instance: Instance) -> Any:
        raise NotImplementedError

    def goal(self, instance: Instance) -> Any:
        """:meth:`goal_state`, built once per instance (it is compared after every move)."""
        return self.cached(instance, "goal", lambda: self.goal_state(instance))

    def is_goal(self, instance: Instance, state: Any) -> bool:
        return state == self.goal(instance)

    @abstractmethod
    def optimal_length(self, instance: Instance) -> int | None:
        raise NotImplementedError

    def optimal_steps(self, instance: Instance) -> int | None:
        return self.cached(instance, "optimum", lambda: self.optimal_length(instance))

    @abstractmethod
    def distance(self, instance: Instance, state: Any) -> int | None:
        """The exact number of moves from ``state`` to the goal; None when it cannot be reached
        (or, for searches with a budget, when the exact value is out of reach)."""
        raise NotImplementedError

    @abstractmethod
    def path_from(self, instance: Instance, state: Any) -> list | None:
        """An optimal legal move list from ``state`` to the goal, or None."""
        raise NotImplementedError

    def candidate_moves(self, instance: Instance, state: Any) -> list:
        """Moves that the near-miss search tries in ``state``: every legal move and moves that break
        each rule (out-of-range indices, their negative aliases, unknown names ...)."""
        return self.move_catalog(instance)

    @abstractmethod
    def coerce_move(self, value: Any) -> list:
        """A parsed item as a canonical move, or ParseError(malformed_move)."""
        raise NotImplementedError

    def is_single_move(self, value: Any) -> bool:
        """Whether a parsed list is one move rather than a list of moves."""
        return isinstance(value, list) and len(value) == 3 and not any(isinstance(v, list) for v in value)

    # ---- text -------------------------------------------------------------------------------
    @abstractmethod
    def rules(self, instance: Instance) -> str:
        raise NotImplementedError

    @abstractmethod
    def example(self) -> tuple[str, list]:
        """(description of the example instance, its complete solution) for the system part: the paper's
        worked example, which the ``paper`` preset shows as it is."""
        raise NotImplementedError

    def other_examples(self) -> list[tuple[str, list]]:
        """Further worked examples, of other sizes or relabelled, for instances that :meth:`example`
        would answer (first one that does not answer the instance wins)."""
        return []

    def example_for(self, instance: Instance) -> tuple[str, list]:
        """The worked example the prompt shows for ``instance``: never a valid answer to it, except under the
        ``paper`` preset, which keeps the paper's example (``info["example_is_instance"]`` says when it answers
        the instance)."""
        def memo() -> tuple[str, list]:
            candidates = [self.example(), *self.other_examples()]
            if instance.params.get("difficulty") == "paper":
                return candidates[0]
            for desc, sol in candidates:
                if not self.example_answers(instance, sol):
                    return desc, sol
            raise AssertionError(f"every worked example of {self.puzzle} answers this instance")  # pragma: no cover
        return self.cached(instance, "worked_example", memo)

    def example_answers(self, instance: Instance, moves: list) -> bool:
        """Whether the move list ``moves`` solves ``instance`` (the worked example would be its answer)."""
        try:
            return bool(self.verify(instance, self.parse(self.format_answer(moves))).solved)
        except Exception:  # noqa: BLE001 - an example that cannot even be read as an answer answers nothing
            return False

    @abstractmethod
    def describe(self, instance: Instance) -> str:
        """The user part: the instance's start and goal."""
        raise NotImplementedError

    def start_and_goal(self, instance: Instance, initial_label: str, goal_label: str) -> str:
        """The start and the goal, each rendered after its label, one line ending each."""
        return (f"{initial_label}{self.render_state(instance, self.initial_state(instance))}\n"
                f"{goal_label}{self.render_state(instance, self.goal(instance))}\n")

    def canonical(self, instance: Instance) -> bool:
        """Whether the instance is the paper's family, solved in closed form (and hinted)."""
        return False

    #: the solution procedure of a canonical instance, for ``algorithm_hint``: a text block
    #: (:func:`~kumo_gym.core.task.folded`) whose ``{field}`` is the instance's (``{n}``); puzzles
    #: without canonical instances (:meth:`canonical` False) leave it empty
    procedure_prompt: ClassVar[str] = ""
    #: the system prompt's duties after the worked example: what to write while thinking, and with
    #: ``stepwise`` what to write after each move
    thinking_prompt: ClassVar[str] = ("Indices of pegs, stacks and positions start at 0. While you think, write out the "
                                      "complete move list every time you try a candidate solution, not just its first "
                                      "moves.")
    stepwise_prompt: ClassVar[str] = ("Work step by step: after each move, write the full state it produces, then the "
                                      "next move.")

    def procedure(self, instance: Instance) -> str | None:
        """:attr:`procedure_prompt` filled in for ``instance`` (None when the puzzle has none)."""
        if not self.procedure_prompt:
            return None
        return "\n".join(folded(self.procedure_prompt)).format_map(instance.data)

    def algorithm_hint(self, instance: Instance) -> str | None:
        return self.procedure(instance) if self.canonical(instance) else None

    def system_prompt(self, instance: Instance) -> str:
        """System part (docs/specs/planning.md §4): rules, a worked example, thinking and answer-format duties."""
        desc, sol = self.example_for(instance)
        parts = [self.rules(instance),
                 (f"Worked example (another puzzle, not yours). {desc}\nA complete solution:\n"
                  f"moves = {self.format_moves(sol)}"),
                 self.thinking_prompt]
        hint = self.algorithm_hint(instance) if instance.params.get("algorithm_hint") else None
        if hint:
            parts.append(hint)
        if instance.params.get("stepwise"):
            parts.append(self.stepwise_prompt)
        return "\n\n".join(parts)

    def user_prompt(self, instance: Instance) -> str:
        """The instance, then the answer format last (the prompt ends with what to write)."""
        return (f"{self.describe(instance)}\n\n"
                f"End your reply with the final answer on one line in exactly this form:\n{self.answer_format}")

    def interactive_prompt(self, instance: Instance) -> str:
        return (self.rules(instance) + "\n\n" + self.describe(instance) +
                f"\n\nPlay one move per turn. Each reply must hold exactly one move, written as {self.move_format_for(instance)}.")

    def format_move(self, move: Any) -> str:
        return "[" + ", ".join(f'"{x}"' if isinstance(x, str) else str(x) for x in move) + "]"

    def format_moves(self, moves: list) -> str:
        return "[" + ", ".join(self.format_move(m) for m in moves) + "]"

    def format_answer(self, answer: Any) -> str:
        if answer == "UNSOLVABLE":
            return "moves = UNSOLVABLE"
        return "moves = " + self.format_moves(answer)

    def observation(self, instance: Instance, state: Any, feedback: str = "", step: int = 0) -> str:
        """State, goal, move count and the last feedback (docs/specs/planning.md §6.2)."""
        head = f"{feedback}\n\n" if feedback else ""
        goal = self.cached(instance, "goal_text", lambda: self.render_state(instance, self.goal(instance)))
        texts = self.cached(instance, "state_texts", dict)  # states recur within an episode and across resets
        try:
            now = texts.get(state)
        except TypeError:  # a state that cannot be hashed is rendered every time
            return f"{head}Moves made: {step}\nCurrent state:\n{self.render_state(instance, state)}\nGoal state:\n{goal}"
        if now is None:
            now = self.render_state(instance, state)
            if len(texts) < STATE_TEXT_CACHE:
                texts[state] = now
        return f"{head}Moves made: {step}\nCurrent state:\n{now}\nGoal state:\n{goal}"

    def render(self, instance: Instance, state: Any = None) -> str:
        state = self.initial_state(instance) if state is None else state
        return self.render_state(instance, state)

    @abstractmethod
    def picture(self, instance: Instance, state: Any) -> tuple[np.ndarray, dict]:
        """An RGB picture of ``state`` and where its places are: ``{place: (x0, y0, x1, y1)}``
        for every peg, position, stack or person a move can name (see :meth:`move_places`)."""
        raise NotImplementedError

    def move_places(self, instance: Instance, move: Any) -> list:
        """The places of :meth:`picture` that ``move`` names (a ``[piece, from, to]`` move names
        ``(place_kind, from)`` and ``(place_kind, to)``); places outside the board are left out."""
        if isinstance(move, (list, tuple)) and len(move) == 3:
            return [(self.place_kind, m) for m in move[1:] if type(m) is int]
        return []

    #: what a ``[piece, from, to]`` move's numbers index: ``"peg"``, ``"position"``, ``"stack"``
    place_kind: ClassVar[str] = ""

    def render_rgb(self, instance: Instance, state: Any = None) -> np.ndarray:
        """An RGB picture of ``state`` (default: the start) at a readable size (:meth:`picture`)."""
        return self.picture(instance, self.initial_state(instance) if state is None else state)[0]

    def final_state(self, instance: Instance, answer: Any) -> Any:
        """The state after the answer's legal moves (those before the first illegal one)."""
        if not isinstance(answer, (list, mv.MoveArray)):
            return None  # "UNSOLVABLE" is a claim, not a state
        return self.simulate(instance, answer)["state"]

    def answer_picture(self, instance: Instance, answer: Any, verdict: dict) -> AnswerPicture | None:
        if not isinstance(answer, (list, mv.MoveArray)):
            return None
        sim = self.simulate(instance, answer)
        bad = answer[sim["n_legal_prefix"]] if sim["reason"] is not None else None
        return self.state_picture(instance, sim["state"], verdict, bad)

    def state_picture(self, instance: Instance, state: Any, verdict: dict, move: Any = None) -> AnswerPicture:
        """The state, with the places of the refused ``move`` (the first illegal move of an
        answer, the last move of interactive play) framed in ``raster.MARK``."""
        img, places = self.picture(instance, state)
        img = img.copy()
        named = [pl for pl in (self.move_places(instance, move) if move is not None else []) if pl in places]
        marks = []
        for pl in dict.fromkeys(named):
            raster.frame(img, places[pl], 3, raster.MARK)
            marks.append({"what": "move", "at": self.format_move(move), "place": list(pl), "first": True,
                          "box": [int(v) for v in places[pl]]})
        caption = "The state after the legal moves."
        if move is not None:
            where = ", ".join(f"{k} {v}" for k, v in dict.fromkeys(named))
            caption += (f" The refused move {self.format_move(move)}" + (f" names {where}, framed in red" if where else
                                                                        " names nothing on the board") + ".")
        text = self.render_state(instance, state)
        if move is not None:
            text += f"\nrefused move: {self.format_move(move)}"
        return AnswerPicture(image=img, text=text, marks=marks, caption=caption)

    def step_basis(self, instance: Instance) -> int:
        """The length an interactive episode's step budget multiplies: the optimum (an unsolvable
        instance has none: the budget of a long solvable one)."""
        return self.optimal_steps(instance) or 4 * int(instance.data.get("n", 1)) + 1

    def budget_steps(self, instance: Instance, step_budget: float = STEP_BUDGET) -> int:
        """The steps (moves, unreadable replies included) an interactive episode may take."""
        return max(1, math.ceil(step_budget * self.step_basis(instance)))

    def max_steps(self, instance: Instance) -> int:
        return self.budget_steps(instance)

    # ---- parsing ----------------------------------------------------------------------------
    def parse(self, text: str) -> list | str:
        """The move list in ``text`` (docs/specs/planning.md §5); raises ParseError with a reason code.

        ``moves = UNSOLVABLE`` (docs/specs/planning.md §8.2) parses to the string ``"UNSOLVABLE"``. The list
        returned carries its extraction record (source, candidates) for the verdict.
        """
        text = text if isinstance(text, str) else str(text)
        try:
            return mv.read_moves(text, self.coerce_move, self.is_single_move, int_moves=self.int_moves)[0]
        except ParseError:
            if _claims_unsolvable(text):
                return "UNSOLVABLE"
            raise

    def parse_move(self, text: str) -> list:
        text = text if isinstance(text, str) else str(text)
        # an agent sends the same few action strings again and again: short ones are read once
        # (a fresh copy each time, since the env keeps the moves it applies)
        cache = self.__dict__.setdefault("_move_cache", {})
        hit = cache.get(text)
        if hit is not None and not getattr(self, "_disabled_rules", None):
            return _copy_move(hit)
        # the fields, not an example: the parser sees no instance (the verdict adds the instance's example)
        move = mv.read_one_move(text, self.coerce_move, self.is_single_move, self.move_fields)
        if len(text) <= MOVE_CACHE_TEXT and not getattr(self, "_disabled_rules", None):
            if len(cache) >= MOVE_CACHE_SIZE:
                cache.clear()
            cache[text] = _copy_move(move)
        return move

    # ---- verification -----------------------------------------------------------------------
    def simulate(self, instance: Instance, moves: list) -> dict:
        """Play ``moves`` from the start; stop at the first illegal one (docs/specs/planning.md §6.1)."""
        state = self.initial_state(instance)
        goal = self.goal(instance)
        check, apply = self.check_move, self.apply
        goal_at = None
        for i, move in enumerate(moves):
            reason = check(instance, state, move)
            if reason is not None:
                return {"n_legal_prefix": i, "reason": reason, "state": state, "goal_first_reached_at": goal_at}
            state = apply(instance, state, move)
            if goal_at is None and state == goal:
                goal_at = i + 1
        return {"n_legal_prefix": len(moves), "reason": None, "state": state, "goal_first_reached_at": goal_at}

    def verify(self, instance: Instance, answer: Any) -> Verdict:
        """Check a move list move by move (docs/specs/planning.md §6.1); ``score`` is the progress of
        :data:`PARTIAL_CREDIT`."""
        if answer == "UNSOLVABLE":
            return self._verify_claim(instance, instance.data.get("solvable", True))
        if isinstance(answer, mv.MoveArray):
            return self.verify_moves(instance, answer)
        if not isinstance(answer, list):
            return Verdict("parse_error", f"The answer is not a move list: {str(answer)[:60]!r}.",
                           details={"reason": "malformed_move"})
        if not isinstance(answer, mv.MoveList):
            try:
                answer = [self.coerce_move(m) for m in answer]
            except ParseError as e:
                return Verdict("parse_error", f"The answer is not a move list: {e}", details={"reason": e.reason})
        return self.verify_moves(instance, answer)

    def verify_moves(self, instance: Instance, moves: list) -> Verdict:
        """:meth:`verify` for a list of canonical moves (as :meth:`parse` returns them)."""
        opt = self.optimal_steps(instance)
        solvable = instance.data.get("solvable", True)
        try:
            sim = self.simulate(instance, moves)
        except (IndexError, KeyError, TypeError, ValueError) as e:
            # only reachable with a rule switched off (a deleted check lets a bad index through)
            return scoring_error(self, "verify", e)
        k = sim["n_legal_prefix"]
        details = {"n_moves": len(moves), "n_legal_prefix": k, "optimal_length": opt,
                   "solvable": solvable, "goal_first_reached_at": sim["goal_first_reached_at"],
                   **moves_details(moves)}
        if not solvable:
            # docs/specs/planning.md §6.1 outcome unsolvable_instance: no move list can be right; such samples are
            # kept out of accuracy by the analysis
            details.update(reason="unsolvable_instance", outcome="unsolvable_instance", is_optimal=False,
                           excess_moves=None, illegal_reason=sim["reason"])
            return Verdict("wrong", "This instance has no solution, so no move list can solve it.",
                           details=details)
        at_goal = sim["reason"] is None and self.is_goal(instance, sim["state"])
        if at_goal or (sim["reason"] is None and not self.rule_enabled(GOAL_RULE)):
            details.update(outcome="solved", is_optimal=opt is not None and k == opt,
                           excess_moves=None if opt is None else k - opt)
            return Verdict("solved", f"Solved in {k} moves (optimal: {opt}).", 1.0, details=details)
        score, exact = self.progress(instance, k, sim["state"], sim["goal_first_reached_at"])
        details["distance_exact"] = exact
        if sim["reason"] is not None:
            details.update(reason=sim["reason"], rule=sim["reason"], outcome="illegal_move", is_optimal=False,
                           excess_moves=None)
            return Verdict("illegal_move", f"Move {k + 1} {self.format_move(moves[k])} is illegal: "
                           f"{sim['reason'].replace('_', ' ')}.", score, first_error=k + 1, details=details)
        details.update(reason=GOAL_RULE, rule=GOAL_RULE, outcome="incomplete", is_optimal=False, excess_moves=None)
        left = " (it was reached earlier and left again)" if sim["goal_first_reached_at"] else ""
        return Verdict("incomplete", f"All {k} moves are legal but the goal is not reached{left}.",
                       score, first_error=k + 1, details=details)

    def progress(self, instance: Instance, k: int, state: Any, goal_reached_at: int | None) -> tuple[float, bool]:
        """The partial score of :data:`PARTIAL_CREDIT` and whether its distance was exact."""
        d0 = self.optimal_steps(instance)
        if not d0 or d0 <= 1 or goal_reached_at is not None:
            return 0.0, True
        d = self.distance(instance, state)
        if d is None:
            return 0.0, self.distance_exact(instance)
        gained = d0 - d
        return max(0.0, (2 * gained - k - 1) / (d0 - 1)), True

    def distance_exact(self, instance: Instance) -> bool:
        """Whether a None from :meth:`distance` means "unreachable" (True) or "not computed"."""
        return True

    def _verify_claim(self, instance: Instance, solvable: bool) -> Verdict:
        """``moves = UNSOLVABLE`` (docs/specs/planning.md §8.2): right only on unsolvable instances."""
        details = {"n_moves": 0, "n_legal_prefix": 0, "optimal_length": self.optimal_steps(instance),
                   "solvable": solvable, "moves": "UNSOLVABLE"}
        if not solvable and instance.params.get("accept_impossibility_claim"):
            return Verdict("solved", "Correct: this instance has no solution.", 1.0,
                           details={**details, "outcome": "solved"})
        reason = "false_unsolvable_claim" if solvable else "unsolvable_instance"
        details["outcome"] = reason
        msg = ("The instance is solvable, but the answer claims it is not." if solvable
               else "The instance is unsolvable; impossibility claims are not accepted for it.")
        return Verdict("wrong", msg, details={**details, "reason": reason})

    def score(self, instance: Instance, completion: str, *, reasoning: str | None = None,
              finish_reason: str | None = None, n_output_tokens: int | None = None,
              max_new_tokens: int | None = None, fallback_to_thinking: bool = False,
              max_answer_chars: int | None = None) -> Verdict:
        """:meth:`Task.score`, plus the docs/specs/planning.md §5-§6.1 report fields and the ``fallback_to_thinking``
        option.

        Adds ``outcome`` (the spec's name of the status), ``optimal_length`` and
        ``self_truncation_evidence`` (a flag only, never scored); with ``fallback_to_thinking``
        a completion whose answer region holds no move list is scored from its thinking
        (``answer_from_thinking``).
        """
        meta = {"reasoning": reasoning, "finish_reason": finish_reason, "n_output_tokens": n_output_tokens,
                "max_new_tokens": max_new_tokens, "max_answer_chars": max_answer_chars}
        verdict = super().score(instance, completion, **meta)
        if verdict.status == "too_long":
            return verdict  # refused unread: nothing of the text is scanned
        from_thinking = False
        if fallback_to_thinking and verdict.status in ("parse_error", "truncated"):
            from ...core.extract import split_thinking

            thinking = split_thinking(completion if isinstance(completion, str) else str(completion), reasoning).thinking
            if thinking.strip():
                again = super().score(instance, thinking, max_answer_chars=max_answer_chars)
                if again.status not in ("parse_error", "truncated"):
                    verdict, from_thinking = again, True
        from ...core.extract import self_truncation_evidence, split_thinking

        answer = split_thinking(completion if isinstance(completion, str) else str(completion or ""), reasoning).answer
        verdict.details.setdefault("outcome", SPEC_OUTCOME.get(verdict.status, verdict.status))
        verdict.details.setdefault("optimal_length", self.optimal_steps(instance))
        verdict.details.update(self_truncation_evidence=bool(self_truncation_evidence(answer)),
                               answer_from_thinking=from_thinking)
        for key in ("answer_source", "n_answer_candidates", "answer_conflict"):
            verdict.details.setdefault(key, None if key == "answer_source" else 0 if key == "n_answer_candidates"
                                       else False)
        return verdict

    # ---- reward integrity: near misses, cheap strategies, a random answer -------------------
    def _states_along(self, instance: Instance, moves: list) -> list:
        state, out = self.initial_state(instance), []
        out.append(state)
        for m in moves:
            state = self.apply(instance, state, m)
            out.append(state)
        return out

    def _states_at(self, instance: Instance, moves: list, positions: set[int]) -> dict[int, Any]:
        """The states after the first p moves, for each p in ``positions`` (one walk, few kept)."""
        state, out = self.initial_state(instance), {}
        for i in range(len(moves) + 1):
            if i in positions:
                out[i] = state
            if i < len(moves):
                state = self.apply(instance, state, moves[i])
        return out

    def near_misses(self, instance: Instance, rng: np.random.Generator) -> list[NearMiss]:
        """For every rule, answers that break it and nothing else (capabilities.NearMisses).

        Each is a valid prefix of the optimal solution, one move that breaks the rule, and a legal
        way on to the goal (the same solution when the move changed nothing, the move's undo, or
        the exact solver's path), placed at the first, a middle and the last move. With the rule
        switched off such an answer solves the puzzle, where a move exists that breaks the rule
        alone (no move breaks ``empty_peg`` alone, for example: the note says so). For the goal
        rule: legal answers that stop short, stop halfway, are empty, or pass the goal and leave.
        """
        gold = self.solve(instance)
        if gold == "UNSOLVABLE" or not gold:
            return []
        gold = [list(m) for m in gold]
        picks = sorted({0, len(gold) // 2, len(gold) - 1, int(rng.integers(0, len(gold)))})
        out: list[NearMiss] = []
        others = [p for p in np.linspace(0, len(gold) - 1, min(len(gold), 200)).astype(int).tolist() if p not in picks]
        states = self._states_at(instance, gold, {q for p in picks + others for q in (p, p + 1)})
        for rule in self.move_rules:
            found: list[NearMiss] = []
            # at each chosen move the first breaking move found and one drawn at random; a rule that
            # cannot be broken there (no empty stack ...) is looked for at other moves
            for i, pos in enumerate(picks + others):
                if i >= len(picks) and len(found) >= 4:
                    break
                for order in (None, rng):
                    miss = self._break_rule_at(instance, gold, states, pos, rule, order)
                    if miss is not None and all(miss.answer != m.answer for m in found):
                        found.append(miss)
            out += found
        goal_misses = [gold[:-1], gold[: len(gold) // 2], []]
        away = self.legal_moves(instance, self.goal(instance))
        if away:
            goal_misses.append(gold + [away[0]])
        seen = []
        for answer in goal_misses:
            if answer not in seen:
                seen.append(answer)
                out.append(NearMiss(GOAL_RULE, answer))
        return out

    def _break_rule_at(self, instance, gold, states, pos, rule, rng=None) -> NearMiss | None:
        state = states[pos]
        fallback = None
        candidates = self.candidate_moves(instance, state)
        if rng is not None:  # another breaking move each time: weakened checks miss some kinds only
            candidates = [candidates[i] for i in rng.permutation(len(candidates))]
        for m in candidates:
            if self.check_move(instance, state, m) != rule:
                continue
            after = self.after_breaking(instance, state, m, rule)
            if after is None:
                fallback = fallback or m
                continue
            tail = self._recover(instance, gold, states, pos, rule, after)
            if tail is not None:
                return NearMiss(rule, gold[:pos] + [list(m)] + tail)
            fallback = fallback or m
        if fallback is None:
            return None
        return NearMiss(rule, gold[:pos] + [list(fallback)] + gold[pos:],
                        note=f"no move breaks {rule} alone here, or none that the goal can be reached after")

    def after_breaking(self, instance: Instance, state: Any, move: Any, rule: str) -> Any | None:
        """The state after ``move`` with the check of ``rule`` switched off, or None when another
        check (or the move itself) still refuses it."""
        with self.rules_disabled(rule):
            try:  # with the check gone a bad index may reach a later check or the move itself
                if self.check_move(instance, state, move) is not None:
                    return None
                return self.apply(instance, state, move)
            except (IndexError, KeyError, ValueError):
                return None

    def _recover(self, instance, gold, states, pos, rule, after) -> list | None:
        """A way on to the goal after the rule-breaking move (None if none is found)."""
        if after == states[pos]:
            return gold[pos:]
        if after == states[pos + 1]:
            return gold[pos + 1:]
        for u in self.candidate_moves(instance, after):
            if self.check_move(instance, after, u) not in (None, rule):
                continue
            back = self.after_breaking(instance, after, u, rule)
            if back is not None and back == states[pos]:
                return [list(u)] + gold[pos:]
        path = self.path_from(instance, after)
        return None if path is None else [list(m) for m in path]

    def _walk(self, instance: Instance, rng: np.random.Generator, length: int, avoid_goal: bool) -> list:
        state, walk = self.initial_state(instance), []
        for _ in range(length):
            moves = self.legal_moves(instance, state)
            if avoid_goal:
                moves = [m for m in moves if not self.is_goal(instance, self.apply(instance, state, m))]
            if not moves:
                break
            m = moves[int(rng.integers(len(moves)))]
            walk.append(list(m))
            state = self.apply(instance, state, m)
        return walk

    def _walk_luck(self, instance: Instance, rng: np.random.Generator, length: int, tries: int = 64) -> float:
        """How often a uniformly random legal walk reaches the goal within ``length`` moves (on
        the smallest instances almost every legal walk does: Checker Jumping N=1 has one way on
        at most every step), estimated from ``tries`` walks: a random walk's stated chance."""
        hits = 0
        for _ in range(tries):
            state = self.initial_state(instance)
            for _ in range(length):
                if self.is_goal(instance, state):
                    break
                moves = self.legal_moves(instance, state)
                if not moves:
                    break
                state = self.apply(instance, state, moves[int(rng.integers(len(moves)))])
            hits += bool(self.is_goal(instance, state))
        return hits / tries

    def random_answer(self, instance: Instance, rng: np.random.Generator) -> list:
        """A random walk of legal moves as long as the optimum (the random agent's answer)."""
        return self._walk(instance, rng, self.optimal_steps(instance) or 10, avoid_goal=False)

    def cheap_answers(self, instance: Instance, rng: np.random.Generator) -> list[CheapAnswer]:
        """The reward hacker's catalogue for this instance (capabilities.CheapStrategies).

        Empty; one legal move repeated; a move and its undo, repeated; a random legal walk twice
        as long as the optimum that never enters the goal; every legal move of the start, listed;
        the optimal answer padded past the goal; and, in interactive play, stepping on after the
        episode ended. ``chance`` is 1 only where the strategy happens to solve this instance.
        """
        s0 = self.initial_state(instance)
        d0 = self.optimal_steps(instance) or 10
        legal = self.legal_moves(instance, s0)
        out = [CheapAnswer("empty", completion="", moves=("",) * DEFAULT_MAX_INVALID)]
        if legal:
            not_solving = [m for m in legal if not self.is_goal(instance, self.apply(instance, s0, m))]
            m = (not_solving or legal)[0]
            out.append(self._cheap(instance, "constant", [m] * max(4, d0)))
            s1 = self.apply(instance, s0, m)
            undo = next((u for u in self.legal_moves(instance, s1) if self.apply(instance, s1, u) == s0), None)
            if undo is not None:
                out.append(self._cheap(instance, "back_and_forth", [m, undo] * max(2, d0)))
            walk = self._cheap(instance, "random_walk", self._walk(instance, rng, 2 * d0, avoid_goal=True))
            out.append(dataclasses.replace(walk, chance=max(walk.chance, self._walk_luck(instance, rng, 2 * d0))))
            out.append(self._cheap(instance, "every_legal_move", legal))
        gold = self.solve(instance)
        if gold != "UNSOLVABLE" and gold:
            gold = [list(m) for m in gold]
            goal = self._states_along(instance, gold)[-1]
            away = self.legal_moves(instance, goal)
            pad = [away[0]] if away else [next(m for m in self.candidate_moves(instance, goal)
                                              if self.check_move(instance, goal, m) is not None)]
            padded = gold + pad + (gold[-1:] * 3)
            chance = 1.0 if self.verify(instance, padded).solved else 0.0
            out.append(CheapAnswer("gold_padded_past_goal", completion=self.format_answer(padded), chance=chance))
            # interactive: the episode ends after max_invalid unreadable moves; the gold played after pays 0
            after = ("",) * DEFAULT_MAX_INVALID + tuple(self.format_move(m) for m in gold)
            out.append(CheapAnswer("steps_after_the_end", moves=after, chance=0.0))
        return out

    def _cheap(self, instance: Instance, name: str, moves: list) -> CheapAnswer:
        texts = tuple(self.format_move(m) for m in moves)
        solves = self.verify(instance, [list(m) for m in moves]).solved or self._plays_to_goal(instance, moves)
        return CheapAnswer(name, completion=self.format_answer([list(m) for m in moves]), moves=texts,
                           chance=1.0 if solves else 0.0)

    def _plays_to_goal(self, instance: Instance, moves: list) -> bool:
        """Whether interactive play of ``moves`` (invalid ones have no effect) reaches the goal."""
        state, invalid = self.initial_state(instance), 0
        for m in moves[: self.max_steps(instance)]:
            if self.check_move(instance, state, m) is not None:
                invalid += 1
                if invalid >= DEFAULT_MAX_INVALID:
                    return False
                continue
            invalid = 0
            state = self.apply(instance, state, m)
            if self.is_goal(instance, state):
                return True
        return False

    # ---- corrupted gold, structured wrapper -------------------------------------------------
    def corrupt_answer(self, instance: Instance, answer: Any, rng: np.random.Generator) -> list:
        """A minimally altered golden answer that fails.

        Either a proper prefix of the optimal solution (an optimal solution never passes
        through the goal early, so this is ``incomplete``), or one move turned illegal.
        """
        answer = [list(m) for m in answer]
        if not answer:
            return [self.catalog_illegal_move(instance)]
        if rng.random() < 0.5:
            return answer[: int(rng.integers(0, len(answer)))]
        i = int(rng.integers(0, len(answer)))
        state = self.initial_state(instance)
        for m in answer[:i]:
            state = self.apply(instance, state, m)
        for m in self.move_catalog(instance):
            if self.check_move(instance, state, m) is not None:
                return answer[:i] + [m] + answer[i + 1:]
        return answer[:-1]

    def catalog_illegal_move(self, instance: Instance) -> list:
        state = self.initial_state(instance)
        return next(m for m in self.move_catalog(instance) if self.check_move(instance, state, m) is not None)

    @abstractmethod
    def move_catalog(self, instance: Instance) -> list:
        raise NotImplementedError

    def legal_moves(self, instance: Instance, state: Any) -> list:
        return [m for m in self.move_catalog(instance) if self.check_move(instance, state, m) is None]

    def golden_moves(self, instance: Instance) -> list:
        """The optimal solution, one move per interactive step."""
        return self.solve(instance)

    def golden_rollout(self, instance: Instance) -> list[tuple[str, str]]:
        """(observation, action) pairs of the optimal solution in interactive mode (docs/specs/planning.md §6.2)."""
        state = self.initial_state(instance)
        pairs = []
        for i, m in enumerate(self.solve(instance)):
            pairs.append((self.observation(instance, state, "", i), self.format_move(m)))
            state = self.apply(instance, state, m)
        return pairs


_TOKEN_RE = re.compile(r"\w+|[^\w\s]")


def moves_details(moves: list) -> dict:
    """What a move-list verdict's details say of the moves themselves: the list (None when longer
    than :data:`MAX_DETAIL_MOVES`) and, for an answer extracted from a reply, where it came from."""
    details = {"moves": None if len(moves) > MAX_DETAIL_MOVES else
               moves.tolist() if isinstance(moves, mv.MoveArray) else moves}
    ex = getattr(moves, "extraction", None)
    if ex is not None:
        details.update(answer_source=ex.answer_source, n_answer_candidates=ex.n_answer_candidates,
                       answer_conflict=ex.answer_conflict)
    return details


def answer_tokens(text: str) -> int:
    """Words and punctuation marks: the machine-independent token count of records (docs/specs/planning.md §8.1)."""
    return sum(1 for _ in _TOKEN_RE.finditer(text))


class StackTask(PlanningTask):
    """A puzzle whose state is a tuple of stacks (bottom to top) and whose move puts the top piece
    of one stack onto another (Hanoi, Blocks World). The stack checks come first, in this order,
    under the codes :attr:`stack_rules` (a bad index, the same source and target, an empty source);
    then the puzzle's own :meth:`check_piece`."""

    #: the codes of the shared checks (``bad_peg``, ``same_peg``, ``empty_peg`` ...)
    stack_rules: ClassVar[tuple[str, str, str]] = ("", "", "")

    def check_move(self, instance: Instance, state: tuple, move: list) -> str | None:
        piece, src, dst = move
        bad, same, empty = self.stack_rules
        off = self._disabled_rules
        if bad not in off and not (0 <= src < len(state) and 0 <= dst < len(state)):
            return bad
        if same not in off and src == dst:
            return same
        if empty not in off and not state[src]:
            return empty
        return self.check_piece(instance, state, piece, src, dst)

    def check_piece(self, instance: Instance, state: tuple, piece: Any, src: int, dst: int) -> str | None:
        """The puzzle's own checks of moving ``piece`` from stack ``src`` onto ``dst`` (both valid)."""
        return None

    def apply(self, instance: Instance, state: tuple, move: list) -> tuple:
        """``state`` with the top of stack ``move[1]`` moved onto stack ``move[2]``."""
        src, dst = move[1], move[2]
        stacks = list(state)
        top = state[src][-1:]
        stacks[src] = state[src][:-1]
        stacks[dst] = stacks[dst] + top
        return tuple(stacks)


def check_stacks(field: str, stacks: Any, n_stacks: int | None = None) -> list[list]:
    """``stacks`` as a list of lists (ConfigError naming ``field`` otherwise)."""
    if not isinstance(stacks, list) or not all(isinstance(s, list) for s in stacks):
        raise ConfigError(f"{field} must be a list of stacks (lists), not {str(stacks)[:60]}")
    if n_stacks is not None and len(stacks) != n_stacks:
        raise ConfigError(f"{field} has {len(stacks)} stacks; expected {n_stacks}")
    return stacks


def puzzle_info(task: PlanningTask, instance: Instance) -> dict:
    """Extra ``info`` of the planning envs (docs/specs/planning.md §9): N, k, stacks, solvability, depth."""
    d = instance.data
    info = {"n": d.get("n"), "solvable": bool(d.get("solvable", True)),
            "compositional_depth": task.optimal_steps(instance),
            "example_is_instance": task.example_answers(instance, task.example_for(instance)[1])}
    for key in ("k", "n_stacks"):
        if key in d:
            info[key] = d[key]
    return info


def template_fields(task: PlanningTask, instance: Instance) -> dict:
    """The ``{placeholders}`` a user ``prompt_template`` may use (docs/specs/planning.md §4), besides ``prompt``
    and the instance parameters."""
    desc, sol = task.example_for(instance)
    d = instance.data
    return {"N": d.get("n"), "k": d.get("k", ""), "n_stacks": d.get("n_stacks", ""),
            "initial_state": task.render_state(instance, task.initial_state(instance)),
            "goal_state": task.render_state(instance, task.goal(instance)),
            "rules": task.rules(instance), "format_example": f"{desc}\nmoves = {task.format_moves(sol)}",
            "answer_format": task.answer_format, "system": task.system_prompt(instance),
            "user": task.user_prompt(instance)}


class _InfoCache:
    """``info`` of a planning env: the per-instance part is built once per instance."""

    _info_for: Instance | None = None
    _info_base: dict | None = None

    def _info(self) -> dict:
        if self._info_for is not self.instance:
            self._info_base = {**super()._info(), **puzzle_info(self.task, self.instance)}
            self._info_for = self.instance
        return dict(self._info_base)


class PlanningAnswerEnv(_InfoCache, AnswerEnv):
    """A planning puzzle answered in one reply: the whole move list (docs/specs/planning.md §6.1).

    ## Description
    ``reset`` draws an instance (or replays ``options={"instance": ...}``: an Instance, its dict
    or JSON, or plain parameters such as ``{"n": 4}``) and returns the prompt: the rules, a
    worked example with its complete move list, and the instance's start and goal. ``step(text)``
    reads the model's whole completion, takes the last ``moves = [...]`` list of its answer
    region (then ``\\boxed{}``, a code fence, a bare list; a ``<think>`` block is never the
    answer), plays it move by move and ends the episode.

    ## Observation space
    ``Text``: the prompt after ``reset``; after ``step``, the verdict's one-sentence message.

    ## Action space
    ``Text``: a raw completion, any string. A ``dict`` with ``completion`` and optional
    ``reasoning``, ``finish_reason``, ``n_output_tokens``, ``max_new_tokens`` tells a cut-off
    output (``truncated``) from an unreadable one (``parse_error``).

    ## Episode end
    Always after one step (``terminated=True``). A further ``step`` before ``reset`` pays 0 and
    returns the verdict status ``ended``.

    ## Info
    ``instance_id``, ``family``, ``difficulty``, ``split``, ``optimal_steps``, ``n``, ``solvable``,
    ``compositional_depth`` (the optimal length, docs/specs/planning.md §3) and ``k``/``n_stacks`` where the
    puzzle has them; after ``step`` also ``verdict``: ``status``, ``first_error`` (1-based move)
    and ``details`` with ``rule`` (the broken rule), ``n_legal_prefix``, ``goal_first_reached_at``,
    ``is_optimal``, ``excess_moves``, ``answer_source``, ``truncated``, the parsed ``moves``.
    """


class PlanningInteractiveEnv(_InfoCache, InteractiveEnv):
    """A planning puzzle played one move per step, or up to ``moves_per_step`` (docs/specs/planning.md §6.2).

    ## Description
    ``reset`` returns the rules, the start and the goal; each ``step(text)`` reads one move (the
    last move-shaped item in the text: ``[1, 0, 2]``, ``1, 0, 2``, ``A1 a1`` ...), applies it
    and returns the new state, the goal, the move count and feedback. With ``moves_per_step=p``
    an action may hold up to p moves as a list (``[[1, 0, 2], [2, 0, 1]]``); they are applied
    in order and stop at the first invalid one or at the goal. The observation always repeats
    the whole state, so output length never limits the score.

    ## Observation space
    ``Text``: feedback on the last move, the move count, the current state and the goal state.

    ## Action space
    ``Text`` holding one move (or up to ``moves_per_step``) in the puzzle's move format.

    ## Episode end
    Terminated when the goal is reached (reward 1). An unreadable or illegal move has no effect:
    the state is unchanged, the next observation says which rule it broke, and ``max_invalid``
    consecutive invalid moves (default 3) truncate the episode. Truncated too after
    ``max_steps`` moves (default ceil(``step_budget`` x optimum), ``step_budget`` = 2). A step
    after the end pays 0 with the verdict status ``ended``.

    ## Info
    As in answer mode, plus ``step`` (moves made), ``status`` (``continue``, ``invalid`` or the
    final status), ``moves_applied`` (stepwise-p) and ``verdict`` on every step: ``incomplete``
    while play goes on, ``illegal_move`` (``details.rule`` names the rule) or ``parse_error`` for
    an invalid move, the final verdict at the end.

    ## Arguments
    ``moves_per_step`` (int >= 1, default 1); ``step_budget`` (number >= 1, default 2.0).
    """

    def __init__(self, task, env_id: str, *, moves_per_step: int = 1, step_budget: float = 2.0, **kwargs):
        super().__init__(task, env_id, **kwargs)
        self.moves_per_step = check_int("moves_per_step", moves_per_step, 1, 10_000)
        if isinstance(step_budget, bool) or not isinstance(step_budget, (int, float)) or not 1 <= step_budget <= 1e6:
            raise ConfigError(f"step_budget {step_budget!r} is not a number in 1..1000000")
        self.step_budget = float(step_budget)
        self._max_steps_for: Instance | None = None
        self._max_steps_value = 0

    @property
    def max_steps(self) -> int:
        """``max_steps`` if given, else ceil(step_budget x optimal length) (docs/specs/planning.md §6.2);
        a game of asking multiplies its own question limit instead (the optimum depends on the hidden
        answer, and a budget that did would tell it)."""
        if self._max_steps_arg:
            return self._max_steps_arg
        if self._max_steps_for is not self.instance:  # once per instance: step() asks every move
            self._max_steps_value = self.task.budget_steps(self.instance, self.step_budget)
            self._max_steps_for = self.instance
        return self._max_steps_value

    def _interactive_prompt(self, inst: Instance) -> str:
        text = self.task.interactive_prompt(inst)
        if self.moves_per_step > 1:
            text += (f"\nYou may give up to {self.moves_per_step} moves per turn as a list of moves, "
                     "e.g. [[...], [...]]; they are applied in order.")
        return text

    def step(self, action):
        if self.moves_per_step == 1 or self.done:
            return super().step(action)
        text = action if isinstance(action, str) else str(action)
        if len(text) > self.max_answer_chars:
            return super().step(text)  # the generic path refuses it unread (too_long)
        try:
            chosen = mv.extract_moves(text, self.task.coerce_move, self.task.is_single_move).chosen
            moves = chosen.moves if chosen is not None else [self.task.parse_move(text)]
        except ParseError:
            return super().step(text)  # the generic path reports the unreadable move
        if not moves:
            return super().step(text)
        total, applied = 0.0, 0
        for m in moves[: self.moves_per_step]:
            obs, r, term, trunc, info = super().step(self.task.format_move(m))
            total, applied = total + r, applied + 1
            if term or trunc or info.get("status") == "invalid":
                break  # an invalid move has no effect and ends the turn
        info["moves_applied"] = applied
        return obs, total, term, trunc, info


_UNSOLVABLE = re.compile(r"moves\s*[=:][\s*]*\"?unsolvable\b", re.IGNORECASE)


def _claims_unsolvable(text: str) -> bool:
    return bool(_UNSOLVABLE.search(text[-2000:]))
