"""Catalogue rows of the FineReason family (spec finereason.md). Imports nothing heavy."""
from ...core.registry import EnvEntry

_PAPER = "FineReason (DAMO-NLP-SG, 2025)"

ENTRIES = [
    EnvEntry(name="FineReasonStateChecking", task="kumo_gym.envs.finereason.tasks:StateCheckingTask",
             family="finereason", paper=_PAPER,
             summary="Is this intermediate puzzle state still solvable? (A)/(B); puzzle=sudoku|coloring|game24|logicgrid"),
    EnvEntry(name="FineReasonStateTransition", task="kumo_gym.envs.finereason.tasks:StateTransitionTask",
             family="finereason", paper=_PAPER,
             summary="Make one move in a puzzle tree: a solvable child, or back to the parent when stuck"),
    EnvEntry(name="FineReasonTreeWalk", task="kumo_gym.envs.finereason.tasks:TreeWalkTask",
             family="finereason", paper=_PAPER, modes=("answer", "interactive"),
             summary="Walk a puzzle tree one minimal move at a time, forward or back, to a solution"),
]
