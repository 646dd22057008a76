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
never guesses; it reports the moves (the interactive mode's golden trajectory), the earliest view
that fixes every mine and, when it cannot go on, the view it is stuck at. :func:`answer_view` is
the answer mode's puzzle: the first opening and the numbers the oracle's deductions need.
:func:`generate` draws layouts and moves mines away from where the oracle gets stuck until it
solves the board (Tatham's way of making boards that need no guess).
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


#: nodes a frontier search of the answer view may visit when the oracle's budget is not enough
#: (the answer is the same, only slower); past it the Python oracle's snapshot is the view
VIEW_BUDGET = 1_000_000


def answer_view(H: int, W: int, mines: list[bool], start: int) -> list[int] | None:
    """The answer mode's view of a layout: the cells shown (sorted), or None when the oracle cannot
    solve the board from the first click ``start`` without guessing.

    The view is the first opening and every number the oracle's deduction needs
    (``kernel.closure``: the oracle opens every cell it has proved safe, recording each deduction
    with the numbers it was made from; from the last deduction back, a deduction is kept when it
    decides a cell not shown, and its numbers are shown). It is then certified: the complete
    deduction (``kernel.settles``, the SAT backbone in Python when a search runs long) must fix
    every mine from it alone. A board whose frontier search runs over :data:`VIEW_BUDGET` nodes
    (none seen) shows the earliest view of the Python oracle's game that fixes every mine."""
    from . import kernel

    nbr, _ = _tables(H, W)
    lay = np.fromiter((1 if m else 0 for m in mines), np.int8, H * W)
    nums = _numbers_array(lay, nbr, H * W)
    st = np.zeros(H * W, np.int8)
    work = np.zeros(kernel.work_size(H * W), np.int64)
    return _certified_view(H, W, lay, nums, int(lay.sum()), start, st, work)


def _certified_view(H: int, W: int, lay: np.ndarray, nums: np.ndarray, n: int, start: int, st: np.ndarray,
                    work: np.ndarray) -> list[int] | None:
    """:func:`answer_view` on arrays; when the board needs a guess, ``st`` is left as the view the
    oracle is stuck at (the generator goes on from it)."""
    from . import kernel

    n_cells = H * W
    nbr, nnb = _tables(H, W)
    view = np.zeros(n_cells, np.int8)
    none = np.zeros(0, np.int64)
    got = -1
    for budget, size in ((kernel.BUDGET, kernel.log_size(n_cells)), (VIEW_BUDGET, kernel.log_size(n_cells, n_cells))):
        got = kernel.closure(nbr, nnb, lay, nums, n, start, none, st, np.zeros(size, np.int64), view, work, budget)
        if got >= 0:
            break
    mines = lay.astype(bool).tolist()
    if got < 0:
        p = play_python(H, W, mines, start)
        _set_view(st, p.view)
        return sorted(p.snapshot) if p.solved and p.snapshot is not None else None
    if got == 0:
        return None
    cells = np.flatnonzero(view).tolist()
    check = np.where(view > 0, kernel.OPENED, kernel.COVERED).astype(np.int8)
    fixed = kernel.settles(nbr, nnb, lay, nums, n, check, work, VIEW_BUDGET)
    if fixed < 0:
        fixed = int(not deduce(View(H, W, n, {i: int(nums[i]) for i in cells})).unknown())
    if not fixed:  # never seen: every deduction kept follows from the view (tests check many boards)
        p = play(H, W, mines, start)
        return sorted(p.snapshot or ())
    return cells


def _set_view(st: np.ndarray, view: View) -> None:
    """``st`` := the kernel's form of a Python oracle's view."""
    from . import kernel

    st[:] = kernel.COVERED
    st[list(view.safe)] = kernel.SAFE
    st[list(view.mines)] = kernel.MINE
    st[list(view.shown)] = kernel.OPENED


def generate(rng: np.random.Generator, H: int, W: int, n: int, start: int,
             max_perturb: int = 200) -> tuple[list[bool], list[int]]:
    """A layout of ``n`` mines the oracle solves from ``start``, and its answer view (the cells shown,
    :func:`answer_view`). Tatham's method: mines are drawn away from the first click's 3x3 block;
    where the oracle gets stuck, one mine on the frontier moves to an undecided cell off it (when
    there is none, to any covered safe cell or an opened one outside the first click's block) and
    the oracle goes on from what it had opened (``kernel.perturb``, which
    plays with ``kernel.closure``: what the oracle can open is the same in any order, so it ends at
    the view its move-by-move game stops at); when it solves the board, a whole game from the first
    click (the answer view's) certifies it, else the moves go on from where that game is stuck.
    Each layout draws its mines, then ``2 * max_perturb`` uniform numbers for its moves."""
    from . import kernel

    zone = clear_zone(H, W, start)
    free = [i for i in range(H * W) if i not in zone]
    if n > len(free):
        raise ValueError(f"{n} mines do not fit a {W}x{H} grid beside the first click's 3x3 block")
    nbr, nnb = _tables(H, W)
    n_cells = H * W
    st = np.zeros(n_cells, np.int8)
    work = np.zeros(kernel.work_size(n_cells), np.int64)
    cand, counts = np.zeros(2 * n_cells, np.int64), np.zeros(2, np.int64)
    opened, out = np.zeros(n_cells, np.int64), np.zeros(2, np.int64)
    none, nolog, noview = np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int8)
    while True:
        lay = np.zeros(n_cells, np.int8)
        lay[rng.choice(free, size=n, replace=False)] = 1
        nums = _numbers_array(lay, nbr, n_cells)
        draws = rng.random(2 * max_perturb)
        out[:] = 0
        got = kernel.closure(nbr, nnb, lay, nums, n, start, none, st, nolog, noview, work, kernel.BUDGET)
        while True:
            if got < 0:  # a search over budget: the Python oracle plays that game (the same view)
                p = play_python(H, W, lay.astype(bool).tolist(), start, opened[:out[1]].tolist())
                _set_view(st, p.view)
                got = int(p.solved)
            if got:
                view = _certified_view(H, W, lay, nums, n, start, st, work)
                if view is not None:
                    return lay.astype(bool).tolist(), view
            got = kernel.perturb(nbr, nnb, lay, nums, n, start, st, opened, work, cand, counts, draws, out,
                                 kernel.BUDGET)
            if got == 0:
                break
