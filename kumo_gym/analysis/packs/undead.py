"""Undead: docs/specs/grid_puzzles.md §5, §7; docs/specs/reasoning_graphs.md §6 "Other puzzles".

Claims: ``Monster{r,c,t}`` (solution, t G/V/Z; C* = every cell without a mirror) and
``NotMonster{r,c,t}`` (the cell does not hold t), ``Mirror{r,c,kind}``, ``Total{t,n}`` and
``Sight{side,index,n}`` (clues), ``Contradiction``.

Deduction model: one variable per cell without a mirror (G, V or Z); a constraint per edge
number (the monsters seen along its line of sight) and per total.
"""
from __future__ import annotations

from typing import Any

from ...envs.grid.undead.codec import MIRRORS, MONSTERS, SIDES, visible
from ...envs.grid.undead.geometry import sight_line
from ..deduce import Constraint, Model
from ..reading import Phrase
from ..schema import Pack
from .common import cell_fields, claim_schema, per_value

NAMES = {"G": "ghost", "V": "vampire", "Z": "zombie"}
MIRROR_WORDS = {"\\": "backslash", "/": "slash"}


class UndeadPack(Pack):
    def grid_claims(self, instance: Any, grid: list) -> list:
        return [("Monster", {"r": r, "c": c, "t": v}) for r, row in enumerate(grid) for c, v in enumerate(row)
                if v in MONSTERS]

    def template_variant(self, kind: str, payload: dict) -> str:
        if kind in ("Monster", "NotMonster", "Total"):
            return str(payload["t"])
        return MIRROR_WORDS.get(payload.get("kind"), "") if kind == "Mirror" else ""

    def clue_claims(self, instance: Any) -> list:
        st = instance.data["state"]
        out = [("Mirror", {"r": r, "c": c, "kind": v}) for r, row in enumerate(st["grid"]) for c, v in enumerate(row)
               if v in MIRRORS]
        out += [("Total", {"t": t, "n": st["totals"][t]}) for t in MONSTERS]
        return out + [("Sight", {"side": side.upper(), "index": i, "n": n}) for side in SIDES for i, n in enumerate(st[side])]

    def deduction_model(self, instance: Any) -> Model:
        st, sol = instance.data["state"], instance.data["solution"]
        grid = st["grid"]
        cells = [(r, c) for r, row in enumerate(grid) for c, v in enumerate(row) if v not in MIRRORS]
        cons = []
        for side in SIDES:
            for i, n in enumerate(st[side]):
                seen = sight_line(grid, side, i)
                where = tuple(dict.fromkeys(x for x, _ in seen))
                if not where:
                    continue
                turned = [(where.index(x), t) for x, t in seen]
                cons.append(Constraint(where, lambda vals, turned=turned, n=n: sum(
                    visible(vals[j], t) for j, t in turned) == n, (("Sight", {"side": side.upper(), "index": i, "n": n}),),
                    name="line of sight"))
        for t in MONSTERS:
            k = st["totals"][t]
            cons.append(Constraint(tuple(cells), lambda vals, t=t, k=k: sum(v == t for v in vals) == k,
                                   (("Total", {"t": t, "n": k}),), name="total"))
        return Model(domains={x: MONSTERS for x in cells}, constraints=cons,
                     fact=lambda v, x: ("Monster", {"r": v[0], "c": v[1], "t": x}),
                     exclusion=lambda v, x: ("NotMonster", {"r": v[0], "c": v[1], "t": x}),
                     givens={(r, c): grid[r][c] for r, c in cells if grid[r][c] in MONSTERS},
                     solution={x: sol[x[0]][x[1]] for x in cells})


#: a monster named by its word or its letter ("(1, 1) is a ghost", "(1, 1) = G")
_NAME = {t: rf"(?:{word}s?\b|{t.lower()}(?![\w'-]))" for t, word in NAMES.items()}
_MIRROR = {"\\": r"(?:backslash|\\)", "/": r"(?:forward[- ]slash|slash|/)"}


def _phrases() -> tuple:
    out = []
    for t, word in NAMES.items():
        name = _NAME[t]
        out += [
            *Phrase.group("NotMonster", rf"{{subj}}{{cells_or}} {{neg}} (?:be |hold |contain )?(?:a |an )?{name}",
                                        rf"\b(?:a |the )?{word} (?:cannot|can't) (?:be|go) (?:at|in) {{cell}}",
                                        fixed={"t": t}),
            *Phrase.group("Monster", rf"{{subj}}{{cells}} (?:is|are|=|:|must be|has to be|holds|hold|contains|becomes|gets) "
                                         rf"(?:therefore |then |also )?(?:a |an |the other |another |the last |the second |the )?{name}"
                                         rf"(?! or\b)",
                                     rf"{{cell}} ?,? (?:which is|a|an|the) {word}\b",
                                     rf"\b(?:there is|put|place) (?:a |an )?{word} (?:at|in) {{cell}}",
                                     fixed={"t": t}),
            Phrase("Monster", rf"\bthe {word} (?:at|in) {{cells}}", {"t": t}),  # ("a zombie at X is fine" asserts nothing)
            *Phrase.group("Total", rf"\bthere (?:are|is|must be) {{n}} {word}s? in (?:total|all)\b",
                                   rf"\b(?:the puzzle|we|i) (?:needs?|wants?|has|have) {{n}} {word}s?\b"
                                       rf"(?! (?:in|on|along|left|remaining|more)\b)",
                                   rf"\b(?:the )?(?:total|number|count) (?:of )?{word}s? is {{n}}\b",
                                   rf"\b(?:{word}s?|{t.lower()}) ?[:=] ?{{n}}\b",
                                   fixed={"t": t}),
        ]
    for kind, word in _MIRROR.items():
        out += [Phrase("Mirror", rf"{{subj}}{{cell}} (?:holds|has|is) an? {word} mirror", {"kind": kind}),
                *Phrase.group("Mirror", rf"\b(?:the|a|an) {word} mirror (?:at|in|on) {{cell}}",
                                        rf"\bthe mirror (?:at|in|on) {{cell}} is (?:a |an )?{word}(?!\w)",
                                        fixed={"kind": kind})]
    out += [Phrase("Sight", r"\bthe {side} (?:clue|number) (?:of|for|on) (?:column|row) (?P<index>\d{1,3}) (?:is|=|:|says|(?:only )?counts|shows) {n}\b"),
            *Phrase.group("Sight", r"\b(?:column|row) (?P<index>\d{1,3})'s {side} (?:clue|number) (?:is|=|:) {n}\b",
                                   r"\b(?:looking|seen|looking in) from the {side}(?: of| into)? (?:column|row) (?P<index>\d{1,3}),? "
                                       r"(?:(?:i|we|one) )?(?:sees?|shows?|has) {n}\b",
                                   r"\b(?:column|row) (?P<index>\d{1,3}),? (?:from|seen from) the {side},? (?:sees|shows|has) {n}\b",
                                   r"\b(?:column|row) (?P<index>\d{1,3}) (?:sees|shows) {n} from the {side}\b",
                                   r"\b(?:looking|seen|looking in) from the {side},? (?:column|row) (?P<index>\d{1,3}) "
                                       r"(?:sees|shows|has) {n}\b",
                                   r"\blooking in from the {side} of (?:column|row) (?P<index>\d{1,3}),? (?:i|we|one) sees? {n}\b")]
    return tuple(out)


PACK = UNDEAD = UndeadPack(
    puzzle="undead",
    **claim_schema(
        {"Monster": cell_fields(t="sym"), "NotMonster": cell_fields(t="sym")},
        {"Mirror": cell_fields(kind="sym"),
         "Total": {"t": "sym", "n": "count"},
         "Sight": {"side": "side", "index": "index", "n": "count"}},
        opposite={"Monster": "NotMonster"},
    ),
    claim_notes=("Monster: cell (r, c) holds monster t (G ghost, V vampire, Z zombie); NotMonster rules t out there. "
                 "Mirror: a mirror of kind \\ or / at (r, c). Total: there are n monsters of kind t. Sight: the edge "
                 "number on side TOP/BOTTOM (a column) or LEFT/RIGHT (a row) at that index is n."),
    phrases=_phrases(),
    templates={
        **per_value("Monster", NAMES, "{cell} is a {name}", "{cell} holds a {name}", "there is a {name} at {cell}",
                    "{cell} must be a {name}"),
        **per_value("NotMonster", NAMES, "{cell} cannot be a {name}", "{cell} is not a {name}"),
        **per_value("Total", NAMES, "there are {n} {name}s in total"),
        **{f"Mirror:{w}": (f"{{cell}} holds a {w} mirror",) for w in MIRROR_WORDS.values()},
        "Sight": ("the {side} clue of {dir} {idx} is {n}", "looking in from the {side} of {dir} {idx}, one sees {n}"),
    },
)
