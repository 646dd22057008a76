"""Dominosa: docs/specs/grid_puzzles.md §5, §7; docs/specs/reasoning_graphs.md §6 "Other puzzles".

Claims: ``Domino{cells}`` / ``NotDomino{cells}`` (solution: the two adjacent cells are, or are
not, one domino; C* = one Domino per domino), ``Number{r,c,n}`` (clue), ``Contradiction``.

Deduction model: one yes/no variable per domino slot; every cell lies on exactly one chosen slot,
and every pair of numbers on exactly one.
"""
from __future__ import annotations

import json
import re
from typing import Any

from ...envs.grid.dominosa import DominosaTask
from ...envs.grid.dominosa.geometry import dominoes
from ..deduce import Constraint, Model
from ..reading import Found, Phrase, PhraseReader
from ..schema import Pack
from ..text import Norm
from .common import cell_fields, claim_schema

_NOT = r"(?:cannot|can't|can not|do not|don't|are not|aren't|must not|is not|isn't)"
_PAIRS = (  # negatives first
    (re.compile(rf"@(\d+)@ and @(\d+)@ {_NOT} (?:form |be |make )?(?:a|one|the same) domino\b"), "NotDomino"),
    (re.compile(rf"@(\d+)@ {_NOT} (?:be )?(?:pair|paired|go|join|joined)(?:ed)? (?:up )?with @(\d+)@"), "NotDomino"),
    (re.compile(r"\bdomino (?:at|on|covering) @(\d+)@ ?(?:-|and|to) ?@(\d+)@ is (?:ruled out|impossible)"), "NotDomino"),
    (re.compile(r"@(\d+)@ and @(\d+)@ (?:form|are|make|must form|must be|have to form|has to be) (?:a|one) domino\b"),
     "Domino"),
    # "(0, 0) pairs with (0, 1)", "place a domino on (0, 0)-(0, 1)", "(0, 0)-(0, 1) is a domino"
    (re.compile(r"@(\d+)@ (?:must |has to |should )?(?:therefore |then |thus )?(?:pairs?|be paired|is paired|goes|go|"
                r"joins?) (?:up )?with @(\d+)@(?! ?or\b)"), "Domino"),
    (re.compile(r"\b(?:domino|dominoes|go|goes|lies|lie|sits?|placed?) (?:at|on|covering|over) @(\d+)@ ?(?:-|and|to) ?"
                r"@(\d+)@(?! ?or\b)"), "Domino"),
    (re.compile(r"@(\d+)@ and @(\d+)@ as (?:a|the|one) (?:domino\b|\d{1,2}-\d{1,2})"), "Domino"),
    (re.compile(r"@(\d+)@ ?- ?@(\d+)@ (?:is|must be|has to be|forms) (?:a|one) domino\b"), "Domino"),
)


class DominoReader(PhraseReader):
    """The phrases, plus Domino / NotDomino claims about two cells (not read again)."""

    def read(self, norm: Norm) -> list[Found]:
        out, masked = [], norm.text
        for rx, kind in _PAIRS:
            for m in rx.finditer(masked):
                cells = sorted([norm.coords[int(k)][0] - self.offset, norm.coords[int(k)][1] - self.offset]
                               for k in m.groups())
                out.append(Found(kind, {"cells": cells}, m.start(), True, m.end(), m.start()))
                masked = masked[:m.start()] + " " * (m.end() - m.start()) + masked[m.end():]
        return out + super().read(Norm(masked, norm.coords))


class DominosaPack(Pack):
    reader_class = DominoReader

    def negates(self, a: tuple, b: tuple) -> bool:
        pa, pb = json.loads(a[1]), json.loads(b[1])
        if "cells" in pa and "cells" in pb:
            return self.opposites.get(a[0]) == b[0] and pa["cells"] == pb["cells"]
        return super().negates(a, b)

    def grid_claims(self, instance: Any, grid: list) -> list:
        return [("Domino", {"cells": [list(a), list(b)]}) for a, b in dominoes(grid)]

    def clue_claims(self, instance: Any) -> list:
        return [("Number", {"r": r, "c": c, "n": v}) for r, row in enumerate(instance.data["state"]["grid"])
                for c, v in enumerate(row)]

    def deduction_model(self, instance: Any) -> Model:
        nums, sol = instance.data["state"]["grid"], instance.data["solution"]
        H, W = len(nums), len(nums[0])
        slots = DominosaTask._slot_cells(H, W)
        laid = set(dominoes(sol))
        touching: dict = {}
        by_pair: dict = {}
        for s in slots:
            for cell in s:
                touching.setdefault(cell, []).append(s)
            by_pair.setdefault(tuple(sorted(nums[r][c] for r, c in s)), []).append(s)
        one = lambda vals: sum(vals) == 1
        cons = [Constraint(tuple(group), one, reason="every cell belongs to exactly one domino", name="cover")
                for _, group in sorted(touching.items())]
        cons += [Constraint(tuple(group), one, reason=f"the pair {a}-{b} is used exactly once", name="pair")
                 for (a, b), group in sorted(by_pair.items())]
        return Model(domains={s: (1, 0) for s in slots}, constraints=cons,
                     fact=lambda s, x: ("Domino" if x else "NotDomino", {"cells": [list(s[0]), list(s[1])]}),
                     solution={s: int(s in laid) for s in slots})


PACK = DOMINOSA = DominosaPack(
    puzzle="dominosa",
    **claim_schema(
        {"Domino": {"cells": "cells"}, "NotDomino": {"cells": "cells"}},
        {"Number": cell_fields(n="count")},
        opposite={"Domino": "NotDomino"},
    ),
    claim_notes=("Domino: the two adjacent cells [[r1, c1], [r2, c2]] form one domino of the solution; NotDomino: "
                 "they do not. Number: the number n printed in cell (r, c)."),
    phrases=(Phrase("Number", r"\bthe number (?:at|in) {cell} is {n}\b"),
             *Phrase.group("Number", r"\bthe {n} (?:at|in) {cell}",
                                     r"{subj}{cell} (?:is|=) (?:a )?{n}\b(?! or)",
                                     r"{subj}{cell} (?:holds|shows) (?:the number |a )?{n}\b")),
    templates={
        "Domino": ("{cell_list} form a domino", "{cell_list} must form a domino"),
        "NotDomino": ("{cell_list} cannot form a domino", "{cell_list} are not one domino"),
        "Number": ("the number at {cell} is {n}", "{cell} holds the number {n}"),
    },
)
