"""Catalogue rows of the planning family ("The Illusion of Thinking", planning spec §9)."""
from ...core.registry import EnvEntry

_PAPER = "The Illusion of Thinking (Shojaee et al., 2025)"
_MODES = ("answer", "interactive")

ENTRIES = [
    EnvEntry(name="Hanoi", task="kumo_gym.envs.planning.hanoi:HanoiTask", family="planning",
             summary="Tower of Hanoi: move N disks from peg 0 to peg 2 (optimum 2^N - 1 moves)",
             modes=_MODES, paper=_PAPER),
]
