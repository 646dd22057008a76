"""Linear algebra over GF(2) with vectors as Python ints (bit i = coordinate i).

:func:`min_weight_solution` finds the fewest generators whose XOR is a target: Gaussian
elimination gives one solution and a basis of the null space (the combinations of generators
that XOR to zero); every solution is the particular one plus a null-space vector, so
enumerating the 2^k null-space vectors in Gray-code order (one XOR per step) finds the true
minimum. ``k`` is small for Tatham's boards (at most 8 on square Lights Out boards up to 10x10).
"""
from __future__ import annotations

from dataclasses import dataclass

#: null spaces larger than this are not enumerated (the result is then a solution, not the minimum)
MAX_NULLITY = 22


@dataclass(frozen=True)
class Elimination:
    """A reduced basis of the span of ``generators``: ``pivots[b] = (vector, combination)`` with
    highest set bit ``b``; ``null`` a basis of the null space (combinations XORing to 0)."""

    n: int
    pivots: dict
    null: tuple

    @property
    def rank(self) -> int:
        return len(self.pivots)

    @property
    def nullity(self) -> int:
        return len(self.null)


def eliminate(generators: list[int]) -> Elimination:
    """Gaussian elimination of ``generators`` (each an int) keeping track of combinations."""
    pivots: dict[int, tuple[int, int]] = {}
    null = []
    for i, g in enumerate(generators):
        v, comb = g, 1 << i
        while v:
            b = v.bit_length() - 1
            if b not in pivots:
                break
            pv, pc = pivots[b]
            v ^= pv
            comb ^= pc
        if v:
            pivots[v.bit_length() - 1] = (v, comb)
        else:
            null.append(comb)
    return Elimination(len(generators), pivots, tuple(null))


def particular(elim: Elimination, target: int) -> int | None:
    """A combination of generators XORing to ``target``, or None when there is none."""
    v, comb = target, 0
    while v:
        b = v.bit_length() - 1
        p = elim.pivots.get(b)
        if p is None:
            return None
        v ^= p[0]
        comb ^= p[1]
    return comb


def min_weight_solution(elim: Elimination, target: int) -> tuple[int | None, bool]:
    """``(x, exact)``: a combination with the fewest generators XORing to ``target`` (None when
    none exists); ``exact`` is False only when the null space was too large to enumerate."""
    x = particular(elim, target)
    if x is None:
        return None, True
    null = elim.null
    if len(null) > MAX_NULLITY:
        return x, False
    best, best_w = x, x.bit_count()
    cur = x
    for step in range(1, 1 << len(null)):
        cur ^= null[(step & -step).bit_length() - 1]  # Gray code: flip one basis vector per step
        w = cur.bit_count()
        if w < best_w:
            best, best_w = cur, w
    return best, True


def bits(x: int) -> list[int]:
    """The set coordinates of ``x``, ascending."""
    out = []
    while x:
        low = x & -x
        out.append(low.bit_length() - 1)
        x ^= low
    return out
