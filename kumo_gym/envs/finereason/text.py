"""Reading and writing states as Python list literals, without ``eval`` (docs/specs/finereason.md §6).

Models write states the way the prompts show them: ``[[5, 3, 0, ...], ...]``, ``[1, 2, 0]``,
``['(9 - 1)', '10', '13']`` or the same with bare expressions, and tables of quoted strings.
They are read by the project's one bounded literal reader
(:func:`kumo_gym.core.extract.read_literal`): lists, quoted strings, numbers and *bare text*
(an unquoted element such as ``(9 - 1)``, kept as a string), in linear time on any input.
"""
from __future__ import annotations

import re

from ...core.errors import ParseError
from ...core.extract import LiteralReader, balanced_spans, normalize_quotes, tail

MAX_DEPTH = 4
MAX_ITEMS = 2_000
#: states are at most 3 levels deep (a grid table); bare elements keep ``(9 - 1)`` as text
READER = LiteralReader(max_depth=MAX_DEPTH, max_items=MAX_ITEMS, parens="text", bare_text=True, keywords=False,
                       reason="malformed_state")


def parse_literal(text: str):
    """The value of ``text``, which must be exactly one list literal (surrounding blanks allowed)."""
    if not text.lstrip().startswith("["):
        raise ParseError("not a list literal: expected '['", reason="malformed_state")
    return READER.read(text)


NEXT_STATE = "Next state:"
#: what joins two alternatives on one line: "[...] or [...]", "[...] / [...]", "[...] and [...]"
_HEDGE = re.compile(r"[ \t]{0,8}(?:,[ \t]{0,8})?(?:or|and|/|\|)[ \t]{0,8}", re.IGNORECASE)


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
    if not missing and len(spans) >= 2 and _HEDGE.fullmatch(part, spans[-2][1], spans[-1][0]):
        raise ParseError("the answer offers two states joined by 'or', 'and' or '/': a hedge, not one next state",
                         reason="hedge")
    for start, end in reversed(spans[-5:]):
        try:
            value = parse_literal(part[start:end])
        except ParseError:
            continue
        if not missing and start == spans[0][0]:
            _refuse_marked_alternative(region, pos, value)
        return value, missing
    raise ParseError("no state written as a list literal was found", reason="no_answer")


def _refuse_marked_alternative(region: str, pos: int, value) -> None:
    """``Next state: [A] or Next state: [B]``: the state before the last marker, joined to it on the
    same line as an alternative, is a hedge when it differs from the one read."""
    before = balanced_spans(region[max(0, pos - 20000):pos])
    if not before:
        return
    shift = max(0, pos - 20000)
    a, b = before[-1][0] + shift, before[-1][1] + shift
    if _HEDGE.fullmatch(region, b, pos) is None:
        return
    try:
        other = parse_literal(region[a:b])
    except ParseError:
        return
    if other != value:
        raise ParseError("the answer offers two states joined by 'or', 'and' or '/': a hedge, not one next state",
                         reason="hedge")


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


def state_int(v, what: str) -> int:
    """A number of a state the model wrote: an int (``2.0`` read as ``2``); TypeError naming
    ``what`` for anything else (booleans included)."""
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    if not isinstance(v, int) or isinstance(v, bool):
        raise TypeError(f"{what} {v!r} is not an integer")
    return v
