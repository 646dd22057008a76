"""Building blocks shared by the packs: phrase sets, clause templates, grid geometry.

A new grid puzzle's pack is mostly a choice among these (docs/analysis.md):

- :func:`claim_schema`: the schema fields from the kinds, each named once;
- :func:`colour_pack` (with :func:`colour_phrases` / :data:`COLOUR_TEMPLATES`) for puzzles whose
  answer paints cells black or white (Mosaic, Pattern, Unruly, Range, Singles);
- :func:`value_pack` (with :func:`value_phrases` / :data:`VALUE_TEMPLATES`) for puzzles whose
  answer is a number per cell (Towers, Keen, Unequal, Filling, Signpost): ``Cell``, ``NotCell``,
  ``Given``, ``Cand``;
- :class:`Style` and :func:`say` render claims as clauses for synthetic traces, in the
  coordinate styles models use (``(2, 3)``, ``r3c4``, ``R3C4``, ``row 3, column 4``; 0- or 1-based).
"""
from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

from ..deduce import Constraint, Model
from ..reading import Phrase
from ..schema import CONTRADICTION_CAUSE, DISCHARGE, Pack
from ..text import NOT_A_LIST

# ---- schema pieces -------------------------------------------------------------------------


def cell_fields(**more: str) -> dict:
    """The fields of a claim about one cell: ``r``, ``c`` and ``more`` (name -> field type)."""
    return {"r": "r", "c": "c", **more}


def negations(**pairs: str) -> dict:
    """The :class:`~kumo_gym.analysis.schema.Pack` fields ``opposites`` (both ways) and
    ``negative_kinds`` from ``positive="negative"`` kind pairs, e.g. ``negations(Tent="NotTent")``."""
    opposites = {}
    for positive, negative in pairs.items():
        opposites.update({positive: negative, negative: positive})
    return {"opposites": opposites, "negative_kinds": frozenset(pairs.values())}


def pack_rules(table: str, discharge: set) -> dict:
    """A pack's own ``rules`` from a text table, one rule a line: its id, then the kinds it may
    output (``R_ONLY_CAND TreeCandidate Tent``); the rules every pack has follow
    (:func:`_closed_rules`)."""
    rows = (line.split() for line in table.strip().splitlines())
    return _closed_rules({rule: frozenset(kinds) for rule, *kinds in rows}, discharge)


def _closed_rules(own: dict, discharge: set) -> dict:
    """``own`` (rule id -> the kinds it may output), then the two rules every pack has: the cause of a
    contradiction, and the discharge of a branch, which may output the ``discharge`` kinds."""
    return {**own, CONTRADICTION_CAUSE: frozenset({"Contradiction"}), DISCHARGE: frozenset(discharge)}


def generic_rules(solution: set, negative: set = frozenset(), clues: set = frozenset(), counts: set = frozenset(),
                  cand: bool = False) -> dict:
    """The generic rule table of docs/specs/reasoning_graphs.md §6 ("Other puzzles") for the given kinds."""
    cands = frozenset({"Cand"}) if cand else frozenset()
    rules = {
        "R_CLUE_STATED": frozenset(clues),
        "R_ELIM_BY_RULE": frozenset(negative) | cands,
        "R_FORCED": frozenset(solution),
        "R_COUNT": frozenset(counts),
        "R_CANDIDATES": cands,
    }
    return _closed_rules({k: v for k, v in rules.items() if v}, frozenset(solution) | cands)


def claim_schema(solution: dict, clues: dict | None = None, counts: dict | None = None, other: dict | None = None,
                 opposite: dict | None = None, cand: bool = False) -> dict:
    """The schema fields of a :class:`~kumo_gym.analysis.schema.Pack` from its kinds (name -> fields),
    each kind named once: ``kinds`` in the order solution, clue, count, other kinds;
    ``solution_kinds``, ``clue_kinds``, ``count_kinds``; the generic rules; and the negations of
    ``opposite`` (``{"Tent": "NotTent"}``: the negative kinds are its values)."""
    clues, counts, other, opposite = clues or {}, counts or {}, other or {}, opposite or {}
    return {
        "kinds": {**solution, **clues, **counts, **other},
        "solution_kinds": frozenset(solution),
        "clue_kinds": frozenset(clues),
        "count_kinds": frozenset(counts),
        "rules": generic_rules(set(solution), negative=set(opposite.values()), clues=set(clues), counts=set(counts),
                               cand=cand),
        **negations(**opposite),
    }


# ---- phrase sets ---------------------------------------------------------------------------
def colour_phrases(black: Any, white: Any, black_words: str = "black|shaded|filled|dark|painted",
                   white_words: str = "white|unshaded|empty|blank|unfilled|clear|unpainted") -> tuple:
    """Black/White phrases of a two-colour puzzle whose answer writes ``black``/``white``."""
    b, w = str(black).lower(), str(white).lower()
    return (
        # negatives first: "(1, 2) cannot be black" is a White claim
        Phrase("White", rf"{{subj}}{{cells_or}} {{neg}} (?:be |get |stay )?(?:coloured |colored |painted )?(?:{black_words})\b"),
        Phrase("Black", rf"{{subj}}{{cells_or}} {{neg}} (?:be |get |stay )?(?:coloured |colored |painted )?(?:{white_words})\b"),
        *Phrase.group("White", rf"\bmark (?:cells? )?{{cells}} (?:as )?(?:{white_words})\b",
                               rf"{{subj}}{{cells}} {{be}} (?:a |an )?(?:{white_words})\b",
                               rf"{{subj}}{{cell}} (?:=|is|:) {w}\b(?! or)",
                               rf"\b(?:{white_words}) (?:cells? )?(?:at|in|on) {{cells}}"),
        *Phrase.group("Black", rf"{{subj}}{{cells}} {{be}} (?:a |an )?(?:{black_words})\b",
                               rf"{{subj}}{{cell}} (?:=|is|:) {b}\b(?! or)",
                               r"\b(?:shade|fill|colour|color|paint|blacken|mark) (?:in )?(?:cells? )?{cells}"),
        Phrase("White", rf"\b(?:needs?|makes?|making|forces?|forcing|leaves|leaving|with|sees?) {{cells}} (?:to be |as |are )?"
                        rf"(?:all |both )?(?:{white_words})\b"),
        Phrase("Black", rf"\b(?:needs?|makes?|making|forces?|forcing|leaves|leaving|with|sees?) {{cells}} (?:to be |as |are )?"
                        rf"(?:all |both )?(?:{black_words})\b"),
        Phrase("White", rf"(?:all|each|both) (?:\w+ )?of {{cells}} (?:to be |must be |are |is )(?:{white_words})\b"),
        # "row 1 has (1, 0) white, (1, 3) black and (1, 5) white", "column 2 is (1, 2), (2, 2) black"
        Phrase("White", rf"(?:(?<=\bhas )|(?<=\bhave )|(?<=\bis )|(?<=\bbe )|(?<=, )|(?<=\band )|(?<=: )){{cells}} (?:{white_words})\b"
                        rf"(?! (?:cells?|squares?) (?:at|in))"),
        Phrase("Black", rf"(?:(?<=\bhas )|(?<=\bhave )|(?<=\bis )|(?<=\bbe )|(?<=, )|(?<=\band )|(?<=: )){{cells}} (?:{black_words})\b"
                        rf"(?! (?:cells?|squares?) (?:at|in))"),
        # "try (1, 2) black", "suppose r3c4 white": the assumption without a verb
        Phrase("White", rf"\b(?:try|trying|suppose|assume|assuming|say) {{cell}} (?:is |as |being )?(?:{white_words})\b"),
        Phrase("Black", rf"\b(?:try|trying|suppose|assume|assuming|say) {{cell}} (?:is |as |being )?(?:{black_words})\b"),
        Phrase("White", r"\b(?:whites|white cells)\s*:\s*{cells}"),
        *Phrase.group("Black", r"\b(?:blacks|black cells)\s*:\s*{cells}",
                               rf"\b(?:{black_words}) (?:cells|squares)(?: are\b| ?:| include\b)[^@.;]{{0,30}}{{cells}}",
                               rf"(?:all|each|both) (?:\w+ )?of {{cells}} (?:to be |must be |are |is )(?:{black_words})\b",
                               rf"\b(?:{black_words}) (?:(?:cells? |squares? )(?:at |in |on )?|(?:at|in|on) ){{cells}}"),
    )


COLOUR_TEMPLATES = {
    "Black": ("{cell} is black", "{cell} must be black", "{cell} is shaded", "{cell} has to be black"),
    "White": ("{cell} is white", "{cell} cannot be black", "{cell} must be white", "{cell} stays white",
              "{cell} is unshaded"),
}


def value_phrases(field: str = "v", given: str = "Given") -> tuple:
    """Cell/NotCell/Cand/Given phrases of a puzzle whose answer is a number per cell."""
    f = field
    return (
        Phrase("Cand", r"{cell} (?:can only be|must be either|is either|must be one of|has (?:only )?(?:the )?"
                       r"candidates|candidates (?:are|:)) [{{\[(]?\s*{list:vals}", {"polarity": "IN"}),
        # "(1, 1) is 2 or 3", "(1, 1) must be either 2, 3 or 4": a list of options, never one value
        Phrase("Cand", r"{cell} (?:is|must be|has to be) (?:either )?(?=\d{1,2}(?:\s*,\s*\d{1,2}){0,8},?\s+or\s+\d)"
                       r"{list:vals}", {"polarity": "IN"}),
        Phrase("NotCell", rf"{{subj}}{{cells}} {{neg}} (?:be |hold |contain |take )?(?:a |the )?(?:value )?{{each:{f}}}\b"),
        # (a number right after "=" or "is" belongs to that statement: "(2, 3) = 1 and 2 cannot go in ...")
        *Phrase.group("NotCell", rf"(?<![=:] )(?<!\bis )(?<!\bbe )(?<!sees )(?<!shows )(?<!has )(?<!needs )(?<!of )\b{{each:{f}}} (?:cannot|can't|can not|must not|is not possible) (?:go |be )?"
                                     rf"(?:placed )?(?:in|at|into) {{cell}}",
                                 rf"\b(?:eliminate|remove|rule out|exclude) (?:the )?(?:value |digit )?{{each:{f}}} from {{cell}}"),
        Phrase(given, rf"{{cell}} (?:is |holds )?(?:a |the )?given (?:as |= ?|value )?{{n:{f}}}\b"),
        Phrase(given, rf"\bgiven (?:value |digit |number )?{{n:{f}}} (?:at|in) {{cell}}"),
        # "(1, 0) and (2, 1) both have to be 4", "r1c1 and r2c2 must both be 3"
        Phrase("Cell", rf"{{subj}}{{cells}} (?:(?:both|all) (?:have to be|must be|are|equal)|(?:must|have to|are) "
                       rf"(?:both|all) (?:be )?) {{n:{f}}}\b" + NOT_A_LIST),
        # (not the second half of a choice: "r4c5 = 5 or r5c4 = 5")
        *Phrase.group("Cell", rf"(?<!\bor )(?<!\beither ){{cell}} (?:also |still |then |now |definitely |really )?(?:=|:|is|must be|"
                                  rf"has to be|becomes|gets|will be|should be|is therefore|is then|"
                                  rf"is forced to be|has height|has value|holds) (?:a |the )?{{n:{f}}}\b" + NOT_A_LIST,
                              rf"\b(?:place|put|write|fill in|enter|placing|putting|writing) (?:a |the )?(?:value |digit |number )?"
                                  rf"{{n:{f}}} (?:at|in|into) {{cells}}",
                              rf"\b{{n:{f}}} (?:goes|must go|has to go|belongs) (?:in|at|into) {{cell}}"),
        # "so 2 is at (0, 1)", "5 must be at r2c1" (not "the clue is 3 at", "sees 2 at")
        *Phrase.group("Cell", rf"(?<![=:] )(?<!\bis )(?<!\bbe )(?<!sees )(?<!shows )(?<!has )(?<!needs )(?<!of )(?<!sum )"
                                  rf"(?<!product )(?<!difference )(?<!quotient )\b{{n:{f}}} (?:is|must be|has to be|lies|sits|is then|"
                                  rf"is therefore|must then be) (?:at|in) {{cell}}(?! ?,? or\b)",
                              rf"\b{{n:{f}}} is already (?:in (?:row|column) \d{{1,3}} )?(?:at|in) {{cell}}",
                              rf"\b(?:has|have|with|holds|contains|and) (?:a |an |the )?{{n:{f}}} (?:at|in) {{cell}}",
                              rf"\b(?:leaves|leaving|gives|giving) (?:the |a )?(?:value |digit |number )?{{n:{f}}} (?:for|in|at|to) "
                                  rf"{{cell}}"),
    )


VALUE_TEMPLATES = {
    "Cell": ("{cell} = {v}", "{cell} is {v}", "{cell} must be {v}", "{cell} has to be {v}"),
    "NotCell": ("{cell} cannot be {v}", "{cell} is not {v}", "{v} cannot go in {cell}", "{cell} can't be {v}"),
    "Given": ("{cell} is a given {v}", "the given {v} at {cell}"),
}


#: how traces state a number clue written in a cell (``Clue{r,c,n}``), after a pack's own phrasings
CLUE_PHRASES = (
    *Phrase.group("Clue", r"\bthe (?:clue |number )?{n} (?:clue )?(?:at|in|on) {cell}",
                          r"{subj}{cell} (?:has|shows|contains|holds) (?:a |the )?(?:clue|number) (?:of )?{n}\b",
                          r"\b(?:clue|number) {n} (?:at|in|on) {cell}"),
)
CLUE_TEMPLATES = {"Clue": ("the clue at {cell} is {n}", "the {n} at {cell} is a clue", "{cell} has a clue of {n}")}


# ---- number-per-cell puzzles --------------------------------------------------------------------
#: the fields of a claim about one cell's value (``Cell``, ``NotCell``, ``Given``)
CELL_VALUE = cell_fields(v="value")


def per_value(kind: str, names: dict, *forms: str) -> dict:
    """Templates of claim ``kind`` for each value: ``"kind:v"`` -> ``forms`` with ``{name}`` replaced by
    ``names[v]``, for every v of ``names`` in order (the claim's own fields stay placeholders)."""
    return {f"{kind}:{v}": tuple(form.replace("{name}", name) for form in forms) for v, name in names.items()}


def value_pack(clues: dict, phrases: tuple = (), templates: dict | None = None, fallback: tuple = ()) -> dict:
    """The :class:`~kumo_gym.analysis.schema.Pack` fields every number-per-cell puzzle shares.

    ``Cell``/``NotCell`` solution claims (every answer cell is a C* ``Cell`` claim), the clue kinds
    ``clues`` (name -> fields, in order) and ``Cand``, with the generic rules; the pack's own
    ``phrases`` are read before :func:`value_phrases` and its ``fallback`` phrases after them, its
    ``templates`` add to (or replace) :data:`VALUE_TEMPLATES`.
    """
    return {
        **claim_schema({"Cell": CELL_VALUE, "NotCell": CELL_VALUE}, clues, opposite={"Cell": "NotCell"},
                       other={"Cand": cell_fields(vals="values", polarity="polarity")}, cand=True),
        "value_claim": ("Cell", "v"),
        "phrases": tuple(phrases) + value_phrases("v") + tuple(fallback),
        "templates": {**VALUE_TEMPLATES, **(templates or {})},
    }


# ---- two-colour puzzles ------------------------------------------------------------------------
#: the number clue written in a cell (``Clue{r,c,n}``) of a two-colour puzzle
NUMBER_CLUE = {"Clue": cell_fields(n="count")}


def colour_pack(black: Any, white: Any, clues: dict, counts: dict | None = None, phrases: tuple = (),
                templates: dict | None = None, **words: str) -> dict:
    """The :class:`~kumo_gym.analysis.schema.Pack` fields every two-colour puzzle shares.

    ``Black``/``White`` solution claims (C* = the black cells; the answer writes ``black`` and
    ``white``, or any value for white when ``white`` is None), the clue kinds ``clues`` and the
    count kinds ``counts`` (name -> fields, in order), with the generic rules. The pack's own
    ``phrases`` are read first, then :data:`CLUE_PHRASES` when a clue is :data:`NUMBER_CLUE`,
    then :func:`colour_phrases` (``words``: its ``black_words`` / ``white_words``); its
    ``templates`` add to :data:`COLOUR_TEMPLATES` (and :data:`CLUE_TEMPLATES`).
    """
    number = clues.get("Clue") == NUMBER_CLUE["Clue"]
    return {
        **claim_schema({"Black": cell_fields(), "White": cell_fields()}, clues, counts, opposite={"Black": "White"}),
        "cstar_symbols": {black: "Black"},
        "answer_kinds": {black: "Black"} if white is None else {black: "Black", white: "White"},
        "phrases": (tuple(phrases) + (CLUE_PHRASES if number else ())
                    + colour_phrases(black, "white" if white is None else white, **words)),
        "templates": {**COLOUR_TEMPLATES, **(CLUE_TEMPLATES if number else {}), **(templates or {})},
    }


def colour_model(solution: list, constraints: list, black: Any, white: Any, **extra: Any) -> Model:
    """The deduction model of a two-colour puzzle: one (black, white) variable per cell."""
    cells = [(r, c) for r in range(len(solution)) for c in range(len(solution[0]))]
    return Model(domains={x: (black, white) for x in cells}, constraints=constraints,
                 fact=lambda v, x: ("Black" if x == black else "White", {"r": v[0], "c": v[1]}),
                 solution={(r, c): solution[r][c] for r, c in cells}, **extra)


def shading_constraints(r: int, c: int, H: int, W: int, black: Any) -> list[Constraint]:
    """The shading rules at cell (r, c) of a Hitori-like puzzle (Range, Singles): black cells never
    touch (pairs to the right and below), and a white cell has a white neighbour (the local face of
    the white area's connectivity)."""
    cons = [Constraint(((r, c), (a, b)), lambda vals: not (vals[0] == black and vals[1] == black),
                       reason="black cells never touch", name="no touching blacks")
            for a, b in ((r, c + 1), (r + 1, c)) if a < H and b < W]
    around = tuple(neighbours4(r, c, H, W))
    if around:
        cons.append(Constraint(((r, c),) + around, lambda vals: vals[0] == black or any(v != black for v in vals[1:]),
                               reason="the white cells are connected", name="white has a white neighbour"))
    return cons


def state_grid(instance: Any) -> tuple[list, int, int]:
    """The grid of an instance's state with its height and width."""
    grid = instance.data["state"]["grid"]
    return grid, len(grid), len(grid[0])


def cell_claims(kind: str, grid: list, field: str, keep) -> list:
    """``(kind, {r, c, field: value})`` for every cell value of ``grid`` that ``keep`` accepts."""
    return [(kind, {"r": r, "c": c, field: v}) for r, row in enumerate(grid) for c, v in enumerate(row) if keep(v)]


class PayloadPack(Pack):
    """A pack whose claims name no single cell (rectangles, pairs of cells): besides the cell claims of
    :class:`Pack`, the opposite kind over the same payload negates a branch (``Clue`` excepted)."""

    def negates(self, a: tuple, b: tuple) -> bool:
        if self.opposites.get(a[0]) == b[0] and a[0] != "Clue":
            return json.loads(a[1]) == json.loads(b[1])
        return super().negates(a, b)


# ---- rendering claims as clauses (synthetic traces) -----------------------------------------
@dataclass(frozen=True)
class Style:
    """How a trace writes coordinates: ``coords`` one of paren, rc, RC, rowcol; ``base`` 0 or 1."""

    coords: str = "paren"
    base: int = 0

    def cell(self, r: int, c: int) -> str:
        R, C = r + self.base, c + self.base
        return {"paren": f"({R}, {C})", "rc": f"r{R}c{C}", "RC": f"R{R}C{C}",
                "rowcol": f"row {R}, column {C}"}[self.coords]

    def index(self, i: int) -> int:
        return i + self.base

    def line(self, axis: str, i: int) -> str:
        return f"{'row' if axis == 'ROW' else 'column' if axis == 'COL' else 'box'} {i + self.base}"


#: the styles the synthetic traces draw from (0-based only with words models use for it)
STYLES = (Style("paren", 0), Style("paren", 1), Style("rc", 1), Style("RC", 1), Style("rowcol", 1),
          Style("rowcol", 0))


def fields(payload: dict, style: Style) -> dict:
    """Format fields of a payload: raw values, plural suffixes ``<f>_s``, and ``cell``, ``line``,
    ``idx``, ``side``, ``dir``, ``tree``, ``runs``, ``vals``/``ds`` rendered in ``style``."""
    f: dict = {}
    for k, v in payload.items():
        f[k] = v
        if isinstance(v, int) and not isinstance(v, bool):
            f[k + "_s"] = "" if v == 1 else "s"
    if "r" in payload and "c" in payload:
        f["cell"] = style.cell(payload["r"], payload["c"])
    if "tree_r" in payload:
        f["tree"] = style.cell(payload["tree_r"], payload["tree_c"])
    if "index" in payload:
        f["idx"] = style.index(payload["index"])
        axis = payload.get("axis", payload.get("unit"))
        if axis:
            f["line"] = style.line(axis, payload["index"])
    if "side" in payload:
        f["side"] = str(payload["side"]).lower()
        f["dir"] = "column" if payload["side"] in ("TOP", "BOTTOM") else "row"
    if "runs" in payload:
        f["runs"] = " ".join(map(str, payload["runs"])) or "0"
    for k in ("vals", "d"):
        if isinstance(payload.get(k), list):
            f[k] = " or ".join(map(str, payload[k]))
    if "cell_r" in payload:
        cells = [style.cell(r, c) for r, c in zip(payload["cell_r"], payload["cell_c"])]
        f["cells"] = join_or(cells)
    pairs = payload.get("cells")
    if isinstance(pairs, list) and pairs and all(isinstance(x, (list, tuple)) and len(x) == 2 for x in pairs):
        f["cell_list"] = join_and([style.cell(r, c) for r, c in pairs])  # a cells field (Keen cages)
    if all(k in payload for k in ("r0", "c0", "r1", "c1")):  # a rectangle's corners (Rect): {from_cell}, {to_cell}
        f["from_cell"] = style.cell(payload["r0"], payload["c0"])
        f["to_cell"] = style.cell(payload["r1"], payload["c1"])
    if all(k in payload for k in ("r1", "c1", "r2", "c2")):  # two islands (Bridges): {cell1}, {cell2}
        f["cell1"] = style.cell(payload["r1"], payload["c1"])
        f["cell2"] = style.cell(payload["r2"], payload["c2"])
    for k in ("a", "b"):  # a pair of cells (Unequal signs): {a_cell}, {b_cell}
        v = payload.get(k)
        if isinstance(v, (list, tuple)) and len(v) == 2 and all(isinstance(i, int) for i in v):
            f[f"{k}_cell"] = style.cell(v[0], v[1])
    return f


def join_and(parts: list[str]) -> str:
    parts = list(parts)
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def join_or(parts: list[str]) -> str:
    parts = list(parts)
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " or " + parts[-1]


def say(pack: Any, kind: str, payload: dict, style: Style, rng: random.Random) -> str:
    """One clause stating the claim, in a template the pack's reader reads back."""
    variant = pack.template_variant(kind, payload)
    options = (pack.templates.get(f"{kind}:{variant}") if variant else None) or pack.templates.get(kind)
    if not options:
        raise KeyError(f"pack {pack.puzzle!r} has no template for {kind}")
    return rng.choice(options).format(**fields(payload, style))


# ---- grid geometry ----------------------------------------------------------------------------
def neighbours4(r: int, c: int, H: int, W: int) -> list[tuple[int, int]]:
    return [(r + dr, c + dc) for dr, dc in ((-1, 0), (0, 1), (1, 0), (0, -1)) if 0 <= r + dr < H and 0 <= c + dc < W]


def neighbours8(r: int, c: int, H: int, W: int) -> list[tuple[int, int]]:
    return [(r + dr, c + dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1)
            if (dr or dc) and 0 <= r + dr < H and 0 <= c + dc < W]


def lines(H: int, W: int) -> list[tuple[str, int, list[tuple[int, int]]]]:
    """Every row and column as (axis, index, cells)."""
    return [("ROW", r, [(r, c) for c in range(W)]) for r in range(H)] + \
           [("COL", c, [(r, c) for r in range(H)]) for c in range(W)]


def runs_of(values: tuple, black: Any) -> list[int]:
    """Lengths of the maximal runs of ``black`` in order (nonogram clues)."""
    out, n = [], 0
    for v in values:
        if v == black:
            n += 1
        elif n:
            out.append(n)
            n = 0
    if n:
        out.append(n)
    return out
