"""What the four planning puzzles share (planning spec §1, §4-§6).

:class:`PlanningTask` turns a puzzle's rules (``initial_state``, ``check_move``, ``apply``,
``is_goal``) into the whole Task protocol: parsing with the §5 extraction, move-by-move
verification with the §6.1 outcomes, prompts with a system and a user part, presets that sample
N from a bucket, interactive play and the hooks of the structured wrapper.
"""
from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from ...core.errors import ConfigError, ParseError, check_int
from ...core.extract import looks_truncated, self_truncation_evidence, split_thinking
from ...core.instance import Instance
from ...core.task import StepwiseTask
from ...core.verdict import Verdict
from ..answer import AnswerEnv
from ..interactive import InteractiveEnv
from . import moves as mv

#: Statuses of the planning spec §6.1 mapped onto the core Verdict statuses.
SPEC_OUTCOME = {"solved": "solved", "illegal_move": "illegal_move", "incomplete": "incomplete",
                "parse_error": "parse_failure", "truncated": "truncated"}


#: colours of :meth:`PlanningTask.render_rgb`: background, ground, red, blue, then distinct hues
PALETTE = np.array([[250, 250, 250], [120, 120, 120], [214, 39, 40], [31, 119, 180], [44, 160, 44],
                    [255, 127, 14], [148, 103, 189], [140, 86, 75], [227, 119, 194], [188, 189, 34],
                    [23, 190, 207], [255, 187, 120], [152, 223, 138], [197, 176, 213]], dtype=np.uint8)
CELL_PX = 12
#: spec §6.2: interactive max_steps = ceil(step_budget * optimal_length)
STEP_BUDGET = 2.0


class PlanningTask(StepwiseTask):
    """Base class of Hanoi, Checker Jumping, River Crossing and Blocks World.

    Subclasses define the puzzle (``build``, ``initial_state``, ``goal_state``,
    ``check_move``, ``apply``, ``coerce_move``, ``is_single_move``, ``optimal_length``,
    ``solve``) and its text (``rules``, ``example``, ``describe``). Answers are lists of
    moves, each move a list (``[disk, from, to]``, ``["R", 0, 1]``, ``["A_1", "a_1"]``).
    """

    #: the Instance family, e.g. ``hanoi``; the catalogue groups the four as ``planning``
    family: ClassVar[str] = ""
    #: the puzzle's name in messages
    puzzle: ClassVar[str] = ""
    template_field_names: ClassVar[tuple[str, ...]] = (
        "N", "k", "n_stacks", "initial_state", "goal_state", "rules", "format_example", "answer_format", "system",
        "user")

    def template_fields(self, instance: Instance) -> dict:
        """The ``{placeholders}`` a user ``prompt_template`` may use (spec §4)."""
        return template_fields(self, instance)
    #: the shape of the final answer line, shown in prompts (spec §4)
    answer_format: ClassVar[str] = ""
    #: one-line description of a single move for interactive play
    move_format: ClassVar[str] = ""
    #: prompt flags accepted by every puzzle
    flag_names: ClassVar[tuple[str, ...]] = ("algorithm_hint", "stepwise")
    size_names: ClassVar[tuple[str, ...]] = ("n",)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # the generation parameters a user may pass: sizes, prompt flags, and the bucket knobs
        cls.param_names = tuple(dict.fromkeys(cls.size_names + cls.flag_names + ("n_range", "n_choices")))

    # ---- parameters and generation ----------------------------------------------------------
    def validate_params(self, params: dict) -> dict:
        params = dict(params)
        if all(params.get(key) is None for key in ("n", "n_range", "n_choices")):
            params.update({k: v for k, v in self.difficulties[self.default_difficulty].items()
                           if k not in params})
        if params.get("n") is not None:
            params["n"] = check_int("n", params["n"], 1, self.max_n)
        if params.get("n_range") is not None:
            lo, hi = (check_int("n_range", v, 1, self.max_n) for v in params["n_range"])
            if lo > hi:
                raise ConfigError(f"n_range {params['n_range']!r} is empty")
            params["n_range"] = [lo, hi]
        if params.get("n_choices") is not None:
            if not isinstance(params["n_choices"], (list, tuple)) or not params["n_choices"]:
                raise ConfigError(f"n_choices {params['n_choices']!r} is not a non-empty list of sizes")
            params["n_choices"] = [check_int("n_choices", v, 1, self.max_n) for v in params["n_choices"]]
        for flag in self.flag_names:
            if flag in params and not isinstance(params[flag], bool):
                raise ConfigError(f"{flag} {params[flag]!r} is not one of: True, False")
        return params

    max_n: ClassVar[int] = 100

    def pick_n(self, rng: np.random.Generator, params: dict) -> int:
        """N from the parameters, or drawn uniformly from the preset's ``n_choices`` or ``n_range``."""
        if params.get("n") is not None:
            return int(params["n"])
        if params.get("n_choices"):
            return int(params["n_choices"][int(rng.integers(0, len(params["n_choices"])))])
        lo, hi = params["n_range"]
        return int(rng.integers(lo, hi + 1))

    def generate(self, rng: np.random.Generator, **params) -> Instance:
        params = self.validate_params(params)
        n = self.pick_n(rng, params)
        data = self.build(n, params)
        return Instance(self.family, data, params={k: v for k, v in params.items() if v is not None})

    def build(self, n: int, params: dict) -> dict:
        """The instance data for size ``n`` (everything needed to play it)."""
        raise NotImplementedError

    def load(self, obj: Any) -> Instance:
        """An Instance, its dict/JSON form, or a plain dict of puzzle parameters (``{"n": 3}``)."""
        if isinstance(obj, dict) and "family" not in obj:
            params = self.validate_params(dict(obj))
            if params.get("n") is None:
                raise ConfigError(f"a {self.puzzle} instance needs 'n'; got keys {sorted(obj)}")
            return Instance(self.family, self.build(params["n"], params), params=params)
        if isinstance(obj, int) and not isinstance(obj, bool):
            return self.load({"n": obj})
        return super().load(obj)

    def difficulty_of(self, instance: Instance) -> str | None:
        d = instance.params.get("difficulty")
        return None if d is None else str(d)

    # ---- the puzzle (subclasses) ------------------------------------------------------------
    def goal_state(self, instance: Instance) -> Any:
        raise NotImplementedError

    def is_goal(self, instance: Instance, state: Any) -> bool:
        return state == self.goal_state(instance)

    def optimal_length(self, instance: Instance) -> int | None:
        raise NotImplementedError

    def optimal_steps(self, instance: Instance) -> int | None:
        return self.optimal_length(instance)

    def coerce_move(self, value: Any) -> list:
        """A parsed item as a canonical move, or ParseError(malformed_move)."""
        raise NotImplementedError

    def is_single_move(self, value: Any) -> bool:
        """Whether a parsed list is one move rather than a list of moves."""
        return isinstance(value, list) and len(value) == 3 and not any(isinstance(v, list) for v in value)

    # ---- text -------------------------------------------------------------------------------
    def rules(self, instance: Instance) -> str:
        raise NotImplementedError

    def example(self) -> tuple[str, list]:
        """(description of the example instance, its complete solution) for the system part."""
        raise NotImplementedError

    def describe(self, instance: Instance) -> str:
        """The user part: the instance's start and goal."""
        raise NotImplementedError

    def algorithm_hint(self, instance: Instance) -> str | None:
        return None

    def system_prompt(self, instance: Instance) -> str:
        """System part (spec §4): rules, a worked example, thinking and answer-format duties."""
        desc, sol = self.example()
        parts = [self.rules(instance),
                 f"Worked example. {desc}\nA complete solution:\nmoves = {self.format_moves(sol)}",
                 ("Indices of pegs, stacks and positions start at 0. While you think, write out the "
                  "complete move list every time you try a candidate solution, not just its first moves."),
                 f"End your reply with the final answer on one line in exactly this form:\n{self.answer_format}"]
        hint = self.algorithm_hint(instance) if instance.params.get("algorithm_hint") else None
        if hint:
            parts.append(hint)
        if instance.params.get("stepwise"):
            parts.append("Work step by step: after each move, write the full state it produces, then the next move.")
        return "\n\n".join(parts)

    def user_prompt(self, instance: Instance) -> str:
        return self.describe(instance)

    def messages(self, instance: Instance) -> list[dict]:
        return [{"role": "system", "content": self.system_prompt(instance)},
                {"role": "user", "content": self.user_prompt(instance)}]

    def prompt(self, instance: Instance) -> str:
        return self.system_prompt(instance) + "\n\n" + self.user_prompt(instance)

    def interactive_prompt(self, instance: Instance) -> str:
        return (self.rules(instance) + "\n\n" + self.describe(instance) +
                f"\n\nPlay one move per turn. Each reply must hold exactly one move, written as {self.move_format}.")

    def format_move(self, move: Any) -> str:
        return "[" + ", ".join(f'"{x}"' if isinstance(x, str) else str(x) for x in move) + "]"

    def format_moves(self, moves: list) -> str:
        return "[" + ", ".join(self.format_move(m) for m in moves) + "]"

    def format_answer(self, answer: Any) -> str:
        if answer == "UNSOLVABLE":
            return "moves = UNSOLVABLE"
        return "moves = " + self.format_moves(answer)

    def observation(self, instance: Instance, state: Any, feedback: str = "", step: int = 0) -> str:
        """State, goal, move count and the last feedback (spec §6.2)."""
        head = f"{feedback}\n\n" if feedback else ""
        return (f"{head}Moves made: {step}\nCurrent state:\n{self.render_state(instance, state)}\n"
                f"Goal state:\n{self.render_state(instance, self.goal_state(instance))}")

    def render(self, instance: Instance, state: Any = None) -> str:
        state = self.initial_state(instance) if state is None else state
        return self.render_state(instance, state)

    def cells(self, instance: Instance, state: Any) -> list[list[int]]:
        """The state as a grid of palette indices for :meth:`render_rgb` (0 = background)."""
        raise NotImplementedError

    def render_rgb(self, instance: Instance, state: Any = None) -> np.ndarray:
        """An RGB picture of ``state``: each grid cell of :meth:`cells` as a 12 x 12 block."""
        state = self.initial_state(instance) if state is None else state
        grid = np.asarray(self.cells(instance, state), dtype=np.int64)
        img = PALETTE[grid % len(PALETTE)]
        return np.repeat(np.repeat(img, CELL_PX, axis=0), CELL_PX, axis=1)

    def max_steps(self, instance: Instance) -> int:
        # an unsolvable instance has no optimum; give it the budget of a long solvable one
        opt = self.optimal_length(instance) or 4 * int(instance.data.get("n", 1)) + 1
        return max(1, math.ceil(STEP_BUDGET * opt))

    # ---- parsing ----------------------------------------------------------------------------
    def parse(self, text: str) -> list | str:
        """The move list in ``text`` (spec §5); raises ParseError with a reason code.

        ``moves = UNSOLVABLE`` (spec §8.2) parses to the string ``"UNSOLVABLE"``.
        """
        text = text if isinstance(text, str) else str(text)
        try:
            return self.extract(text)[0]
        except ParseError:
            if _claims_unsolvable(text):
                return "UNSOLVABLE"
            raise

    def extract(self, text: str) -> tuple[list, mv.Extraction]:
        return mv.read_moves(text if isinstance(text, str) else str(text), self.coerce_move, self.is_single_move)

    def parse_move(self, text: str) -> list:
        return mv.read_one_move(text if isinstance(text, str) else str(text), self.coerce_move, self.is_single_move)

    # ---- verification -----------------------------------------------------------------------
    def simulate(self, instance: Instance, moves: list) -> dict:
        """Play ``moves`` from the start; stop at the first illegal one (spec §6.1)."""
        state = self.initial_state(instance)
        goal = self.goal_state(instance)  # built once: this loop runs a million times for Hanoi N=20
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
        """Check a move list move by move (spec §6.1).

        ``score`` is the legal prefix over the optimal length, capped below 1 unless solved, so
        a long legal walk that misses the goal never earns full credit.
        """
        if answer == "UNSOLVABLE":
            return self._verify_claim(instance, instance.data.get("solvable", True))
        if not isinstance(answer, list):
            return Verdict("parse_error", f"The answer is not a move list: {str(answer)[:60]!r}.",
                           details={"reason": "malformed_move"})
        try:
            moves = [self.coerce_move(m) for m in answer]
        except ParseError as e:
            return Verdict("parse_error", f"The answer is not a move list: {e}", details={"reason": e.reason})
        return self.verify_moves(instance, moves)

    def verify_moves(self, instance: Instance, moves: list) -> Verdict:
        """:meth:`verify` for a list of canonical moves (as :meth:`parse` returns them)."""
        opt = self.optimal_length(instance)
        solvable = instance.data.get("solvable", True)
        sim = self.simulate(instance, moves)
        k = sim["n_legal_prefix"]
        details = {"n_moves": len(moves), "n_legal_prefix": k, "optimal_length": opt,
                   "solvable": solvable, "goal_first_reached_at": sim["goal_first_reached_at"], "moves": moves}
        if not solvable:
            # spec §6.1 outcome unsolvable_instance: no move list can be right; such samples are
            # kept out of accuracy by the analysis
            details.update(reason="unsolvable_instance", outcome="unsolvable_instance", is_optimal=False,
                           excess_moves=None, illegal_reason=sim["reason"])
            return Verdict("wrong", "This instance has no solution, so no move list can solve it.",
                           details=details)
        partial = 0.0 if not opt else min(k, opt - 1) / opt
        if sim["reason"] is not None:
            details.update(reason=sim["reason"], outcome="illegal_move", is_optimal=False, excess_moves=None)
            return Verdict("illegal_move", f"Move {k + 1} {self.format_move(moves[k])} is illegal: "
                           f"{sim['reason'].replace('_', ' ')}.", partial, first_error=k + 1, details=details)
        if not self.is_goal(instance, sim["state"]):
            details.update(reason="goal_not_reached", outcome="incomplete", is_optimal=False, excess_moves=None)
            left = " (it was reached earlier and left again)" if sim["goal_first_reached_at"] else ""
            return Verdict("incomplete", f"All {k} moves are legal but the goal is not reached{left}.",
                           partial, first_error=k + 1, details=details)
        details.update(outcome="solved", is_optimal=opt is not None and k == opt,
                       excess_moves=None if opt is None else k - opt)
        return Verdict("solved", f"Solved in {k} moves (optimal: {opt}).", 1.0, details=details)

    def _verify_claim(self, instance: Instance, solvable: bool) -> Verdict:
        """``moves = UNSOLVABLE`` (spec §8.2): right only on unsolvable instances."""
        details = {"n_moves": 0, "n_legal_prefix": 0, "optimal_length": self.optimal_length(instance),
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
              max_new_tokens: int | None = None, fallback_to_thinking: bool = False) -> Verdict:
        """Parse and verify a raw completion (spec §5-§6.1). Never raises.

        Adds ``answer_source``, ``n_answer_candidates``, ``answer_conflict``, ``truncated`` and
        ``self_truncation_evidence`` to the verdict's details.
        """
        if not isinstance(completion, str):
            completion = "" if completion is None else str(completion)
        regions = split_thinking(completion, reasoning)
        cut = looks_truncated(completion, finish_reason, n_output_tokens, max_new_tokens) or regions.unclosed_thinking
        ex = mv.extract_moves(regions.answer, self.coerce_move, self.is_single_move)
        used_thinking = False
        if ex.chosen is None and fallback_to_thinking and regions.thinking:
            ex2 = mv.extract_moves(regions.thinking, self.coerce_move, self.is_single_move)
            if ex2.chosen is not None:
                ex, used_thinking = ex2, True
        claim = ex.chosen is None and _claims_unsolvable(regions.answer)
        cut = cut or ex.unclosed_labelled
        meta = {"answer_source": ex.answer_source, "n_answer_candidates": ex.n_answer_candidates,
                "answer_conflict": ex.answer_conflict, "truncated": bool(cut),
                "self_truncation_evidence": bool(self_truncation_evidence(regions.answer)),
                "answer_from_thinking": used_thinking}
        if ex.chosen is None and not claim:
            err = mv.rejection(ex)
            status = "truncated" if (cut or err.truncated) else "parse_error"
            msg = ("The output was cut off before a complete move list." if status == "truncated"
                   else f"No valid move list could be read: {err}")
            return Verdict(status, msg, details={"reason": err.reason, "outcome": SPEC_OUTCOME[status],
                                                  "optimal_length": self.optimal_length(instance), **meta})
        verdict = (self.verify(instance, "UNSOLVABLE") if claim
                   else self.verify_moves(instance, ex.chosen.moves))
        verdict.details.update(meta)
        return verdict

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

    def move_catalog(self, instance: Instance) -> list:
        raise NotImplementedError

    def legal_moves(self, instance: Instance, state: Any) -> list:
        return [m for m in self.move_catalog(instance) if self.check_move(instance, state, m) is None]

    def golden_moves(self, instance: Instance) -> list:
        """The optimal solution, one move per interactive step."""
        return self.solve(instance)

    def golden_rollout(self, instance: Instance) -> list[tuple[str, str]]:
        """(observation, action) pairs of the optimal solution in interactive mode (spec §6.2)."""
        state = self.initial_state(instance)
        pairs = []
        for i, m in enumerate(self.solve(instance)):
            pairs.append((self.observation(instance, state, "", i), self.format_move(m)))
            state = self.apply(instance, state, m)
        return pairs


def stack_move_reason(state: tuple, src: int, dst: int, codes: tuple[str, str, str]) -> str | None:
    """The checks Hanoi and Blocks World share, in their order: ``codes`` name a bad index, the
    same source and target, and an empty source (``bad_peg``/``same_peg``/``empty_peg`` ...)."""
    if not (0 <= src < len(state) and 0 <= dst < len(state)):
        return codes[0]
    if src == dst:
        return codes[1]
    if not state[src]:
        return codes[2]
    return None


def move_top(state: tuple, src: int, dst: int) -> tuple:
    """``state`` (a tuple of stacks, bottom to top) with the top of ``src`` moved onto ``dst``."""
    stacks = list(state)
    stacks[src] = state[src][:-1]
    stacks[dst] = state[dst] + state[src][-1:]
    return tuple(stacks)


def puzzle_info(task: PlanningTask, instance: Instance) -> dict:
    """Extra ``info`` of the planning envs (spec §9): N, k, stacks, solvability, depth."""
    d = instance.data
    info = {"n": d.get("n"), "solvable": bool(d.get("solvable", True)),
            "compositional_depth": task.optimal_length(instance)}
    for key in ("k", "n_stacks"):
        if key in d:
            info[key] = d[key]
    return info


def template_fields(task: PlanningTask, instance: Instance) -> dict:
    """The ``{placeholders}`` a user ``prompt_template`` may use (spec §4), besides ``prompt``
    and the instance parameters."""
    desc, sol = task.example()
    d = instance.data
    return {"N": d.get("n"), "k": d.get("k", ""), "n_stacks": d.get("n_stacks", ""),
            "initial_state": task.render_state(instance, task.initial_state(instance)),
            "goal_state": task.render_state(instance, task.goal_state(instance)),
            "rules": task.rules(instance), "format_example": f"{desc}\nmoves = {task.format_moves(sol)}",
            "answer_format": task.answer_format, "system": task.system_prompt(instance),
            "user": task.user_prompt(instance)}


class PlanningAnswerEnv(AnswerEnv):
    __doc__ = AnswerEnv.__doc__

    def _info(self) -> dict:
        return {**super()._info(), **puzzle_info(self.task, self.instance)}



class PlanningInteractiveEnv(InteractiveEnv):
    """The generic InteractiveEnv, plus stepwise-p play (planning spec §6.2).

    ``moves_per_step=p`` (default 1) lets one action hold up to p moves, as a move list
    (``[[1, 0, 2], [2, 0, 1]]``) or one move; they are applied in order and stop at the first
    illegal one or at the goal. ``max_steps`` counts moves, and ``info["step"]`` too. The
    observation always repeats the whole state, so output length never limits the score.
    """

    def __init__(self, task, env_id: str, *, moves_per_step: int = 1, step_budget: float = 2.0, **kwargs):
        super().__init__(task, env_id, **kwargs)
        self.moves_per_step = check_int("moves_per_step", moves_per_step, 1, 10_000)
        if isinstance(step_budget, bool) or not isinstance(step_budget, (int, float)) or not step_budget >= 1:
            raise ConfigError(f"step_budget {step_budget!r} is not a number >= 1")
        self.step_budget = float(step_budget)

    @property
    def max_steps(self) -> int:
        """``max_steps`` if given, else ceil(step_budget x optimal length) (spec §6.2)."""
        if self._max_steps_arg:
            return self._max_steps_arg
        opt = self.task.optimal_length(self.instance) or 4 * int(self.instance.data.get("n", 1)) + 1
        return max(1, math.ceil(self.step_budget * opt))

    def _info(self) -> dict:
        return {**super()._info(), **puzzle_info(self.task, self.instance)}

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
        try:
            moves = mv.extract_moves(text, self.task.coerce_move, self.task.is_single_move).chosen
            moves = moves.moves if moves is not None else [self.task.parse_move(text)]
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


def _claims_unsolvable(text: str) -> bool:
    import re

    return bool(re.search(r"moves\s*[=:]\s*\**\s*\"?unsolvable\b", text[-2000:], re.IGNORECASE))


def bucket_presets(buckets: dict[str, tuple[int, int]], fixed: dict[str, int] | None = None, **extra) -> dict:
    """Preset table: named N buckets (sampled with the rng) and fixed-N presets."""
    out = {name: {"n_range": [lo, hi], **extra} for name, (lo, hi) in buckets.items()}
    for name, n in (fixed or {}).items():
        out[name] = {"n": n, **extra}
    return out

