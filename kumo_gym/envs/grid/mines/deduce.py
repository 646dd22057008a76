"""Mines' deduction model and no-guess oracle (docs/specs/grid_puzzles.md §8; Tatham's ``mines``).

Cells are indexed ``i = r * W + c``. What a player knows is a :class:`View`: the opened cells with
their numbers and the total mine count. :func:`deduce` finds every hidden cell whose content the
view fixes: first the local rules a person uses (a number whose hidden neighbours must all be mines
or all safe; one number's hidden cells inside another's, the difference holding the difference of
their counts; the global count), then, where those stall, a SAT backbone over the frontier with the
global count as a bound on it, which makes the deduction complete: a cell is left undecided only
when two boards consistent with everything shown disagree on it.

:func:`play` is the oracle: from the first opening it opens only cells :func:`deduce` has
certified safe (zeros first, which open their neighbours, then cells no zero will open), so it
never guesses; it reports the moves, the earliest view that fixes every mine (the answer mode's
puzzle) and, when it cannot go on, the view it is stuck at. :func:`generate` draws layouts and
moves mines away from where the oracle gets stuck until it solves the board (Tatham's way of
making boards that need no guess).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np
from pysat.solvers import Solver

from ....solvers.sat import DEFAULT_SOLVER, Formula


@functools.lru_cache(maxsize=64)
def neighbours(H: int, W: int) -> tuple[tuple[int, ...], ...]:
    """The up to eight neighbours of every cell, by index."""
    out = []
    for r in range(H):
        for c in range(W):
            out.append(tuple(a * W + b for a in range(r - 1, r + 2) for b in range(c - 1, c + 2)
                             if 0 <= a < H and 0 <= b < W and (a, b) != (r, c)))
    return tuple(out)


def numbers(H: int, W: int, mines: list[bool]) -> list[int]:
    """The number of every cell: how many of its neighbours hold a mine."""
    nb = neighbours(H, W)
    return [sum(mines[j] for j in nb[i]) for i in range(H * W)]


def flood(H: int, W: int, mines: list[bool], nums: list[int], start: int, shown: dict[int, int]) -> list[int]:
    """Open ``start`` (a safe cell) into ``shown`` as Tatham does: a zero opens its neighbours, on and on.
    Returns the cells newly opened."""
    nb = neighbours(H, W)
    new, stack = [], [start]
    while stack:
        i = stack.pop()
        if i in shown or mines[i]:
            continue
        shown[i] = nums[i]
        new.append(i)
        if nums[i] == 0:
            stack.extend(j for j in nb[i] if j not in shown)
    return new


@dataclass
class View:
    """What the player knows: ``shown`` opened cells and their numbers, the mine count ``n``, and the
    cells already deduced (``mines``, ``safe``; ``safe`` may hold cells not yet opened)."""

    H: int
    W: int
    n: int
    shown: dict[int, int]
    mines: set[int] = field(default_factory=set)
    safe: set[int] = field(default_factory=set)

    def unknown(self) -> list[int]:
        return [i for i in range(self.H * self.W) if i not in self.shown and i not in self.mines and i not in self.safe]


def _local(view: View) -> bool:
    """The local rules to a fixpoint; True when they decided a cell. False when the view
    contradicts itself is not possible here (the caller's view comes from a real board)."""
    nb = neighbours(view.H, view.W)
    progress = False
    while True:
        cons: dict[frozenset, int] = {}
        for i, k in view.shown.items():
            hidden = frozenset(j for j in nb[i] if j not in view.shown and j not in view.mines and j not in view.safe)
            if hidden:
                cons[hidden] = k - sum(j in view.mines for j in nb[i])
        found_m: set[int] = set()
        found_s: set[int] = set()
        for cells, k in cons.items():
            if k == 0:
                found_s |= cells
            elif k == len(cells):
                found_m |= cells
        if not found_m and not found_s:
            by_cell: dict[int, list[frozenset]] = {}
            for cells in cons:
                for j in cells:
                    by_cell.setdefault(j, []).append(cells)
            for a, ka in cons.items():
                for b in {b for j in a for b in by_cell[j]}:
                    if b is a or len(b) <= len(a) or not a < b:
                        continue
                    rest, k = b - a, cons[b] - ka
                    if k == 0:
                        found_s |= rest
                    elif k == len(rest):
                        found_m |= rest
        if not found_m and not found_s:
            unknown = view.unknown()
            left = view.n - len(view.mines)
            if unknown and left == 0:
                found_s = set(unknown)
            elif unknown and left == len(unknown):
                found_m = set(unknown)
        if not found_m and not found_s:
            return progress
        view.mines |= found_m
        view.safe |= found_s
        progress = True


def _backbone(view: View) -> bool:
    """The SAT backbone of the view: every cell fixed in all boards consistent with it. True when a
    cell was decided."""
    unknown = view.unknown()
    if not unknown:
        return False
    nb = neighbours(view.H, view.W)
    left = view.n - len(view.mines)
    cons = []
    front: set[int] = set()
    for i, k in view.shown.items():
        hidden = [j for j in nb[i] if j not in view.shown and j not in view.mines and j not in view.safe]
        if hidden:
            cons.append((hidden, k - sum(j in view.mines for j in nb[i])))
            front.update(hidden)
    inner = [i for i in unknown if i not in front]
    if not front:
        return False  # only the count speaks, and _local has used it
    f = Formula()
    cell = {i: f.var(("m", i)) for i in sorted(front)}
    for hidden, k in cons:
        f.exactly([cell[j] for j in hidden], k)
    count = f.count([cell[i] for i in sorted(front)])
    bounds = [count.ge(max(0, left - len(inner)))] + count.le(left)
    decided = False
    with Solver(name=DEFAULT_SOLVER, bootstrap_with=f.clauses) as s:
        if not s.solve(assumptions=bounds):
            raise ValueError("the opened numbers contradict each other")
        model = {lit for lit in s.get_model() if lit > 0}
        both: set[int] = set()  # cells seen both ways in some model
        for i, v in cell.items():
            if i in both:
                continue
            if not s.solve(assumptions=bounds + [-v if v in model else v]):
                (view.mines if v in model else view.safe).add(i)
                decided = True
            else:
                other = s.get_model()
                both.update(j for j, u in cell.items() if (other[u - 1] > 0) != (u in model))
        if inner:
            if left >= 1 and not s.solve(assumptions=[count.ge(max(0, left - len(inner)))] + count.le(left - 1)):
                view.safe.update(inner)  # every board puts all the remaining mines on the frontier
                decided = True
            elif not s.solve(assumptions=[count.ge(max(0, left - len(inner) + 1))] + count.le(left)):
                view.mines.update(inner)  # every board leaves the frontier as few mines as it can
                decided = True
    return decided


def deduce(view: View) -> View:
    """Decide every cell the view fixes (in place; returns the view)."""
    while _local(view) | _backbone(view):
        pass
    return view


@dataclass
class Play:
    """The oracle's game: ``moves`` (cells opened after the first opening, in order), ``snapshot``
    (the opened cells of the earliest view that fixes every mine; None if never), ``solved`` and,
    when not, the ``view`` it stopped at."""

    moves: list[int]
    snapshot: dict[int, int] | None
    solved: bool
    view: View


def play(H: int, W: int, mines: list[bool], start: int, opened: list[int] | None = None) -> Play:
    """Play the board from ``start`` without guessing (see the module docstring); ``opened``: go on
    from these safe cells instead (the generator's shortcut, never a certificate). Runs in the
    kernel (``kernel.play``, the same deductions on arrays); a search over its budget replays the
    game here with SAT (:func:`play_python`), which gives the same game."""
    from . import kernel

    nbr, nnb = _tables(H, W)
    n_cells = H * W
    lay = np.fromiter((1 if m else 0 for m in mines), np.int8, n_cells)
    nums = _numbers_array(lay, nbr, n_cells)
    st, snap = np.zeros(n_cells, np.int8), np.zeros(n_cells, np.int8)
    moves, out = np.zeros(n_cells, np.int64), np.zeros(3, np.int64)
    work = np.zeros(kernel.work_size(n_cells), np.int64)
    got = kernel.play(nbr, nnb, lay, nums, int(lay.sum()), int(start), np.asarray(opened or (), np.int64), st, moves,
                      snap, out, work, kernel.BUDGET)
    if got < 0:
        return play_python(H, W, mines, start, opened)
    return _kernel_play(H, W, lay, nums, st, moves, snap, out)


def _kernel_play(H: int, W: int, lay: np.ndarray, nums: np.ndarray, st: np.ndarray, moves: np.ndarray,
                 snap: np.ndarray, out: np.ndarray) -> Play:
    """The :class:`Play` of a game ``kernel.play`` has played (its output arrays)."""
    from . import kernel

    numbers_of = nums.tolist()
    opened_now = np.flatnonzero(st == kernel.OPENED).tolist()
    view = View(H, W, int(lay.sum()), {i: numbers_of[i] for i in opened_now},
                set(np.flatnonzero(st == kernel.MINE).tolist()), set(np.flatnonzero(st == kernel.SAFE).tolist()))
    snapshot = {i: numbers_of[i] for i in np.flatnonzero(snap).tolist()} if out[2] else None
    return Play(moves[:out[1]].tolist(), snapshot, bool(out[0]), view)


@functools.lru_cache(maxsize=64)
def _tables(H: int, W: int) -> tuple[np.ndarray, np.ndarray]:
    from . import kernel

    return kernel.tables(H, W)


def _numbers_array(lay: np.ndarray, nbr: np.ndarray, n_cells: int) -> np.ndarray:
    padded = np.append(lay, np.int8(0)).astype(np.int64)
    return padded[nbr].reshape(n_cells, 8).sum(axis=1)


def play_python(H: int, W: int, mines: list[bool], start: int, opened: list[int] | None = None) -> Play:
    """:func:`play` in Python, with the SAT backbone (the reference the kernel follows)."""
    nums = numbers(H, W, mines)
    n = sum(mines)
    view = View(H, W, n, {})
    flood(H, W, mines, nums, start, view.shown)
    for i in opened or ():
        view.shown[i] = nums[i]
    nb = neighbours(H, W)
    moves: list[int] = []
    snapshot = None
    n_safe = H * W - n
    while len(view.shown) < n_safe:
        _local(view)
        if snapshot is None:
            unknown = view.unknown()
            if unknown and not {j for i in view.shown for j in nb[i]}.issuperset(unknown):
                pass  # cells off the frontier: only the count could fix them, and _local has tried it
            elif not unknown or deduce(view) and not view.unknown():
                snapshot = dict(view.shown)
        ready = sorted(i for i in view.safe if i not in view.shown)
        if not ready:
            deduce(view)
            ready = sorted(i for i in view.safe if i not in view.shown)
        if not ready:
            return Play(moves, snapshot, False, view)
        # a zero opens a region; a cell next to no zero is never opened by one; the rest last
        zero = next((i for i in ready if nums[i] == 0), None)
        lone = next((i for i in ready if not any(nums[j] == 0 and not mines[j] for j in nb[i])), None)
        pick = zero if zero is not None else lone if lone is not None else ready[0]
        flood(H, W, mines, nums, pick, view.shown)
        moves.append(pick)
    if snapshot is None:
        snapshot = dict(view.shown)
    return Play(moves, snapshot, True, view)


def three_bv(H: int, W: int, mines: list[bool]) -> int:
    """Bechtel's board value: the fewest clicks that open every safe cell, given the layout (one per
    region of zeros with its border, one per safe cell on no such border) -- a lower bound on the
    oracle's moves."""
    nums = numbers(H, W, mines)
    nb = neighbours(H, W)
    seen: dict[int, int] = {}
    clicks = 0
    for i in range(H * W):
        if not mines[i] and nums[i] == 0 and i not in seen:
            flood(H, W, mines, nums, i, seen)
            clicks += 1
    return clicks + sum(1 for i in range(H * W) if not mines[i] and i not in seen and not any(
        nums[j] == 0 for j in nb[i] if not mines[j]))


def clear_zone(H: int, W: int, start: int) -> set[int]:
    """The first click and its neighbours: Tatham keeps them free of mines, so the first opening is a zero."""
    return {start, *neighbours(H, W)[start]}


def generate(rng: np.random.Generator, H: int, W: int, n: int, start: int,
             max_perturb: int = 200) -> tuple[list[bool], Play]:
    """A layout of ``n`` mines the oracle solves from ``start``, and its play. Mines are drawn away
    from the first click's 3x3 block; where the oracle gets stuck, one mine on the frontier moves
    to an undecided cell off it (or anywhere undecided) and the oracle plays again (on arrays, the
    kernel listing the cells each move may take: ``kernel.candidates``)."""
    from . import kernel

    zone = clear_zone(H, W, start)
    free = [i for i in range(H * W) if i not in zone]
    if n > len(free):
        raise ValueError(f"{n} mines do not fit a {W}x{H} grid beside the first click's 3x3 block")
    nbr, nnb = _tables(H, W)
    n_cells = H * W
    st, snap = np.zeros(n_cells, np.int8), np.zeros(n_cells, np.int8)
    moves, out = np.zeros(n_cells, np.int64), np.zeros(3, np.int64)
    work = np.zeros(kernel.work_size(n_cells), np.int64)
    cand, counts = np.zeros(2 * n_cells, np.int64), np.zeros(2, np.int64)
    none = np.zeros(0, np.int64)

    whole = [False]  # whether the last game was played in the kernel from the first click alone

    def stuck_view(opened: np.ndarray) -> bool:
        """Play ``lay`` (going on from ``opened``) into ``st``; whether it is solved."""
        got = kernel.play(nbr, nnb, lay, nums, n, start, opened, st, moves, snap, out, work, kernel.BUDGET)
        whole[0] = got >= 0 and not len(opened)
        if got >= 0:
            return bool(out[0])
        p = play_python(H, W, lay.astype(bool).tolist(), start, opened.tolist())
        st[:] = kernel.COVERED
        st[list(p.view.safe)] = kernel.SAFE
        st[list(p.view.mines)] = kernel.MINE
        st[list(p.view.shown)] = kernel.OPENED
        return p.solved

    while True:
        lay = np.zeros(n_cells, np.int8)
        lay[rng.choice(free, size=n, replace=False)] = 1
        nums = _numbers_array(lay, nbr, n_cells)
        solved = stuck_view(none)
        for _ in range(max_perturb):
            if solved:
                mines = lay.astype(bool).tolist()
                # the certificate: a whole game from the first click (the game just played, when it was one)
                p = _kernel_play(H, W, lay, nums, st, moves, snap, out) if whole[0] else play(H, W, mines, start)
                if p.solved:
                    return mines, p
                st[:] = kernel.COVERED
                st[list(p.view.safe)] = kernel.SAFE
                st[list(p.view.mines)] = kernel.MINE
                st[list(p.view.shown)] = kernel.OPENED
            kernel.candidates(nbr, nnb, lay, st, cand, counts)
            nf, nt = int(counts[0]), int(counts[1])
            if not nf or not nt:
                break
            a = int(cand[int(rng.integers(nf))])
            b = int(cand[n_cells + int(rng.integers(nt))])
            lay[a], lay[b] = 0, 1
            nums[nbr[8 * a:8 * a + nnb[a]]] -= 1
            nums[nbr[8 * b:8 * b + nnb[b]]] += 1
            solved = stuck_view(np.flatnonzero(st == kernel.OPENED))
