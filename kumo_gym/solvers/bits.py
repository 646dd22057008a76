"""Bit-mask helpers of the search kernels, written as plain Python so that one source serves a
kernel run as Python and its numba twin (:func:`kumo_gym.solvers.native.compiled`, or a callee of a
kernel module's entry point)."""


def popcount(x):
    """The number of set bits of a non-negative integer (one turn per set bit: cheap on the small
    candidate masks of the Sudoku searches)."""
    k = 0
    while x:
        x &= x - 1
        k += 1
    return k
