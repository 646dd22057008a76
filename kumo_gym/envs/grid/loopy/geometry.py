"""Loopy's geometry on the square tiling: faces (r, c) for 0 <= r < H, 0 <= c < W; dots (r, c) for
0 <= r <= H, 0 <= c <= W (face (r, c) has the dots (r, c), (r, c + 1), (r + 1, c), (r + 1, c + 1) at its
corners); an edge is a sorted pair of neighbouring dots. The generator's loops are the boundary of a
random region of faces grown one face at a time."""
from __future__ import annotations

import numpy as np

Cell = tuple[int, int]
#: how likely a face joins the region, by how many region faces are round it
WEIGHT = (0, 16.0, 4.0, 1.0, 0.5, 0.25, 0.25, 0.25, 0.25)
#: the eight neighbours of a face, in turn round it (clockwise from the one above)
RING = ((-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1))


def face_sides(r: int, c: int) -> list[tuple[Cell, Cell]]:
    """The four sides of face (r, c) as dot pairs: top, right, bottom, left."""
    return [((r, c), (r, c + 1)), ((r, c + 1), (r + 1, c + 1)), ((r + 1, c), (r + 1, c + 1)), ((r, c), (r + 1, c))]


def boundary(inside: np.ndarray) -> set[tuple[Cell, Cell]]:
    """The sides between a face inside the region and one outside it (or off the grid)."""
    H, W = inside.shape
    at = lambda r, c: bool(inside[r, c]) if 0 <= r < H and 0 <= c < W else False
    out = set()
    for r in range(H + 1):
        for c in range(W + 1):
            if c < W and at(r - 1, c) != at(r, c):
                out.add(((r, c), (r, c + 1)))
            if r < H and at(r, c - 1) != at(r, c):
                out.add(((r, c), (r + 1, c)))
    return out


def clues_of(H: int, W: int, edges: set) -> list[list[int]]:
    """Each face's number of sides on the loop."""
    return [[sum(s in edges for s in face_sides(r, c)) for c in range(W)] for r in range(H)]


def _joins(inside: np.ndarray, r: int, c: int) -> int:
    """How many of the eight faces round face (r, c), outside the region, are in it, when the face may
    join it with the boundary staying one simple loop (else 0): those faces form one unbroken run
    holding a side neighbour (so the region stays connected and gains no hole; a corner face in the
    run then shares a side with another face of it, so the region never meets itself at a corner
    only, and the loop never visits a dot twice)."""
    H, W = inside.shape
    ring = [0 <= r + dr < H and 0 <= c + dc < W and bool(inside[r + dr, c + dc]) for dr, dc in RING]
    runs = sum(ring[i] and not ring[i - 1] for i in range(8))
    return sum(ring) if runs == 1 and any(ring[0::2]) else 0


def random_region(rng: np.random.Generator, H: int, W: int, share: float) -> np.ndarray:
    """A random region of about ``share`` of the faces whose boundary is one simple loop: one face,
    then faces that keep it so (:func:`_joins`), those touching the fewest region faces first (a
    winding loop, as Tatham's), until the share is reached or no face can join."""
    inside = np.zeros((H, W), bool)
    r, c = int(rng.integers(H)), int(rng.integers(W))
    target, count, score = max(1, round(share * H * W)), 1, {}
    while True:
        inside[r, c] = True
        score.pop((r, c), None)
        for dr, dc in RING:  # only the faces round the new one can change
            x = (r + dr, c + dc)
            if 0 <= x[0] < H and 0 <= x[1] < W and not inside[x]:
                score[x] = _joins(inside, *x)
        cand = [x for x in sorted(score) if score[x]]
        if count >= target or not cand:
            return inside
        weight = np.asarray([WEIGHT[score[x]] for x in cand])
        r, c = cand[int(rng.choice(len(cand), p=weight / weight.sum()))]
        count += 1
