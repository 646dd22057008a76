"""What Tatham's move-played games share (docs/games.md).

:class:`GameTask` is a :class:`~kumo_gym.envs.planning.base.PlanningTask` (move lists read by the
planning extractor, checked move by move with the first illegal move named, progress-based
partial credit from an exact solver, interactive play, near misses and cheap strategies) whose
instances are Tatham game IDs: every instance stores its ID, :meth:`GameTask.load` reads one
(``"3x3:d07...,ea8"``, or with full parameters ``"3x3c:..."``), and :meth:`GameTask.to_game_id`
writes it back byte for byte. A game says only what differs: its parameters, generator, codec,
rules, solver hooks and texts.
"""
from __future__ import annotations

import functools
import importlib
import sys
from abc import abstractmethod
from dataclasses import dataclass
from types import ModuleType
from typing import Any, ClassVar

import numpy as np

from ...core.errors import ConfigError, ParseError, check_ascii
from ...core.instance import Instance
from ...core.params import Params, param
from ...core.task import rule_table
from .. import raster
from ..planning import moves as mv
from ..planning.base import PARTIAL_CREDIT, STEP_BUDGET, PlanningTask

#: colours of the game pictures
LIGHT, DARK, GRID_INK, BLANK = (250, 250, 250), (40, 40, 40), (120, 120, 120), (200, 200, 200)
TILE = (255, 214, 140)
#: the planning puzzles' progress credit; the distances come from each game's exact solver
GAMES_PARTIAL_CREDIT = PARTIAL_CREDIT + (
    "; 0 as well on boards whose optimum is only certified between bounds (the distances there are not exact, "
    "so no estimate is paid)")
#: longest game ID read (a 10x10 Flip matrix is 2,500 hex digits)
MAX_GAME_ID = 20_000


@dataclass(frozen=True)
class GameParams(Params):
    """Parameters every game takes (a game adds its size and knobs)."""

    stepwise: bool = param(False, prompt=True,
                           doc="ask for the full state after every move in the answer")

    @staticmethod
    def with_size(default: int, lo: int, hi: int) -> type[GameParams]:
        """The base of a game's ``Params`` whose board is ``w`` by ``h``, both ``default`` and in
        ``lo..hi``: ``class FifteenParams(GameParams.with_size(3, 2, codec.MAX_SIDE))``."""
        return _sized(default, lo, hi)


@functools.cache
def _sized(default: int, lo: int, hi: int) -> type[GameParams]:
    @dataclass(frozen=True)
    class SizedGameParams(GameParams):
        w: int = param(default, lo=lo, hi=hi, doc="board width")
        h: int = param(default, lo=lo, hi=hi, doc="board height")

    return SizedGameParams


class GameTask(PlanningTask):
    """Base class of the move-played Tatham games (Flip, Fifteen, Sixteen ...).

    Subclasses define ``build(params, rng)`` (the instance data, holding ``game_id``),
    the codec (``codec``, a module with ``encode_params``, ``decode_params``, ``encode_desc`` and
    ``decode_desc``), the rules (``check_move``, ``apply``, ``initial_state``,
    ``goal_state``), the exact solver (``distance``, ``path_from``) and the texts.

    A game's class in ``games/<game>/task.py`` named ``<Game>Task`` gets, unless it sets them, the
    package name as its ``family`` (the ``sgt-`` program's name), the class name as its ``puzzle``,
    the module's ``<Game>Params`` as its parameters, the package's ``codec`` module, ``rule_codes`` written as text read by
    :func:`~kumo_gym.core.task.rule_table`, and the "Interactive" (from ``move_example``) and "Tatham
    interop" (from ``example_game_id``) sections closing its manual.
    """

    def __init_subclass__(cls, **kwargs):
        package, _, module = cls.__module__.rpartition(".")
        if module == "task" and package.rpartition(".")[0] == __package__:
            game = package.rpartition(".")[2]
            if "family" not in cls.__dict__:
                cls.family = game
            if "puzzle" not in cls.__dict__:
                cls.puzzle = cls.__name__.removesuffix("Task")
            if "Params" not in cls.__dict__:
                cls.Params = getattr(sys.modules[cls.__module__], cls.__name__.removesuffix("Task") + "Params")
            if "move_example" in cls.__dict__ and "## Interactive" not in (cls.__doc__ or ""):
                cls.__doc__ = (cls.__doc__ or "").rstrip() + (
                    f"\n\n    ## Interactive (``mode=\"interactive\"``)\n    One move per step, e.g. "
                    f"``{cls.move_example}``; the observation shows the state after it.\n")
            if "codec" not in cls.__dict__:
                cls.codec = importlib.import_module(package + ".codec")
            if "example_game_id" in cls.__dict__:
                cls.__doc__ = (cls.__doc__ or "").rstrip() + (
                    f"\n\n    ## Tatham interop\n    Instances are Tatham game IDs (``{cls.example_game_id}``): "
                    "``task.load(game_id)`` imports one and\n    ``task.to_game_id(instance)`` writes it back byte "
                    f"for byte; ``sgt-{cls.family}`` accepts ours.\n")
        if isinstance(cls.__dict__.get("rule_codes"), str):
            cls.rule_codes = rule_table("", cls.rule_codes)
        super().__init_subclass__(**kwargs)

    Params: ClassVar[type[Params]] = GameParams  # type: ignore[assignment]
    partial_credit: ClassVar[str] = GAMES_PARTIAL_CREDIT
    #: Tatham's own presets: our preset name -> Tatham's full parameter string
    tatham_presets: ClassVar[dict[str, str]] = {}
    #: parameter sets of boards small enough to search exhaustively (the solver's brute-force check)
    small_params: ClassVar[tuple[dict, ...]] = ()
    template_field_names: ClassVar[tuple[str, ...]] = (
        "game_id", "initial_state", "goal_state", "rules", "format_example", "answer_format", "system", "user")

    # ---- parameters and generation ------------------------------------------------------------
    def validate_params(self, params: dict) -> dict:
        return params

    def generate(self, rng: np.random.Generator, **params) -> Instance:
        if any(k not in params for k in self.Params.names()):
            params = self.resolve_params(**params)
        data = self.build(params, rng)
        inst = Instance(self.family, data, params={k: v for k, v in params.items() if v is not None})
        self.validate_instance(inst)
        return inst

    @abstractmethod
    def build(self, params: dict, rng: np.random.Generator) -> dict:  # type: ignore[override]
        """The instance data for ``params`` (it holds ``game_id``), drawn from ``rng``."""
        raise NotImplementedError

    @property
    def tatham_name(self) -> str:
        """The name of Tatham's program (``sgt-<tatham_name>``): our family name."""
        return self.family

    def tatham_params(self, params: dict) -> str:
        """Tatham's full parameter string for our parameters (what ``sgt-<game> --generate`` takes)."""
        return self.encode_params(params, full=True)

    def tatham_preset(self, difficulty: str) -> str:
        """Tatham's full parameter string of one of our presets."""
        return self.tatham_params(self.resolve_params(difficulty=difficulty))

    # ---- the codec ------------------------------------------------------------------------------
    #: the game's codec module (``encode_params``, ``decode_params``, ``encode_desc``, ``decode_desc``)
    codec: ClassVar[ModuleType]

    def encode_params(self, params: dict, full: bool = True) -> str:
        """Tatham's parameter string of ``params`` (``full``: with the generation-only parameters)."""
        return self.codec.encode_params(params, full)

    def decode_params(self, text: str) -> dict:
        """Our parameters from Tatham's parameter string (ConfigError when it is not one)."""
        if isinstance(text, str):
            check_ascii(f"{self.puzzle} parameter string", text)
        return self.codec.decode_params(text)

    def encode_desc(self, data: dict) -> str:
        """Tatham's description of the instance data."""
        return self.codec.encode_desc(data)

    def decode_desc(self, params: dict, desc: str) -> dict:
        """The instance data of a description (ConfigError naming what is wrong)."""
        return self.codec.decode_desc(params, desc)

    def to_game_id(self, instance: Instance) -> str:
        """Tatham's game ID of ``instance`` (the short parameters, a colon, the description)."""
        return f"{self.encode_params(instance.data, full=False)}:{self.encode_desc(instance.data)}"

    def from_game_id(self, game_id: str) -> Instance:
        """The instance of a Tatham game ID (``params:desc``); ConfigError when it is malformed."""
        if not isinstance(game_id, str) or len(game_id) > MAX_GAME_ID:
            raise ConfigError(f"a {self.puzzle} game ID is a string of at most {MAX_GAME_ID} characters")
        check_ascii(f"{self.puzzle} game ID", game_id)
        head, sep, desc = game_id.strip().partition(":")
        if not sep:
            raise ConfigError(f"{game_id[:60]!r} is not a {self.puzzle} game ID (expected 'PARAMS:DESCRIPTION', "
                              f"e.g. {self.example_game_id!r})")
        params = self.decode_params(head)
        data = self.decode_desc(params, desc)
        inst = Instance(self.family, data, params={k: v for k, v in params.items() if v is not None})
        self.validate_instance(inst)
        return inst

    #: a game ID shown in error messages
    example_game_id: ClassVar[str] = ""

    def load(self, obj: Any) -> Instance:
        """An Instance, its dict or JSON, a Tatham game ID, or ``{"game_id": ...}``."""
        if isinstance(obj, str) and not obj.lstrip().startswith("{"):
            return self.from_game_id(obj)
        if isinstance(obj, dict) and "family" not in obj:
            if "game_id" in obj:
                return self.from_game_id(obj["game_id"])
            raise ConfigError(f"a {self.puzzle} instance is an Instance, its dict, or a Tatham game ID such as "
                              f"{self.example_game_id!r}; got keys {sorted(map(str, obj))}")
        return super(PlanningTask, self).load(obj)

    def validate_instance(self, instance: Instance) -> None:
        """The stored ID must decode to the stored data (so data and ID never disagree)."""
        d = instance.data
        if not isinstance(d, dict) or not isinstance(d.get("game_id"), str):
            raise ConfigError(f"{self.puzzle} instance data must be a dict holding its 'game_id'")
        head, _, desc = d["game_id"].partition(":")
        again = self.decode_desc(self.decode_params(head), desc)
        for key, value in again.items():
            if key != "game_id" and d.get(key) != value:
                raise ConfigError(f"{self.puzzle} instance field {key!r} disagrees with its game_id")

    def template_fields(self, instance: Instance) -> dict:
        desc, sol = self.example()
        return {"game_id": instance.data["game_id"],
                "initial_state": self.render_state(instance, self.initial_state(instance)),
                "goal_state": self.render_state(instance, self.goal(instance)),
                "rules": self.rules(instance), "format_example": f"{desc}\nmoves = {self.format_moves(sol)}",
                "answer_format": self.answer_format, "system": self.system_prompt(instance),
                "user": self.user_prompt(instance)}

    def budget_steps(self, instance: Instance, step_budget: float = STEP_BUDGET) -> int:
        return max(4, super().budget_steps(instance, step_budget))

    def state_bounds(self, instance: Instance) -> tuple[float, float]:
        """Every game's structured view (``encode_state``) lies in [0, 1]."""
        return 0.0, 1.0

    def game_rules(self, board: str, moves: str) -> str:
        """The rules text of a board game: its name, ``board`` (what the picture shows), how rows and
        columns are numbered, then ``moves`` (what a move does, how it is written, the goal)."""
        return (f"You are playing {self.puzzle}. {board} Rows are numbered from 0 at the top, columns from 0 at "
                f"the left. {moves}")

    def lit_bits(self, instance: Instance, state: int) -> np.ndarray:
        """The structured view of a board held as a bit mask, cell ``r * W + c`` on bit ``r * W + c``."""
        wh = instance.data["w"] * instance.data["h"]
        return np.array([(state >> j) & 1 for j in range(wh)], np.float32)

    def first_broken(self, *checks: tuple[str, bool]) -> str | None:
        """The first rule of the ``(rule, holds)`` pairs that does not hold and is switched on."""
        return next((rule for rule, holds in checks if not holds and rule not in self._disabled_rules), None)

    def simulate(self, instance: Instance, moves: list) -> dict:
        """:meth:`PlanningTask.simulate` with the goal found by :meth:`is_goal` (a game may have many
        goal states: any colour of a flooded board, one peg anywhere, the code guessed)."""
        state = self.initial_state(instance)
        goal_at = None
        for i, move in enumerate(moves):
            reason = self.check_move(instance, state, move)
            if reason is not None:
                return {"n_legal_prefix": i, "reason": reason, "state": state, "goal_first_reached_at": goal_at}
            state = self.apply(instance, state, move)
            if goal_at is None and self.is_goal(instance, state):
                goal_at = i + 1
        return {"n_legal_prefix": len(moves), "reason": None, "state": state, "goal_first_reached_at": goal_at}

    # ---- pictures ---------------------------------------------------------------------------------
    def grid_picture(self, w: int, h: int, cell: int, paint) -> tuple[np.ndarray, dict]:
        """A ``w`` x ``h`` board of square cells; ``paint(img, r, c, box)`` draws each cell.
        Places are ``("cell", "(r,c)")``."""
        pad = 12
        img = np.full((h * cell + 2 * pad, w * cell + 2 * pad, 3), LIGHT, np.uint8)
        places = {}
        for r in range(h):
            for c in range(w):
                box = (pad + c * cell, pad + r * cell, pad + (c + 1) * cell, pad + (r + 1) * cell)
                paint(img, r, c, box)
                raster.frame(img, box, 1, GRID_INK)
                places[("cell", f"({r},{c})")] = box
        return img, places

    def move_places(self, instance: Instance, move: Any) -> list:
        """A ``[row, col]`` move names its cell."""
        if isinstance(move, (list, tuple)) and len(move) == 2 and all(type(v) is int for v in move):
            return [("cell", f"({move[0]},{move[1]})")]
        return []


class AskingGame(GameTask):
    """A game of asking (Guess, Black Box): a hidden answer found from the replies to questions.

    The goal is never shown (it would name the answer); the reference player's questions and final
    answer from any state come from ``_plays(instance, state)``, and their number is the optimum
    used for efficiency; no progress credit is paid (the information gathered shows only in the
    final answer). ``question`` names one move in the prompts (``guess``, ``move``).
    """

    question: ClassVar[str] = "move"
    #: its plural, where adding an s is wrong
    questions: ClassVar[str] = ""

    def with_game_id(self, data: dict) -> dict:
        """``data`` with its Tatham game ID added (the full parameters, a colon, the description)."""
        data["game_id"] = f"{self.codec.encode_params(data)}:{self.codec.encode_desc(data)}"
        return data

    def template_fields(self, instance: Instance) -> dict:
        """Everything but the goal (it would name the hidden answer)."""
        out = super().template_fields(instance)
        out["goal_state"] = "(hidden)"
        return out

    @abstractmethod
    def _plays(self, instance: Instance, state: Any) -> list:
        """The reference player's moves from ``state`` to the end of the game."""
        raise NotImplementedError

    def optimal_length(self, instance: Instance) -> int | None:
        return len(self.solve(instance))

    @abstractmethod
    def question_limit(self, instance: Instance) -> int:
        """The most moves the rules allow, from the parameters alone (never from the hidden answer)."""
        raise NotImplementedError

    def step_basis(self, instance: Instance) -> int:
        """The question limit, not the reference player's count: that depends on the hidden answer, and
        a step budget built on it would tell the answer (Guess's trivial code that the reference player
        names first was allowed 2 steps, every other code more)."""
        return self.question_limit(instance)

    def solve(self, instance: Instance) -> list:
        return self.cached(instance, "solution", lambda: self._plays(instance, self.initial_state(instance)))

    def progress(self, instance: Instance, k: int, state: Any, goal_reached_at: int | None) -> tuple[float, bool]:
        return 0.0, True

    def interactive_prompt(self, instance: Instance) -> str:
        return (self.rules(instance) + "\n\n" + self.describe(instance) +
                f"\n\nMake one {self.question} per turn, written as {self.move_format_for(instance)}.")

    def system_prompt(self, instance: Instance) -> str:
        desc, sol = self.example_for(instance)
        closing = f"End your reply with your {self.questions or self.question + 's'} on one line in exactly this form:\n{self.answer_format}"
        return "\n\n".join([self.rules(instance), f"Worked example. {desc}\nmoves = {self.format_moves(sol)}", closing])


def match_params(pattern, text: str, expected: str) -> tuple[str, ...]:
    """The groups of a Tatham parameter string matched in full by ``pattern``; ConfigError saying
    what was ``expected`` otherwise."""
    m = pattern.fullmatch(text)
    if m is None:
        raise ConfigError(f"{text[:40]!r} is not {expected}")
    return m.groups()


class IntMoves:
    """Moves that are flat lists of ``move_arity`` integers (``[row, col]``, ``[row, col, to_row, to_col]``)."""

    puzzle: ClassVar[str]
    move_fields: ClassVar[str]
    move_arity: ClassVar[int] = 2

    def coerce_move(self, value: Any) -> list:
        if not isinstance(value, list) or len(value) != self.move_arity:
            raise ParseError(f"a {self.puzzle} move is {self.move_fields}, got {str(value)[:60]}", "malformed_move")
        return [mv.as_int(v) for v in value]

    def is_single_move(self, value: Any) -> bool:
        return (isinstance(value, list) and len(value) == self.move_arity
                and not any(isinstance(v, list) for v in value))


class CellMoves(IntMoves):
    """The moves of a game played by naming a cell, ``[row, col]`` (instance data ``w``, ``h``)."""

    _disabled_rules: frozenset

    def off_board(self, instance: Instance, move: list) -> bool:
        """Whether ``move`` names a cell off the board (and the ``off_board`` rule is on)."""
        r, c = move
        d = instance.data
        return "off_board" not in self._disabled_rules and not (0 <= r < d["h"] and 0 <= c < d["w"])

    def cell_index(self, instance: Instance, move: list) -> int:
        """The cell's index in reading order; a negative row or column aliases a real cell (reached
        only with ``off_board`` off); IndexError for a column past either edge."""
        r, c = move
        w = instance.data["w"]
        if not -w <= c < w:
            raise IndexError(f"column {c} is off the board")
        return r * w + c


    def move_catalog(self, instance: Instance) -> list:
        d = instance.data
        return [[r, c] for r in range(d["h"]) for c in range(d["w"])]

    def candidate_moves(self, instance: Instance, state: Any) -> list:
        """Every cell, then cells one step off each edge (negative ones alias real cells once the
        board check is gone, so they break ``off_board`` alone)."""
        d = instance.data
        off = [[r, c] for r in range(-1, d["h"] + 1) for c in range(-1, d["w"] + 1)
               if not (0 <= r < d["h"] and 0 <= c < d["w"])]
        return self.move_catalog(instance) + off


def parse_size(text: str, game: str) -> tuple[int, int, str]:
    """``WxH`` (or ``N`` for a square) at the start of a Tatham parameter string, and the rest."""
    i = 0
    while i < len(text) and text[i].isdigit():
        i += 1
    if i == 0 or i > 3:
        raise ConfigError(f"{text[:40]!r} is not a {game} parameter string (expected e.g. '4x4')")
    w = h = int(text[:i])
    rest = text[i:]
    if rest.startswith("x"):
        j = 1
        while j < len(rest) and rest[j].isdigit():
            j += 1
        if j == 1 or j > 4:
            raise ConfigError(f"{text[:40]!r} is not a {game} parameter string (expected e.g. '4x4')")
        h, rest = int(rest[1:j]), rest[j:]
    return w, h, rest


def plain_size(text: str, game: str, lo: int, hi: int) -> tuple[int, int]:
    """``(w, h)`` of a parameter string that is the size alone (``WxH`` or ``N``), each side in
    ``lo..hi``; ConfigError naming what is wrong otherwise."""
    w, h, rest = parse_size(text, game)
    if rest:
        raise ConfigError(f"{game} parameter string {text[:40]!r} has {rest[:10]!r} after the size")
    if not (lo <= w <= hi and lo <= h <= hi):
        raise ConfigError(f"{game} size {w}x{h} is not in {lo}..{hi} x {lo}..{hi}")
    return w, h


def bound_fields(lower: int, upper: int) -> dict:
    """The dataset-record fields of an optimum certified between ``lower`` and ``upper``."""
    return {"optimum_lower_bound": lower, "optimum_exact": lower == upper}
