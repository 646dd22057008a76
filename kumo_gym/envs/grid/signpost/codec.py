"""Signpost game IDs (docs/specs/grid_puzzles.md §5 "Signpost"): per cell an optional given number, then a
direction letter ``a``..``h`` = N, NE, E, SE, S, SW, W, NW.

The cell that holds W*H has no arrow; Tatham writes a placeholder letter there (``a`` in
generated IDs), which we read as ``null`` when that cell's number W*H is given. Tatham's ``c``
parameter (the chain runs from the top-left to the bottom-right corner) is generation-only.
"""
from __future__ import annotations

from ....core.errors import ConfigError
from ..tatham.grammar import Field, ParamFormat

PARAMS = ParamFormat(("W", "H"), (Field("corners", "c", kind="flag"),), title="Signpost")
DIRS = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
STEP = {"N": (-1, 0), "NE": (-1, 1), "E": (0, 1), "SE": (1, 1), "S": (1, 0), "SW": (1, -1), "W": (0, -1),
        "NW": (-1, -1)}


def decode(params: dict, desc: str) -> dict:
    W, H = params["W"], params["H"]
    n = W * H
    arrows: list = []
    givens: list[int] = []
    i = 0
    while i < len(desc):
        j = i
        while j < len(desc) and desc[j].isdigit() and j - i < 6:
            j += 1
        v = int(desc[i:j]) if j > i else 0
        if j >= len(desc) or not "a" <= desc[j] <= "h":
            raise ConfigError(f"Signpost cell {len(arrows)} needs a direction letter a..h after {desc[i:j + 1]!r}")
        if not 0 <= v <= n or (v and v in givens):
            raise ConfigError(f"Signpost given {v} is outside 1..{n} or appears twice")
        arrows.append(None if v == n and desc[j] == "a" else DIRS[ord(desc[j]) - ord("a")])
        givens.append(v)
        if len(arrows) > n:
            raise ConfigError(f"the Signpost description covers more than {n} cells")
        i = j + 1
    if len(arrows) != n:
        raise ConfigError(f"the Signpost description covers {len(arrows)} cells, expected {n}")
    return {"arrows": [arrows[r * W:(r + 1) * W] for r in range(H)],
            "givens": [givens[r * W:(r + 1) * W] for r in range(H)]}


def encode(state: dict) -> str:
    out = []
    for arow, grow in zip(state["arrows"], state["givens"]):
        for d, v in zip(arow, grow):
            out.append(f"{int(v) if v else ''}{'a' if d is None else chr(ord('a') + DIRS.index(d))}")
    return "".join(out)
