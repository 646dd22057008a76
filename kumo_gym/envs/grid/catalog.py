"""Catalogue rows of the grid family (Tatham puzzles, grid_puzzles.md). One row per line."""
from ...core.registry import EnvEntry

_I = {"interactive": "kumo_gym.envs.interactive:InteractiveEnv"}
_M = ("answer", "interactive")
_P = "c1cef4c97fcbdae4"

ENTRIES: list = [
    EnvEntry(name="Solo", task="kumo_gym.envs.grid.solo:SoloTask", family="grid", summary="Sudoku (Tatham's Solo): fill 1..n so rows, columns and boxes hold each once", modes=_M, paper=_P),
    EnvEntry(name="Tents", task="kumo_gym.envs.grid.tents:TentsTask", family="grid", summary="Tents: pair a tent with every tree; tents never touch; row and column counts", modes=_M, paper=_P),
    EnvEntry(name="Towers", task="kumo_gym.envs.grid.towers:TowersTask", family="grid", summary="Towers (skyscrapers): a Latin square of heights matching the visibility clues", modes=_M, paper=_P),
    EnvEntry(name="Lightup", task="kumo_gym.envs.grid.lightup:LightupTask", family="grid", summary="Light Up: light every white cell; lights never see each other; numbered blacks count lights", modes=_M, paper=_P),
    EnvEntry(name="Mosaic", task="kumo_gym.envs.grid.mosaic:MosaicTask", family="grid", summary="Mosaic: colour cells so each clue counts the black cells in its 3x3 block", modes=_M, paper=_P),
    EnvEntry(name="Pattern", task="kumo_gym.envs.grid.pattern:PatternTask", family="grid", summary="Pattern (nonogram): paint the picture whose row and column runs are given", modes=_M, paper=_P),
    EnvEntry(name="Unruly", task="kumo_gym.envs.grid.unruly:UnrulyTask", family="grid", summary="Unruly: balanced black/white lines with no three of a colour in a row", modes=_M, paper=_P),
]
