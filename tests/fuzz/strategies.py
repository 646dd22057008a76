"""Hypothesis strategies for hostile model output and malformed instances / kwargs."""
from __future__ import annotations

import copy
import math

from hypothesis import strategies as st

#: markers the parsers of some family look for; repeated, nested or unclosed they are the classic
#: triggers of quadratic scans and runaway regexes
MARKERS = ["\\boxed{", "}", "[", "]", "{", "(", ")", "Answer:", "answer =", "Final:", "moves =", "<think>",
           "</think>", "<answer>", "</answer>", "```", "```json", "Next state:", "(A)", "(B)", "'", '"', ",",
           "UNSOLVABLE", "submit", "\\n", "=", ":", "R3C2", "(2,3)", "->", "\u00a0", "\u200b"]
#: look-alikes of digits and letters, control characters, lone surrogates, numbers that overflow
ODD = ["\ud800", "\udfff", "\x00", "\x1b[2J", "\r", "\u202e", "１２３", "Ａｎｓｗｅｒ", "𝟏𝟐", "٣", "NaN", "nan", "inf",
       "-Infinity", "1e999", "-0", "9" * 400, "0x" + "f" * 100, "1/0", "None", "null", "true"]


def _repeat(parts: list[str], n: int) -> str:
    return "".join(parts) * n


hostile_text = st.one_of(
    st.text(max_size=400),
    st.lists(st.sampled_from(MARKERS + ODD), max_size=60).map("".join),
    st.builds(_repeat, st.lists(st.sampled_from(MARKERS + ODD), min_size=1, max_size=3), st.integers(1, 3000)),
    st.builds(lambda a, n, b: a + " " * n + b, st.sampled_from(MARKERS), st.integers(0, 20_000), st.text(max_size=5)),
    st.builds(lambda n: "[" * n + "1" + "]" * n, st.integers(1, 20_000)),
    st.builds(lambda n: "\\boxed{" * n + "}" * n, st.integers(1, 20_000)),
)

#: regression inputs (each once blew up some family), and 1 MB strings
BIG = [
    "Answer" + " " * 800 + "x",
    "Answer" + " " * 20_000 + "x",
    "Final:" + " " * 20_000,
    "\\boxed{" * 25_000 + "}" * 25_000,
    "\\boxed{" * 40_000 + "}" * 40_000,
    "\\boxed{}" * 10_000 + "[1]" * 10_000,
    "[1]" * (10**6 // 3),
    "Next state: ['" + "+".join(["1"] * 120) + "', '2']",
    '[["inf", "Infinity"], ["nan", "1e999"]]',
    "\ud800" * 1000,
    "x" * 1_000_000,
    "[" * 500_000 + "]" * 500_000,
    "9" * 1_000_000,
    "<think>" * 100_000,
    ("moves = [[1, 0, 2]] " * 60_000),
]


def _values():
    return st.one_of(st.none(), st.booleans(), st.integers(-10**30, 10**30), st.floats(allow_nan=True),
                     st.just(math.inf), st.text(max_size=20), st.just([]), st.just({}), st.just([[[[[]]]]]),
                     st.just("\ud800"), st.just(10**18), st.just(-1))


def _paths(d, prefix=()):
    """Every (path) into a JSON-like value, to replace or delete one field."""
    out = []
    if isinstance(d, dict):
        for k, v in d.items():
            out.append(prefix + (k,))
            out += _paths(v, prefix + (k,))
    elif isinstance(d, list):
        for i, v in enumerate(d[:4]):
            out.append(prefix + (i,))
            out += _paths(v, prefix + (i,))
    return out


@st.composite
def malformed(draw, base: dict):
    """``base`` (an instance dict) with one to three fields replaced by odd values or deleted."""
    d = copy.deepcopy(base)
    paths = _paths(d)
    for _ in range(draw(st.integers(1, 3))):
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent = d
        try:
            for k in path[:-1]:
                parent = parent[k]
            if draw(st.booleans()) and isinstance(parent, dict):
                del parent[path[-1]]
            else:
                parent[path[-1]] = draw(_values())
        except (KeyError, IndexError, TypeError):
            continue
        paths = _paths(d)
    return d
