"""River Crossing: breadth-first search over pair-type counts (docs/specs/planning.md §2.3, §10.3).

A state is ``(n_LL, n_LR, n_RL, boat)`` with ``n_RR = N -`` the others: how many actor/agent
pairs have both on the left bank, the agent left and the actor right ("LR"), the agent right
and the actor left ("RL"); ``boat`` is 0 on the left, 1 on the right. Pairs of one type are
interchangeable, so the search is exact. A trip from the boat's side S takes, out of the pairs
on S, ``cb`` whole pairs, ``ca`` lone actors and ``cg`` lone agents (splitting pairs), plus
``da`` actors whose agent is already across and ``dg`` agents whose actor is already across;
safety on the boat and on both banks depends only on these counts.

Between states whose banks are both safe every trip can be undone by the same group going back,
so one search from the goal gives the exact distance of every state that can still reach it
(:func:`river_distances`); solutions walk down those distances. The forward search of the paper
(:func:`river_count_moves`) is kept, one function run as Python or compiled by numba, for the
benchmark and the cross-checks; a plain search over sets of people (:func:`river_explicit_bfs`) checks
both for small N.
"""
from __future__ import annotations

from collections import deque
from functools import lru_cache

from ....core.errors import ConfigError
from ....solvers.native import compiled, kernel

# A trip is packed into one integer, 10 bits per count.
_PACK = 1024


def _unsafe(full, lone_actors, lone_agents):
    # an actor without its agent next to any other agent
    return lone_actors > 0 and full + lone_agents > 0


def bank_unsafe_counts(n: int, nll: int, nlr: int, nrl: int) -> tuple[bool, bool]:
    """Whether the left and the right bank are unsafe in a count state."""
    nrr = n - nll - nlr - nrl
    return _unsafe(nll, nrl, nlr), _unsafe(nrr, nlr, nrl)


def _river_trips(n, k, nll, nlr, nrl, boat):
    """Every legal trip from a count state, in search order: ``(cb, ca, cg, da, dg, nll', nlr', nrl')``."""
    nrr = n - nll - nlr - nrl
    if boat == 0:
        f, aonly, gonly, ft = nll, nrl, nlr, nrr
    else:
        f, aonly, gonly, ft = nrr, nlr, nrl, nll
    out = []
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
                            out.append((cb, ca, cg, da, dg, nll - cb - ca - cg, nlr - dg + ca, nrl - da + cg))
                        else:
                            out.append((cb, ca, cg, da, dg, nll + cb + da + dg, nlr - da + cg, nrl - dg + ca))
    return out


def river_successors(n: int, k: int, state: tuple[int, int, int, int]):
    """Every legal trip ``(cb, ca, cg, da, dg)`` from a count state, with the state it leads to."""
    nll, nlr, nrl, boat = state
    for cb, ca, cg, da, dg, a, b, c in _river_trips(n, k, nll, nlr, nrl, boat):
        yield (cb, ca, cg, da, dg), (a, b, c, 1 - boat)


@lru_cache(maxsize=256)
def river_distances(n: int, k: int) -> dict[tuple[int, int, int, int], int]:
    """Exact trips to the goal (everyone right, boat right) for every count state that can reach it."""
    if n < 1 or k < 1 or n >= _PACK:
        raise ConfigError(f"river crossing needs 1 <= n < {_PACK} and k >= 1, got n={n}, k={k}")
    k = min(k, 2 * n)  # a boat for everyone is as good as a bigger one
    goal = (0, 0, 0, 1)
    dist = {goal: 0}
    queue = deque([goal])
    while queue:
        s = queue.popleft()
        d = dist[s] + 1
        for _, t in river_successors(n, k, s):
            if t not in dist:
                dist[t] = d
                queue.append(t)
    return dist


def river_optimal_length(n: int, k: int) -> int | None:
    """Minimal number of trips from everyone on the left (docs/specs/planning.md §10.3), None when unsolvable."""
    return river_distances(n, k).get((n, 0, 0, 0))


def river_solvable(n: int, k: int) -> bool:
    """The docs/specs/planning.md §2.3 rule: (k = 2, n <= 3) or (k = 3, n <= 5) or k >= 4 (n >= 1)."""
    return k >= 2 * n or (k == 2 and n <= 3) or (k == 3 and n <= 5) or k >= 4


def river_counts(n: int, left: set | frozenset) -> tuple[int, int, int]:
    """``(n_LL, n_LR, n_RL)`` of a set of people on the left bank (``A_i`` agents, ``a_i`` actors)."""
    nll = nlr = nrl = 0
    for i in range(1, n + 1):
        agent, actor = f"A_{i}" in left, f"a_{i}" in left
        if agent and actor:
            nll += 1
        elif agent:
            nlr += 1
        elif actor:
            nrl += 1
    return nll, nlr, nrl


def river_distance(n: int, k: int, left: set | frozenset, boat: int) -> int | None:
    """Exact trips from a concrete state (people on the left bank, boat side) to the goal."""
    return river_distances(n, k).get((*river_counts(n, left), boat))


def river_moves(n: int, k: int, left: set | frozenset | None = None, boat: int = 0) -> list[list[str]] | None:
    """An optimal solution as boat lists (``[["A_1", "a_1"], ["A_1"], ...]``), or None.

    Starts from ``left`` (everyone by default) with the boat on side ``boat``, walks down the
    distances of :func:`river_distances` taking the first trip (in search order) that gets one
    trip closer, and fills each count with the lowest free indices.
    """
    dist = river_distances(n, k)
    left = frozenset(f"{c}_{i}" for i in range(1, n + 1) for c in "Aa") if left is None else frozenset(left)
    actor = [0] + [0 if f"a_{i}" in left else 1 for i in range(1, n + 1)]  # 0 = left bank, 1 = right
    agent = [0] + [0 if f"A_{i}" in left else 1 for i in range(1, n + 1)]
    state = (*river_counts(n, left), boat)
    if state not in dist:
        return None
    out = []
    while dist[state] > 0:
        want = dist[state] - 1
        move, state = next((m, t) for m, t in river_successors(n, k, state) if dist.get(t) == want)
        out.append(_concrete_trip(n, move, boat, actor, agent))
        boat = 1 - boat
    return out


def _concrete_trip(n: int, move: tuple[int, ...], side: int, actor: list[int], agent: list[int]) -> list[str]:
    """The people of a count trip, lowest free indices first; updates ``actor``/``agent`` sides."""
    cb, ca, cg, da, dg = move
    full = [i for i in range(1, n + 1) if actor[i] == side and agent[i] == side]
    aonly = [i for i in range(1, n + 1) if actor[i] == side and agent[i] != side]
    gonly = [i for i in range(1, n + 1) if agent[i] == side and actor[i] != side]
    pairs, rest = full[:cb], full[cb:]
    lone_a, rest = rest[:ca], rest[ca:]
    lone_g = rest[:cg]
    movers_a = set(pairs + lone_a + aonly[:da])
    movers_g = set(pairs + lone_g + gonly[:dg])
    boat = []
    for i in range(1, n + 1):
        if i in movers_g:
            boat.append(f"A_{i}")
            agent[i] = 1 - side
        if i in movers_a:
            boat.append(f"a_{i}")
            actor[i] = 1 - side
    return boat


# ---- the forward search of the paper: one function, run as Python or compiled by numba ---------
@kernel(python=True, callees=("_unsafe", "_river_trips"))
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
        for cb, ca, cg, da, dg, a2, b2, c2 in _river_trips(n, k, nll, nlr, nrl, boat):
            s2 = ((a2 * (n + 1) + b2) * (n + 1) + c2) * 2 + (1 - boat)
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


def river_count_moves(n: int, k: int, backend: str = "python") -> list[tuple[int, ...]] | None:
    """The optimal trips of the forward search as count tuples ``(cb, ca, cg, da, dg)``, or None."""
    if n < 1 or k < 1 or n >= _PACK:
        raise ConfigError(f"river crossing needs 1 <= n < {_PACK} and k >= 1, got n={n}, k={k}")
    if backend == "numba":
        search = compiled(_river_bfs_kernel)
    elif backend == "python":
        search = _river_bfs_kernel
    else:
        raise ConfigError(f"backend {backend!r} is not one of: numba, python")
    found, path = search(n, k)
    return [_unpack(p) for p in path] if found else None


def _unpack(p: int) -> tuple[int, ...]:
    counts = []
    for _ in range(5):
        p, c = divmod(int(p), _PACK)
        counts.append(c)
    return tuple(counts[::-1])


# ---- plain BFS over (left-bank set, boat side), the cross-check ---------------------------------
def _group_unsafe(mask: int, n: int) -> bool:
    actors = mask & ((1 << n) - 1)
    agents = mask >> n
    lone_actors = actors & ~agents
    return lone_actors != 0 and agents != 0


def river_explicit_bfs(n: int, k: int, count: bool = False) -> tuple[int | None, int]:
    """(minimal trips or None, number of distinct optimal solutions if ``count``).

    Plain BFS over (set of people on the left bank, boat side), people as bits (actor i is bit
    i - 1, agent i is bit n + i - 1); boat groups are sets. Only for small n: it is the
    independent check of the count search (docs/specs/planning.md §2.3, §10.3).
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
