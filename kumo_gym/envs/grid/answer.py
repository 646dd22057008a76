"""Grid answers as text (docs/specs/grid_puzzles.md §1): reading the last ``[[...]]`` grid of a completion
in linear time, normalising cells, and writing the canonical answer and state JSON."""
from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any

import numpy as np

from ...core.errors import ParseError
from ...core.extract import MAX_SCAN, answer_regions, balanced_spans, hedged, normalize_quotes, tail, unclosed_open

# ---- answer parsing (docs/specs/grid_puzzles.md §1) ------------------------------------------------------------------
_TOKEN = re.compile(r"""\s*(?:(\[)|(\])|(,)|"((?:[^"\\\n]|\\.){0,64})"|'([^'\n]{0,64})'|([^\s\[\],"']{1,64}))""")
_INT = re.compile(r"[+-]?\d{1,9}")
#: A grid with more cells than this is refused before anything else happens (bounded time).
MAX_CELLS = 4096


def _grid_spans(text: str) -> list[tuple[int, int]]:
    """Balanced ``[...]`` spans whose first non-blank character after ``[`` is ``[``."""
    out = []
    for a, b in balanced_spans(text, "[", "]"):
        j = a + 1
        while j < b and text[j] in " \t\r\n":
            j += 1
        if j < b and text[j] == "[":
            out.append((a, b))
    return out


def read_grid_text(span: str) -> list[list]:
    """Read ``[[a, b], [c, d]]`` (depth exactly 2) into raw Python cells. Linear time.

    Cells may be JSON numbers, double- or single-quoted strings, or bare words; ``null`` is None.
    Raises ParseError(reason="malformed") on any other structure.
    """
    rows: list[list] = []
    depth = 0
    row: list | None = None
    expect_value = True
    pos = 0
    n = len(span)
    cells = 0
    while pos < n:
        m = _TOKEN.match(span, pos)
        if m is None:
            if span[pos:].strip() == "":
                break
            raise ParseError(f"unexpected text {span[pos:pos + 20]!r} in the answer grid", "malformed")
        pos = m.end()
        if m.group(1):
            depth += 1
            if depth > 2:
                raise ParseError("the answer grid is nested more than two levels deep", "malformed")
            if depth == 2:
                if not expect_value:
                    raise ParseError("missing comma between rows of the answer grid", "malformed")
                row = []
            expect_value = True
        elif m.group(2):
            if depth == 2:
                rows.append(row)
                row = None
                expect_value = False
            elif depth == 1:
                return rows
            depth -= 1
        elif m.group(3):
            if expect_value:
                # a leading or doubled comma is not JSON; tolerate only a trailing one before ']'
                nxt = _TOKEN.match(span, pos)
                if not (nxt and nxt.group(2)):
                    raise ParseError("an empty cell (doubled comma) in the answer grid", "malformed")
            expect_value = True
        else:
            if depth != 2:
                raise ParseError("a cell outside any row of the answer grid", "malformed")
            if not expect_value:
                raise ParseError("missing comma between cells of the answer grid", "malformed")
            cells += 1
            if cells > MAX_CELLS:
                raise ParseError(f"the answer grid has more than {MAX_CELLS} cells", "too_large")
            if m.group(4) is not None:
                row.append(_unescape(m.group(4)))
            elif m.group(5) is not None:
                row.append(m.group(5))
            else:
                word = m.group(6)
                row.append(None if word == "null" else _Bare(word))
            expect_value = False
    raise ParseError("the answer grid is not closed", "malformed")


class _Bare(str):
    """An unquoted word in the grid (a number or a bare symbol)."""


def _unescape(s: str) -> str:
    if "\\" not in s:
        return s
    try:
        return json.loads('"' + s + '"')
    except ValueError:
        return s


def normalize_cell(value: Any) -> Any:
    """docs/specs/grid_puzzles.md §1 normalisation: numeric strings become ints, letters upper case, blanks stripped."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, float):
        return int(value) if value.is_integer() and abs(value) < 1e9 else value
    if isinstance(value, str):
        s = value.strip()
        if _INT.fullmatch(s):
            return int(s)
        if re.fullmatch(r"[+-]?\d{1,9}\.0*", s):
            return int(float(s))
        return s.upper()
    return value


class SymbolGrid(list):
    """A grid read by :func:`parse_grid`: a list of rows whose cells are each exactly one of the
    puzzle's symbols (normalised, never a bool). ``GridTask.verify`` trusts that and compares it
    with a grid it has already verified on the same instance (step overhead)."""

    __slots__ = ()


#: the canonical text of a symbol the fast reader accepts: an integer, or a short quoted word
#: with no quote, backslash, bracket, comma or blank inside
_SYMBOL_TEXT = re.compile(r'-?\d{1,9}|"[^"\\\[\],\s\']{1,16}"')


@lru_cache(maxsize=256)
def _cell_table(symbols: frozenset) -> dict | None:
    """Each symbol's canonical text (``7``, ``"T"``) -> the symbol; None when some symbol is not
    its own normal form or has a text the fast reader does not take."""
    table = {}
    for s in symbols:
        norm = normalize_cell(s)
        text = json.dumps(s) if isinstance(s, (int, str)) and not isinstance(s, bool) else ""
        if norm != s or type(norm) is not type(s) or not _SYMBOL_TEXT.fullmatch(text):
            return None
        table[text] = s
    return table


@lru_cache(maxsize=256)
def _digit_tables(symbols: frozenset) -> tuple[bytes, bytes] | None:
    """For symbols that include one-digit integers: ``bytes.translate`` tables mapping each such
    digit to a placeholder (NUL) and to the byte of its value; None when there are none."""
    digits = [s for s in symbols if type(s) is int and 0 <= s <= 9]
    if not digits:
        return None
    mask, value = bytearray(range(256)), bytearray(range(256))
    for d in digits:
        mask[48 + d], value[48 + d] = 0, d
    return bytes(mask), bytes(value)


@lru_cache(maxsize=256)
def _layout(width: int, height: int) -> tuple[bytes, tuple[slice, ...]]:
    """The canonical grid (:func:`format_grid`) of this size with every one-character cell a
    placeholder (NUL), and the slice of each row's cells in it."""
    row = 3 * width - 2  # "a, b, c"
    skeleton = b"[\n  [" + b"],\n  [".join([b", ".join([b"\0"] * width)] * height) + b"]\n]"
    return skeleton, tuple(slice(5 + r * (row + 6), 5 + r * (row + 6) + row, 3) for r in range(height))


def _fast_grid(text: str, symbols: frozenset) -> list[list] | None:
    """The canonical answer (:func:`format_grid`: ``[``, one ``  [a, b, c]`` row a line, ``]``),
    maybe after prose, read with a few C-level string operations; None when the text is anything
    else, and the full reader decides.

    Taken only where the full reader reads the same grid: no tag, ``\\boxed``, code fence,
    backslash or NUL anywhere, no ``[`` before the grid, nothing but whitespace after it, and every
    cell exactly the canonical text of a symbol (so no normalising, no quote or bracket inside
    a cell). One-digit cells are matched against the whole grid's layout at once; other cells
    are split and looked up one by one. Linear time; no eval.
    """
    if len(text) > MAX_SCAN or "<" in text or "\\" in text or "`" in text or "\0" in text:
        return None
    start = text.find("[")
    if start < 0:
        return None
    body = text[start:].rstrip()
    digits = _digit_tables(symbols)
    if digits is not None and body.isascii():
        raw = body.encode("ascii")
        row_len = raw.find(b"]") - 5  # after "[\n  ["
        width, height = (row_len + 2) // 3, raw.count(b"\n") - 1
        if width > 0 and height > 0 and width * height <= MAX_CELLS and row_len % 3 == 1:
            skeleton, rows = _layout(width, height)
            if raw.translate(digits[0]) == skeleton:
                values = raw.translate(digits[1])
                return SymbolGrid([list(values[r]) for r in rows])
    if not (body.startswith("[\n  [") and body.endswith("]\n]")):
        return None
    inner = body[5:-3]
    table = _cell_table(symbols)
    if table is None:
        return None
    try:
        grid = [list(map(table.__getitem__, row.split(", "))) for row in inner.split("],\n  [")]
    except KeyError:
        return None
    width = len(grid[0])
    for row in grid:
        if len(row) != width:
            return None
    return SymbolGrid(grid) if width * len(grid) <= MAX_CELLS else None


def parse_grid(text: str, symbols: frozenset, tags: tuple[str, ...] = ("answer",)) -> list[list]:
    """The last complete top-level ``[[...]]`` grid in ``text`` (docs/specs/grid_puzzles.md §1).

    Wrappers (tags, ``\\boxed{}``, code fences, prose) are searched most explicit first; the last
    grid of the first region holding one is read. The grid must be rectangular and every cell
    one of ``symbols`` after normalisation; the first bad cell is named in the error. The
    canonical answer format takes a fast path (:func:`_fast_grid`) that reads the same grid.
    """
    if not isinstance(text, str):
        text = str(text)
    fast = _fast_grid(text, symbols)
    if fast is not None:
        return fast
    for _source, region in answer_regions(text, tags):
        spans = _grid_spans(region)
        if spans:
            a, b = spans[-1]
            grid = _check_grid(read_grid_text(region[a:b]), symbols)
            if len(spans) > 1 and hedged(region, spans[-2][1], a):
                try:
                    other = _check_grid(read_grid_text(region[spans[-2][0]:spans[-2][1]]), symbols)
                except ParseError:
                    other = None
                if other is not None and other != grid:
                    raise ParseError("the answer offers two different grids joined by 'or', 'and', '/', '|' or '=': "
                                     "a hedge, not one answer", "hedge")
            return grid
    scanned = tail(normalize_quotes(text))
    truncated = unclosed_open(scanned[-20000:]) and "[[" in scanned[-20000:]
    raise ParseError("no answer grid (a JSON array of arrays) was found", "no_answer", truncated=truncated)


def _check_grid(raw: list[list], symbols: frozenset) -> list[list]:
    if not raw or not raw[0]:
        raise ParseError("the answer grid is empty", "wrong_shape")
    width = len(raw[0])
    grid = []
    for r, row in enumerate(raw):
        if len(row) != width:
            raise ParseError(f"row {r} has {len(row)} cells but row 0 has {width}", "wrong_shape")
        out = []
        for c, v in enumerate(row):
            nv = normalize_cell(v)
            if nv not in symbols or isinstance(nv, bool):
                raise ParseError(f"cell ({r}, {c}) holds {str(v)[:20]!r}, which is not one of: "
                                 f"{describe_symbols(symbols)}", "bad_symbol")
            out.append(nv)
        grid.append(out)
    return SymbolGrid(grid)


def describe_symbols(symbols) -> str:
    ints = sorted(s for s in symbols if isinstance(s, int))
    strs = sorted(str(s) for s in symbols if isinstance(s, str))
    parts = []
    if ints:
        parts.append(f"{ints[0]}..{ints[-1]}" if len(ints) > 3 and ints == list(range(ints[0], ints[-1] + 1))
                     else ", ".join(map(str, ints)))
    parts += [json.dumps(s) for s in strs]
    return ", ".join(parts)


def format_grid(grid: list[list]) -> str:
    """The canonical answer text: a JSON array of arrays, one row per line."""
    return "[\n" + ",\n".join("  " + json.dumps(list(row)) for row in grid) + "\n]"


def dump_state(state: dict, keys: tuple[str, ...]) -> str:
    """The state JSON of the prompt: keys in docs/specs/grid_puzzles.md §5 order, one grid row per line."""
    lines = ["{"]
    for i, k in enumerate(keys):
        v = state[k]
        sep = "," if i < len(keys) - 1 else ""
        if isinstance(v, list) and v and all(isinstance(r, list) for r in v):
            rows = ",\n".join("    " + json.dumps(r) for r in v)
            lines.append(f'  "{k}": [\n{rows}\n  ]{sep}')
        else:
            lines.append(f'  "{k}": {json.dumps(v)}{sep}')
    lines.append("}")
    return "\n".join(lines)
