"""Sudoku (Tatham's Solo): the exact pack of docs/specs/reasoning_graphs.md §6 ("Sudoku"); docs/specs/grid_puzzles.md
§7.

Claims: ``Assign{r,c,d}`` (solution; C* = all n² cells), ``Given``/``UnitHas`` (clues),
``Cand``, ``UnitMissing``, ``UnitPlaces`` (state), ``Contradiction``. Box index
``(r // box_h) * (n // box_w) + c // box_w``. The deduction model is the Latin square itself:
rows, columns and boxes as all-different units (naked and hidden singles), eliminations as
``Cand OUT``.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ..deduce import Model
from ..reading import Found, Reader
from ..schema import Pack
from ..text import DIGITS, LIST_OR, NEG, NOT_A_LIST, UNITX, Norm, axis_of, ints, tokens
from .common import cell_fields, pack_rules

_UNIT_LATER = r"(?:already\s+|now\s+|also\s+|still\s+|then\s+)?"


class SoloReader(Reader):
    """Sudoku: Assign, Given, Cand IN/OUT, UnitMissing, UnitHas, UnitPlaces (pack ``solo``)."""

    CAND_OUT = (
        re.compile(rf"(@\d+@)\s+{NEG}\s+(?:be\s+|contain\s+|hold\s+)?(?:a\s+)?({DIGITS})\b"),
        re.compile(r"\b(\d{1,2})\s+(?:cannot|can't|can\s+not|is\s+not\s+possible|must\s+not)\s+(?:go\s+|be\s+)?(?:placed\s+)?(?:in|at|into)\s+(@\d+@)"),
        re.compile(r"\b(?:eliminate|remove|rule\s+out|exclude)\s+(?:the\s+)?(?:digit\s+)?(\d{1,2})\s+from\s+(@\d+@)"),
    )
    CAND_IN = re.compile(rf"(@\d+@)\s+(?:can\s+only\s+be|must\s+be\s+either|is\s+either|must\s+be\s+one\s+of|"
                         rf"has\s+(?:only\s+)?(?:the\s+)?candidates|candidates\s*(?:are|:))\s*[{{\[(]?\s*({DIGITS})")
    GIVEN = (
        re.compile(r"(@\d+@)\s+(?:is\s+)?(?:a\s+)?given\s+(?:as\s+|=\s*|digit\s+)?(\d{1,2})\b"),
        re.compile(r"\bgiven\s+(?:digit\s+)?(\d{1,2})\s+(?:at|in)\s+(@\d+@)"),
    )
    ASSIGN = (
        re.compile(r"(@\d+@)\s*(?:=|:|is|must\s+be|has\s+to\s+be|becomes|gets|will\s+be|should\s+be|is\s+therefore|"
                   r"is\s+then|is\s+forced\s+to\s+be|would\s+have\s+to\s+be|would\s+be|must\s+then\s+be)\s+(?:a\s+)?"
                   r"(\d{1,2})\b" + NOT_A_LIST),
        re.compile(r"\b(?:place|put|write|fill\s+in|enter|placing|putting|writing)\s+(?:a\s+|the\s+)?(?:digit\s+)?(\d{1,2})\s+(?:at|in|into)\s+(@\d+@)"),
        re.compile(r"\b(\d{1,2})\s+(?:goes|must\s+go|has\s+to\s+go|belongs)\s+(?:in|at|into)\s+(@\d+@)"),
        re.compile(r"\b(?:leaves|leaving|gives|giving)\s+(?:the\s+|a\s+)?(?:digit\s+)?(\d{1,2})\s+(?:for|in|at|to)\s+(@\d+@)"),
        re.compile(r"\b(?:needs?|has|have|contains|with)\s+(?:(?:a|an|the)\s+)?(\d{1,2})\s+(?:at|in)\s+(@\d+@)"),
    )
    MISSING = re.compile(rf"\b{UNITX}\s+(?:is\s+)?{_UNIT_LATER}(?:missing|needs|lacks)\s+(?:only\s+)?(?:the\s+)?"
                         rf"(?:digits?\s+|numbers?\s+)?({DIGITS})\b")
    HAS = re.compile(rf"\b{UNITX}\s+{_UNIT_LATER}(?:has|contains|includes)\s+(?:a\s+|the\s+)?(?:digits?\s+|numbers?\s+)?"
                     rf"({DIGITS})\b(?!\s*(?:more|empty|cells|blank))")
    PLACES = re.compile(rf"\bin\s+{UNITX},?\s+(?:the\s+)?(?:digit\s+)?(\d{{1,2}})\s+(?:can\s+only\s+go|must\s+go|"
                        rf"can\s+only\s+be\s+placed|fits\s+only|is\s+only\s+possible)\s+(?:in|at)\s+({LIST_OR})")
    # pronouns: "it cannot be 3" (the cell named last), "it has 1, 7 and 9" (the unit named last)
    IT_CAND_OUT = re.compile(rf"\b(?:it|this\s+cell|that\s+cell)\s+{NEG}\s+(?:be\s+|contain\s+|hold\s+)?(?:a\s+)?({DIGITS})\b")
    IT_ASSIGN = re.compile(r"\b(?:it|this\s+cell|that\s+cell)\s+(?:must\s+be|has\s+to\s+be|is\s+therefore)\s+(?:a\s+)?"
                           r"(\d{1,2})\b" + NOT_A_LIST)
    IT_HAS = re.compile(rf"\bit\s+{_UNIT_LATER}(?:has|contains|includes)\s+(?:a\s+|the\s+)?(?:digits?\s+|numbers?\s+)?"
                        rf"({DIGITS})\b(?!\s*(?:more|empty|cells|blank|\s+(?:in|at)\s+@))")
    IT_MISSING = re.compile(rf"\bit\s+(?:is\s+)?{_UNIT_LATER}(?:missing|needs|lacks)\s+(?:only\s+)?(?:the\s+)?"
                            rf"(?:digits?\s+|numbers?\s+)?({DIGITS})\b(?!\s+(?:in|at)\s+@)")

    def read(self, norm: Norm) -> list[Found]:
        s = norm.text
        out: list[Found] = []
        used: set = set()
        for pat in self.CAND_OUT:
            for m in pat.finditer(s):
                k_group, d_group = (1, 2) if m.group(1).startswith("@") else (2, 1)
                k = tokens(m.group(k_group))[0]
                used.add(k)
                for d in ints(m.group(d_group)):
                    out.append(Found("Cand", {**self.rc(norm, k), "d": [d], "polarity": "OUT"}, m.start(), end=m.end()))
        for m in self.CAND_IN.finditer(s):
            k = tokens(m.group(1))[0]
            ds = ints(m.group(2))
            if k not in used and len(ds) > 1:
                used.add(k)
                out.append(Found("Cand", {**self.rc(norm, k), "d": ds, "polarity": "IN"}, m.start(), end=m.end()))
        for kind, pats in (("Given", self.GIVEN), ("Assign", self.ASSIGN)):
            for pat in pats:
                for m in pat.finditer(s):
                    k_group, d_group = (1, 2) if m.group(1).startswith("@") else (2, 1)
                    k = tokens(m.group(k_group))[0]
                    if k in used:
                        continue
                    used.add(k)
                    out.append(Found(kind, {**self.rc(norm, k), "d": int(m.group(d_group))}, m.start(), end=m.end()))
        for pat, kind in ((self.IT_CAND_OUT, "out"), (self.IT_ASSIGN, "assign")):
            for m in pat.finditer(s):
                k = _last_token(s, m.start(), len(norm.coords))
                if k is None:
                    continue
                if kind == "assign":
                    if k not in used:
                        used.add(k)
                        out.append(Found("Assign", {**self.rc(norm, k), "d": int(m.group(1))}, m.start(), end=m.end()))
                    continue
                for d in ints(m.group(1)):
                    out.append(Found("Cand", {**self.rc(norm, k), "d": [d], "polarity": "OUT"}, m.start(), end=m.end()))
        units = []
        for m in self.MISSING.finditer(s):
            if len(ints(m.group(3))) == 1 and re.match(r"\s+(?:in|at)\s+@", s[m.end():]):
                continue  # "row 4 needs 3 in r4c3" places a digit
            units.append(m.start())
            out.append(Found("UnitMissing", {"unit": axis_of(m.group(1)), "index": self.idx(m.group(2)),
                                              "d": ints(m.group(3))}, m.start(), tentative_ok=False, end=m.end()))
        for m in self.HAS.finditer(s):
            for d in ints(m.group(3)):
                out.append(Found("UnitHas", {"unit": axis_of(m.group(1)), "index": self.idx(m.group(2)), "digit": d},
                                  m.start(), tentative_ok=False, end=m.end()))
        for pat, kind in ((self.IT_HAS, "UnitHas"), (self.IT_MISSING, "UnitMissing")):
            for m in pat.finditer(s):
                named = list(re.finditer(UNITX, s[:m.start()]))
                if not named:
                    continue
                unit, index = axis_of(named[-1].group(1)), self.idx(named[-1].group(2))
                if kind == "UnitMissing":
                    out.append(Found(kind, {"unit": unit, "index": index, "d": ints(m.group(1))}, m.start(),
                                     tentative_ok=False, end=m.end()))
                else:
                    out.extend(Found(kind, {"unit": unit, "index": index, "digit": d}, m.start(), tentative_ok=False,
                                     end=m.end()) for d in ints(m.group(1)))
        for m in self.PLACES.finditer(s):
            ks = tokens(m.group(4))
            out.append(Found("UnitPlaces", {"unit": axis_of(m.group(1)), "index": self.idx(m.group(2)),
                                             "digit": int(m.group(3)),
                                             "cell_r": [self.rc(norm, k)["r"] for k in ks],
                                             "cell_c": [self.rc(norm, k)["c"] for k in ks]}, m.start(),
                              tentative_ok=False, end=m.end()))
        return out


def _last_token(s: str, before: int, n: int) -> int | None:
    """The cell token named last before position ``before`` (the referent of "it")."""
    best = max(((s.rfind(f"@{k}@", 0, before), k) for k in range(n)), default=(-1, None))
    return best[1] if best[0] >= 0 else None


def boxes(n: int, box_w: int, box_h: int) -> list[list[tuple[int, int]]]:
    """The cells of each box, boxes numbered row-major (docs/specs/grid_puzzles.md §5 "Solo")."""
    per_row = n // box_w
    return [[((b // per_row) * box_h + i, (b % per_row) * box_w + j) for i in range(box_h) for j in range(box_w)]
            for b in range(n)]


@dataclass(frozen=True)
class SoloPack(Pack):
    reader_class = SoloReader

    def rule_for(self, kind: str, kinds: set, output: tuple, inputs: list[tuple]) -> str | None:
        if kind == "Assign":
            if "Cand" in kinds or not kinds & {"UnitMissing", "UnitHas"}:
                return "R_ONLY_REMAINING_IN_CELL"
            return "R_ONLY_MISSING_DIGIT_IN_UNIT"
        if kind == "Cand" and json.loads(output[1]).get("polarity") == "OUT":
            return "R_ELIM_BY_UNIT_PRESENCE" if kinds & {"UnitHas", "Assign", "Given"} else "R_ELIM_BY_CONSTRAINT"
        return None

    def clue_claims(self, instance: Any) -> list:
        grid = instance.data["state"]["grid"]
        return [("Given", {"r": r, "c": c, "d": v}) for r, row in enumerate(grid) for c, v in enumerate(row) if v]

    def deduction_model(self, instance: Any) -> Model:
        st = instance.data["state"]
        n, bw, bh, grid = st["n"], st["box_w"], st["box_h"], st["grid"]
        sol = instance.data["solution"]
        cells = [(r, c) for r in range(n) for c in range(n)]
        units = [tuple((r, c) for c in range(n)) for r in range(n)] + [tuple((r, c) for r in range(n)) for c in range(n)]
        units += [tuple(b) for b in boxes(n, bw, bh)]
        return Model(
            domains={x: tuple(range(1, n + 1)) for x in cells}, constraints=[], units=units,
            fact=lambda v, d: ("Assign", {"r": v[0], "c": v[1], "d": d}),
            exclusion=lambda v, d: ("Cand", {"r": v[0], "c": v[1], "d": [d], "polarity": "OUT"}),
            givens={(r, c): grid[r][c] for r, c in cells if grid[r][c]},
            given_fact=lambda v, d: ("Given", {"r": v[0], "c": v[1], "d": d}),
            solution={(r, c): sol[r][c] for r, c in cells})


PACK = SOLO = SoloPack(
    puzzle="solo",
    solution_kinds=frozenset({"Assign"}),
    clue_kinds=frozenset({"Given", "UnitHas"}),
    kinds={
        "Assign": cell_fields(d="digit"),
        "Given": cell_fields(d="digit"),
        "Cand": cell_fields(d="digits", polarity="polarity"),
        "UnitMissing": {"unit": "unit", "index": "index", "d": "digits"},
        "UnitPlaces": {"unit": "unit", "index": "index", "digit": "digit", "cell_r": "rs", "cell_c": "cs"},
        "UnitHas": {"unit": "unit", "index": "index", "digit": "digit"},
    },
    rules=pack_rules("""
        R_UNIT_HAS_STATED UnitHas
        R_UNIT_MISSING_STATED UnitMissing
        R_ELIM_BY_UNIT_PRESENCE Cand
        R_ELIM_BY_CONSTRAINT Cand
        R_ONLY_REMAINING_IN_CELL Assign
        R_ONLY_MISSING_DIGIT_IN_UNIT Assign
        R_PATTERN_EXPERT Cand Assign UnitPlaces
    """, discharge={"Cand", "Assign"}),
    claim_notes=("Assign states a digit in a cell; Cand OUT removes the listed digits from a cell "
                 "(one claim per eliminated digit), Cand IN lists a cell's only possible digits. "
                 "unit is ROW, COL or BOX; boxes are numbered row-major."),
    rule_notes="R_PATTERN_EXPERT only when the text names a technique (pair, wing, fish ...).",
    value_claim=("Assign", "d"),
    templates={
        "Assign": ("{cell} = {d}", "{cell} is {d}", "{cell} must be {d}", "{d} goes in {cell}"),
        "Given": ("{cell} is a given {d}", "the given {d} at {cell}"),
        "Cand": ("{cell} cannot be {d}", "{d} cannot go in {cell}"),
    },
)
