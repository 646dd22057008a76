"""Loopy on a :class:`~.tiling.Tiling` (the triangular, honeycomb and other grids): the answer row, the loop
checks, the SAT model with its one-loop cuts, the generator's random loops, the text form of the
puzzle and the drawings (docs/grid.md "Loopy").

The answer is one row with an entry per dot (dot d is answer cell (0, d)): the loop's dots numbered
1..L in order along it, -1 off the loop, as on the square grid.
"""
from __future__ import annotations

import math

import numpy as np

from ....solvers.engine import Encoding
from ....solvers.sat import Formula
from ...raster import INK, disc, draw_text
from .tiling import Tiling

NONE = -1
#: how likely a face joins the region, by how many of its sides it shares with the region
WEIGHT = (0.0, 16.0, 4.0, 1.0, 0.5, 0.25, 0.25, 0.25, 0.25)


# ---- the answer row -----------------------------------------------------------------------------
def loop_numbers(t: Tiling, row: list) -> tuple[int, list[int], dict, dict]:
    """How a numbered row forms a loop: its length L, the dots whose number repeats or exceeds L,
    ``one`` (number -> its dot, for the numbers used once) and ``step`` (k -> whether k and k + 1,
    or L and 1, are dots joined by an edge)."""
    at: dict[int, list[int]] = {}
    for d, v in enumerate(row):
        if v > 0:
            at.setdefault(v, []).append(d)
    L = sum(map(len, at.values()))
    bad = sorted(d for v, ds in at.items() if v > L or len(ds) > 1 for d in ds)
    one = {k: ds[0] for k, ds in at.items() if len(ds) == 1 and k <= L}
    step = {k: k in one and k % L + 1 in one and one[k % L + 1] in t.neighbours[one[k]] for k in range(1, L + 1)}
    return L, bad, one, step


def loop_edges(t: Tiling, row: list) -> set[int]:
    """The edges a numbered row draws: k to k + 1 and L to 1 where those dots are joined by an edge."""
    where = {v: d for d, v in enumerate(row) if isinstance(v, int) and not isinstance(v, bool) and v > 0}
    out = set()
    for k, a in where.items():
        b = where.get(k % len(where) + 1)
        if b is not None and (a, b) in t.edge_index:
            out.add(t.edge_index[a, b])
    return out


def number_loop(t: Tiling, edges) -> list[int]:
    """The answer row of a set of edges: each loop numbered on from the last, from its lowest dot towards
    that dot's lower neighbour on it; all -1 unless every dot on an edge has exactly two."""
    adj: dict[int, list[int]] = {}
    for e in sorted(edges):
        a, b = t.edges[e]
        adj.setdefault(a, []).append(b)
        adj.setdefault(b, []).append(a)
    row = [NONE] * len(t.dots)
    if any(len(n) != 2 for n in adj.values()):
        return row
    k = 0
    for start in sorted(adj):
        if row[start] != NONE:
            continue
        prev, cur = start, min(adj[start])
        k += 1
        row[start] = k
        while cur != start:
            k += 1
            row[cur] = k
            prev, cur = cur, next(x for x in adj[cur] if x != prev)
    return row


def face_counts(t: Tiling, edges: set[int]) -> list[int]:
    """Each face's number of sides on the loop."""
    return [sum(e in edges for e in es) for es in t.face_edges]


def components(t: Tiling, edges) -> list[set[int]]:
    """The dots of each connected piece of a set of edges."""
    parent: dict[int, int] = {}

    def find(x: int) -> int:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for e in edges:
        a, b = t.edges[e]
        parent[find(a)] = find(b)
    out: dict[int, set[int]] = {}
    for x in list(parent):
        out.setdefault(find(x), set()).add(x)
    return sorted(out.values(), key=min)


# ---- the SAT model ------------------------------------------------------------------------------
def rules(t: Tiling) -> Encoding:
    """A variable per edge and "on the loop" per dot (two of its edges when on, none when off), per face a
    counter of its sides on the loop (the clues are assumptions on it) and the one-loop rule as lazy
    cuts: for a closed loop S of a model that is not the only one, every solution with all of S's dots on
    the loop either leaves S by an edge or has another piece's dot off it."""
    f = Formula()
    edge = [f.var(("edge", i)) for i in range(len(t.edges))]
    on = [f.var(("on", d)) for d in range(len(t.dots))]
    for d, es in enumerate(t.dot_edges):
        inc = [edge[e] for e in es]
        f.extend([[-i, on[d]] for i in inc])
        f.exactly(inc, 2, guard=on[d])
    f.add(on)
    count = [f.count([edge[e] for e in es]) for es in t.face_edges]
    lits = np.asarray(edge, np.int64)

    def drawn(value: np.ndarray) -> list[int]:
        return np.flatnonzero(value[lits] > 0).tolist()

    def cuts(value: np.ndarray) -> list[list[int]]:
        comps = components(t, drawn(value))
        if len(comps) <= 1:
            return []
        out = []
        for i, dots in enumerate(comps):
            clause = [-on[d] for d in sorted(dots)]
            clause += [edge[e] for d in sorted(dots) for e in t.dot_edges[d] if not set(t.edges[e]) <= dots]
            other = comps[(i + 1) % len(comps)]
            clause.append(-on[min(other)])
            out.append(clause)
        return out

    return Encoding(f, np.asarray(edge, np.int32), lambda value: [number_loop(t, drawn(value))], cuts=cuts,
                    cut_rule="R1", extra={"count": count})


# ---- the generator's loops ----------------------------------------------------------------------
def _shared(t: Tiling, inside: list[bool], f: int) -> list[bool]:
    """Per side of face f (in turn round it), whether the face across it is in the region."""
    return [any(g != f and inside[g] for g in t.edge_faces[e]) for e in t.face_edges[f]]


def _joins(t: Tiling, inside: list[bool], touched: list[int], f: int) -> int:
    """How many sides face f shares with the region when it may join it with the region's boundary
    staying one simple loop (else 0): the shared sides form one unbroken run round f, and no other
    corner of f touches the region (so the region never meets itself at a corner only and gains no
    hole)."""
    sides = _shared(t, inside, f)
    n = len(sides)
    runs = sum(sides[i] and not sides[i - 1] for i in range(n))
    if runs != 1:
        return 0
    ds = t.faces[f]
    on_run = {ds[i] for i in range(n) if sides[i]} | {ds[(i + 1) % n] for i in range(n) if sides[i]}
    if any(touched[d] for d in ds if d not in on_run):
        return 0
    return sum(sides)


def random_region(rng: np.random.Generator, t: Tiling, share: float) -> list[bool]:
    """A random region of about ``share`` of the faces whose boundary is one simple loop: one face, then
    faces that keep it so (:func:`_joins`), those sharing the fewest sides with it first (a winding loop),
    until the share is reached or no face can join."""
    F = len(t.faces)
    inside, touched = [False] * F, [0] * len(t.dots)
    near = [sorted({g for d in ds for g in t.dot_faces[d]} - {f}) for f, ds in enumerate(t.faces)]
    f, target, count, score = int(rng.integers(F)), max(1, round(share * F)), 1, {}
    while True:
        inside[f] = True
        for d in t.faces[f]:
            touched[d] += 1
        score.pop(f, None)
        for g in near[f]:  # only the faces round the new one can change
            if not inside[g]:
                score[g] = _joins(t, inside, touched, g)
        cand = [g for g in sorted(score) if score[g]]
        if count >= target or not cand:
            return inside
        weight = np.asarray([WEIGHT[min(score[g], len(WEIGHT) - 1)] for g in cand])
        f = cand[int(rng.choice(len(cand), p=weight / weight.sum()))]
        count += 1


def boundary(t: Tiling, inside: list[bool]) -> set[int]:
    """The edges between a face of the region and one outside it (or the outside of the grid)."""
    return {e for e, fs in enumerate(t.edge_faces) if sum(inside[f] for f in fs) == 1}


# ---- text and pictures --------------------------------------------------------------------------
def describe(t: Tiling, clues: list[int]) -> str:
    """The puzzle as text: every dot with its position and neighbours, every face with its clue and its
    corners in turn (its sides join consecutive corners, and the last to the first)."""
    head = f"Dots ({len(t.dots)}; position (x, y): x grows to the right, y downwards; then the dots one edge away):"
    lines = [head]
    lines += [f"  dot {d}: ({x}, {y}) -> {' '.join(map(str, sorted(t.neighbours[d])))}"
              for d, (x, y) in enumerate(t.dots)]
    lines.append(f"Faces ({len(t.faces)}; clue, then the corner dots clockwise):")
    lines += [f"  face {f}: clue {'?' if clues[f] == NONE else clues[f]}; dots {' '.join(map(str, ds))}"
              for f, ds in enumerate(t.faces)]
    return "\n".join(lines)


def picture_text(t: Tiling, clues: list[int], edges: set[int]) -> str:
    """A character picture: dots as ``.`` (``o`` on the loop), the loop's edges in ``-``, ``/``, ``\\`` and
    ``|``, the clues at the faces' centres."""
    if t.kind in (1, 2):
        sx = sy = 2.0
    else:  # the shortest edge four characters across or two lines down (a character is about twice as tall)
        sx = 4 / min(math.hypot(*(u - v for u, v in zip(t.dots[a], t.dots[b]))) for a, b in t.edges)
        sy = sx / 2
    pos = [(round(x * sx), round(y * sy)) for x, y in t.dots]
    W, H = max(x for x, _ in pos) + 1, max(y for _, y in pos) + 1
    canvas = [[" "] * W for _ in range(H)]
    for e in sorted(edges):
        (ax, ay), (bx, by) = pos[t.edges[e][0]], pos[t.edges[e][1]]
        n = max(abs(bx - ax), abs(by - ay))
        dx, dy = abs(bx - ax), abs(by - ay)
        ch = "-" if dy * 2 < dx else "|" if dx * 2 < dy else "\\" if (bx - ax) * (by - ay) > 0 else "/"
        for i in range(1, n):
            canvas[round(ay + (by - ay) * i / n)][round(ax + (bx - ax) * i / n)] = ch
    for f, n in enumerate(clues):
        if n != NONE:
            cx, cy = t.centre(f)
            canvas[round(cy * sy)][round(cx * sx)] = str(n)
    on = {d for e in edges for d in t.edges[e]}
    for d, (x, y) in enumerate(pos):
        canvas[y][x] = "o" if d in on else "."
    return "\n".join("".join(r).rstrip() for r in canvas)


def picture_rgb(t: Tiling, clues: list[int], edges: set[int], marks: dict[int, tuple] | None = None) -> np.ndarray:
    """An image: grey edges, the loop's edges thick and blue, the clues at the faces' centres; ``marks``
    rings dots in a colour (the dots a verdict names)."""
    k = 24 / min(math.hypot((t.dots[a][0] - t.dots[b][0]) * t.unit[0], (t.dots[a][1] - t.dots[b][1]) * t.unit[1])
                 for a, b in t.edges)  # the shortest edge 24 pixels long
    ux, uy = t.unit[0] * k, t.unit[1] * k
    pad = 16
    Wp, Hp = int(max(x for x, _ in t.dots) * ux) + 2 * pad + 1, int(max(y for _, y in t.dots) * uy) + 2 * pad + 1
    img = np.full((Hp, Wp, 3), 255, np.uint8)
    at = lambda p: (pad + p[0] * ux, pad + p[1] * uy)

    def line(a, b, width: int, color) -> None:
        (ax, ay), (bx, by) = at(a), at(b)
        n = int(max(abs(bx - ax), abs(by - ay))) + 1
        for i in range(n + 1):
            x, y = ax + (bx - ax) * i / n, ay + (by - ay) * i / n
            r0, c0 = round(y) - width // 2, round(x) - width // 2
            img[max(r0, 0):r0 + width, max(c0, 0):c0 + width] = color

    for e, (a, b) in enumerate(t.edges):
        if e not in edges:
            line(t.dots[a], t.dots[b], 1, (170, 170, 170))
    for e in sorted(edges):
        a, b = t.edges[e]
        line(t.dots[a], t.dots[b], 3, (40, 90, 200))
    for f, n in enumerate(clues):
        if n != NONE:
            cx, cy = at(t.centre(f))
            draw_text(img, str(n), cy, cx, 2, INK)
    for d, p in enumerate(t.dots):
        x, y = at(p)
        if marks and d in marks:
            disc(img, x, y, 6, marks[d])
        disc(img, x, y, 2, INK)
    return img
