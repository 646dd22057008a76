"""Checker Jumping: constructive solution, exact distances and a solver from any board (docs/specs/planning.md §2.2).

A board is a string over ``R``, ``B`` and one ``_``; red moves right, blue left, by a slide or
a jump over one checker of the other colour. Every move is forward, so along any play each
(red, blue) pair that starts in the wrong order is jumped exactly once and every checker travels
a fixed distance: from a board that can still reach the goal, *every* completion has exactly
``D - J`` moves (D = cells still to travel, J = pairs still to cross; each jump covers two cells,
each slide one). Distances are therefore exact once reachability is known, which a depth-first
search decides; it prunes any board containing ``RRBB`` (with the edges acting as an outer R
and B), four checkers that can never move again, and is fast up to 100 checkers a side.
"""
from __future__ import annotations


def checker_board(n_red: int, n_blue: int) -> str:
    """``R...R _ B...B``."""
    return "R" * n_red + "_" + "B" * n_blue


def checker_goal(board: str) -> str:
    """The goal of a board: its blue checkers on the left, its red ones on the right."""
    return "B" * board.count("B") + "_" + "R" * board.count("R")


def checker_optimal_length(n: int, n_blue: int | None = None) -> int:
    """(n_red + 1)(n_blue + 1) - 1: n_red n_blue jumps and n_red + n_blue slides."""
    m = n if n_blue is None else n_blue
    return (n + 1) * (m + 1) - 1


def checker_moves(n: int) -> list[list]:
    """An optimal solution for N checkers a side starting with R, by the docs/specs/planning.md §2.2 construction.

    Groups of moves of sizes 1, 2, ..., n, n, n, ..., 2, 1 (n appears three times; 2n+1
    groups), colours alternating from R; inside a group the colour moves into the empty cell,
    jumping when that is legal and sliding otherwise.
    """
    board = ["R"] * n + ["_"] + ["B"] * n
    sizes = list(range(1, n + 1)) + [n] + list(range(n, 0, -1))
    out: list[list] = []
    for g, size in enumerate(sizes):
        colour = "R" if g % 2 == 0 else "B"
        step = 1 if colour == "R" else -1
        for _ in range(size):
            empty = board.index("_")
            jump_from = empty - 2 * step
            other = "B" if colour == "R" else "R"
            if 0 <= jump_from < len(board) and board[jump_from] == colour and board[empty - step] == other:
                frm = jump_from
            else:
                frm = empty - step
            if not (0 <= frm < len(board)) or board[frm] != colour:
                raise AssertionError(f"checker construction stuck at group {g} for n={n}")
            board[frm], board[empty] = "_", colour
            out.append([colour, frm, empty])
    return out


def checker_remaining(board: str) -> int:
    """``D - J``: the length of every completion of ``board`` (if it has one)."""
    size = len(board)
    travel, crossings, reds_left_of = 0, 0, 0
    red_i, blue_i = 0, 0
    first_red_final = size - board.count("R")
    for p, c in enumerate(board):
        if c == "R":
            travel += first_red_final + red_i - p
            red_i += 1
            reds_left_of += 1
        elif c == "B":
            travel += p - blue_i
            blue_i += 1
            crossings += reds_left_of
    return travel - crossings


def checker_forward_moves(board: str) -> list[tuple[int, int]]:
    """The legal moves ``(from, to)`` of ``board``: jumps first, then slides."""
    e = board.find("_")
    size = len(board)
    out = []
    if e >= 2 and board[e - 2] == "R" and board[e - 1] == "B":
        out.append((e - 2, e))
    if e + 2 < size and board[e + 2] == "B" and board[e + 1] == "R":
        out.append((e + 2, e))
    if e >= 1 and board[e - 1] == "R":
        out.append((e - 1, e))
    if e + 1 < size and board[e + 1] == "B":
        out.append((e + 1, e))
    return out


def checker_backward_moves(board: str) -> list[tuple[int, int]]:
    """The moves ``(from, to)`` that undo a legal move of some board into ``board``: red back left
    (by one, or by two over a blue), blue back right (by one, or by two over a red)."""
    e = board.find("_")
    size = len(board)
    out = []
    if e + 1 < size and board[e + 1] == "R":
        out.append((e + 1, e))
    if e + 2 < size and board[e + 2] == "R" and board[e + 1] == "B":
        out.append((e + 2, e))
    if e >= 1 and board[e - 1] == "B":
        out.append((e - 1, e))
    if e >= 2 and board[e - 2] == "B" and board[e - 1] == "R":
        out.append((e - 2, e))
    return out


def checker_scrambled(n: int, length: int, rng) -> str:
    """A board exactly ``length`` moves from the goal of N a side (``length`` <= (N+1)^2 - 1).

    A depth-first search of undone moves from the goal, in random order: undoing moves is moving
    forward on the board with the colours swapped, so the same pruning applies (``BBRR``, the
    edges acting as an outer B and R, never moves again) and dead ends are left quickly. Every
    forward move brings the goal exactly one move closer (module docstring), so the board found
    is exactly ``length`` moves away.
    """
    goal = checker_goal(checker_board(n, n))
    path = [goal]
    todo = [_shuffled(checker_backward_moves(goal), rng)]
    dead: set[str] = set()
    while len(path) <= length:
        if not todo[-1]:
            dead.add(path.pop())
            todo.pop()
            if not todo:
                raise ValueError(f"no board of N={n} lies {length} moves from the goal")
            continue
        s, t = todo[-1].pop()
        cells = list(path[-1])
        cells[t], cells[s] = cells[s], "_"
        board = "".join(cells)
        if board in dead or "BBRR" in "B" + board + "R":
            continue
        path.append(board)
        todo.append(_shuffled(checker_backward_moves(board), rng))
    return path[length]


def _shuffled(moves: list[tuple[int, int]], rng) -> list[tuple[int, int]]:
    """The moves in random order, jumps tried first (popped last) as in the forward search:
    a slide where a jump was possible is what usually leads into a dead end."""
    jumps = [m for m in moves if abs(m[0] - m[1]) == 2]
    slides = [m for m in moves if abs(m[0] - m[1]) == 1]
    return [slides[i] for i in rng.permutation(len(slides))] + [jumps[i] for i in rng.permutation(len(jumps))]


def _frozen(board: str) -> bool:
    # RRBB never moves again (the edges count as an outer R and B), so its R and B never cross
    return "RRBB" in "R" + board + "B"


def checker_path(board: str, max_nodes: int = 2_000_000) -> list[list] | None:
    """The moves ``[[colour, from, to], ...]`` from ``board`` to its goal, or None if there are none.

    Depth-first search, jumps tried first, dead boards remembered. Every completion has the
    same length (module docstring), so the one found is optimal. Raises RuntimeError past
    ``max_nodes`` boards (never seen below 100 checkers a side).
    """
    goal = checker_goal(board)
    if board == goal:
        return []
    if _frozen(board):
        return None
    dead: set[str] = set()
    path: list[tuple[int, int]] = []
    stack = [(board, iter(checker_forward_moves(board)))]
    nodes = 0
    while stack:
        state, todo = stack[-1]
        move = next(todo, None)
        if move is None:
            dead.add(state)
            stack.pop()
            if path:
                path.pop()
            continue
        s, t = move
        cells = list(state)
        cells[t], cells[s] = cells[s], "_"
        nxt = "".join(cells)
        nodes += 1
        if nodes > max_nodes:
            raise RuntimeError(f"checker search over {len(board)} cells passed {max_nodes} boards")
        if nxt in dead or _frozen(nxt):
            dead.add(nxt)
            continue
        path.append(move)
        if nxt == goal:
            out, cur = [], list(board)
            for s, t in path:
                out.append([cur[s], s, t])
                cur[t], cur[s] = cur[s], "_"
            return out
        stack.append((nxt, iter(checker_forward_moves(nxt))))
    return None


def checker_distance(board: str) -> int | None:
    """The exact number of moves from ``board`` to its goal, None when the goal is out of reach."""
    if board == checker_goal(board):
        return 0
    return None if checker_path(board) is None else checker_remaining(board)
