"""Blocks World: the paper's interleaved family in closed form, A* for anything else (docs/specs/planning.md §2.4).

A state is packed as ``below[b]`` for every block b: the block under b, or ``N + s`` when b
sits at the bottom of stack s; the key is ``sum(below[b] * (N + S)^b)``. The A* heuristic is
admissible: every block that is not *well placed* (the chain under it already matches the goal
down to the bottom of its stack) moves at least once, and at least twice when it sits on its
goal stack (it must leave so the stack below it can be fixed, then come back) or above a block
that belongs under it in the goal and is not well placed yet (it must leave before that block
moves and can land only after). A* reopens states whose cost improves, so an admissible
heuristic gives an optimum. With ``heuristic=False`` the search is plain uniform-cost search.
One search function serves both backends: numba compiles it on first use (over numpy arrays)
and small searches run it as plain Python (over lists), where loading numba would cost more.
"""
from __future__ import annotations

import heapq

import numpy as np

from ....core.errors import ConfigError
from ....solvers.native import compiled, kernel

#: above this many blocks the search for a custom instance needs allow_slow_search (docs/specs/planning.md §2.4)
SEARCH_LIMIT = 12
#: below this many blocks the pure-Python search is as fast as loading the numba kernel
PYTHON_BELOW = 8

def block_names(n: int) -> list[str]:
    """``A``..``Z`` for n <= 26, else ``A1``, ``B1``, ... (docs/specs/planning.md §2.4)."""
    if n <= 26:
        return [chr(65 + i) for i in range(n)]
    return [f"{chr(65 + i % 26)}{i // 26 + 1}" for i in range(n)]


def blocks_interleaved(n: int, n_stacks: int = 3) -> tuple[list[list[str]], list[list[str]]]:
    """(initial, goal) of the paper's interleaved family (docs/specs/planning.md §2.4)."""
    names = block_names(n)
    m = n // 2
    s0, s1 = names[:m], names[m:]
    r0, r1 = s0[::-1], s1[::-1]
    goal0: list[str] = []
    for i in range(len(r1)):
        goal0.append(r1[i])
        if i < len(r0):
            goal0.append(r0[i])
    initial = [s0, s1] + [[] for _ in range(n_stacks - 2)]
    goal = [goal0] + [[] for _ in range(n_stacks - 1)]
    return initial, goal


def blocks_interleaved_moves(n: int) -> list[list]:
    """The constructive optimal solution of docs/specs/planning.md §2.4 (N + max(0, 2m - 1) moves, m = N // 2)."""
    initial, _ = blocks_interleaved(n)
    st = [list(s) for s in initial]
    out: list[list] = []

    def move(a: int, b: int):
        blk = st[a].pop()
        st[b].append(blk)
        out.append([blk, a, b])

    m = n // 2
    if m >= 1:
        for _ in range(m - 1):
            move(0, 1)
        move(0, 2)
        for _ in range(m - 1):
            move(1, 2)
    src = 1
    while st[1] or st[2]:
        if not st[src]:
            src = 3 - src
        move(src, 0)
        src = 3 - src
    return out


def blocks_interleaved_optimal_length(n: int) -> int:
    return 1 if n == 1 else n + 2 * (n // 2) - 1


def blocks_random_state(names: list[str], n_stacks: int, rng) -> list[list[str]]:
    """Blocks dealt in a random order onto random stacks (every arrangement is reachable)."""
    piles: list[list[str]] = [[] for _ in range(n_stacks)]
    for i in rng.permutation(len(names)):
        piles[int(rng.integers(n_stacks))].append(names[int(i)])
    return piles


# ---- A* over packed states ------------------------------------------------------------------
def blocks_pack(stacks: list[list[str]], names: list[str]) -> np.ndarray:
    n = len(names)
    index = {b: i for i, b in enumerate(names)}
    below = np.empty(n, np.int64)
    for s, stack in enumerate(stacks):
        prev = n + s
        for b in stack:
            below[index[b]] = prev
            prev = index[b]
    return below


def goal_ancestors(goal: np.ndarray) -> np.ndarray:
    """``anc[b, c]``: block c lies somewhere under block b in the goal."""
    n = goal.shape[0]
    anc = np.zeros((n, n), np.bool_)
    for b in range(n):
        c = goal[b]
        while c < n:
            anc[b, c] = True
            c = goal[c]
    return anc


def goal_stacks(goal: np.ndarray) -> np.ndarray:
    n = goal.shape[0]
    out = np.empty(n, np.int64)
    for b in range(n):
        c = b
        while goal[c] < n:
            c = goal[c]
        out[b] = goal[c] - n
    return out


def _blocks_key(below, base):
    key = 0
    mul = 1
    for x in below:
        key += x * mul
        mul *= base
    return key


def _blocks_unpack(key, n, base, below):
    for b in range(n):
        below[b] = key % base
        key //= base


def _blocks_h(below, goal, anc, gstack, n, use_h, well):
    if not use_h:
        return 0
    for b in range(n):
        c = b
        ok = True
        while c < n:
            if below[c] != goal[c]:
                ok = False
                break
            c = below[c]
        well[b] = ok
    total = 0
    for b in range(n):
        if well[b]:
            continue
        total += 1
        c = b
        while below[c] < n:
            c = below[c]
        if below[c] - n == gstack[b]:
            total += 1
            continue
        c = below[b]
        while c < n:
            if anc[b][c] and not well[c]:
                total += 1
                break
            c = below[c]
    return total


@kernel(python=True, callees=("_blocks_key", "_blocks_unpack", "_blocks_h"))
def _blocks_astar_kernel(start, goal, anc, gstack, n, n_stacks, use_h, max_expansions, below, top, has_above, well):
    """A* from ``start`` to ``goal``; the last four are scratch buffers (numpy arrays or lists)."""
    base = n + n_stacks
    skey = _blocks_key(start, base)
    gkey = _blocks_key(goal, base)
    gbest = {skey: 0}
    parent = {skey: -1}
    pmove = {skey: -1}
    heap = [(_blocks_h(start, goal, anc, gstack, n, use_h, well), 0, skey)]
    expansions = 0
    found = False
    while len(heap) > 0:
        _, g, key = heapq.heappop(heap)
        if g > gbest[key]:
            continue
        if key == gkey:
            found = True
            break
        expansions += 1
        if expansions > max_expansions:
            break
        _blocks_unpack(key, n, base, below)
        for b in range(n):
            has_above[b] = False
        for b in range(n):
            if below[b] < n:
                has_above[below[b]] = True
        for s in range(n_stacks):
            top[s] = -1
        for b in range(n):
            if not has_above[b]:
                c = b
                while below[c] < n:
                    c = below[c]
                top[below[c] - n] = b
        for s in range(n_stacks):
            t = top[s]
            if t < 0:
                continue
            old = below[t]
            for s2 in range(n_stacks):
                if s2 == s:
                    continue
                below[t] = top[s2] if top[s2] >= 0 else n + s2
                k2 = _blocks_key(below, base)
                g2 = g + 1
                if k2 not in gbest or g2 < gbest[k2]:
                    gbest[k2] = g2
                    parent[k2] = key
                    pmove[k2] = (t * 64 + s) * 64 + s2
                    heapq.heappush(heap, (g2 + _blocks_h(below, goal, anc, gstack, n, use_h, well), g2, k2))
            below[t] = old
    path = []
    if found:
        k = gkey
        while parent[k] >= 0:
            path.append(pmove[k])
            k = parent[k]
    return found, path[::-1], expansions




class SearchBudgetExceeded(RuntimeError):
    """The search expanded ``max_expansions`` states without reaching the goal."""


def blocks_search(initial: list[list[str]], goal: list[list[str]], *, heuristic: bool = True,
                  backend: str = "auto", allow_slow_search: bool = False,
                  max_expansions: int = 50_000_000) -> list[list] | None:
    """An optimal move list from ``initial`` to ``goal`` (stacks bottom to top).

    Refuses more than 12 blocks unless ``allow_slow_search`` (docs/specs/planning.md §2.4). ``backend`` is
    ``numba``, ``python`` or ``auto`` (Python below :data:`PYTHON_BELOW` blocks). Raises
    :class:`SearchBudgetExceeded` after ``max_expansions`` expanded states.
    """
    names = sorted({b for s in initial for b in s})
    if names != sorted({b for s in goal for b in s}) or len(initial) != len(goal):
        raise ConfigError("initial and goal must hold the same blocks on the same number of stacks")
    n, n_stacks = len(names), len(initial)
    if n > SEARCH_LIMIT and not allow_slow_search:
        raise ConfigError(f"search over {n} blocks is refused (more than {SEARCH_LIMIT}); "
                          "pass allow_slow_search=True")
    if n == 0:
        return []
    if (n + n_stacks) ** n >= 2 ** 62:
        raise ConfigError(f"{n} blocks on {n_stacks} stacks do not fit the packed state")
    start, target = blocks_pack(initial, names), blocks_pack(goal, names)
    anc, gstack = goal_ancestors(target), goal_stacks(target)
    if backend == "auto":
        backend = "python" if n < PYTHON_BELOW else "numba"
    if backend == "numba":
        search = compiled(_blocks_astar_kernel)
        scratch = np.empty(n, np.int64), np.empty(n_stacks, np.int64), np.empty(n, np.bool_), np.empty(n, np.bool_)
    elif backend == "python":
        search = _blocks_astar_kernel
        start, target, anc, gstack = start.tolist(), target.tolist(), anc.tolist(), gstack.tolist()
        scratch = [0] * n, [-1] * n_stacks, [False] * n, [False] * n
    else:
        raise ConfigError(f"backend {backend!r} is not one of: auto, numba, python")
    found, path, used = search(start, target, anc, gstack, n, n_stacks, heuristic, max_expansions, *scratch)
    if not found:
        if used > max_expansions:
            raise SearchBudgetExceeded(f"blocks search passed {max_expansions} expanded states")
        return None
    return [[names[int(p) // 4096], (int(p) // 64) % 64, int(p) % 64] for p in path]
