"""Logic grid puzzles as a FineReason puzzle tree (spec finereason.md §2 row "Logic grid", §3).

State: a table (header row of category names, one row per entity, first column pre-filled, ``''``
= empty) together with the clues applied so far. Tree edge: apply one not-yet-applied clue - place
the clue's unplaced mentioned values so that the clue holds (canonical semantics of §3). Label:
Solvable iff the filled cells extend to a full table that satisfies every clue (the puzzles have
unique solutions, so this is "every filled cell agrees with the solution").

Clue conditions are written in a small language and read by a tokenizer and recursive-descent
parser (:func:`parse_clue`); nothing is ever passed to ``eval``::

    expr  := and ('or' and)*            and  := cmp ('and' cmp)*
    cmp   := sum (('=='|'!='|'<'|'>'|'<='|'>=') sum)?
    sum   := unary (('+'|'-') unary)*   unary := '-' unary | atom
    atom  := NUMBER | STRING | cell | '(' expr ')'
    cell  := 'T' '[' 'r' '(' (NUMBER|STRING) ')' ']' '[' 'c' '(' STRING ')' ']'

The generator draws a random solution over our own category vocabulary and adds clues from a few
templates (same entry, different entries, before/after, exact offset, either-or) until the
solution is unique.
"""
from __future__ import annotations

import json
import re
from collections import OrderedDict
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from functools import lru_cache

from ...core.errors import ConfigError, ParseError, check_int
from .text import format_value
from .tree import PuzzleRules

MAX_CLUE_LEN = 4000
MAX_NESTING = 60


# ---- the clue language ---------------------------------------------------------------------
_TOKEN = re.compile(r"""\s*(?:
    (?P<num>\d+(?:\.\d+)?)
  | (?P<str>'[^'\n]*'|"[^"\n]*")
  | (?P<op>==|!=|<=|>=|<|>|\+|-|\[|\]|\(|\))
  | (?P<word>[A-Za-z_]+)
)""", re.VERBOSE)
WORDS = ("T", "r", "c", "and", "or")


def tokenize_clue(text: str) -> list[tuple[str, object]]:
    if not isinstance(text, str):
        raise ParseError(f"clue {text!r} is not text", reason="malformed_clue")
    if len(text) > MAX_CLUE_LEN:
        raise ParseError(f"clue longer than {MAX_CLUE_LEN} characters", reason="malformed_clue")
    out, i = [], 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return out
        m = _TOKEN.match(text, i)
        if not m or m.end() == i:
            raise ParseError(f"unexpected character {text[i]!r} in clue {text[:80]!r}", reason="malformed_clue")
        if m.group("num"):
            out.append(("num", Fraction(Decimal(m.group("num")))))
        elif m.group("str"):
            out.append(("str", m.group("str")[1:-1]))
        elif m.group("op"):
            out.append(("op", m.group("op")))
        else:
            w = m.group("word")
            if w not in WORDS:
                raise ParseError(f"word {w!r} is not part of the clue language ({', '.join(WORDS)})",
                                 reason="malformed_clue")
            out.append(("word", w))
        i = m.end()


class _ClueParser:
    # AST nodes: ("or", [..]) ("and", [..]) ("cmp", op, a, b) ("bin", op, a, b) ("neg", a)
    # ("lit", value) ("cell", key, column)
    def __init__(self, tokens, text):
        self.t = tokens
        self.i = 0
        self.text = text
        self.depth = 0

    def fail(self, what):
        raise ParseError(f"{what} in clue {self.text[:80]!r}", reason="malformed_clue")

    def peek(self):
        return self.t[self.i] if self.i < len(self.t) else (None, None)

    def take(self, kind, val=None):
        k, v = self.peek()
        if k != kind or (val is not None and v != val):
            self.fail(f"expected {val or kind}, found {v!r}")
        self.i += 1
        return v

    def expr(self):
        self.depth += 1
        if self.depth > MAX_NESTING:
            self.fail("nested too deeply")
        parts = [self.conj()]
        while self.peek() == ("word", "or"):
            self.i += 1
            parts.append(self.conj())
        self.depth -= 1
        return parts[0] if len(parts) == 1 else ("or", parts)

    def conj(self):
        parts = [self.cmp()]
        while self.peek() == ("word", "and"):
            self.i += 1
            parts.append(self.cmp())
        return parts[0] if len(parts) == 1 else ("and", parts)

    def cmp(self):
        a = self.sum()
        k, v = self.peek()
        if k == "op" and v in ("==", "!=", "<", ">", "<=", ">="):
            self.i += 1
            return ("cmp", v, a, self.sum())
        return a

    def sum(self):
        a = self.unary()
        while self.peek() in (("op", "+"), ("op", "-")):
            op = self.t[self.i][1]
            self.i += 1
            a = ("bin", op, a, self.unary())
        return a

    def unary(self):
        if self.peek() == ("op", "-"):
            self.i += 1
            self.depth += 1
            if self.depth > MAX_NESTING:
                self.fail("nested too deeply")
            node = ("neg", self.unary())
            self.depth -= 1
            return node
        return self.atom()

    def atom(self):
        k, v = self.peek()
        if k in ("num", "str"):
            self.i += 1
            return ("lit", v)
        if (k, v) == ("op", "("):
            self.i += 1
            node = self.expr()
            self.take("op", ")")
            return node
        if (k, v) == ("word", "T"):
            self.i += 1
            self.take("op", "[")
            self.take("word", "r")
            self.take("op", "(")
            kk, key = self.peek()
            if kk not in ("num", "str"):
                self.fail("r(...) needs a number or a string")
            self.i += 1
            self.take("op", ")")
            self.take("op", "]")
            self.take("op", "[")
            self.take("word", "c")
            self.take("op", "(")
            col = self.take("str")
            self.take("op", ")")
            self.take("op", "]")
            return ("cell", key, col)
        self.fail(f"unexpected {v!r}")


@lru_cache(maxsize=4096)
def parse_clue(text: str):
    """The syntax tree of a clue condition; ParseError for anything outside the grammar."""
    tokens = tokenize_clue(text)
    if not tokens:
        raise ParseError("empty clue", reason="malformed_clue")
    p = _ClueParser(tokens, text)
    node = p.expr()
    if p.i != len(tokens):
        p.fail(f"unexpected {p.t[p.i][1]!r}")
    return node


class _Fail(Exception):
    """An evaluation error: the whole clue is False (§3)."""


def as_value(x):
    """A table value in the interpreter's terms: numbers as exact Fractions via their shortest text."""
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, int):
        return Fraction(x)
    if isinstance(x, float):
        try:
            return Fraction(Decimal(repr(x)))
        except (InvalidOperation, ValueError):
            return str(x)
    return x


def _equal(a, b) -> bool:
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return a == b
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    return False


class Table:
    """A table prepared for lookups (converted values, header index, row of each value)."""

    def __init__(self, table):
        self.header = list(table[0])
        self.rows = [[as_value(x) for x in row] for row in table[1:]]

    def row_of(self, key):
        for i, row in enumerate(self.rows):
            for x in row:
                if _equal(x, key):
                    return i
        return None

    def lookup(self, key, col):
        i = self.row_of(key)
        if i is None or col not in self.header:
            return ""
        return self.rows[i][self.header.index(col)]


def _num(x):
    if not isinstance(x, Fraction):
        raise _Fail
    return x


def _eval(node, t: Table):
    kind = node[0]
    if kind == "lit":
        return node[1]
    if kind == "cell":
        return t.lookup(node[1], node[2])
    if kind == "neg":
        return -_num(_eval(node[1], t))
    if kind == "bin":
        a, b = _num(_eval(node[2], t)), _num(_eval(node[3], t))
        return a + b if node[1] == "+" else a - b
    if kind == "cmp":
        op = node[1]
        a, b = _eval(node[2], t), _eval(node[3], t)
        if op == "==":
            return _equal(a, b)
        if op == "!=":
            return not _equal(a, b)
        a, b = _num(a), _num(b)
        return {"<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b}[op]
    if kind == "and":
        return all(_truth(_eval(p, t)) for p in node[1])
    if kind == "or":
        return any(_truth(_eval(p, t)) for p in node[1])
    raise _Fail


def _truth(v) -> bool:
    if isinstance(v, bool):
        return v
    raise _Fail


def clue_holds(condition: str | tuple, table) -> bool:
    """Evaluate a clue on a table; any evaluation failure makes it False (§3)."""
    node = parse_clue(condition) if isinstance(condition, str) else condition
    t = table if isinstance(table, Table) else Table(table)
    try:
        return _truth(_eval(node, t))
    except _Fail:
        return False


def _literals(node, out: list):
    """Mentioned literals (§3): r(...) keys and direct operands of ==/!= opposite a cell."""
    kind = node[0]
    if kind == "cell":
        out.append((node[1], None))
    elif kind == "cmp":
        a, b = node[2], node[3]
        if node[1] in ("==", "!="):
            if a[0] == "lit" and b[0] == "cell":
                out.append((a[1], b[2]))
            if b[0] == "lit" and a[0] == "cell":
                out.append((b[1], a[2]))
        _literals(a, out)
        _literals(b, out)
    elif kind in ("and", "or"):
        for p in node[1]:
            _literals(p, out)
    elif kind == "bin":
        _literals(node[2], out)
        _literals(node[3], out)
    elif kind == "neg":
        _literals(node[1], out)


def clue_columns(node) -> set[tuple[str, object]]:
    """What a clue depends on: ``("name", column)`` and ``("key", row key)`` pairs."""
    cols: set[int] = set()

    def visit(n):
        k = n[0]
        if k == "cell":
            cols.add(("name", n[2]))
            cols.add(("key", n[1]))
        elif k in ("and", "or"):
            for p in n[1]:
                visit(p)
        elif k in ("cmp", "bin"):
            visit(n[2])
            visit(n[3])
        elif k == "neg":
            visit(n[1])

    visit(node)
    return cols


# ---- puzzle data helpers ---------------------------------------------------------------------
def _domain_column(data: dict, value, preferred: str | None = None) -> int | None:
    header = data["initial"][0]
    v = as_value(value) if not isinstance(value, (Fraction, str)) else value
    if preferred is not None and preferred in header:
        j = header.index(preferred)
        if any(_equal(as_value(x), v) for x in data["domains"][j]):
            return j
    for j, dom in enumerate(data["domains"]):
        if any(_equal(as_value(x), v) for x in dom):
            return j
    return None


def _domain_value(data: dict, j: int, v):
    """The domain's own value (with its JSON type) equal to interpreter value ``v``."""
    for x in data["domains"][j]:
        if _equal(as_value(x), v):
            return x
    return None


def mentioned_values(data: dict, condition: str) -> list[tuple[int, object]]:
    """The clue's mentioned values as ``(column, value)``, in column order then first mention."""
    lits: list = []
    _literals(parse_clue(condition), lits)
    seen, out = set(), []
    for v, col in lits:
        j = _domain_column(data, v, col)
        if j is None:  # a constant outside every domain (e.g. a typo in the reference): never placed
            continue
        x = _domain_value(data, j, v)
        key = (j, format_value(x))
        if key not in seen:
            seen.add(key)
            out.append((j, x))
    order = {k: i for i, k in enumerate(out)}
    return sorted(out, key=lambda jx: (jx[0], order[jx]))


def _placed(table, j, x) -> bool:
    return any(_equal(as_value(row[j]), as_value(x)) for row in table[1:])


def apply_clue(data: dict, table, clue_id: str) -> list[list]:
    """The child tables of applying clue ``clue_id`` to ``table`` (canonical semantics, §3)."""
    cond = data["clues"][clue_id]["conditions"]
    todo = [(j, x) for j, x in mentioned_values(data, cond) if not _placed(table, j, x)]
    if not todo:
        return [table] if clue_holds(cond, table) else []
    n_rows = len(table) - 1
    out = []

    def place(k, t, used):
        if k == len(todo):
            if clue_holds(cond, t):
                out.append(t)
            return
        j, x = todo[k]
        for i in range(n_rows):
            if t[i + 1][j] == "" and (j, i) not in used:
                nt = [list(row) for row in t]
                nt[i + 1][j] = x
                place(k + 1, nt, used | {(j, i)})

    place(0, [list(row) for row in table], frozenset())
    return out


# ---- the solver --------------------------------------------------------------------------------
# Partial evaluation for pruning. On a partly filled table a clue is T (true in every completion),
# F (false), X (an evaluation failure, so the clue is False), N (F or X, not known which) or U
# (unknown). Known cells never change as the search fills more cells, so a verdict other than U
# is final; the search prunes a branch as soon as some clue is F, X or N. A complete table is
# always checked with the exact two-valued interpreter (:func:`clue_holds`).
_T, _F, _X, _N, _U = "T", "F", "X", "N", "U"


class _Partial:
    def __init__(self, data, table):
        self.header = table[0]
        self.t = table
        self.key_cols: dict = {}
        self.domains = [[as_value(x) for x in d] for d in data["domains"]]

    def cols_of(self, key):
        f = format_value(key) + type(key).__name__
        if f not in self.key_cols:
            self.key_cols[f] = [j for j, d in enumerate(self.domains) if any(_equal(x, key) for x in d)]
        return self.key_cols[f]

    def lookup(self, key, col):
        if col not in self.header:
            return ""
        cols = self.cols_of(key)
        if not cols:
            return ""
        if len(cols) > 1:  # the first-row-containing rule could pick either column: wait for a full table
            return _U
        jk, jc = cols[0], self.header.index(col)
        for i, row in enumerate(self.t[1:], start=1):
            if row[jk] != "" and _equal(as_value(row[jk]), key):
                v = row[jc]
                return _Ref(i, jk, jc) if v == "" else as_value(v)
        return _Ref(None, jk, jc)

    def row_of(self, j, v):
        for i, row in enumerate(self.t[1:], start=1):
            if row[j] != "" and _equal(as_value(row[j]), v):
                return i
        return None

    def same(self, a, b):
        """_T/_F/_U for the equality of two operands, one of them at least a _Ref."""
        if isinstance(a, _Ref) and isinstance(b, _Ref):
            if a.row is not None and b.row is not None and a.col == b.col:
                return _T if a.row == b.row else _F
            return _U
        if isinstance(b, _Ref):
            a, b = b, a
        # a is an unknown cell of column a.col; b is a known value
        if not any(_equal(x, b) for x in self.domains[a.col]):
            return _F  # a full table only holds domain values in that column
        k = self.row_of(a.col, b)
        if k is None:
            return _U
        if a.row is not None:
            return _T if a.row == k else _F
        # the key is not placed yet: it can only share row k if row k is still free in its column
        return _U if self.t[k][a.key_col] == "" else _F


class _Ref:
    """An unknown cell: column ``col`` of the row that holds (or will hold) a key of ``key_col``."""

    __slots__ = ("col", "key_col", "row")

    def __init__(self, row, key_col, col):
        self.row, self.key_col, self.col = row, key_col, col


def _peval(node, p: _Partial):
    """Value, _U or _X for value nodes; _T/_F/_X/_N/_U for boolean nodes."""
    kind = node[0]
    if kind == "lit":
        return node[1]
    if kind == "cell":
        return p.lookup(node[1], node[2])
    if kind == "neg":
        v = _peval(node[1], p)
        if isinstance(v, _Ref):
            return _U
        if v in (_U, _X):
            return v
        return -v if isinstance(v, Fraction) else _X
    if kind in ("bin", "cmp"):
        op = node[1]
        a, b = _peval(node[2], p), _peval(node[3], p)
        if a == _X or b == _X:
            return _X
        if kind == "cmp" and op in ("==", "!=") and (isinstance(a, _Ref) or isinstance(b, _Ref)):
            if a == _U or b == _U:
                return _U
            v = p.same(a, b)
            return v if (v == _U or op == "==") else (_F if v == _T else _T)
        a = _U if isinstance(a, _Ref) else a
        b = _U if isinstance(b, _Ref) else b
        numeric = kind == "bin" or op not in ("==", "!=")
        if numeric and ((a != _U and not isinstance(a, Fraction)) or (b != _U and not isinstance(b, Fraction))):
            return _X
        if a == _U or b == _U:
            return _U
        if kind == "bin":
            return a + b if op == "+" else a - b
        if op == "==":
            return _T if _equal(a, b) else _F
        if op == "!=":
            return _F if _equal(a, b) else _T
        return _T if {"<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b}[op] else _F
    if kind == "and":
        unknown = False
        for part in node[1]:
            v = _peval(part, p)
            if v == _T:
                continue
            if v in (_F, _X):
                return v if not unknown else _N
            if v == _N:
                return _N
            if v == _U:
                unknown = True
            else:  # a bare value used as a condition
                return _X if not unknown else _N
        return _U if unknown else _T
    if kind == "or":
        unknown = False
        for part in node[1]:
            v = _peval(part, p)
            if v == _F:
                continue
            if v == _T:
                return _U if unknown else _T
            if v == _X:
                return _U if unknown else _X
            if v in (_N, _U):
                unknown = True
                continue
            return _U if unknown else _X
        return _U if unknown else _F
    return _X


def solve_table(data: dict, table=None, limit: int = 2, clue_ids=None) -> tuple[int, list | None]:
    """Count full tables (up to ``limit``) that extend ``table`` and satisfy the clues.

    Depth-first over the empty cells' values: for each column, each value not yet placed is put
    into a free row, and every clue not yet known to hold is re-checked with the sound
    three-valued evaluation, so a branch dies as soon as a clue is certainly false. Returns the
    count and the first table found.
    """
    table = [list(r) for r in (table if table is not None else data["initial"])]
    n_rows, n_cols = len(table) - 1, len(table[0])
    ids = list(data["clues"]) if clue_ids is None else list(clue_ids)
    nodes = [parse_clue(data["clues"][cid]["conditions"]) for cid in ids]
    if sorted(map(format_value, data["domains"][0])) != sorted(format_value(r[0]) for r in table[1:]):
        return 0, None
    todo = []  # (column, value) still to place, column by column
    for j in range(1, n_cols):
        dom = data["domains"][j]
        present = [format_value(row[j]) for row in table[1:] if row[j] != ""]
        dom_f = [format_value(x) for x in dom]
        if len(set(present)) != len(present) or any(f not in dom_f for f in present):
            return 0, None
        todo += [(j, x) for x, f in zip(dom, dom_f) if f not in present]
    found: list = []
    count = 0
    part = _Partial(data, table)

    def check(pending):
        still = []
        for node in pending:
            v = _peval(node, part)
            if v == _T:
                continue
            if v in (_F, _X, _N) or not isinstance(v, str):
                return None
            still.append(node)
        return still

    def options(j, x, pending):
        """Rows where value x of column j can go now, with the clues still undecided there."""
        out = []
        for i in range(1, n_rows + 1):
            if table[i][j] == "":
                table[i][j] = x
                still = check(pending)
                table[i][j] = ""
                if still is not None:
                    out.append((i, still))
        return out

    def rec(left, pending):
        # minimum-remaining-values: place the value with the fewest possible rows first
        nonlocal count
        if not left:
            if all(clue_holds(node, table) for node in nodes):
                count += 1
                if not found:
                    found.append([list(r) for r in table])
            return count >= limit
        best = None
        for idx, (j, x) in enumerate(left):
            opts = options(j, x, pending)
            if best is None or len(opts) < len(best[1]):
                best = (idx, opts)
                if len(opts) <= 1:
                    break
        idx, opts = best
        j, x = left[idx]
        rest = left[:idx] + left[idx + 1:]
        for i, still in opts:
            table[i][j] = x
            stop = rec(rest, still)
            table[i][j] = ""
            if stop:
                return True
        return False

    start = check(nodes)
    if start is not None:
        rec(todo, start)
    return count, (found[0] if found else None)


# ---- the rules -----------------------------------------------------------------------------
def _clue_order(data) -> list[str]:
    return sorted(data["clues"], key=lambda c: (int(c) if str(c).isdigit() else 10**9, str(c)))


class LogicGridRules(PuzzleRules):
    name = "logicgrid"
    min_depth = 1

    def root(self, data):
        return {"table": [list(r) for r in data["initial"]], "applied": []}

    def children(self, data, state):
        out = []
        for cid in _clue_order(data):
            if cid in state["applied"]:
                continue
            for t in apply_clue(data, state["table"], cid):
                out.append((cid, {"table": t, "applied": state["applied"] + [cid]}))
        return out

    def is_complete(self, data, state):
        return len(state["applied"]) == len(data["clues"])

    def solvable(self, data, state):
        return solvable_table(data, state["table"])

    def visible(self, state):
        return state["table"]

    def max_depth(self, data):
        return len(data["clues"]) - 1

    def forward_error(self, data, parent, candidate):
        for cid in _clue_order(data):
            if cid in parent["applied"]:
                continue
            for t in apply_clue(data, parent["table"], cid):
                if t == candidate:
                    return None, {"table": t, "applied": parent["applied"] + [cid]}
        if candidate == parent["table"]:
            return "no_change", None
        return "not_clue_application", None

    def normalize(self, data, raw):
        header = data["initial"][0]
        n = len(data["initial"])
        if not (isinstance(raw, list) and len(raw) == n and all(isinstance(r, list) and len(r) == len(header)
                                                                  for r in raw)):
            raise ValueError(f"a table is a list of {n} rows of {len(header)} cells, the header first")
        if [str(x) for x in raw[0]] != header:
            raise ValueError(f"the first row must be the header {header}")
        out = [list(header)]
        for row in raw[1:]:
            cells = []
            for j, x in enumerate(row):
                if isinstance(x, bool) or not isinstance(x, (int, float, str)):
                    raise TypeError(f"cell {x!r} is not a value")
                if x == "":
                    cells.append("")
                    continue
                # quoted numbers and bare words map onto the column's own value when one matches
                v = as_value(x)
                own = _domain_value(data, j, v)
                if own is None and isinstance(x, str):
                    try:
                        own = _domain_value(data, j, Fraction(Decimal(x.strip())))
                    except (InvalidOperation, ValueError):
                        own = None
                cells.append(own if own is not None else x)
            out.append(cells)
        return out

    def format_state(self, state):
        table = state["table"] if isinstance(state, dict) else state
        return "[" + ",\n ".join(format_value(row) for row in table) + "]"

    def generate(self, rng, params):
        return generate_puzzle(rng, check_int("n_rows", params.get("n_rows", 4), 3, 6),
                               check_int("n_categories", params.get("n_categories", 3), 2, 5))

    def rules_text(self, data):
        return ("Logic grid puzzle: every entity (a row of the table) gets exactly one value from each "
                "category, and no value is used twice within a category. The clues decide the matching. In "
                "a table the first row names the categories and '' marks an empty cell.")

    def data_text(self, data):
        lines = [data["question"], "", "Categories:", data["categories"], "", "Clues:"]
        lines += [f"{cid}. {data['clues'][cid]['text']}" for cid in _clue_order(data)]
        return "\n".join(lines)

    def move_text(self):
        return ("A forward move applies one clue that has not been applied yet: it writes the values that "
                "clue mentions and that are not yet in the table into empty cells, so that the clue holds. "
                "Values are never filled in by elimination.")

    def backward_text(self):
        return "A backward move takes back the clue applied last, returning to the previous state."


#: oracle answers by (puzzle, table); bounded so that a long training run does not grow it forever
_SOLVABLE_CACHE: OrderedDict = OrderedDict()
_CACHE_SIZE = 50_000


def solvable_table(data: dict, table) -> bool:
    """Whether ``table`` extends to a full table satisfying every clue (memoised)."""
    key = (json.dumps([data["clues"], data["domains"], data["initial"]], sort_keys=True), json.dumps(table))
    hit = _SOLVABLE_CACHE.get(key)
    if hit is None:
        hit = solve_table(data, table, limit=1)[0] > 0
        _SOLVABLE_CACHE[key] = hit
        if len(_SOLVABLE_CACHE) > _CACHE_SIZE:
            _SOLVABLE_CACHE.popitem(last=False)
    return hit


RULES = LogicGridRules()


# ---- sources ---------------------------------------------------------------------------------
def parse_categories(text: str) -> list[tuple[str, list]]:
    """``name : v1, v2, ... .`` lines of the reference ``categories`` field."""
    out = []
    for line in str(text).splitlines():
        if ":" not in line:
            continue
        name, _, vals = line.partition(":")
        vals = vals.strip().rstrip(".")
        items = []
        for v in vals.split(","):
            v = v.strip()
            try:
                d = Decimal(v)
                items.append(int(d) if d == d.to_integral_value() and "." not in v else float(v))
            except InvalidOperation:
                items.append(v)
        out.append((name.strip(), items))
    return out


def load_question(record: dict) -> dict:
    """Puzzle data from a reference ``gridpuzzle_*`` row.

    Domains are the columns of a stored solution when there is one (the solution is otherwise not
    used: labels come from :func:`solve_table`), else the parsed ``categories`` text.
    """
    inputs = record.get("inputs", record)
    outputs = record.get("outputs", {}) or {}
    initial = inputs.get("initial")
    clues = {str(k): {"text": str(v.get("text", "")), "conditions": str(v["conditions"])}
             for k, v in inputs["clues"].items()}
    for c in clues.values():
        parse_clue(c["conditions"])
    sol = outputs.get("solution")
    if sol:
        domains = [sorted((row[j] for row in sol[1:]), key=format_value) for j in range(len(sol[0]))]
    else:
        domains = [vals for _, vals in parse_categories(inputs["categories"])]
    if initial is None:
        header = [name for name, _ in parse_categories(inputs["categories"])]
        initial = [header] + [[v] + [""] * (len(header) - 1) for v in domains[0]]
    return {"question": str(inputs.get("question", "")), "categories": str(inputs.get("categories", "")),
            "clues": clues, "initial": initial, "domains": domains}


VOCAB = {
    "names": ["Alma", "Boris", "Celia", "Dmitri", "Edith", "Farid", "Greta", "Hugo"],
    "pets": ["cat", "dog", "ferret", "hamster", "parrot", "rabbit", "tortoise", "goldfish"],
    "colours": ["amber", "blue", "crimson", "green", "ivory", "lilac", "teal", "yellow"],
    "cities": ["Aberdeen", "Bergen", "Cadiz", "Dresden", "Esbjerg", "Faro", "Genoa", "Hull"],
    "hobbies": ["archery", "baking", "chess", "diving", "fencing", "gardening", "knitting", "rowing"],
    "drinks": ["cider", "cocoa", "coffee", "juice", "lemonade", "milk", "soda", "tea"],
    "instruments": ["banjo", "cello", "drum", "flute", "harp", "oboe", "piano", "violin"],
}
NUMERIC = {"ages": (21, 3), "prices": (10, 5), "years": (2001, 1), "floors": (1, 1), "minutes": (15, 15)}


def _ref(v) -> str:
    return str(v) if not isinstance(v, str) else "'" + v + "'"


def _cell(key, col) -> str:
    return f"T[r({_ref(key)})][c('{col}')]"


def _clue_candidates(rng, header, sol):
    """Random true clues about ``sol`` as (text, condition) pairs."""
    rows = sol[1:]
    n, m = len(rows), len(header)
    first = header[0]
    while True:
        kind = int(rng.integers(6))
        a, b = (int(x) for x in rng.choice(n, 2, replace=False))
        ja, jb = (int(x) for x in rng.choice(m, 2, replace=False))
        ra, rb = rows[a], rows[b]
        if kind == 0:  # same entity
            yield (f"The {header[ja]} {ra[ja]} and the {header[jb]} {ra[jb]} belong to the same entry.",
                   f"({_cell(ra[ja], header[jb])} == {_ref(ra[jb])})")
        elif kind == 1:  # different entities
            yield (f"The {header[ja]} {ra[ja]} and the {header[jb]} {rb[jb]} belong to different entries.",
                   f"({_cell(ra[ja], header[jb])} != {_ref(rb[jb])})")
        elif kind in (2, 3) and ja != 0 and jb != 0:
            lo, hi = (ra, rb) if ra[0] < rb[0] else (rb, ra)
            if kind == 2:
                yield ((f"The entry with {header[ja]} {lo[ja]} has a smaller {first} than the entry with "
                       f"{header[jb]} {hi[jb]}."),
                       f"({_cell(lo[ja], first)} < {_cell(hi[jb], first)})")
            else:
                yield ((f"The entry with {header[ja]} {hi[ja]} has a larger {first} than the entry with "
                       f"{header[jb]} {lo[jb]}."),
                       f"({_cell(hi[ja], first)} > {_cell(lo[jb], first)})")
        elif kind == 4 and ja != 0 and jb != 0:
            lo, hi = (ra, rb) if ra[0] < rb[0] else (rb, ra)
            d = hi[0] - lo[0]
            yield ((f"The {first} of the entry with {header[ja]} {hi[ja]} is exactly {d} more than the {first} "
                   f"of the entry with {header[jb]} {lo[jb]}."),
                   f"({_cell(hi[ja], first)} == {_cell(lo[jb], first)} + {d})")
        elif kind == 5 and m >= 3:
            jc = int(rng.choice([j for j in range(m) if j not in (ja, jb)]))
            # exactly one of the two options is true for entry a
            x, y = (ra[jb], rb[jc]) if rng.random() < 0.5 else (rb[jb], ra[jc])
            yield ((f"The entry with {header[ja]} {ra[ja]} has either the {header[jb]} {x} or the {header[jc]} "
                   f"{y}, and those two values belong to different entries."),
                   (f"({_cell(ra[ja], header[jb])} == {_ref(x)} or {_cell(ra[ja], header[jc])} == {_ref(y)}) "
                   f"and ({_cell(x, header[jc])} != {_ref(y)})"))


def generate_puzzle(rng, n_rows: int, n_categories: int, max_clues: int = 40) -> dict:
    """A puzzle with a unique solution over our own vocabulary (see module docstring)."""
    if n_categories - 1 > len(VOCAB):
        raise ConfigError(f"n_categories {n_categories} is more than {len(VOCAB) + 1}")
    num_name = str(rng.choice(sorted(NUMERIC)))
    start, step = NUMERIC[num_name]
    cats = [str(x) for x in rng.choice(sorted(VOCAB), n_categories - 1, replace=False)]
    header = [num_name] + cats
    firsts = [start + step * i for i in range(n_rows)]
    domains = [firsts] + [sorted(str(x) for x in rng.choice(VOCAB[c], n_rows, replace=False)) for c in cats]
    cols = [firsts] + [[str(x) for x in rng.permutation(d)] for d in domains[1:]]
    sol = [header] + [[cols[j][i] for j in range(n_categories)] for i in range(n_rows)]
    initial = [header] + [[v] + [""] * (n_categories - 1) for v in firsts]
    data = {"question": f"Match each of the {n_rows} {num_name} with one value of every other category.",
            "categories": "\n".join(f"{h} : {', '.join(map(str, d))}." for h, d in zip(header, domains)),
            "clues": {}, "initial": initial, "domains": domains}
    seen = set()
    for text, cond in _clue_candidates(rng, header, sol):
        if cond in seen:
            continue
        seen.add(cond)
        assert clue_holds(cond, sol), cond
        cid = str(len(data["clues"]) + 1)
        data["clues"][cid] = {"text": text, "conditions": cond}
        count, _ = solve_table(data, limit=2)
        if count == 1:
            break
        if len(data["clues"]) >= max_clues:
            raise ConfigError("could not make a unique logic grid puzzle; try fewer rows")
    # drop clues that are not needed for uniqueness, then renumber 1..m
    for cid in list(data["clues"])[::-1]:
        trial = {k: v for k, v in data["clues"].items() if k != cid}
        if len(trial) >= 2 and solve_table({**data, "clues": trial}, limit=2)[0] == 1:
            data["clues"] = trial
    data["clues"] = {str(i + 1): c for i, c in enumerate(data["clues"].values())}
    return data
