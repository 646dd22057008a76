"""Puzzle-specific deduction solvers that the grid generators use (Tatham's way: deduce first, SAT only as the fallback certificate)."""
