"""The published SPaRC difficulty score and level (docs/specs/sparc.md §10; paper App. D).

``S_raw = 1.2 S_mech + 1.2 S_interact + 2.5 S_grid + 1.0 S_density + 1.2 S_count`` and
``score = clamp(5 * Phi((S_raw - 12.06) / 5.27), 0, 5)``, level ``= min(5, max(1, ceil(score)))``.
The paper describes the components only in words; the definitions below were fitted to the
stored scores and reproduce every reference record to < 1e-12.
"""
from __future__ import annotations

import math

WEIGHTS = {"mech": 1.2, "interact": 1.2, "grid": 2.5, "density": 1.0, "count": 1.2}
MU, SIGMA = 12.06, 5.27


def components(n_rules: int, n_mech: int, area: int) -> dict:
    """The five component scores from the number of cell symbols, of distinct symbol types and
    the area in cells (dots and gaps do not count, docs/specs/sparc.md §10)."""
    rho = n_rules / area
    return {"mech": float(n_mech), "interact": (n_mech - 1) * rho if n_mech > 1 else 0.0,
            "grid": area / 4 - 1, "density": 6 * rho, "count": n_rules / 4}


def raw_score(n_rules: int, n_mech: int, area: int) -> float:
    c = components(n_rules, n_mech, area)
    return sum(WEIGHTS[k] * c[k] for k in WEIGHTS)


def score_of_raw(raw: float) -> float:
    phi = 0.5 * (1.0 + math.erf((raw - MU) / SIGMA / math.sqrt(2.0)))
    return min(5.0, max(0.0, 5.0 * phi))


def level_of_score(score: float) -> int:
    return min(5, max(1, math.ceil(score)))


def difficulty_score(symbols, area: int | None = None) -> tuple[float, int]:
    """(score, level) of a puzzle: ``symbols`` are its cell symbols as ``(kind, colour, extra)``
    (a SparcPuzzle's ``symbols.values()``), ``area`` its ``w * h``. A SparcPuzzle may be passed
    alone."""
    if area is None:  # a parsed puzzle
        symbols, area = symbols.symbols.values(), symbols.width * symbols.height
    kinds = [s[0] for s in symbols]
    score = score_of_raw(raw_score(len(kinds), len(set(kinds)), area))
    return score, level_of_score(score)


def rules_for_level(level: int, n_mech: int, area: int) -> list[int]:
    """Every symbol count (``n_mech <= N <= area``) that lands a puzzle of this area and number
    of symbol types on ``level`` (used by the generator to aim at a level, docs/specs/sparc.md §9)."""
    out = []
    for n in range(max(1, n_mech), area + 1):
        if level_of_score(score_of_raw(raw_score(n, n_mech, area))) == level:
            out.append(n)
    return out
