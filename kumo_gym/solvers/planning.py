"""Optimal solvers of the planning puzzles (planning spec §2, §10).

Closed forms where they exist (Tower of Hanoi, Checker Jumping, the interleaved Blocks World
family) and search where they do not: River Crossing by breadth-first search over pair-type
counts, Blocks World with user-given start and goal by A* over packed states. Each search has a
numba kernel and a pure-Python reference implementation of the same algorithm (same state
packing, same move order), used by the tests and by ``benchmarks/planning.py``.

Everything here is pure functions over plain data and numpy arrays; nothing imports Gymnasium.
"""
from __future__ import annotations

import heapq
from collections import deque

import numba
import numpy as np

from ..core.errors import ConfigError

# ---- Tower of Hanoi (§2.1) ------------------------------------------------------------------


def hanoi_moves(n: int, src: int = 0, dst: int = 2, aux: int = 1) -> list[list[int]]:
    """The unique optimal solution ``[[disk, from, to], ...]`` (2^n - 1 moves).

    The recursive procedure solve(n, src, dst, aux) of §2.1, unrolled with an explicit stack
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


# ---- Checker Jumping (§2.2) -----------------------------------------------------------------


def checker_moves(n: int) -> list[list]:
    """An optimal solution starting with R ((n+1)^2 - 1 moves), by the §2.2 construction.

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


def checker_optimal_length(n: int) -> int:
    return (n + 1) ** 2 - 1


# ---- Blocks World, interleaved family (§2.4) ------------------------------------------------


def block_names(n: int) -> list[str]:
    """``A``..``Z`` for n <= 26, else ``A1``, ``B1``, ... (spec §2.4)."""
    if n <= 26:
        return [chr(65 + i) for i in range(n)]
    return [f"{chr(65 + i % 26)}{i // 26 + 1}" for i in range(n)]


def blocks_interleaved(n: int, n_stacks: int = 3) -> tuple[list[list[str]], list[list[str]]]:
    """(initial, goal) of the paper's interleaved family (spec §2.4)."""
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
    """The constructive optimal solution of §2.4 (N + max(0, 2m - 1) moves, m = N // 2)."""
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


# ---- River Crossing: BFS over pair-type counts (§2.3) ---------------------------------------
# A state is (n_LL, n_LR, n_RL, boat) with n_RR = N - the others; "LR" = agent left, actor right.
# A boat trip from side S takes, out of the pairs on S, cb whole pairs, ca lone actors and cg
# lone agents (splitting pairs), plus da actors whose agent is already across and dg agents whose
# actor is already across. Safety on the boat and both banks only depends on these counts.


def _river_index(n, nll, nlr, nrl, boat):
    return ((nll * (n + 1) + nlr) * (n + 1) + nrl) * 2 + boat


def _unsafe(full, lone_actors, lone_agents):
    # an actor without its agent next to any other agent
    return lone_actors > 0 and full + lone_agents > 0


# The reachable part of the count space is tiny (about 4N states for k >= 4), so both searches
# keep parents in hash maps instead of dense arrays over all 2 (N + 1)^3 indices. A trip is packed
# into one integer, 10 bits per count.
_PACK = 1024


@numba.njit(cache=True)
def _river_bfs_kernel(n, k):
    start = ((n * (n + 1) + 0) * (n + 1) + 0) * 2 + 0
    goal = 1
    parent = {start: -1}
    pmove = {start: 0}
    queue = [start]
    head = 0
    while head < len(queue):
        s = queue[head]
        head += 1
        if s == goal:
            break
        boat = s % 2
        rest = s // 2
        nrl = rest % (n + 1)
        rest //= (n + 1)
        nlr = rest % (n + 1)
        nll = rest // (n + 1)
        nrr = n - nll - nlr - nrl
        if boat == 0:
            f, aonly, gonly, ft = nll, nrl, nlr, nrr
        else:
            f, aonly, gonly, ft = nrr, nlr, nrl, nll
        for cb in range(min(f, k // 2) + 1):
            for ca in range(min(f - cb, k - 2 * cb) + 1):
                for cg in range(min(f - cb - ca, k - 2 * cb - ca) + 1):
                    for da in range(min(aonly, k - 2 * cb - ca - cg) + 1):
                        for dg in range(min(gonly, k - 2 * cb - ca - cg - da) + 1):
                            if 2 * cb + ca + cg + da + dg == 0:
                                continue
                            y = ca + da
                            if y > 0 and cb + cg + dg > 0:
                                continue
                            dep_a = aonly - da + cg
                            if dep_a > 0 and (f - cb - ca - cg) + (gonly - dg + ca) > 0:
                                continue
                            arr_a = gonly - dg + ca
                            if arr_a > 0 and (ft + cb + da + dg) + (aonly - da + cg) > 0:
                                continue
                            if boat == 0:
                                a2 = nll - cb - ca - cg
                                b2 = nlr - dg + ca
                                c2 = nrl - da + cg
                            else:
                                a2 = nll + cb + da + dg
                                b2 = nlr - da + cg
                                c2 = nrl - dg + ca
                            s2 = ((a2 * (n + 1) + b2) * (n + 1) + c2) * 2 + (1 - boat)
                            if s2 not in parent:
                                parent[s2] = s
                                pmove[s2] = (((cb * 1024 + ca) * 1024 + cg) * 1024 + da) * 1024 + dg
                                queue.append(s2)
    path = []
    if goal in parent:
        s = goal
        while parent[s] >= 0:
            path.append(pmove[s])
            s = parent[s]
    return goal in parent, path[::-1]


def _river_bfs_python(n: int, k: int):
    """The same breadth-first search as ``_river_bfs_kernel``, in plain Python."""
    start, goal = _river_index(n, n, 0, 0, 0), 1
    parent, pmove = {start: -1}, {start: 0}
    queue = deque([start])
    while queue:
        s = queue.popleft()
        if s == goal:
            break
        boat, rest = s % 2, s // 2
        nrl, rest = rest % (n + 1), rest // (n + 1)
        nlr, nll = rest % (n + 1), rest // (n + 1)
        nrr = n - nll - nlr - nrl
        f, aonly, gonly, ft = (nll, nrl, nlr, nrr) if boat == 0 else (nrr, nlr, nrl, nll)
        for cb in range(min(f, k // 2) + 1):
            for ca in range(min(f - cb, k - 2 * cb) + 1):
                for cg in range(min(f - cb - ca, k - 2 * cb - ca) + 1):
                    for da in range(min(aonly, k - 2 * cb - ca - cg) + 1):
                        for dg in range(min(gonly, k - 2 * cb - ca - cg - da) + 1):
                            if 2 * cb + ca + cg + da + dg == 0:
                                continue
                            if _unsafe(cb, ca + da, cg + dg):
                                continue
                            if _unsafe(f - cb - ca - cg, aonly - da + cg, gonly - dg + ca):
                                continue
                            if _unsafe(ft + cb + da + dg, gonly - dg + ca, aonly - da + cg):
                                continue
                            if boat == 0:
                                a2, b2, c2 = nll - cb - ca - cg, nlr - dg + ca, nrl - da + cg
                            else:
                                a2, b2, c2 = nll + cb + da + dg, nlr - da + cg, nrl - dg + ca
                            s2 = _river_index(n, a2, b2, c2, 1 - boat)
                            if s2 not in parent:
                                parent[s2] = s
                                pmove[s2] = (((cb * _PACK + ca) * _PACK + cg) * _PACK + da) * _PACK + dg
                                queue.append(s2)
    path = []
    if goal in parent:
        s = goal
        while parent[s] >= 0:
            path.append(pmove[s])
            s = parent[s]
    return goal in parent, path[::-1]


def river_count_moves(n: int, k: int, backend: str = "numba") -> list[tuple[int, ...]] | None:
    """The optimal trips as count tuples ``(cb, ca, cg, da, dg)``, or None when unsolvable."""
    if n < 1 or k < 1 or n >= _PACK:
        raise ConfigError(f"river crossing needs 1 <= n < {_PACK} and k >= 1, got n={n}, k={k}")
    if backend == "numba":
        found, path = _river_bfs_kernel(n, k)
    elif backend == "python":
        found, path = _river_bfs_python(n, k)
    else:
        raise ConfigError(f"backend {backend!r} is not one of: numba, python")
    if not found:
        return None
    out = []
    for p in path:
        counts = []
        for _ in range(5):
            p, c = divmod(int(p), _PACK)
            counts.append(c)
        out.append(tuple(counts[::-1]))
    return out


def river_optimal_length(n: int, k: int) -> int | None:
    """Minimal number of trips (spec §10.3), None when (n, k) is unsolvable."""
    if k >= 2 * n:
        return 1
    path = river_count_moves(n, k)
    return None if path is None else len(path)


def river_solvable(n: int, k: int) -> bool:
    """The §2.3 rule: (k = 2, n <= 3) or (k = 3, n <= 5) or k >= 4 (n >= 1)."""
    return k >= 2 * n or (k == 2 and n <= 3) or (k == 3 and n <= 5) or k >= 4


def river_moves(n: int, k: int, backend: str = "numba") -> list[list[str]] | None:
    """An optimal solution as boat lists (``[["A_1", "a_1"], ["A_1"], ...]``), or None.

    Count moves become concrete people by filling each count with the lowest free indices.
    """
    path = river_count_moves(n, k, backend)
    if path is None:
        return None
    actor = [0] * (n + 1)  # 0 = left bank, 1 = right bank; index 0 unused
    agent = [0] * (n + 1)
    out = []
    for t, (cb, ca, cg, da, dg) in enumerate(path):
        side = t % 2
        full = [i for i in range(1, n + 1) if actor[i] == side and agent[i] == side]
        aonly = [i for i in range(1, n + 1) if actor[i] == side and agent[i] != side]
        gonly = [i for i in range(1, n + 1) if agent[i] == side and actor[i] != side]
        pairs, rest = full[:cb], full[cb:]
        lone_a, rest = rest[:ca], rest[ca:]
        lone_g = rest[:cg]
        movers_a = sorted(pairs + lone_a + aonly[:da])
        movers_g = sorted(pairs + lone_g + gonly[:dg])
        boat = []
        for i in range(1, n + 1):
            if i in movers_g:
                boat.append(f"A_{i}")
                agent[i] = 1 - side
            if i in movers_a:
                boat.append(f"a_{i}")
                actor[i] = 1 - side
        out.append(boat)
    return out


# ---- River Crossing: plain BFS over (left-bank set, boat side), the cross-check -------------


def _group_unsafe(mask: int, n: int) -> bool:
    actors = mask & ((1 << n) - 1)
    agents = mask >> n
    lone_actors = actors & ~agents
    return lone_actors != 0 and agents != 0


def river_explicit_bfs(n: int, k: int, count: bool = False) -> tuple[int | None, int]:
    """(minimal trips or None, number of distinct optimal solutions if ``count``).

    Plain BFS over (set of people on the left bank, boat side), people as bits (actor i is bit
    i - 1, agent i is bit n + i - 1); boat groups are sets. Only for small n: it is the
    independent check of the count search (spec §2.3, §10.3).
    """
    full = (1 << (2 * n)) - 1
    start = (full, 0)
    dist = {start: 0}
    ways = {start: 1}
    frontier = [start]
    depth = 0
    while frontier:
        if any(s == (0, 1) for s in frontier):
            return depth, ways[(0, 1)] if count else 0
        nxt: list = []
        for left, boat in frontier:
            here = left if boat == 0 else full & ~left
            people = [b for b in range(2 * n) if here >> b & 1]
            for group in _subsets_up_to(people, k):
                if _group_unsafe(group, n):
                    continue
                new_left = left & ~group if boat == 0 else left | group
                dep = here & ~group
                arr = (full & ~left | group) if boat == 0 else (left | group)
                if _group_unsafe(dep, n) or _group_unsafe(arr, n):
                    continue
                s2 = (new_left, 1 - boat)
                if s2 not in dist:
                    dist[s2] = depth + 1
                    ways[s2] = 0
                    nxt.append(s2)
                if dist[s2] == depth + 1:
                    ways[s2] += ways[(left, boat)]
        frontier = nxt
        depth += 1
    return None, 0


def _subsets_up_to(items: list[int], k: int):
    """Every non-empty subset of ``items`` with at most ``k`` elements, as bitmasks."""
    out = []

    def rec(i: int, mask: int, size: int):
        if size:
            out.append(mask)
        if size == k:
            return
        for j in range(i, len(items)):
            rec(j + 1, mask | (1 << items[j]), size + 1)

    rec(0, 0, 0)
    return out


# ---- Blocks World: A* over packed states (§2.4, user-given instances) -----------------------
# A state is packed as below[b] for every block b: the block under b, or N + s when b sits on the
# table of stack s; the key is sum(below[b] * (N + S)^b). The heuristic counts blocks that are
# not "well placed" (the chain under them already matches the goal down to the table): each must
# move at least once, and one move changes the count by at most one, so it is consistent and A*
# returns an optimum. With heuristic=False the search is plain breadth-first (uniform cost).


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


@numba.njit(cache=True)
def _blocks_key(below, base):
    key = 0
    mul = 1
    for b in range(below.shape[0]):
        key += below[b] * mul
        mul *= base
    return key


@numba.njit(cache=True)
def _blocks_unpack(key, n, base, below):
    for b in range(n):
        below[b] = key % base
        key //= base


@numba.njit(cache=True)
def _blocks_h(below, goal, n, use_h):
    if not use_h:
        return 0
    bad = 0
    for b in range(n):
        c = b
        ok = True
        while c < n:
            if below[c] != goal[c]:
                ok = False
                break
            c = below[c]
        if not ok:
            bad += 1
    return bad


@numba.njit(cache=True)
def _blocks_astar_kernel(start, goal, n, n_stacks, use_h, max_expansions):
    base = n + n_stacks
    skey = _blocks_key(start, base)
    gkey = _blocks_key(goal, base)
    gbest = {skey: 0}
    parent = {skey: np.int64(-1)}
    pmove = {skey: np.int64(-1)}
    heap = [(_blocks_h(start, goal, n, use_h), 0, skey)]
    below = np.empty(n, np.int64)
    top = np.empty(n_stacks, np.int64)
    has_above = np.empty(n, np.bool_)
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
        has_above[:] = False
        for b in range(n):
            if below[b] < n:
                has_above[below[b]] = True
        top[:] = -1
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
                    heapq.heappush(heap, (g2 + _blocks_h(below, goal, n, use_h), g2, k2))
            below[t] = old
    path = []
    if found:
        k = gkey
        while parent[k] >= 0:
            path.append(pmove[k])
            k = parent[k]
    return found, path[::-1], expansions


def _blocks_astar_python(start, goal, n, n_stacks, use_h, max_expansions):
    """The same A* as ``_blocks_astar_kernel``, in plain Python (same packing and move order)."""
    base = n + n_stacks
    start, goal = [int(x) for x in start], [int(x) for x in goal]

    def key_of(below):
        key, mul = 0, 1
        for x in below:
            key += x * mul
            mul *= base
        return key

    def h(below):
        if not use_h:
            return 0
        bad = 0
        for b in range(n):
            c = b
            while c < n:
                if below[c] != goal[c]:
                    bad += 1
                    break
                c = below[c]
        return bad

    skey, gkey = key_of(start), key_of(goal)
    gbest, parent, pmove = {skey: 0}, {skey: -1}, {skey: -1}
    heap = [(h(start), 0, skey)]
    expansions, found = 0, False
    while heap:
        _, g, key = heapq.heappop(heap)
        if g > gbest[key]:
            continue
        if key == gkey:
            found = True
            break
        expansions += 1
        if expansions > max_expansions:
            break
        below = [(key // base ** b) % base for b in range(n)]
        has_above = [False] * n
        for b in range(n):
            if below[b] < n:
                has_above[below[b]] = True
        top = [-1] * n_stacks
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
                k2, g2 = key_of(below), g + 1
                if k2 not in gbest or g2 < gbest[k2]:
                    gbest[k2], parent[k2], pmove[k2] = g2, key, (t * 64 + s) * 64 + s2
                    heapq.heappush(heap, (g2 + h(below), g2, k2))
            below[t] = old
    path = []
    if found:
        k = gkey
        while parent[k] >= 0:
            path.append(pmove[k])
            k = parent[k]
    return found, path[::-1], expansions


def blocks_search(initial: list[list[str]], goal: list[list[str]], *, heuristic: bool = True,
                  backend: str = "numba", allow_slow_search: bool = False,
                  max_expansions: int = 50_000_000) -> list[list] | None:
    """An optimal move list from ``initial`` to ``goal`` (stacks bottom to top), or None.

    Refuses more than 12 blocks unless ``allow_slow_search`` (spec §2.4).
    """
    names = sorted({b for s in initial for b in s})
    if names != sorted({b for s in goal for b in s}) or len(initial) != len(goal):
        raise ConfigError("initial and goal must hold the same blocks on the same number of stacks")
    n, n_stacks = len(names), len(initial)
    if n > 12 and not allow_slow_search:
        raise ConfigError(f"search over {n} blocks is refused (more than 12); pass allow_slow_search=True")
    if n == 0:
        return []
    if (n + n_stacks) ** n >= 2 ** 62:
        raise ConfigError(f"{n} blocks on {n_stacks} stacks do not fit the packed state")
    start, target = blocks_pack(initial, names), blocks_pack(goal, names)
    if backend == "numba":
        found, path, _ = _blocks_astar_kernel(start, target, n, n_stacks, heuristic, max_expansions)
    elif backend == "python":
        found, path, _ = _blocks_astar_python(start, target, n, n_stacks, heuristic, max_expansions)
    else:
        raise ConfigError(f"backend {backend!r} is not one of: numba, python")
    if not found:
        return None
    return [[names[int(p) // 4096], (int(p) // 64) % 64, int(p) % 64] for p in path]
