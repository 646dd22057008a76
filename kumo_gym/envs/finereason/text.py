"""Reading and writing states as Python list literals, without ``eval`` (spec finereason.md §6).

Models write states the way the prompts show them: ``[[5, 3, 0, ...], ...]``, ``[1, 2, 0]``,
``['(9 - 1)', '10', '13']`` or the same with bare expressions, and tables of quoted strings.
:func:`parse_literal` is a small recursive-descent reader for exactly that: lists, quoted
strings, integers, decimals, and *bare text* (an unquoted element such as ``(9 - 1)``, kept as
a string). Nesting is capped, so hostile input is rejected in linear time.
"""
from __future__ import annotations

import re

from ...core.errors import ParseError
from ...core.extract import balanced_spans, normalize_quotes, tail

MAX_DEPTH = 4
MAX_ITEMS = 2_000
_INT = re.compile(r"[+-]?\d+")
_DEC = re.compile(r"[+-]?(\d+\.\d*|\.\d+)")
_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", "'": "'", '"': '"'}


class _Reader:
    def __init__(self, text: str):
        self.s = text
        self.i = 0
        self.items = 0

    def fail(self, what: str):
        raise ParseError(f"not a list literal: {what} at position {self.i}", reason="malformed_state")

    def ws(self):
        s, i = self.s, self.i
        while i < len(s) and s[i] in " \t\r\n":
            i += 1
        self.i = i

    def value(self, depth: int):
        self.ws()
        if self.i >= len(self.s):
            self.fail("unexpected end")
        ch = self.s[self.i]
        if ch == "[":
            if depth >= MAX_DEPTH:
                self.fail(f"nesting deeper than {MAX_DEPTH}")
            return self.list(depth + 1)
        if ch in "'\"":
            return self.string(ch)
        return self.bare()

    def list(self, depth: int):
        self.i += 1
        out = []
        self.ws()
        if self.i < len(self.s) and self.s[self.i] == "]":
            self.i += 1
            return out
        while True:
            self.items += 1
            if self.items > MAX_ITEMS:
                self.fail(f"more than {MAX_ITEMS} elements")
            out.append(self.value(depth))
            self.ws()
            if self.i >= len(self.s):
                self.fail("unclosed list")
            ch = self.s[self.i]
            self.i += 1
            if ch == "]":
                return out
            if ch != ",":
                self.fail(f"unexpected {ch!r}")
            self.ws()
            if self.i < len(self.s) and self.s[self.i] == "]":  # trailing comma
                self.i += 1
                return out

    def string(self, quote: str) -> str:
        s = self.s
        i = self.i + 1
        buf = []
        while i < len(s):
            ch = s[i]
            if ch == "\\" and i + 1 < len(s):
                buf.append(_ESCAPES.get(s[i + 1], s[i + 1]))
                i += 2
                continue
            if ch == quote:
                self.i = i + 1
                return "".join(buf)
            if ch == "\n":
                break
            buf.append(ch)
            i += 1
        self.fail("unclosed string")

    def bare(self):
        s = self.s
        start = i = self.i
        depth = 0
        while i < len(s):
            ch = s[i]
            if ch == "(":
                depth += 1
            elif ch == ")":
                if depth == 0:
                    break
                depth -= 1
            elif ch in ",]" and depth == 0 or ch in "[{}'\"\n":
                break
            i += 1
        text = s[start:i].strip()
        if not text or depth:
            self.fail("empty or unbalanced element")
        self.i = i
        if _INT.fullmatch(text):
            if len(text) > 30:
                self.fail("number too long")
            return int(text)
        if _DEC.fullmatch(text):
            return float(text)
        return text


def parse_literal(text: str):
    """The value of ``text``, which must be exactly one list literal (surrounding blanks allowed)."""
    r = _Reader(text)
    r.ws()
    if r.i >= len(text) or text[r.i] != "[":
        r.fail("expected '['")
    v = r.value(0)
    r.ws()
    if r.i != len(text):
        r.fail("text after the list")
    return v


NEXT_STATE = "Next state:"


def extract_state_literal(region: str, marker: str = NEXT_STATE):
    """The last balanced list literal after the last ``marker`` (or in the whole region).

    Returns ``(value, marker_missing)``. Raises ParseError when no list literal parses.
    """
    region = tail(normalize_quotes(region))
    low = region.lower()
    pos = low.rfind(marker.lower())
    missing = pos < 0
    part = region if missing else region[pos + len(marker):]
    spans = balanced_spans(part)
    for start, end in reversed(spans[-5:]):
        try:
            return parse_literal(part[start:end]), missing
        except ParseError:
            continue
    raise ParseError("no state written as a list literal was found", reason="no_answer")


def extract_all_states(region: str, marker: str = NEXT_STATE, limit: int = 500) -> list:
    """Every ``marker`` directly followed by a list literal, in order (a walk of several moves).

    One pass finds the top-level bracket spans; each marker is matched to the span that starts
    right after it, so the cost stays linear however many markers the text holds.
    """
    region = tail(normalize_quotes(region))
    starts = dict(balanced_spans(region))
    out = []
    for m in re.finditer(re.escape(marker), region, re.IGNORECASE):
        j = m.end()
        while j < len(region) and region[j] in " \t\r\n":
            j += 1
        end = starts.get(j)
        if end is None:
            continue
        try:
            out.append(parse_literal(region[j:end]))
        except ParseError:
            continue
        if len(out) > limit:
            raise ParseError(f"more than {limit} states", reason="too_long")
    return out


def format_value(v) -> str:
    """A Python-style literal of nested lists of ints, floats and strings (single quotes)."""
    if isinstance(v, list):
        return "[" + ", ".join(format_value(x) for x in v) + "]"
    if isinstance(v, str):
        return "'" + v.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if isinstance(v, bool):
        return str(int(v))
    if isinstance(v, float) and v.is_integer():
        return repr(v)
    return repr(v) if isinstance(v, float) else str(v)
