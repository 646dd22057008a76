"""Reading move lists out of free text (planning spec §5), without ``eval``.

The pipeline is: find every maximal balanced ``[ ... ]`` span with one linear scan that tracks
depth, quotes and ``#`` comments; tag each span by where it sits (``labelled`` after
``moves =``/``moves:``, ``boxed`` inside ``\\boxed{}``, ``fence`` inside a code fence, else
``bare``); tokenise the span and parse it with a small list parser that keeps its own stack
(no recursion, nesting capped at :data:`MAX_DEPTH`); finally let a puzzle-specific ``coerce``
turn the nested lists into moves or reject them with a reason code.

Every function here is linear in its input and never raises on any string, except
:func:`parse_list`/:func:`read_moves`, which raise :class:`ParseError` by design.
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ...core.errors import ParseError
from ...core.extract import MAX_SCAN, normalize_quotes

#: Nesting deeper than this is no move list; refusing it keeps the parser's stack small.
MAX_DEPTH = 8
#: Integers longer than this are no peg or position (and int() of huge digit strings is slow).
MAX_INT_DIGITS = 18
#: Answer regions longer than this are cut to their tail before scanning. It is larger than the
#: core's MAX_SCAN because a complete Hanoi N=20 answer (1,048,575 moves) is about 12 MB.
MAX_ANSWER_CHARS = 16_000_000
SOURCES = ("labelled", "boxed", "fence", "bare")

_LABEL = re.compile(r"moves\s*[=:]\s*$", re.IGNORECASE)
_FENCE = re.compile(r"```[^\n`]*\n.*?```", re.DOTALL)
_BRACE = re.compile(r"\\(?:boxed|fbox)\s*\{|[{}]")
_SPECIAL = re.compile(r"[\[\]\"'#]")
_DQ_END = re.compile(r'["\n]')
_SQ_END = re.compile(r"['\n]")
_TOKEN = re.compile(
    r"""\s+|(?P<open>[\[(])|(?P<close>[\])])|(?P<comma>,)"""
    r"""|(?P<ell>\.\.\.|\u2026)|(?P<int>[-+]?\d+(?![A-Za-z_]))"""
    r"""|(?P<str>"[^"\n]*"|'[^'\n]*')|(?P<ident>[A-Za-z_][A-Za-z0-9_]*)"""
    r"""|(?P<bad>.)""", re.DOTALL)


class Name(str):
    """A bare identifier or quoted string inside a move list (kept apart from integers)."""


@dataclass
class Span:
    """One balanced ``[ ... ]`` span: offsets into the scanned text and its source tag."""

    start: int
    end: int
    source: str
    text: str


@dataclass
class Candidate:
    """A span that parsed as a move list (``moves``) or was rejected (``reason``)."""

    span: Span
    moves: list | None = None
    reason: str | None = None
    message: str = ""

    @property
    def ok(self) -> bool:
        return self.moves is not None


@dataclass
class Extraction:
    """The result of reading one answer region (spec §5.4)."""

    candidates: list[Candidate] = field(default_factory=list)
    chosen: Candidate | None = None
    unclosed_labelled: bool = False

    @property
    def answer_source(self) -> str | None:
        return None if self.chosen is None else self.chosen.span.source

    @property
    def n_answer_candidates(self) -> int:
        return sum(c.ok for c in self.candidates)

    @property
    def answer_conflict(self) -> bool:
        seen = {repr(c.moves) for c in self.candidates if c.ok}
        return len(seen) > 1


# ---- scanning -------------------------------------------------------------------------------
def scan_spans(text: str) -> tuple[list[tuple[int, int]], int]:
    """Maximal balanced ``[...]`` spans of ``text`` and the start of a trailing unclosed one.

    Quotes and ``#`` comments only count inside a span, because prose has apostrophes and
    markdown headings; a quote ends at its partner or at the end of the line. Returns
    ``(spans, unclosed_start)`` with ``unclosed_start = -1`` when the text does not end inside
    an open span. One pass that jumps between the special characters; no recursion, any depth.
    """
    spans: list[tuple[int, int]] = []
    depth, start, i, n = 0, -1, 0, len(text)
    while i < n:
        if depth == 0:
            j = text.find("[", i)
            if j < 0:
                break
            start, depth, i = j, 1, j + 1
            continue
        m = _SPECIAL.search(text, i)
        if m is None:
            break
        j = m.start()
        ch = text[j]
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth == 0:
                spans.append((start, j + 1))
        elif ch == "#":
            k = text.find("\n", j)
            j = n if k < 0 else k
        else:
            q = (_DQ_END if ch == '"' else _SQ_END).search(text, j + 1)
            j = n if q is None else q.start()
        i = j + 1
    return spans, (start if depth > 0 else -1)


def _boxed_ranges(text: str) -> list[tuple[int, int]]:
    """(start, end) of the contents of each complete ``\\boxed{...}``, in one linear pass.

    A stack of open braces remembers which ones opened a box, so many unclosed boxes cost no
    more than one (a rescan per box would be quadratic on hostile input).
    """
    out: list[tuple[int, int]] = []
    stack: list[int] = []  # content start of a box, or -1 for a plain brace
    for m in _BRACE.finditer(text):
        tok = m.group()
        if tok == "}":
            if stack:
                begin = stack.pop()
                if begin >= 0:
                    out.append((begin, m.start()))
        else:
            stack.append(m.end() if tok != "{" else -1)
            if len(stack) > 100_000:  # absurd nesting: stop looking for boxes
                break
    return out


def _inside(pos: int, ranges: list[tuple[int, int]]) -> bool:
    return any(a <= pos < b for a, b in ranges)


def find_spans(text: str) -> tuple[list[Span], bool]:
    """Every span of ``text`` with its source tag, and whether a labelled list is left open.

    ``text`` should already be quote-normalised; offsets refer to it.
    """
    raw, unclosed = scan_spans(text)
    fences = [m.span() for m in _FENCE.finditer(text)] if "```" in text else []
    boxes = _boxed_ranges(text) if "\\" in text else []
    spans = []
    for a, b in raw:
        if _LABEL.search(text[max(0, a - 40):a]):
            src = "labelled"
        elif boxes and _inside(a, boxes):
            src = "boxed"
        elif fences and _inside(a, fences):
            src = "fence"
        else:
            src = "bare"
        spans.append(Span(a, b, src, text[a:b]))
    unclosed_labelled = unclosed >= 0 and bool(_LABEL.search(text[max(0, unclosed - 40):unclosed]))
    return spans, unclosed_labelled


# ---- tokenising and parsing -----------------------------------------------------------------
def parse_list(text: str) -> list:
    """Parse one bracketed list into nested Python lists of ``int`` and :class:`Name`.

    Accepts both quote styles, bare identifiers, trailing commas, ``( ... )`` for inner
    items and ``#`` comments. Raises ParseError ``ellipsis`` for ``...``/``…`` and
    ``malformed_move`` for anything else it cannot read. Uses an explicit stack.
    """
    fast = _parse_json_list(text)
    if fast is not None:
        return fast
    stack: list[list] = []
    closers: list[str] = []
    result = None
    expect_item = True  # after an opener or a comma
    for m in _TOKEN.finditer(_strip_comments(text)):
        kind = m.lastgroup
        if kind is None:
            continue
        if result is not None:
            raise ParseError("text after the end of the list", "malformed_move")
        tok = m.group()
        if kind == "ell":
            raise ParseError("the list is abbreviated with an ellipsis", "ellipsis")
        if kind == "open":
            if not expect_item:
                raise ParseError("missing comma before a nested list", "malformed_move")
            if len(stack) >= MAX_DEPTH:
                raise ParseError(f"lists nested deeper than {MAX_DEPTH}", "malformed_move")
            stack.append([])
            closers.append("]" if tok == "[" else ")")
            expect_item = True
        elif kind == "close":
            if not stack or closers[-1] != tok:
                raise ParseError(f"unbalanced {tok!r}", "malformed_move")
            closers.pop()
            done = stack.pop()
            if stack:
                stack[-1].append(done)
            else:
                result = done
            expect_item = False
        elif kind == "comma":
            if expect_item or not stack:
                raise ParseError("empty item between commas", "malformed_move")
            expect_item = True
        elif kind in ("int", "str", "ident"):
            if not stack or not expect_item:
                raise ParseError(f"unexpected {tok!r}", "malformed_move")
            if kind == "int":
                digits = tok.lstrip("+-")
                if len(digits) > MAX_INT_DIGITS:
                    raise ParseError(f"number {tok[:20]}... is too long", "malformed_move")
                stack[-1].append(int(tok))
            elif kind == "str":
                stack[-1].append(Name(tok[1:-1].strip()))
            else:
                stack[-1].append(Name(tok))
            expect_item = False
        else:
            raise ParseError(f"unexpected character {tok!r}", "malformed_move")
    if result is None:
        raise ParseError("the list is not closed", "malformed_move")
    return result


def _parse_json_list(text: str) -> list | None:
    """The common case, strict JSON (``[[1, 0, 2], ["A_1"]]``), read by the C decoder.

    Returns None whenever the general parser must decide (comments, single quotes, bare
    names, trailing commas, ellipses, floats ...), so both paths give the same result.
    """
    if "#" in text or "'" in text or "\\" in text:
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(value, list):
        return None
    todo = [(value, 1)]
    while todo:
        items, depth = todo.pop()
        if depth > MAX_DEPTH:
            raise ParseError(f"lists nested deeper than {MAX_DEPTH}", "malformed_move")
        for i, x in enumerate(items):
            if isinstance(x, list):
                todo.append((x, depth + 1))
            elif isinstance(x, str):
                if not x or "\n" in x:
                    return None
                items[i] = Name(x.strip())
            elif type(x) is not int or len(str(abs(x))) > MAX_INT_DIGITS:
                return None
    return value


def _strip_comments(text: str) -> str:
    """Drop ``#`` comments outside quotes (spec §5.2)."""
    if "#" not in text:
        return text
    out, quote, i, n = [], None, 0, len(text)
    while i < n:
        ch = text[i]
        if quote:
            if ch == quote or ch == "\n":
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch == "#":
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        out.append(ch)
        i += 1
    return "".join(out)


# ---- puzzle shapes --------------------------------------------------------------------------
Coerce = Callable[[Any], Any]


def as_int(x) -> int:
    """An integer field of a move: an int, or a quoted/bare string of digits."""
    if isinstance(x, int) and not isinstance(x, bool):
        return x
    if isinstance(x, str) and re.fullmatch(r"[-+]?\d{1,18}", x.strip()):
        return int(x)
    raise ParseError(f"{x!r} is not an integer", "malformed_move")


def moves_from(value, coerce: Coerce, labelled: bool, is_single: Callable[[Any], bool]) -> list:
    """The move list in a parsed span (spec §5.3).

    A list of moves is always accepted; a lone move (or an empty list) only when labelled,
    and then it counts as a one-move (zero-move) list.
    """
    if not isinstance(value, list):
        raise ParseError("not a list", "malformed_move")
    if not value:
        if labelled:
            return []
        raise ParseError("an empty list without a moves label", "malformed_move")
    if all(isinstance(v, list) for v in value):
        return [coerce(v) for v in value]
    if labelled and is_single(value):
        return [coerce(value)]
    raise ParseError("expected a list of moves", "malformed_move")


def extract_moves(text: str, coerce: Coerce, is_single: Callable[[Any], bool]) -> Extraction:
    """Every candidate move list in ``text`` and the one that counts (spec §5.2-§5.4).

    The last ``labelled`` candidate wins; then the last ``boxed``, ``fence``, ``bare`` one.
    """
    text = normalize_quotes(text if len(text) <= MAX_ANSWER_CHARS else text[-MAX_ANSWER_CHARS:])
    spans, unclosed_labelled = find_spans(text)
    ex = Extraction(unclosed_labelled=unclosed_labelled)
    for sp in spans:
        try:
            value = parse_list(sp.text)
            ex.candidates.append(Candidate(sp, moves_from(value, coerce, sp.source == "labelled", is_single)))
        except ParseError as e:
            ex.candidates.append(Candidate(sp, None, e.reason, str(e)))
    for src in SOURCES:
        good = [c for c in ex.candidates if c.ok and c.span.source == src]
        if good:
            ex.chosen = good[-1]
            break
    return ex


def rejection(ex: Extraction) -> ParseError:
    """The ParseError that explains why ``ex`` holds no answer (most explicit span first)."""
    if ex.unclosed_labelled:
        return ParseError("the answer ends inside an unclosed move list", "unclosed_list", truncated=True)
    for src in SOURCES:
        bad = [c for c in ex.candidates if c.span.source == src]
        if bad and src != "bare":
            return ParseError(bad[-1].message, bad[-1].reason)
        if bad:
            # bare brackets are often prose; only report a reason when one looked like moves
            for c in reversed(bad):
                if c.reason == "ellipsis":
                    return ParseError(c.message, "ellipsis")
    return ParseError("no move list found (expected a line like 'moves = [[...], ...]')", "no_answer")


def read_moves(text: str, coerce: Coerce, is_single: Callable[[Any], bool]) -> tuple[list, Extraction]:
    """The answer's move list and the extraction record; raises ParseError when there is none."""
    ex = extract_moves(text, coerce, is_single)
    if ex.chosen is None:
        raise rejection(ex)
    return ex.chosen.moves, ex


def read_one_move(text: str, coerce: Coerce, is_single: Callable[[Any], bool]):
    """The last move-shaped item in ``text`` (interactive mode, spec §6.2).

    Brackets are optional for a short action such as ``1, 0, 2`` or ``A_1 a_1``.
    """
    text = normalize_quotes(text if len(text) <= MAX_SCAN else text[-MAX_SCAN:])
    spans, _ = find_spans(text)
    last_error = None
    for sp in reversed(spans):
        try:
            value = parse_list(sp.text)
        except ParseError as e:
            last_error = last_error or e
            continue
        try:
            if is_single(value):
                return coerce(value)
            if isinstance(value, list) and len(value) == 1 and isinstance(value[0], list):
                return coerce(value[0])
        except ParseError as e:
            last_error = last_error or e
    if not spans:
        body = text.strip()
        if len(body) <= 200:
            # a short action such as "move = (red, 0, 1)" or "A1 a1": drop a label, add brackets
            body = re.split(r"[=:]", body)[-1].strip()
        if 0 < len(body) <= 200:
            try:
                value = parse_list("[" + re.sub(r"(?<=\w)\s+(?=[\w\"'-])", ", ", body.strip()) + "]")
                if is_single(value):
                    return coerce(value)
                if len(value) == 1 and isinstance(value[0], list) and is_single(value[0]):
                    return coerce(value[0])
            except ParseError as e:
                last_error = e
    raise last_error or ParseError("no move found (expected one move such as [1, 0, 2])", "no_answer")
