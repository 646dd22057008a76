"""A static audit of every regular expression in the package for super-linear shapes (a parser must run in linear time
on any model output).

Python's ``re`` backtracks, so a pattern with a repeated group whose body can itself repeat
(``(a+)+``, ``(\\s*x?)*``) or with two adjacent unbounded repeats over overlapping characters
followed by something that can fail (``\\s*[:=]?\\s*...``) can take exponential or polynomial time
on a crafted reply. The audit parses each pattern literal found in ``re.compile``/``re.search``...
calls and module constants with ``re._parser`` and reports those shapes. A finding that is safe
(the input is bounded first, or the overlap cannot backtrack) is waived on its line with a
comment ``# regex-audit: <reason>``.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

try:  # Python 3.11+
    from re import _constants as C
    from re import _parser as P
except ImportError:  # pragma: no cover
    import sre_constants as C
    import sre_parse as P

UNBOUNDED = C.MAXREPEAT
REPEATS = (C.MAX_REPEAT, C.MIN_REPEAT)
RE_FUNCS = {"compile", "search", "match", "fullmatch", "findall", "finditer", "sub", "subn", "split"}


def _chars(item) -> set | None:
    """The characters a single-character item can match (None: any / too wide to say)."""
    op, av = item
    if op is C.LITERAL:
        return {av}
    if op is C.ANY:
        return None
    if op is C.IN and len(av) == 1 and av[0][0] is C.CATEGORY and av[0][1] in _CATEGORIES:
        return set(_CATEGORIES[av[0][1]])
    if op is C.IN:
        out: set = set()
        for sop, sav in av:
            if sop is C.LITERAL:
                out.add(sav)
            elif sop is C.RANGE:
                if sav[1] - sav[0] > 512:
                    return None
                out.update(range(sav[0], sav[1] + 1))
            elif sop is C.CATEGORY and sav in _CATEGORIES:
                out.update(_CATEGORIES[sav])
            else:  # \w, negations: treat as wide
                return None
        return out
    return None


_CATEGORIES = {C.CATEGORY_SPACE: {ord(c) for c in " \t\n\r\f\v"}, C.CATEGORY_DIGIT: set(range(48, 58))}


def _overlap(a, b) -> bool:
    ca, cb = _chars(a), _chars(b)
    return ca is None or cb is None or bool(ca & cb)


def _single(item) -> bool:
    """Whether an item matches exactly one character."""
    return item[0] in (C.LITERAL, C.ANY, C.IN, C.NOT_LITERAL)


def _starts_with_repeat(seq) -> bool:
    if not seq:
        return False
    op, av = seq[0]
    if op in REPEATS:
        return av[1] > 1
    if op is C.SUBPATTERN:
        return _starts_with_repeat(list(av[-1]))
    if op is C.BRANCH:
        return any(_starts_with_repeat(list(s)) for s in av[1])
    return False


def _can_repeat(seq) -> bool:
    for op, av in seq:
        if op in REPEATS and av[1] > 1:
            return True
        if op is C.SUBPATTERN and _can_repeat(av[-1]):
            return True
        if op is C.BRANCH and any(_can_repeat(s) for s in av[1]):
            return True
    return False


def findings(pattern: str) -> list[str]:
    try:
        tree = P.parse(pattern)
    except re.error:
        return []
    out: list[str] = []

    def walk(seq):
        seq = list(seq)
        for i, (op, av) in enumerate(seq):
            if op in REPEATS:
                _, hi, body = av
                if hi == UNBOUNDED and _starts_with_repeat(list(body)):
                    out.append("nested repeat: a repeated group whose body starts with a repeat")
                # unbounded single-char repeats over overlapping characters, adjacent or with only
                # optional single characters between them (\s*[:=]?\s*)
                if hi == UNBOUNDED and len(body) == 1 and _single(body[0]):
                    j = i + 1
                    while j < len(seq):
                        nop, nav = seq[j]
                        if nop not in REPEATS:
                            break
                        single = len(nav[2]) == 1 and _single(nav[2][0])
                        if single and nav[1] == UNBOUNDED and _overlap(body[0], nav[2][0]):
                            out.append("unbounded repeats over overlapping characters with only optional items between")
                            break
                        if nav[0] != 0:
                            break
                        j += 1
                walk(body)
            elif op is C.SUBPATTERN:
                walk(av[-1])
            elif op is C.BRANCH:
                for s in av[1]:
                    walk(s)
            elif op in (C.ASSERT, C.ASSERT_NOT):
                walk(av[1])
    walk(tree)
    return out


def audit(root: Path) -> list[tuple[str, int, str, str]]:
    """(file, line, pattern, finding) for every unwaived finding under ``root``."""
    results = []
    for path in sorted(root.rglob("*.py")):
        src = path.read_text()
        lines = src.splitlines()
        for node in ast.walk(ast.parse(src)):
            if not isinstance(node, ast.Call):
                continue
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else None
            if name not in RE_FUNCS or not (isinstance(f.value, ast.Name) and f.value.id in ("re", "regex")):
                continue
            if not node.args or not isinstance(node.args[0], ast.Constant) or not isinstance(node.args[0].value, str):
                continue
            pattern = node.args[0].value
            span = lines[node.lineno - 1: (node.end_lineno or node.lineno)]
            if any("regex-audit:" in s for s in span):
                continue
            for what in findings(pattern):
                results.append((str(path), node.lineno, pattern, what))
    return results
