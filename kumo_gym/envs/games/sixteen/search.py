"""Search for Sixteen (rows and columns of a W x H grid shifted cyclically).

A board is a tuple of tiles in reading order; the goal is 1..W*H. A move ``(axis, index, shift)``
rotates row ``index`` (axis ``"R"``, +1 moves every tile one cell right, wrapping) or column
``index`` (axis ``"C"``, +1 moves every tile one cell down).

* :func:`bidirectional` finds a shortest move list by breadth-first search from both ends, up to a
  number of states per side; when it gives up, the depths it completed prove a lower bound.
* :func:`heuristic` is an admissible bound: a row move changes the cyclic column distance of W
  tiles by at most one each and no row distance, so at least ceil(sum of column distances / W)
  row moves are needed, and likewise for columns.
* :func:`constructive` always solves a solvable board: tiles are placed in reading order by
  3-cycles, each the commutator of a row and a column move conjugated by a short setup found by
  breadth-first search over the positions of the three cells; an odd permutation is first made
  even by one shift of an even-length line. The result, with cancelling moves removed, is an upper
  bound on the optimum.
"""
from __future__ import annotations

from collections import deque
from collections.abc import Sequence

from ..tiles import bidirectional_search, merge_runs, permutation_parity

Move = tuple[str, int, int]


def all_moves(w: int, h: int, rows: Sequence[int] | None = None, cols: Sequence[int] | None = None) -> list[Move]:
    """Every distinct shift of the lines that may move (``rows`` and ``cols``, default all of them;
    Netslide keeps its centre lines still); a line of two has one."""
    out: list[Move] = []
    for i in range(h) if rows is None else rows:
        out += [("R", i, 1), ("R", i, -1)] if w > 2 else [("R", i, 1)]
    for j in range(w) if cols is None else cols:
        out += [("C", j, 1), ("C", j, -1)] if h > 2 else [("C", j, 1)]
    return out


def position_map(w: int, h: int, move: Move) -> list[int]:
    """``dest[p]``: the cell the tile at cell ``p`` moves to."""
    axis, i, s = move
    dest = list(range(w * h))
    if axis == "R":
        for c in range(w):
            dest[i * w + c] = i * w + (c + s) % w
    else:
        for r in range(h):
            dest[r * w + i] = ((r + s) % h) * w + i
    return dest


def apply_move(board: tuple, w: int, h: int, move: Move) -> tuple:
    axis, i, s = move
    t = list(board)
    if axis == "R":
        row = board[i * w:(i + 1) * w]
        for c in range(w):
            t[i * w + (c + s) % w] = row[c]
    else:
        col = board[i::w]
        for r in range(h):
            t[((r + s) % h) * w + i] = col[r]
    return tuple(t)


def inverse(move: Move) -> Move:
    return (move[0], move[1], -move[2])


def heuristic(board, w: int, h: int) -> int:
    col = row = 0
    for p, t in enumerate(board):
        gr, gc = divmod(t - 1, w)
        r, c = divmod(p, w)
        dc, dr = abs(gc - c), abs(gr - r)
        col += min(dc, w - dc)
        row += min(dr, h - dr)
    return -(-col // w) + -(-row // h)


def parity(board) -> int:
    return permutation_parity([t - 1 for t in board])


def solvable(board, w: int, h: int) -> bool:
    """Every permutation when a line has even length; only even ones when W and H are both odd."""
    return sorted(board) == list(range(1, w * h + 1)) and (w % 2 == 0 or h % 2 == 0 or parity(board) == 0)


def bidirectional(start: tuple, w: int, h: int, max_states: int = 200_000) -> tuple[list[Move] | None, int]:
    """``(moves, lower)``: a shortest move list (None past ``max_states`` per side, then ``lower`` is a
    proven lower bound; ``lower`` is the length when a list is found)."""
    return bidirectional_search(start, tuple(range(1, w * h + 1)), all_moves(w, h),
                                lambda s, m: apply_move(s, w, h, m), inverse, max_states,
                                lambda: heuristic(start, w, h))


def _commutators(w: int, h: int, rows: Sequence[int], cols: Sequence[int]) -> dict[tuple[int, int, int], list[Move]]:
    """3-cycles ``(x, y, z)`` (tile at x goes to y, y to z, z to x) made by row/column commutators."""
    out: dict[tuple[int, int, int], list[Move]] = {}
    for i in rows:
        for j in cols:
            for a in (1, -1):
                for b in (1, -1):
                    seq = [("R", i, a), ("C", j, b), ("R", i, -a), ("C", j, -b)]
                    dest = list(range(w * h))
                    for m in seq:
                        pm = position_map(w, h, m)
                        dest = [pm[d] for d in dest]
                    moved = [p for p in range(w * h) if dest[p] != p]
                    if len(moved) != 3:
                        continue
                    x = moved[0]
                    y = dest[x]
                    z = dest[y]
                    for key in ((x, y, z), (y, z, x), (z, x, y)):
                        out.setdefault(key, seq)
    return out


def _setup(triple: tuple[int, int, int], targets: dict, moves: list[Move], maps: list) -> list[Move] | None:
    """The shortest ``moves`` carrying the three cells of ``triple`` onto a commutator's cycle."""
    prev: dict[tuple, tuple | None] = {triple: None}
    queue = deque([triple])
    while queue:
        t = queue.popleft()
        if t in targets:
            seq = []
            while prev[t] is not None:
                t, k = prev[t]
                seq.append(moves[k])
            return seq[::-1]
        for k, pm in enumerate(maps):
            u = (pm[t[0]], pm[t[1]], pm[t[2]])
            if u not in prev:
                prev[u] = (t, k)
                queue.append(u)
    return None


def simplify(moves: list[Move], w: int, h: int) -> list[Move]:
    """Merge consecutive shifts of one line (mod its length) and drop those that cancel."""
    return merge_runs(moves, lambda axis: w if axis == "R" else h)


def constructive(start: tuple, w: int, h: int, rows: Sequence[int] | None = None,
                 cols: Sequence[int] | None = None) -> list[Move] | None:
    """A (not necessarily short) solution of any solvable board; None for an unsolvable one.

    Only ``rows`` and ``cols`` move (default every line); the cells where two still lines cross
    never move, so their tiles must already be in place (Netslide's centre)."""
    rows = list(range(h)) if rows is None else list(rows)
    cols = list(range(w)) if cols is None else list(cols)
    n = w * h
    fixed = {r * w + c for r in range(h) for c in range(w) if r not in rows and c not in cols}
    if sorted(start) != list(range(1, n + 1)) or any(start[p] != p + 1 for p in fixed):
        return None
    board, out = start, []
    if parity(board):
        even = [("R", i, 1) for i in rows if w % 2 == 0] + [("C", j, 1) for j in cols if h % 2 == 0]
        if not even:
            return None
        board = apply_move(board, w, h, even[0])
        out.append(even[0])
    targets = _commutators(w, h, rows, cols)
    moves = all_moves(w, h, rows, cols)
    maps = [position_map(w, h, m) for m in moves]
    free = [p for p in range(n) if p not in fixed]
    for k, p in enumerate(free[:-2]):
        if board[p] == p + 1:
            continue
        q = board.index(p + 1)
        r = next(x for x in reversed(free[k + 1:]) if x != q)
        # the tile at q goes to p, p's to r, r's to q
        setup = _setup((q, p, r), targets, moves, maps)
        if setup is None:
            return None
        dest = list(range(n))
        for m in setup:
            pm = position_map(w, h, m)
            dest = [pm[d] for d in dest]
        seq = setup + targets[(dest[q], dest[p], dest[r])] + [inverse(m) for m in reversed(setup)]
        for m in seq:
            board = apply_move(board, w, h, m)
        out += seq
    if board != tuple(range(1, n + 1)):
        return None
    return simplify(out, w, h)
