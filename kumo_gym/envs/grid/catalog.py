"""Catalogue rows of the grid family (Tatham puzzles, grid_puzzles.md). One row per line."""
from ...core.registry import EnvEntry

_I = {"interactive": "kumo_gym.envs.interactive:InteractiveEnv"}
_M = ("answer", "interactive")
_P = "c1cef4c97fcbdae4"

ENTRIES: list = [
    EnvEntry(name="Solo", task="kumo_gym.envs.grid.solo:SoloTask", family="grid", summary="Sudoku (Tatham's Solo): fill 1..n so rows, columns and boxes hold each once", modes=_M, paper=_P),
    EnvEntry(name="Tents", task="kumo_gym.envs.grid.tents:TentsTask", family="grid", summary="Tents: pair a tent with every tree; tents never touch; row and column counts", modes=_M, paper=_P),
    EnvEntry(name="Towers", task="kumo_gym.envs.grid.towers:TowersTask", family="grid", summary="Towers (skyscrapers): a Latin square of heights matching the visibility clues", modes=_M, paper=_P),
]
