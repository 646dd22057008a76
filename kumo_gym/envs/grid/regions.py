"""Answers that label regions with arbitrary labels (Rect; docs/specs/grid_puzzles.md §5 "Rect", §6, §1).

A region answer gives every cell an integer label; a region is the set of cells sharing one
label, and the labels themselves mean nothing, so two answers that draw the same regions are the
same answer. :class:`RegionAnswers` makes the shared machinery (partial credit, blind grids,
corruptions) see regions rather than label values:

* **Canonical labels.** A region holding exactly one *anchor* (Rect: a number; anchors are
  indexed in row-major order) takes that anchor's index as its label; any other region keeps its
  label. The stored solution is canonical, so comparing a canonicalised answer with it cell by
  cell is independent of how the answer named its regions.
* **Blind grids** (already canonical): one label everywhere, the empty grid, a checkerboard,
  one label per cell, per row and per column.
* **Single-cell corruptions** that only rename a region (a one-cell region given an unused
  label) are the same answer and are skipped.

:class:`RectMoves` adds the docs/specs/grid_puzzles.md §6 rectangle moves ``{"op": "rect", "r0", "c0", "r1", "c1"}`` (a
new region; any region it overlaps is erased first) and ``{"op": "erase", "r", "c"}`` (erase the
region of a cell) on top of the one-cell label moves.

:class:`LoopAnswers` is the same idea for a closed loop numbered 1..L along it (Pearl): where it
starts and which way it runs mean nothing, so partial credit renumbers it as the generator does;
it is drawn with the docs/specs/grid_puzzles.md §6 edge moves.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ...core.errors import ParseError
from ...core.instance import Instance
from ...core.task import Transition
from .geometry import loop_around, loop_numbers, number_loops, numbered_edges
from .play import EdgeMoves, dirs_edges, edges_dirs, last_move_object
from .render import Sketch

Cell = tuple[int, int]
EMPTY = -1


def label_classes(grid: list[list]) -> dict[Any, list[Cell]]:
    """Each label (empty cells excluded) -> its cells in row-major order."""
    out: dict[Any, list[Cell]] = {}
    for r, row in enumerate(grid):
        for c, v in enumerate(row):
            if v != EMPTY:
                out.setdefault(v, []).append((r, c))
    return out


def rect_of(cells: list[Cell]) -> tuple[int, int, int, int] | None:
    """``(r0, c0, r1, c1)`` when ``cells`` fill exactly that rectangle (inclusive), else None."""
    rs, cs = [r for r, _ in cells], [c for _, c in cells]
    r0, r1, c0, c1 = min(rs), max(rs), min(cs), max(cs)
    return (r0, c0, r1, c1) if (r1 - r0 + 1) * (c1 - c0 + 1) == len(set(cells)) else None


def canonical(grid: list[list], anchors: list[Cell]) -> list[list]:
    """Relabel every region with exactly one anchor by that anchor's index (module docstring)."""
    index = {a: i for i, a in enumerate(anchors)}
    out = [list(row) for row in grid]
    for cells in label_classes(grid).values():
        mine = [index[x] for x in cells if x in index]
        if len(mine) == 1:
            for r, c in cells:
                out[r][c] = mine[0]
    return out


def refines(a: list[list], b: list[list]) -> bool:
    """Whether every region of label grid ``a`` lies within one region of ``b`` and both leave the
    same cells empty (over the cells both grids have)."""
    within: dict = {}
    for ra, rb in zip(a, b):
        for x, y in zip(ra, rb):
            if (x == EMPTY) != (y == EMPTY) or within.setdefault(x, y) != y:
                return False
    return True


def same_regions(a: list[list], b: list[list]) -> bool:
    """Whether two label grids draw the same regions (and leave the same cells empty)."""
    fwd: dict = {}
    back: dict = {}
    for ra, rb in zip(a, b):
        for x, y in zip(ra, rb):
            if (x == EMPTY) != (y == EMPTY) or fwd.setdefault(x, y) != y or back.setdefault(y, x) != x:
                return False
    return True


def shapes(area: int, H: int, W: int) -> list[tuple[int, int]]:
    """The (height, width) of every rectangle of ``area`` cells that fits an H x W grid."""
    return [(h, area // h) for h in range(1, area + 1) if area % h == 0 and h <= H and area // h <= W]


class Draws:
    """``integers(n)`` exactly as ``Generator.integers(n)`` draws it (n up to 2**32), without a
    numpy call per draw (microseconds each; a random division takes dozens): the raw
    64-bit outputs of the generator's PCG64 come in blocks, each split in two 32-bit halves
    (low first, the high one kept for the next draw, as PCG64 does) and scaled to [0, n) by
    Lemire's method with numpy's rejection threshold. :meth:`finish` leaves the generator where
    the same ``integers`` calls would have: the block's unused outputs are given back (a reset
    and an ``advance``). Other bit generators are simply called."""

    def __init__(self, rng, block: int = 32):
        self.rng, self.bg, self.block = rng, rng.bit_generator, block
        self.exact = type(self.bg).__name__ == "PCG64"
        if self.exact:
            self.saved = self.bg.state
            self.has, self.half = self.saved["has_uint32"], self.saved["uinteger"]
            self.buf, self.i, self.used = [], 0, 0

    def _next32(self) -> int:
        if self.has:
            self.has = 0
            return self.half
        if self.i == len(self.buf):
            self.buf, self.i = self.bg.random_raw(self.block).tolist(), 0
        x = self.buf[self.i]
        self.i += 1
        self.used += 1
        self.has, self.half = 1, x >> 32
        return x & 0xFFFFFFFF

    def integers(self, n: int) -> int:
        if not self.exact:
            return int(self.rng.integers(n))
        if not 1 <= n <= 1 << 32:
            raise ValueError(f"Draws.integers: n = {n} must be between 1 and 2**32")
        if n == 1:
            return 0  # numpy draws nothing for a one-value range
        m = self._next32() * n
        if m & 0xFFFFFFFF < n:
            threshold = (0xFFFFFFFF - (n - 1)) % n
            while m & 0xFFFFFFFF < threshold:
                m = self._next32() * n
        return m >> 32

    def finish(self) -> None:
        """Put the generator where the ``integers`` calls so far would have left it."""
        if self.exact:
            self.bg.state = self.saved
            self.bg.advance(self.used)
            state = self.bg.state
            state["has_uint32"], state["uinteger"] = self.has, self.half
            self.bg.state = state
            self.saved, self.buf, self.i, self.used = state, [], 0, 0


def _free_rect(rows: list[bytearray], r: int, c: int, kinds: list, rng) -> tuple[int, int, int, int]:
    """A random free rectangle ``(r0, c0, h, w)`` over the free cell (r, c) of the taken-cell grid
    ``rows`` (1: taken) with a shape of ``kinds``: the one a seeded index picks among all of them
    listed shape by shape, then in row-major order. They are counted from the free stretch of each
    row around column c (found by the bytes' own search), not listed."""
    H, W = len(rows), len(rows[0])
    lo_of, hi_of = [0] * H, [0] * H  # leftmost / rightmost column of the free stretch through column c
    top = bot = r
    for step in (-1, 1):
        i = r
        while 0 <= i < H and not rows[i][c]:
            row = rows[i]
            lo_of[i] = row.rfind(1, 0, c) + 1
            hi = row.find(1, c)
            hi_of[i] = W - 1 if hi < 0 else hi - 1
            i += step
        if step < 0:
            top = i + 1
        else:
            bot = i - 1
    # the stretch common to rows r0..r (up) and r..r1 (down), by running max / min
    up_lo, up_hi, dn_lo, dn_hi = [0] * H, [0] * H, [0] * H, [0] * H
    lo, hi = 0, W - 1
    for i in range(r, top - 1, -1):
        lo = max(lo, lo_of[i])
        hi = min(hi, hi_of[i])
        up_lo[i], up_hi[i] = lo, hi
    lo, hi = 0, W - 1
    for i in range(r, bot + 1):
        lo = max(lo, lo_of[i])
        hi = min(hi, hi_of[i])
        dn_lo[i], dn_hi[i] = lo, hi
    runs = []  # (r0, first c0, count, h, w): the rectangles of one shape and top row
    total = 0
    spans: list = []
    last_h = None
    for h, w in kinds:
        if h != last_h:  # the common stretch of each run of h rows through row r (kinds come by height)
            last_h, spans = h, []
            for r0 in range(max(top, r - h + 1), min(r, bot - h + 1) + 1):
                r1 = r0 + h - 1
                lo = max(dn_lo[r1], up_lo[r0])
                hi = min(dn_hi[r1], up_hi[r0])
                spans.append((r0, lo, hi))
        for r0, lo, hi in spans:
            a, b = c - w + 1, hi - w + 1
            a = max(a, lo)
            b = min(b, c)
            if a <= b:
                runs.append((r0, a, b - a + 1, h, w))
                total += b - a + 1
    k = int(rng.integers(total))
    for r0, a, count, h, w in runs:
        if k < count:
            return r0, a + k, h, w
        k -= count
    raise AssertionError("unreachable: k < total")


def random_division(rng, H: int, W: int, amax: int) -> list[tuple[int, int, int, int]]:
    """Random free rectangles (area 2..max) over random open cells until none fits, then
    every single leftover cell merged into a neighbour where the union is a rectangle."""
    kinds = [(h, w) for h in range(1, H + 1) for w in range(1, W + 1) if 2 <= h * w <= amax]
    taken = [bytearray(W) for _ in range(H)]
    rects: list[list[int]] = []
    # the free cells as a bit mask (bit r * W + c), and the columns a shift must not wrap from
    full = (1 << (H * W)) - 1
    first = sum(1 << (i * W) for i in range(H))
    last = first << (W - 1)
    free = full
    while True:
        # a free cell with a free neighbour (some free domino covers it), in row-major order
        near = ((free >> 1) & ~last) | ((free << 1) & ~first) | (free >> W) | (free << W)
        open_cells = free & near & full
        if not open_cells:
            break
        for _ in range(int(rng.integers(open_cells.bit_count()))):
            open_cells &= open_cells - 1
        r, c = divmod((open_cells & -open_cells).bit_length() - 1, W)
        r0, c0, h, w = _free_rect(taken, r, c, kinds, rng)
        line = ((1 << w) - 1) << c0
        for i in range(r0, r0 + h):
            taken[i][c0:c0 + w] = b"\x01" * w
            free &= ~(line << (i * W))
        rects.append([r0, c0, h, w])
    for r, c in [(i, j) for i in range(H) for j in range(W) if not taken[i][j]]:
        rows = [x for x in rects if x[0] == r and x[2] == 1 and c in (x[1] - 1, x[1] + x[3])]
        cols = [x for x in rects if x[1] == c and x[3] == 1 and r in (x[0] - 1, x[0] + x[2])]
        options = [(x, 0) for x in rows] + [(x, 1) for x in cols]
        if not options:
            rects.append([r, c, 1, 1])
            continue
        x, vertical = options[int(rng.integers(len(options)))]
        if vertical:
            x[0], x[2] = min(x[0], r), x[2] + 1
        else:
            x[1], x[3] = min(x[1], c), x[3] + 1
    return sorted(tuple(x) for x in rects)


def expand_division(rng, rects: list, H: int, W: int) -> list[tuple[int, int, int, int]]:
    """Stretch a division to H x W (Tatham's Rect expansion factor): repeatedly copy a random row
    (then column); every rectangle across it grows by one, those beyond it move along."""
    rects = [list(x) for x in rects]
    for axis, size in ((0, H), (1, W)):
        now = max(x[axis] + x[axis + 2] for x in rects)
        for _ in range(size - now):
            p = int(rng.integers(now))
            for x in rects:
                if x[axis] > p:
                    x[axis] += 1
                elif x[axis] + x[axis + 2] > p:
                    x[axis + 2] += 1
            now += 1
    return sorted(tuple(x) for x in rects)


class RegionAnswers:
    """Partial credit, blind grids and corruptions for region-label answers (module docstring).
    A puzzle defines :meth:`anchors`."""

    empty = EMPTY
    any_labelling = True

    #: what one labelled group of cells is called in the answer text ("region", "rectangle")
    label_noun = "region"

    def anchors(self, instance: Instance) -> list[Cell]:
        raise NotImplementedError

    @staticmethod
    def label_sketch(grid: list[list], numbers: list[list]) -> Sketch:
        """The drawing of a labelled grid: each cell's number (falsy: none; ``.`` marks an unlabelled
        cell without one), unlabelled cells shaded, walls between cells of different labels."""
        H, W = len(grid), len(grid[0])
        text = [[str(k) if k else ("." if grid[r][c] == EMPTY else "") for c, k in enumerate(row)]
                for r, row in enumerate(numbers)]
        fill = [["given" if grid[r][c] == EMPTY else None for c in range(W)] for r in range(H)]
        walls = [((r, c), (r + dr, c + dc)) for r in range(H) for c in range(W) for dr, dc in ((0, 1), (1, 0))
                 if r + dr < H and c + dc < W and (grid[r][c] != grid[r + dr][c + dc] or grid[r][c] == EMPTY)]
        return Sketch(H, W, text, fill, walls=walls)

    def answer_text(self, instance: Instance) -> str:
        H, W = self.dims(instance)
        noun = self.label_noun
        return (f"give every cell an integer label between 0 and {H * W}: all cells of one {noun} share a label, "
                f"different {noun}s have different labels (which labels you use does not matter).")

    def cell_values(self, instance: Instance) -> tuple:
        H, W = self.dims(instance)
        return tuple(range(EMPTY, H * W + 1))

    @staticmethod
    def _raw_blind(H: int, W: int) -> dict[str, list[list]]:
        """The blind grids before :func:`canonical` (fresh lists)."""
        return {"empty grid": [[EMPTY] * W for _ in range(H)], "one region": [[0] * W for _ in range(H)],
                "checkerboard": [[(r + c) % 2 for c in range(W)] for r in range(H)],
                "one region per cell": [[r * W + c for c in range(W)] for r in range(H)],
                "one region per row": [[r] * W for r in range(H)],
                "one region per column": [list(range(W)) for _ in range(H)]}

    def blind_grids(self, instance: Instance) -> dict[str, list[list]]:
        anchors = self.anchors(instance)
        return {name: canonical(g, anchors) for name, g in self._raw_blind(*self.dims(instance)).items()}

    def _right(self, instance: Instance, grid: list[list]) -> int:
        sol = instance.data.get("solution") or self.solve(instance)
        g = canonical(grid, self.anchors(instance))
        return sum(x == y for rg, rs in zip(g, sol) for x, y in zip(rg, rs))

    def luck_floor(self, instance: Instance) -> float:
        """``b`` of the partial credit on regions: the best blind grid's fraction of cells in the
        right region, or a random fill's luck plus two standard deviations, whichever is larger."""
        H, W = self.dims(instance)
        n = H * W
        p = 1.0 / len(self.cell_values(instance))
        blind = max(self._right(instance, g) for g in self.blind_grids(instance).values()) / n
        return max(blind, p + 2.0 * (p * (1.0 - p) / n) ** 0.5)

    def progress(self, instance: Instance, grid: list[list]) -> float:
        H, W = self.dims(instance)
        b = self.luck_floor(instance)
        f = self._right(instance, grid) / (H * W)
        return 0.0 if b >= 1.0 else max(0.0, (f - b) / (1.0 - b))

    def blind_solves(self, instance: Instance) -> bool:
        """Whether a blind grid is the solution. :func:`canonical` only relabels whole regions
        with labels other than ``EMPTY``, so it merges regions at most and keeps the empty cells;
        a blind grid whose regions do not each lie within one region of the solution, or whose
        empty cells differ, cannot become it, and only the others are relabelled and compared
        (generation asks this of every drawn puzzle)."""
        H, W = self.dims(instance)
        if type(self).blind_grids is not RegionAnswers.blind_grids:
            return any(self._right(instance, g) == H * W for g in self.blind_grids(instance).values())
        sol = instance.data.get("solution") or self.solve(instance)
        anchors = None
        for g in self._raw_blind(H, W).values():
            if refines(g, sol):
                anchors = self.anchors(instance) if anchors is None else anchors
                if self._right(instance, canonical(g, anchors)) == H * W:
                    return True
        return False

    def single_cell_corruptions(self, instance: Instance, answer: list[list]):
        for cell, v, bad in super().single_cell_corruptions(instance, answer):
            if not same_regions(bad, answer):
                yield cell, v, bad


class RectMoves:
    """The docs/specs/grid_puzzles.md §6 rectangle moves beside the one-cell label moves (module docstring)."""

    def parse_move(self, text: str) -> tuple:
        """The last move object in ``text``: a rectangle or erase op here, anything else as cell moves."""
        last = last_move_object(text, lambda obj: obj.get("op") in ("rect", "erase", "submit") or {"r", "c", "v"} <= set(obj))
        if last is None or last.get("op") not in ("rect", "erase"):
            return super().parse_move(text)
        obj = last
        keys = ("r0", "c0", "r1", "c1") if obj["op"] == "rect" else ("r", "c")
        vals = [obj.get(k) for k in keys]
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in vals):
            raise ParseError(f"a {obj['op']} move needs integer fields {', '.join(keys)}", "malformed_move")
        return (obj["op"], *vals)

    def format_move(self, move: tuple) -> str:
        if move and move[0] == "rect":
            return json.dumps(dict(zip(("op", "r0", "c0", "r1", "c1"), move)))
        if move and move[0] == "erase":
            return json.dumps(dict(zip(("op", "r", "c"), move)))
        return super().format_move(move)

    def check_move(self, instance: Instance, state: Any, move: tuple) -> str | None:
        if not move or move[0] not in ("rect", "erase"):
            return super().check_move(instance, state, move)
        H, W = self.dims(instance)
        for r, c in zip(move[1::2], move[2::2]):
            if not (0 <= r < H and 0 <= c < W):
                return f"cell ({r}, {c}) is outside the {H}x{W} grid"
        if move[0] == "rect" and (move[1] > move[3] or move[2] > move[4]):
            return "a rectangle needs r0 <= r1 and c0 <= c1"
        return None

    def apply(self, instance: Instance, state: Any, move: tuple) -> tuple:
        if not move or move[0] not in ("rect", "erase"):
            return super().apply(instance, state, move)
        rows = [list(row) for row in state]
        if move[0] == "erase":
            cells = [(move[1], move[2])]
        else:
            _, r0, c0, r1, c1 = move
            cells = [(r, c) for r in range(r0, r1 + 1) for c in range(c0, c1 + 1)]
        hit = {rows[r][c] for r, c in cells} - {EMPTY}
        rows = [[EMPTY if v in hit else v for v in row] for row in rows]
        if move[0] == "rect":
            used = {v for row in rows for v in row}
            label = next(i for i in range(len(used) + 1) if i not in used)
            for r, c in cells:
                rows[r][c] = label
        return tuple(tuple(row) for row in rows)

    def transition(self, instance: Instance, state: Any, move: tuple) -> Transition:
        if not move or move[0] not in ("rect", "erase"):
            return super().transition(instance, state, move)
        return self._rect_transition(instance, state, move)

    def _rect_transition(self, instance: Instance, state: Any, move: tuple) -> Transition:
        t = self.checked_step(instance, state, move, solved="Solved: the grid satisfies every rule.")
        sol = instance.data.get("solution")
        if sol and t.status == "continue" and move[0] == "rect":
            _, r0, c0, r1, c1 = move
            cells = [(r, c) for r in range(r0, r1 + 1) for c in range(c0, c1 + 1)]
            t.details["move_matches_solution"] = len({sol[r][c] for r, c in cells}) == 1 and \
                sum(v == sol[r0][c0] for row in sol for v in row) == len(cells)
        return t

    def interactive_prompt(self, instance: Instance) -> str:
        return super().interactive_prompt(instance).replace(
            "Given cells cannot change.",
            'You may also draw a whole rectangle with {"op": "rect", "r0": top, "c0": left, "r1": bottom, '
            '"c1": right} (corners included; any region it overlaps is erased first, and it gets a new label) '
            'or erase the region of a cell with {"op": "erase", "r": row, "c": column}.', 1)

    def golden_moves(self, instance: Instance) -> list[tuple]:
        """One rectangle move per region of the solution."""
        return [("rect", *rect_of(cells)) for cells in label_classes(self.solve(instance)).values()]

    def optimal_steps(self, instance: Instance) -> int | None:
        sol = instance.data.get("solution")
        return len(label_classes(sol)) if sol else None


class LoopAnswers(EdgeMoves):
    """Answers that number a closed loop's cells 1..L along it and write -1 elsewhere (see the
    module docstring), played with edge moves."""

    empty = -1

    def cell_values(self, instance: Instance) -> tuple:
        H, W = self.dims(instance)
        return (-1, *range(1, H * W + 1))

    def _blind(self, H: int, W: int, n: int):
        return super()._blind(H, W, min(n, 3))  # blind grids: -1, 1 and 2 everywhere and their checkerboards

    def blind_solves(self, instance: Instance) -> bool:
        """A blind grid holds at most two values, a loop numbers its L >= 4 cells 1..L, and without
        givens every loop cell starts wrong (-1): neither a blind grid nor its walk from the
        starting grid reaches the solution (the generic check, skipped)."""
        sol = instance.data.get("solution")
        if sol and not self.givens(instance) and sum(v > 0 for row in sol for v in row) >= 4:
            return False
        return super().blind_solves(instance)

    def progress(self, instance: Instance, grid: list[list]) -> float:
        """Partial credit on the loop as our generator numbers it, so a start or direction of one's
        own does not cost credit (grids that are not one loop are compared as written)."""
        if all(isinstance(v, int) and not isinstance(v, bool) for row in grid for v in row):
            edges = numbered_edges(grid)
            again = number_loops(*self.dims(instance), edges)
            if len(edges) == sum(v > 0 for row in grid for v in row) == sum(v > 0 for row in again for v in row):
                grid = again
        return super().progress(instance, grid)

    def answer_dirs(self, instance: Instance, answer: list[list]) -> list[list[str]]:
        return edges_dirs(*self.dims(instance), numbered_edges(answer))

    def state_answer(self, instance: Instance, state) -> list[list]:
        return number_loops(*self.dims(instance), dirs_edges([list(r) for r in state]))

    @staticmethod
    def loop_checks(grid: list[list]) -> tuple[list[tuple[list[Cell], bool]], Callable]:
        """The checks (cells, holds) of "the numbered cells form one closed loop" (1..L each once,
        L >= 4, consecutive numbers and L, 1 on neighbouring cells) and ``around(k)``: the cells
        numbered k - 2, k - 1, k + 1, k + 2 (None where the loop is broken there, or k is not on it)."""
        L, bad, one, step = loop_numbers(grid)
        checks = [(bad, not bad), ([], L >= 4)]
        checks += [([x for x in (one.get(k), one.get(k % L + 1)) if x], step[k]) for k in range(1, L + 1)]
        return checks, lambda k: loop_around(one, step, k, L)

    @staticmethod
    def drawn_edges(grid: list[list]) -> list[tuple[Cell, Cell]]:
        """The connections a grid shows, sorted: direction strings (a state) or a numbered answer."""
        strings = all(isinstance(v, str) for row in grid for v in row)
        return sorted(dirs_edges([list(r) for r in grid]) if strings else numbered_edges(grid))
