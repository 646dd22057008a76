"""Reference agents: the oracle (golden answers from our solvers) and a random player.

Both implement :class:`~kumo_gym.core.backend.ChatBackend`, so the evaluation harness treats them
like any model. Unlike a model they need to see the puzzle: the harness calls
``agent.bind(env)`` with the unwrapped environment before each turn, and the agent reads the
task, the instance and (in interactive mode) the current state from it.

They use the Task hooks of the contract suite (tests/test_contract.py):

* ``golden_moves(instance) -> list``: the golden move sequence of interactive mode (the oracle
  plays move ``i`` at step ``i``), or ``oracle_move(instance, state) -> move``: the next golden
  move from any state;
* ``random_answer(instance, rng) -> answer`` (:class:`RandomAnswer`): a random well-formed
  answer (see :class:`RandomAgent` for the fallbacks of families without it).

Without them the oracle plays ``solve(instance)`` (move ``i`` of the golden list at step ``i``
in interactive mode) and the random agent plays uniformly random legal moves.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from ..core.backend import ChatResult
from ..core.capabilities import Corruptible, GoldenMoves, LegalMoves, OracleMoves, RandomAnswer
from ..core.errors import check_choice
from ..core.task import InteractiveTask, StepwiseTask, Task

AGENTS = ("oracle", "random")


class _BoundAgent(ABC):
    name = "agent"

    def __init__(self, seed: int = 0):
        #: the unwrapped environment bound by :meth:`bind` (its task, instance and state are read)
        self.env: Any = None
        self.rng = np.random.default_rng(seed)

    def bind(self, env) -> None:
        """Look at ``env`` (the unwrapped kumo_gym environment) for the next replies."""
        self.env = env

    def _interactive(self) -> bool:
        return self.env is not None and getattr(self.env, "state", None) is not None and \
            not hasattr(self.env, "score_completion")

    @abstractmethod
    def reply(self) -> str:
        """The agent's next reply to the bound environment."""

    def chat(self, messages: list[dict], *, max_tokens: int | None = None, temperature: float | None = None,
             n: int = 1, **kwargs) -> list[ChatResult]:
        if self.env is None:
            raise RuntimeError(f"the {self.name} agent must be bound to an environment first (agent.bind(env))")
        return [ChatResult(text=self.reply(), finish_reason="stop", prompt_tokens=0, completion_tokens=0,
                           extra={"model": self.name}) for _ in range(n)]

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class OracleAgent(_BoundAgent):
    """Plays the golden answer: ``format_answer(solve(instance))``, or the golden move sequence
    one move per step in interactive mode."""

    name = "oracle"

    def __init__(self, seed: int = 0):
        super().__init__(seed)
        self._golden_for = None
        self._golden: Any = None

    def _golden_answer(self):
        inst = self.env.instance
        if self._golden_for != inst.instance_id:
            self._golden = self.env.task.solve(inst)
            self._golden_for = inst.instance_id
        return self._golden

    def reply(self) -> str:
        inst = self.env.instance
        if not self._interactive():
            return self.env.task.format_answer(self._golden_answer())
        task: InteractiveTask = self.env.task  # interactive mode: the task plays moves
        step = len(getattr(self.env, "moves", []) or [])
        if isinstance(task, GoldenMoves):
            moves = self._golden_list(task, inst)
            if step < len(moves):
                return task.format_move(moves[step])
        if isinstance(task, OracleMoves):
            return task.format_move(task.oracle_move(inst, self.env.state))
        golden = self._golden_answer()
        if isinstance(golden, (list, tuple)) and step < len(golden):
            return task.format_move(golden[step])
        return task.format_answer(golden)

    def _golden_list(self, task, inst) -> list:
        if getattr(self, "_moves_for", None) != inst.instance_id:
            self._moves = list(task.golden_moves(inst))
            self._moves_for = inst.instance_id
        return self._moves


class RandomAgent(_BoundAgent):
    """A random player: the baseline a model must beat.

    Interactive mode: a uniformly random legal move (:class:`LegalMoves`). Answer mode, in order
    of preference: the family's own :class:`RandomAnswer` (a legal-looking random answer); a
    random walk of legal moves as long as the optimum (planning puzzles, whose answers are move
    lists); otherwise the golden answer's shape filled at random: its leaves (cells, path steps,
    values) shuffled among its positions, so the answer parses and looks plausible but is almost
    never right; a scalar answer (a letter, a name) is the golden one or a corrupted one
    (:class:`Corruptible`) with equal chance, a coin flip. It never answers with an empty string.
    """

    name = "random"

    def __init__(self, seed: int = 0):
        super().__init__(seed)
        self._walkable: dict = {}

    def reply(self) -> str:
        task, inst = self.env.task, self.env.instance
        if self._interactive():
            moves = task.legal_moves(inst, self.env.state) if isinstance(task, LegalMoves) else []
            if moves:
                return task.format_move(moves[int(self.rng.integers(len(moves)))])
            return self.random_answer_text(task, inst)
        return self.random_answer_text(task, inst)

    def random_answer_text(self, task: Task, inst) -> str:
        """A legal-looking random answer to ``inst`` as text (see the class docstring)."""
        if isinstance(task, RandomAnswer):
            return task.format_answer(task.random_answer(inst, self.rng))
        if self._moves_are_answers(task, inst):
            walk = self.random_walk(task, inst)
            if walk:
                try:
                    return task.format_answer(walk)
                except (TypeError, ValueError, KeyError, IndexError):
                    pass
        golden = task.solve(inst)
        for answer in (shuffled_leaves(golden, self.rng), self._coin_flip(task, inst, golden)):
            if answer is None:
                continue
            try:
                text = task.format_answer(answer)
            except (TypeError, ValueError, KeyError, IndexError):
                continue
            if text.strip():
                return text
        return "no answer"  # a reply the verifier reads as a format error, never an empty string

    def _coin_flip(self, task, inst, golden):
        if self.rng.random() < 0.5 or not isinstance(task, Corruptible):
            return golden
        return task.corrupt_answer(inst, golden, self.rng)

    def _moves_are_answers(self, task, inst) -> bool:
        """Whether a list of interactive moves is also an answer (planning move lists: yes; SPaRC,
        whose answer is a path of cells while its moves are steps: no)."""
        key = type(task)
        if key not in self._walkable:
            self._walkable[key] = (isinstance(task, StepwiseTask) and isinstance(task, GoldenMoves)
                                   and list(task.golden_moves(inst)) == list(task.solve(inst)))
        return self._walkable[key]

    def random_walk(self, task, inst) -> list | None:
        if not isinstance(task, StepwiseTask):
            return None
        state = task.initial_state(inst)
        length = task.optimal_steps(inst) or 10
        walk = []
        for _ in range(int(length)):
            moves = task.legal_moves(inst, state)
            if not moves:
                break
            move = moves[int(self.rng.integers(len(moves)))]
            walk.append(move)
            state = task.apply(inst, state, move)
            if task.is_goal(inst, state):
                break
        return walk


def shuffled_leaves(answer, rng: np.random.Generator):
    """``answer`` with its leaves (the non-list items of nested lists/tuples) randomly permuted
    among their positions, containers kept; None for a scalar answer (nothing to shuffle)."""
    if not isinstance(answer, (list, tuple)):
        return None
    leaves: list = []

    def collect(x):
        if isinstance(x, (list, tuple)):
            for y in x:
                collect(y)
        else:
            leaves.append(x)

    collect(answer)
    if len(leaves) < 2:
        return None
    order = rng.permutation(len(leaves))
    it = iter([leaves[i] for i in order])

    def rebuild(x):
        if isinstance(x, (list, tuple)):
            return type(x)(rebuild(y) for y in x)
        return next(it)

    return rebuild(answer)


def make_agent(name: str, seed: int = 0):
    """``"oracle"`` or ``"random"``."""
    check_choice("agent", name, AGENTS)
    return OracleAgent(seed) if name == "oracle" else RandomAgent(seed)
