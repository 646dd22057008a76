"""Tatham's reversible scrambling of a game description (docs/games.md, Guess and Black Box).

Games whose description would give the answer away (Guess's code, Black Box's balls) store it
scrambled: the bytes split into halves A (the shorter) and B; A is XORed with a SHA-1 stream
seeded by B, then B with a stream seeded by the new A; the result is written in lowercase hex.
Undoing it runs the two steps in reverse order.
"""
from __future__ import annotations

import hashlib


def _stream(seed: bytes, n: int) -> bytes:
    out, counter = b"", 0
    while len(out) < n:
        out += hashlib.sha1(seed + str(counter).encode()).digest()
        counter += 1
    return out[:n]


def _xor(data: bytes, seed: bytes) -> bytes:
    return bytes(x ^ y for x, y in zip(data, _stream(seed, len(data)), strict=True))


def hide_bytes(raw: bytes) -> str:
    """The scrambled hex text of ``raw``."""
    half = len(raw) // 2
    a, b = raw[:half], raw[half:]
    a = _xor(a, b)
    b = _xor(b, a)
    return (a + b).hex()


def reveal_bytes(text: str) -> bytes:
    """The bytes hidden in ``text`` (hex digits, an even number of them; the caller checks that)."""
    raw = bytes.fromhex(text)
    half = len(raw) // 2
    a, b = raw[:half], raw[half:]
    b = _xor(b, a)
    a = _xor(a, b)
    return a + b


def is_hex(text: str) -> bool:
    return all(ch in "0123456789abcdefABCDEF" for ch in text)
