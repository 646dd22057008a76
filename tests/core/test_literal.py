"""The shared bounded literal reader and the memory-safe ``\\boxed{}`` extraction (core/extract.py)."""
from __future__ import annotations

import json
import tracemalloc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kumo_gym.core.errors import ParseError
from kumo_gym.core.extract import Bare, LiteralReader, answer_regions, boxed_contents, boxed_spans, read_literal

atoms = st.one_of(st.integers(-10**9, 10**9), st.text("abcXYZ_019", min_size=1, max_size=6))
nested = st.recursive(st.lists(atoms, max_size=4), lambda inner: st.lists(inner, max_size=4), max_leaves=30)


def python_style(v) -> str:
    """The way models write lists in Python: single quotes, spaces, tuples for inner lists."""
    if isinstance(v, list):
        return "(" + ", ".join(python_style(x) for x in v) + ",)" if v and len(v) % 2 else "[" + ", ".join(
            python_style(x) for x in v) + "]"
    if isinstance(v, str):
        return "'" + v + "'"
    return str(v)


@settings(max_examples=200, deadline=None)
@given(nested)
def test_json_and_python_spellings_read_back(value):
    assert read_literal(json.dumps(value)) == value
    text = "[" + ", ".join(python_style(x) for x in value) + "]"
    assert read_literal(text) == value


def test_bare_words_numbers_keywords_and_comments():
    v = read_literal("[[A_1, 'a_2'], (R, 1, -2), null, true, 1.5, 2e3] # tail", comments=True)
    assert v == [["A_1", "a_2"], ["R", 1, -2], None, True, 1.5, 2000.0]
    assert isinstance(v[0][0], Bare) and not isinstance(v[0][1], Bare)
    assert read_literal("[None]", keywords=False) == ["None"]
    assert read_literal("['(9 - 1)', (9 - 1), 10]", parens="text", bare_text=True) == ["(9 - 1)", "(9 - 1)", 10]
    assert read_literal("[1, 2,]") == [1, 2]  # a trailing comma is tolerated


@pytest.mark.parametrize("text,reason", [
    ("[1,,2]", "malformed"), ("[1 2]", "malformed"), ("[1, ...]", "ellipsis"), ("[1, \u2026]", "ellipsis"),
    ('["abc]', "malformed"), ("[1e999]", "malformed"), ("[" + "9" * 40 + "]", "too_large"), ("[1, 2", "malformed"),
    ("[1]]", "malformed"), ("]", "malformed"), ("", "no_answer"), ("[{'a': 1}]", "malformed"), ("[1)", "malformed"),
])
def test_malformed_literals_raise_parse_error_with_a_reason(text, reason):
    with pytest.raises(ParseError) as e:
        read_literal(text)
    assert e.value.reason == reason


def test_bounds_on_depth_items_and_digits():
    with pytest.raises(ParseError, match="deeper than 3"):
        read_literal("[[[[1]]]]", max_depth=3)
    assert read_literal("[[[1]]]", max_depth=3) == [[[1]]]
    for text in ("[" + "1," * 50 + "1]", "[" + "a," * 50 + "a]"):
        with pytest.raises(ParseError) as e:
            read_literal(text, max_items=50)
        assert e.value.reason == "too_large"
    with pytest.raises(ParseError):
        read_literal("[" * 200_000 + "]" * 200_000)


def test_reader_scans_a_prefix_and_reports_where_it_ended():
    reader = LiteralReader()
    value, end = reader.scan("moves = [[1, 0, 2]] and more", 8)
    assert value == [[1, 0, 2]] and end == 19


def test_nested_boxes_cost_linear_memory():
    text = "\\boxed{" * 40_000 + "}" * 40_000
    tracemalloc.start()
    regions = answer_regions(text)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 50 * len(text), peak  # the old code copied every nested box: ~1.6 GB here
    assert ("boxed", "") in regions
    assert len(boxed_spans(text)) == 40_000 and boxed_contents(text, last=1) == [""]
    assert boxed_contents("a \\boxed{1} b \\boxed{ {2} }") == ["1", " {2} "]
