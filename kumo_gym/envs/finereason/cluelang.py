"""The logic-grid clue language: parser, interpreter, clue application, oracle (docs/specs/finereason.md §3).

Clue conditions are read by a tokenizer and a recursive-descent parser; nothing is ever passed
to ``eval``::

    expr  := and ('or' and)*            and  := cmp ('and' cmp)*
    cmp   := sum (('=='|'!='|'<'|'>'|'<='|'>=') sum)?
    sum   := unary (('+'|'-') unary)*   unary := '-' unary | atom
    atom  := NUMBER | STRING | cell | '(' expr ')'
    cell  := 'T' '[' 'r' '(' (NUMBER|STRING) ')' ']' '[' 'c' '(' STRING ')' ']'

Syntax trees are plain tuples: ``("or", [..])``, ``("and", [..])``, ``("cmp", op, a, b)``,
``("bin", op, a, b)``, ``("neg", a)``, ``("lit", value)``, ``("cell", key, column)``. Numbers are
exact :class:`~fractions.Fraction` values read through their shortest decimal text, so binary
floating point never decides a clue.

:func:`clue_holds` is the scalar reference interpreter. Applying a clue (a tree edge) has two
semantics: ``canonical`` (docs/specs/finereason.md §3: place the clue's unplaced mentioned values in distinct empty
rows) and ``finereason``, the compat mode that accepts every transition of the reference builder
(every quoted string and integer token in a domain is mentioned; two values of one column may
share a row, the later overwriting the earlier; the union over both placement orders). The label
oracle :func:`solvable_table` counts completions with the vectorised column search of
:func:`kumo_gym.envs.finereason.search.grid_count_solutions`.
"""
from __future__ import annotations

import itertools
import json
import operator
import re
from collections import OrderedDict
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from functools import lru_cache

from ...core.errors import ConfigError, ParseError
from .search import GridPuzzle, GridSearchBudget
from .text import format_value

MAX_CLUE_LEN = 4000
MAX_NESTING = 60
SEMANTICS = ("canonical", "finereason")

_TOKEN = re.compile(r"""(?:
    (?P<num>\d+(?:\.\d+)?)
  | (?P<str>'[^'\n]*'|"[^"\n]*")
  | (?P<op>==|!=|<=|>=|<|>|\+|-|\[|\]|\(|\))
  | (?P<word>[A-Za-z_]+)
)""", re.VERBOSE)
WORDS = ("T", "r", "c", "and", "or")


def to_fraction(text: str) -> Fraction | None:
    """The exact value of a decimal numeral, or None (also for inf, nan and huge exponents)."""
    try:
        d = Decimal(text.strip())
    except (InvalidOperation, ValueError):
        return None
    if not d.is_finite() or abs(d.adjusted()) > 30:
        return None
    return Fraction(d)


def as_value(x):
    """A table value in the interpreter's terms: numbers as exact Fractions of their shortest text."""
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, int):
        return Fraction(x)
    if isinstance(x, float):
        v = to_fraction(repr(x))
        return str(x) if v is None else v
    return x


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
        if not m:
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

    def nest(self):
        self.depth += 1
        if self.depth > MAX_NESTING:
            self.fail("nested too deeply")

    def expr(self):
        self.nest()
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
            self.nest()
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


# ---- the scalar interpreter (the reference semantics) -------------------------------------------
class _Fail(Exception):
    """An evaluation error: the whole clue is False (docs/specs/finereason.md §3)."""


def equal(a, b) -> bool:
    """``==`` of the clue language: numbers equal numbers, strings equal strings, nothing else."""
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return a == b
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    return False


class Table:
    """A table prepared for lookups (converted values, header index)."""

    def __init__(self, table):
        self.header = list(table[0])
        self.rows = [[as_value(x) for x in row] for row in table[1:]]

    def row_of(self, key):
        """The first row (top-down) holding ``key`` in any cell (docs/specs/finereason.md §3)."""
        for i, row in enumerate(self.rows):
            if any(equal(x, key) for x in row):
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


_ORDER = {"<": operator.lt, ">": operator.gt, "<=": operator.le, ">=": operator.ge}


def _leaf(node, source):
    """The value of a ``lit`` or ``cell`` node; ``source.lookup(key, col)`` reads a cell (a full
    :class:`Table` or a partial one)."""
    return node[1] if node[0] == "lit" else source.lookup(node[1], node[2])


def _numeric(kind: str, op: str) -> bool:
    """Whether a ``bin`` or ``cmp`` node needs numbers on both sides (all but ``==`` and ``!=``)."""
    return kind == "bin" or op not in ("==", "!=")


def _combine(kind: str, op: str, a, b):
    """The value of a ``bin`` or ``cmp`` node on two known operands (numbers where :func:`_numeric`)."""
    if kind == "bin":
        return a + b if op == "+" else a - b
    if op in ("==", "!="):
        return equal(a, b) == (op == "==")
    return _ORDER[op](a, b)


def _eval(node, t: Table):
    kind = node[0]
    if kind in ("lit", "cell"):
        return _leaf(node, t)
    if kind == "neg":
        return -_num(_eval(node[1], t))
    if kind in ("bin", "cmp"):
        a, b = _eval(node[2], t), _eval(node[3], t)
        if _numeric(kind, node[1]):
            a, b = _num(a), _num(b)
        return _combine(kind, node[1], a, b)
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
    """Evaluate a clue on a table; any evaluation failure makes it False (docs/specs/finereason.md §3)."""
    node = parse_clue(condition) if isinstance(condition, str) else condition
    t = table if isinstance(table, Table) else Table(table)
    try:
        return _truth(_eval(node, t))
    except _Fail:
        return False


# ---- domains and mentioned values -----------------------------------------------------------------
def domain_index(data: dict, j: int, value) -> int | None:
    """The index of ``value`` (any JSON type, compared as an interpreter value) in column j's domain."""
    v = as_value(value) if not isinstance(value, (Fraction, str)) else value
    for k, x in enumerate(data["domains"][j]):
        if equal(as_value(x), v):
            return k
    return None


def _domain_column(data: dict, value, preferred: str | None = None) -> int | None:
    header = data["initial"][0]
    if preferred is not None and preferred in header and domain_index(data, header.index(preferred), value) is not None:
        return header.index(preferred)
    for j in range(len(data["domains"])):
        if domain_index(data, j, value) is not None:
            return j
    return None


def _literals(node, out: list):
    """Canonical mentions (docs/specs/finereason.md §3): ``r(...)`` keys and direct operands of ==/!= opposite a
    cell."""
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


_QUOTED = re.compile(r"'([^'\n]*)'|\"([^\"\n]*)\"")
_INTEGER = re.compile(r"\b\d+\b")


@lru_cache(maxsize=4096)
def _mentions_cached(key: str, condition: str, semantics: str) -> tuple:
    data = json.loads(key)
    if semantics == "canonical":
        lits: list = []
        _literals(parse_clue(condition), lits)
        pairs = [(v, col) for v, col in lits]
    else:  # compat: every quoted string and integer token (digits inside names too)
        found = [(m.start(), m.group(1) if m.group(1) is not None else m.group(2)) for m in _QUOTED.finditer(condition)]
        found += [(m.start(), Fraction(int(m.group()))) for m in _INTEGER.finditer(condition) if len(m.group()) < 19]
        pairs = [(v, None) for _, v in sorted(found, key=lambda p: p[0])]
    seen, out = set(), []
    for v, col in pairs:
        j = _domain_column(data, v, col)
        if j is None:  # a constant outside every domain (e.g. a typo in the reference): never placed
            continue
        x = data["domains"][j][domain_index(data, j, v)]
        key2 = (j, format_value(x))
        if key2 not in seen:
            seen.add(key2)
            out.append((j, x))
    if semantics == "canonical":  # column order, then first mention
        rank = {k: i for i, k in enumerate(out)}
        out.sort(key=lambda jx: (jx[0], rank[jx]))
    return tuple(out)


def mentioned_values(data: dict, condition: str, semantics: str = "canonical") -> list[tuple[int, object]]:
    """The clue's mentioned values as ``(column, value)`` pairs (docs/specs/finereason.md §3)."""
    key = json.dumps({"initial": data["initial"][:1], "domains": data["domains"]})
    return list(_mentions_cached(key, condition, semantics))


def placed(table, j: int, x) -> bool:
    v = as_value(x)
    return any(equal(as_value(row[j]), v) for row in table[1:])


def apply_clue(data: dict, table, clue_id: str, semantics: str = "canonical") -> list[list]:
    """The child tables of applying clue ``clue_id`` to ``table`` (docs/specs/finereason.md §3), in canonical order.

    Canonical: each unplaced mentioned value goes into an empty cell of its column, distinct
    values of one column into distinct rows. Compat (``finereason``): rows may coincide, the
    later value overwriting the earlier, and both placement orders count. A placement is a child
    iff the clue holds on the new table; with nothing to place, the unchanged table is the only
    candidate (a confirming application).
    """
    cond = data["clues"][clue_id]["conditions"]
    todo = [(j, x) for j, x in mentioned_values(data, cond, semantics) if not placed(table, j, x)]
    if not todo:
        return [table] if clue_holds(cond, table) else []
    rows = [[i for i in range(1, len(table)) if table[i][j] == ""] for j, _ in todo]
    out: list = []
    seen: set = set()
    orders = [todo] if semantics == "canonical" else [todo, todo[::-1]]
    for choice in itertools.product(*rows):
        if semantics == "canonical" and len({(j, i) for (j, _), i in zip(todo, choice)}) < len(todo):
            continue
        for order in orders:
            where = dict(zip(todo, choice))
            t = [list(r) for r in table]
            for jx in order:
                t[where[jx]][jx[0]] = jx[1]
            key = json.dumps(t)
            if key not in seen and clue_holds(cond, t):
                seen.add(key)
                out.append(t)
    return out


def forced_closure(data: dict, table) -> list:
    """Fill every column that has one empty cell and one unused value, until none is left.

    The reference builder applied this to its explored children (docs/specs/finereason.md §3, compat mode).
    """
    t = [list(r) for r in table]
    changed = True
    while changed:
        changed = False
        for j in range(1, len(t[0])):
            empty = [i for i in range(1, len(t)) if t[i][j] == ""]
            unused = [x for x in data["domains"][j] if not placed(t, j, x)]
            if len(empty) == 1 and len(unused) == 1:
                t[empty[0]][j] = unused[0]
                changed = True
    return t


# ---- the cell-by-cell search (large tables) ------------------------------------------------------
# Partial evaluation for pruning. On a partly filled table a clue is T (true in every completion),
# F (false), X (an evaluation failure, so the clue is False), N (F or X, not known which) or U
# (unknown). Known cells never change as the search fills more cells, so a verdict other than U
# is final; the search prunes a branch as soon as some clue is F, X or N. A complete table is
# always checked with the exact two-valued interpreter (:func:`clue_holds`). The verdicts are
# unique objects, never strings, so no table value can be mistaken for one.
class _Tri:
    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self):
        return self.name


_T, _F, _X, _N, _U = (_Tri(c) for c in "TFXNU")


class _Partial:
    def __init__(self, data, table):
        self.header = table[0]
        self.t = table
        self.key_cols: dict = {}
        self.domains = [[as_value(x) for x in d] for d in data["domains"]]

    def cols_of(self, key):
        f = format_value(key) + type(key).__name__
        if f not in self.key_cols:
            self.key_cols[f] = [j for j, d in enumerate(self.domains) if any(equal(x, key) for x in d)]
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
            if row[jk] != "" and equal(as_value(row[jk]), key):
                v = row[jc]
                return _Ref(i, jk, jc) if v == "" else as_value(v)
        return _Ref(None, jk, jc)

    def row_of(self, j, v):
        for i, row in enumerate(self.t[1:], start=1):
            if row[j] != "" and equal(as_value(row[j]), v):
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
        if not any(equal(x, b) for x in self.domains[a.col]):
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


#: how ``and`` / ``or`` read the verdicts of their parts, in order: (the verdict that is passed
#: over, the verdicts that leave the result open, the verdicts that settle it: verdict -> (the
#: result when every part before was decided, the result when one was open), the result of any
#: other value: a bare value used as a condition); with no part settling it the result is the
#: passed-over verdict, or U when a part was open
_AND = (_T, (_U,), {_F: (_F, _N), _X: (_X, _N), _N: (_N, _N)}, (_X, _N))
_OR = (_F, (_N, _U), {_T: (_T, _U), _X: (_X, _U)}, (_X, _U))


def _fold(parts, p: _Partial, table: tuple):
    """The verdict of an ``and`` or ``or`` node (``table`` is :data:`_AND` or :data:`_OR`)."""
    passed, open_, settling, other = table
    unknown = False
    for part in parts:
        v = _peval(part, p)
        if v is passed:
            continue
        if v in open_:
            unknown = True
            continue
        return settling.get(v, other)[unknown]
    return _U if unknown else passed


def _peval(node, p: _Partial):
    """Value, _U or _X for value nodes; _T/_F/_X/_N/_U for boolean nodes."""
    kind = node[0]
    if kind in ("lit", "cell"):
        return _leaf(node, p)
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
        if _numeric(kind, op) and ((a != _U and not isinstance(a, Fraction)) or (b != _U and not isinstance(b, Fraction))):
            return _X
        if a == _U or b == _U:
            return _U
        v = _combine(kind, op, a, b)
        return v if kind == "bin" else (_T if v else _F)
    if kind == "and":
        return _fold(node[1], p, _AND)
    if kind == "or":
        return _fold(node[1], p, _OR)
    return _X


def _cell_search(data: dict, table, limit: int) -> tuple[int, list | None]:
    """Count completions of ``table`` (domain values only, checked by the caller) up to ``limit``:
    values are placed one at a time, the one with the fewest possible rows first."""
    table = [list(r) for r in (table if table is not None else data["initial"])]
    n_rows, n_cols = len(table) - 1, len(table[0])
    nodes = [parse_clue(c["conditions"]) for c in data["clues"].values()]
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
            if v is _T:
                continue
            if v is not _U:  # F, X, N, or a bare value: the clue fails in every completion
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



# ---- the oracle ---------------------------------------------------------------------------------
@lru_cache(maxsize=256)
def _compiled(key: str):
    data = json.loads(key)
    header = data["initial"][0]
    domains = [[as_value(x) for x in d] for d in data["domains"]]
    asts = [parse_clue(c["conditions"]) for c in data["clues"].values()]
    return header, domains, asts, GridPuzzle(header, domains, asts)


def puzzle_key(data: dict) -> str:
    """The parts of a puzzle that decide its solutions, as canonical JSON (a cache key)."""
    return json.dumps({"initial": data["initial"], "domains": data["domains"], "clues": data["clues"]},
                      sort_keys=True)


def _fixed(data: dict, domains, table) -> list[list[int]] | None:
    """Domain indices of the filled cells (-1 where empty); None when the table cannot be completed
    at all (a value outside its column's domain, or used twice in a column)."""
    n = len(table) - 1
    fixed = [[-1] * n for _ in domains]
    for j in range(len(domains)):
        seen = set()
        for i, row in enumerate(table[1:]):
            if row[j] == "" and j > 0:
                continue
            v = as_value(row[j])
            k = next((k for k, x in enumerate(domains[j]) if equal(x, v)), None)
            if k is None or k in seen:
                return None
            seen.add(k)
            fixed[j][i] = k
    return fixed


#: the column search enumerates at most this many candidate tables; beyond, the cell search runs
COLUMN_SEARCH_MAX = 2_000_000


def solve_table(data: dict, table=None, limit: int = 2) -> tuple[int, list | None]:
    """Count full tables (up to ``limit``) that extend ``table`` and satisfy every clue.

    Two exact searches, chosen by size: the vectorised column-permutation search
    (:func:`kumo_gym.envs.finereason.search.grid_count_solutions`) while the candidate tables are
    few (every generated size, and partly filled tables), else the cell-by-cell search with
    three-valued pruning. Returns the count and the first table found (the puzzle's own values).
    """
    import math

    table = table if table is not None else data["initial"]
    header, domains, _, puzzle = _compiled(puzzle_key(data))
    if len(table) - 1 != len(domains[0]) or any(len(row) != len(header) for row in table):
        return 0, None
    fixed = _fixed(data, domains, table)
    if fixed is None:
        return 0, None
    size = math.prod(math.factorial(sum(k < 0 for k in col)) for col in fixed[1:])
    if size > COLUMN_SEARCH_MAX:
        canon = [list(header)] + [[data["domains"][j][fixed[j][i]] if fixed[j][i] >= 0 else ""
                                   for j in range(len(header))] for i in range(len(fixed[0]))]
        return _cell_search(data, canon, limit)
    try:
        count, first = puzzle.count(fixed, limit=limit)
    except GridSearchBudget as e:  # cannot happen below COLUMN_SEARCH_MAX; kept as a guard
        raise ConfigError(f"this logic grid puzzle is too hard to label exactly ({e})") from None
    if first is None:
        return count, None
    rows = [[data["domains"][j][first[j][i]] for j in range(len(header))] for i in range(len(first[0]))]
    return count, [list(header)] + rows


#: oracle answers by (puzzle, table); bounded so that a long training run does not grow it forever
_SOLVABLE_CACHE: OrderedDict = OrderedDict()
_CACHE_SIZE = 50_000


def agrees_with_solution(table, solution) -> bool:
    """Every filled cell of ``table`` equals the cell of ``solution`` in the row with the same first value."""
    rows = {format_value(as_value(r[0])): r for r in solution[1:]}
    for row in table[1:]:
        sol = rows.get(format_value(as_value(row[0])))
        if sol is None or any(c != "" and not equal(as_value(c), as_value(s)) for c, s in zip(row, sol)):
            return False
    return True


def solvable_table(data: dict, table) -> bool:
    """Whether ``table`` extends to a full table satisfying every clue (memoised).

    With ``data["oracle"] == "solution"`` the label is agreement with the stored solution: exact
    for our generated puzzles, whose solution is unique by construction (and a search-free
    O(cells) check), and the reference labels' own rule for a reference puzzle whose solution
    breaks one of its coded clues (recorded when loading). Otherwise the search decides.
    """
    if data.get("oracle") == "solution":
        return agrees_with_solution(table, data["solution"])
    key = (puzzle_key(data), json.dumps(table))
    hit = _SOLVABLE_CACHE.get(key)
    if hit is None:
        hit = solve_table(data, table, limit=1)[0] > 0
        _SOLVABLE_CACHE[key] = hit
        if len(_SOLVABLE_CACHE) > _CACHE_SIZE:
            _SOLVABLE_CACHE.popitem(last=False)
    return hit
