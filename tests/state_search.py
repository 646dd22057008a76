"""Breadth-first search of a planning puzzle's states, the ground truth the exact solvers are checked
against (tests/games, tests/planning)."""
from __future__ import annotations

from collections import deque


def bfs_from_goal(task, inst, max_states: int | None = None) -> dict:
    """Exact distance to the goal of every state that reaches it, by breadth-first search from the
    goal (for puzzles whose moves are reversible); ``{}`` once more than ``max_states`` are seen."""
    goal = task.goal(inst)
    dist, queue = {goal: 0}, deque([goal])
    while queue:
        s = queue.popleft()
        for m in task.legal_moves(inst, s):
            t = task.apply(inst, s, m)
            if t not in dist:
                dist[t] = dist[s] + 1
                if max_states is not None and len(dist) > max_states:
                    return {}
                queue.append(t)
    return dist
