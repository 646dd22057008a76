"""Reading move lists out of free text (docs/specs/planning.md §5), without ``eval``, in linear time.

The pipeline: find every maximal balanced ``[ ... ]`` span (depth, quotes and ``#`` comments
tracked); tag each span by where it sits (``labelled`` after ``moves =``/``moves:``, ``boxed``
inside ``\\boxed{}``, ``fence`` inside a code fence, else ``bare``); parse the spans that can hold
a move list with a small list parser that keeps its own stack (no recursion, nesting capped at
:data:`MAX_DEPTH`); let a puzzle-specific ``coerce`` turn the nested lists into moves or reject
them with a reason code.

Cost is linear in the text with small constants whatever it holds (model output is untrusted): long texts are
scanned with numpy over the bracket positions instead of character by character; quotes and
comments only matter inside a span, so the character loop runs only from the first span that
holds one; a flat span such as ``[1]`` can never be a move list (an answer nests its moves)
unless it is labelled, so only nested, labelled or boxed/fenced spans are parsed, at most
:data:`MAX_CANDIDATES` of them; a long all-integer list (a complete Tower of Hanoi answer) is
read by numpy straight into an array. Every function raises nothing on any string except
:func:`parse_list`, :func:`read_moves` and :func:`read_one_move`, which raise
:class:`ParseError` by design.
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...core.errors import ParseError
from ...core.extract import MAX_SCAN, hedged, normalize_quotes

#: Nesting deeper than this is no move list; refusing it keeps the parser's stack small.
MAX_DEPTH = 8
#: Integers longer than this are no peg or position (and int() of huge digit strings is slow).
MAX_INT_DIGITS = 18
#: Answer regions longer than this are cut to their tail before scanning. It is larger than the
#: core's MAX_SCAN because a complete Hanoi N=20 answer (1,048,575 moves) is about 12 MB.
MAX_ANSWER_CHARS = 16_000_000
#: At most this many characters, from the first span holding a quote or ``#``, are scanned
#: character by character (quoted answers are short: Checker N=40 is about 25 KB).
MAX_QUOTED_SCAN = 400_000
#: At most this many spans (the last ones) are parsed per region.
MAX_CANDIDATES = 10_000
#: Texts shorter than this are scanned in plain Python (numpy's fixed cost is not worth it).
NUMPY_FROM = 20_000
#: Spans longer than this that hold only integers and brackets are read by numpy.
INT_ARRAY_FROM = 50_000
#: More than this many ``\\boxed{`` or code fences in one region are ignored as sources.
MAX_MARKERS = 1_000
SOURCES = ("labelled", "boxed", "fence", "bare")

_LABEL = re.compile(r"moves\s*[=:]\s*$", re.IGNORECASE)
_BOX_OPEN = re.compile(r"\\(?:boxed|fbox)\s*\{")
_FENCE = re.compile(r"```[^\n`]*\n.*?```", re.DOTALL)
_SPECIAL = re.compile(r"[\[\]\"'#]")
_DQ_END = re.compile(r'["\n]')
_SQ_END = re.compile(r"['\n]")
_TOKEN = re.compile(
    r"""\s+|(?P<open>[\[(])|(?P<close>[\])])|(?P<comma>,)"""
    r"""|(?P<ell>\.\.\.|\u2026)|(?P<int>[-+]?\d+(?![A-Za-z_]))"""
    r"""|(?P<str>"[^"\n]*"|'[^'\n]*')|(?P<ident>[A-Za-z_][A-Za-z0-9_]*)"""
    r"""|(?P<bad>.)""", re.DOTALL)
_WS = np.zeros(256, np.bool_)
_WS[[9, 10, 11, 12, 13, 32]] = True
#: what ``\\s`` matches between a label and its list (ASCII and the common Unicode blanks)
_BLANK = np.array([9, 10, 11, 12, 13, 28, 29, 30, 31, 32, 0x85, 0xA0, 0x2028, 0x2029, 0x3000], np.uint32)
_INT_LIST_BYTES = np.zeros(256, np.bool_)
_INT_LIST_BYTES[[9, 10, 11, 12, 13, 32, 44, 91, 93] + list(range(48, 58))] = True


class Name(str):
    """A bare identifier or quoted string inside a move list (kept apart from integers)."""


class MoveList(list):
    """A parsed move list, carrying the extraction record it came from."""

    extraction: Extraction | None = None


class MoveArray(Sequence):
    """A long all-integer move list kept as a (k, 3) array (see :func:`int_triples`).

    Behaves as a read-only list of ``[a, b, c]`` lists (equal to one, indexable, iterable)
    without building a million Python lists; ``array`` is the int64 array.
    """

    extraction: Extraction | None = None

    def __init__(self, array: np.ndarray):
        self.array = array

    def __len__(self) -> int:
        return int(self.array.shape[0])

    def __getitem__(self, i):
        if isinstance(i, slice):
            return self.array[i].tolist()
        return self.array[i].tolist()

    def __eq__(self, other) -> bool:
        if isinstance(other, MoveArray):
            return np.array_equal(self.array, other.array)
        if isinstance(other, (list, tuple)):
            return len(other) == len(self) and self.array.tolist() == [list(m) for m in other]
        return NotImplemented

    __hash__ = None  # a mutable-looking sequence, like list

    def __repr__(self) -> str:
        return f"MoveArray({len(self)} moves)"

    def tolist(self) -> list:
        return self.array.tolist()


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
    """The result of reading one answer region (docs/specs/planning.md §5.4).

    ``candidates`` holds every parsed span (valid or rejected) in text order; flat spans that
    cannot hold a move list are left out, except the last one of each source (it explains a
    rejection). ``capped`` says that only the last :data:`MAX_CANDIDATES` spans were parsed.
    """

    candidates: list[Candidate] = field(default_factory=list)
    chosen: Candidate | None = None
    unclosed_labelled: bool = False
    capped: bool = False
    offset: int = 0
    #: another valid move list joined to the chosen one as an alternative on its line (``moves = A
    #: or B``): the answer hedges and pays nothing (:func:`read_moves` refuses it)
    hedge: Candidate | None = None

    @property
    def answer_source(self) -> str | None:
        return None if self.chosen is None else self.chosen.span.source

    @property
    def n_answer_candidates(self) -> int:
        return sum(c.ok for c in self.candidates)

    @property
    def answer_conflict(self) -> bool:
        first = None
        for c in self.candidates:
            if c.ok:
                if first is None:
                    first = c.moves
                elif c.moves != first:
                    return True
        return False


# ---- scanning -------------------------------------------------------------------------------
def _scan_python(text: str, i: int = 0) -> tuple[list[int], list[int], int]:
    """Maximal balanced spans from offset ``i``, quote- and comment-aware (see :func:`scan_spans`)."""
    starts: list[int] = []
    ends: list[int] = []
    depth, start, n = 0, -1, len(text)
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
                starts.append(start)
                ends.append(j + 1)
        elif ch == "#":
            k = text.find("\n", j)
            j = n if k < 0 else k
        else:
            q = (_DQ_END if ch == '"' else _SQ_END).search(text, j + 1)
            j = n if q is None else q.start()
        i = j + 1
    return starts, ends, (start if depth > 0 else -1)


def _codes(text: str) -> np.ndarray:
    """The characters of ``text`` as integers (uint8 for ASCII, else uint32): index = offset."""
    if text.isascii():
        return np.frombuffer(text.encode("ascii"), np.uint8)
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), np.uint32)


def _clamped_depth(is_open: np.ndarray, is_close: np.ndarray):
    """Positions of the brackets, whether each opens, and the depth before and after each one.

    The depth is the running sum clamped at zero (a closer at depth 0 is ignored), which equals
    the running sum minus its running minimum where that is negative.
    """
    idx = np.flatnonzero(is_open | is_close)
    opens = is_open[idx]
    c = np.cumsum(np.where(opens, 1, -1).astype(np.int64))
    after = c - np.minimum(np.minimum.accumulate(c), 0) if idx.size else c
    before = np.empty_like(after)
    if idx.size:
        before[0] = 0
        before[1:] = after[:-1]
    return idx, opens, before, after


def _scan_numpy(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Spans of :func:`scan_spans`, ignoring quotes and comments, from the bracket positions only."""
    idx, opens, before, after = _clamped_depth(codes == 91, codes == 93)
    if idx.size == 0:
        return idx, idx, -1
    starts = idx[opens & (before == 0)]
    ends = idx[~opens & (before == 1)] + 1
    unclosed = -1
    if after[-1] > 0:
        unclosed, starts = int(starts[-1]), starts[:-1]
    return starts, ends, unclosed


def scan_spans(text: str) -> tuple[list[tuple[int, int]], int]:
    """Maximal balanced ``[...]`` spans of ``text`` and the start of a trailing unclosed one.

    Quotes and ``#`` comments only count inside a span, because prose has apostrophes and
    markdown headings; a quote ends at its partner or at the end of the line. Returns
    ``(spans, unclosed_start)`` with ``unclosed_start = -1`` when the text does not end inside
    an open span. Linear time, any depth.
    """
    starts, ends, unclosed = _scan(text)
    return list(zip(starts.tolist(), ends.tolist())), unclosed


def _scan(text: str) -> tuple[np.ndarray, np.ndarray, int]:
    if len(text) < NUMPY_FROM:
        s, e, u = _scan_python(text)
        return np.asarray(s, np.int64), np.asarray(e, np.int64), u
    codes = _codes(text)
    starts, ends, unclosed = _scan_numpy(codes)
    special = np.flatnonzero((codes == 34) | (codes == 35) | (codes == 39))
    hit = -1  # offset of the first span that holds a quote or a comment
    if special.size and ends.size:
        k = np.searchsorted(starts, special, side="right") - 1
        inside = (k >= 0) & (special < ends[np.maximum(k, 0)])
        if inside.any():
            hit = int(starts[k[int(np.argmax(inside))]])
    if special.size and unclosed >= 0 and special[-1] > unclosed and (hit < 0 or unclosed < hit):
        hit = unclosed
    if hit >= 0:
        # quotes and comments hide brackets from there on: scan that part character by character
        keep = starts < hit
        tail_s, tail_e, unclosed = _scan_python(text, max(hit, len(text) - MAX_QUOTED_SCAN))
        return (np.concatenate([starts[keep], np.asarray(tail_s, np.int64)]),
                np.concatenate([ends[keep], np.asarray(tail_e, np.int64)]), unclosed)
    return starts, ends, unclosed


def _boxed_ranges(text: str) -> list[tuple[int, int]]:
    """(start, end) of the contents of each complete ``\\boxed{...}`` (or ``\\fbox{...}``).

    Braces are matched over the whole text (depth clamped at zero), in numpy for long texts.
    More than :data:`MAX_MARKERS` boxes are hostile: none counts.
    """
    if "\\" not in text:
        return []
    boxes = []
    for m in _BOX_OPEN.finditer(text):
        boxes.append(m.end() - 1)  # the offset of the box's "{"
        if len(boxes) > MAX_MARKERS:
            return []
    if not boxes:
        return []
    codes = np.frombuffer(text.encode("ascii"), np.uint8) if text.isascii() else _codes(text)
    idx, opens, before, after = _clamped_depth(codes == 123, codes == 125)
    closing = ~opens & (before >= 1)
    levels, where = before[closing], idx[closing]
    order = np.lexsort((where, levels))
    levels, where = levels[order], where[order]
    out = []
    for p in boxes:
        j = int(np.searchsorted(idx, p))
        level = after[j]
        lo, hi = np.searchsorted(levels, level, "left"), np.searchsorted(levels, level, "right")
        k = lo + int(np.searchsorted(where[lo:hi], p))
        if k < hi:
            out.append((p + 1, int(where[k])))
    return out


def _fence_ranges(text: str) -> list[tuple[int, int]]:
    if "```" not in text or text.count("```") > 2 * MAX_MARKERS:
        return []
    return [m.span() for m in _FENCE.finditer(text)]


def _merged(ranges: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    """Sorted disjoint (start, end) arrays covering the union of ``ranges``."""
    if not ranges:
        empty = np.zeros(0, np.int64)
        return empty, empty
    ranges = sorted(ranges)
    out = [list(ranges[0])]
    for a, b in ranges[1:]:
        if a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    arr = np.asarray(out, np.int64)
    return arr[:, 0], arr[:, 1]


def _inside(pos: np.ndarray, merged: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Which positions fall inside one of the merged ranges (binary search, no rescan)."""
    a, b = merged
    if a.size == 0:
        return np.zeros(pos.shape, np.bool_)
    i = np.searchsorted(a, pos, side="right") - 1
    return (i >= 0) & (pos < b[np.maximum(i, 0)])


def _labelled(text: str, starts: np.ndarray) -> np.ndarray:
    """Which span starts follow a ``moves =`` / ``moves:`` label (whitespace allowed between).

    Vectorised: for each start, the last non-blank character before it must be ``=`` or ``:``
    and the last non-blank one before that must end the word ``moves`` (any case).
    """
    out = np.zeros(starts.shape, np.bool_)
    if starts.size < 64:
        for i, a in enumerate(starts.tolist()):
            out[i] = a > 0 and bool(_LABEL.search(text, max(0, a - 40), a))
        return out
    codes = _codes(text)
    blank = np.isin(codes, _BLANK)
    last_solid = np.maximum.accumulate(np.where(blank, -1, np.arange(codes.size)))
    prev = np.where(starts > 0, last_solid[np.maximum(starts - 1, 0)], -1)
    ok = (prev >= 0) & np.isin(codes[np.maximum(prev, 0)], (58, 61))
    word = np.where(prev > 0, last_solid[np.maximum(prev - 1, 0)], -1)
    ok &= word >= 4
    for i, ch in enumerate(b"moves"):
        ok &= (codes[np.maximum(word - 4 + i, 0)] | 0x20) == ch
    return ok


def find_spans(text: str) -> tuple[list[Span], bool]:
    """Every span of ``text`` with its source tag, and whether a labelled list is left open.

    ``text`` should already be quote-normalised; offsets refer to it.
    """
    starts, ends, unclosed = _scan(text)
    sources = _sources(text, starts)
    spans = [Span(a, b, s, text[a:b]) for a, b, s in zip(starts.tolist(), ends.tolist(), sources)]
    return spans, _unclosed_labelled(text, unclosed)


def _sources(text: str, starts: np.ndarray) -> list[str]:
    return [SOURCES[c] for c in _source_codes(text, starts).tolist()]


def _unclosed_labelled(text: str, unclosed: int) -> bool:
    return unclosed > 0 and bool(_LABEL.search(text, max(0, unclosed - 40), unclosed))


# ---- tokenising and parsing -----------------------------------------------------------------
def parse_list(text: str) -> list:
    """Parse one bracketed list into nested Python lists of ``int`` and :class:`Name`.

    Accepts both quote styles, bare identifiers, trailing commas, ``( ... )`` for inner
    items and ``#`` comments. Raises ParseError ``ellipsis`` for ``...``/``…`` and
    ``malformed_move`` for anything else it cannot read. Uses an explicit stack.
    """
    fast = _parse_json_list(text)
    if fast is None:
        relaxed = _as_json(text)
        fast = None if relaxed is None else _parse_json_list(relaxed)
    if fast is not None:
        return fast
    return _parse_tokens(text)


#: a comma right after a value and before a closing bracket (allowed in answers, not in JSON)
_TRAILING_COMMA = re.compile(r"(?<=[\w\]])\s*,(?=\s*\])")
_BARE_NAME = re.compile(r"(?<![\w\"])[A-Za-z_][A-Za-z0-9_]*")


def _as_json(text: str) -> str | None:
    """``text`` rewritten as JSON when the answer syntax differs only by bare names and trailing
    commas (``[[R, 0, 1], [B, 2, 0],]``); None when anything else might matter (quotes, comments,
    parentheses, ellipses), so that the token parser decides and both paths agree."""
    if any(c in text for c in "\"'#\\().\u2026"):
        return None
    return _BARE_NAME.sub(lambda m: f'"{m.group()}"', _TRAILING_COMMA.sub("", text))


def _parse_tokens(text: str) -> list:
    """The general list parser behind :func:`parse_list` (one token at a time, explicit stack)."""
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
                raise ParseError(f"unexpected {tok[:20]!r}", "malformed_move")
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


_BLANKS = b" \t\n\r\x0b\x0c"
_INT_LIST_CHARS = b"0123456789[]," + _BLANKS


def int_triples(text: str) -> np.ndarray | None:
    """``[[a, b, c], [a, b, c], ...]`` of plain non-negative integers as a (k, 3) int64 array.

    Read by numpy and the C number reader, a constant number of passes over the bytes: a
    complete Tower of Hanoi N=20 answer (12 MB) takes a fraction of a second where building a
    million Python lists takes seconds. Returns None for anything else (signs, quotes, trailing
    commas, other shapes ...), which the general parser then reads, so both paths agree.
    """
    if not text.isascii():
        return None
    data = text.encode("ascii")
    if data.translate(None, _INT_LIST_CHARS):
        return None  # something besides digits, brackets, commas and blanks
    raw = np.frombuffer(data.translate(None, _BLANKS), np.uint8)
    digit = (raw >= 48) & (raw <= 57)
    run_start = digit.copy()
    run_start[1:] &= ~digit[:-1]
    starts = np.flatnonzero(run_start)
    k, rest = divmod(starts.size, 3)
    if rest or k == 0:
        return None
    run_end = digit.copy()
    run_end[:-1] &= ~digit[1:]
    ends = np.flatnonzero(run_end) + 1
    longest = int((ends - starts).max())
    if longest > MAX_INT_DIGITS:
        return None
    tokens = np.where(run_start, 78, raw)[~digit | run_start]  # each number becomes "N"
    want = np.frombuffer(b"[" + b"[N,N,N]," * (k - 1) + b"[N,N,N]]", np.uint8)
    if tokens.size != want.size or not np.array_equal(tokens, want):
        return None
    spaced = np.frombuffer(data, np.uint8)
    spaced = (spaced >= 48) & (spaced <= 57)
    if int(spaced[0]) + np.count_nonzero(spaced[1:] & ~spaced[:-1]) != starts.size:
        return None  # "1 2" inside a move: two numbers where the shape has one
    values = np.zeros(starts.size, np.int64)
    for j in range(longest):  # the numbers, digit by digit from the left
        more = starts + j < ends
        values[more] = values[more] * 10 + (raw[starts[more] + j] - 48)
    return values.reshape(k, 3)


def _strip_comments(text: str) -> str:
    """Drop ``#`` comments outside quotes (docs/specs/planning.md §5.2)."""
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
    raise ParseError(f"{str(x)[:20]!r} is not an integer", "malformed_move")


def moves_from(value, coerce: Coerce, labelled: bool, is_single: Callable[[Any], bool]) -> list:
    """The move list in a parsed span (docs/specs/planning.md §5.3).

    A list of moves is always accepted; a lone move (or an empty list) only when labelled,
    and then it counts as a one-move (zero-move) list.
    """
    if not isinstance(value, list):
        raise ParseError("not a list", "malformed_move")
    if not value:
        if labelled:
            return MoveList()
        raise ParseError("an empty list without a moves label", "malformed_move")
    if all(isinstance(v, list) for v in value):
        return MoveList(coerce(v) for v in value)
    if labelled and is_single(value):
        return MoveList([coerce(value)])
    raise ParseError("expected a list of moves", "malformed_move")


def _parse_span(text: str, source: str, coerce: Coerce, is_single: Callable[[Any], bool],
                int_moves: bool) -> list:
    if int_moves and len(text) >= INT_ARRAY_FROM:
        arr = int_triples(text)
        if arr is not None:
            return MoveArray(arr)
    return moves_from(parse_list(text), coerce, source == "labelled", is_single)


def extract_moves(text: str, coerce: Coerce, is_single: Callable[[Any], bool], *, int_moves: bool = False,
                  max_chars: int = MAX_ANSWER_CHARS) -> Extraction:
    """Every candidate move list in ``text`` and the one that counts (docs/specs/planning.md §5.2-§5.4).

    The last ``labelled`` candidate wins; then the last ``boxed``, ``fence``, ``bare`` one.
    ``int_moves``: moves are integer triples (Tower of Hanoi), so long lists may be read by
    :func:`int_triples`. Offsets of the candidates refer to the text cut to its last
    ``max_chars`` characters (``Extraction.offset`` is the cut).
    """
    offset = max(0, len(text) - max_chars)
    text = text[offset:] if offset else text
    if not text.isascii():
        text = normalize_quotes(text)
    starts, ends, unclosed = _scan(text)
    ex = Extraction(unclosed_labelled=_unclosed_labelled(text, unclosed), offset=offset)
    if starts.size == 0:
        return ex
    sources = _source_codes(text, starts)
    worth = _worth_parsing(text, starts, ends, sources)
    picked = np.flatnonzero(worth)
    if picked.size > MAX_CANDIDATES:
        picked, ex.capped = picked[-MAX_CANDIDATES:], True
    # the last flat boxed / fenced span explains a rejection; it is never a valid answer
    for code in (1, 2):
        flat = np.flatnonzero((sources == code) & ~worth)
        if flat.size:
            picked = np.union1d(picked, flat[-1:])
    for i in picked.tolist():
        a, b = int(starts[i]), int(ends[i])
        src = SOURCES[int(sources[i])]
        span = Span(a, b, src, text[a:b])
        try:
            ex.candidates.append(Candidate(span, _parse_span(span.text, src, coerce, is_single, int_moves)))
        except ParseError as e:
            ex.candidates.append(Candidate(span, None, e.reason, str(e)))
    for src in SOURCES:
        good = [c for c in ex.candidates if c.ok and c.span.source == src]
        if good:
            ex.chosen = good[-1]
            ex.chosen.moves.extraction = ex
            break
    if ex.chosen is not None:
        k = next(i for i, c in enumerate(ex.candidates) if c is ex.chosen)
        for a, b in ((k - 1, k), (k, k + 1)):
            if 0 <= a and b < len(ex.candidates):
                first, second = ex.candidates[a], ex.candidates[b]
                other = first if b == k else second
                if other.ok and other.moves != ex.chosen.moves and \
                        hedged(text, first.span.end, second.span.start):
                    ex.hedge = other
                    break
    return ex


def _source_codes(text: str, starts: np.ndarray) -> np.ndarray:
    labelled = _labelled(text, starts)
    boxed = _inside(starts, _merged(_boxed_ranges(text)))
    fenced = _inside(starts, _merged(_fence_ranges(text)))
    return np.where(labelled, 0, np.where(boxed, 1, np.where(fenced, 2, 3)))


def _worth_parsing(text: str, starts: np.ndarray, ends: np.ndarray, sources: np.ndarray) -> np.ndarray:
    """Spans that may hold a move list or explain a rejection: labelled ones, and those with a
    nested ``[``/``(``, a dot (an ellipsis) or a non-ASCII character inside."""
    if starts.size < 64:
        out = np.zeros(starts.shape, np.bool_)
        for i, (a, b) in enumerate(zip(starts.tolist(), ends.tolist())):
            body = text[a + 1:b - 1]
            out[i] = (sources[i] == 0 or "[" in body or "(" in body or "." in body or "\u2026" in body
                      or not body.isascii())
        return out
    codes = _codes(text)
    marks = (codes == 91) | (codes == 40) | (codes == 46) | (codes >= 128)
    count = np.concatenate(([0], np.cumsum(marks)))
    inner = count[ends - 1] - count[starts + 1]
    return (sources == 0) | (inner > 0)


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


def read_moves(text: str, coerce: Coerce, is_single: Callable[[Any], bool], *,
               int_moves: bool = False) -> tuple[list, Extraction]:
    """The answer's move list and the extraction record; raises ParseError when there is none."""
    ex = extract_moves(text, coerce, is_single, int_moves=int_moves)
    if ex.chosen is None:
        raise rejection(ex)
    if ex.hedge is not None:
        raise ParseError("the answer offers two different move lists joined by 'or', 'and', '/', '|' or '=' "
                         f"({_short(ex.hedge.span.text)} and {_short(ex.chosen.span.text)}): a hedge, not one answer",
                         "hedge")
    return ex.chosen.moves, ex


def _short(span: str, limit: int = 30) -> str:
    span = " ".join(span.split())
    return span if len(span) <= limit else span[:limit - 3] + "..."


def _one_move(span: str, coerce: Coerce, is_single: Callable[[Any], bool]):
    """The one move a bracketed span holds (``[m]`` or ``[[m]]``), None when it holds another
    list; ParseError when it is unreadable or the move is malformed."""
    value = parse_list(span)
    if is_single(value):
        return coerce(value)
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], list):
        return coerce(value[0])
    return None


def read_one_move(text: str, coerce: Coerce, is_single: Callable[[Any], bool], example: str = ""):
    """The last move-shaped item in ``text`` (interactive mode, docs/specs/planning.md §6.2).

    Brackets are optional for a short action such as ``1, 0, 2`` or ``A_1 a_1``. ``example``
    shows the puzzle's move format in the error message.
    """
    stripped = text.strip()
    if 2 <= len(stripped) <= 200 and stripped[0] == "[" and stripped[-1] == "]":
        # the usual action, one move in JSON: read it without scanning
        value = _parse_json_list(stripped) if "#" not in stripped else None
        if value is not None:
            try:
                if is_single(value):
                    return coerce(value)
                if len(value) == 1 and isinstance(value[0], list):
                    return coerce(value[0])
            except ParseError:
                pass
    text = normalize_quotes(text if len(text) <= MAX_SCAN else text[-MAX_SCAN:])
    starts, ends, _ = _scan(text)
    last_error = None
    tried = 0
    a_list, b_list = starts.tolist(), ends.tolist()
    for k in range(len(a_list) - 1, -1, -1):
        a, b = a_list[k], b_list[k]
        tried += 1
        if tried > MAX_CANDIDATES:
            break
        try:
            move = _one_move(text[a:b], coerce, is_single)
        except ParseError as e:
            last_error = last_error or e
            continue
        if move is None:
            continue
        if k and hedged(text, b_list[k - 1], a):
            try:
                other = _one_move(text[a_list[k - 1]:b_list[k - 1]], coerce, is_single)
            except ParseError:
                other = None
            if other is not None and other != move:
                raise ParseError(f"two different moves joined as alternatives ({_short(text[a_list[k - 1]:b_list[k - 1]])}"
                                 f" and {_short(text[a:b])}): a hedge, not one move", "hedge")
        return move
    if starts.size == 0:
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
    if last_error is not None:
        raise ParseError(f"{last_error} (a move looks like {example})" if example else str(last_error),
                         last_error.reason)
    raise ParseError(f"no move found (expected one move such as {example})" if example else "no move found",
                     "no_answer")
