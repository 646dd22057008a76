"""Keen (KenKen): docs/specs/grid_puzzles.md §5, §7; docs/specs/reasoning_graphs.md §6 "Other puzzles".

Claims: ``Cell{r,c,v}`` / ``NotCell{r,c,v}`` (solution; C* = every cell), ``Cage{cells,op,target}``
(clue: the cage's cells, its operation ``+ x - /`` and its target), ``Cand`` (state),
``Contradiction``.

Deduction model: the Latin square as row and column units, and one constraint per cage (its
values meet the clue). Cage claims are read by a small reader of their own ("the cage of (0, 0)
and (0, 1) has product 6"), since a phrase reads one claim per cell.
"""
from __future__ import annotations

import re
from typing import Any

from ...envs.grid.keen import cage_ok
from ..deduce import Constraint, Model
from ..reading import Found, PhraseReader
from ..schema import Pack
from ..text import LIST, Norm, tokens
from .common import value_pack

#: the operation of a cage in words (templates and reader)
WORDS = {"+": "sum", "x": "product", "-": "difference", "/": "quotient"}
_OPS = {w: op for op, w in WORDS.items()}
_CAGE = re.compile(rf"\bcage (?:of|at|on|covering) (?P<cells>{LIST}) (?:has|shows|is) (?:a |the )?"
                   rf"(?P<op>sum|product|difference|quotient) (?:of )?(?P<t>\d{{1,6}})\b")


def cage_claim(cage: dict) -> tuple:
    return ("Cage", {"cells": [list(x) for x in cage["cells"]], "op": cage["op"], "target": cage["target"]})


class CageReader(PhraseReader):
    """The value phrases, plus Cage claims (their cells are not read again as cell claims)."""

    def read(self, norm: Norm) -> list[Found]:
        out, masked = [], norm.text
        for m in _CAGE.finditer(norm.text):
            cells = [[r - self.offset, c - self.offset] for r, c in (norm.coords[k] for k in tokens(m.group("cells")))]
            out.append(Found("Cage", {"cells": cells, "op": _OPS[m.group("op")], "target": int(m.group("t"))},
                             m.start(), True, m.end(), m.start()))
            masked = masked[:m.start()] + " " * (m.end() - m.start()) + masked[m.end():]
        return out + super().read(Norm(masked, norm.coords))


class KeenPack(Pack):
    reader_class = CageReader

    def template_variant(self, kind: str, payload: dict) -> str:
        return WORDS.get(str(payload.get("op", "")).lower(), "") if kind == "Cage" else ""

    def clue_claims(self, instance: Any) -> list:
        return [cage_claim(cage) for cage in instance.data["state"]["cages"]]

    def deduction_model(self, instance: Any) -> Model:
        st, sol = instance.data["state"], instance.data["solution"]
        n = st["n"]
        cells = [(r, c) for r in range(n) for c in range(n)]
        cons = [Constraint(tuple(map(tuple, cage["cells"])),
                           lambda vals, cage=cage: cage_ok(cage["op"], cage["target"], list(vals)),
                           (cage_claim(cage),), name="cage") for cage in st["cages"]]
        units = [tuple((r, c) for c in range(n)) for r in range(n)] + [tuple((r, c) for r in range(n)) for c in range(n)]
        return Model(domains={x: tuple(range(1, n + 1)) for x in cells}, constraints=cons, units=units,
                     fact=lambda v, x: ("Cell", {"r": v[0], "c": v[1], "v": x}),
                     exclusion=lambda v, x: ("NotCell", {"r": v[0], "c": v[1], "v": x}),
                     solution={(r, c): sol[r][c] for r, c in cells})


def _cage_templates() -> dict:
    return {f"Cage:{word}": (f"the cage of {{cell_list}} has {word} {{target}}",
                             f"the cage covering {{cell_list}} shows {word} {{target}}")
            for word in WORDS.values()}


PACK = KEEN = KeenPack(
    puzzle="keen",
    **value_pack({"Cage": {"cells": "cells", "op": "sym", "target": "value"}}, templates=_cage_templates()),
    claim_notes=("Cell states a cell's value, NotCell rules one out. Cage is an arithmetic clue: the cells of the "
                 "cage, op one of + x - / and the target."),
)
