"""Answer extraction shared by every family (ARCHITECTURE.md, "Text interface").

Lenient about wrapping (code fences, ``\\boxed{}``, ``<answer>`` tags, markers such as ``####``,
``moves =``, ``Answer:``), strict about content, and the *last* complete answer wins. Every
function here runs in time linear in its input and never raises on any string.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

THINK_CLOSE = "</think>"
THINK_OPEN = "<think>"

#: Texts longer than this are cut to their last MAX_SCAN characters before scanning: answers sit
#: at the end, and a bound keeps hostile megabyte inputs cheap.
MAX_SCAN = 400_000

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
    """Separate the thinking from the answer (planning spec §5.1).

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


def boxed_contents(text: str) -> list[str]:
    """Contents of every ``\\boxed{...}`` (and ``\\fbox{...}``) with balanced braces.

    Every brace is paired once up front (a stack over the text), so many unclosed ``\\boxed{``
    cost linear time rather than one scan to the end each.
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
    return [text[i:close_of[i - 1]] for i in starts if i - 1 in close_of]


_FENCE = re.compile(r"```[^\n`]*\n(.*?)```", re.S)


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
    opens = [(m.start(), m.end()) for m in re.finditer(r"<\s*" + t + r"\s*>", text, re.I)]
    closes = [(m.start(), m.end()) for m in re.finditer(r"<\s*/\s*" + t + r"\s*>", text, re.I)]
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
    boxed = boxed_contents(text)
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
    if n_output_tokens is not None and max_new_tokens is not None and n_output_tokens >= max_new_tokens:
        return True
    return False


def self_truncation_evidence(text: str) -> bool:
    low = tail(text, 50_000).lower()
    return any(p in low for p in _TRUNC_PHRASES) or "..." in low or "\u2026" in low
