"""Exact plane geometry of Untangle placements (docs/games.md, Untangle): integer orientation tests only.

A placement is a list of integer points ``(x, y)``; an edge joins two of them by a straight segment.
The faults are checked in a fixed order and the first one found is named with what it involves:

1. ``points_coincide``: two points on the same spot;
2. ``edges_overlap``: two edges on one line sharing a stretch of positive length;
3. ``edge_through_point``: an edge passes through a point that is not one of its ends;
4. ``edges_cross``: two edges meet at a point inside both.

Once 1-3 hold, two edges without a common end can only meet by crossing (4), and two edges with a
common end meet nowhere else, so a placement free of all four is a crossing-free drawing. Every
test is a sign of an integer determinant: no rounding anywhere.
"""
from __future__ import annotations

import numpy as np

RULES = ("points_coincide", "edges_overlap", "edge_through_point", "edges_cross")


def orient(a, b, c) -> int:
    """The sign of the turn a -> b -> c: +1 left, -1 right, 0 on one line."""
    v = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
    return (v > 0) - (v < 0)


def inside(a, b, p) -> bool:
    """Whether ``p`` lies on segment a-b strictly between its ends (a != b)."""
    if orient(a, b, p) != 0 or tuple(p) in (tuple(a), tuple(b)):
        return False
    return min(a[0], b[0]) <= p[0] <= max(a[0], b[0]) and min(a[1], b[1]) <= p[1] <= max(a[1], b[1])


def _span(a, b) -> tuple[int, int]:
    """The segment's extent along its line: x unless the line is vertical."""
    if a[0] != b[0]:
        return min(a[0], b[0]), max(a[0], b[0])
    return min(a[1], b[1]), max(a[1], b[1])


def overlap(a, b, c, d) -> bool:
    """Whether segments a-b and c-d (each of positive length) lie on one line and share a stretch
    of positive length."""
    if orient(a, b, c) != 0 or orient(a, b, d) != 0:
        return False
    if (a[0] == b[0]) != (c[0] == d[0]):
        return False  # pragma: no cover - collinear segments are both vertical or neither
    lo1, hi1 = _span(a, b)
    lo2, hi2 = _span(c, d)
    return max(lo1, lo2) < min(hi1, hi2)


def proper_cross(a, b, c, d) -> bool:
    """Whether segments a-b and c-d cross at a point inside both (no three of the points on a line)."""
    return orient(a, b, c) * orient(a, b, d) < 0 and orient(c, d, a) * orient(c, d, b) < 0


def meet(a, b, c, d) -> bool:
    """Whether segments a-b and c-d share any point (touching counts)."""
    o1, o2, o3, o4 = orient(a, b, c), orient(a, b, d), orient(c, d, a), orient(c, d, b)
    if o1 * o2 < 0 and o3 * o4 < 0:
        return True
    return (any(tuple(p) == tuple(q) for p in (a, b) for q in (c, d)) or inside(a, b, c) or inside(a, b, d)
            or inside(c, d, a) or inside(c, d, b))


def first_fault(points, edges, skip=frozenset()) -> dict | None:
    """The first fault of the placement in the order of :data:`RULES` (rules in ``skip`` are not
    checked), as ``{"rule": code, "points": [...], "edges": [[a, b], ...]}``; None when the
    placement is crossing-free."""
    pts = [tuple(p) for p in points]
    if "points_coincide" not in skip:
        seen: dict = {}
        for i, p in enumerate(pts):
            if p in seen:
                return {"rule": "points_coincide", "points": [seen[p], i], "edges": []}
            seen[p] = i
    if "edges_overlap" not in skip:
        for i, (a, b) in enumerate(edges):
            for c, d in edges[i + 1:]:
                if pts[a] != pts[b] and pts[c] != pts[d] and overlap(pts[a], pts[b], pts[c], pts[d]):
                    return {"rule": "edges_overlap", "points": [], "edges": [[a, b], [c, d]]}
    if "edge_through_point" not in skip:
        for a, b in edges:
            if pts[a] == pts[b]:
                continue
            for p, q in enumerate(pts):
                if p != a and p != b and inside(pts[a], pts[b], q):
                    return {"rule": "edge_through_point", "points": [p], "edges": [[a, b]]}
    if "edges_cross" not in skip:
        for i, (a, b) in enumerate(edges):
            for c, d in edges[i + 1:]:
                if len({a, b, c, d}) == 4 and proper_cross(pts[a], pts[b], pts[c], pts[d]):
                    return {"rule": "edges_cross", "points": [], "edges": [[a, b], [c, d]]}
    return None


def crossings(points, edges) -> int:
    """The number of pairs of edges that meet anywhere but at an end they share (vectorised:
    shown after every interactive move)."""
    m = len(edges)
    if m < 2:
        return 0
    p = np.asarray(points, np.int64)
    e = np.asarray(edges, np.int64)
    i, j = np.triu_indices(m, 1)
    a, b, c, d = p[e[i, 0]], p[e[i, 1]], p[e[j, 0]], p[e[j, 1]]

    def orn(u, v, w):
        return np.sign((v[:, 0] - u[:, 0]) * (w[:, 1] - u[:, 1]) - (v[:, 1] - u[:, 1]) * (w[:, 0] - u[:, 0]))

    def on(u, v, w):  # w on the closed segment u-v (collinear already known)
        return ((np.minimum(u[:, 0], v[:, 0]) <= w[:, 0]) & (w[:, 0] <= np.maximum(u[:, 0], v[:, 0]))
                & (np.minimum(u[:, 1], v[:, 1]) <= w[:, 1]) & (w[:, 1] <= np.maximum(u[:, 1], v[:, 1])))

    o1, o2, o3, o4 = orn(a, b, c), orn(a, b, d), orn(c, d, a), orn(c, d, b)
    general = (o1 * o2 < 0) & (o3 * o4 < 0)
    touch = ((o1 == 0) & on(a, b, c)) | ((o2 == 0) & on(a, b, d)) | ((o3 == 0) & on(c, d, a)) | ((o4 == 0) & on(c, d, b))
    hit = general | touch
    shared = (e[i, 0] == e[j, 0]) | (e[i, 0] == e[j, 1]) | (e[i, 1] == e[j, 0]) | (e[i, 1] == e[j, 1])
    if shared.any():
        # edges with a common end meet there; they count only if they also share a stretch
        s = np.flatnonzero(shared)
        hit[s] = [overlap(a[k].tolist(), b[k].tolist(), c[k].tolist(), d[k].tolist()) for k in s]
    return int(hit.sum())


def untangled(points, edges) -> bool:
    """Whether :func:`first_fault` finds nothing, decided with numpy at once: no two points on one
    spot, no pair of edges meeting but at a shared end (:func:`crossings`), no point strictly inside
    an edge."""
    pts = [tuple(p) for p in points]
    if len(set(pts)) < len(pts):
        return False
    if crossings(pts, edges):
        return False
    if not len(edges):
        return True
    p = np.asarray(pts, np.int64)
    e = np.asarray(edges, np.int64)
    a, b = p[e[:, 0]][:, None, :], p[e[:, 1]][:, None, :]
    q = p[None, :, :]
    cross = (b[..., 0] - a[..., 0]) * (q[..., 1] - a[..., 1]) - (b[..., 1] - a[..., 1]) * (q[..., 0] - a[..., 0])
    within = ((np.minimum(a[..., 0], b[..., 0]) <= q[..., 0]) & (q[..., 0] <= np.maximum(a[..., 0], b[..., 0]))
              & (np.minimum(a[..., 1], b[..., 1]) <= q[..., 1]) & (q[..., 1] <= np.maximum(a[..., 1], b[..., 1])))
    ends = (np.arange(len(pts))[None, :] == e[:, 0:1]) | (np.arange(len(pts))[None, :] == e[:, 1:2])
    return not ((cross == 0) & within & ~ends).any()


def fault_index(points, edges) -> int:
    """The index in :data:`RULES`, plus one, of the first fault :func:`first_fault` finds (0 when
    the placement is crossing-free), computed by the compiled :func:`.kernel.fault` (for the
    generator and the reference solution, which test many placements)."""
    from .kernel import fault

    p = np.asarray(points, np.int64).reshape(-1, 2)
    e = np.asarray(edges, np.int64).reshape(-1, 2)
    return int(fault(np.ascontiguousarray(p[:, 0]), np.ascontiguousarray(p[:, 1]), np.ascontiguousarray(e[:, 0]),
                     np.ascontiguousarray(e[:, 1]), len(e), False))
