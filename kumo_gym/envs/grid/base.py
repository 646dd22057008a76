"""What every grid puzzle shares (grid_puzzles.md §1-§3, §6, §8).

Developer note: adding a puzzle
===============================
A puzzle is one module ``kumo_gym/envs/grid/<name>.py`` with one :class:`GridTask` subclass and
one catalogue row in ``kumo_gym/envs/grid/catalog.py``. The subclass says only what is
particular to the puzzle; parsing, verification bookkeeping, the prompt layout, SAT
enumeration and uniqueness, interactive play, the SB3 structured view, Tatham import/export
dispatch and answer corruption live here. Look at ``tents.py`` for a short complete example.

Class attributes to set::

    family = "tents"             # Instance.family; also the sgt binary name (sgt-tents)
    title = "Tents"              # the env name: kumo_gym/Tents-v0
    difficulties = {"trivial": {...}, "easy": ..., "normal": ..., "hard": ...}   # generation params
    param_names = ("W", "H", "tatham_difficulty", "backend")                     # explicit params
                                  # (backend="tatham" generates with sgt-<family>; base handles it)
    symbols = frozenset({"T", "A", "."})   # normalised answer vocabulary (ints and/or upper-case strings)
    state_keys = ("grid", "col_counts", "row_counts")   # order of the state JSON in the prompt
    empty = "."                   # the value of an unfilled cell in interactive play

Methods to implement (all pure functions of the instance):

* ``validate_params(params) -> params`` -- check sizes/flags (``check_int``/``check_choice``).
* ``sample(rng, params) -> (state, solution)`` -- our generator: sample a solution, derive
  clues, reduce them while :class:`~kumo_gym.solvers.sat.UniquenessOracle` certifies uniqueness.
  ``state`` is the dict of the §5 state keys; ``solution`` the answer grid (H lists of W).
* ``encode(instance) -> Encoding`` -- the SAT model of the rules with the instance's clues.
* ``rule_checks(instance, grid) -> list[Check]`` -- every rule check of §5; the score is the
  fraction that pass. A single-cell change of a valid answer must fail at least one check.
* ``cell_values(instance)`` -- the values an answer cell may hold for this instance.
* ``givens(instance) -> {(r, c): value}`` -- cells fixed in interactive play.
* ``rules_text(instance)`` and ``answer_text(instance)`` -- the prompt's rules and answer
  format, in our own words.
* ``draw(instance, grid) -> str`` -- a terminal picture (printable ASCII).
* Tatham interop: ``encode_params(params, full=True)``, ``decode_params(s)``,
  ``decode_game_id(params, desc) -> state``, ``encode_desc(instance) -> str``
  (use the shared sub-grammars in ``tatham.py``).
* Optional: ``initial_grid(instance)`` (default: givens on a grid of ``empty``),
  ``move_values(instance)``, ``clue_features(instance)`` (numbers for the SB3 observation).

Then add the catalogue row, a line to ``tests/conformance/test_tatham.py`` (``PUZZLES``), and
the puzzle's claims to ``claims.py`` if it has more than the generic cell claims.
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from ...core.errors import ConfigError, ParseError
from ...core.extract import answer_regions, balanced_spans, normalize_quotes, tail, unclosed_open
from ...core.instance import Instance
from ...core.task import StepwiseTask, Transition
from ...core.verdict import Verdict
from ...solvers.sat import Formula, enumerate_models, grade, true_vars
from ...solvers.sat import solve as sat_solve
from .tatham import generate_with_tatham, parse_game_id, to_game_id

Cell = tuple[int, int]
#: the version tag written into Instance.data["source"] for our generator
GENERATOR_VERSION = "kumo-gen-1"
#: the spec's four presets (§3), in this order, for every grid puzzle
DIFFICULTIES = ("trivial", "easy", "normal", "hard")


@dataclass
class Check:
    """One rule check: ``rule`` is the §5 code (``R1``...), ``cells`` the cells it is about."""

    rule: str
    cells: list
    ok: bool


@dataclass
class Encoding:
    """A SAT model of one instance.

    ``answer_vars`` are the variables that determine the answer grid (the projection used for
    enumeration and uniqueness); ``decode(true_vars) -> grid`` reads a model back.
    """

    formula: Formula
    answer_vars: list[int]
    decode: Callable[[set[int]], list[list]]
    extra: dict = field(default_factory=dict)


# ---- answer parsing (§1) -------------------------------------------------------------------
_TOKEN = re.compile(r"""\s*(?:(\[)|(\])|(,)|"((?:[^"\\\n]|\\.){0,64})"|'([^'\n]{0,64})'|([^\s\[\],"']{1,64}))""")
_INT = re.compile(r"[+-]?\d{1,9}")
#: A grid with more cells than this is refused before anything else happens (bounded time).
MAX_CELLS = 4096


def _grid_spans(text: str) -> list[tuple[int, int]]:
    """Balanced ``[...]`` spans whose first non-blank character after ``[`` is ``[``."""
    out = []
    for a, b in balanced_spans(text, "[", "]"):
        j = a + 1
        while j < b and text[j] in " \t\r\n":
            j += 1
        if j < b and text[j] == "[":
            out.append((a, b))
    return out


def read_grid_text(span: str) -> list[list]:
    """Read ``[[a, b], [c, d]]`` (depth exactly 2) into raw Python cells. Linear time.

    Cells may be JSON numbers, double- or single-quoted strings, or bare words; ``null`` is None.
    Raises ParseError(reason="malformed") on any other structure.
    """
    rows: list[list] = []
    depth = 0
    row: list | None = None
    expect_value = True
    pos = 0
    n = len(span)
    cells = 0
    while pos < n:
        m = _TOKEN.match(span, pos)
        if m is None:
            if span[pos:].strip() == "":
                break
            raise ParseError(f"unexpected text {span[pos:pos + 20]!r} in the answer grid", "malformed")
        pos = m.end()
        if m.group(1):
            depth += 1
            if depth > 2:
                raise ParseError("the answer grid is nested more than two levels deep", "malformed")
            if depth == 2:
                if not expect_value:
                    raise ParseError("missing comma between rows of the answer grid", "malformed")
                row = []
            expect_value = True
        elif m.group(2):
            if depth == 2:
                rows.append(row)
                row = None
                expect_value = False
            elif depth == 1:
                return rows
            depth -= 1
        elif m.group(3):
            if expect_value:
                # a leading or doubled comma is not JSON; tolerate only a trailing one before ']'
                nxt = _TOKEN.match(span, pos)
                if not (nxt and nxt.group(2)):
                    raise ParseError("an empty cell (doubled comma) in the answer grid", "malformed")
            expect_value = True
        else:
            if depth != 2:
                raise ParseError("a cell outside any row of the answer grid", "malformed")
            if not expect_value:
                raise ParseError("missing comma between cells of the answer grid", "malformed")
            cells += 1
            if cells > MAX_CELLS:
                raise ParseError(f"the answer grid has more than {MAX_CELLS} cells", "too_large")
            if m.group(4) is not None:
                row.append(_unescape(m.group(4)))
            elif m.group(5) is not None:
                row.append(m.group(5))
            else:
                word = m.group(6)
                row.append(None if word == "null" else _Bare(word))
            expect_value = False
    raise ParseError("the answer grid is not closed", "malformed")


class _Bare(str):
    """An unquoted word in the grid (a number or a bare symbol)."""


def _unescape(s: str) -> str:
    if "\\" not in s:
        return s
    try:
        return json.loads('"' + s + '"')
    except ValueError:
        return s


def normalize_cell(value: Any) -> Any:
    """§1 normalisation: numeric strings become ints, letters upper case, blanks stripped."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, float):
        return int(value) if value.is_integer() and abs(value) < 1e9 else value
    if isinstance(value, str):
        s = value.strip()
        if _INT.fullmatch(s):
            return int(s)
        if re.fullmatch(r"[+-]?\d{1,9}\.0*", s):
            return int(float(s))
        return s.upper()
    return value


def parse_grid(text: str, symbols: frozenset, tags: tuple[str, ...] = ("answer",)) -> list[list]:
    """The last complete top-level ``[[...]]`` grid in ``text`` (grid_puzzles.md §1).

    Wrappers (tags, ``\\boxed{}``, code fences, prose) are searched most explicit first; the last
    grid of the first region holding one is read. The grid must be rectangular and every cell
    one of ``symbols`` after normalisation; the first bad cell is named in the error.
    """
    if not isinstance(text, str):
        text = str(text)
    for _source, region in answer_regions(text, tags):
        spans = _grid_spans(region)
        if spans:
            a, b = spans[-1]
            return _check_grid(read_grid_text(region[a:b]), symbols)
    scanned = tail(normalize_quotes(text))
    truncated = unclosed_open(scanned[-20000:]) and "[[" in scanned[-20000:]
    raise ParseError("no answer grid (a JSON array of arrays) was found", "no_answer", truncated=truncated)


def _check_grid(raw: list[list], symbols: frozenset) -> list[list]:
    if not raw or not raw[0]:
        raise ParseError("the answer grid is empty", "wrong_shape")
    width = len(raw[0])
    grid = []
    for r, row in enumerate(raw):
        if len(row) != width:
            raise ParseError(f"row {r} has {len(row)} cells but row 0 has {width}", "wrong_shape")
        out = []
        for c, v in enumerate(row):
            nv = normalize_cell(v)
            if nv not in symbols or isinstance(nv, bool):
                raise ParseError(f"cell ({r}, {c}) holds {str(v)[:20]!r}, which is not one of: "
                                 f"{describe_symbols(symbols)}", "bad_symbol")
            out.append(nv)
        grid.append(out)
    return grid


def describe_symbols(symbols) -> str:
    ints = sorted(s for s in symbols if isinstance(s, int))
    strs = sorted(str(s) for s in symbols if isinstance(s, str))
    parts = []
    if ints:
        parts.append(f"{ints[0]}..{ints[-1]}" if len(ints) > 3 and ints == list(range(ints[0], ints[-1] + 1))
                     else ", ".join(map(str, ints)))
    parts += [json.dumps(s) for s in strs]
    return ", ".join(parts)


def format_grid(grid: list[list]) -> str:
    """The canonical answer text: a JSON array of arrays, one row per line."""
    return "[\n" + ",\n".join("  " + json.dumps(list(row)) for row in grid) + "\n]"


def dump_state(state: dict, keys: tuple[str, ...]) -> str:
    """The state JSON of the prompt: keys in §5 order, one grid row per line."""
    lines = ["{"]
    for i, k in enumerate(keys):
        v = state[k]
        sep = "," if i < len(keys) - 1 else ""
        if isinstance(v, list) and v and all(isinstance(r, list) for r in v):
            rows = ",\n".join("    " + json.dumps(r) for r in v)
            lines.append(f'  "{k}": [\n{rows}\n  ]{sep}')
        else:
            lines.append(f'  "{k}": {json.dumps(v)}{sep}')
    lines.append("}")
    return "\n".join(lines)


def neighbours4(r: int, c: int, H: int, W: int) -> Iterator[Cell]:
    for dr, dc in ((-1, 0), (0, 1), (1, 0), (0, -1)):
        rr, cc = r + dr, c + dc
        if 0 <= rr < H and 0 <= cc < W:
            yield rr, cc


def neighbours8(r: int, c: int, H: int, W: int) -> Iterator[Cell]:
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            rr, cc = r + dr, c + dc
            if (dr or dc) and 0 <= rr < H and 0 <= cc < W:
                yield rr, cc


_MOVE_OBJ = re.compile(r"\{[^{}]{0,200}\}")


class GridTask(StepwiseTask):
    """Base of the Tatham grid puzzles. See the module docstring for how to add one."""

    family: ClassVar[str] = ""
    title: ClassVar[str] = ""
    default_difficulty: ClassVar[str | None] = "easy"
    symbols: ClassVar[frozenset] = frozenset()
    state_keys: ClassVar[tuple[str, ...]] = ("grid",)
    empty: ClassVar[Any] = 0

    # ---- hooks a puzzle implements --------------------------------------------------------
    def sample(self, rng: np.random.Generator, params: dict) -> tuple[dict, list[list]]:
        raise NotImplementedError

    def encode(self, instance: Instance) -> Encoding:
        raise NotImplementedError

    def rule_checks(self, instance: Instance, grid: list[list]) -> list[Check]:
        raise NotImplementedError

    def cell_values(self, instance: Instance) -> tuple:
        raise NotImplementedError

    def givens(self, instance: Instance) -> dict[Cell, Any]:
        return {}

    def rules_text(self, instance: Instance) -> str:
        raise NotImplementedError

    def answer_text(self, instance: Instance) -> str:
        raise NotImplementedError

    def draw(self, instance: Instance, grid: list[list]) -> str:
        return format_grid(grid)

    def encode_params(self, params: dict, full: bool = True) -> str:
        raise NotImplementedError

    def decode_params(self, s: str) -> dict:
        raise NotImplementedError

    def decode_game_id(self, params: dict, desc: str) -> dict:
        raise NotImplementedError

    def encode_desc(self, instance: Instance) -> str:
        raise NotImplementedError

    def clue_count(self, instance: Instance) -> int:
        """How many clues the puzzle shows (for the §8 calibration against Tatham's density)."""
        return len(self.givens(instance))

    def clue_features(self, instance: Instance) -> np.ndarray:
        """Numbers describing the clues for the SB3 observation (fixed length for the params)."""
        return np.zeros(0, np.float32)

    # ---- sizes and presets ----------------------------------------------------------------
    def dims(self, instance: Instance) -> tuple[int, int]:
        """(H, W) of the answer grid."""
        return int(instance.data["H"]), int(instance.data["W"])

    def tatham_preset(self, difficulty: str) -> str:
        """The canonical full Tatham parameter string of a preset (§3)."""
        return self.encode_params(self.resolve_params(difficulty=difficulty), full=True)

    def resolve_params(self, difficulty: str | None = None, **params) -> dict:
        """Preset merged with explicit sizes (Task.resolve_params), plus the ``backend`` choice."""
        backend = params.pop("backend", None)
        out = super().resolve_params(difficulty=difficulty, **params)
        if backend is not None:
            if backend not in ("kumo", "tatham"):
                raise ConfigError(f"backend {backend!r} is not one of: kumo, tatham")
            out["backend"] = backend
        return out

    # ---- generation -----------------------------------------------------------------------
    def generate(self, rng: np.random.Generator, **params) -> Instance:
        """A new instance from our generator (or Tatham's with ``backend="tatham"``), §8."""
        params = self.resolve_params(**params)
        if params.get("backend") == "tatham":
            return generate_with_tatham(self, params, int(rng.integers(0, 2**62)))
        state, solution = self.sample(rng, params)
        return self.make_instance(params, state, solution, source=GENERATOR_VERSION)

    @staticmethod
    def generation_params(params: dict) -> dict:
        """The params that define the puzzle (no preset name, no backend)."""
        return {k: v for k, v in params.items() if k not in ("difficulty", "backend")}

    def make_instance(self, params: dict, state: dict, solution: list[list] | None, source: str,
                      game_id: str | None = None, tatham_params: str | None = None, W: int | None = None,
                      H: int | None = None) -> Instance:
        """Assemble ``Instance.data`` as §2 lays it out (``W, H, state, solution, game_id`` ...)."""
        grid = solution or state.get("grid")
        # sizes: explicit, else the solution or state grid, else the W/H generation parameters
        W = int(W if W is not None else len(grid[0]) if grid else params["W"])
        H = int(H if H is not None else len(grid) if grid else params["H"])
        data = {"W": W, "H": H, "source": source, "state": state, "solution": solution}
        gen = self.generation_params(params)
        data["tatham_params"] = tatham_params or (self.encode_params(gen, full=True) if gen else None)
        if game_id is None:
            probe = Instance(self.family, data, params)
            game_id = f"{self.encode_params(gen, full=False)}:{self.encode_desc(probe)}"
        data["game_id"] = game_id
        return Instance(self.family, data, params)

    def load(self, obj: Any) -> Instance:
        """An Instance, its dict/JSON form, a Tatham game ID ``params:desc`` (§4), or a dict
        ``{"game_id": ..., "tatham_params": ...}`` (a save file's DESC with its CPARAMS)."""
        if isinstance(obj, str) and not obj.lstrip().startswith("{"):
            return parse_game_id(obj, self)
        if isinstance(obj, dict) and "game_id" in obj and "data" not in obj:
            return parse_game_id(str(obj["game_id"]), self, tatham_params=obj.get("tatham_params"))
        return super().load(obj)

    # ---- answer mode ----------------------------------------------------------------------
    def parse(self, text: str) -> list[list]:
        return parse_grid(text, self.symbols, self.answer_tags)

    def format_answer(self, answer: list[list]) -> str:
        return format_grid(answer)

    def prompt(self, instance: Instance) -> str:
        """§2 prompt structure: role, rules and answer symbols, no tools, answer format, state."""
        H, W = self.dims(instance)
        return (
            f"You are solving a {self.title} logic puzzle on a grid of {H} rows and {W} columns.\n\n"
            f"Rules:\n{self.rules_text(instance)}\n\n"
            f"Answer format: {self.answer_text(instance)} Rows and columns are numbered from 0, "
            "row 0 at the top and column 0 at the left.\n\n"
            "Solve it by reasoning alone: do not write or run code and do not use outside resources.\n"
            f"End your reply with the solved grid only: a JSON array of {H} arrays of {W} cells each.\n\n"
            f"Puzzle state (JSON):\n{self.state_json(instance)}\n")

    def state_json(self, instance: Instance) -> str:
        return dump_state(instance.data["state"], self.state_keys)

    def answer_grid_error(self, instance: Instance, grid: Any) -> Verdict | None:
        """A parse_error verdict when ``grid`` has the wrong shape or a symbol this instance forbids."""
        H, W = self.dims(instance)
        if not isinstance(grid, list) or len(grid) != H or any(not isinstance(r, list) or len(r) != W for r in grid):
            shape = (f"{len(grid)} rows" if isinstance(grid, list) else type(grid).__name__)
            return Verdict("parse_error", f"The answer grid must have {H} rows of {W} cells; got {shape}"
                           + (f" of {[len(r) if isinstance(r, list) else '?' for r in grid][:8]}"
                              if isinstance(grid, list) else "") + ".",
                           details={"reason": "wrong_shape"})
        allowed = set(self.cell_values(instance))
        for r in range(H):
            for c in range(W):
                v = grid[r][c]
                if v not in allowed or isinstance(v, bool):
                    return Verdict("parse_error", f"Cell ({r}, {c}) holds {v!r}, which is not one of: "
                                   f"{describe_symbols(allowed)}.", first_error=r * W + c,
                                   details={"reason": "bad_symbol", "cell": [r, c]})
        return None

    def verify(self, instance: Instance, answer: Any) -> Verdict:
        """Rule checking (§1): any valid grid is solved; score = fraction of checks passed."""
        bad = self.answer_grid_error(instance, answer)
        if bad is not None:
            return bad
        _, W = self.dims(instance)
        checks = self.rule_checks(instance, answer)
        failed = [ch for ch in checks if not ch.ok]
        if not failed:
            return Verdict.success(f"The {self.title} grid satisfies every rule.", n_checks=len(checks))
        cells = [tuple(x) for ch in failed for x in ch.cells]
        first = min(cells, key=lambda rc: rc[0] * W + rc[1]) if cells else None
        violations = [{"rule": f"{self.family}.{ch.rule}", "cells": [list(x) for x in ch.cells]} for ch in failed]
        worst = failed[0]
        where = f" at cell ({first[0]}, {first[1]})" if first else ""
        return Verdict("wrong", f"{len(failed)} of {len(checks)} rule checks fail, first rule {worst.rule}{where}.",
                       score=(len(checks) - len(failed)) / len(checks),
                       first_error=None if first is None else first[0] * W + first[1],
                       details={"violations": violations[:50], "n_checks": len(checks), "n_failed": len(failed),
                                "first_error_cell": None if first is None else list(first)})

    # ---- SAT ------------------------------------------------------------------------------
    def solutions(self, instance: Instance, limit: int = 2) -> list[list[list]]:
        """Up to ``limit`` distinct solutions, by SAT enumeration (block and re-solve)."""
        enc = self.encode(instance)
        models = enumerate_models(enc.formula.clauses, enc.answer_vars, limit)
        return [enc.decode(true_vars(m)) for m in models]

    def count_solutions(self, instance: Instance, limit: int = 2) -> int:
        """How many solutions exist, counting up to ``limit`` (1 means unique)."""
        enc = self.encode(instance)
        return len(enumerate_models(enc.formula.clauses, enc.answer_vars, limit))

    def grade(self, instance: Instance) -> int:
        """The §8 difficulty proxy: 0 unit propagation, 1 failed-literal probing, 2 search."""
        enc = self.encode(instance)
        return grade(enc.formula.clauses, enc.answer_vars)

    # ---- claims (§7; the schema is in claims.py) --------------------------------------------
    @property
    def claim_kinds(self) -> list[str]:
        from .claims import claim_types

        return claim_types(self.family)

    def verify_claim(self, instance: Instance, claim: dict, profile: str = "default") -> str:
        """``correct``, ``incorrect`` or ``unverifiable`` (reasoning_graphs.md §2)."""
        from .claims import label_claim

        return label_claim(instance, claim, profile=profile)

    def solution_claims(self, instance: Instance) -> list[dict]:
        """C*, the minimal statement of the solution."""
        from .claims import solution_claims

        return solution_claims(instance)

    def to_game_id(self, instance: Instance) -> str:
        """The Tatham game ID ``params:desc`` of ``instance`` (§4)."""
        return to_game_id(instance, self)

    def solve(self, instance: Instance) -> list[list]:
        sol = instance.data.get("solution")
        if sol:
            return [list(r) for r in sol]
        found = self.solutions(instance, 1)
        if not found:
            raise ConfigError(f"this {self.title} instance has no solution")
        return found[0]

    def optimal_steps(self, instance: Instance) -> int | None:
        """Cells whose solution value differs from the starting grid (one move each)."""
        sol = instance.data.get("solution")
        if not sol:
            return None
        start = self.initial_grid(instance)
        return sum(1 for r, row in enumerate(sol) for c, v in enumerate(row) if start[r][c] != v)

    def corrupt_answer(self, instance: Instance, answer: list[list], rng: np.random.Generator) -> list[list]:
        """A single-cell change of ``answer`` that breaks a rule (contract hook)."""
        H, W = self.dims(instance)
        order = rng.permutation(H * W)
        for idx in order:
            r, c = divmod(int(idx), W)
            others = [v for v in self.cell_values(instance) if v != answer[r][c]]
            for j in rng.permutation(len(others)):
                bad = [list(row) for row in answer]
                bad[r][c] = others[int(j)]
                if not self.verify(instance, bad).solved:
                    return bad
        raise ConfigError("no single-cell change makes this answer invalid")

    def single_cell_corruptions(self, instance: Instance, answer: list[list]) -> Iterator[tuple[Cell, Any, list]]:
        """Every grid that differs from ``answer`` in exactly one cell (tests)."""
        H, W = self.dims(instance)
        for r in range(H):
            for c in range(W):
                for v in self.cell_values(instance):
                    if v != answer[r][c]:
                        bad = [list(row) for row in answer]
                        bad[r][c] = v
                        yield (r, c), v, bad

    # ---- rendering ------------------------------------------------------------------------
    def render(self, instance: Instance, state: Any = None) -> str:
        grid = self.initial_grid(instance) if state is None else [list(r) for r in state]
        H, W = self.dims(instance)
        return f"{self.title} {W}x{H}  ({instance.data.get('game_id', '')})\n{self.draw(instance, grid)}"

    def render_state(self, instance: Instance, state: Any) -> str:
        return self.draw(instance, [list(r) for r in state])

    # ---- interactive mode (§6) ------------------------------------------------------------
    def initial_grid(self, instance: Instance) -> list[list]:
        H, W = self.dims(instance)
        grid = [[self.empty] * W for _ in range(H)]
        for (r, c), v in self.givens(instance).items():
            grid[r][c] = v
        return grid

    def initial_state(self, instance: Instance) -> tuple:
        return tuple(tuple(r) for r in self.initial_grid(instance))

    def move_values(self, instance: Instance) -> tuple:
        """Values a move may write (the answer values plus the empty value)."""
        vals = tuple(self.cell_values(instance))
        return vals if self.empty in vals else (self.empty,) + vals

    def parse_move(self, text: str) -> tuple:
        """The last ``{"r": .., "c": .., "v": ..}`` object in ``text``, or ``{"op": "submit"}``."""
        if not isinstance(text, str):
            text = str(text)
        scanned = tail(normalize_quotes(text), 100_000)
        last = None
        for m in _MOVE_OBJ.finditer(scanned):
            try:
                obj = json.loads(m.group(0))
            except ValueError:
                continue
            if isinstance(obj, dict) and (obj.get("op") == "submit" or {"r", "c", "v"} <= set(obj)):
                last = obj
        if last is None:
            raise ParseError('no move of the form {"r": row, "c": column, "v": value} was found', "no_move")
        if last.get("op") == "submit":
            return ("submit",)
        r, c = last["r"], last["c"]
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in (r, c)):
            raise ParseError(f"row and column must be integers, got r={r!r} c={c!r}", "malformed_move")
        v = last["v"]
        v = self.empty if v is None else normalize_cell(v)
        if isinstance(v, (list, dict, float)):
            raise ParseError(f"value {v!r} is not a cell value", "malformed_move")
        return (r, c, v)

    def format_move(self, move: tuple) -> str:
        if move[0] == "submit":
            return '{"op": "submit"}'
        r, c, v = move
        return json.dumps({"r": r, "c": c, "v": v})

    def check_move(self, instance: Instance, state: Any, move: tuple) -> str | None:
        if move[0] == "submit":
            return None
        H, W = self.dims(instance)
        r, c, v = move
        if not (0 <= r < H and 0 <= c < W):
            return f"cell ({r}, {c}) is outside the {H}x{W} grid"
        if (r, c) in self.givens(instance):
            return f"cell ({r}, {c}) is given and cannot change"
        if v not in self.move_values(instance) or isinstance(v, bool):
            return f"value {v!r} is not one of: {describe_symbols(self.move_values(instance))}"
        return None

    def apply(self, instance: Instance, state: Any, move: tuple) -> tuple:
        r, c, v = move
        rows = [list(row) for row in state]
        rows[r][c] = v
        return tuple(tuple(row) for row in rows)

    def is_goal(self, instance: Instance, state: Any) -> bool:
        return self.verify(instance, [list(r) for r in state]).solved

    def transition(self, instance: Instance, state: Any, move: tuple) -> Transition:
        if move and move[0] == "submit":
            v = self.verify(instance, [list(r) for r in state])
            if v.solved:
                return Transition(state, "solved", "Solved: the grid satisfies every rule.", reward=1.0)
            return Transition(state, "wrong", f"Submitted an unsolved grid: {v.message}",
                              details={"score": v.score})
        t = super().transition(instance, state, move)
        sol = instance.data.get("solution")
        if sol and t.status != "illegal_move":
            r, c, v = move
            t.details["move_matches_solution"] = sol[r][c] == v
        return t

    def legal_moves(self, instance: Instance, state: Any) -> list[tuple]:
        H, W = self.dims(instance)
        fixed = self.givens(instance)
        return [(r, c, v) for r in range(H) for c in range(W) if (r, c) not in fixed
                for v in self.move_values(instance) if v != state[r][c]]

    def golden_moves(self, instance: Instance) -> list[tuple]:
        """Moves that fill the solution into the starting grid (contract hook)."""
        sol = self.solve(instance)
        start = self.initial_grid(instance)
        return [(r, c, v) for r, row in enumerate(sol) for c, v in enumerate(row) if start[r][c] != v]

    def interactive_prompt(self, instance: Instance) -> str:
        H, W = self.dims(instance)
        vals = describe_symbols(self.move_values(instance))
        return (f"You are solving a {self.title} logic puzzle on a grid of {H} rows and {W} columns, one cell "
                f"at a time.\n\nRules:\n{self.rules_text(instance)}\n\n"
                f"Each turn, reply with one move as JSON: {{\"r\": row, \"c\": column, \"v\": value}} with rows "
                f"and columns numbered from 0 and value one of: {vals} ({json.dumps(self.empty)} clears a cell). "
                "Given cells cannot change. The episode ends when the grid satisfies every rule; "
                '{"op": "submit"} asks for a final check.\n\n'
                f"Puzzle state (JSON):\n{self.state_json(instance)}\n\nThe grid so far:")

    def max_steps(self, instance: Instance) -> int:
        H, W = self.dims(instance)
        return 4 * H * W

    # ---- structured (SB3) view ------------------------------------------------------------
    def move_catalog(self, instance: Instance) -> list[tuple]:
        """Every (r, c, value) move for these sizes, in a fixed order; Discrete index = position."""
        H, W = self.dims(instance)
        return [(r, c, v) for r in range(H) for c in range(W) for v in self.move_values(instance)]

    def encode_state(self, instance: Instance, state: Any) -> np.ndarray:
        """One-hot cell values, a given-cell mask, then :meth:`clue_features` (float32)."""
        H, W = self.dims(instance)
        vals = list(self.move_values(instance))
        index = {v: i for i, v in enumerate(vals)}
        onehot = np.zeros((H, W, len(vals)), np.float32)
        for r in range(H):
            for c in range(W):
                i = index.get(state[r][c])
                if i is not None:
                    onehot[r, c, i] = 1.0
        mask = np.zeros((H, W), np.float32)
        for (r, c) in self.givens(instance):
            mask[r, c] = 1.0
        return np.concatenate([onehot.ravel(), mask.ravel(),
                               np.asarray(self.clue_features(instance), np.float32).ravel()])

    def state_bounds(self, instance: Instance) -> tuple[float, float]:
        return 0.0, float(max(self.dims(instance)) * max(self.dims(instance)) + 1)


class LatinGridTask(GridTask):
    """Shared parts of the n x n puzzles whose answer is a Latin square of 1..n (Solo, Towers,
    Keen, Unequal): ``state["n"]``, givens as non-zero ``state["grid"]`` cells, one-hot SAT
    variables from :func:`encode_latin`, and the "each digit once" unit check."""

    empty = 0

    def cell_values(self, instance: Instance) -> tuple:
        return tuple(range(1, instance.data["state"]["n"] + 1))

    def givens(self, instance: Instance) -> dict[Cell, Any]:
        grid = instance.data["state"]["grid"]
        return {(r, c): v for r, row in enumerate(grid) for c, v in enumerate(row) if v}

    @staticmethod
    def onehot_decoder(x: dict, n: int) -> Callable[[set[int]], list[list]]:
        """Reads the grid back from the true variables of ``x[r, c, v]``."""
        def decode(true: set[int]) -> list[list]:
            return [[next(v for v in range(1, n + 1) if x[r, c, v] in true) for c in range(n)] for r in range(n)]

        return decode

    @staticmethod
    def unit_check(rule: str, grid: list[list], cells: list[Cell], n: int) -> Check:
        """``cells`` hold 1..n once each; the cells of repeated values are reported."""
        vals = [grid[r][c] for r, c in cells]
        dup = [cells[i] for i, v in enumerate(vals) if vals.count(v) > 1]
        return Check(rule, dup, sorted(vals) == list(range(1, n + 1)))

    def givens_checks(self, instance: Instance, grid: list[list], rule: str) -> list[Check]:
        return [Check(rule, [(r, c)], grid[r][c] == v) for (r, c), v in sorted(self.givens(instance).items())]


# ---- shared generator pieces (§8) -----------------------------------------------------------
def encode_latin(f: Formula, n: int, box_w: int | None = None, box_h: int | None = None,
                 prefix: str = "x") -> dict[tuple[int, int, int], int]:
    """One-hot variables ``x[r, c, v]`` (v in 1..n) of an n x n Latin square, optionally with boxes.

    Each cell holds exactly one value; each row and column (and each box_w x box_h box) holds
    every value exactly once. Used by Solo and Towers (and the other Latin-square puzzles).
    """
    x = {(r, c, v): f.var((prefix, r, c, v)) for r in range(n) for c in range(n) for v in range(1, n + 1)}
    for r in range(n):
        for c in range(n):
            f.exactly_one([x[r, c, v] for v in range(1, n + 1)])
    for v in range(1, n + 1):
        for i in range(n):
            f.exactly_one([x[i, c, v] for c in range(n)])
            f.exactly_one([x[r, i, v] for r in range(n)])
        if box_w and box_h:
            for br in range(0, n, box_h):
                for bc in range(0, n, box_w):
                    f.exactly_one([x[br + i, bc + j, v] for i in range(box_h) for j in range(box_w)])
    return x


def random_latin(rng: np.random.Generator, n: int, box_w: int | None = None, box_h: int | None = None) -> list[list[int]]:
    """A random (Sudoku-boxed) Latin square: SAT with random phases and a random first row (§8)."""
    f = Formula()
    x = encode_latin(f, n, box_w, box_h)
    first = [int(v) + 1 for v in rng.permutation(n)]
    assumptions = [x[0, c, first[c]] for c in range(n)]
    phases = [lit if rng.random() < 1.0 / n else -lit for lit in sorted(x.values())]
    model = sat_solve(f.clauses, assumptions=assumptions, phases=phases)
    true = true_vars(model)
    grid = [[next(v for v in range(1, n + 1) if x[r, c, v] in true) for c in range(n)] for r in range(n)]
    # The solver fills late rows in a regular way; shuffling symbols, and rows/columns within
    # bands/stacks (then the bands/stacks themselves), keeps the square valid and spreads that out.
    bh, bw = (box_h, box_w) if box_w and box_h else (1, 1)
    rows = _band_order(rng, n, bh)
    cols = _band_order(rng, n, bw)
    sym = [0] + [int(v) + 1 for v in rng.permutation(n)]
    return [[sym[grid[r][c]] for c in cols] for r in rows]


def _band_order(rng: np.random.Generator, n: int, band: int) -> list[int]:
    bands = [int(b) for b in rng.permutation(n // band)]
    return [b * band + int(i) for b in bands for i in rng.permutation(band)]


def reduce_clues(unique: Callable[[list[int]], bool], groups: list[list[int]], rng: np.random.Generator,
                 acceptable: Callable[[list[int]], bool] | None = None) -> list[list[int]]:
    """Drop clue groups in a seeded random order while the puzzle stays unique (§8 step 3).

    ``groups`` are lists of assumption literals (a symmetric pair of givens, one guarded count
    clue ...); a removal is kept when ``unique(remaining literals)`` holds and, if given,
    ``acceptable(remaining literals)`` (the grade target).
    """
    active = [True] * len(groups)
    for i in rng.permutation(len(groups)):
        active[i] = False
        lits = [lit for g, on in zip(groups, active) for lit in g if on]
        if not unique(lits) or (acceptable is not None and not acceptable(lits)):
            active[i] = True
    return [g for g, on in zip(groups, active) if on]
