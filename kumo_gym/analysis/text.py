"""Reading coordinates, lines and numbers out of trace sentences (docs/specs/reasoning_graphs.md §5 stages 2, 4a).

Every pack's reader works on a *normalised* sentence: lower case, single spaces, and every cell
reference replaced by a token ``@k@`` (k = the k-th cell named in the sentence, in reading
order). The cell forms understood are the ones models write:

- ``(2, 3)`` and ``(2,3)``: (row, column);
- ``r3c2``, ``R3C2``, ``r3 c2``: row 3, column 2;
- ``row 3, column 2``, ``row 3 col 2``, ``in row 3 and column 2``;
- ``column 2, row 3`` (column first, with the words);
- ``cell 3,2`` is *not* read (too easily a list of two numbers).

Whether the numbers count from 0 or 1 is decided for the whole trace (:func:`vote_indexing`);
a reader subtracts the offset. Line references (``row 3``, ``column 2``) left after the cell
tokens are read by the packs' own patterns.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

# (pattern, swapped): swapped patterns name the column first
# (a coordinate may be -1: the cell just off the grid where a line leaves it, as Tracks' border
# ends "(6, -1)" on the left; schema validation decides whether a claim may name it)
_CELL_PATTERNS = (
    (re.compile(r"\(\s*(-?\d{1,3})\s*,\s*(-?\d{1,3})\s*\)"), False),
    (re.compile(r"\b[rR](\d{1,3})\s?[cC](\d{1,3})\b"), False),
    (re.compile(r"\brow\s+(-?\d{1,3})\s*(?:,\s*|\s+)(?:in\s+)?(?:column|col)\s+(-?\d{1,3})\b", re.IGNORECASE), False),
    (re.compile(r"(?<=\bin )row\s+(\d{1,3})\s+and\s+(?:column|col)\s+(\d{1,3})\b", re.IGNORECASE), False),
    (re.compile(r"\b(?:column|col)\s+(-?\d{1,3})\s*(?:,\s*|\s+)(?:in\s+)?row\s+(-?\d{1,3})\b", re.IGNORECASE), True),
)
#: the trace saying how it counts: "0-based", "zero-indexed", "number rows and columns from 1",
#: "rows and columns count from 0", "indices start at 1"
_DECLARED = re.compile(r"\b(?:(?:(0|1|zero|one)-|(0|1) )(?:based|indexed)\b|(?:number(?:ing)?(?! of)|count(?:ing)?|"
                       r"index(?:ing)?|label(?:ling|ing)?)\b[a-z ]{0,40}?\bfrom ([01])\b(?! ?(?:to|-|through)\b)|"
                       r"(?:indices|indexes|coordinates|numbering) (?:start|begin)s? (?:at|from) ([01])\b)", re.IGNORECASE)

_UNIT = re.compile(r"\b(row|column|col|box|block)\s+(\d{1,3})\b", re.IGNORECASE)

# list of cell tokens joined by commas, "and", "or". A bare comma followed by a cell and a verb
# starts a new clause ("no tent at (2, 4), (4, 4) must be a tent"), not a list item.
_PRED = (r"(?:is|are|must|can|cannot|can't|has|have|should|will|would|gets?|becomes?|stays?|remains?|holds?|"
         r"needs?|=|:)")
_COMMA = rf",(?!\s*@\d+@\s+{_PRED}\b)"
LIST = rf"@\d+@(?:\s*(?:,\s*and|{_COMMA}|and|&)\s*@\d+@){{0,40}}"
LIST_OR = rf"@\d+@(?:\s*(?:,\s*or|,\s*and|{_COMMA}|or|and)\s*@\d+@){{0,40}}"
# after "X = 3": not the start of a list of options ("X is 1, 3 or 4", "X is 1 or 2", "1/2")
NOT_A_LIST = r"(?!\s*(?:,\s*\d{1,2}\s*(?:,|or\b|and\b)|or\b|and\s+\d{1,2}\s*(?:,|or\b|and\b|$|\.|;)|/))"
DIGITS = r"\d{1,2}(?:\s*(?:,\s*(?:or|and)|,|or|and|nor|/)\s*\d{1,2})*"
LINE = r"(row|column|col)\s+(\d{1,3})"
UNITX = r"(row|column|col|box|block)\s+(\d{1,3})"
# a subject list ("(1, 1) and (1, 3) cannot ...") never starts right after a preposition: in
# "the tent at (1, 0), (1, 1) cannot be a tent" the first cell belongs to "tent at"
SUBJ = (r"(?<!\bat )(?<!\bin )(?<!\bon )(?<!\bof )(?<!\bto )(?<!\bby )(?<!\bfrom )(?<!\bnext to )(?<!\bor )"
        r"(?<!\beither )(?<!\bnor )")
# "two of (3, 0), (4, 0) and (4, 1) are black" says nothing about any one of those cells
QUANTIFIED = re.compile(r"(?<!\ball\s)(?<!\bboth\s)\b(?:(?:at\s+most|at\s+least|exactly|only|just)\s+)?(?:one|two|three|four|five|\d|some|any|none|"
                        r"neither|either|which)\s+of\s+(?:the\s+(?:cells\s+)?|them\s*,?\s*)?(" + LIST_OR + ")")
NEG = (r"(?:cannot|can't|can\s+not|must\s+not|mustn't|is\s+not|isn't|are\s+not|aren't|can\s+never|could\s+not|"
       r"couldn't|won't|will\s+not|does\s+not|doesn't|do\s+not|don't|should\s+not|shouldn't|may\s+not)")
BE = (r"(?:is|are|must\s+be|has\s+to\s+be|have\s+to\s+be|should\s+be|will\s+be|would\s+be|becomes?|gets?|"
      r"stays?|remains?|is\s+therefore|is\s+then|is\s+forced\s+to\s+be|is\s+definitely|is\s+now|are\s+now|"
      r"are\s+both|are\s+all|is\s+also|are\s+also|must\s+all\s+be|must\s+both\s+be|have\s+to\s+be|is\s+already|"
      r"are\s+already|is\s+still|are\s+still|would\s+have\s+to\s+be|must\s+stay|must\s+remain|has\s+to\s+stay|"
      r"have\s+to\s+stay|=|:)")


_NUMBER_WORDS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
                 "nine": 9}
_COUNT_WORD = re.compile(r"\b(zero|one|two|three|four|five|six|seven|eight|nine)(\s+(?:(?:more|tents?|lights?|bulbs?|"
                         r"black|white|shaded|cells?|squares?|left|remaining|poles?|plus|minus|positive|negative|"
                         r"ghosts?|vampires?|zombies?|monsters?)\b|[+-](?!\S)))")


@dataclass
class Norm:
    """A sentence with cell references replaced by ``@k@`` tokens, lower-cased, single-spaced."""

    text: str
    coords: list  # k -> (r, c) as written (not yet shifted by the indexing offset)


def normalise(text: str) -> Norm:
    """The normalised form of one sentence (see the module docstring)."""
    coords: list = []

    def sub(m, swapped):
        a, b = int(m.group(1)), int(m.group(2))
        coords.append((b, a) if swapped else (a, b))
        return f" @{len(coords) - 1}@ "

    # an "@" the model wrote ("@1@", a Python decorator) must never read as one of our cell tokens
    s = text.lower().replace("@", "\uff20")
    for pat, swapped in _CELL_PATTERNS:
        s = pat.sub(lambda m, sw=swapped: sub(m, sw), s)
    # keep coordinate numbering in reading order (patterns ran one after another)
    order = sorted(range(len(coords)), key=lambda k: s.find(f"@{k}@"))
    remap = {old: new for new, old in enumerate(order)}
    s = re.sub(r"@(\d+)@", lambda m: f"@{remap[int(m.group(1))]}@", s)
    s = re.sub(r"\s+", " ", s).strip()
    # "@0@ 's" -> "@0@'s" and "( @0@ )" stays readable for the patterns
    s = s.replace(" 's", "'s")
    # small counts written as words, where a count is what they are ("one more tent")
    s = _COUNT_WORD.sub(lambda m: str(_NUMBER_WORDS[m.group(1)]) + m.group(2), s)
    return Norm(s, [coords[k] for k in order])


def cell_mentions(text: str) -> list[tuple[int, int, int, int]]:
    """Every cell named in the original ``text``: ``(start, end, r, c)`` as written (no offset).

    The same forms as :func:`normalise`, on the text as it stands (for highlighting claim spans).
    """
    out: list = []
    taken: list = []
    for pat, swapped in _CELL_PATTERNS:
        for m in pat.finditer(text):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue
            a, b = int(m.group(1)), int(m.group(2))
            out.append((m.start(), m.end(), *((b, a) if swapped else (a, b))))
            taken.append((m.start(), m.end()))
    return sorted(out)


def line_mentions(text: str) -> list[tuple[int, int, str, int]]:
    """Every "row k" / "column k" / "box k" in ``text`` that is not part of a cell: ``(start, end, axis, k)``."""
    cells = [(a, b) for a, b, _, _ in cell_mentions(text)]
    return [(m.start(), m.end(), axis_of(m.group(1).lower()), int(m.group(2))) for m in _UNIT.finditer(text)
            if not any(a <= m.start() < b for a, b in cells)]


def tokens(group: str) -> list[int]:
    """Cell token numbers in a matched group, in order."""
    return [int(k) for k in re.findall(r"@(\d+)@", group)]


def ints(group: str) -> list[int]:
    """Every integer in a matched group (cell tokens excluded)."""
    return [int(d) for d in re.findall(r"(?<![@\d])\d{1,3}(?![@\d])", group)]


def axis_of(word: str) -> str:
    """ROW, COL or BOX for a unit word."""
    return {"row": "ROW", "rows": "ROW", "column": "COL", "columns": "COL", "col": "COL", "cols": "COL",
            "box": "BOX", "block": "BOX"}[word]


def vote_indexing(text: str, H: int, W: int) -> tuple[str | None, dict]:
    """The deterministic indexing vote (docs/specs/reasoning_graphs.md §5 stage 2): ``"0-based"``, ``"1-based"`` or
    None.

    A trace that states its counting ("0-based", "1-indexed", "I number rows and columns from 0")
    is taken at its word. Otherwise, evidence for 0-based: "row 0", "column 0", a coordinate with
    a 0; evidence for 1-based: an index equal to H (rows) or W (columns). A vote is decisive when
    only one side has evidence.
    """
    declared = {m.group(1) or m.group(2) or m.group(3) or m.group(4) for m in _DECLARED.finditer(text)}
    declared = {"0" if d.lower() in ("0", "zero") else "1" for d in declared}
    if len(declared) == 1:  # the trace says how it counts: nothing outweighs that
        (d,) = declared
        return ("0-based" if d == "0" else "1-based"), {"declared": int(d)}
    zero = one = 0
    for pat, swapped in _CELL_PATTERNS:
        for m in pat.finditer(text):
            r, c = int(m.group(1)), int(m.group(2))
            if swapped:
                r, c = c, r
            zero += (r == 0) + (c == 0)
            one += (r == H) + (c == W)
    for m in _UNIT.finditer(text):
        unit, k = m.group(1).lower(), int(m.group(2))
        zero += k == 0
        one += (unit == "row" and k == H) or (unit in ("column", "col") and k == W)
    votes = {"zero": zero, "one": one}
    if zero and not one:
        return "0-based", votes
    if one and not zero:
        return "1-based", votes
    return None, votes
