"""Catalogue rows of the SPaRC family (spec sparc.md; no heavy imports here)."""
from ...core.registry import EnvEntry

ENTRIES = [
    EnvEntry(name="SPaRC", task="kumo_gym.envs.sparc.task:SparcTask", family="sparc",
             summary="SPaRC path puzzles: draw a line from S to E satisfying dot, gap, square, star, "
                     "triangle and polyomino rules (generated or official records)",
             modes=("answer", "interactive"), paper="Kaesberg et al., SPaRC, EMNLP 2025"),
]
