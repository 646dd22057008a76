"""Black Box search: ray tracing, the ball placements consistent with the rays fired so far, and the
reference player (docs/games.md, Black Box).

Rays are numbered as Tatham numbers his firing range: clockwise from the top-left, the top edge left
to right (0..w-1), the right edge top to bottom (w..w+h-1), the bottom edge right to left and the left
edge bottom to top. A ray's result is the number of the edge square it leaves by, :data:`HIT` (it
ran into a ball) or :data:`REFLECT` (it came back out where it went in). A ray moves straight; a ball
straight ahead stops it (a hit); a ball diagonally ahead on one side turns it a quarter turn away
from that ball (with balls diagonally ahead on both sides it turns twice, back the way it came); a
ball beside its entry square, diagonally ahead of it, reflects it at once, and a ball straight
ahead of the entry square is a hit.

The reference player keeps every placement of balls (``minballs..maxballs`` of them, weighted as
Tatham's generator draws them: a count uniformly, then the cells uniformly) that gives every answer
so far. It stops when all of them give the same answer to every ray (any of them is then a right
final answer) and otherwise fires the ray whose answer has the largest expected information (the
Shannon entropy of its answer over the weighted consistent placements; ties: the lowest ray number).
Boxes with at most :data:`EXACT_UP_TO` placements are played by exhaustive minimax instead (the
fewest rays in the worst case, exactly). Beyond :data:`ENUM_MAX` placements the enumeration is out
of reach and the reference simply fires every ray whose answer is not yet known, in order, which
is an upper bound on the rays needed rather than a strong player.
"""
from __future__ import annotations

from functools import lru_cache
from itertools import combinations
from math import comb

import numpy as np

#: ray results besides an exit number
HIT, REFLECT = -1, -2
#: boxes with at most this many placements are played by exhaustive minimax
EXACT_UP_TO = 40
#: boxes with more placements than this are not enumerated (the reference fires every ray)
ENUM_MAX = 20_000
#: (dx, dy) of up, right, down, left
DX, DY = (0, 1, 0, -1), (-1, 0, 1, 0)
_DX, _DY = np.array(DX), np.array(DY)


def n_rays(w: int, h: int) -> int:
    return 2 * (w + h)


def ray_start(w: int, h: int, ray: int) -> tuple[int, int, int]:
    """The edge square of ``ray`` in padded coordinates (x, y; the box is 1..w, 1..h) and its heading."""
    if ray < w:
        return ray + 1, 0, 2
    ray -= w
    if ray < h:
        return w + 1, ray + 1, 3
    ray -= h
    if ray < w:
        return w - ray, h + 1, 0
    ray -= w
    return 0, h - ray, 1


def edge_number(w: int, h: int, x: int, y: int) -> int:
    """The ray number of the edge square (x, y) (padded coordinates, not a corner)."""
    if y == 0:
        return x - 1
    if x == w + 1:
        return w + y - 1
    if y == h + 1:
        return 2 * w + h - x
    return 2 * w + 2 * h - y


def trace(w: int, h: int, balls, ray: int) -> int:
    """The result of ``ray`` with balls at the cells ``balls`` ((row, col) pairs, 0-based)."""
    occupied = {(c + 1, r + 1) for r, c in balls}
    x, y, d = ray_start(w, h, ray)

    def ball(dx_side: int) -> bool:
        fx, fy = x + DX[d], y + DY[d]
        if dx_side:
            s = (d + dx_side) % 4
            fx, fy = fx + DX[s], fy + DY[s]
        return (fx, fy) in occupied

    if ball(0):
        return HIT
    if ball(-1) or ball(1):
        return REFLECT
    x, y = x + DX[d], y + DY[d]
    for _ in range(8 * (w + 2) * (h + 2)):
        if x in (0, w + 1) or y in (0, h + 1):
            out = edge_number(w, h, x, y)
            return REFLECT if out == ray else out
        if ball(0):
            return HIT
        if ball(-1):
            d = (d + 1) % 4
        elif ball(1):
            d = (d + 3) % 4
        else:
            x, y = x + DX[d], y + DY[d]
    raise RuntimeError("a ray went round forever")  # impossible: ray paths are reversible


def signature(w: int, h: int, balls) -> tuple[int, ...]:
    """Every ray's result: two placements with one signature cannot be told apart."""
    return tuple(trace(w, h, balls, r) for r in range(n_rays(w, h)))


def n_placements(w: int, h: int, lo: int, hi: int) -> int:
    return sum(comb(w * h, k) for k in range(lo, hi + 1))


def _trace_all(boards: np.ndarray, w: int, h: int, ray: int) -> np.ndarray:
    """``trace`` of one ray for many padded boards at once (N, h+2, w+2)."""
    n = len(boards)
    x0, y0, d0 = ray_start(w, h, ray)
    out = np.full(n, -3, np.int16)
    idx = np.arange(n)

    def look(xs, ys, ds, side, rows):
        fx, fy = xs + _DX[ds], ys + _DY[ds]
        if side:
            s = (ds + side) % 4
            fx, fy = fx + _DX[s], fy + _DY[s]
        return boards[rows, fy, fx]

    xs, ys, ds = np.full(n, x0), np.full(n, y0), np.full(n, d0)
    hit = look(xs, ys, ds, 0, idx)
    refl = ~hit & (look(xs, ys, ds, -1, idx) | look(xs, ys, ds, 1, idx))
    out[hit], out[refl] = HIT, REFLECT
    live = np.flatnonzero(~hit & ~refl)
    xs, ys, ds = xs[live] + DX[d0], ys[live] + DY[d0], ds[live]
    for _ in range(8 * (w + 2) * (h + 2)):
        if len(live) == 0:
            return out
        edge = (xs == 0) | (xs == w + 1) | (ys == 0) | (ys == h + 1)
        if edge.any():
            ex, ey = xs[edge], ys[edge]
            num = np.where(ey == 0, ex - 1, np.where(ex == w + 1, w + ey - 1,
                                                     np.where(ey == h + 1, 2 * w + h - ex, 2 * w + 2 * h - ey)))
            out[live[edge]] = np.where(num == ray, REFLECT, num)
            keep = ~edge
            live, xs, ys, ds = live[keep], xs[keep], ys[keep], ds[keep]
        hit = look(xs, ys, ds, 0, live)
        out[live[hit]] = HIT
        keep = ~hit
        live, xs, ys, ds = live[keep], xs[keep], ys[keep], ds[keep]
        left = look(xs, ys, ds, -1, live)
        right = ~left & look(xs, ys, ds, 1, live)
        move = ~left & ~right
        ds = np.where(left, (ds + 1) % 4, np.where(right, (ds + 3) % 4, ds))
        xs = xs + np.where(move, _DX[ds], 0)
        ys = ys + np.where(move, _DY[ds], 0)
    raise RuntimeError("a ray went round forever")


@lru_cache(maxsize=4)
def table(w: int, h: int, lo: int, hi: int) -> tuple[list[tuple], np.ndarray, np.ndarray]:
    """Every placement (sorted cell indices r*w+c), its results for every ray (N, R) and its weight."""
    cells = w * h
    placements, weights = [], []
    for k in range(lo, hi + 1):
        for combo in combinations(range(cells), k):
            placements.append(combo)
            weights.append(1.0 / comb(cells, k))
    boards = np.zeros((len(placements), h + 2, w + 2), bool)
    for i, combo in enumerate(placements):
        for cell in combo:
            boards[i, cell // w + 1, cell % w + 1] = True
    results = np.stack([_trace_all(boards, w, h, r) for r in range(n_rays(w, h))], axis=1)
    return placements, results, np.asarray(weights) / sum(weights)


def known_rays(w: int, h: int, history) -> set[int]:
    """The rays whose result is known: those fired and the edge squares they came out of."""
    out = set()
    for ray, result in history:
        out.add(ray)
        if result >= 0:
            out.add(result)
    return out


def consistent(w: int, h: int, lo: int, hi: int, history) -> np.ndarray:
    _, results, _ = table(w, h, lo, hi)
    keep = np.ones(len(results), bool)
    for ray, result in history:
        keep &= results[:, ray] == result
    return np.flatnonzero(keep)


def _settled(results: np.ndarray, alive: np.ndarray) -> bool:
    return bool((results[alive] == results[alive[0]]).all())


def greedy_ray(results: np.ndarray, weights: np.ndarray, alive: np.ndarray, known: set[int]) -> int:
    """The unknown ray whose answer has the largest entropy over the weighted consistent placements."""
    best, best_ray = -1.0, -1
    wts = weights[alive]
    total = wts.sum()
    for ray in range(results.shape[1]):
        if ray in known:
            continue
        vals = results[alive, ray].astype(np.int64) + 2
        mass = np.bincount(vals, wts)
        p = mass[mass > 0] / total
        ent = round(float(-(p * np.log(p)).sum()), 9)
        if ent > best:
            best, best_ray = ent, ray
    return best_ray


@lru_cache(maxsize=100_000)
def _exact(key: tuple, alive: frozenset) -> tuple[int, int]:
    """(the fewest further rays that always settle ``alive``, the first such ray; -1 when settled)."""
    _, results, _ = table(*key)
    idx = np.array(sorted(alive))
    if _settled(results, idx):
        return 0, -1
    best, best_ray = 1 << 30, -1
    for ray in range(results.shape[1]):
        col = results[idx, ray]
        parts: dict[int, list] = {}
        for i, v in zip(idx.tolist(), col.tolist(), strict=True):
            parts.setdefault(v, []).append(i)
        if len(parts) == 1:
            continue
        cost = 1 + max(_exact(key, frozenset(p))[0] for p in parts.values())
        if cost < best:
            best, best_ray = cost, ray
    return best, best_ray


def exact_minimax(w: int, h: int, lo: int, hi: int) -> int:
    """The fewest rays that always settle the box (exhaustive game-tree search; tiny boxes only)."""
    return _exact((w, h, lo, hi), frozenset(range(len(table(w, h, lo, hi)[0]))))[0]


def play(w: int, h: int, lo: int, hi: int, balls, history=()) -> list[int]:
    """The reference player's rays from ``history`` ((ray, result) pairs) for the hidden ``balls``; the
    final answer (the hidden balls, or any placement with their signature) comes after them."""
    hist = list(history)
    known = known_rays(w, h, hist)
    out: list[int] = []
    total = n_placements(w, h, lo, hi)
    if total > ENUM_MAX:
        for ray in range(n_rays(w, h)):
            if ray not in known:
                result = trace(w, h, balls, ray)
                out.append(ray)
                known |= {ray} | ({result} if result >= 0 else set())
        return out
    _, results, weights = table(w, h, lo, hi)
    alive = consistent(w, h, lo, hi, hist)
    while len(alive) and not _settled(results, alive):
        if total <= EXACT_UP_TO:
            ray = _exact((w, h, lo, hi), frozenset(alive.tolist()))[1]
        else:
            ray = greedy_ray(results, weights, alive, known)
        result = trace(w, h, balls, ray)
        out.append(ray)
        known |= {ray} | ({result} if result >= 0 else set())
        alive = alive[results[alive, ray] == result]
    return out
