"""Single-line verifier bugs of the kind that survive rule-level tests: each sits at the last row,
the last column, the wrap-around of a loop, or one of two signs or operators. Each function plants
one with ``monkeypatch`` (restored when the test ends); tests/test_planted_bugs.py asserts that the
suites catch every one of them."""
from __future__ import annotations

import sys


def patch_everywhere(monkeypatch, original, replacement) -> int:
    """Replace ``original`` in every kumo_gym module that imported it by name."""
    n = 0
    for mod in list(sys.modules.values()):
        if getattr(mod, "__name__", "").startswith("kumo_gym"):
            for name, value in list(vars(mod).items()):
                if value is original:
                    monkeypatch.setattr(mod, name, replacement)
                    n += 1
    return n


def _filtered(monkeypatch, cls, drop) -> None:
    """``cls.rule_checks`` without the checks ``drop(self, instance, grid, check)`` names (as if
    the line making them were skipped)."""
    real = cls.rule_checks

    def weakened(self, instance, grid):
        return [ch for ch in real(self, instance, grid) if not drop(self, instance, grid, ch)]

    monkeypatch.setattr(cls, "rule_checks", weakened)


def keen_integer_division(monkeypatch) -> None:
    """Keen: a ``/`` cage checked with integer division (``hi // lo == target``), so a quotient
    that is not exact passes (5 and 2 meet a ``2/`` cage)."""
    from kumo_gym.envs.grid.keen import cages

    real = cages.cage_ok

    def floor_divide(op, target, vals):
        if op == "/" and len(vals) == 2:
            lo, hi = sorted(vals)
            return hi // lo == target
        return real(op, target, vals)

    assert patch_everywhere(monkeypatch, real, floor_divide) >= 1


def magnets_only_plus_plus(monkeypatch) -> None:
    """Magnets: only ``+ +`` neighbours forbidden; ``- -`` neighbours let through."""
    from kumo_gym.envs.grid import magnets

    _filtered(monkeypatch, magnets.MagnetsTask, lambda self, inst, g, ch: ch.rule == "R2" and not ch.ok
              and all(g[r][c] == -1 for r, c in ch.cells))


def tracks_last_column_boundary(monkeypatch) -> None:
    """Tracks: the connection check skips the boundary between the last two columns, so a
    one-sided bump into the last column passes."""
    from kumo_gym.envs.grid import tracks

    _filtered(monkeypatch, tracks.TracksTask, lambda self, inst, g, ch: ch.rule == "R2"
              and [c for _, c in ch.cells] == [self.dims(inst)[1] - 2, self.dims(inst)[1] - 1]
              and ch.cells[0][0] == ch.cells[1][0])


def pearl_no_wrap_step(monkeypatch) -> None:
    """Pearl: the step from the cell numbered L back to the cell numbered 1 is not checked, so an
    open path passes as a loop."""
    from kumo_gym.envs.grid import geometry

    real = geometry.loop_numbers

    def no_wrap(grid):
        L, bad, one, step = real(grid)
        if L:
            step[L] = bool(one.get(L) and one.get(1))
        return L, bad, one, step

    assert patch_everywhere(monkeypatch, real, no_wrap) >= 1


def range_last_row_adjacency(monkeypatch) -> None:
    """Range: adjacency of black cells not checked in the last row."""
    from kumo_gym.envs.grid import range as range_

    _filtered(monkeypatch, range_.RangeTask, lambda self, inst, g, ch: ch.rule == "R2" and ch.cells
              and all(r == self.dims(inst)[0] - 1 for r, _ in ch.cells))


#: env id -> the bug planted in its verifier
BUGS = {"kumo_gym/Keen-v0": keen_integer_division, "kumo_gym/Magnets-v0": magnets_only_plus_plus,
        "kumo_gym/Tracks-v0": tracks_last_column_boundary, "kumo_gym/Pearl-v0": pearl_no_wrap_step,
        "kumo_gym/Range-v0": range_last_row_adjacency}
