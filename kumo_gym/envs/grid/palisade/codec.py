"""Palisade game IDs (docs/specs/grid_puzzles.md §5 "Palisade").

Parameters ``WxHnK``: width, height and region size (``n``). The description lists the cells row
by row: a digit ``0``-``4`` is a numbered cell, a letter ``a``..``z`` stands for 1..26 cells
without a number, and Tatham's encoder leaves out the run of blank cells after the last number.
AUXINFO is ``S`` and one character per cell, ``@`` plus its border bits (up 1, right 2, down 4,
left 8).
"""
from __future__ import annotations

from ....core.errors import ConfigError
from ..tatham.grammar import Field, ParamFormat, run_letters

PARAMS = ParamFormat(("W", "H"), (Field("n", "n", kind="number", in_id=True),), title="Palisade")
NO_CLUE = -1
#: border bits of AUXINFO, in the order up, right, down, left, and the step each one faces
SIDES = ((1, -1, 0), (2, 0, 1), (4, 1, 0), (8, 0, -1))


def decode(params: dict, desc: str) -> dict:
    W, H, n = params["W"], params["H"], params["n"]
    vals: list[int] = []
    for ch in desc:
        if "0" <= ch <= "4":
            vals.append(int(ch))
        elif "a" <= ch <= "z":
            vals.extend([NO_CLUE] * (ord(ch) - ord("a") + 1))
        else:
            raise ConfigError(f"unexpected character {ch!r} in the Palisade description (digits 0-4 and "
                              "letters a-z only)")
        if len(vals) > W * H:
            raise ConfigError(f"the Palisade description covers more than the {W * H} cells of a {W}x{H} grid")
    vals += [NO_CLUE] * (W * H - len(vals))
    return {"n": n, "clues": [vals[r * W:(r + 1) * W] for r in range(H)]}


def encode(state: dict) -> str:
    """Tatham's writing: runs of blank cells as letters before each number, none after the last."""
    out, run = [], 0
    for row in state["clues"]:
        for v in row:
            if v == NO_CLUE:
                run += 1
                continue
            out.append(run_letters(run))
            out.append(str(int(v)))
            run = 0
    return "".join(out)


def aux_solution(state: dict, aux: str) -> list[list]:
    """AUXINFO's borders as region labels (regions numbered in the order of their first cell)."""
    H, W = len(state["clues"]), len(state["clues"][0])
    body = aux.removeprefix("S")
    if len(body) != H * W or any(not 64 <= ord(ch) < 80 for ch in body):
        raise ConfigError(f"a {W}x{H} Palisade AUXINFO needs 'S' and {H * W} characters '@'..'O', got {aux[:40]!r}")
    label = [[-1] * W for _ in range(H)]
    k = 0
    for r0 in range(H):
        for c0 in range(W):
            if label[r0][c0] >= 0:
                continue
            label[r0][c0], todo = k, [(r0, c0)]
            while todo:
                r, c = todo.pop()
                bits = ord(body[r * W + c]) - 64
                for bit, dr, dc in SIDES:
                    rr, cc = r + dr, c + dc
                    if not bits & bit and 0 <= rr < H and 0 <= cc < W and label[rr][cc] < 0:
                        label[rr][cc] = k
                        todo.append((rr, cc))
            k += 1
    return label
