"""Magnets: docs/specs/grid_puzzles.md §5, §7; docs/specs/reasoning_graphs.md §6 "Other puzzles".

Claims: ``Pole{r,c,v}`` (solution: v 1 for +, -1 for -, 0 blank; C* = the cells with v != 0) and
``NotPole{r,c,v}`` (the cell does not hold v), ``Count{axis,index,sign,n}`` and ``Slot{cells}``
(clues), ``Contradiction``.

Deduction model: one variable per cell (1, -1 or 0); a constraint per slot (a magnet or two
blanks), per pair of neighbours in different slots (no like poles) and per count shown.
"""
from __future__ import annotations

import re
from typing import Any

from ...envs.grid.magnets import count_lines
from ...envs.grid.magnets.geometry import across, slot_pairs
from ..deduce import Constraint, Model
from ..reading import Found, Phrase, PhraseReader
from ..schema import Pack
from ..text import Norm
from .common import cell_fields, claim_schema

WORDS = {1: "positive", -1: "negative", 0: "blank"}
SIGN_WORDS = {"+": "plus", "-": "minus"}
_SLOT = re.compile(r"@(\d+)@ and @(\d+)@ (?:form|make up|are|share|are in|lie in) (?:one|a|the same) (?:slot|domino)\b")


class SlotReader(PhraseReader):
    """The phrases, plus Slot claims ("(0, 0) and (1, 0) form one slot"; their cells are not read again)."""

    def read(self, norm: Norm) -> list[Found]:
        out, masked = [], norm.text
        for m in _SLOT.finditer(masked):
            cells = sorted([norm.coords[int(k)][0] - self.offset, norm.coords[int(k)][1] - self.offset] for k in m.groups())
            out.append(Found("Slot", {"cells": cells}, m.start(), True, m.end(), m.start()))
            masked = masked[:m.start()] + " " * (m.end() - m.start()) + masked[m.end():]
        return out + super().read(Norm(masked, norm.coords))


class MagnetsPack(Pack):
    reader_class = SlotReader

    def grid_claims(self, instance: Any, grid: list) -> list:
        return [("Pole", {"r": r, "c": c, "v": v}) for r, row in enumerate(grid) for c, v in enumerate(row)
                if v in (1, -1)]

    def template_variant(self, kind: str, payload: dict) -> str:
        if kind in ("Pole", "NotPole"):
            return WORDS.get(payload["v"], "")
        return SIGN_WORDS.get(payload.get("sign"), "") if kind == "Count" else ""

    def clue_claims(self, instance: Any) -> list:
        st = instance.data["state"]
        out = [("Slot", {"cells": [list(a), list(b)]}) for a, b in slot_pairs(st["slots"])[0]]
        return out + [("Count", {"axis": "COL" if key.endswith("cols") else "ROW", "index": i,
                                 "sign": "+" if sign == 1 else "-", "n": st[key][i]})
                      for key, i, _, sign in count_lines(len(st["slots"]), len(st["slots"][0])) if st[key][i] is not None]

    def deduction_model(self, instance: Any) -> Model:
        st, sol = instance.data["state"], instance.data["solution"]
        H, W = len(st["slots"]), len(st["slots"][0])
        pairs, singles, mate = slot_pairs(st["slots"])
        cons = [Constraint((a, b), lambda vals: vals in ((1, -1), (-1, 1), (0, 0)), (("Slot", {"cells": [list(a), list(b)]}),),
                           name="slot") for a, b in pairs]
        cons += [Constraint((x, y), lambda vals: vals[0] == 0 or vals[0] != vals[1], reason="like poles never touch",
                            name="neighbours") for x, y in across(H, W, mate)]
        for key, i, cells, sign in count_lines(H, W):
            if st[key][i] is not None:
                claim = ("Count", {"axis": "COL" if key.endswith("cols") else "ROW", "index": i,
                                   "sign": "+" if sign == 1 else "-", "n": st[key][i]})
                cons.append(Constraint(tuple(cells), lambda vals, s=sign, n=st[key][i]: sum(v == s for v in vals) == n,
                                       (claim,), name="count"))
        cells = [(r, c) for r in range(H) for c in range(W)]
        return Model(domains={x: (1, -1, 0) for x in cells}, constraints=cons,
                     fact=lambda v, x: ("Pole", {"r": v[0], "c": v[1], "v": x}),
                     exclusion=lambda v, x: ("NotPole", {"r": v[0], "c": v[1], "v": x}),
                     givens={x: 0 for x in singles}, solution={x: sol[x[0]][x[1]] for x in cells})


#: how traces name a cell's content: words, and the signs "+" and "-" ("(0, 0) is +", "a - pole")
_POLE = {1: r"(?:positive|plus|\+)(?: poles?| signs?| ends?)?(?![\w-])",
         -1: r"(?:negative|minus|-)(?: poles?| signs?| ends?)?(?![\w-])",
         0: r"(?:blank|empty|neutral)\b"}
_SIGN = {"+": r"(?:plus|positive|\+)", "-": r"(?:minus|negative|-)"}


def _phrases() -> tuple:
    out = []
    for v, word in _POLE.items():
        out += [Phrase("NotPole", rf"{{subj}}{{cells_or}} {{neg}} (?:be |hold |have )?(?:a |an )?{word}", {"v": v}),
                *Phrase.group("Pole", rf"{{subj}}{{cells}} (?:is|are|must be|has to be|=|:|becomes|gets|holds) (?:a |an )?{word}",
                                      rf"{{subj}}{{cells}} (?:is|must be) (?:therefore|then|thus) {word}",
                                      rf"{{cell}} ?,? (?:which is|a|an|the) {word}",
                                      rf"\b(?:put|place|write|mark|the|a|an) {word} (?:at|in|on) {{cells}}",
                                      rf"{word}:\s*{{cells}}",
                                      fixed={"v": v})]
    for sign, word in _SIGN.items():
        out += [Phrase("Count", rf"\b{{line}} (?:has|holds|needs|wants|must have|has to have|has to find|must find|still needs) {{n}} {word}"
                                rf"(?: poles?| signs?)?(?![\w-])", {"sign": sign}),
                *Phrase.group("Count", rf"\bthe {word} (?:clue|count|number) (?:of|for) {{line}} is {{n}}\b",
                                       rf"\b{{line}}'s {word} (?:clue|count|number) is {{n}}\b",
                                       fixed={"sign": sign})]
    return tuple(out)


PACK = MAGNETS = MagnetsPack(
    puzzle="magnets",
    **claim_schema(
        {"Pole": cell_fields(v="value"), "NotPole": cell_fields(v="value")},
        {"Count": {"axis": "axis", "index": "index", "sign": "sym", "n": "count"}, "Slot": {"cells": "cells"}},
        opposite={"Pole": "NotPole"},
    ),
    claim_notes=("Pole: cell (r, c) holds v (1 a + pole, -1 a - pole, 0 blank); NotPole rules v out there. Count: row or "
                 "column index holds n poles of sign + or -. Slot: the two cells form one domino slot."),
    phrases=_phrases(),
    templates={
        **{f"Pole:{w}": (f"{{cell}} is {w}", f"{{cell}} must be {w}") for w in WORDS.values()},
        **{f"NotPole:{w}": (f"{{cell}} cannot be {w}", f"{{cell}} is not {w}") for w in WORDS.values()},
        **{f"Count:{w}": (f"{{line}} has {{n}} {w} poles", f"{{line}} needs {{n}} {w} signs") for w in SIGN_WORDS.values()},
        "Slot": ("{cell_list} form one slot",),
    },
)
