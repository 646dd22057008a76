"""Optional Task capabilities, declared as protocols (docs/architecture.md §4).

Code that needs a capability checks ``isinstance(task, Protocol)``; it never probes with
``hasattr``. A Task has a capability by defining the methods (structural typing), so a puzzle
module needs no registration beyond writing them.

Two capabilities carry the reward-integrity contract that every registered environment must
meet, and that the registry-wide suites (``tests/test_adversarial.py``,
``tests/test_reward_hacking.py``) check:

* :class:`NearMisses`: for every rule code in ``Task.rule_codes``, answers that break exactly
  that rule and nothing else. The verdict must name the rule (``Verdict.rules``) and pay below 1;
  with the rule switched off (``Task.rules_disabled``) the same answer must score 1, which shows
  that the check is load-bearing.
* :class:`CheapStrategies`: the cheap answers a reward hacker would try on this instance (empty,
  constant, all-same symbol, checkerboard, back-and-forth moves, a rule-blind shortest line,
  listing every option ...). Binary reward never pays them beyond ``chance``; partial reward pays
  each at most :data:`CHEAP_PARTIAL_CAP`.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

from .instance import Instance

#: the most that ``reward="partial"`` may pay a cheap strategy (docs/architecture.md §4)
CHEAP_PARTIAL_CAP = 0.1


@dataclass(frozen=True)
class NearMiss:
    """An answer to ``instance`` that breaks the rule ``rule`` (a code of ``Task.rule_codes``).

    ``answer`` is what ``Task.verify`` takes, on ``instance`` when it is set (else on the instance
    the near misses were asked for). ``exclusive``: the verdict must report no other
    rule (set False only where breaking the rule alone is impossible, and say why in ``note``).
    """

    rule: str
    answer: Any
    exclusive: bool = True
    note: str = ""
    #: a variant of the instance asked for, on which ``answer`` is the near miss (a KUMO
    #: observation moved exactly onto an interval end, a grid with fewer givens ...): verifiers
    #: must be sound on every valid instance, and boundary cases rarely occur in generated ones
    instance: Instance | None = None


@dataclass(frozen=True)
class CheapAnswer:
    """A cheap strategy's reply to one instance.

    Answer mode uses ``completion`` (the whole reply, scored with ``Task.score``); interactive
    mode plays ``moves`` (one reply per step, after the end too). ``chance`` is the probability
    that the strategy is right by luck on this instance (1/2 for a constant "(A)" on a balanced
    yes/no item, 1/|candidates| for a blind guess); binary reward must not exceed it on average.
    """

    name: str
    completion: str | None = None
    moves: tuple[str, ...] | None = None
    chance: float = 0.0


@runtime_checkable
class NearMisses(Protocol):
    def near_misses(self, instance: Instance, rng: np.random.Generator) -> Iterable[NearMiss]:
        """Answers that each break exactly one rule; together they cover every rule code
        (over a few instances: a rule that cannot be broken on one instance may be on another)."""


@runtime_checkable
class CheapStrategies(Protocol):
    def cheap_answers(self, instance: Instance, rng: np.random.Generator) -> list[CheapAnswer]:
        """The reward-hacking catalogue for this instance (see the module docstring)."""


@runtime_checkable
class Corruptible(Protocol):
    def corrupt_answer(self, instance: Instance, answer: Any, rng: np.random.Generator) -> Any:
        """A minimally altered golden answer that is invalid."""


@runtime_checkable
class GoldenMoves(Protocol):
    def golden_moves(self, instance: Instance) -> list:
        """The moves that play interactive mode from the start to the goal."""


@runtime_checkable
class OracleMoves(Protocol):
    def oracle_move(self, instance: Instance, state: Any) -> Any:
        """The next optimal move in ``state``."""


@runtime_checkable
class LegalMoves(Protocol):
    def legal_moves(self, instance: Instance, state: Any) -> list:
        """Every legal move in ``state``."""


@runtime_checkable
class StructuredView(Protocol):
    """A fixed move catalogue and a numeric state, for Stable-Baselines3 (wrappers.structured)."""

    def move_catalog(self, instance: Instance) -> list:
        """Every move for the instance's sizes, in a fixed order (Discrete index = position)."""

    def encode_state(self, instance: Instance, state: Any) -> np.ndarray:
        """The state as a float32 vector of fixed length for the instance's sizes."""


@runtime_checkable
class StateBounds(Protocol):
    def state_bounds(self, instance: Instance) -> tuple[float, float]:
        """Lower and upper bounds of ``encode_state``'s entries (unbounded without this)."""


@runtime_checkable
class RandomAnswer(Protocol):
    def random_answer(self, instance: Instance, rng: np.random.Generator) -> Any:
        """A random well-formed answer (the random agent's baseline: legal-looking, not solved)."""


@dataclass
class AnswerPicture:
    """How an episode ended, drawn for people (``kumo-gym report``'s episode pages).

    ``image``: the final state (the answer as submitted, or the state interactive play reached)
    as RGB, with what the verdict names framed in ``raster.MARK`` (the first failing cell, the
    pegs of the first illegal move) and ``raster.MARK_ALSO`` (the other cells of failing
    checks); None where the family draws no image. ``text``: the same state as text, marks in
    words. ``marks``: what is marked, for readers and tests: dicts with ``what`` (``"cell"``,
    ``"move"``, ``"point"``, ``"test"`` ...), ``at`` (the cell, the move, ...), ``first`` (the
    first error or one of the others) and, on images, ``box`` (x0, y0, x1, y1 pixels, ends
    exclusive). ``caption``: one sentence saying what is drawn and marked.
    """

    image: np.ndarray | None = None
    text: str = ""
    marks: list[dict] = field(default_factory=list)
    caption: str = ""


@runtime_checkable
class ImageRendering(Protocol):
    def render_rgb(self, instance: Instance, state: Any = None) -> np.ndarray:
        """An RGB image (H x W x 3, uint8) of the instance, or of ``state`` during play."""


@runtime_checkable
class InstanceSchema(Protocol):
    def validate_instance(self, instance: Instance) -> None:
        """Raise ConfigError naming the first bad field of ``instance`` (called when loading)."""
