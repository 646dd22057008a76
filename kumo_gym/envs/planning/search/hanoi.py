"""Tower of Hanoi: optimal solutions and exact distances between any two legal states (docs/specs/planning.md §2.1).

A legal state is given by the peg of every disk (``pos[d - 1]`` for disk d): the order on each
peg is then forced (larger below). Two facts make everything closed-form:

* gathering disks 1..k onto one peg ``t`` takes ``sum 2^(d-1)`` over the disks d whose peg
  differs from the running target, which starts at ``t`` and becomes the third peg each time a
  disk is not on it (the standard recursion);
* on a shortest path between two states the largest disk that must move moves once (a -> b,
  the smaller disks gathered on the third peg) or twice (a -> c -> b, the smaller tower carried
  from b back to a in between), never more (Hinz, "Shortest paths between regular states of the
  Tower of Hanoi", 1992). The distance is the smaller of the two.
"""
from __future__ import annotations

import numpy as np

from ....solvers.native import compiled, kernel


def hanoi_moves(n: int, src: int = 0, dst: int = 2, aux: int = 1) -> list[list[int]]:
    """The unique optimal solution ``[[disk, from, to], ...]`` for a tower of n disks (2^n - 1 moves).

    The recursive procedure solve(n, src, dst, aux) of docs/specs/planning.md §2.1, unrolled with an explicit stack
    so that large n costs no Python recursion.
    """
    out: list[list[int]] = []
    stack = [(n, src, dst, aux, False)]
    while stack:
        k, s, d, a, expanded = stack.pop()
        if k == 0:
            continue
        if expanded:
            out.append([k, s, d])
            continue
        # pushed in reverse: move k-1 to aux, move disk k, move k-1 onto it
        stack.append((k - 1, a, d, s, False))
        stack.append((k, s, d, a, True))
        stack.append((k - 1, s, a, d, False))
    return out


def hanoi_optimal_length(n: int) -> int:
    return 2 ** n - 1


def hanoi_positions(pegs) -> list[int]:
    """``pos[d - 1]`` = the peg of disk d, from pegs listed bottom to top."""
    n = sum(len(p) for p in pegs)
    pos = [0] * n
    for p, peg in enumerate(pegs):
        for d in peg:
            pos[d - 1] = p
    return pos


def hanoi_pegs(pos: list[int]) -> list[list[int]]:
    """Pegs (bottom to top) from the peg of every disk."""
    pegs: list[list[int]] = [[], [], []]
    for d in range(len(pos), 0, -1):
        pegs[pos[d - 1]].append(d)
    return pegs


def gather_distance(pos: list[int], k: int, target: int) -> int:
    """Moves to gather disks 1..k (at pegs ``pos``) into one tower on ``target``."""
    total = 0
    for d in range(k, 0, -1):
        p = pos[d - 1]
        if p != target:
            total += 1 << (d - 1)
            target = 3 - p - target
    return total


def gather_moves(pos: list[int], k: int, target: int) -> list[list[int]]:
    """The optimal moves of :func:`gather_distance` (disk d goes straight to its running target
    after the smaller disks are parked on the third peg, then the smaller tower follows it)."""
    out: list[list[int]] = []
    pos = list(pos)
    for d in range(k, 0, -1):
        p = pos[d - 1]
        if p == target:
            continue
        spare = 3 - p - target
        out += gather_moves(pos, d - 1, spare)
        out.append([d, p, target])
        out += hanoi_moves(d - 1, spare, target, p)
        return out
    return out


def _differing(start: list[int], goal: list[int]) -> int:
    for d in range(len(start), 0, -1):
        if start[d - 1] != goal[d - 1]:
            return d
    return 0


def hanoi_distance(start: list[int], goal: list[int]) -> int:
    """The exact number of moves between two legal states given as disk pegs."""
    n = _differing(start, goal)
    if n == 0:
        return 0
    a, b = start[n - 1], goal[n - 1]
    c = 3 - a - b
    once = gather_distance(start, n - 1, c) + 1 + gather_distance(goal, n - 1, c)
    twice = gather_distance(start, n - 1, b) + (1 << (n - 1)) + 1 + gather_distance(goal, n - 1, a)
    return min(once, twice)


def _reverse(moves: list[list[int]]) -> list[list[int]]:
    return [[d, t, s] for d, s, t in reversed(moves)]


def hanoi_path(start: list[int], goal: list[int]) -> list[list[int]]:
    """An optimal move list between two legal states (disk pegs); its length is :func:`hanoi_distance`."""
    n = _differing(start, goal)
    if n == 0:
        return []
    a, b = start[n - 1], goal[n - 1]
    c = 3 - a - b
    once = gather_distance(start, n - 1, c) + 1 + gather_distance(goal, n - 1, c)
    twice = gather_distance(start, n - 1, b) + (1 << (n - 1)) + 1 + gather_distance(goal, n - 1, a)
    if once <= twice:
        return gather_moves(start, n - 1, c) + [[n, a, b]] + _reverse(gather_moves(goal, n - 1, c))
    return (gather_moves(start, n - 1, b) + [[n, a, c]] + hanoi_moves(n - 1, b, a, c) + [[n, c, b]]
            + _reverse(gather_moves(goal, n - 1, a)))


# ---- checking a long move list ----------------------------------------------------------------
#: reason codes of :func:`hanoi_run`, in the order of the checks of docs/specs/planning.md §2.1
RUN_REASONS = (None, "bad_peg", "same_peg", "empty_peg", "not_top_disk", "larger_on_smaller")


@kernel(python=True)
def _hanoi_run_kernel(moves, pegs, heights, pos, goal_pos, n):
    in_place = 0
    for d in range(1, n + 1):
        if pos[d] == goal_pos[d]:
            in_place += 1
    goal_at = -1
    for i in range(moves.shape[0]):
        d, s, t = moves[i, 0], moves[i, 1], moves[i, 2]
        if s < 0 or s > 2 or t < 0 or t > 2:
            return i, 1, goal_at
        if s == t:
            return i, 2, goal_at
        if heights[s] == 0:
            return i, 3, goal_at
        if pegs[s, heights[s] - 1] != d:
            return i, 4, goal_at
        if heights[t] > 0 and pegs[t, heights[t] - 1] < d:
            return i, 5, goal_at
        heights[s] -= 1
        pegs[t, heights[t]] = d
        heights[t] += 1
        if pos[d] == goal_pos[d]:
            in_place -= 1
        pos[d] = t
        if pos[d] == goal_pos[d]:
            in_place += 1
            if goal_at < 0 and in_place == n:
                goal_at = i + 1
    return moves.shape[0], 0, goal_at


def hanoi_run(moves: np.ndarray, initial: list[list[int]], goal: list[list[int]]):
    """Play a (k, 3) int array of moves with the checks of docs/specs/planning.md §2.1, in a numba kernel.

    Returns ``(n_legal_prefix, reason or None, pegs after the legal prefix, goal_first_reached_at
    or None)``. Used for long answers (a complete N=20 answer is a million moves).
    """
    run = compiled(_hanoi_run_kernel)
    n = sum(len(p) for p in initial)
    pegs = np.zeros((3, n + 1), np.int64)
    heights = np.zeros(3, np.int64)
    for p, peg in enumerate(initial):
        pegs[p, :len(peg)] = peg
        heights[p] = len(peg)
    pos = np.zeros(n + 1, np.int64)
    pos[1:] = hanoi_positions(initial)
    goal_pos = np.zeros(n + 1, np.int64)
    goal_pos[1:] = hanoi_positions(goal)
    k, code, goal_at = run(np.ascontiguousarray(moves, np.int64), pegs, heights, pos, goal_pos, n)
    final = [pegs[p, :heights[p]].tolist() for p in range(3)]
    return int(k), RUN_REASONS[int(code)], final, (None if goal_at < 0 else int(goal_at))
