"""The numba kernel of :func:`geometry.random_tiling` (the walk of 25 steps per cell was a
fifth of Magnets' generation in Python; imported on first use only).

Cells hold the codes of ``CODES``; the kernel runs the walk the caller drew: at each step the 2x2
block at ``at[k]`` (its top-left cell, -1 when none fits) turns two side-by-side dominoes a
quarter, then, on an odd grid, the domino beyond the single cell in direction ``slides[k]``
slides into it. One function, no allocation, no reference counting, a light compile.
"""
from numba import types as nt

from ...solvers.native import kernel

#: a cell's code is its index here: left, right, top and bottom halves, the single cell
CODES = "LRTB*"
_L, _R, _T, _B, _STAR = 0, 1, 2, 3, 4
#: (cells, at, slides, H, W) -> None
WALK_SIG = nt.void(nt.int8[::1], nt.int64[::1], nt.int64[::1], nt.int64, nt.int64)

@kernel(WALK_SIG, error_model="numpy", _nrt=False)
def walk(f, at, slides, H, W):
    """Run the walk on ``f`` (row-major codes) in place; ``slides`` empty on an even grid."""
    sr = H - 1
    sc = W - 1
    for k in range(len(at)):
        i = at[k]
        if i >= 0:
            if f[i] == _L and f[i + W] == _L:
                f[i] = _T
                f[i + 1] = _T
                f[i + W] = _B
                f[i + W + 1] = _B
            elif f[i] == _T and f[i + 1] == _T:
                f[i] = _L
                f[i + W] = _L
                f[i + 1] = _R
                f[i + W + 1] = _R
        if len(slides):
            m = slides[k]
            dr, dc, near, far = 0, 1, _L, _R
            if m == 1:
                dr, dc, near, far = 0, -1, _R, _L
            elif m == 2:
                dr, dc, near, far = 1, 0, _T, _B
            elif m == 3:
                dr, dc, near, far = -1, 0, _B, _T
            ar, ac, br, bc = sr + dr, sc + dc, sr + 2 * dr, sc + 2 * dc
            if 0 <= br < H and 0 <= bc < W and f[ar * W + ac] == near and f[br * W + bc] == far:
                f[sr * W + sc] = near
                f[ar * W + ac] = far
                f[br * W + bc] = _STAR
                sr = br
                sc = bc
