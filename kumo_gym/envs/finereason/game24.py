"""Game of 24 as a FineReason puzzle tree (docs/specs/finereason.md §2, row "Game of 24").

State: a list of expression strings; the root is the four numbers. Tree edge: for pairs i < j in
order, then ``+``, ``-`` (bigger minus smaller by value; on a tie e_i first), ``*``, ``/`` (bigger
over smaller, only when the division is exact and the divisor is not 0), the new expression is
put first and the rest keep their order; identical sibling lists appear once. Label: some leaf
below equals 24 in this integer tree; the generator also checks that an unrestricted rational
search agrees (docs/specs/finereason.md §2) and skips number sets where it does not.

Expressions are read by :func:`parse_expr`, a tokenizer and recursive-descent parser over
integers, ``+ - * /`` (also ``x``, ``×``, ``÷``, ``−``) and parentheses, with exact
``Fraction`` values. It never calls ``eval`` and rejects anything outside that grammar.
"""
from __future__ import annotations

import re
from collections import Counter
from fractions import Fraction
from functools import lru_cache
from typing import ClassVar

from ...core.errors import ConfigError, ParseError, check_int
from .text import format_value
from .tree import MoveCheck, PuzzleRules, every_rule

TARGET = 24
OPS = "+-*/"
MAX_EXPR_LEN = 400
MAX_NESTING = 40
_TOKEN = re.compile(r"\s*(?:(\d+)|([-+*/()]))")
_UNICODE = str.maketrans({"\u00d7": "*", "\u00f7": "/", "\u2212": "-", "\u2013": "-", "\u00b7": "*",
                          "\u2217": "*", "\u2215": "/"})


# ---- expressions ---------------------------------------------------------------------------
# An expression tree is an int (a leaf) or a tuple (op, left, right).

def tokenize(text: str) -> list[str]:
    """Tokens of ``text``; ParseError on any character outside the grammar."""
    if len(text) > MAX_EXPR_LEN:
        raise ParseError(f"expression longer than {MAX_EXPR_LEN} characters", reason="malformed_expression")
    text = text.translate(_UNICODE)
    tokens, i = [], 0
    while i < len(text):
        if text[i].isspace():
            i += 1
            continue
        m = _TOKEN.match(text, i)
        if not m:
            raise ParseError(f"unexpected character {text[i]!r} in expression {text!r}",
                             reason="malformed_expression")
        tok = m.group(1) or m.group(2)
        if m.group(1) and len(tok) > 12:
            raise ParseError(f"number {tok[:20]}... is too long", reason="malformed_expression")
        tokens.append(tok)
        i = m.end()
    return tokens


class _Parser:
    """expr := term (('+'|'-') term)* ; term := factor (('*'|'/') factor)* ;
    factor := INT | '(' expr ')'"""

    def __init__(self, tokens: list[str], text: str):
        self.t = tokens
        self.i = 0
        self.text = text
        self.depth = 0

    def fail(self, what: str):
        raise ParseError(f"{what} in expression {self.text!r}", reason="malformed_expression")

    def peek(self):
        return self.t[self.i] if self.i < len(self.t) else None

    def _left_assoc(self, ops, operand):
        """``operand (op operand)*`` for the operators ``ops``, grouped from the left."""
        node = operand()
        while self.peek() in ops:
            op = self.t[self.i]
            self.i += 1
            node = (op, node, operand())
        return node

    def expr(self):
        return self._left_assoc(("+", "-"), self.term)

    def term(self):
        return self._left_assoc(("*", "/"), self.factor)

    def factor(self):
        tok = self.peek()
        if tok is None:
            self.fail("unexpected end")
        if tok == "(":
            self.depth += 1
            if self.depth > MAX_NESTING:
                self.fail("parentheses nested too deeply")
            self.i += 1
            node = self.expr()
            if self.peek() != ")":
                self.fail("missing ')'")
            self.i += 1
            self.depth -= 1
            return node
        if tok.isdigit():
            self.i += 1
            return int(tok)
        self.fail(f"unexpected {tok!r}")


@lru_cache(maxsize=65536)
def parse_expr(text: str):
    """The expression tree of ``text`` (ints and ``(op, left, right)`` tuples)."""
    if not isinstance(text, str):
        raise ParseError(f"expression {text!r} is not text", reason="malformed_expression")
    tokens = tokenize(text)
    p = _Parser(tokens, text)
    node = p.expr()
    if p.i != len(tokens):
        p.fail(f"unexpected {tokens[p.i]!r}")
    return node


def value(node) -> Fraction:
    """The exact value; ZeroDivisionError on division by zero."""
    if isinstance(node, int):
        return Fraction(node)
    op, a, b = node
    x, y = value(a), value(b)
    if op == "+":
        return x + y
    if op == "-":
        return x - y
    if op == "*":
        return x * y
    if y == 0:
        raise ZeroDivisionError("division by zero")
    return x / y


def to_text(node) -> str:
    """Fully parenthesised form ``(L op R)`` with single spaces; a leaf is its number."""
    if isinstance(node, int):
        return str(node)
    op, a, b = node
    return f"({to_text(a)} {op} {to_text(b)})"


def canon(node) -> str:
    """:func:`to_text` with the operands of ``+`` and ``*`` sorted (recursively), for equality."""
    if isinstance(node, int):
        return str(node)
    op, a, b = node
    x, y = canon(a), canon(b)
    if op in "+*" and y < x:
        x, y = y, x
    return f"({x} {op} {y})"


def _replace_first_leaf(node, new: int):
    if isinstance(node, int):
        return new
    return (node[0], _replace_first_leaf(node[1], new), node[2])


def leaves(node) -> list[int]:
    if isinstance(node, int):
        return [node]
    return leaves(node[1]) + leaves(node[2])


@lru_cache(maxsize=65536)
def expr_value(text: str) -> Fraction:
    return value(parse_expr(text))


# ---- the tree ------------------------------------------------------------------------------
def combine(a: str, va: Fraction, b: str, vb: Fraction) -> list[str]:
    """The canonical child expressions of the pair (a, b), a first (docs/specs/finereason.md §2)."""
    out = [f"({a} + {b})"]
    out.append(f"({a} - {b})" if va >= vb else f"({b} - {a})")
    out.append(f"({a} * {b})")
    big, vbig, small, vsmall = (a, va, b, vb) if va >= vb else (b, vb, a, va)
    if vsmall != 0 and (vbig / vsmall).denominator == 1:
        out.append(f"({big} / {small})")
    return out


def _integer_results(x: Fraction, y: Fraction) -> list[Fraction]:
    """The values of the tree's children of a pair: + , bigger - smaller, *, exact division."""
    big, small = (x, y) if x >= y else (y, x)
    out = [x + y, big - small, x * y]
    if small != 0 and (big / small).denominator == 1:
        out.append(big / small)
    return out


def _rational_results(x: Fraction, y: Fraction) -> list[Fraction]:
    """Every value of one operation on the pair, in either order, any non-zero divisor."""
    out = [x + y, x - y, y - x, x * y]
    if y != 0:
        out.append(x / y)
    if x != 0:
        out.append(y / x)
    return out


@lru_cache(maxsize=200_000)
def _search(values: tuple, rational: bool) -> bool:
    """Some sequence of combinations of ``values`` (a sorted multiset) ends at 24."""
    if len(values) == 1:
        return values[0] == TARGET
    results = _rational_results if rational else _integer_results
    n = len(values)
    for i in range(n):
        for j in range(i + 1, n):
            rest = values[:i] + values[i + 1:j] + values[j + 1:]
            if any(_search(tuple(sorted((*rest, v))), rational) for v in results(values[i], values[j])):
                return True
    return False


def _reaches_target(values: tuple) -> bool:
    """The integer-tree label over values only (memoised on the sorted multiset)."""
    return _search(tuple(sorted(values)), False)


def rational_reaches_target(values: tuple) -> bool:
    """Unrestricted exact search: any order of ``-`` and ``/``, any non-zero divisor."""
    return _search(tuple(sorted(values)), True)


class Game24Rules(PuzzleRules):
    name = "game24"
    min_depth = 1
    presets: ClassVar[dict] = {"easy": {"max_number": 9}, "normal": {"max_number": 13}, "hard": {"max_number": 20}}

    def root(self, data):
        return list(data["numbers"])

    def children(self, data, state):
        vals = [expr_value(e) for e in state]
        seen, out = set(), []
        for i in range(len(state)):
            for j in range(i + 1, len(state)):
                rest = [state[m] for m in range(len(state)) if m not in (i, j)]
                for new in combine(state[i], vals[i], state[j], vals[j]):
                    child = [new] + rest
                    key = tuple(child)
                    if key not in seen:
                        seen.add(key)
                        out.append((None, child))
        return out

    def is_complete(self, data, state):
        return len(state) == 1

    def is_solution(self, data, state):
        return len(state) == 1 and expr_value(state[0]) == TARGET

    def solvable(self, data, state):
        return _reaches_target(tuple(sorted(expr_value(e) for e in state)))

    def max_depth(self, data):
        return 2

    def feasible_depths(self, data):
        return [1, 2]

    def same(self, data, a, b):
        try:
            return Counter(canon(parse_expr(e)) for e in a) == Counter(canon(parse_expr(e)) for e in b)
        except ParseError:
            return False

    def check_forward(self, data, parent, candidate, enabled=every_rule, allow_noop=True):
        try:
            pc = Counter(canon(parse_expr(e)) for e in parent)
            trees = [parse_expr(e) for e in candidate]
        except ParseError:  # states come from normalize(), so only a hand-made parent can get here
            return MoveCheck("allowed_values", "malformed_expression")
        cc = Counter(canon(t) for t in trees)
        if pc == cc:
            return MoveCheck("changes_state", "no_change") if enabled("changes_state") else MoveCheck(child=candidate)
        right_length = len(candidate) == len(parent) - 1
        if not right_length and enabled("single_move"):
            return MoveCheck("single_move", "wrong_length")
        numbers = Counter(int(x) for x in data["numbers"])
        if Counter(x for t in trees for x in leaves(t)) != numbers and enabled("allowed_values"):
            return MoveCheck("allowed_values", "different_numbers")
        added, removed = cc - pc, pc - cc
        if right_length:
            intact = sum(added.values()) == 1 and sum(removed.values()) == 2
            if not intact and enabled("keeps_filled"):  # an expression that was not joined changed
                return MoveCheck("keeps_filled", "not_single_combination")
            # the new expression joins exactly two expressions of the parent with one operator
            pool = removed if intact else pc
            joins = any(not isinstance(t, int) and canon(t) in added
                        and not Counter([canon(t[1]), canon(t[2])]) - pool for t in trees)
            if not joins and enabled("single_move"):
                return MoveCheck("single_move", "not_single_combination")
        if enabled("no_conflict"):
            for t in trees:
                try:
                    value(t)
                except ZeroDivisionError:
                    return MoveCheck("no_conflict", "division_by_zero")
        return MoveCheck(child=candidate)

    def illegal_moves(self, data, state, rng, allow_noop=True):
        out = [("changes_state", list(state))]
        n = len(state)
        if n < 2:
            return out
        pairs = [(0, 1), (n - 2, n - 1)] + [tuple(sorted(int(x) for x in rng.choice(n, 2, replace=False)))]
        for i, j in dict.fromkeys(pairs):
            rest = [state[m] for m in range(n) if m not in (i, j)]
            a, b = state[i], state[j]
            # one number of the pair swapped for one that is not given
            leaf = leaves(parse_expr(a))[0]
            other = 97 if leaf != 97 else 98
            changed = to_text(_replace_first_leaf(parse_expr(a), other))
            out.append(("allowed_values", [f"({changed} + {b})"] + rest))
            if rest:  # three expressions joined at once
                out.append(("single_move", [f"(({a} + {b}) * {rest[0]})"] + rest[1:]))
            zero = next((e for e in (a, b) if expr_value(e) == 0), None)
            if zero is not None:
                out.append(("no_conflict", [f"({b if zero == a else a} / {zero})"] + rest))
            compound = next((e for e in rest if not isinstance(parse_expr(e), int)), None)
            if compound is not None:  # an expression that is not joined is rewritten
                t = parse_expr(compound)
                other_op = to_text(("*" if t[0] == "+" else "+", t[1], t[2]))
                out.append(("keeps_filled", [f"({a} + {b})"] + [other_op if e == compound else e for e in rest]))
        return out

    def normalize(self, data, raw):
        if not isinstance(raw, list) or not 1 <= len(raw) <= 4:
            raise ValueError("a Game of 24 state is a list of 1 to 4 expressions")
        if sum(len(str(e)) for e in raw) > MAX_EXPR_LEN:
            raise ValueError(f"a Game of 24 state is at most {MAX_EXPR_LEN} characters")
        out = []
        for e in raw:
            if isinstance(e, bool) or not isinstance(e, (int, float, str)):
                raise TypeError(f"element {e!r} is not an expression")
            if isinstance(e, float):
                if not e.is_integer():
                    raise ValueError(f"element {e!r} is not an integer expression")
                e = int(e)
            try:
                tree = parse_expr(str(e))
            except ParseError as err:
                raise ValueError(str(err)) from None
            # written back as text, the state must parse again: a state of more than four numbers would not
            if len(leaves(tree)) > 4:
                raise ValueError(f"expression {str(e)[:40]!r} uses more than the four numbers")
            out.append(to_text(tree))
        return out

    def format_state(self, state):
        return format_value(list(state))

    def validate_data(self, data):
        nums = data.get("numbers")
        if not (isinstance(nums, list) and len(nums) == 4 and all(
                isinstance(x, str) and x.isdigit() and len(x) <= 4 for x in nums)):
            raise ConfigError("puzzle_data.numbers must be four numbers written as strings of digits, e.g. "
                              "['1', '9', '10', '13']")

    def generate(self, rng, params):
        hi = check_int("max_number", params.get("max_number", 13), 4, 99)
        for _ in range(10_000):
            nums = sorted(int(x) for x in rng.integers(1, hi + 1, size=4))
            vals = tuple(Fraction(x) for x in nums)
            if _reaches_target(vals) and rational_reaches_target(vals):
                return {"numbers": [str(x) for x in nums]}
        raise RuntimeError("no solvable Game of 24 numbers found")  # unreachable for hi >= 4

    def rules_text(self, data):
        return ("Game of 24: combine the four numbers with +, -, * and / so that the result is 24. Each "
                "number is used exactly once. A state is the list of expressions still to be combined; "
                "it is solved when one expression is left and it equals 24.")

    def data_text(self, data):
        return "The numbers: " + ", ".join(data["numbers"]) + "."

    move_rule = ("A forward move takes exactly two expressions of the state and replaces them with one new "
                 "expression that joins them with one operator, written with parentheses, e.g. (a + b); "
                 "division by zero is not allowed. The new expression goes first; the others keep their order.")

    backward_rule = "A backward move splits the last combination again, returning to the previous state."

    def from_reference(self, inputs: dict, outputs: dict) -> dict:
        """Puzzle data from a reference ``game24_*`` row (``initial_state``: four numeric strings)."""
        nums = inputs["initial_state"]
        return {"numbers": [str(int(str(x))) for x in nums]}


RULES = Game24Rules()
#: a reference row read as puzzle data (:meth:`~.tree.PuzzleRules.load_question`)
load_question = RULES.load_question
