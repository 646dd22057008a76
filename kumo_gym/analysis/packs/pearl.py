"""Pearl: grid_puzzles.md §5, §7; reasoning_graphs.md §6 "Other puzzles".

Claims: ``Edge{a,b,on}`` (solution: the loop joins the two neighbouring cells, or not; C* = every
edge of the loop with on=true), ``OnPath{r,c}`` / ``OffPath{r,c}`` (solution: the cell is on the
loop, or not), ``Pearl{r,c,color}`` (clue), ``Contradiction``. Edge claims are read by the line
reader shared with Train Tracks ("the loop joins (1, 2) and (1, 3)").

No deduction model yet (the one-loop rule is global; synthetic traces skip this puzzle).
"""
from __future__ import annotations

from typing import Any

from ..reading import Phrase
from .common import ALIASES, CONTRADICTION, generic_rules
from .tracks import EDGE_TEMPLATES, PATH_PHRASES, LinePack


class PearlPack(LinePack):
    def template_variant(self, kind: str, payload: dict) -> str:
        if kind == "Pearl":
            return str(payload.get("color", "")).upper()
        return super().template_variant(kind, payload)

    def clue_claims(self, instance: Any) -> list:
        grid = instance.data["state"]["grid"]
        return [("Pearl", {"r": r, "c": c, "color": "BLACK" if v == "B" else "WHITE"})
                for r, row in enumerate(grid) for c, v in enumerate(row) if v in ("B", "W")]


PACK = PEARL = PearlPack(
    puzzle="pearl",
    family="pearl",
    kinds={
        "Edge": {"a": "cell", "b": "cell", "on": "bool"},
        "OnPath": {"r": "r", "c": "c"},
        "OffPath": {"r": "r", "c": "c"},
        "Pearl": {"r": "r", "c": "c", "color": "color"},
        **CONTRADICTION,
    },
    solution_kinds=frozenset({"Edge", "OnPath", "OffPath"}),
    clue_kinds=frozenset({"Pearl"}),
    rules=generic_rules({"Edge", "OnPath", "OffPath"}, negative={"OffPath"}, clues={"Pearl"}),
    aliases=ALIASES,
    claim_notes=("Edge: the loop joins neighbouring cells a and b ([r, c] each; on=false: it does not). OnPath / "
                 "OffPath: cell (r, c) is on / off the loop. Pearl: a BLACK or WHITE pearl at (r, c)."),
    opposites={"OnPath": "OffPath", "OffPath": "OnPath"},
    negative_kinds=frozenset({"OffPath"}),
    phrases=tuple(
        p for colour in ("black", "white") for p in (
            Phrase("Pearl", rf"{{subj}}{{cells}} (?:is|are|holds|has) (?:a |the )?{colour} pearls?\b", {"color": colour.upper()}),
            Phrase("Pearl", rf"\b(?:there is |there's )?(?:a |the )?{colour} pearls? (?:at|in|on) {{cells}}", {"color": colour.upper()}),
        )) + PATH_PHRASES,
    templates={
        **EDGE_TEMPLATES,
        "Pearl:BLACK": ("{cell} is a black pearl", "there is a black pearl at {cell}"),
        "Pearl:WHITE": ("{cell} is a white pearl", "the white pearl at {cell}"),
    },
)
