"""Magnets' grading and count stripping for its generator: which draws a level keeps, and which
counts an ``S`` puzzle hides (issue 21)."""
from __future__ import annotations

import numpy as np

from ....solvers.engine import Encoding, Engine, reduce_clues

#: Tatham's ``S`` puzzles show about half their counts; removed ones come back, at random, up to it
STRIP_KEEP = 0.5


def accepted(eng: Engine, every: list[int], value: np.ndarray, level: str, strip: bool, attempt: int) -> bool:
    """Whether the generator keeps a draw whose every count is shown (``every``, the assumptions)
    at Tatham's level ``level``: unique, probing-solvable at ``e``, preferably not at ``t``."""
    if level == "t" and strip:
        # only uniqueness matters here (grade 0 and 1 are unique): propagation, else one
        # SAT certificate, never the costlier probing
        if not eng.unique(every, value):
            return False
    else:
        g = eng.grade(every)
        if level == "e" and g > 1 or level == "t" and g == 0 and attempt < 30 and not strip:
            return False
        if g == 2 and not eng.unique(every, value, deduce=False):
            return False
    return True


def strip_counts(enc: Encoding, state: dict, rng: np.random.Generator, value: np.ndarray, level: str) -> None:
    """Tatham's ``S``: hide counts (set to None in ``state``) in a seeded random order: at ``e``
    while probing still solves the puzzle, random ones coming back while fewer than half remain;
    at ``t`` while SAT certifies it unique, until half remain."""
    eng = enc.engine
    keys = sorted(k for k in enc.clues if k != ("layout",))
    groups, fixed = [list(enc.clues[k][1]) for k in keys], enc.clues["layout", ][1]
    if level == "e":
        kept = reduce_clues(eng, groups, rng, value, fixed=fixed, grade_limit=1)
        gone = [j for j in rng.permutation(len(keys)) if not kept[j]]
        for j in gone[:max(0, round(STRIP_KEEP * len(keys)) - sum(kept))]:
            kept[j] = True  # back up to Tatham's density (more counts keep it unique)
    else:
        kept = reduce_clues(eng, groups, rng, value, fixed=fixed, keep=round(STRIP_KEEP * len(keys)),
                            deduce=False)  # propagation rarely settles these
    for (key, i), keep in zip(keys, kept):
        state[key][i] = state[key][i] if keep else None
