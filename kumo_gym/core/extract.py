"""Answer extraction shared by every family (docs/architecture.md §6).

Lenient about wrapping (code fences, ``\\boxed{}``, ``<answer>`` tags, markers such as ``####``,
``moves =``, ``Answer:``), strict about content, and the *last* complete answer wins. Every
function here runs in time linear in its input and never raises on any string.
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import NoReturn

THINK_CLOSE = "</think>"
THINK_OPEN = "<think>"

#: Texts longer than this are cut to their last MAX_SCAN characters before scanning: answers sit
#: at the end, and a bound keeps hostile megabyte inputs cheap.
MAX_SCAN = 400_000

#: what joins two answers offered as alternatives on one line: ``A or B``, ``A / B``, ``A | B``,
#: ``A and B``, ``A = B`` (a comma may come first, and the second may carry its label again:
#: ``moves = A or moves = B``). Two different answers so joined are a hedge, never paid; an answer
#: revised on a later line is not (the last one counts). Bounded, so matching is linear.
HEDGE_JOIN = re.compile(r"[ \t]{0,8}(?:,[ \t]{0,8})?(?:or|and|/|\||=)[ \t]{0,8}"
                        r"(?:[A-Za-z_]{1,20}[ \t]{0,4}[=:][ \t]{0,8})?", re.IGNORECASE)


def hedged(text: str, end_first: int, start_second: int) -> bool:
    """Whether the text between two answer spans only joins them as alternatives (:data:`HEDGE_JOIN`)."""
    return 0 <= end_first <= start_second and start_second - end_first <= 64 and \
        HEDGE_JOIN.fullmatch(text, end_first, start_second) is not None


_CURLY = str.maketrans({"\u201c": '"', "\u201d": '"', "\u2018": "'", "\u2019": "'", "\u00a0": " "})


def normalize_quotes(text: str) -> str:
    return text.translate(_CURLY)


@dataclass
class Regions:
    """A completion split into its thinking and answer parts."""

    thinking: str
    answer: str
    unclosed_thinking: bool = False


def split_thinking(completion: str, reasoning: str | None = None, close_marker: str = THINK_CLOSE,
                   open_marker: str = THINK_OPEN) -> Regions:
    """Separate the thinking from the answer (docs/specs/planning.md §5.1).

    A separate ``reasoning`` channel wins; otherwise the text before the last ``close_marker``
    is the thinking. An open marker without a close marker means the answer was never written.
    """
    completion = completion if isinstance(completion, str) else str(completion)
    if reasoning is not None:
        return Regions(str(reasoning), completion)
    pos = completion.rfind(close_marker)
    if pos >= 0:
        return Regions(completion[:pos].replace(open_marker, "", 1), completion[pos + len(close_marker):])
    if open_marker in completion:
        return Regions(completion.split(open_marker, 1)[1], "", unclosed_thinking=True)
    return Regions("", completion)


def tail(text: str, limit: int = MAX_SCAN) -> str:
    return text if len(text) <= limit else text[-limit:]


def balanced_spans(text: str, open_ch: str = "[", close_ch: str = "]", quotes: str = "\"'") -> list[tuple[int, int]]:
    """Maximal balanced ``open_ch ... close_ch`` spans as (start, end) pairs, end exclusive.

    Quote-aware (brackets inside quoted strings do not count); an unclosed span is dropped.
    Single pass, O(len(text)).
    """
    spans = []
    depth = 0
    start = -1
    quote = None
    for i, ch in enumerate(text):
        if quote:
            if ch == quote or ch == "\n":
                quote = None
            continue
        if ch in quotes and depth > 0:
            # an apostrophe inside prose ("don't") is not a quote; only count it inside a span
            quote = ch
        elif ch == open_ch:
            if depth == 0:
                start = i
            depth += 1
        elif ch == close_ch and depth > 0:
            depth -= 1
            if depth == 0:
                spans.append((start, i + 1))
    return spans


def unclosed_open(text: str, open_ch: str = "[", close_ch: str = "]") -> bool:
    """True when the text ends inside an unclosed ``open_ch`` span."""
    depth = 0
    for ch in text:
        if ch == open_ch:
            depth += 1
        elif ch == close_ch and depth > 0:
            depth -= 1
    return depth > 0


def boxed_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of the contents of every ``\\boxed{...}`` / ``\\fbox{...}`` with balanced
    braces, in order of their opening.

    Every brace is paired once up front (a stack over the text), so many unclosed ``\\boxed{``
    cost linear time rather than one scan to the end each. Spans, not strings: nested boxes
    (``\\boxed{`` 40,000 times) would otherwise copy quadratic amounts of text.
    """
    starts = [m.end() for m in re.finditer(r"\\(?:boxed|fbox)\s*\{", text)]
    if not starts:
        return []
    close_of: dict[int, int] = {}
    stack: list[int] = []
    for i, c in enumerate(text):
        if c == "{":
            stack.append(i)
        elif c == "}" and stack:
            close_of[stack.pop()] = i
    return [(i, close_of[i - 1]) for i in starts if i - 1 in close_of]


def boxed_contents(text: str, last: int | None = None) -> list[str]:
    """Contents of the ``\\boxed{...}`` spans (only the ``last`` n when given)."""
    spans = boxed_spans(text)
    if last is not None:
        spans = spans[-last:] if last > 0 else []
    return [text[a:b] for a, b in spans]


_FENCE = re.compile(r"```[^\n`]*\n(.*?)```", re.DOTALL)


def fenced_contents(text: str) -> list[str]:
    """Contents of every complete triple-backtick code fence."""
    return [m.group(1) for m in _FENCE.finditer(text)]


def tagged_contents(text: str, tag: str = "answer") -> list[str]:
    """Contents of every ``<tag> ... </tag>`` pair (case-insensitive).

    Same pairs as the lazy regex ``<tag>(.*?)</tag>`` (each open tag with the first close tag
    after it, scanning on from there), found by walking the two tag lists once: the regex
    rescans to the end of the text for every unclosed open tag, which is quadratic on inputs
    such as ``"<answer>" * 40000``.
    """
    t = re.escape(tag)
    opens = [(m.start(), m.end()) for m in re.finditer(r"<\s*" + t + r"\s*>", text, re.IGNORECASE)]
    closes = [(m.start(), m.end()) for m in re.finditer(r"<\s*/\s*" + t + r"\s*>", text, re.IGNORECASE)]
    out = []
    i = j = 0
    pos = 0
    while i < len(opens):
        if opens[i][0] < pos:
            i += 1
            continue
        start = opens[i][1]
        while j < len(closes) and closes[j][0] < start:
            j += 1
        if j == len(closes):
            break
        out.append(text[start:closes[j][0]])
        pos = closes[j][1]
        i += 1
    return out


def after_last(text: str, marker: str) -> str | None:
    """The text after the last occurrence of ``marker``, or None when absent."""
    pos = text.rfind(marker)
    return None if pos < 0 else text[pos + len(marker):]


def answer_regions(text: str, tags: tuple[str, ...] = ("answer",)) -> list[tuple[str, str]]:
    """Candidate regions for the final answer, most explicit first, each as (source, text).

    Order: the last tagged region, the last ``\\boxed{}``, the last code fence, then the whole
    text. Families try them in order and keep the first that parses.
    """
    text = tail(normalize_quotes(text))
    regions: list[tuple[str, str]] = []
    for tag in tags:
        found = tagged_contents(text, tag)
        if found:
            regions.append(("tag", found[-1]))
    boxed = boxed_contents(text, last=1)
    if boxed:
        regions.append(("boxed", boxed[-1]))
    fences = fenced_contents(text)
    if fences:
        regions.append(("fence", fences[-1]))
    regions.append(("text", text))
    return regions


def last_match(pattern: re.Pattern | str, text: str, flags: int = 0):
    """The last match of ``pattern`` in ``text`` (None when there is none).

    Patterns passed here must be linear (no nested quantifiers); the input is bounded by
    :data:`MAX_SCAN`.
    """
    if isinstance(pattern, str):
        pattern = re.compile(pattern, flags)
    last = None
    for m in pattern.finditer(tail(text)):
        last = m
    return last


_TRUNC_PHRASES = ("i'll stop here", "and so on", "continue this pattern", "the rest follows", "etc.")


def looks_truncated(text: str, finish_reason: str | None = None, n_output_tokens: int | None = None,
                    max_new_tokens: int | None = None) -> bool:
    """Whether an output was cut by a token limit rather than ended by the model."""
    if finish_reason == "length":
        return True
    return bool(n_output_tokens is not None and max_new_tokens is not None and n_output_tokens >= max_new_tokens)


def self_truncation_evidence(text: str) -> bool:
    low = tail(text, 50_000).lower()
    return any(p in low for p in _TRUNC_PHRASES) or "..." in low or "\u2026" in low


# ---- one bounded literal reader for every family (never eval) ---------------------------------
class Bare(str):
    """An unquoted element of a literal (``A_1``, ``R``, ``(9 - 1)``), kept apart from quoted strings."""


_NO = object()
_TOKEN = re.compile(r"""(?P<ws>[ \t\r\n]+)|(?P<open>[\[(])|(?P<close>[\])])|(?P<comma>,)|(?P<hash>#[^\n]*)"""
                    r"""|(?P<word>[^\s,\[\]()'"{}#]+)|(?P<other>.)""", re.DOTALL)


def _reject_constant(name: str):
    raise ValueError(f"{name} is not a number")


_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d{1,3})?")
_WORD = re.compile(r"[^\s,\[\]()'\"{}#]+")
_KEYWORDS = {"null": None, "None": None, "true": True, "True": True, "false": False, "False": False}
_ESC = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"', "/": "/"}


class LiteralReader:
    """Reads one list literal: nested ``[...]`` (and ``(...)``), numbers, quoted strings and bare
    words, as models write them in answers. Shared by every family (docs/architecture.md
    §6); it never evaluates anything.

    Bounds make it safe on any input: ``max_depth`` nesting levels, ``max_items`` elements in
    all, numbers of at most ``max_digits`` digits. Every character is looked at a bounded number
    of times, so the cost is linear. Errors are :class:`~kumo_gym.core.errors.ParseError` with
    ``reason`` (``ellipsis`` for ``...``; ``too_large``; the caller's ``reason`` otherwise).

    Options: ``parens`` -- ``"list"`` reads ``( ... )`` as a list, ``"text"`` keeps a
    parenthesised run inside a bare element (``(9 - 1)`` stays text); ``bare_text`` -- a bare
    element runs to the next ``,`` or closing bracket (spaces allowed) instead of one word;
    ``keywords`` -- ``null``/``None``/``true``/``false`` become None/True/False; ``comments`` --
    ``#`` starts a comment to the end of the line.
    """

    def __init__(self, *, max_depth: int = 8, max_items: int = 100_000, max_digits: int = 30,
                 parens: str = "list", bare_text: bool = False, keywords: bool = True, comments: bool = False,
                 reason: str = "malformed"):
        self.max_depth, self.max_items, self.max_digits = max_depth, max_items, max_digits
        self.parens, self.bare_text, self.keywords, self.comments = parens, bare_text, keywords, comments
        self.reason = reason

    def _fail(self, msg: str, pos: int, reason: str | None = None) -> NoReturn:
        from .errors import ParseError

        raise ParseError(f"{msg} at position {pos}", reason or self.reason)

    def _skip(self, s: str, i: int) -> int:
        n = len(s)
        while i < n:
            ch = s[i]
            if ch in " \t\r\n":
                i += 1
            elif ch == "#" and self.comments:
                j = s.find("\n", i)
                i = n if j < 0 else j + 1
            else:
                break
        return i

    def read(self, text: str):
        """The value of ``text``, which must hold exactly one literal (blanks around it allowed)."""
        fast = self._json(text)
        if fast is not _NO:
            return fast
        value, end = self.scan(text, 0)
        end = self._skip(text, end)
        if end != len(text):
            self._fail(f"unexpected text {text[end:end + 20]!r} after the literal", end)
        return value

    def _json(self, text: str):
        """Plain JSON is read by the C parser (megabyte answers in a fraction of a second); the
        bounds are checked on the text first, with regular expressions and one numpy pass, so
        nothing is walked in Python. Anything else falls through to :meth:`scan`."""
        head = text.lstrip()
        if not head.startswith("[") or "." in text and ("..." in text or "\u2026" in text) or "{" in text:
            return _NO
        if re.search(rf"\d{{{self.max_digits + 1},}}", text) or re.search(r"[eE][+-]?\d{3,}", text):
            return _NO  # over-long numbers and huge exponents get the exact errors of scan()
        if text.count(",") + text.count("[") > self.max_items:  # an upper bound on the elements
            return _NO
        import numpy as np

        raw = np.frombuffer(text.encode("utf-8", "surrogatepass"), dtype=np.uint8)
        depth = np.cumsum((raw == 91).astype(np.int32) - (raw == 93).astype(np.int32))
        if depth.size and int(depth.max()) > self.max_depth:
            return _NO
        try:
            value = json.loads(text, parse_constant=_reject_constant)
        except (ValueError, RecursionError):
            return _NO
        return value if isinstance(value, list) else _NO

    def scan(self, s: str, i: int):
        """Read one literal starting at ``i`` (after blanks); returns ``(value, end)``.

        One regular-expression token at a time (the scanning happens in C), an explicit stack
        instead of recursion.
        """
        openers = "[(" if self.parens == "list" else "["
        stack: list[list] = []
        closers: list[str] = []
        items = 0
        expect = True  # a value may come next (after an opener or a comma)
        n = len(s)
        tok = _TOKEN.match
        while True:
            m = tok(s, i)
            if m is None or i >= n:
                self._fail("the literal is not closed" if stack else "no literal", i, None if stack else "no_answer")
            kind = m.lastgroup
            if kind == "ws":
                i = m.end()
                continue
            if kind == "hash" and self.comments:
                i = m.end()
                continue
            ch = s[i]
            if kind == "open" and ch in openers and expect:
                if len(stack) >= self.max_depth:
                    self._fail(f"lists nested deeper than {self.max_depth}", i)
                stack.append([])
                closers.append("]" if ch == "[" else ")")
                i += 1
                continue
            if kind == "close" and stack and ch == closers[-1]:
                done = stack.pop()
                closers.pop()
                i += 1
                if not stack:
                    return done, i
                stack[-1].append(done)
                expect = False
                continue
            if kind == "close":
                self._fail(f"unbalanced {ch!r}", i)
            if kind == "comma":
                if expect or not stack:
                    self._fail("an empty element between commas", i)
                expect = True
                j = self._skip(s, i + 1)
                if j < n and s[j] == closers[-1]:
                    i = j  # a trailing comma before the closer
                    expect = False
                    continue
                i += 1
                continue
            if not expect:
                self._fail(f"missing comma before {s[i:i + 10]!r}", i)
            items += 1
            if items > self.max_items:
                self._fail(f"more than {self.max_items} elements", i, "too_large")
            if kind == "word" and not self.bare_text:
                value, i = self._word(m.group(), i), m.end()
            else:
                value, i = self._atom(s, i)
            if not stack:
                return value, i
            stack[-1].append(value)
            expect = False

    def _atom(self, s: str, i: int):
        ch = s[i]
        if ch in "'\"":
            return self._string(s, i, ch)
        if s.startswith("...", i) or ch == "\u2026":
            self._fail("the list is abbreviated with an ellipsis", i, "ellipsis")
        if self.bare_text:
            j, depth = i, 0
            n = len(s)
            while j < n:
                c = s[j]
                if c == "(":
                    depth += 1
                elif c == ")":
                    if depth == 0:
                        break
                    depth -= 1
                elif (c in ",]" and depth == 0) or c in "[{}'\"\n":
                    break
                j += 1
            if depth:
                self._fail("unbalanced parentheses in an element", i)
            word = s[i:j].strip()
        else:
            m = _WORD.match(s, i)
            if m is None:
                self._fail(f"unexpected character {ch!r}", i)
            j = m.end()
            word = m.group()
        if not word:
            self._fail("an empty element", i)
        return self._word(word, i), j

    def _word(self, word: str, pos: int):
        if "..." in word or "\u2026" in word:
            self._fail("the list is abbreviated with an ellipsis", pos, "ellipsis")
        m = _NUMBER.fullmatch(word)
        if m:
            digits = sum(c.isdigit() for c in word)
            if digits > self.max_digits:
                self._fail(f"number {word[:20]}... is too long", pos, "too_large")
            if "." in word or "e" in word or "E" in word:
                value = float(word)
                if not math.isfinite(value):
                    self._fail(f"number {word[:20]!r} is not finite", pos)
                return value
            return int(word)
        if self.keywords and word in _KEYWORDS:
            return _KEYWORDS[word]
        return Bare(word)

    def _string(self, s: str, i: int, quote: str):
        buf = []
        j = i + 1
        n = len(s)
        while j < n:
            c = s[j]
            if c == "\\" and j + 1 < n:
                buf.append(_ESC.get(s[j + 1], s[j + 1]))
                j += 2
                continue
            if c == quote:
                return "".join(buf), j + 1
            if c == "\n":
                break
            buf.append(c)
            j += 1
        self._fail("a string is not closed", i)


def read_literal(text: str, **options):
    """One literal in ``text`` (see :class:`LiteralReader` for the options and bounds)."""
    return LiteralReader(**options).read(text)
