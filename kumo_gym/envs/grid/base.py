"""GridTask: what every Tatham grid puzzle shares (docs/specs/grid_puzzles.md §1-§3, §8).

The guide to adding a puzzle is the package docstring (``kumo_gym/envs/grid/__init__.py``) and
``docs/grid.md``. This class only ties the shared pieces together; each lives in a small module:

* :mod:`.answer` -- reading and writing answer grids (docs/specs/grid_puzzles.md §1);
* :mod:`.tatham` -- game IDs, one codec module per puzzle (docs/specs/grid_puzzles.md §3-§4);
* :mod:`kumo_gym.solvers.engine` -- SAT encodings, deduction, uniqueness, clue reduction (docs/specs/grid_puzzles.md
  §8);
* :mod:`.integrity` -- partial credit, cheap answers, near misses, instance validation;
* :mod:`.play` -- interactive cell moves and the structured view (docs/specs/grid_puzzles.md §6);
* :mod:`.render` -- terminal text and RGB images from one sketch.
"""
from __future__ import annotations

import dataclasses
import functools
import json
import weakref
from abc import abstractmethod
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ...core.capabilities import AnswerPicture
from ...core.errors import ConfigError
from ...core.instance import Instance
from ...core.params import Params, param
from ...core.task import StepwiseTask, folded, rule_table
from ...core.verdict import Verdict
from ...solvers.engine import Encoding
from . import render
from .answer import SymbolGrid, describe_symbols, dump_state, format_grid, parse_grid
from .claims import ClaimRules
from .geometry import neighbours4, neighbours8  # noqa: F401  (re-exported for the puzzles)
from .integrity import RewardIntegrity
from .play import CellMoves
from .tatham import NotExportable, codec, generate_with_tatham, parse_game_id, to_game_id

#: grids GridTask.verify found solved lately (see verify), by ``id(instance)``: (a weak reference
#: to the instance, the task class, its rule_checks, the switched-off rules, n_checks, the grid,
#: the message); at most _SOLVED_MAX, oldest dropped first. Kept here, not on the Instance or
#: the task, so that both pickle as before.
_SOLVED: dict[int, tuple] = {}
_SOLVED_MAX = 256
_NO_RULES: frozenset = frozenset()
Cell = tuple[int, int]
#: the version tag written into Instance.data["source"] for our generator
GENERATOR_VERSION = "kumo-gen-2"
#: the spec's four presets (docs/specs/grid_puzzles.md §3), in this order, for every grid puzzle
DIFFICULTIES = ("trivial", "easy", "normal", "hard")
#: how many layouts (rules formulas with their solvers) each puzzle keeps
LAYOUT_CACHE = 16
#: draws before a puzzle that a blind grid solves is kept anyway (degenerate presets)
BLIND_REDRAWS = 20
#: parameter sets whose resolved form and Tatham strings a task keeps (generation asks per instance)
MEMO_MAX = 64


@dataclass
class Check:
    """One rule check: ``rule`` is the short docs/specs/grid_puzzles.md §5 code (``R1``...), ``cells`` the cells it is
    about."""

    rule: str
    cells: list
    ok: bool


@dataclass(frozen=True)
class GridParams(Params):
    """Parameters every grid puzzle has; a puzzle's own ``Params`` subclasses this."""

    backend: str = param("kumo", choices=("kumo", "tatham"),
                         doc="'kumo': our generator; 'tatham': Tatham's sgt-<name> --generate, seeded params#seed")

    #: the fewest cells a ``W`` x ``H`` grid may have
    min_cells: ClassVar[int] = 1

    @staticmethod
    def with_size(W: int, lo: int, hi: int) -> type[GridParams]:
        """The base of a puzzle's ``Params`` whose grid is ``W`` columns by ``H`` rows, both in
        ``lo..hi``, ``H`` defaulting to ``W``: ``class TentsParams(GridParams.with_size(8, 4, 30))``."""
        return _sized(W, lo, hi)

    def check(self):
        """``H`` defaults to ``W`` and ``box_h`` to ``box_w`` (declare them ``param(None, kind=int)``),
        and a ``W`` x ``H`` grid has at least :attr:`min_cells` cells; puzzles with more cross-field
        rules extend this."""
        out = self
        for name, like in (("H", "W"), ("box_h", "box_w")):
            if getattr(out, name, 0) is None:
                out = dataclasses.replace(out, **{name: getattr(out, like)})
        W, H = getattr(out, "W", None), getattr(out, "H", None)
        if W is not None and H is not None and W * H < self.min_cells:
            raise ConfigError(f"{type(self).__name__.removesuffix('Params')} W={W}, H={H}: the grid needs at least "
                              f"{self.min_cells} cells")
        return out


@functools.cache
def _sized(columns: int, lo: int, hi: int) -> type[GridParams]:
    @dataclass(frozen=True)
    class SizedGridParams(GridParams):
        W: int = param(columns, lo=lo, hi=hi, doc="columns")
        H: int = param(None, kind=int, lo=lo, hi=hi, doc="rows (default: W)")

    return SizedGridParams


def _typed_key(params: dict, *extra) -> tuple | None:
    """A cache key for a dict of parameters that tells ``1``, ``1.0`` and ``True`` apart; None
    unless every value is a plain ``str``, ``int``, ``float``, ``bool`` or ``None``."""
    types = tuple(map(type, params.values()))
    if not _PLAIN_TYPES.issuperset(types):
        return None
    return (*extra, tuple(params.items()), types)


_PLAIN_TYPES = frozenset({str, int, float, bool, type(None)})


def tatham_level(default: Any, levels: dict) -> Any:
    """The ``tatham_difficulty`` parameter: one of Tatham's levels (``levels``: level -> its name)."""
    return param(default, choices=tuple(levels),
                 doc="Tatham's level: " + ", ".join(f"{level} {name}" for level, name in levels.items()))


def presets(names: str, *rows: tuple) -> dict[str, dict]:
    """``difficulties`` as a table: the parameter names once, then one row of values per preset of
    :data:`DIFFICULTIES` (trivial, easy, normal, hard), e.g. ``presets("W H", (4, 4), (6, 6), ...)``."""
    keys = names.split()
    if len(rows) != len(DIFFICULTIES) or any(len(row) != len(keys) for row in rows):
        raise ValueError(f"presets: {len(DIFFICULTIES)} rows of {len(keys)} values ({names}) expected")
    return {level: dict(zip(keys, row)) for level, row in zip(DIFFICULTIES, rows)}


def cells_decoder(x: np.ndarray, on, off):
    """``decode`` for one boolean variable per cell: ``on`` where it is true, else ``off``."""
    def decode(value: np.ndarray) -> list[list]:
        return np.where(value[x] > 0, on, off).tolist()

    return decode


SUBMIT_TEXT = '{"op": "submit"}'


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def example_shape(rows: int, cols: int) -> tuple[int, int]:
    """The size of the prompt's example answer grid: 2 x 3, or 3 x 2 for a 2 x 3 puzzle (never the puzzle's)."""
    return (3, 2) if (rows, cols) == (2, 3) else (2, 3)



#: violations a verdict lists in full (then one more per rule that is not among them)
VIOLATIONS_SHOWN = 50


def _capped(violations: list[dict]) -> list[dict]:
    """The first :data:`VIOLATIONS_SHOWN` violations, and the first of every other rule that fails
    further on, so that a verdict names every rule the answer breaks."""
    out = violations[:VIOLATIONS_SHOWN]
    named = {v["rule"] for v in out}
    for v in violations[VIOLATIONS_SHOWN:]:
        if v["rule"] not in named:
            named.add(v["rule"])
            out.append(v)
    return out

class GridTask(CellMoves, RewardIntegrity, StepwiseTask):
    """Base of the Tatham grid puzzles (see the package docstring for how to add one)."""

    #: the puzzle's name in prompts and messages (default: the class name without ``Task``)
    title: ClassVar[str] = ""
    Params: ClassVar[type[GridParams]] = GridParams
    default_difficulty: ClassVar[str | None] = "easy"
    #: answer symbols after normalisation (ints and/or upper-case strings)
    symbols: ClassVar[frozenset] = frozenset()
    #: the state keys of docs/specs/grid_puzzles.md §5, in prompt order
    state_keys: ClassVar[tuple[str, ...]] = ("grid",)
    #: the value of an unfilled cell in interactive play
    empty: ClassVar[Any] = 0
    #: answer symbols only given cells hold (never written by a move)
    given_symbols: ClassVar[frozenset] = frozenset()
    #: the answer names regions by arbitrary labels: any labelling of the same partition is the same
    #: answer (region puzzles through :class:`~.regions.RegionAnswers`, Galaxies' dot indices)
    any_labelling: ClassVar[bool] = False
    #: the puzzle's claims (docs/specs/grid_puzzles.md §7): the :class:`~.claims.ClaimRules` of its
    #: ``<puzzle>/claims.py``; None: only the generic ``cell`` claim
    claim_rules: ClassVar[ClaimRules | None] = None
    #: the rules in the prompt, in our own words, as a text block (:func:`~kumo_gym.core.task.folded`:
    #: one line per ``- `` rule, wrapped lines indented further); ``{field}`` is :meth:`prompt_fields`'
    rules_prompt: ClassVar[str] = ""
    #: what the answer grid holds, the same way (puzzles whose wording depends on more override
    #: :meth:`rules_text` / :meth:`answer_text` instead)
    answer_prompt: ClassVar[str] = ""
    partial_credit: ClassVar[str] = (
        "max(0, (f - b) / (1 - b)), where f is the fraction of non-given cells holding the certified-unique "
        "solution's value (minus one cell per given the answer changes) and b the larger of the best fraction that a "
        "blind grid (one symbol everywhere, a checkerboard, a cyclic Latin square) gets right on the same cells "
        "and a random fill's luck, p + 2 sqrt(p (1 - p) / n) for p = 1 / (number of cell values)")

    def __init_subclass__(cls, **kwargs):
        """A puzzle class named after its module (``TentsTask`` in ``tents.py``) gets the module name
        as its ``family`` (the sgt binary name) and the class name as its ``title`` unless it sets
        them; ``rule_codes`` written as text become :func:`~kumo_gym.core.task.rule_table` of the
        family."""
        super().__init_subclass__(**kwargs)
        name = cls.__name__.removesuffix("Task")
        if "family" not in cls.__dict__ and cls.__module__.rpartition(".")[2] == name.lower():
            cls.family = name.lower()
        if "title" not in cls.__dict__ and cls.family == name.lower():
            cls.title = name
        if isinstance(cls.__dict__.get("rule_codes"), str):
            cls.rule_codes = rule_table(cls.family, cls.rule_codes)

    # ---- what a puzzle writes -----------------------------------------------------------------
    @abstractmethod
    def encode(self, state: dict) -> Encoding:
        """The SAT model of the rules with the clues of ``state`` (constraints tagged ``rule=``)."""

    @abstractmethod
    def sample(self, rng: np.random.Generator, params: dict) -> tuple[dict, list[list]]:
        """Our generator (docs/specs/grid_puzzles.md §8): the puzzle state and its unique solution."""

    @abstractmethod
    def rule_checks(self, instance: Instance, grid: list[list]) -> list[Check]:
        """Every rule check of docs/specs/grid_puzzles.md §5 on an answer grid of the right shape and symbols."""

    def rules_text(self, instance: Instance) -> str:
        """The rules in the prompt, in our own words: :attr:`rules_prompt` filled in."""
        return self._prompt_part(self.rules_prompt, instance, "rules_prompt")

    def answer_text(self, instance: Instance) -> str:
        """What the answer grid holds, for the prompt: :attr:`answer_prompt` filled in."""
        return self._prompt_part(self.answer_prompt, instance, "answer_prompt")

    def prompt_fields(self, instance: Instance) -> dict:
        """The ``{fields}`` :attr:`rules_prompt` and :attr:`answer_prompt` may use: the state's."""
        return instance.data["state"]

    #: ``{fields}`` a user ``prompt_template`` may use besides ``prompt`` and the parameters: the
    #: state as one line of JSON, the rules and the answer symbols as the prompt words them, and the
    #: grid's rows and columns (a shorter prompt of the same instance, e.g. for training on a CPU)
    template_field_names: ClassVar[tuple[str, ...]] = ("state", "rules", "answer_format", "rows", "cols")

    def template_fields(self, instance: Instance) -> dict:
        st = instance.data["state"]
        H, W = self.dims(instance)
        return {"state": json.dumps({k: st[k] for k in self.state_keys if k in st}), "rules": self.rules_text(instance),
                "answer_format": self.answer_text(instance), "rows": H, "cols": W}

    def _prompt_part(self, text: str, instance: Instance, name: str) -> str:
        if not text:
            raise NotImplementedError(f"{type(self).__name__} sets neither {name} nor its method")
        return "\n".join(folded(text)).format_map(self.prompt_fields(instance))

    def sketch(self, instance: Instance, grid: list[list]) -> render.Sketch:
        """What the board shows (text and image); the default is the cell values."""
        return render.sketch_cells(grid)

    def cell_values(self, instance: Instance) -> tuple:
        """The values an answer cell may hold for this instance (in a fixed order)."""
        return tuple(sorted(self.symbols, key=lambda v: (isinstance(v, str), v)))

    def givens(self, instance: Instance) -> dict[Cell, Any]:
        """Cells fixed by the puzzle, with the value the answer must hold there."""
        return {}

    def shape(self, state: dict) -> tuple[int, int]:
        """(H, W) of the answer grid of a state."""
        grid = state["grid"]
        return len(grid), len(grid[0])

    def sketch_cell(self, instance: Instance, cell: Cell) -> Cell:
        """Where answer cell ``cell`` sits on :meth:`sketch`'s board (the same place, unless the
        sketch draws a finer board than the answer grid: Loopy's dots and faces)."""
        return cell

    def clue_count(self, instance: Instance) -> int:
        """How many clues the puzzle shows (the docs/specs/grid_puzzles.md §8 calibration against Tatham's density): by
        default the clue assumptions of its encoding."""
        return len(self.encoding(instance).clues)

    def clue_features(self, instance: Instance) -> np.ndarray:
        """Numbers describing the clues for the SB3 observation (fixed length for the params)."""
        return np.zeros(0, np.float32)

    # ---- layouts: one rules formula (and solver) per layout -----------------------------------
    def layout(self, key: Hashable, build: Callable[[], Encoding]) -> Encoding:
        """The encoding of a layout, built once: clue-free rules whose clues are assumptions.

        Puzzles call this from :meth:`encode` with a key the rules depend on (Towers: ``n``), and
        return ``layout(...).with_clues(...)``; the engine (and its solver) is shared by every
        instance of that layout, which is what makes clue reduction cheap.
        """
        cache = type(self).__dict__.get("_layouts")
        if cache is None:
            cache = OrderedDict()
            type(self)._layouts = cache
        if key in cache:
            cache.move_to_end(key)
            return cache[key]
        enc = cache[key] = build()
        if len(cache) > LAYOUT_CACHE:
            cache.popitem(last=False)
        return enc

    def encoding(self, instance: Instance) -> Encoding:
        return self.encode(instance.data["state"])

    # ---- parameters and Tatham interop --------------------------------------------------------
    def dims(self, instance: Instance) -> tuple[int, int]:
        """(H, W) of the answer grid."""
        return int(instance.data["H"]), int(instance.data["W"])

    @staticmethod
    def generation_params(params: dict) -> dict:
        """The params that define the puzzle (no preset name, no backend)."""
        return {k: v for k, v in params.items() if k not in ("difficulty", "backend")}

    def encode_params(self, params: dict, full: bool = True) -> str:
        key = _typed_key(params, full)
        cache = self.__dict__.get("_param_strings")
        if cache is None:
            cache = self.__dict__["_param_strings"] = {}
        elif key is not None and key in cache:
            return cache[key]
        out = codec(self.family).PARAMS.encode(self.generation_params(params), full=full)
        if key is not None:
            if len(cache) >= MEMO_MAX:
                cache.clear()
            cache[key] = out
        return out

    def decode_params(self, s: str) -> dict:
        """The parameters a Tatham string writes (checked against the ranges of ``Params``)."""
        out = codec(self.family).PARAMS.decode(s)
        self.resolve_params(**out)
        return out

    def tatham_preset(self, difficulty: str) -> str:
        """The canonical full Tatham parameter string of a preset (docs/specs/grid_puzzles.md §3)."""
        return self.encode_params(self.resolve_params(difficulty=difficulty), full=True)

    def to_game_id(self, instance: Instance) -> str:
        """The Tatham game ID ``params:desc`` of ``instance`` (docs/specs/grid_puzzles.md §4)."""
        return to_game_id(instance, self)

    def load(self, obj: Any) -> Instance:
        """An Instance, its dict/JSON form, a Tatham game ID ``params:desc`` (docs/specs/grid_puzzles.md §4), or a dict
        ``{"game_id": ..., "tatham_params": ...}`` (a save file's DESC with its CPARAMS)."""
        if isinstance(obj, str) and not obj.lstrip().startswith("{"):
            return parse_game_id(obj, self)
        if isinstance(obj, dict) and "game_id" in obj and "data" not in obj:
            return parse_game_id(obj["game_id"], self, tatham_params=obj.get("tatham_params"))
        return super().load(obj)

    # ---- generation (docs/specs/grid_puzzles.md §8) ------------------------------------------------------------------
    def generate(self, rng: np.random.Generator, **params) -> Instance:
        """A new instance from our generator (or Tatham's with ``backend="tatham"``)."""
        params = self._resolved(params)
        if params.get("backend") == "tatham":
            return generate_with_tatham(self, params, int(rng.integers(0, 2**62)))
        seen = set()
        for _ in range(BLIND_REDRAWS):
            state, solution = self.sample(rng, params)
            inst = self.make_instance(params, state, solution, source=GENERATOR_VERSION)
            if not self.blind_solves(inst) or inst.data["game_id"] in seen:
                break  # a puzzle drawn twice: the preset has (almost) no others
            seen.add(inst.data["game_id"])
        # a preset with almost no puzzles (Light Up 3x3b20s4d0 has exactly one, whose lights form a
        # checkerboard) keeps its blind-solvable puzzle; cheap_answers then states chance 1 for it
        return inst

    def _resolved(self, params: dict) -> dict:
        """``resolve_params(**params)``, kept per task for the last few argument sets (generation
        resolves the same preset on every call). A fresh dict each time; arguments
        that fail are not kept, so they fail again."""
        key = _typed_key(params)
        if key is None:
            return self.resolve_params(**params)
        owner = (type(self).Params, self.difficulties)  # a class patched since: start afresh
        held = self.__dict__.get("_resolved_params")
        if held is None or held[0][0] is not owner[0] or held[0][1] is not owner[1]:
            held = self.__dict__["_resolved_params"] = (owner, {})
        cache = held[1]
        hit = cache.get(key)
        if hit is None:
            hit = self.resolve_params(**params)
            if len(cache) >= MEMO_MAX:
                cache.clear()
            cache[key] = dict(hit)
        return dict(hit)

    def make_instance(self, params: dict, state: dict, solution: list[list] | None, source: str,
                      game_id: str | None = None, tatham_params: str | None = None) -> Instance:
        """Assemble ``Instance.data`` as docs/specs/grid_puzzles.md §2 lays it out (``W, H, state, solution, game_id``
        ...)."""
        H, W = self.shape(state)
        data = {"W": W, "H": H, "source": source, "state": state, "solution": solution}
        gen = self.generation_params(params)
        data["tatham_params"] = tatham_params or (self.encode_params(gen, full=True) if gen else None)
        if game_id is None:
            try:
                game_id = f"{self.encode_params(gen, full=False)}:{codec(self.family).encode(state)}"
            except NotExportable:
                game_id = None
        data["game_id"] = game_id
        return Instance(self.family, data, params)

    # ---- answer mode --------------------------------------------------------------------------
    def parse(self, text: str) -> list[list]:
        return parse_grid(text, self.symbols, self.answer_tags)

    def format_answer(self, answer: list[list]) -> str:
        return format_grid(answer)

    def prompt(self, instance: Instance) -> str:
        """docs/specs/grid_puzzles.md §2 prompt structure: role, rules, state, answer symbols, no tools, and last
        the answer format with one example grid of another size (never an answer to this puzzle)."""
        H, W = self.dims(instance)
        eh, ew = example_shape(H, W)
        return (
            f"You are solving a {self.title} logic puzzle on a grid of {H} rows and {W} columns.\n\n"
            f"Rules:\n{self.rules_text(instance)}\n\n"
            f"Puzzle state (JSON):\n{self.state_json(instance)}\n\n"
            f"Answer format: {self.answer_text(instance)} Row 0 is the top row, column 0 the left column.\n"
            "Solve it by reasoning alone, without writing code. End your reply with the solved grid as a JSON "
            f"array of {_count(H, 'row')} of {_count(W, 'cell')}; a {eh} x {ew} grid would be written:\n"
            f"{self.example_grid(instance, eh, ew)}\n")

    def expected_answer(self, instance: Instance) -> str:
        H, W = self.dims(instance)
        return (f"the solved grid at the end of the reply: a JSON array of {_count(H, 'row')} of {_count(W, 'cell')}, "
                f"each cell one of: {describe_symbols(self.cell_values(instance))}")

    def expected_move(self, instance: Instance) -> str:
        moves = self.legal_moves(instance, self.initial_state(instance))
        return f"one move as a JSON object, such as {self.format_move(moves[0]) if moves else SUBMIT_TEXT}"

    def example_grid(self, instance: Instance, rows: int, cols: int) -> str:
        """The one-line example of the answer form: ``rows`` x ``cols`` cells cycling through this instance's
        cell values (the empty value last), so its shape alone keeps it from answering the puzzle."""
        values = self.cell_values(instance)
        vals = [v for v in values if v != self.empty] + [v for v in values if v == self.empty]
        return json.dumps([[vals[(r + c) % len(vals)] for c in range(cols)] for r in range(rows)])

    def state_json(self, instance: Instance) -> str:
        st = instance.data["state"]
        return dump_state(st, tuple(k for k in self.state_keys if k in st))

    def answer_grid_error(self, instance: Instance, grid: Any) -> Verdict | None:
        """A parse_error verdict when ``grid`` has the wrong shape or a symbol this instance forbids."""
        H, W = self.dims(instance)
        if not isinstance(grid, list) or len(grid) != H or any(not isinstance(r, list) or len(r) != W for r in grid):
            shape = f"{len(grid)} rows" if isinstance(grid, list) else type(grid).__name__
            return Verdict("parse_error", f"The answer grid must have {H} rows of {W} cells; got {shape}.",
                           details={"reason": "wrong_shape"})
        allowed = set(self.cell_values(instance))
        for r in range(H):
            for c in range(W):
                v = grid[r][c]
                if v not in allowed or isinstance(v, bool):
                    return Verdict("parse_error", f"Cell ({r}, {c}) holds {str(v)[:20]!r}, which is not one of: "
                                   f"{describe_symbols(allowed)}.", first_error=r * W + c,
                                   details={"reason": "bad_symbol", "cell": [r, c]})
        return None

    def rule_code(self, rule: str) -> str:
        """The full code of a check's rule (``R2`` -> ``tents.R2``), as in ``rule_codes``."""
        return rule if "." in rule else f"{self.family}.{rule}"

    def verify(self, instance: Instance, answer: Any) -> Verdict:
        """Rule checking (docs/specs/grid_puzzles.md §1): any valid grid is solved; checks of switched-off rules are
        skipped; the partial score of an unsolved grid is :meth:`progress`.

        A grid read by :meth:`parse` (a :class:`SymbolGrid`) that equals one a task of this class
        has already found solved on this same instance object, with the same rule checks and the
        same rules switched on, is solved without running the checks again (scoring a
        golden answer many times); any other grid, every wrong one included, gets every check.
        """
        disabled = getattr(self, "_disabled_rules", _NO_RULES)
        memo = _SOLVED.get(id(instance))
        if memo is not None and type(answer) is SymbolGrid and memo[0]() is instance and memo[1] is type(self) \
                and memo[2] is type(self).rule_checks and memo[3] == disabled and answer == memo[5]:
            return Verdict("solved", memo[6], 1.0, details={"n_checks": memo[4]})
        bad = self.answer_grid_error(instance, answer)
        if bad is not None:
            return bad
        _, W = self.dims(instance)
        enabled: dict = {}  # per rule, asked once (a grid has hundreds of checks of a few rules)
        checks = [ch for ch in self.rule_checks(instance, answer)
                  if enabled.get(ch.rule, None) or (ch.rule not in enabled
                                                    and enabled.setdefault(ch.rule, self.rule_enabled(self.rule_code(ch.rule))))]
        failed = [ch for ch in checks if not ch.ok]
        if not failed:
            message = f"The {self.title} grid satisfies every rule."
            if type(answer) is SymbolGrid:
                # an Instance is frozen (its data normalised at construction): remember the grid
                while len(_SOLVED) >= _SOLVED_MAX:
                    _SOLVED.pop(next(iter(_SOLVED)), None)
                _SOLVED[id(instance)] = (weakref.ref(instance), type(self), type(self).rule_checks, disabled,
                                         len(checks), [list(r) for r in answer], message)
            return Verdict.success(message, n_checks=len(checks))
        cells = [tuple(x) for ch in failed for x in ch.cells]
        first = min(cells, key=lambda rc: rc[0] * W + rc[1]) if cells else None
        violations = [{"rule": self.rule_code(ch.rule), "cells": [list(x) for x in ch.cells]} for ch in failed]
        where = f" at cell ({first[0]}, {first[1]})" if first else ""
        return Verdict("wrong", f"{len(failed)} of {len(checks)} rule checks fail, first rule "
                       f"{self.rule_code(failed[0].rule)}{where}.",
                       score=min(self.progress(instance, answer), 0.99),
                       first_error=None if first is None else first[0] * W + first[1],
                       details={"violations": _capped(violations), "n_checks": len(checks), "n_failed": len(failed),
                                "first_error_cell": None if first is None else list(first)})

    # ---- SAT (docs/specs/grid_puzzles.md §8) -------------------------------------------------------------------------
    def solutions(self, instance: Instance, limit: int = 2) -> list[list[list]]:
        """Up to ``limit`` distinct solutions (SAT enumeration with the puzzle's cuts)."""
        enc = self.encoding(instance)
        return [enc.decode(v) for v in enc.engine.models(enc.assumptions(), limit)]

    def count_solutions(self, instance: Instance, limit: int = 2) -> int:
        """How many solutions exist, counting up to ``limit`` (1 means unique)."""
        return len(self.solutions(instance, limit))

    def grade(self, instance: Instance) -> int:
        """The docs/specs/grid_puzzles.md §8 difficulty proxy: 0 unit propagation, 1 failed-literal probing, 2
        search."""
        enc = self.encoding(instance)
        return enc.engine.grade(enc.assumptions())

    def record_fields(self, instance: Instance) -> dict:
        """Dataset records carry the docs/specs/grid_puzzles.md §8 grade (0 propagation, 1 probing, 2 search) and the
        clue count."""
        return {"grade": self.grade(instance), "clues": self.clue_count(instance)}

    def solve(self, instance: Instance) -> list[list]:
        sol = instance.data.get("solution")
        if sol:
            return [list(r) for r in sol]
        found = self.solutions(instance, 1)
        if not found:
            raise ConfigError(f"this {self.title} instance has no solution")
        return found[0]

    # ---- claims (docs/specs/grid_puzzles.md §7; each puzzle's schema is in its claims.py) ----------------------------
    @property
    def claim_kinds(self) -> list[str]:
        from .claims import claim_types

        return claim_types(self.family)

    def verify_claim(self, instance: Instance, claim: dict, profile: str = "default") -> str:
        """``correct``, ``incorrect`` or ``unverifiable`` (docs/specs/reasoning_graphs.md §2)."""
        from .claims import label_claim

        return label_claim(instance, claim, profile=profile)

    def solution_claims(self, instance: Instance) -> list[dict]:
        """C*, the minimal statement of the solution."""
        from .claims import solution_claims

        return solution_claims(instance)

    # ---- rendering ----------------------------------------------------------------------------
    def render(self, instance: Instance, state: Any = None) -> str:
        grid = self.initial_grid(instance) if state is None else [list(r) for r in state]
        H, W = self.dims(instance)
        return (f"{self.title} {W}x{H}  ({instance.data.get('game_id') or ''})\n"
                f"{render.render_text(self.sketch(instance, grid))}")

    def render_state(self, instance: Instance, state: Any) -> str:
        return render.render_text(self.sketch(instance, [list(r) for r in state]))

    def render_rgb(self, instance: Instance, state: Any = None) -> np.ndarray:
        grid = self.initial_grid(instance) if state is None else [list(r) for r in state]
        return render.render_rgb(self.sketch(instance, grid))

    def final_state(self, instance: Instance, answer: Any) -> Any:
        """The answer grid; None when it cannot be drawn (wrong shape, a symbol the puzzle forbids)."""
        return [list(r) for r in answer] if self.answer_grid_error(instance, answer) is None else None

    def state_picture(self, instance: Instance, state: Any, verdict: dict, move: Any = None) -> AnswerPicture:
        """The grid with the cells ``verdict`` names framed: its first failing cell
        (``details["first_error_cell"]``) in ``raster.MARK``, the other cells of the failing
        checks (``details["violations"]``) in ``raster.MARK_ALSO``."""
        H, W = self.dims(instance)
        grid = [list(r) for r in state]
        details = verdict.get("details") if isinstance(verdict.get("details"), dict) else {}

        def cell(x) -> tuple[int, int] | None:
            ok = isinstance(x, (list, tuple)) and len(x) == 2 and all(type(v) is int for v in x)
            return (x[0], x[1]) if ok and 0 <= x[0] < H and 0 <= x[1] < W else None

        first = cell(details.get("first_error_cell"))
        rule_of: dict = {}
        for v in details.get("violations") or []:
            for x in (v.get("cells") or []) if isinstance(v, dict) else []:
                if cell(x) is not None:
                    rule_of.setdefault(cell(x), v.get("rule"))
        sketch, to = self.sketch(instance, grid), lambda c: self.sketch_cell(instance, c)
        others = [c for c in rule_of if c != first]
        sketch.first_mark, sketch.marks = (to(first) if first else None), [to(c) for c in others]
        marks = [{"what": "cell", "at": list(c), "first": c == first, "rule": rule_of.get(c),
                  "box": list(render.cell_box(sketch, *to(c)))} for c in ([first] if first else []) + others]
        if first is not None:
            caption = (f"The answer grid. Framed in red: the first failing cell ({first[0]}, {first[1]})"
                       + (f", rule {rule_of[first]}" if rule_of.get(first) else "")
                       + (f"; in purple: {len(others)} other cell(s) of failing checks." if sketch.marks else "."))
        else:
            caption = "The answer grid" + (" (every rule holds)." if verdict.get("status") == "solved" else ".")
        words = "".join(f"\n{'first failing cell' if m['first'] else 'also named'}: ({m['at'][0]}, {m['at'][1]})"
                        + (f" {m['rule']}" if m["rule"] else "") for m in marks[:20])
        return AnswerPicture(image=render.render_rgb(sketch), text=render.render_text(sketch) + words, marks=marks,
                             caption=caption)
