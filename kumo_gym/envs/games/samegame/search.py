"""Samegame boards and the clearing search (docs/games.md, Samegame).

A board is a tuple of columns, left to right, each a tuple of colours from the bottom up (columns
are packed to the left and hold no gaps, so the tuple is the settled board). Removing a group
takes its cells out of their columns; cells above fall, emptied columns drop out and the rest
close up to the left.

The search is a depth-first search over removals with a table of boards already known not to
clear, pruning boards where some colour has a single cell left (it can never be removed). Moves
are tried in an order scored by how few cells are left without a partner of their colour
afterwards; when the node budget of one attempt runs out the search starts again with the moves
shuffled by a seeded generator, so the result is deterministic.
"""
from __future__ import annotations

import numpy as np

Board = tuple  # tuple[tuple[int, ...], ...]


def from_grid(grid: list[int] | tuple, w: int, h: int) -> Board:
    """The columns of a settled reading-order grid (row 0 at the top; 0 is empty)."""
    cols = []
    for x in range(w):
        col = tuple(grid[y * w + x] for y in range(h - 1, -1, -1) if grid[y * w + x])
        if col:
            cols.append(col)
    return tuple(cols)


def to_grid(board: Board, w: int, h: int) -> tuple:
    """The reading-order grid of a board."""
    grid = [0] * (w * h)
    for x, col in enumerate(board):
        for y, c in enumerate(col):
            grid[(h - 1 - y) * w + x] = c
    return tuple(grid)


def is_settled(grid: list[int] | tuple, w: int, h: int) -> bool:
    """Whether no cell floats over an empty one and no empty column stands left of a full one."""
    return tuple(grid) == to_grid(from_grid(grid, w, h), w, h)


def group_at(board: Board, x: int, y: int) -> list[tuple[int, int]]:
    """The cells (column, height) joined to (x, y) through orthogonal neighbours of its colour."""
    c = board[x][y]
    seen = {(x, y)}
    stack = [(x, y)]
    while stack:
        cx, cy = stack.pop()
        for nx, ny in ((cx - 1, cy), (cx + 1, cy), (cx, cy - 1), (cx, cy + 1)):
            if 0 <= nx < len(board) and 0 <= ny < len(board[nx]) and (nx, ny) not in seen and board[nx][ny] == c:
                seen.add((nx, ny))
                stack.append((nx, ny))
    return sorted(seen)


def groups(board: Board) -> list[list[tuple[int, int]]]:
    """Every group of two or more cells, each listed once (cells in column-major order)."""
    seen: set = set()
    out = []
    for x, col in enumerate(board):
        for y in range(len(col)):
            if (x, y) in seen:
                continue
            g = group_at(board, x, y)
            seen.update(g)
            if len(g) >= 2:
                out.append(g)
    return out


def remove(board: Board, cells) -> Board:
    """The board after taking ``cells`` out: cells fall, empty columns close up."""
    gone: dict[int, set] = {}
    for x, y in cells:
        gone.setdefault(x, set()).add(y)
    out = []
    for x, col in enumerate(board):
        if x in gone:
            col = tuple(c for y, c in enumerate(col) if y not in gone[x])
        if col:
            out.append(col)
    return tuple(out)


def stranded(board: Board) -> bool:
    """Whether some colour has exactly one cell left (that cell can never be removed)."""
    counts: dict[int, int] = {}
    for col in board:
        for c in col:
            counts[c] = counts.get(c, 0) + 1
    return any(n == 1 for n in counts.values())


def loners(board: Board) -> int:
    """Cells with no orthogonal neighbour of their colour."""
    n = 0
    for x, col in enumerate(board):
        for y, c in enumerate(col):
            if not ((y > 0 and col[y - 1] == c) or (y + 1 < len(col) and col[y + 1] == c)
                    or (x > 0 and y < len(board[x - 1]) and board[x - 1][y] == c)
                    or (x + 1 < len(board) and y < len(board[x + 1]) and board[x + 1][y] == c)):
                n += 1
    return n


def clear(board: Board, budget: int = 200_000, attempt_nodes: int = 20_000, seed: int = 0) -> list | None:
    """Removals that empty the board, each as a group's cell list (column, height); None when the
    search finds none within ``budget`` nodes (the board may still be clearable)."""
    if not board:
        return []
    dead: set = set()
    rng = np.random.default_rng(seed)
    spent = 0
    attempt = 0
    while spent < budget:
        nodes = [0]
        limit = min(attempt_nodes * (attempt + 1), budget - spent)
        shuffle = rng if attempt else None
        path = _dfs(board, dead, nodes, limit, shuffle)
        spent += nodes[0]
        if path is not None:
            return path
        if nodes[0] < limit:
            return None  # exhausted without running out: no removal sequence clears the board
        attempt += 1
    return None


def _dfs(board: Board, dead: set, nodes: list, limit: int, rng) -> list | None:
    stack = [(board, None, None)]  # (board, its moves still to try, the move that led here)
    path: list = []
    children = {}
    while stack:
        b, todo, _ = stack[-1]
        if todo is None:
            nodes[0] += 1
            if nodes[0] > limit:
                return None
            options = []
            for g in groups(b):
                after = remove(b, g)
                if not after:
                    return [*path, g]
                if after in dead or stranded(after):
                    continue
                options.append((loners(after), -len(g), g, after))
            if rng is not None:
                order = rng.permutation(len(options)).tolist()
                options = [options[i] for i in order]
                options.sort(key=lambda o: o[0] + int(rng.integers(0, 3)))
            else:
                options.sort(key=lambda o: (o[0], o[1]))
            todo = [(g, after) for _, _, g, after in options]
            stack[-1] = (b, todo, stack[-1][2])
        if not todo:
            dead.add(b)
            stack.pop()
            if path:
                path.pop()
            continue
        g, after = todo.pop(0)
        if after in dead:
            continue
        path.append(g)
        stack.append((after, None, g))
    del children
    return None


def exhaustive(board: Board, memo: dict | None = None) -> bool:
    """Whether any removal sequence clears the board (every sequence tried; small boards only)."""
    memo = {} if memo is None else memo
    if not board:
        return True
    if board in memo:
        return memo[board]
    ok = any(exhaustive(remove(board, g), memo) for g in groups(board))
    memo[board] = ok
    return ok
