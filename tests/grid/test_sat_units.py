"""Propagation sees literals fixed by one-literal clauses (givens encoded as units)."""
from kumo_gym.solvers.sat import Propagator, grade


def test_unit_clauses_propagate():
    assert Propagator([[1], [-1, 2]]).propagate([]) == {1, 2}
    assert Propagator([[1], [-1]]).propagate([]) is None
    assert Propagator([[1], [-1, 2], [-2, 3]]).propagate([4]) == {1, 2, 3, 4}


def test_grade_counts_units_as_givens():
    # with the unit, propagation alone decides every variable: grade 0
    assert grade([[1], [-1, 2], [-2, 3]], [1, 2, 3]) == 0
