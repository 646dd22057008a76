"""Rectangles' own deduction (Tatham's ``rect_solver``): each number's candidate rectangles, narrowed
until every number keeps one; the generator's uniqueness test. The rules are in ``rect.py``."""
from __future__ import annotations

from ..regions import EMPTY, shapes

_OVER: dict = {}


def _masks_over(H: int, W: int, area: int, r: int, c: int) -> list[int]:
    """The cell bitmasks (bit ``r * W + c``) of every rectangle of ``area`` cells in an H x W
    grid that covers (r, c), kept per size, area and cell."""
    key = (H, W, area, r, c)
    out = _OVER.get(key)
    if out is None:
        out = []
        for h, w in shapes(area, H, W):
            base = sum(((1 << w) - 1) << (i * W) for i in range(h))
            for r0 in range(max(0, r - h + 1), min(r, H - h) + 1):
                for c0 in range(max(0, c - w + 1), min(c, W - w) + 1):
                    out.append(base << (r0 * W + c0))
        if len(_OVER) > 50_000:
            _OVER.clear()
        _OVER[key] = out
    return out


def deduce_division(grid: list[list[int]]) -> tuple[list[list[int]] | None, set[tuple[int, int]]]:
    """Tatham's uniqueness test of a Rect puzzle (his ``rect_solver``): ``(division, set())`` when
    deduction alone finds the division, else ``(None, cells)`` with the cells of the numbers it
    could not place. Each number keeps its candidate rectangles (its area, over it, no other
    number inside); repeatedly, cells that every candidate of a number covers are taken from the
    other numbers' candidates, and cells only one number can reach must lie in each of its
    candidates. Every step is sound, so when each number is left one candidate the division is
    the only one. Labels are the numbers' row-major indices (as :meth:`RectTask._formula` decodes)."""
    H, W = len(grid), len(grid[0])
    clues = [(r, c, v) for r, row in enumerate(grid) for c, v in enumerate(row) if v]
    numbers = 0
    for r, c, _ in clues:
        numbers |= 1 << (r * W + c)
    cands = []
    for r, c, n in clues:
        bit = 1 << (r * W + c)
        cands.append([m for m in _masks_over(H, W, n, r, c) if m & numbers == bit])
    full = (1 << (H * W)) - 1
    changed = all(cands)
    # per number: the cells all its candidates cover, and those some candidate covers (kept up
    # to date as candidates go)
    musts, unions = [], []
    for mine in cands:
        a, u = full, 0
        for m in mine:
            a &= m
            u |= m
        musts.append(a)
        unions.append(u)
    while changed:
        changed = False
        once = twice = taken = 0
        for u, a in zip(unions, musts):
            twice |= once & u
            once |= u
            taken |= a
        if once != full:
            break  # a cell no number reaches: no division at all
        single = once & ~twice
        for k, mine in enumerate(cands):
            others = taken & ~musts[k]
            only = unions[k] & single
            if not unions[k] & others and only & musts[k] == only:
                continue  # every candidate avoids the others' cells and covers the ones only it reaches
            keep = [m for m in mine if not m & others and m & only == only]
            if len(keep) != len(mine):
                cands[k] = keep
                changed = bool(keep)
                if not keep:
                    break
                a, u = full, 0
                for m in keep:
                    a &= m
                    u |= m
                musts[k], unions[k] = a, u
    open_ = {(r, c) for (r, c, _), mine in zip(clues, cands) if len(mine) != 1}
    if open_:
        return None, open_
    out = [[EMPTY] * W for _ in range(H)]
    for k, (m,) in enumerate(cands):
        while m:
            low = m & -m
            i = low.bit_length() - 1
            out[i // W][i % W] = k
            m ^= low
    return out, open_
