"""Bridges: docs/specs/grid_puzzles.md §5, §7; docs/specs/reasoning_graphs.md §6 "Other puzzles".

Claims: ``Bridge{r1,c1,r2,c2,n}`` (solution: the islands (r1, c1) < (r2, c2), in sight of each
other, are joined by exactly n bridges, n = 0 none; C* = one per joined pair), ``Island{r,c,n}``
(clue: the island shows n), ``Needs{r,c,n}`` (state: that island still needs n more bridges),
``NotBridge{r1,c1,r2,c2,n}`` (state: the pair does not have exactly n bridges; n = 0 reads "at
least one bridge"), ``Contradiction``. Pair claims are read by a small reader of their own ("a
double bridge joins (1, 2) and (1, 5)", "(3, 3) connects to (3, 6) with 2 bridges", "no bridge
between ..."); NotBridge is the pack's own elimination claim and is unverifiable, as Cand is.

Deduction model: one variable per pair of islands in sight, its number of bridges 0..max; each
island's bridges add up to its number; two crossing pairs are not both joined. Connectivity (and
the no-loop option) is global and is left to probing and the stated fallback.
"""
from __future__ import annotations

import json
import re
from typing import Any

from ...envs.grid.bridges.claims import bridges_between
from ...envs.grid.bridges.geometry import crossings, islands_of, sight_lines
from ..deduce import Constraint, Model
from ..reading import Found, Phrase, PhraseReader
from ..schema import DISCHARGE, Pack
from ..text import Norm
from .common import cell_fields, claim_schema

_A, _B = r"@(?P<a>\d+)@", r"@(?P<b>\d+)@"
_WORDS = {"zero": 0, "one": 1, "single": 1, "two": 2, "double": 2, "three": 3, "triple": 3, "four": 4, "quadruple": 4}
_K = r"(?:a |an )?(?P<k>[0-4]|zero|one|two|three|four|single|double|triple|quadruple)"
_J = r"(?:joined|connected|linked|bridged)"
_VERB = (r"(?:between|from|joins?|joining|connects?|connecting|links?|linking|must join|must connect|goes between|"
         r"go between|runs between|run between|goes from|go from|runs from)")
_COUNTED = r"(?! (?:by|with|using|through|via)\b)"
_CANNOT = r"(?:cannot|can't|can not|must not|do not|don't)"
#: "is joined to", "connects (to)", "joins", "goes to" ... (before the other island)
_JOINS = rf"(?:{_J} (?:to|with)|(?:connects|joins|links|goes|runs)(?: to| with)?)"
#: (pattern, kind, n) -- n None: the pattern's count; negative phrasings first, each match masked
_PAIRS = tuple((re.compile(p), kind, n) for p, kind, n in (
    (rf"\bat least (?:one|1) bridges? {_VERB} {_A} (?:and|to|with) {_B}", "NotBridge", 0),
    (rf"{_A} and {_B} {_CANNOT} (?:be {_J} by|have|share|take|get|hold|use) {_K} bridges?", "NotBridge", None),
    (rf"{_A} {_CANNOT} (?:be {_J} (?:to|with)|connect (?:to|with)|join) {_B} (?:by|with|using) {_K} bridges?", "NotBridge",
     None),
    (rf"\bnot {_K} bridges? (?:between|from) {_A} (?:and|to) {_B}", "NotBridge", None),
    (rf"\bno (?P<k>single|double|triple) bridge (?:between|from) {_A} (?:and|to) {_B}", "NotBridge", None),
    (rf"\bno bridges? (?:between|from|joins|connects|links) {_A} (?:and|to|with) {_B}", "Bridge", 0),
    (rf"{_A} and {_B} (?:are not|aren't|cannot be|can't be|must not be|are never) {_J}\b", "Bridge", 0),
    (rf"{_A} (?:is not|isn't|cannot be|can't be|must not be|is never) {_J} (?:to|with) {_B}{_COUNTED}", "Bridge", 0),
    (rf"{_A} (?:does not|doesn't|cannot|can't|must not|never) (?:connect|join|link|bridge) (?:to|with) {_B}{_COUNTED}",
     "Bridge", 0),
    (rf"\b(?:the )?{_K} bridges? {_VERB} {_A} (?:and|to|with) {_B}", "Bridge", None),
    ((rf"{_A} (?:is |are |must be |has to be )?(?:also |then |now |still |already )?{_JOINS} {_B} (?:by|with|using|through|via) "
      rf"{_K} bridges?"), "Bridge", None),
    (rf"{_A} and {_B} (?:are |must be |have to be )?(?:also |then |now |both )?{_J} (?:by|with|using) {_K} bridges?",
     "Bridge", None),
    (rf"{_A} and {_B} (?:share|get|take|need|have|hold|use) {_K} bridges?", "Bridge", None),
    (rf"\b(?:put|place|draw|add|build|lay) {_K} bridges? (?:between|from) {_A} (?:and|to) {_B}", "Bridge", None),
    (rf"\bthe bridge (?:between|from) {_A} (?:and|to) {_B} (?:is|must be|has to be) (?:a |an )?(?P<k>single|double|triple)",
     "Bridge", None),
    # joined, without a count: at least one bridge
    (rf"{_A} and {_B} (?:are|must be|have to be) (?:also |then |now |both )?{_J}\b{_COUNTED}", "NotBridge", 0),
    (rf"{_A} (?:is|must be|has to be) (?:also |then |now |still |already )?{_J} (?:to|with) {_B}{_COUNTED}", "NotBridge", 0),
    (rf"{_A} (?:must |has to |then |also )?(?:connects?|joins?|links?) (?:to|with) {_B}{_COUNTED}", "NotBridge", 0),
))
_NOT_MORE = r"(?! more| bridges?\b)"


def pair_payload(a: tuple, b: tuple, n: int) -> dict:
    """The payload of a claim about the islands ``a`` and ``b`` (in row-major order)."""
    (r1, c1), (r2, c2) = sorted((tuple(a), tuple(b)))
    return {"r1": r1, "c1": c1, "r2": r2, "c2": c2, "n": n}


class BridgesReader(PhraseReader):
    """Claims about a pair of islands (their two cells are not read again), then the phrases."""

    def read(self, norm: Norm) -> list[Found]:
        out, masked = [], norm.text
        for rx, kind, n in _PAIRS:
            for m in rx.finditer(masked):
                a, b = ((norm.coords[int(m.group(g))][0] - self.offset, norm.coords[int(m.group(g))][1] - self.offset)
                        for g in ("a", "b"))
                k = n if n is not None else m.group("k")
                k = _WORDS[k] if k in _WORDS else int(k)
                out.append(Found(kind, pair_payload(a, b, k), m.start(), True, m.end(), m.start()))
                masked = masked[:m.start()] + " " * (m.end() - m.start()) + masked[m.end():]
        return out + super().read(Norm(masked, norm.coords))


def _pair(p: dict) -> tuple:
    return p.get("r1"), p.get("c1"), p.get("r2"), p.get("c2")


class BridgesPack(Pack):
    reader_class = BridgesReader

    def referents(self, kind: str, payload: dict) -> frozenset:
        if kind in ("Bridge", "NotBridge"):
            r1, c1, r2, c2 = _pair(payload)
            return frozenset({("cell", r1, c1), ("cell", r2, c2)})
        return super().referents(kind, payload)

    def negates(self, a: tuple, b: tuple) -> bool:
        """Bridge n is negated by NotBridge n and by Bridge m != n of the same pair, and NotBridge n by Bridge n."""
        pa, pb = json.loads(a[1]), json.loads(b[1])
        if {a[0], b[0]} <= {"Bridge", "NotBridge"} and _pair(pa) == _pair(pb):
            if a[0] == b[0] == "Bridge":
                return pa["n"] != pb["n"]
            return a[0] != b[0] and pa["n"] == pb["n"]
        return super().negates(a, b)

    def template_variant(self, kind: str, payload: dict) -> str:
        n = payload.get("n")
        if kind == "Bridge" and n in (0, 1, 2):
            return str(n)
        return "0" if kind == "NotBridge" and n == 0 else ""

    def grid_claims(self, instance: Any, grid: list) -> list:
        pairs = bridges_between(grid, len(grid), len(grid[0]))
        return [("Bridge", pair_payload(a, b, n)) for (a, b), n in pairs.items() if n]

    def clue_claims(self, instance: Any) -> list:
        grid = instance.data["state"]["grid"]
        return [("Island", {"r": r, "c": c, "n": grid[r][c]}) for r, c in islands_of(grid)]

    def deduction_model(self, instance: Any) -> Model:
        st = instance.data["state"]
        grid = st["grid"]
        H, W = len(grid), len(grid[0])
        isles = islands_of(grid)
        lines = sight_lines(H, W, isles)
        pairs = [(isles[i], isles[j]) for i, j, _, _ in lines]
        cons = []
        for x in isles:
            mine = tuple(p for p in pairs if x in p)
            n = grid[x[0]][x[1]]
            cons.append(Constraint(mine, lambda vals, n=n: sum(vals) == n, (("Island", {"r": x[0], "c": x[1], "n": n}),),
                                   name="island count"))
        cons += [Constraint((pairs[h], pairs[v]), lambda vals: not (vals[0] and vals[1]), reason="bridges never cross",
                            name="no crossing") for h, v in crossings(lines)]
        truth = bridges_between(instance.data["solution"], H, W)
        return Model(domains={p: tuple(range(int(st["max_bridges"]) + 1)) for p in pairs}, constraints=cons,
                     fact=lambda v, x: ("Bridge", pair_payload(v[0], v[1], x)),
                     exclusion=lambda v, x: ("NotBridge", pair_payload(v[0], v[1], x)),
                     solution={p: truth[p] for p in pairs})


_PAIR_FIELDS = {"r1": "r", "c1": "c", "r2": "r", "c2": "c", "n": "count"}
_SCHEMA = claim_schema({"Bridge": _PAIR_FIELDS}, {"Island": cell_fields(n="count")}, {"Needs": cell_fields(n="count")},
                       other={"NotBridge": _PAIR_FIELDS}, opposite={"Bridge": "NotBridge"})
# a refuted "n bridges" assumption is discharged as "not n bridges" (a state claim here, as Cand is)
_SCHEMA["rules"][DISCHARGE] = _SCHEMA["rules"][DISCHARGE] | {"NotBridge"}

PACK = BRIDGES = BridgesPack(
    puzzle="bridges",
    **_SCHEMA,
    claim_notes=("Bridge: the islands (r1, c1) and (r2, c2), in the same row or column with only water between, are "
                 "joined by exactly n bridges (n = 0: not joined); name the upper-left island first. NotBridge: they "
                 "do not have exactly n bridges (n = 0: at least one bridge joins them). Island: the island at (r, c) "
                 "shows n. Needs: that island still needs n more bridges."),
    phrases=(
        *Phrase.group("Needs", r"{subj}(?:the (?:island |number )?(?:\d{1,2} )?(?:at|on|in) )?{cell} (?:still |now |then |only )?"
                               r"(?:needs|requires|wants|lacks) (?:exactly |just |only )?{n} more(?: bridges?)?\b",
                               r"{subj}(?:the (?:island |number )?(?:\d{1,2} )?(?:at|on|in) )?{cell} (?:still |now )?has {n} "
                               r"(?:more )?bridges? (?:left|remaining|to go|still to place)\b"),
        *Phrase.group("Island", rf"\bthe island (?:at|on|in) {{cell}} ?,? (?:is|shows|has|holds|carries|=|:|which is) "
                                rf"(?:a |the )?(?:number |value |clue )?{{n}}\b{_NOT_MORE}",
                                rf"\bisland {{cell}} (?:is|shows|has|holds|=|:) (?:a |the )?(?:number )?{{n}}\b{_NOT_MORE}",
                                rf"{{subj}}{{cell}} (?:is|shows|holds|has) (?:an? |the )?(?:island|number|clue) (?:of |with )?"
                                rf"{{n}}\b{_NOT_MORE}",
                                rf"{{subj}}{{cell}} shows (?:a |the )?{{n}}\b{_NOT_MORE}",
                                r"\b(?:an? |the )?island of {n} (?:at|on|in) {cell}",
                                r"\bthe {n} (?:island )?(?:at|on|in) {cell}"),
    ),
    templates={
        "Bridge:0": ("no bridge between {cell1} and {cell2}", "{cell1} is not connected to {cell2}",
                     "{cell1} and {cell2} are not joined"),
        "Bridge:1": ("a single bridge joins {cell1} and {cell2}", "{cell1} connects to {cell2} with 1 bridge",
                     "one bridge between {cell1} and {cell2}"),
        "Bridge:2": ("a double bridge joins {cell1} and {cell2}", "{cell1} connects to {cell2} with 2 bridges",
                     "{cell1} and {cell2} are joined by two bridges"),
        "Bridge": ("{cell1} connects to {cell2} with {n} bridges", "{n} bridges join {cell1} and {cell2}"),
        "NotBridge:0": ("at least one bridge joins {cell1} and {cell2}", "{cell1} and {cell2} must be connected"),
        "NotBridge": ("{cell1} and {cell2} cannot have {n} bridge{n_s}", "not {n} bridge{n_s} between {cell1} and {cell2}"),
        "Island": ("the island at {cell} is {n}", "{cell} is an island of {n}"),
        "Needs": ("the island at {cell} needs {n} more bridge{n_s}", "{cell} still needs {n} more bridge{n_s}"),
    },
)
