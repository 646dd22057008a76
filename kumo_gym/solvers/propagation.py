"""Unit propagation and failed-literal probing over a clause array, compiled with numba.

These are the deduction steps of the grid generation engine (docs/specs/grid_puzzles.md §8 "Grade"):
a puzzle whose clues let propagation (grade 0) or failed-literal probing (grade 1)
fix every answer variable is unique without any search, so most clue-removal tests never reach
the SAT solver.

A CNF is held as flat arrays (:class:`ClauseArrays`): ``lits`` (every clause's literals, one
after the other), ``starts`` (clause k is ``lits[starts[k]:starts[k+1]]``) and an occurrence
index by literal. Propagation keeps, per clause, the count of its false literals; a clause whose
count reaches its size minus one is scanned for the last free literal (counter-based propagation:
simple, and undoing a probe is decrementing the same counters). Values are int8: 1 true,
-1 false, 0 free, indexed by variable (index 0 unused).

The kernels compile on first use and are cached on disk (``cache=True``), so ``import kumo_gym``
never compiles anything.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

_KERNELS = None
_NONE = np.zeros(0, np.int64)


def _kernels():
    """Compile (or load from numba's cache) the kernels on first use."""
    global _KERNELS
    if _KERNELS is None:
        from . import _propagation_kernels as k

        _KERNELS = k
    return _KERNELS


@dataclass(frozen=True)
class ClauseArrays:
    """A CNF as arrays, built once per formula (see the module docstring)."""

    n_vars: int
    lits: np.ndarray      # int64, all literals
    starts: np.ndarray    # int64, n_clauses + 1
    units: np.ndarray     # int64, the literals of one-literal clauses
    empty: bool           # some clause is empty (the formula is unsatisfiable)

    @classmethod
    def from_clauses(cls, clauses, n_vars: int) -> ClauseArrays:
        sizes = np.fromiter((len(c) for c in clauses), np.int64, len(clauses))
        starts = np.zeros(len(sizes) + 1, np.int64)
        np.cumsum(sizes, out=starts[1:])
        lits = np.fromiter((lit for c in clauses for lit in c), np.int64, int(starts[-1]))
        top = max(int(n_vars), int(np.abs(lits).max()) if len(lits) else 0)
        units = np.asarray([c[0] for c in clauses if len(c) == 1], np.int64)
        return cls(top, lits, starts, units, bool((sizes == 0).any()))

    @classmethod
    def exactly_one(cls, groups, n_vars: int) -> ClauseArrays:
        """The CNF "exactly one literal of each group is true", pairwise (no auxiliary variables),
        straight into arrays: for searches that test many small formulas (Dominosa's generator)."""
        lits: list[int] = []
        sizes: list[int] = []
        for g in groups:
            lits += g
            sizes.append(len(g))
            for i, x in enumerate(g):
                for y in g[i + 1:]:
                    lits += (-x, -y)
                    sizes.append(2)
        starts = np.zeros(len(sizes) + 1, np.int64)
        np.cumsum(sizes, out=starts[1:])
        units = np.asarray([g[0] for g in groups if len(g) == 1], np.int64)
        return cls(int(n_vars), np.asarray(lits, np.int64), starts, units, any(len(g) == 0 for g in groups))

    @cached_property
    def occurrences(self) -> tuple[np.ndarray, np.ndarray]:
        """``(occ_start, occ)``: the clauses holding literal l are ``occ[occ_start[code]:occ_start[code+1]]``
        with ``code = 2*|l| + (l < 0)``."""
        sizes = np.diff(self.starts)
        clause_of = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)
        codes = 2 * np.abs(self.lits).astype(np.int64) + (self.lits < 0)
        order = np.argsort(codes, kind="stable")
        occ = clause_of[order].astype(np.int64)
        counts = np.bincount(codes, minlength=2 * (self.n_vars + 1))
        occ_start = np.zeros(len(counts) + 1, np.int64)
        np.cumsum(counts, out=occ_start[1:])
        return occ_start, occ

    @cached_property
    def _no_target(self) -> np.ndarray:
        return np.zeros(self.n_vars + 1, np.int8)

    def derives(self, assumptions, goal, candidates=()) -> bool:
        """Whether propagation (and probing on ``candidates``, if any) from ``assumptions``
        derives every literal of ``goal`` (distinct variables); stops as soon as it has (or on a
        conflict: False)."""
        goal = np.asarray(goal, np.int64)
        if self.empty or len(goal) == 0:
            return not self.empty
        where, sign = np.abs(goal), np.sign(goal).astype(np.int8)
        target = np.zeros(self.n_vars + 1, np.int8)
        target[where] = sign
        ok, value = self._deduce(assumptions, candidates, target, len(goal))
        return ok and bool((value[where] == sign).all())

    def derived(self, assumptions, goal, candidates=()) -> np.ndarray | None:
        """The values propagation (and probing on ``candidates``) reaches from ``assumptions``,
        stopping as soon as every literal of ``goal`` (distinct variables) holds; complete when
        some does not. None on a conflict."""
        goal = np.asarray(goal, np.int64)
        if self.empty:
            return None
        target = np.zeros(self.n_vars + 1, np.int8)
        target[np.abs(goal)] = np.sign(goal).astype(np.int8)
        ok, value = self._deduce(assumptions, candidates, target, len(goal))
        return value if ok else None

    def _deduce(self, assumptions, candidates, target, n_target: int) -> tuple[bool, np.ndarray]:
        """Run the kernel with fresh buffers: ``(consistent, values)``."""
        occ_start, occ = self.occurrences
        todo = np.concatenate((self.units, np.asarray(assumptions, np.int64)))
        value = np.zeros(self.n_vars + 1, np.int8)
        ok = _kernels().deduce(self.lits, self.starts, occ_start, occ, todo, np.asarray(candidates, np.int64),
                               target, int(n_target), value, np.zeros(len(self.starts) - 1, np.int64),
                               np.zeros(self.n_vars + 2, np.int64), np.zeros(2 * self.n_vars + 4, np.int64))
        return bool(ok), value

    def propagate(self, assumptions) -> np.ndarray | None:
        """Values after unit propagation from the unit clauses and ``assumptions`` (None: conflict)."""
        if self.empty:
            return None
        ok, value = self._deduce(assumptions, _NONE, self._no_target, 0)
        return value if ok else None

    def probe(self, assumptions, candidates) -> np.ndarray | None:
        """Values after failed-literal probing on ``candidates`` (variables), iterated to a fixpoint.

        A literal whose propagation conflicts is false; its negation is propagated at the root
        and the round repeats until nothing changes. None: the assumptions are contradictory.
        """
        if self.empty:
            return None
        ok, value = self._deduce(assumptions, candidates, self._no_target, 0)
        return value if ok else None
