"""English for generated logic-grid puzzles: categories, clue templates, the question.

Each generated clue is a *kind* (same person, different people, order, exact offset, either-or,
neither-nor) with *slots*: entities named by ``(column, value)`` and, for offsets, a number. The
condition in the clue language (:mod:`.cluelang`) is built from the kind and the slots, and the
text from one of several templates for the kind, with the entities described in one of several
ways for their category ("the owner of the cat", "the cat owner", "the person with the cat").
Every template reads back to exactly its kind and slots, and passes simple grammar checks
(agreement, articles, no doubled words): ``tests/finereason/test_clue_text.py`` checks both for
every template over many fillers.
"""
from __future__ import annotations

from dataclasses import dataclass

NUMBER_WORDS = {3: "Three", 4: "Four", 5: "Five", 6: "Six"}


@dataclass(frozen=True)
class Category:
    """A non-numeric category: its values, how to name the person with a value, facts about it."""

    name: str                          #: the column header (a plural noun)
    singular: str                      #: used in the question ("pet", "home city")
    values: tuple[str, ...]
    nouns: tuple[str, ...]             #: noun phrases for "the person whose value is {v}"
    facts: tuple[tuple[str, str], ...]  #: (affirmative, negative) verb phrases about {v}


@dataclass(frozen=True)
class Scale:
    """The numeric first column: its values and the comparisons the clues make on it."""

    name: str
    singular: str
    start: int
    step: int
    nouns: tuple[str, ...]
    facts: tuple[tuple[str, str], ...]
    less: tuple[str, ...]              #: "{A} <less> {B}": A has the smaller number
    more: tuple[str, ...]
    by_more: tuple[str, ...]           #: "{A} <by_more> {B}": A's number is B's plus {amount}
    by_less: tuple[str, ...]
    unit: tuple[str, str] | None       #: (singular, plural) of the amount's unit; None: dollars

    def amount(self, d: int) -> str:
        if self.unit is None:
            return f"${d}"
        return f"{d} {self.unit[0] if d == 1 else self.unit[1]}"

    def value_text(self, v: int) -> str:
        return f"${v}" if self.unit is None else str(v)


CATEGORIES = {c.name: c for c in (
    Category("names", "name", ("Alma", "Boris", "Celia", "Dmitri", "Edith", "Farid", "Greta", "Hugo"),
             ("{v}",), (("is {v}", "is not {v}"),)),
    Category("pets", "pet", ("cat", "dog", "ferret", "hamster", "iguana", "owl", "parrot", "rabbit"),
             ("the owner of the {v}", "the {v} owner", "the person with the {v}"),
             (("owns the {v}", "does not own the {v}"), ("keeps {a} {v}", "does not keep {a} {v}"))),
    Category("colours", "favourite colour", ("amber", "blue", "crimson", "green", "ivory", "lilac", "teal",
                                             "yellow"),
             ("the person whose favourite colour is {v}", "the fan of {v}"),
             (("likes {v} best", "does not like {v} best"), ("prefers {v}", "does not prefer {v}"))),
    Category("cities", "home city", ("Aberdeen", "Bergen", "Cadiz", "Dresden", "Esbjerg", "Faro", "Genoa", "Hull"),
             ("the person from {v}", "the traveller from {v}"),
             (("comes from {v}", "does not come from {v}"), ("lives in {v}", "does not live in {v}"))),
    Category("hobbies", "hobby", ("archery", "baking", "chess", "diving", "fencing", "gardening", "knitting",
                                  "rowing"),
             ("the person who enjoys {v}", "the {v} enthusiast"),
             (("enjoys {v}", "does not enjoy {v}"), ("took up {v}", "did not take up {v}"))),
    Category("drinks", "drink", ("cider", "cocoa", "coffee", "juice", "lemonade", "milk", "soda", "tea"),
             ("the {v} drinker", "the person who ordered {v}"),
             (("ordered {v}", "did not order {v}"), ("drinks {v}", "does not drink {v}"))),
    Category("instruments", "instrument", ("banjo", "cello", "drum", "flute", "harp", "oboe", "organ", "violin"),
             ("the {v} player", "the person who plays the {v}"),
             (("plays the {v}", "does not play the {v}"), ("owns {a} {v}", "does not own {a} {v}"))),
)}

SCALES = {s.name: s for s in (
    Scale("ages", "age", 21, 3, ("the {v}-year-old", "the person aged {v}"),
          (("is {v} years old", "is not {v} years old"),),
          ("is younger than",), ("is older than",), ("is {n} older than",), ("is {n} younger than",),
          ("year", "years")),
    Scale("prices", "price paid", 10, 5, ("the person who paid {v}",), (("paid {v}", "did not pay {v}"),),
          ("paid less than", "spent less than"), ("paid more than", "spent more than"),
          ("paid {n} more than",), ("paid {n} less than",), None),
    Scale("years", "year joined", 2001, 1, ("the person who joined in {v}", "the member since {v}"),
          (("joined in {v}", "did not join in {v}"),),
          ("joined earlier than", "joined before"), ("joined later than", "joined after"),
          ("joined {n} after",), ("joined {n} before",), ("year", "years")),
    Scale("floors", "floor", 1, 1, ("the resident of floor {v}", "the person on floor {v}"),
          (("lives on floor {v}", "does not live on floor {v}"),),
          ("lives on a lower floor than", "lives below"), ("lives on a higher floor than", "lives above"),
          ("lives {n} above",), ("lives {n} below",), ("floor", "floors")),
    Scale("minutes", "finishing time", 15, 15, ("the person who finished in {v} minutes",),
          (("finished in {v} minutes", "did not finish in {v} minutes"),),
          ("finished faster than", "was quicker than"), ("took longer than", "was slower than"),
          ("took {n} longer than",), ("finished {n} sooner than",), ("minute", "minutes")),
)}

KINDS = ("same", "differ", "order", "offset", "either", "neither")

#: templates per kind; fields: {A} {B} {C} noun phrases, {fa} {fb} affirmative and {nb} {nc}
#: negated facts, {less} {more} comparatives, {by_more} {by_less} offsets (amount included)
TEMPLATES = {
    "same": ("{A} {fb}.", "{B} {fa}.", "{A} and {B} are the same person."),
    "differ": ("{A} {nb}.", "{B} {na}.", "{A} and {B} are different people.", "{A} is not {B}."),
    "order": ("{A} {less} {B}.", "{B} {more} {A}."),
    "offset": ("{A} {by_more} {B}.", "{B} {by_less} {A}."),
    "either": ("{A} is either {B} or {C}, who are two different people.",
               "Of {B} and {C}, who are different people, exactly one {fa}."),
    "neither": ("Neither {B} nor {C} {fa}; {B} {nc}.",
                "{B} and {C} are different people, and neither of them {fa}."),
}


def article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def _value_text(header: list, col: int, v) -> str:
    scale = SCALES.get(header[0])
    if col == 0 and scale is not None:
        return scale.value_text(v)
    return str(v)


def noun(header: list, col: int, v, variant: int = 0) -> str:
    """A noun phrase naming the person whose ``header[col]`` is ``v``."""
    source = SCALES[header[0]] if col == 0 else CATEGORIES[header[col]]
    forms = source.nouns
    return forms[variant % len(forms)].format(v=_value_text(header, col, v), a=article(str(v)))


def fact(header: list, col: int, v, variant: int = 0, negative: bool = False) -> str:
    """A verb phrase saying that the subject has (or has not) ``v`` in column ``col``."""
    source = SCALES[header[0]] if col == 0 else CATEGORIES[header[col]]
    forms = source.facts[variant % len(source.facts)]
    return forms[1 if negative else 0].format(v=_value_text(header, col, v), a=article(str(v)))


def _ref(v) -> str:
    return str(v) if not isinstance(v, str) else "'" + v + "'"


def _cell(key, col: str) -> str:
    return f"T[r({_ref(key)})][c('{col}')]"


def condition(kind: str, slots: dict, header: list) -> str:
    """The clue-language condition of a clue (docs/specs/finereason.md §3)."""
    (ja, va) = slots["A"]
    if kind in ("either", "neither"):
        (jb, vb), (jc, vc) = slots["B"], slots["C"]
        if kind == "either":
            return (f"({_cell(va, header[jb])} == {_ref(vb)} or {_cell(va, header[jc])} == {_ref(vc)}) "
                    f"and ({_cell(vb, header[jc])} != {_ref(vc)})")
        return (f"({_cell(vb, header[ja])} != {_ref(va)} and {_cell(vc, header[ja])} != {_ref(va)}) "
                f"and ({_cell(vb, header[jc])} != {_ref(vc)})")
    (jb, vb) = slots["B"]
    first = header[0]
    if kind == "same":
        return f"({_cell(va, header[jb])} == {_ref(vb)})"
    if kind == "differ":
        return f"({_cell(va, header[jb])} != {_ref(vb)})"
    if kind == "order":
        return f"({_cell(va, first)} < {_cell(vb, first)})"
    if kind == "offset":
        return f"({_cell(va, first)} == {_cell(vb, first)} + {slots['d']})"
    raise ValueError(f"clue kind {kind!r} is not one of: {', '.join(KINDS)}")


def render(kind: str, slots: dict, header: list, template: int = 0, nouns: tuple = (0, 0, 0),
           facts: tuple = (0, 0, 0)) -> str:
    """The English text of a clue, with the given template and phrasing variants."""
    scale = SCALES[header[0]]
    fields = {}
    for i, name in enumerate("ABC"):
        if name in slots:
            col, v = slots[name]
            fields[name] = noun(header, col, v, nouns[i])
            fields["f" + name.lower()] = fact(header, col, v, facts[i])
            fields["n" + name.lower()] = fact(header, col, v, facts[i], negative=True)
    fields["less"] = scale.less[facts[0] % len(scale.less)]
    fields["more"] = scale.more[facts[0] % len(scale.more)]
    if "d" in slots:
        amount = scale.amount(slots["d"])
        fields["by_more"] = scale.by_more[0].format(n=amount)
        fields["by_less"] = scale.by_less[0].format(n=amount)
    forms = TEMPLATES[kind]
    text = forms[template % len(forms)].format(**fields)
    return text[:1].upper() + text[1:]


def random_clue(rng, kind: str, header: list, solution: list) -> tuple[str, str] | None:
    """A true clue of ``kind`` about ``solution`` as ``(text, condition)``, or None when the table
    is too small for that kind. Phrasing variants are drawn at random."""
    rows = solution[1:]
    n, m = len(rows), len(header)
    pick = lambda k: [int(x) for x in rng.choice(n, k, replace=False)]
    cols = lambda k, lo=0: [int(x) + lo for x in rng.choice(m - lo, k, replace=False)]
    if kind in ("same", "differ"):
        ja, jb = sorted(cols(2))
        a, b = pick(2)
        slots = {"A": (ja, rows[a][ja]), "B": (jb, rows[a if kind == "same" else b][jb])}
    elif kind in ("order", "offset"):
        if m < 2:
            return None
        a, b = pick(2)
        ja, jb = (int(rng.integers(1, m)) for _ in range(2))
        lo, hi = (a, b) if rows[a][0] < rows[b][0] else (b, a)
        if kind == "order":
            slots = {"A": (ja, rows[lo][ja]), "B": (jb, rows[hi][jb])}
        else:
            slots = {"A": (ja, rows[hi][ja]), "B": (jb, rows[lo][jb]), "d": rows[hi][0] - rows[lo][0]}
    else:
        if m < 3:
            return None
        ja, jb, jc = cols(3)
        jb, jc = sorted((jb, jc))
        if kind == "either":
            a, b = pick(2)
            # the subject is one of the two options: B (row a) or C (row a), the other from row b
            who = (rows[a][jb], rows[b][jc]) if rng.random() < 0.5 else (rows[b][jb], rows[a][jc])
            slots = {"A": (ja, rows[a][ja]), "B": (jb, who[0]), "C": (jc, who[1])}
        else:
            if n < 3:
                return None
            a, b, c = pick(3)
            slots = {"A": (ja, rows[a][ja]), "B": (jb, rows[b][jb]), "C": (jc, rows[c][jc])}
    variants = {"template": int(rng.integers(len(TEMPLATES[kind]))),
                "nouns": tuple(int(x) for x in rng.integers(0, 6, 3)),
                "facts": tuple(int(x) for x in rng.integers(0, 6, 3))}
    return render(kind, slots, header, **variants), condition(kind, slots, header)


def question(header: list, n_rows: int) -> str:
    """The puzzle's opening sentence: who the people are and what the table matches."""
    singulars = [SCALES[header[0]].singular] + [CATEGORIES[h].singular for h in header[1:]]
    rest = singulars[1:]
    listed = rest[0] if len(rest) == 1 else ", ".join(rest[:-1]) + " and " + rest[-1]
    return (f"{NUMBER_WORDS.get(n_rows, str(n_rows))} people each have a different {', '.join(singulars[:-1])} "
            f"and {singulars[-1]}. Using only the clues, match each {singulars[0]} with its {listed}."
            if len(singulars) > 2 else
            f"{NUMBER_WORDS.get(n_rows, str(n_rows))} people each have a different {singulars[0]} and "
            f"{singulars[1]}. Using only the clues, match each {singulars[0]} with its {listed}.")
