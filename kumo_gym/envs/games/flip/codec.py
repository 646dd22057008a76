"""Tatham's Flip game IDs: ``WxH:MATRIX,GRID`` (docs/games.md, Flip).

Both halves are hex bitmaps, four cells per digit, the first cell in the digit's highest bit.
MATRIX has (W*H)^2 bits: bit ``i*W*H + j`` says that pressing cell ``i`` toggles cell ``j``.
GRID has W*H bits: the lit cells. The full parameter string adds ``c`` (crosses) or ``r``
(random shapes); the short one in game IDs leaves it out.
"""
from __future__ import annotations

from ....core.errors import ConfigError
from ..base import parse_size

HEX = "0123456789abcdef"
MAX_SIDE = 10
SHAPES = {"c": "crosses", "r": "random"}


def encode_bitmap(bits: list[bool]) -> str:
    out = []
    for i in range(0, len(bits), 4):
        v = 0
        for j in range(4):
            if i + j < len(bits) and bits[i + j]:
                v |= 8 >> j
        out.append(HEX[v])
    return "".join(out)


def decode_bitmap(text: str, n: int, what: str) -> list[bool]:
    if len(text) != (n + 3) // 4 or any(ch not in "0123456789abcdefABCDEF" for ch in text):
        raise ConfigError(f"the Flip {what} must be {(n + 3) // 4} hex digits, got {text[:40]!r}")
    out = []
    for i in range(n):
        v = int(text[i // 4], 16)
        out.append(bool(v & (8 >> (i % 4))))
    return out


def crosses(w: int, h: int) -> list[list[int]]:
    """Every cell toggles itself and its orthogonal neighbours (classic Lights Out)."""
    out = []
    for i in range(w * h):
        r, c = divmod(i, w)
        out.append([j for j in range(w * h) if abs(j // w - r) + abs(j % w - c) <= 1])
    return out


def encode_params(params: dict, full: bool = True) -> str:
    text = f"{params['w']}x{params['h']}"
    if full:
        text += "c" if params.get("shape", "crosses") == "crosses" else "r"
    return text


def decode_params(text: str) -> dict:
    w, h, rest = parse_size(text, "Flip")
    if rest not in ("", "c", "r"):
        raise ConfigError(f"Flip parameter string {text[:40]!r}: after the size comes 'c' (crosses) or 'r' "
                          f"(random), not {rest[:10]!r}")
    if not (1 <= w <= MAX_SIDE and 1 <= h <= MAX_SIDE) or w * h < 2:
        raise ConfigError(f"Flip size {w}x{h} is not in 1..{MAX_SIDE} x 1..{MAX_SIDE} with at least 2 cells")
    out = {"w": w, "h": h}
    if rest:
        out["shape"] = SHAPES[rest]
    return out


def encode_desc(data: dict) -> str:
    wh = data["w"] * data["h"]
    matrix = [False] * (wh * wh)
    for i, row in enumerate(data["toggles"]):
        for j in row:
            matrix[i * wh + j] = True
    lit = [False] * wh
    for j in data["lit"]:
        lit[j] = True
    return f"{encode_bitmap(matrix)},{encode_bitmap(lit)}"


def decode_desc(params: dict, desc: str) -> dict:
    w, h = params["w"], params["h"]
    wh = w * h
    m, sep, g = desc.partition(",")
    if not sep:
        raise ConfigError(f"a Flip description is MATRIX,GRID (two hex bitmaps), got {desc[:40]!r}")
    bits = decode_bitmap(m, wh * wh, "matrix")
    toggles = [[j for j in range(wh) if bits[i * wh + j]] for i in range(wh)]
    lit = [j for j, on in enumerate(decode_bitmap(g, wh, "grid")) if on]
    shape = "crosses" if toggles == crosses(w, h) else "random"
    if params.get("shape") not in (None, shape):
        raise ConfigError(f"the Flip parameters say {params['shape']} but the matrix is {shape}")
    data = {"w": w, "h": h, "shape": shape, "toggles": toggles, "lit": lit}
    data["game_id"] = f"{encode_params(data, full=False)}:{encode_desc(data)}"
    return data
