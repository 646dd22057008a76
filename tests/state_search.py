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


def distances_from_start(task, inst, max_states: int | None = None) -> tuple[dict, list]:
    """``(dist, reachable)``: every state reachable from the start, and the exact distance to the
    nearest goal state (``task.is_goal``) of those that reach one, by breadth-first search backwards
    from all of them over the reachable graph (for games whose moves cannot be undone, or that have
    many goal states); ``({}, [])`` once more than ``max_states`` are seen."""
    start = task.initial_state(inst)
    preds: dict = {start: []}
    queue = deque([start])
    while queue:
        s = queue.popleft()
        for m in task.legal_moves(inst, s):
            t = task.apply(inst, s, m)
            if t not in preds:
                preds[t] = []
                if max_states is not None and len(preds) > max_states:
                    return {}, []
                queue.append(t)
            preds[t].append(s)
    dist = {s: 0 for s in preds if task.is_goal(inst, s)}
    queue = deque(dist)
    while queue:
        s = queue.popleft()
        for p in preds[s]:
            if p not in dist:
                dist[p] = dist[s] + 1
                queue.append(p)
    return dist, list(preds)
