"""Light Up: docs/specs/grid_puzzles.md §5, §7; docs/specs/reasoning_graphs.md §6 "Other puzzles".

Claims: ``Light{r,c}`` / ``NoLight{r,c}`` (solution; C* = the lights), ``Black{r,c,n}`` (clue:
``n`` the number on a numbered black cell, null for a plain one), ``Needs{r,c,n}`` (state: the
number at (r, c) still needs n more lights), ``Contradiction``.

Deduction model: one variable per white cell; at most one light per row or column segment;
every white cell lit (some light in its segments); a numbered black cell has exactly n lights
next to it.
"""
from __future__ import annotations

from typing import Any

from ..deduce import Constraint, Model
from ..reading import Phrase
from ..schema import Pack
from .common import cell_fields, claim_schema, neighbours4, state_grid

LIGHT_WORDS = r"(?:light|bulb|lamp|l)s?"


def segments(grid: list) -> list[list[tuple[int, int]]]:
    """Maximal runs of white cells in rows and columns."""
    H, W = len(grid), len(grid[0])
    out = []
    for line in [[(r, c) for c in range(W)] for r in range(H)] + [[(r, c) for r in range(H)] for c in range(W)]:
        run: list = []
        for r, c in line:
            if grid[r][c] == ".":
                run.append((r, c))
            elif run:
                out.append(run)
                run = []
        if run:
            out.append(run)
    return out


class LightupPack(Pack):
    def template_variant(self, kind: str, payload: dict) -> str:
        return "none" if kind == "Black" and payload.get("n") is None else ""

    def clue_claims(self, instance: Any) -> list:
        grid = instance.data["state"]["grid"]
        return [("Black", {"r": r, "c": c, "n": None if v == "#" else int(v)})
                for r, row in enumerate(grid) for c, v in enumerate(row) if v != "."]

    def deduction_model(self, instance: Any) -> Model:
        grid, H, W = state_grid(instance)
        sol = instance.data["solution"]
        white = [(r, c) for r in range(H) for c in range(W) if grid[r][c] == "."]
        segs = segments(grid)
        cons = [Constraint(tuple(s), lambda vals: sum(v == "L" for v in vals) <= 1, name="one light per segment")
                for s in segs if len(s) > 1]
        seen: dict = {x: set() for x in white}
        for s in segs:
            for x in s:
                seen[x].update(s)
        for x in white:
            cons.append(Constraint(tuple(sorted(seen[x])), lambda vals: "L" in vals, name="every cell lit"))
        for r in range(H):
            for c in range(W):
                if grid[r][c] not in (".", "#"):
                    k = int(grid[r][c])
                    around = tuple(x for x in neighbours4(r, c, H, W) if grid[x[0]][x[1]] == ".")
                    cons.append(Constraint(around, lambda vals, k=k: sum(v == "L" for v in vals) == k,
                                           (("Black", {"r": r, "c": c, "n": k}),), name="numbered black"))
        return Model(domains={x: ("L", ".") for x in white}, constraints=cons,
                     fact=lambda v, x: ("Light" if x == "L" else "NoLight", {"r": v[0], "c": v[1]}),
                     solution={x: ("L" if sol[x[0]][x[1]] == "L" else ".") for x in white})


PACK = LIGHTUP = LightupPack(
    puzzle="lightup",
    **claim_schema(
        {"Light": cell_fields(), "NoLight": cell_fields()},
        {"Black": cell_fields(n="optcount")},
        {"Needs": cell_fields(n="count")},
        opposite={"Light": "NoLight"},
    ),
    claim_notes=("Light / NoLight: a light is (not) placed on the white cell (r, c). Black is a black cell, n its "
                 "number (null when it has none). Needs: the number at (r, c) still needs n more lights."),
    cstar_symbols={"L": "Light"},
    answer_kinds={"L": "Light", ".": "NoLight"},
    phrases=(
        # the numbers first (they own their cell for the clue group)
        Phrase("Needs", r"{subj}(?:the (?:\d )?(?:clue |number )?(?:at|in|on) )?{cell} (?:still |now )?(?:needs|requires|wants) "
                        r"(?:exactly )?{n} more\b"),
        *Phrase.group("Black", r"\bthe (?:black )?(?:cell )?(?:number |clue )?{n} (?:clue |cell )?(?:at|in|on) {cell}",
                               r"\b(?:the )?(?:clue|number|black cell|black square) (?:at|in|on) {cell} (?:is|shows|says|=) {n}\b",
                               r"{subj}{cell} (?:is|has) (?:a )?(?:black )?(?:cell |square )?(?:numbered |with (?:the )?(?:number|clue) |"
                                   r"showing )?{n}\b(?! (?:more|light|bulb|lamp))",
                               r"{subj}{cell} (?:shows|has the number|has the clue|has clue|has number) {n}\b"),
        *Phrase.group("Black", r"\b(?:a |the |plain |unnumbered )?(?:black|blocked|wall) (?:cell|square|block)s? (?:at|in|on) {cells}",
                               r"{subj}{cells} (?:is|are) (?:a |an )?(?:plain |unnumbered )?(?:black|blocked|wall|block)(?: cells?| squares?)?\b"
                                   r"(?! \d)",
                               r"\b(?:blocked|interrupted|cut) (?:by a black cell )?at {cells}",
                               fixed={"n": None}),
        # negatives before positives
        *Phrase.group("NoLight", rf"\bno {LIGHT_WORDS} (?:(?:can|could|may|will) (?:go|be) )?(?:at|in|on) {{cells_or}}",
                                 rf"{{subj}}{{cells_or}} {{neg}} (?:be |have |hold |contain |get |take |receive |host )?"
                                     rf"(?:a |an )?{LIGHT_WORDS}\b",
                                 rf"{{subj}}{{cells_or}} (?:has|have|gets|holds|takes) no {LIGHT_WORDS}\b",
                                 rf"\b(?:rule out|eliminate|exclude) (?:a )?(?:{LIGHT_WORDS} )?(?:at|in|on )?{{cells_or}}",
                                 rf"\b{LIGHT_WORDS} (?:at|in|on) {{cells_or}} (?:is|are|would be) (?:impossible|not possible|"
                                     rf"ruled out|not allowed|invalid)",
                                 r"{subj}{cells} (?:is|are|must be|has to be|stays?|remains?) (?:empty|dark|unlit-free|a dot|"
                                     r"lightless|without a light)\b"),
        *Phrase.group("Light", rf"\b(?:place|put|add|places|puts|placing|putting) (?:a |an |the )?{LIGHT_WORDS} (?:at|in|on) {{cells}}"
                                   rf"(?! ?,? or\b)",
                               rf"(?<!no )\b{LIGHT_WORDS} (?:must be |must go |goes |is |are |will be |has to be |sits |sitting )?"
                                   rf"(?:at|in|on) {{cells}}(?! ?,? or\b)",
                               rf"{{subj}}{{cells}} {{be}} (?:a |an |the )?{LIGHT_WORDS}\b",
                               rf"{{subj}}{{cells}} (?:has|gets|holds|takes|contains) (?:a |an |the )?{LIGHT_WORDS}\b",
                               rf"{{cells}} ?,? (?:both|all|each) {LIGHT_WORDS}\b"),
    ),
    templates={
        "Light": ("there is a light at {cell}", "{cell} is a light", "{cell} must be a bulb",
                  "{cell} gets a light"),
        "NoLight": ("{cell} cannot be a light", "there is no light at {cell}", "no bulb can go at {cell}",
                    "{cell} cannot hold a bulb"),
        "Black": ("the clue at {cell} is {n}", "{cell} is a black {n}", "the {n} at {cell} is a clue"),
        "Black:none": ("{cell} is a black cell", "there is a black cell at {cell}"),
        "Needs": ("the number at {cell} needs {n} more",),
    },
)
