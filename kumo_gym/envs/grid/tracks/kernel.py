"""The numba kernel of Tracks' generator (imported on first generation only): a deduction
solver for the track, and the removal of given pieces while it still solves the puzzle (Tatham's
way; ``deduce.py`` drives it).

Each side of each cell (``4 * cell + d``, d: 0 up, 1 right, 2 down, 3 left) is unknown (0), a
connection (1) or none (2), a cell on the track (1), off it (2) or unknown (0). Repeatedly: a
cell with a connection is on the track; a track cell joins exactly two sides (two known: the
rest are none; only two possible: both are connections); a cell that cannot join two is off the
track and an off cell joins none; a row or column whose count is reached has no more track
cells, one that needs all its undecided cells has them all; a connection between two cells
already joined by the track would close a loop, so there is none. Every step holds in every
solution, so when no side is left unknown the track is the only one.

One function, no builtin calls, no allocation (the caller passes every buffer): one compile on
first use, cached on disk.
"""
from numba import types as nt

from ....solvers.native import kernel

_I64 = nt.int64[::1]
_RO = nt.Array(nt.int64, 1, "C", readonly=True)
#: (H, W, nbr, counts, sol, order, given, side, cell, dsf) -> see :func:`run`
RUN_SIG = nt.int64(nt.int64, nt.int64, _RO, _I64, _I64, _I64, _I64, _I64, _I64, _I64)


@kernel(RUN_SIG, error_model="numpy", _nrt=False)
def run(H, W, nbr, counts, sol, order, given, side, cell, dsf):
    """``nbr[4 * cell + d]``: the cell that side d faces, -1 off the grid (a table is less code to
    compile than the arithmetic); ``counts``: the H row counts, then the W column counts; ``sol``:
    each cell's sides in the solution (bit d), off-grid ends included; ``given`` (1: the cell's
    piece is shown) changes.

    Each cell of ``order`` in turn loses its piece, given back when the deduction then no longer
    solves the puzzle; with ``order`` empty, the deduction on ``given`` alone. Fewer givens never
    help the deduction, so a run of the order whose pieces all go at once would also go one by
    one: runs are tried, doubled after a success and halved after a failure (the same result in
    about half the rounds). Returns 1 when the final ``given`` is solved, 0 when the deduction
    gets stuck, -1 when it finds no track at all.
    Scratch: ``side`` (4 H W), ``cell``, ``dsf`` (H W)."""
    n, m = H * W, len(order)
    pos, size, block = 0, 1, 0  # pieces order[pos:pos + block] are off in this round
    while True:
        for i in range(n):  # the off-grid sides are known: the two ends, no others
            cell[i] = given[i]
            for d in range(4):
                side[4 * i + d] = 0 if nbr[4 * i + d] >= 0 and not given[i] else 1 if sol[i] >> d & 1 else 2
        for i in range(n):  # a given piece fixes its neighbours' facing sides too
            for d in range(4):
                if given[i] and nbr[4 * i + d] >= 0:
                    side[4 * nbr[4 * i + d] + (d + 2) % 4] = side[4 * i + d]
        ok, changed = True, True
        while ok and changed:
            changed = False
            for i in range(n):
                yes, unknown = 0, 0
                for d in range(4):
                    yes += side[4 * i + d] == 1
                    unknown += side[4 * i + d] == 0
                if yes > 2 or (yes == 1 and unknown == 0) or (cell[i] == 2 and yes > 0):
                    ok = False
                if cell[i] == 0 and (yes > 0 or yes + unknown < 2):
                    cell[i] = 1 if yes > 0 else 2
                    changed = True
                if cell[i] == 1 and yes + unknown < 2:
                    ok = False
                if unknown and (cell[i] == 2 or yes == 2 or (cell[i] == 1 and yes + unknown == 2)):
                    value = 2 if cell[i] == 2 or yes == 2 else 1
                    for d in range(4):
                        if side[4 * i + d] == 0:
                            side[4 * i + d] = side[4 * nbr[4 * i + d] + (d + 2) % 4] = value
                    changed = True
            for line in range(H + W):  # rows, then columns
                on, unknown = 0, 0
                for k in range(W if line < H else H):
                    i = line * W + k if line < H else k * W + line - H
                    on += cell[i] == 1
                    unknown += cell[i] == 0
                if on > counts[line] or on + unknown < counts[line]:
                    ok = False
                elif unknown and (on == counts[line] or on + unknown == counts[line]):
                    for k in range(W if line < H else H):
                        i = line * W + k if line < H else k * W + line - H
                        if cell[i] == 0:
                            cell[i] = 2 if on == counts[line] else 1
                    changed = True
            if changed or not ok:
                continue  # the local rules first: the loop rule only when they are stuck
            for i in range(n):  # the track's pieces so far: a connection inside one would close a loop
                dsf[i] = i
            for i in range(n):
                for d in range(1, 3):
                    if side[4 * i + d] == 1 and nbr[4 * i + d] >= 0:
                        a, b = i, nbr[4 * i + d]
                        while dsf[a] != a:
                            a = dsf[a]
                        while dsf[b] != b:
                            b = dsf[b]
                        dsf[a] = b
            for i in range(n):
                for d in range(1, 3):
                    if side[4 * i + d] == 0:
                        a, b = i, nbr[4 * i + d]
                        while dsf[a] != a:
                            a = dsf[a]
                        while dsf[b] != b:
                            b = dsf[b]
                        if a == b:
                            side[4 * i + d] = side[4 * nbr[4 * i + d] + (d + 2) % 4] = 2
                            changed = True
        result = 1 if ok else -1
        for i in range(4 * n):
            if side[i] == 0 and ok:
                result = 0
        if block == 0 and (result != 1 or m == 0):
            return result
        if block and result == 1:  # gone for good: the next block twice as long
            pos += block
            size = 2 * block
        elif block:  # back: a block of one is kept, a longer one is tried again at half its length
            for q in range(pos, pos + block):
                given[order[q]] = 1
            pos += block == 1
            size = block // 2 if block > 1 else 1
        if pos >= m:
            return 1
        block = min(size, m - pos)
        for q in range(pos, pos + block):
            given[order[q]] = 0
