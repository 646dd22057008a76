"""Search for Netslide (Net's tiles on a grid whose rows and columns shift cyclically, the centre row
and column held still).

A board is a tuple of tile masks in reading order, Tatham's bits: 1 a wire to the right, 2 up, 4
left, 8 down. The board is solved when every tile is joined to the centre tile (the source) through
pairs of facing wire ends that no barrier (nor the edge of a non-wrapping grid) separates. Moves are
Sixteen's (:mod:`kumo_gym.envs.games.sixteen.search`) on every line but the two through the centre.

* :func:`arrangements` lists the solved boards of a tile set (every placement of the tiles, the
  centre one kept, whose wire ends all meet and join into one network), by depth-first search
  in reading order with each cell checked against its placed neighbours, up to a budget.
* :func:`shortest` is bidirectional breadth-first search from the start and from every solved board
  at once: a shortest move list, or, past its budget, a proven lower bound.
* :func:`routed` builds a solution towards one solved board with Sixteen's 3-cycle construction (an
  upper bound on the optimum).
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

from ..sixteen.search import Move, all_moves, apply_move, constructive, inverse
from ..tiles import bidirectional_search, permutation_parity

R, U, L, D = 1, 2, 4, 8
BITS = (R, U, L, D)
OPPOSITE = {R: L, U: D, L: R, D: U}
STEP = {R: (0, 1), U: (-1, 0), L: (0, -1), D: (1, 0)}
LETTERS = {R: "R", U: "U", L: "L", D: "D"}
#: a budget on the nodes of the depth-first search for solved boards
ARRANGE_NODES = 400_000


def ends(mask: int) -> int:
    return mask.bit_count()


def lines(w: int, h: int) -> tuple[list[int], list[int]]:
    """The rows and the columns that may move: all but the centre ones (``h // 2``, ``w // 2``)."""
    return [i for i in range(h) if i != h // 2], [j for j in range(w) if j != w // 2]


def moves_of(w: int, h: int) -> list[Move]:
    rows, cols = lines(w, h)
    return all_moves(w, h, rows, cols)


@lru_cache(maxsize=256)
def neighbours(w: int, h: int, wrap: bool, barriers: frozenset) -> tuple[tuple[tuple[int, int], ...], ...]:
    """``nbr[p]``: ``(bit, q)`` for each side of cell ``p``, ``q`` the cell it faces or -1 (off a
    non-wrapping grid, or a barrier between; ``(r, c, "R")`` is right of (r, c), ``(r, c, "D")`` below)."""
    out = []
    for p in range(w * h):
        r, c = divmod(p, w)
        sides = []
        for bit in BITS:
            rr, cc = r + STEP[bit][0], c + STEP[bit][1]
            if not wrap and not (0 <= rr < h and 0 <= cc < w):
                sides.append((bit, -1))
                continue
            rr, cc = rr % h, cc % w
            wall = {R: (r, c, "R"), D: (r, c, "D"), L: (rr, cc, "R"), U: (rr, cc, "D")}[bit]
            sides.append((bit, -1 if wall in barriers else rr * w + cc))
        out.append(tuple(sides))
    return tuple(out)


def powered(board: Sequence[int], nbr, centre: int) -> set[int]:
    """The cells joined to ``centre`` (Tatham's lit tiles)."""
    seen, todo = {centre}, [centre]
    while todo:
        p = todo.pop()
        for bit, q in nbr[p]:
            if q >= 0 and board[p] & bit and board[q] & OPPOSITE[bit] and q not in seen:
                seen.add(q)
                todo.append(q)
    return seen


def solved(board: Sequence[int], nbr, centre: int) -> bool:
    return len(powered(board, nbr, centre)) == len(board)


def arrangements(tiles: Sequence[int], nbr, centre: int, limit: int,
                 budget: int = ARRANGE_NODES) -> tuple[list[tuple[int, ...]], bool]:
    """``(boards, complete)``: solved boards made of ``tiles`` with the centre tile kept in place,
    at most ``limit`` of them; ``complete`` when they are all of them (the search ended within
    ``budget`` nodes and found no more than ``limit``).

    Cells are filled in reading order (the centre first); a tile must agree with every placed
    neighbour about the wire between them, and a placement that closes a loop, or a group of tiles
    with no wire end left towards an empty cell (short of the whole board), is dropped at once.
    """
    n = len(tiles)
    left = Counter(t for p, t in enumerate(tiles) if p != centre)
    kinds = sorted(left)
    board = [0] * n
    placed = [False] * n
    parent = list(range(n))  # union-find without path compression, so that every join can be undone
    size = [1] * n
    open_ends = [0] * n  # per root: wire ends of the group towards empty cells
    out: list[tuple[int, ...]] = []
    nodes = 0
    stop = False

    def root(x: int) -> int:
        while parent[x] != x:
            x = parent[x]
        return x

    def fits(p: int, m: int) -> bool:
        for bit, q in nbr[p]:
            if q < 0:
                if m & bit:
                    return False
            elif placed[q] and bool(m & bit) != bool(board[q] & OPPOSITE[bit]):
                return False
        return True

    def put(p: int, m: int) -> list | None:
        """Place ``m`` at ``p`` (it fits); the undo record, or None (after undoing) when it closes a
        loop or a finished group."""
        board[p], placed[p] = m, True
        undo: list = []
        open_ends[p] = sum(1 for bit, q in nbr[p] if m & bit and not placed[q])
        ok = True
        for bit, q in nbr[p]:
            if m & bit and placed[q] and q != p:
                a, b = root(p), root(q)
                if a == b:
                    ok = False
                    break
                if size[a] < size[b]:
                    a, b = b, a
                undo.append((b, a, open_ends[a]))
                parent[b] = a
                size[a] += size[b]
                open_ends[a] += open_ends[b] - 1  # q's end towards p is met (p's own was never open)
        if ok:
            r = root(p)
            ok = open_ends[r] > 0 or size[r] == n
        if not ok:
            take(p, undo)
            return None
        return undo

    def take(p: int, undo: list) -> None:
        for b, a, ends_a in reversed(undo):
            parent[b] = b
            size[a] -= size[b]
            open_ends[a] = ends_a
        board[p], placed[p] = 0, False

    def place(k: int) -> None:
        nonlocal nodes, stop
        nodes += 1
        if nodes > budget or len(out) > limit:
            stop = True
            return
        if k == n:
            out.append(tuple(board))
            return
        p = order[k]
        for m in ([tiles[centre]] if p == centre else kinds):
            if (p == centre or left[m]) and fits(p, m):
                undo = put(p, m)
                if undo is None:
                    continue
                if p != centre:
                    left[m] -= 1
                place(k + 1)
                if p != centre:
                    left[m] += 1
                take(p, undo)
                if stop:
                    return

    order = [centre] + [p for p in range(n) if p != centre]
    if 0 <= centre < n:
        place(0)
    return out[:limit], not stop


def labels(start: Sequence[int], goal: Sequence[int], odd_ok: bool,
           fixed: frozenset[int] = frozenset()) -> tuple[int, ...] | None:
    """The start written as Sixteen's numbered board whose goal is ``goal``: each tile gets the
    number of the goal cell it is sent to (a tile already in place stays). Identical tiles may be
    swapped to make the permutation even where only even ones can be reached (``odd_ok`` false),
    never one on a ``fixed`` cell (no move reaches it: Netslide's centre); None when that is
    impossible (no two movable tiles are alike)."""
    n = len(start)
    dest = [-1] * n
    spare: dict[int, list[int]] = {}
    for p in range(n):
        if start[p] == goal[p]:
            dest[p] = p
        else:
            spare.setdefault(goal[p], []).append(p)
    for p in range(n):
        if dest[p] < 0:
            dest[p] = spare[start[p]].pop()
    if not odd_ok and permutation_parity(dest):
        by_kind: dict[int, list[int]] = {}
        for p in range(n):
            if p not in fixed:
                by_kind.setdefault(start[p], []).append(p)
        twins = next((ps for ps in by_kind.values() if len(ps) >= 2), None)
        if twins is None:
            return None
        a, b = twins[0], twins[1]
        dest[a], dest[b] = dest[b], dest[a]
    return tuple(d + 1 for d in dest)


def routed(start: tuple, goal: tuple, w: int, h: int) -> list[Move] | None:
    """A solution that carries the tiles to ``goal`` (Sixteen's 3-cycles); None when ``goal`` cannot
    be reached from ``start``."""
    rows, cols = lines(w, h)
    odd_ok = (w % 2 == 0 and bool(rows)) or (h % 2 == 0 and bool(cols))  # an even line moves
    fixed = frozenset(r * w + c for r in range(h) for c in range(w) if r not in rows and c not in cols)
    board = labels(start, goal, odd_ok, fixed)
    if board is None:
        return None
    return constructive(board, w, h, rows, cols)


def shortest(start: tuple, goals: Sequence[tuple], w: int, h: int, max_states: int) -> tuple[list[Move] | None, int]:
    """``(moves, lower)``: a shortest move list from ``start`` to any of ``goals`` (which must be every
    solved board), or None past ``max_states`` per side with ``lower`` a proven lower bound."""
    return bidirectional_search(start, None, moves_of(w, h), lambda s, m: apply_move(s, w, h, m), inverse,
                                max_states, lambda: 1, goals=goals)


def play(board: tuple, w: int, h: int, moves: Sequence[Move]) -> tuple:
    for m in moves:
        board = apply_move(board, w, h, m)
    return board


def nearest(start: tuple, w: int, h: int, is_solved, max_states: int) -> tuple[list[Move] | None, int]:
    """``(moves, lower)`` by breadth-first search from ``start`` alone, level by level, until a
    solved board: a shortest move list, or None past ``max_states`` states with ``lower`` the
    first level not searched (no solved board lies nearer)."""
    if is_solved(start):
        return [], 0
    moves = moves_of(w, h)
    back: dict = {start: None}
    front, depth = [start], 0
    while front:
        depth += 1
        nxt = []
        for s in front:
            for m in moves:
                u = apply_move(s, w, h, m)
                if u in back:
                    continue
                back[u] = (s, m)
                if is_solved(u):
                    path = []
                    while back[u] is not None:
                        u, m = back[u]
                        path.append(m)
                    return path[::-1], depth
                nxt.append(u)
        if len(back) > max_states:
            return None, depth + 1
        front = nxt
    return None, 1 << 30
