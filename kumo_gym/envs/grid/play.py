"""Interactive play for grid puzzles, one cell per move (docs/specs/grid_puzzles.md §6).

:class:`CellMoves` is the move protocol of every puzzle whose answer is a value per cell: a move
``{"r": row, "c": col, "v": value}`` writes one non-given cell, ``{"op": "submit"}`` asks for a
final check, given cells are fixed. It also gives the Stable-Baselines3 structured view (a fixed
catalogue of (r, c, value) moves and a one-hot state). Puzzles with other moves (edges for Pearl
and Tracks, rotations for Net, dominoes, rectangles) override ``parse_move``, ``check_move``,
``apply``, ``legal_moves``, ``move_catalog`` and ``golden_moves`` in their own module.
"""
from __future__ import annotations

import functools
import json
import re
from typing import Any

import numpy as np

from ...core.errors import ParseError
from ...core.extract import normalize_quotes, tail
from ...core.instance import Instance
from ...core.task import Transition
from .answer import describe_symbols, normalize_cell

_MOVE_OBJ = re.compile(r"\{[^{}]{0,200}\}")
SUBMIT = ("submit",)


def last_move_object(text, accept) -> dict | None:
    """The last JSON object in (the bounded tail of) ``text`` that ``accept`` takes, or None."""
    last = None
    for m in _MOVE_OBJ.finditer(tail(normalize_quotes(str(text)), 100_000)):
        try:
            obj = json.loads(m.group(0))
        except ValueError:
            continue
        if isinstance(obj, dict) and accept(obj):
            last = obj
    return last


class CellMoves:
    """The docs/specs/grid_puzzles.md §6 cell-move protocol (mixed into :class:`~.base.GridTask`)."""

    def initial_grid(self, instance: Instance) -> list[list]:
        H, W = self.dims(instance)
        grid = [[self.empty] * W for _ in range(H)]
        for (r, c), v in self.givens(instance).items():
            grid[r][c] = v
        return grid

    def initial_state(self, instance: Instance) -> tuple:
        return tuple(tuple(r) for r in self.initial_grid(instance))

    def move_values(self, instance: Instance) -> tuple:
        """Values a move may write: the empty value and the answer values, except those only
        given cells hold (``given_symbols``: Tents trees, Light Up black cells)."""
        vals = tuple(v for v in self.cell_values(instance) if v not in self.given_symbols)
        return vals if self.empty in vals else (self.empty,) + vals

    def parse_move(self, text: str) -> tuple:
        """The last ``{"r": .., "c": .., "v": ..}`` object in ``text``, or ``{"op": "submit"}``."""
        last = last_move_object(text, lambda obj: obj.get("op") == "submit" or {"r", "c", "v"} <= set(obj))
        if last is None:
            raise ParseError('no move of the form {"r": row, "c": column, "v": value} was found', "no_move")
        if last.get("op") == "submit":
            return SUBMIT
        r, c = last["r"], last["c"]
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in (r, c)):
            raise ParseError(f"row and column must be integers, got r={r!r} c={c!r}", "malformed_move")
        v = self.empty if last["v"] is None else normalize_cell(last["v"])
        if isinstance(v, (list, dict, float)):
            raise ParseError(f"value {str(v)[:40]!r} is not a cell value", "malformed_move")
        return (r, c, v)

    def format_move(self, move: tuple) -> str:
        if move == SUBMIT:
            return '{"op": "submit"}'
        r, c, v = move
        return json.dumps({"r": r, "c": c, "v": v})

    def check_move(self, instance: Instance, state: Any, move: tuple) -> str | None:
        if move == SUBMIT:
            return None
        H, W = self.dims(instance)
        r, c, v = move
        if not (0 <= r < H and 0 <= c < W):
            return f"cell ({r}, {c}) is outside the {H}x{W} grid"
        if (r, c) in self.givens(instance):
            return f"cell ({r}, {c}) is given and cannot change"
        if v not in self.move_values(instance) or isinstance(v, bool):
            return f"value {str(v)[:20]!r} is not one of: {describe_symbols(self.move_values(instance))}"
        return None

    def apply(self, instance: Instance, state: Any, move: tuple) -> tuple:
        r, c, v = move
        rows = [list(row) for row in state]
        rows[r][c] = v
        return tuple(tuple(row) for row in rows)

    def is_goal(self, instance: Instance, state: Any) -> bool:
        return self.verify(instance, [list(r) for r in state]).solved

    def transition(self, instance: Instance, state: Any, move: tuple) -> Transition:
        if move == SUBMIT:
            v = self.verify(instance, [list(r) for r in state])
            if v.solved:
                return Transition(state, "solved", "Solved: the grid satisfies every rule.", reward=1.0)
            return Transition(state, "wrong", f"Submitted an unsolved grid: {v.message}", details={"score": v.score})
        t = super().transition(instance, state, move)
        sol = instance.data.get("solution")
        if sol and t.status != "illegal_move":
            r, c, v = move
            t.details["move_matches_solution"] = self.equivalent_values(instance, r, c, v, sol[r][c])
        return t

    def legal_moves(self, instance: Instance, state: Any) -> list[tuple]:
        H, W = self.dims(instance)
        fixed = self.givens(instance)
        return [(r, c, v) for r in range(H) for c in range(W) if (r, c) not in fixed
                for v in self.move_values(instance) if v != state[r][c]]

    def golden_moves(self, instance: Instance) -> list[tuple]:
        """Moves that fill the solution into the starting grid (contract hook)."""
        start = self.initial_grid(instance)
        return [(r, c, v) for r, row in enumerate(self.solve(instance)) for c, v in enumerate(row)
                if not self.equivalent_values(instance, r, c, start[r][c], v)]

    def optimal_steps(self, instance: Instance) -> int | None:
        """Cells whose solution value differs from the starting grid (one move each; a value the
        rules read as the same answer, :meth:`equivalent_values`, needs none)."""
        if not instance.data.get("solution"):
            return None
        return len(self.golden_moves(instance))

    def moves_to(self, instance: Instance, grid: list[list]) -> list[tuple]:
        """The moves that turn the starting grid into ``grid`` (cheap strategies, tests)."""
        start, fixed = self.initial_grid(instance), self.givens(instance)
        return [(r, c, v) for r, row in enumerate(grid) for c, v in enumerate(row)
                if (r, c) not in fixed and start[r][c] != v and v in self.move_values(instance)]

    def play_prompt(self, instance: Instance, unit: str, moves: str, grid_note: str = "") -> str:
        """The one-move-per-step prompt: the puzzle, its rules, how to move (``moves``) and the state."""
        H, W = self.dims(instance)
        return (f"You are solving a {self.title} logic puzzle on a grid of {H} rows and {W} columns, one {unit} "
                f"at a time.\n\nRules:\n{self.rules_text(instance)}\n\nEach turn, reply with one move as JSON: "
                f"{moves}\n\nPuzzle state (JSON):\n{self.state_json(instance)}\n\nThe grid so far{grid_note}:")

    def interactive_prompt(self, instance: Instance) -> str:
        vals = describe_symbols(self.move_values(instance))
        return self.play_prompt(instance, "cell", (
            f"{{\"r\": row, \"c\": column, \"v\": value}} with rows and columns numbered from 0 and value one "
            f"of: {vals} ({json.dumps(self.empty)} clears a cell). Given cells cannot change. The episode ends "
            'when the grid satisfies every rule; {"op": "submit"} asks for a final check.'))

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
        index = {v: i for i, v in enumerate(self.move_values(instance))}
        onehot = np.zeros((H, W, len(index)), np.float32)
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
        return 0.0, float(max(self.dims(instance)) ** 2 + 1)

    def state_answer(self, instance: Instance, state: Any) -> list[list]:
        """The answer grid a play state stands for (the state itself for cell moves)."""
        return [list(r) for r in state]

    def fixed_move(self, instance: Instance) -> tuple | None:
        """A move that would change a given (illegal in every state; tests), or None."""
        fixed = self.givens(instance)
        if not fixed:
            return None
        (r, c), v = min(fixed.items())
        return (r, c, next(x for x in self.move_values(instance) if x != v))


class DominoMoves(CellMoves):
    """The docs/specs/grid_puzzles.md §6 domino protocol (Dominosa): ``{"op": "domino", "cells": [[r1, c1], [r2, c2]]}``
    lays a domino on two adjacent cells, removing any domino it overlaps, and ``{"op": "erase", ...}``
    lifts the domino lying exactly there. The state is the answer grid (``L``/``R``/``T``/``B``,
    ``.`` for a free cell). Internally a move is ``(r, c, v)`` at the domino's top-left cell with
    ``v`` ``"L"`` (horizontal) or ``"T"`` (vertical), or ``"-L"``/``"-T"`` to erase, which keeps the
    cell-move catalogue of the structured view."""

    _HALVES = (".", "L", "R", "T", "B")

    def move_values(self, instance: Instance) -> tuple:
        return ("L", "T", "-L", "-T")

    @staticmethod
    def _cells(move: tuple) -> tuple[tuple[int, int], tuple[int, int]]:
        r, c, v = move
        return (r, c), ((r, c + 1) if v.endswith("L") else (r + 1, c))

    def parse_move(self, text: str) -> tuple:
        last = last_move_object(text, lambda obj: obj.get("op") in ("submit", "domino", "erase"))
        if last is None:
            raise ParseError('no move of the form {"op": "domino", "cells": [[r1, c1], [r2, c2]]} was found', "no_move")
        if last["op"] == "submit":
            return SUBMIT
        cells = last.get("cells")
        if not (isinstance(cells, list) and len(cells) == 2 and all(
                isinstance(x, list) and len(x) == 2 and all(isinstance(i, int) and not isinstance(i, bool) for i in x)
                for x in cells)):
            raise ParseError(f"'cells' must be two [row, column] pairs of integers, got {str(cells)[:60]}", "malformed_move")
        (r1, c1), (r2, c2) = sorted(tuple(x) for x in cells)
        if (r2 - r1, c2 - c1) not in ((0, 1), (1, 0)):
            raise ParseError(f"cells ({r1}, {c1}) and ({r2}, {c2}) are not side by side", "malformed_move")
        v = "L" if r1 == r2 else "T"
        return (r1, c1, v if last["op"] == "domino" else "-" + v)

    def format_move(self, move: tuple) -> str:
        if move == SUBMIT:
            return '{"op": "submit"}'
        a, b = self._cells(move)
        return json.dumps({"op": "erase" if move[2].startswith("-") else "domino", "cells": [list(a), list(b)]})

    def check_move(self, instance: Instance, state: Any, move: tuple) -> str | None:
        if move == SUBMIT:
            return None
        H, W = self.dims(instance)
        if move[2] not in self.move_values(instance):
            return f"{move[2]!r} is not a domino move"
        a, b = self._cells(move)
        if not all(0 <= r < H and 0 <= c < W for r, c in (a, b)):
            return f"the domino {list(a)}-{list(b)} leaves the {H}x{W} grid"
        if move[2].startswith("-") and state[a[0]][a[1]] != move[2][1:]:
            return f"there is no domino on {list(a)}-{list(b)} to erase"
        return None

    def apply(self, instance: Instance, state: Any, move: tuple) -> tuple:
        rows = [list(row) for row in state]
        a, b = self._cells(move)
        for r, c in (a, b):
            v = rows[r][c]
            if v != self.empty:  # lift the domino lying on this cell
                dr, dc = {"L": (0, 1), "R": (0, -1), "T": (1, 0), "B": (-1, 0)}[v]
                rows[r][c] = rows[r + dr][c + dc] = self.empty
        if not move[2].startswith("-"):
            (r1, c1), (r2, c2) = a, b
            rows[r1][c1], rows[r2][c2] = ("L", "R") if move[2] == "L" else ("T", "B")
        return tuple(tuple(row) for row in rows)

    def transition(self, instance: Instance, state: Any, move: tuple) -> Transition:
        t = super().transition(instance, state, move)
        sol = instance.data.get("solution")
        if sol and move != SUBMIT and move[2].startswith("-") and t.status != "illegal_move":
            t.details["move_matches_solution"] = sol[move[0]][move[1]] != move[2][1:]
        return t

    def legal_moves(self, instance: Instance, state: Any) -> list[tuple]:
        return [m for m in self.move_catalog(instance)
                if self.check_move(instance, state, m) is None and m[2] != state[m[0]][m[1]]]

    def moves_to(self, instance: Instance, grid: list[list]) -> list[tuple]:
        """A domino move for each well-formed domino of ``grid`` (an L beside an R, a T above a B)."""
        H, W = len(grid), len(grid[0])
        return [(r, c, v) for r in range(H) for c in range(W) for v in ("L", "T")
                if grid[r][c] == v and (c + 1 < W and grid[r][c + 1] == "R" if v == "L" else
                                        r + 1 < H and grid[r + 1][c] == "B")]

    def golden_moves(self, instance: Instance) -> list[tuple]:
        return self.moves_to(instance, self.solve(instance))

    def optimal_steps(self, instance: Instance) -> int | None:
        sol = instance.data.get("solution")
        return None if not sol else len(self.moves_to(instance, sol))

    def interactive_prompt(self, instance: Instance) -> str:
        return self.play_prompt(instance, "domino", (
            '{"op": "domino", "cells": [[r1, c1], [r2, c2]]} lays a domino on two cells that share a side (any '
            'domino already on either cell is lifted), {"op": "erase", "cells": [[r1, c1], [r2, c2]]} lifts the '
            "domino lying exactly there. Rows and columns are numbered from 0. The episode ends when the dominoes "
            'satisfy every rule; {"op": "submit"} asks for a final check.'), ' ("." is a free cell)')

    def encode_state(self, instance: Instance, state: Any) -> np.ndarray:
        """One-hot of the halves (free, L, R, T, B) per cell, then :meth:`clue_features`."""
        H, W = self.dims(instance)
        onehot = np.zeros((H, W, len(self._HALVES)), np.float32)
        for r in range(H):
            for c in range(W):
                if state[r][c] in self._HALVES:
                    onehot[r, c, self._HALVES.index(state[r][c])] = 1.0
        return np.concatenate([onehot.ravel(), np.asarray(self.clue_features(instance), np.float32).ravel()])


# ---- edge moves (Pearl, Tracks) ---------------------------------------------------------------
#: direction letters in URDL order and their (dr, dc) steps
STEPS = {"U": (-1, 0), "R": (0, 1), "D": (1, 0), "L": (0, -1)}
OPPOSITE = {"U": "D", "R": "L", "D": "U", "L": "R"}
_BY_STEP = {step: d for d, step in STEPS.items()}


def direction(a: tuple[int, int], b: tuple[int, int]) -> str | None:
    """The letter of the step from cell ``a`` to the adjacent cell ``b`` (None if not adjacent)."""
    try:
        return _BY_STEP.get((b[0] - a[0], b[1] - a[1])) if len(b) == 2 else None
    except TypeError:  # not a pair of numbers
        return None


def canonical_dirs(letters) -> str:
    """A set of direction letters as a string in URDL order."""
    return "".join(d for d in "URDL" if d in set(letters))


@functools.lru_cache(maxsize=256)
def _canonical_upper(text: str) -> str:
    """``canonical_dirs(text.upper())`` (kept: answers repeat the same few pieces)."""
    return canonical_dirs(text.upper())


def grid_edges(H: int, W: int) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Every edge between two adjacent cells: horizontal ones row by row, then vertical ones."""
    return list(_grid_edges(H, W))


@functools.lru_cache(maxsize=64)
def _grid_edges(H: int, W: int) -> tuple:
    return tuple([((r, c), (r, c + 1)) for r in range(H) for c in range(W - 1)]
                 + [((r, c), (r + 1, c)) for r in range(H - 1) for c in range(W)])


def dirs_edges(dirs: list[list[str]]) -> set[tuple[tuple[int, int], tuple[int, int]]]:
    """The edges both of whose cells claim the connection (a grid of direction strings)."""
    H, W = len(dirs), len(dirs[0])
    out = {((r, c), (r, c + 1)) for r, row in enumerate(dirs) for c in range(W - 1) if "R" in row[c] and "L" in row[c + 1]}
    return out | {((r, c), (r + 1, c)) for r in range(H - 1) for c in range(W) if "D" in dirs[r][c] and "U" in dirs[r + 1][c]}


def edges_dirs(H: int, W: int, edges, ends: dict | None = None) -> list[list[str]]:
    """The grid of direction strings of a set of edges (the inverse of :func:`dirs_edges`), plus
    ``ends`` (cell -> extra letters, such as Tracks' off-grid ends)."""
    dirs = [[set((ends or {}).get((r, c), "")) for c in range(W)] for r in range(H)]
    for a, b in edges:
        dirs[a[0]][a[1]].add(direction(a, b))
        dirs[b[0]][b[1]].add(direction(b, a))
    return [[canonical_dirs(x) for x in row] for row in dirs]


class DirectionAnswers:
    """Answers as direction strings (Tracks): any order and either case is read as the same piece,
    kept in URDL order (a mixin before the task's base class)."""

    def parse(self, text: str) -> list[list]:
        return [[canonical_dirs(v) for v in row] for row in super().parse(text)]

    def verify(self, instance: Instance, answer):
        if isinstance(answer, list) and all(isinstance(row, list) for row in answer):
            symbols = self.symbols
            answer = [[(_canonical_upper(v) if type(v) is str else canonical_dirs(v.upper()))
                       if isinstance(v, str) and v.upper() in symbols else v for v in row] for row in answer]
        return super().verify(instance, answer)


class EdgeMoves(CellMoves):
    """The docs/specs/grid_puzzles.md §6 edge protocol (Pearl, Tracks): ``{"op": "edge", "cells": [[r1, c1], [r2, c2]],
    "v": 1}`` draws the connection between two adjacent cells, ``"v": 0`` erases it.

    The state is a grid of direction strings (URDL order, any subset while playing: a cell may
    hold one or three connections on the way). A puzzle supplies :meth:`fixed_pieces` (Tracks'
    given pieces with their border ends; their cells never change), :meth:`answer_dirs` (an answer grid as direction strings) and
    :meth:`state_answer` (a state as an answer grid, for verification). Moves are
    ``("edge", r1, c1, r2, c2, v)`` with the first cell before the second in row-major order.
    """

    def fixed_pieces(self, instance: Instance) -> dict:
        """Cells whose connections are given (cell -> direction string; off-grid ends included)."""
        return {}

    def start_dirs(self, instance: Instance) -> list[list[str]]:
        """The starting grid: the fixed pieces, with their neighbours' halves of each connection."""
        H, W = self.dims(instance)
        dirs = [[set() for _ in range(W)] for _ in range(H)]
        for (r, c), piece in self.fixed_pieces(instance).items():
            for d in piece:
                dirs[r][c].add(d)
                if 0 <= r + STEPS[d][0] < H and 0 <= c + STEPS[d][1] < W:
                    dirs[r + STEPS[d][0]][c + STEPS[d][1]].add(OPPOSITE[d])
        return [[canonical_dirs(x) for x in row] for row in dirs]

    def fixed_cells(self, instance: Instance) -> set:
        return set(self.fixed_pieces(instance))

    def answer_dirs(self, instance: Instance, answer: list[list]) -> list[list[str]]:
        return [[canonical_dirs(v) if isinstance(v, str) else "" for v in row] for row in answer]

    def state_answer(self, instance: Instance, state: Any) -> list[list]:
        return [list(r) for r in state]

    def initial_state(self, instance: Instance) -> tuple:
        return tuple(tuple(r) for r in self.start_dirs(instance))

    def _edge_moves_between(self, instance: Instance, start: list[list[str]], target: list[list[str]]) -> list[tuple]:
        H, W = self.dims(instance)
        fixed = self.fixed_cells(instance)
        have, want = dirs_edges(start), dirs_edges(target)
        out = []
        for a, b in grid_edges(H, W):
            if a in fixed or b in fixed:
                continue
            on = (a, b) in want
            # a move is needed unless both cells already agree with the target
            if on != ((a, b) in have) or (not on and (direction(a, b) in start[a[0]][a[1]]
                                                      or direction(b, a) in start[b[0]][b[1]])):
                out.append(("edge", *a, *b, int(on)))
        return out

    def parse_move(self, text: str) -> tuple:
        last = last_move_object(text, lambda obj: obj.get("op") in ("submit", "edge"))
        if last is None:
            raise ParseError('no move of the form {"op": "edge", "cells": [[r1, c1], [r2, c2]], "v": 1} was found',
                             "no_move")
        if last["op"] == "submit":
            return SUBMIT
        cells, v = last.get("cells"), last.get("v")
        ok = isinstance(cells, list) and len(cells) == 2 and all(
            isinstance(x, list) and len(x) == 2 and all(isinstance(i, int) and not isinstance(i, bool) for i in x)
            for x in cells)
        if not ok:
            raise ParseError(f"'cells' must be two [row, column] pairs of integers, got {str(cells)[:40]}",
                             "malformed_move")
        if v not in (0, 1) or isinstance(v, bool):
            raise ParseError(f"'v' must be 1 (draw) or 0 (erase), got {str(v)[:20]!r}", "malformed_move")
        a, b = sorted((tuple(cells[0]), tuple(cells[1])))
        return ("edge", *a, *b, v)

    def format_move(self, move: tuple) -> str:
        if move == SUBMIT:
            return '{"op": "submit"}'
        _, r1, c1, r2, c2, v = move
        return json.dumps({"op": "edge", "cells": [[r1, c1], [r2, c2]], "v": v})

    def check_move(self, instance: Instance, state: Any, move: tuple) -> str | None:
        if move == SUBMIT:
            return None
        H, W = self.dims(instance)
        _, r1, c1, r2, c2, _v = move
        for r, c in ((r1, c1), (r2, c2)):
            if not (0 <= r < H and 0 <= c < W):
                return f"cell ({r}, {c}) is outside the {H}x{W} grid"
        if direction((r1, c1), (r2, c2)) is None:
            return f"cells ({r1}, {c1}) and ({r2}, {c2}) are not orthogonal neighbours"
        fixed = self.fixed_cells(instance)
        if (r1, c1) in fixed or (r2, c2) in fixed:
            return "a given cell's connections cannot change"
        return None

    def apply(self, instance: Instance, state: Any, move: tuple) -> tuple:
        _, r1, c1, r2, c2, v = move
        rows = [list(row) for row in state]
        for (r, c), d in (((r1, c1), direction((r1, c1), (r2, c2))), ((r2, c2), direction((r2, c2), (r1, c1)))):
            rows[r][c] = canonical_dirs(set(rows[r][c]) | {d} if v else set(rows[r][c]) - {d})
        return tuple(tuple(row) for row in rows)

    def is_goal(self, instance: Instance, state: Any) -> bool:
        return self.verify(instance, self.state_answer(instance, state)).solved

    def transition(self, instance: Instance, state: Any, move: tuple) -> Transition:
        if move == SUBMIT:
            v = self.verify(instance, self.state_answer(instance, state))
            if v.solved:
                return Transition(state, "solved", "Solved: the connections satisfy every rule.", reward=1.0)
            return Transition(state, "wrong", f"Submitted an unsolved grid: {v.message}", details={"score": v.score})
        t = super(CellMoves, self).transition(instance, state, move)
        sol = instance.data.get("solution")
        if sol and t.status != "illegal_move":
            _, r1, c1, r2, c2, v = move
            t.details["move_matches_solution"] = (((r1, c1), (r2, c2)) in dirs_edges(self.answer_dirs(instance, sol))) == bool(v)
        return t

    def legal_moves(self, instance: Instance, state: Any) -> list[tuple]:
        return [m for m in self.move_catalog(instance)
                if self.check_move(instance, state, m) is None and self.apply(instance, state, m) != state]

    def golden_moves(self, instance: Instance) -> list[tuple]:
        return self._edge_moves_between(instance, self.start_dirs(instance), self.answer_dirs(instance, self.solve(instance)))

    def optimal_steps(self, instance: Instance) -> int | None:
        if not instance.data.get("solution"):
            return None
        return len(self.golden_moves(instance))

    def moves_to(self, instance: Instance, grid: list[list]) -> list[tuple]:
        return self._edge_moves_between(instance, self.start_dirs(instance), self.answer_dirs(instance, grid))

    def fixed_move(self, instance: Instance) -> tuple | None:
        fixed = sorted(self.fixed_cells(instance))
        H, W = self.dims(instance)
        for a in fixed:
            for d, (dr, dc) in STEPS.items():
                b = (a[0] + dr, a[1] + dc)
                if 0 <= b[0] < H and 0 <= b[1] < W:
                    x, y = sorted((a, b))
                    return ("edge", *x, *y, 0 if d in self.start_dirs(instance)[a[0]][a[1]] else 1)
        return None

    def interactive_prompt(self, instance: Instance) -> str:
        return self.play_prompt(instance, "connection", (
            '{"op": "edge", "cells": [[r1, c1], [r2, c2]], "v": 1} draws the connection between two orthogonally '
            'adjacent cells (rows and columns numbered from 0), "v": 0 erases it. Connections of given cells '
            'cannot change. The episode ends when the connections satisfy every rule; {"op": "submit"} asks for a '
            "final check."))

    def move_catalog(self, instance: Instance) -> list[tuple]:
        H, W = self.dims(instance)
        return [("edge", *a, *b, v) for a, b in grid_edges(H, W) for v in (1, 0)]

    def encode_state(self, instance: Instance, state: Any) -> np.ndarray:
        """One 0/1 per edge (drawn in both cells), a fixed-cell mask, then :meth:`clue_features`."""
        H, W = self.dims(instance)
        on = dirs_edges([list(r) for r in state])
        edges = np.asarray([float(e in on) for e in grid_edges(H, W)], np.float32)
        mask = np.zeros((H, W), np.float32)
        for (r, c) in self.fixed_cells(instance):
            mask[r, c] = 1.0
        return np.concatenate([edges, mask.ravel(), np.asarray(self.clue_features(instance), np.float32).ravel()])
