"""Generated logic-grid clues read as natural English and say exactly their condition.

Every template of every clue kind is rendered with many fillers (categories, values, phrasing
variants). Each text must

* read back, through a parser built from the phrase tables alone, to exactly one clue, whose
  condition is the one the generator wrote (so no template is ambiguous or loses information);
* pass simple grammar checks: a capital first letter and a final period, subject-verb agreement
  after "does not"/"did not", "a"/"an" before the right sounds, singular and plural units, no
  doubled words.
"""
from __future__ import annotations

import functools
import itertools
import re

import numpy as np
import pytest

from kumo_gym.envs.finereason import cluetext
from kumo_gym.envs.finereason.cluelang import clue_holds
from kumo_gym.envs.finereason.logicgrid import generate_puzzle

FIELD = re.compile(r"\{(\w+)\}")
VERBS = {"is": "be", "owns": "own", "keeps": "keep", "likes": "like", "prefers": "prefer", "comes": "come",
         "lives": "live", "enjoys": "enjoy", "drinks": "drink", "plays": "play", "took": "take",
         "ordered": "order", "paid": "pay", "joined": "join", "finished": "finish", "spent": "spend",
         "was": "be"}
BASES = set(VERBS.values()) - {"be"}


def scale_values(scale, n=6):
    return [scale.start + scale.step * i for i in range(n)]


@functools.cache
def _tables(header: tuple):
    return phrase_tables(list(header))


def phrase_tables(header):
    """Every noun phrase and fact of a header's categories, mapped back to ``(column, value)``."""
    nouns, facts = {}, {}
    clash = []
    for col, name in enumerate(header):
        values = scale_values(cluetext.SCALES[name]) if col == 0 else cluetext.CATEGORIES[name].values
        for v in values:
            for variant in range(6):
                for table, text, what in ((nouns, cluetext.noun(header, col, v, variant), (col, v)),
                                          (facts, cluetext.fact(header, col, v, variant), (col, v, False)),
                                          (facts, cluetext.fact(header, col, v, variant, negative=True), (col, v, True))):
                    if table.get(text, what) != what:
                        clash.append(text)
                    table[text] = what
    assert not clash, f"phrases naming two things: {clash[:5]}"
    return nouns, facts


def template_matches(template: str, text: str, known) -> list[dict]:
    """Every way ``text`` fills ``template``'s fields with phrases that ``known(field, phrase)`` accepts."""
    parts = FIELD.split(template)  # literal, field, literal, field, ..., literal
    out = []

    def rec(k: int, pos: int, got: dict):
        lit = parts[k]
        if not text.startswith(lit, pos):
            return
        pos += len(lit)
        if k == len(parts) - 1:
            if pos == len(text):
                out.append(dict(got))
            return
        name, nxt = parts[k + 1], parts[k + 2]
        end = text.find(nxt, pos + 1) if nxt else len(text)
        while end != -1:
            phrase = text[pos:end]
            if (name not in got or got[name] == phrase) and known(name, phrase):
                rec(k + 2, end, {**got, name: phrase})
            end = text.find(nxt, end + 1) if nxt else -1

    rec(0, 0, {})
    return out


def decode(text: str, header: list) -> set[str]:
    """Every condition some template can read ``text`` as."""
    nouns, facts = _tables(tuple(header))
    scale = cluetext.SCALES[header[0]]
    offsets = {}
    for d in range(1, 200):
        for form in scale.by_more:
            offsets[form.format(n=scale.amount(d))] = ("more", d)
        for form in scale.by_less:
            offsets[form.format(n=scale.amount(d))] = ("less", d)
    def known(name, phrase):
        if name in "ABC":
            return phrase in nouns
        if name[0] in "fn" and len(name) == 2:
            return phrase in facts
        if name in ("less", "more"):
            return phrase in getattr(scale, name)
        return phrase in offsets

    found = set()
    for kind, templates in cluetext.TEMPLATES.items():
        for template in templates:
            fills = [f for variant in {text, text[:1].lower() + text[1:]}
                     for f in template_matches(template, variant, known)]
            for fill in fills:
                slots, ok = {}, True
                for name, got in fill.items():
                    if name in "ABC":
                        what = nouns.get(got)
                        ok = ok and what is not None and slots.setdefault(name, what) == what
                    elif name[0] in "fn" and len(name) == 2:
                        what = facts.get(got)
                        ok = ok and what is not None and what[2] == (name[0] == "n")
                        ok = ok and slots.setdefault(name[1].upper(), what[:2]) == what[:2]
                    elif name in ("less", "more"):
                        ok = ok and got in getattr(scale, name)
                    else:
                        what = offsets.get(got)
                        ok = ok and what is not None and what[0] == name[3:]
                        if ok:
                            slots["d"] = what[1]
                if not ok:
                    continue
                # symmetric kinds name their two people in column order
                if kind in ("same", "differ") and slots["A"][0] > slots["B"][0]:
                    slots["A"], slots["B"] = slots["B"], slots["A"]
                if kind in ("either", "neither") and slots["B"][0] > slots["C"][0]:
                    slots["B"], slots["C"] = slots["C"], slots["B"]
                found.add(cluetext.condition(kind, slots, header))
    return found


def grammar_problems(text: str, verbs: bool = True) -> list[str]:
    bad = []
    if not (text[:1].isupper() and text.endswith(".")):
        bad.append("capital letter and final period")
    if re.search(r"\s{2}|\s[.,;]", text):
        bad.append("spacing")
    if re.search(r"\b(\w+)\s+\1\b", text, re.IGNORECASE):
        bad.append("doubled word")
    if re.search(r"\ba\s+[aeiou]", text, re.IGNORECASE) or re.search(r"\ban\s+[^aeiou\s]", text, re.IGNORECASE):
        bad.append("article")
    if re.search(r"\b1\s+(years|floors|minutes)\b", text) or re.search(
            r"\b(\d*[02-9]|\d\d+)\s+(year|floor|minute)\b(?!-)", text):
        bad.append("singular/plural unit")
    words = re.findall(r"[A-Za-z]+", text) if verbs else []  # the question uses "drink" as a noun
    for i, w in enumerate(words):
        after_aux = i >= 2 and words[i - 1] == "not" and words[i - 2] in ("does", "did")
        if after_aux and w not in BASES:
            bad.append(f"'{words[i - 2]} not {w}'")
        if w in BASES and not after_aux:
            bad.append(f"bare '{w}' without an auxiliary")
    if re.search(r"\bpeople (is|was)\b|\bperson are\b", text):
        bad.append("is/are agreement")
    return bad


def fillers(rng, kind, n_rows, n_cols, count):
    """Random headers, solutions and phrasing variants for ``kind``."""
    for _ in range(count):
        scale = cluetext.SCALES[str(rng.choice(sorted(cluetext.SCALES)))]
        cats = [str(x) for x in rng.choice(sorted(cluetext.CATEGORIES), n_cols - 1, replace=False)]
        header = [scale.name] + cats
        cols = [scale_values(scale, n_rows)] + [list(rng.permutation(cluetext.CATEGORIES[c].values)[:n_rows])
                                                for c in cats]
        sol = [header] + [[cols[j][i] if j == 0 else str(cols[j][i]) for j in range(n_cols)] for i in range(n_rows)]
        yield header, sol


@pytest.mark.parametrize("kind", cluetext.KINDS)
def test_every_template_reads_back_to_its_clue_and_is_grammatical(kind):
    rng = np.random.default_rng(cluetext.KINDS.index(kind))
    seen_templates = set()
    for header, sol in fillers(rng, kind, 5, 4, 40):
        for template, nv, fv in itertools.product(range(len(cluetext.TEMPLATES[kind])), range(3), range(2)):
            made = None
            for _ in range(20):  # a clue about random people of this solution
                made = cluetext.random_clue(rng, kind, header, sol)
                if made is not None:
                    break
            assert made is not None
            cond = made[1]
            # re-render the same clue with every template and phrasing variant
            slots = _slots_from_condition(cond, kind, header)
            text = cluetext.render(kind, slots, header, template=template, nouns=(nv, nv + 1, nv + 2),
                                   facts=(fv, fv + 1, fv))
            assert clue_holds(cond, sol), cond
            assert decode(text, header) == {cond}, (text, cond, decode(text, header))
            assert not grammar_problems(text), (text, grammar_problems(text))
            seen_templates.add(template)
    assert seen_templates == set(range(len(cluetext.TEMPLATES[kind])))


def _slots_from_condition(cond: str, kind: str, header: list) -> dict:
    """The slots back from a generated condition (the generator's own format)."""
    cells = re.findall(r"T\[r\(('([^']*)'|[\d.]+)\)\]\[c\('([^']*)'\)\]", cond)
    lits = re.findall(r"(==|!=) ('([^']*)'|\d+)\)?", cond)

    def key(raw, quoted):
        return quoted if raw.startswith("'") else int(raw)

    def col_of(v):
        if isinstance(v, int):
            return 0
        return next(j for j, h in enumerate(header) if j and v in cluetext.CATEGORIES[h].values)

    keys = [key(raw, q) for raw, q, _ in cells]
    cols = [c for _, _, c in cells]
    vals = [key(raw, q) for _, raw, q in lits]
    if kind in ("same", "differ"):
        return {"A": (col_of(keys[0]), keys[0]), "B": (header.index(cols[0]), vals[0])}
    if kind in ("order", "offset"):
        out = {"A": (col_of(keys[0]), keys[0]), "B": (col_of(keys[1]), keys[1])}
        if kind == "offset":
            out["d"] = int(re.search(r"\+ (\d+)\)$", cond).group(1))
        return out
    if kind == "either":
        return {"A": (col_of(keys[0]), keys[0]), "B": (header.index(cols[0]), vals[0]),
                "C": (header.index(cols[1]), vals[1])}
    return {"A": (header.index(cols[0]), vals[0]), "B": (col_of(keys[0]), keys[0]), "C": (header.index(cols[2]), vals[2])}


def test_grammar_checks_catch_planted_mistakes():
    for text in ["the cat owner owns the dog.", "Alma does not owns the cat.", "Alma keeps a iguana.",
                 "Alma keeps an cat.", "Alma is 1 years older than Hugo.", "Alma lives 3 floor above Hugo.",
                 "Alma own the cat.", "Alma and Hugo are are different people.", "Alma  owns the cat."]:
        assert grammar_problems(text), text
    assert not grammar_problems("Alma keeps an owl; Hugo does not play the harp.")


@pytest.mark.parametrize("rows,cats", [(3, 2), (4, 3), (5, 3), (4, 4), (6, 3)])
def test_generated_puzzles_speak_their_clues(rows, cats):
    for seed in range(3):
        data = generate_puzzle(np.random.default_rng(seed * 7 + rows), rows, cats)
        header = data["initial"][0]
        for clue in data["clues"].values():
            assert decode(clue["text"], header) == {clue["conditions"]}, clue
            assert not grammar_problems(clue["text"]), clue["text"]
        assert not grammar_problems(data["question"], verbs=False), data["question"]
        assert all(clue_holds(c["conditions"], data["solution"]) for c in data["clues"].values())
