"""Pearl's geometry: the loop variables and cuts of the SAT encoding, random loops, a loop's
cells in order from its edges, and the straight/turn test of three cells."""
from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np

from ..geometry import STEP, Cell, link_components, number_loops, stretch
from ..play import grid_edges


def loop_cuts(on: np.ndarray, exits: dict[tuple[Cell, str], int], links: Callable[[np.ndarray], Iterable],
              *, single_loop: bool) -> Callable[[np.ndarray], list[list[int]]]:
    """The ``cuts`` callback for "the connections form one path" (Tracks: ``single_loop=False``,
    no closed loop at all) or "one closed loop" (Pearl: ``single_loop=True``, no second loop).

    ``on[r, c]`` is the literal "the cell is on the line", ``exits[(cell, d)]`` the literal "the
    cell connects in direction d" (URDL; off-grid directions where the line may leave the grid),
    ``links(values)`` the cell pairs connected in a model. For a closed loop S of the model that
    the rule forbids: in every solution where all of S is on the line, the line leaves S (Tracks:
    S is never the whole path, whose ends leave the grid; Pearl: another component's cell t is on
    the loop too, so the clause also has ``not t``). Both follow from the rule alone.
    """
    steps = {"U": (-1, 0), "R": (0, 1), "D": (1, 0), "L": (0, -1)}

    def cuts(value: np.ndarray) -> list[list[int]]:
        comps = link_components(*on.shape, links(value))
        loops = [cells for cells, n in comps if n == len(cells)]
        if single_loop and len(comps) <= 1:
            return []
        out = []
        for cells in loops:
            inside = set(cells)
            clause = [-int(on[x]) for x in cells]
            clause += [int(exits[x, d]) for x in cells for d, (dr, dc) in steps.items()
                       if (x[0] + dr, x[1] + dc) not in inside and (x, d) in exits]
            if single_loop:
                other = next(c for c, _ in comps if c[0] not in inside)
                clause.append(-int(on[other[0]]))
            out.append(clause)
        return out

    return cuts


def loop_vars(f, H: int, W: int) -> tuple[np.ndarray, Callable, np.ndarray, Callable, Callable]:
    """Lines through cell centres as one variable per pair of neighbours and "on the line" per
    cell (``on``); ``e(a, d, k)`` is the edge variable leaving the cell ``k`` - 1 steps from ``a``
    in direction d (U, R, D, L), None off the grid. With them the answer variables (the edges in
    :func:`~.play.grid_edges` order), the decoder (the loops numbered, :func:`number_loops`) and
    the single-loop cuts (:func:`loop_cuts`). Pearl; :func:`loop_degree` adds each cell's rule."""
    edge = {x: f.var(("edge", x)) for x in grid_edges(H, W)}
    on = f.grid("on", H, W)

    def e(a: Cell, d: str, k: int = 1) -> int | None:
        dr, dc = STEP[d]
        a = (a[0] + dr * (k - 1), a[1] + dc * (k - 1))
        return edge.get(tuple(sorted((a, (a[0] + dr, a[1] + dc)))))

    keys, lits = list(edge), np.asarray(list(edge.values()), np.int64)

    def links(value: np.ndarray) -> list:
        return [keys[i] for i in np.flatnonzero(value[lits] > 0).tolist()]

    exits = {(x, d): e(x, d) for x in np.ndindex(H, W) for d in "URDL" if e(x, d)}
    return (on, e, np.asarray([edge[k] for k in grid_edges(H, W)], np.int32),
            lambda value: number_loops(H, W, links(value)), loop_cuts(on, exits, links, single_loop=True))


def loop_degree(f, on: np.ndarray, e: Callable, x: Cell) -> None:
    """Cell ``x`` of :func:`loop_vars` has two of its edges when on the line, none otherwise."""
    inc = [e(x, d) for d in "URDL" if e(x, d)]
    f.extend([[-i, int(on[x])] for i in inc])
    f.exactly(inc, 2, guard=int(on[x]))


def loop_edges(loop: list[Cell]) -> set:
    """The edges (sorted cell pairs) of a closed loop given as its cells in order."""
    return {tuple(sorted((loop[i - 1], loop[i]))) for i in range(len(loop))}


def random_loop(rng: np.random.Generator, H: int, W: int, length: float) -> list[Cell]:
    """A random closed loop of cells (in loop order): a random 2x2 square stretched by random
    detours until it has ``length`` cells (:func:`stretch`; Pearl)."""
    r, c = int(rng.integers(H - 1)), int(rng.integers(W - 1))
    return stretch(rng, H, W, [(r, c), (r, c + 1), (r + 1, c + 1), (r + 1, c)], length, closed=True)


def straight(a: Cell, b: Cell, c: Cell) -> bool:
    """Whether the steps a -> b -> c go the same way."""
    return (b[0] - a[0], b[1] - a[1]) == (c[0] - b[0], c[1] - b[1])


def cycle(edges) -> list[Cell]:
    """The cells of one closed loop, given as its edges (every cell on two), in the order the
    loop visits them from its first cell in reading order (the direction is immaterial to the
    callers: a loop's edges and pearls read the same either way)."""
    adj: dict = {}
    for a, b in edges:
        adj.setdefault(a, []).append(b)
        adj.setdefault(b, []).append(a)
    start = min(adj)
    out, prev, cur = [start], start, adj[start][0]
    while cur != start:
        out.append(cur)
        a, b = adj[cur]
        prev, cur = cur, (b if a == prev else a)
    return out
