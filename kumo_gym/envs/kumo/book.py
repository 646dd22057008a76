"""The knowledge book of a KUMO instance (``docs/specs/kumo.md`` §6).

Built from the instance's *reduced mapping*: every state of every instance action with its
rule-outs intersected with the instance truths (a state that then rules out nothing is kept:
knowing that an outcome excludes nothing is information). ``book_format="template"`` renders
our own prose, with several interchangeable sentence templates per slot chosen by a seeded RNG
(the content never varies); ``"symbolic"`` is the mapping as JSON, as KUMO's SFT data used.
"""
from __future__ import annotations

import json
import re

import numpy as np

from ...core.errors import ConfigError

BOOK_FORMATS = ("template", "symbolic")

_PURPOSE = (
    ("This guide helps you find the single {truth} that is really behind the case. Every {action} has a few "
     "possible outcomes, and each outcome can only rule {truths} out; it never proves one."),
    ("Use this book to narrow the candidate {truths} down to the one that is true. Outcomes of {actions} "
     "eliminate the {truths} listed for them and say nothing in favour of any other."),
    ("Exactly one {truth} below is the true one. The {actions} described here produce outcomes that exclude "
     "certain {truths}; no outcome confirms a {truth} directly."),
)
_TRUTHS_HEAD = ("Candidate {truths}", "The {truths} in question", "Possible {truths}")
_ACTIONS_HEAD = ("Available {actions}", "The {actions} you can run", "{Actions} at your disposal")
_RULES_HEAD = ("What each outcome rules out", "Outcomes and their consequences", "Reading the outcomes")
_STR_OUTCOME = ('the outcome "{state}"', 'an outcome of "{state}"', 'the result "{state}"')
_FLOAT_OUTCOME = ("a value between {lo} and {hi} (inclusive)", "a reading from {lo} to {hi} (inclusive)",
                  "a measurement in the range {lo} to {hi} (inclusive)")
_RULES = ("rules out {names}", "excludes {names}", "eliminates {names}")
_NONE = ("rules out none of the {truths}", "excludes no {truth}", "eliminates nothing")
_CLOSING = (
    "Remember: a {truth} that no observed outcome has ruled out is still possible.",
    "Anything not yet excluded by an observed outcome remains a candidate.",
    "Until an outcome rules a {truth} out, keep it on your list.",
)


def plural(noun: str) -> str:
    """English plural of a domain noun (species -> species, analysis -> analyses, family -> families)."""
    low = noun.lower()
    if low.endswith("is"):
        return noun[:-2] + "es"
    if low.endswith("s"):
        return noun
    if low.endswith("y") and len(low) > 1 and low[-2] not in "aeiou":
        return noun[:-1] + "ies"
    if low.endswith(("ch", "sh", "x", "z")):
        return noun + "es"
    return noun + "s"


def reduced_mapping(data: dict) -> dict:
    """``{action: {"type", "states": [{"state", "rules_out"}]}}`` over the instance truths (docs/specs/kumo.md §6)."""
    truths = set(data["truths"])
    out = {}
    for a in data["actions"]:
        o = data["outcomes"][a]
        out[a] = {"type": o["type"], "states": [{"state": s["state"], "rules_out": [t for t in s["rules_out"]
                                                                                   if t in truths]}
                                                 for s in o["states"]]}
    return out


def _num(x: float) -> str:
    return repr(float(x)) if not float(x).is_integer() else str(int(x)) if abs(x) < 1e15 else repr(float(x))


def _quoted(names: list[str]) -> str:
    q = [f'"{n}"' for n in names]
    return q[0] if len(q) == 1 else ", ".join(q[:-1]) + " and " + q[-1]


def template_book(data: dict, rng: np.random.Generator) -> str:
    """Our prose book for an instance; ``rng`` picks the phrasing, never the content."""
    truth, action = data.get("truth_noun") or "truth", data.get("action_noun") or "action"
    nouns = {"truth": truth, "action": action, "truths": plural(truth), "actions": plural(action),
             "Actions": plural(action)[:1].upper() + plural(action)[1:]}

    def pick(options):
        return options[int(rng.integers(len(options)))].format(**nouns)

    title = f"{data.get('domain', 'Domain')} knowledge book"
    lines = [f"# {title}", ""]
    if data.get("goal"):
        lines.append(f"Task: {data['goal']}.")
    lines += [pick(_PURPOSE), "", f"## {pick(_TRUTHS_HEAD)}"]
    tdesc = data.get("truth_descriptions") or {}
    for i, t in enumerate(data["truths"], 1):
        lines.append(f"{i}. {t}" + (f": {tdesc[t]}" if t in tdesc else ""))
    lines += ["", f"## {pick(_ACTIONS_HEAD)}"]
    adesc, units = data.get("action_descriptions") or {}, data.get("action_units") or {}
    for i, a in enumerate(data["actions"], 1):
        extra = "; ".join(x for x in (adesc.get(a), f"unit: {units[a]}" if a in units else None) if x)
        lines.append(f"{i}. {a}" + (f": {extra}" if extra else ""))
    lines += ["", f"## {pick(_RULES_HEAD)}"]
    mapping = reduced_mapping(data)
    for i, a in enumerate(data["actions"], 1):
        lines.append(f"### {i}. {a}")
        o = mapping[a]
        for s in o["states"]:
            if o["type"] == "float":
                lo, hi = s["state"]
                what = options_format(_FLOAT_OUTCOME, rng, lo=_num(lo), hi=_num(hi))
            else:
                what = options_format(_STR_OUTCOME, rng, state=s["state"])
            effect = (options_format(_RULES, rng, names=_quoted(s["rules_out"])) if s["rules_out"]
                      else pick(_NONE))
            lines.append(f"- Observing {what}: {effect}.")
    lines += ["", pick(_CLOSING)]
    return "\n".join(lines)


def options_format(options, rng, **fields) -> str:
    return options[int(rng.integers(len(options)))].format(**fields)


_ACTION_LINE = re.compile(r"^### \d+\. (.+)$")
_OUTCOME_LINE = re.compile(r'^- Observing (?:the outcome|an outcome of|the result) "(.*)": (.*)\.$')
_FLOAT_LINE = re.compile(r"^- Observing (?:a value between|a reading from|a measurement in the range) "
                         r"(\S+) (?:and|to) (\S+) \(inclusive\): (.*)\.$")


def parse_template_book(text: str, truths: list[str]) -> dict:
    """Read a template book back into its reduced mapping (the docs/specs/kumo.md §6 round-trip test).

    Rule-out lists are read as the quoted instance truth names in the effect clause.
    """
    mapping: dict = {}
    current = None
    names = sorted(truths, key=len, reverse=True)
    for line in text.splitlines():
        m = _ACTION_LINE.match(line)
        if m:
            current = m.group(1)
            mapping[current] = {"type": None, "states": []}
            continue
        if current is None:
            continue
        m = _FLOAT_LINE.match(line)
        if m:
            state, effect, typ = [float(m.group(1)), float(m.group(2))], m.group(3), "float"
        else:
            m = _OUTCOME_LINE.match(line)
            if not m:
                continue
            state, effect, typ = m.group(1), m.group(2), "str"
        found = [t for t in names if f'"{t}"' in effect]
        mapping[current]["type"] = typ
        mapping[current]["states"].append({"state": state,
                                           "rules_out": [t for t in truths if t in found]})
    return mapping


def symbolic_book(data: dict) -> str:
    """The reduced mapping as JSON text (KUMO's SFT setting used a dict dump)."""
    return json.dumps(reduced_mapping(data), ensure_ascii=True, indent=1)


def render_book(data: dict, book_format: str = "template", seed: int = 0) -> str:
    if book_format not in BOOK_FORMATS:
        raise ConfigError(f"book_format {book_format!r} is not one of: {', '.join(BOOK_FORMATS)}")
    if book_format == "symbolic":
        return symbolic_book(data)
    return template_book(data, np.random.default_rng(seed))


def rewrite_book(book: str, data: dict, backend, verifier=None, max_tokens: int = 4096) -> tuple[str, str]:
    """Optional model rewrite of a book (docs/specs/kumo.md §6); returns ``(book, book_source)``.

    The rewrite is accepted only if every truth, action and string state name appears verbatim
    and, when a ``verifier`` backend is given, it answers YES for each (action, state, truth)
    rule. Otherwise the template book is kept and the source is ``"template-fallback"``.
    """
    mapping = reduced_mapping(data)
    prompt = ("Rewrite the following knowledge book as clear, friendly prose. Keep every rule exactly: which "
              "outcome of which test rules out which candidate. Write every name exactly as given, with the "
              "same capitals.\n\n" + book)
    try:
        reply = backend.chat([{"role": "user", "content": prompt}], max_tokens=max_tokens, temperature=0.7)
        text = reply[0].text if reply else ""
    except Exception:  # noqa: BLE001 - a failing backend (any transport error) must never break a book
        return book, "template-fallback"
    needed = list(data["truths"]) + list(data["actions"]) + [
        s["state"] for o in mapping.values() if o["type"] == "str" for s in o["states"] if isinstance(s["state"], str)]
    if not text or any(n not in text for n in needed):
        return book, "template-fallback"
    if verifier is not None:
        for a, o in mapping.items():
            for s in o["states"]:
                for t in s["rules_out"]:
                    q = (f"According to this book, does observing {s['state']!r} for {a!r} rule out {t!r}? "
                         "Answer YES or NO.\n\n" + text)
                    try:
                        ans = verifier.chat([{"role": "user", "content": q}], max_tokens=8, temperature=0.0)
                    except Exception:  # noqa: BLE001 - same reason as above
                        return book, "template-fallback"
                    if not ans or "YES" not in ans[0].text.upper():
                        return book, "template-fallback"
    return text, "rewrite"
