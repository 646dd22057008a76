"""Mines game IDs (Tatham's ``mines``): ``WxH:x,y,m<hex>``.

The parameter string is ``WxHn<mines>`` in full; an ID carries only ``WxH`` (the mine count is
read off the layout). The description is the first click ``x,y`` (column, row), then ``m`` and the
mine bitmap (row-major, one bit per cell, most significant bit first, padded to whole bytes)
obfuscated by Tatham's SHA-1 mask and written as ``ceil(W*H/4)`` hex digits; ``u`` instead of ``m``
writes the bitmap in the clear (accepted, as Tatham does; we write ``m``). A description without a
first click is refused: without its opening the board can need a guess. The state is the board the
oracle certifies from the first click: the answer mode's view (``deduce.answer_view``).
"""
from __future__ import annotations

import functools
import json
from collections import OrderedDict

import numpy as np

from ....core.errors import ConfigError
from ..tatham import _mask
from ..tatham.grammar import Field, ParamFormat
from . import deduce

PARAMS = ParamFormat(("W", "H"), (Field("n", "n", kind="number"),), title="Mines")
HIDDEN = -1


def obfuscate(bits: bytearray, n_bits: int, decode: bool) -> bytearray:
    """Tatham's bitmap mask: halves A | B of the bytes (A the shorter); encoding XORs A with the mask
    of B, then B with the mask of the new A; decoding undoes it in the other order. Pad bits are
    cleared after each step."""
    b = bytearray(bits)
    half = len(b) // 2
    steps = [(half, len(b), 0, half), (0, half, half, len(b))]  # (seed from, to, target from, to)
    for s0, s1, t0, t1 in (reversed(steps) if decode else steps):
        mask = _mask(bytes(b[s0:s1]), t1 - t0)
        for k in range(t1 - t0):
            b[t0 + k] ^= mask[k]
        if n_bits % 8:
            b[n_bits // 8] &= 0xFF & (0xFF00 >> (n_bits % 8))
    return b


def read_layout(W: int, H: int, desc: str) -> tuple[int, int, list[bool]]:
    """The first click (row, column) and the mine layout of a description."""
    head = desc.split(",", 2)
    if len(head) != 3 or not head[0].isdigit() or not head[1].isdigit() or len(head[0]) > 4 or len(head[1]) > 4:
        raise ConfigError(f"a Mines description starts with the first click 'x,y,' (column, row), got {desc[:20]!r}; "
                          "IDs without a first click are not accepted (the board could need a guess)")
    x, y, rest = int(head[0]), int(head[1]), head[2]
    if not (0 <= x < W and 0 <= y < H):
        raise ConfigError(f"the first click ({x}, {y}) is outside the {W}x{H} grid")
    masked = rest[:1] == "m"
    if rest[:1] in ("m", "u"):
        rest = rest[1:]
    area = W * H
    if len(rest) != (area + 3) // 4:
        raise ConfigError(f"a {W}x{H} Mines bitmap has {(area + 3) // 4} hex digits, got {len(rest)}")
    if any(ch not in "0123456789abcdefABCDEF" for ch in rest):
        bad = next(ch for ch in rest if ch not in "0123456789abcdefABCDEF")
        raise ConfigError(f"{bad!r} in the Mines bitmap is not a hex digit (0-9, a-f)")
    raw = bytearray((area + 7) // 8)
    for i, ch in enumerate(rest):
        raw[i // 2] |= int(ch, 16) << (4 * (1 - i % 2))
    if masked:
        raw = obfuscate(raw, area, decode=True)
    mines = [bool(raw[i // 8] & (0x80 >> (i % 8))) for i in range(area)]
    return y, x, mines


def write_layout(W: int, H: int, start: tuple[int, int], mines: list[bool]) -> str:
    area = W * H
    raw = bytearray((area + 7) // 8)
    for i, m in enumerate(mines):
        if m:
            raw[i // 8] |= 0x80 >> (i % 8)
    raw = obfuscate(raw, area, decode=False)
    digits = "".join(f"{(raw[i // 2] >> (4 * (1 - i % 2))) & 15:x}" for i in range((area + 3) // 4))
    return f"{start[1]},{start[0]},m{digits}"


def state_of(W: int, H: int, start: tuple[int, int], mines: list[bool]) -> dict:
    """The certified view of a layout (see ``deduce.play``); ConfigError when it needs a guess.

    A pure function of the game ID, so it is computed once per process and layout (every reset and
    every check of an instance decodes its ID again, and the view's reduction is a series of SAT calls)."""
    return json.loads(_state_json(W, H, (int(start[0]), int(start[1])), tuple(bool(m) for m in mines)))


@functools.lru_cache(maxsize=512)
def _state_json(W: int, H: int, start: tuple[int, int], mines: tuple[bool, ...]) -> str:
    return json.dumps(_state_of(W, H, start, list(mines)))


def _state_of(W: int, H: int, start: tuple[int, int], mines: list[bool]) -> dict:
    r, c = start
    if mines[r * W + c]:
        raise ConfigError(f"the first click ({c}, {r}) is on a mine")
    view = deduce.answer_view(H, W, mines, r * W + c)
    if view is None:
        raise ConfigError(f"this {W}x{H} Mines board cannot be solved from its first click without guessing")
    return view_state(W, H, start, mines, view)


def view_state(W: int, H: int, start: tuple[int, int], mines: list[bool], view: list[int]) -> dict:
    """The state of the answer view ``view`` (the cells shown, ``deduce.answer_view``) of a layout."""
    nbr, _ = deduce._tables(H, W)
    lay = np.fromiter((1 if m else 0 for m in mines), np.int8, H * W)
    grid = np.full(H * W, HIDDEN, np.int64)
    grid[view] = deduce._numbers_array(lay, nbr, H * W)[view]
    return {"grid": grid.reshape(H, W).tolist(), "mines": int(lay.sum()), "start": [int(start[0]), int(start[1])]}


def decode(params: dict, desc: str) -> dict:
    W, H = params["W"], params["H"]
    r, c, mines = read_layout(W, H, desc)
    return state_of(W, H, (r, c), mines)


#: layouts the generator has just certified, by view (``remember``): the layout a certified view
#: fixes is the one it was made from, so :func:`layout_of` needs no deduction for them
_KNOWN: OrderedDict[str, list[bool]] = OrderedDict()


def _view_key(state: dict) -> str:
    return json.dumps([state["grid"], int(state["mines"]), list(state["start"])])


def remember(state: dict, mines: list[bool]) -> None:
    """Record that the certified view ``state`` was made from the layout ``mines``."""
    _KNOWN[_view_key(state)] = list(mines)
    if len(_KNOWN) > 64:
        _KNOWN.popitem(last=False)


def layout_of(state: dict) -> list[bool]:
    """The mine layout a view fixes (the view is certified to fix every mine)."""
    known = _KNOWN.get(_view_key(state))
    if known is not None:
        return list(known)
    grid = state["grid"]
    H, W = len(grid), len(grid[0])
    shown = {r * W + c: v for r, row in enumerate(grid) for c, v in enumerate(row) if v != HIDDEN}
    view = deduce.deduce(deduce.View(H, W, int(state["mines"]), shown))
    if view.unknown():
        raise ConfigError("this Mines view does not fix every mine")
    return [i in view.mines for i in range(H * W)]


def encode(state: dict) -> str:
    grid = state["grid"]
    H, W = len(grid), len(grid[0])
    return write_layout(W, H, tuple(state["start"]), layout_of(state))
