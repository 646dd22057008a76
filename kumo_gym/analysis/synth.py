"""Synthetic reasoning traces from a solver's deduction log, and the graph that log wires.

:func:`synthetic_trace` walks the :class:`~kumo_gym.analysis.deduce.Step` s of
:func:`~kumo_gym.analysis.deduce.deduce` and writes one sentence per deduction (two for the
"P. Therefore C." template), naming its premises with the pack's clause templates in one of the
coordinate styles models use, with a branch (``Suppose ...``), its contradiction and its
discharge where the solver probed, and the final grid at the end.

Alongside the text it records the occurrences an ideal extractor would find in it (each premise
mention, each conclusion) and wires them from the log itself: inference edges from the premises
the solver used, restatement edges for claims seen before, the same conventions as stage 8 of
docs/specs/reasoning_graphs.md §5. :func:`wired_graph` builds G_raw from that record with the pipeline's own
:func:`~kumo_gym.analysis.extract.build_graph`, so comparing its eta with the eta of
``analyse_trace`` on the text measures the extraction and linking alone: a synthetic
trace generated from the golden solution must yield a graph whose eta is within a stated tolerance
of the same graph wired from the solver's own deduction log (``tests/analysis/test_packs.py``).
"""
from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from .deduce import Step, deduce
from .extract import build_graph, segment
from .packs.common import STYLES, Style, join_and, say
from .schema import CONTRADICTION_CAUSE, DISCHARGE, MAIN, Pack, validate_claim

# sentence templates: P = premises joined, C = the conclusion clause
LEAD = ("Since {P}, {C}.", "Given that {P}, {C}.", "Because {P}, {C}.", "As {P}, {C}.")
FORWARD = ("{P}, so {C}.", "{P}, which means {C}.", "{P}; therefore {C}.", "{P}, hence {C}.")
BACK = ("{C} because {P}.", "{C}, since {P}.")
TWO = ("Therefore", "So", "This means")  # "P. Therefore C."
NO_PREMISE = ("{C} because {R}.", "{C}, as {R}.")
FALLBACK = ("Working through the remaining options, {C}.", "By elimination of the other cases, {C}.")
SUPPOSE = ("Suppose {A}.", "Assume {A}.", "Let's try assuming {A}.")
CONTRA = ("But {P}, which is a contradiction, so {D}.", "But {P}, which is impossible, so {D}.")
CONTRA_BARE = ("The assumption fails, so {D}.", "The assumption leads to a contradiction, so {D}.")


@dataclass
class SynthTrace:
    """A synthetic trace: its text, style, and the ideal occurrences wired from the deduction log."""

    text: str
    style: Style
    claims: list = field(default_factory=list)  # finalise()-shaped occurrences
    apps: list = field(default_factory=list)  # link_rules()-shaped applications
    steps: list = field(default_factory=list)


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:] if s else s


class _Writer:
    def __init__(self, pack: Pack, style: Style, rng: random.Random):
        self.pack, self.style, self.rng = pack, style, rng
        self.lines: list[str] = []
        self.n_sent = 0
        self.claims: list[dict] = []
        self.apps: list[dict] = []
        self.last_seen: dict = {}

    def key(self, claim: tuple) -> tuple:
        kind, payload = claim
        return validate_claim(self.pack, kind, payload)

    def say(self, claim: tuple) -> str:
        return say(self.pack, claim[0], claim[1], self.style, self.rng)

    def occur(self, claim: tuple, sentence: int, scope: str, status: str = "stated", inputs: tuple = (),
              rule: str | None = None) -> int:
        """Record one occurrence; returns its index. Mirrors stage 8: a key seen before is restated."""
        key = self.key(claim)
        i = len(self.claims)
        self.claims.append({"claim": key, "status": status if status == "tentative" else "stated", "scope": scope,
                            "source_sents": [sentence], "id": f"C{i + 1}"})
        rec = {"status": status, "rule": None, "inputs": [], "restates": None}
        if status != "tentative":
            if key in self.last_seen:
                rec.update(status="restated", restates=self.last_seen[key])
            elif inputs:
                rec.update(status="derived", rule=rule, inputs=list(inputs))
            else:
                rec["status"] = "stated"
            self.last_seen[key] = i
        self.apps.append(rec)
        return i

    def emit(self, text: str) -> list[int]:
        """Add one line of text; returns the sentence numbers it holds."""
        n = len(segment(text))
        self.lines.append(text)
        out = list(range(self.n_sent + 1, self.n_sent + n + 1))
        self.n_sent += n
        return out

    def rule(self, conclusion: tuple, premises: list[tuple]) -> str | None:
        return self.pack.choose_rule(self.key(conclusion), [self.key(p) for p in premises])


def synthetic_trace(pack: Pack, instance: Any, steps: list[Step] | None = None, *, style: Style | None = None,
                    seed: int = 0, max_premises: int = 8) -> SynthTrace:
    """A trace that walks the deduction log of ``instance`` (see the module docstring).

    ``style`` picks the coordinate style (default: drawn from :data:`~kumo_gym.analysis.packs.common.STYLES`
    with ``seed``). Steps with more than ``max_premises`` premises name only the last
    ``max_premises`` of them (and are wired the same way).
    """
    rng = random.Random(seed)
    style = style or rng.choice(STYLES)
    if steps is None:
        model = pack.deduction_model(instance)
        if model is None:
            raise ValueError(f"pack {pack.puzzle!r} has no deduction model")
        steps = deduce(model)
    w = _Writer(pack, style, rng)
    w.emit(f"I will number rows and columns from {style.base}, as ({style.base}, {style.base}) for the top-left cell."
           if style.coords == "paren" else f"Rows and columns count from {style.base}.")
    assumption: dict[int, int] = {}
    assumed_key: dict[str, tuple] = {}

    def mention(p: tuple, sentence: int, scope: str) -> int:
        # the branch's assumption named again is still assumed (tentative), as the extractor reads it
        status = "tentative" if assumed_key.get(scope) == w.key(p) else "stated"
        return w.occur(p, sentence, scope, status)

    i = 0
    while i < len(steps):
        st = steps[i]
        premises = list({w.key(p): p for p in st.premises}.values())[-max_premises:]
        if st.status == "tentative":
            (s,) = w.emit(_cap(rng.choice(SUPPOSE).format(A=w.say(st.conclusion))))
            assumption[st.branch] = w.occur(st.conclusion, s, st.scope, "tentative")
            assumed_key[st.scope] = w.key(st.conclusion)
            i += 1
            continue
        if st.status == "contradiction":
            discharge = steps[i + 1] if i + 1 < len(steps) and steps[i + 1].status == "discharge" else None
            assumed = steps[next(j for j in range(i, -1, -1) if steps[j].status == "tentative"
                                 and steps[j].branch == st.branch)].conclusion
            named = [p for p in premises if w.key(p) != w.key(assumed)]
            d_text = w.say(discharge.conclusion) if discharge else "that branch fails"
            tpl = rng.choice(CONTRA if named else CONTRA_BARE)
            (s,) = w.emit(_cap(tpl.format(P=join_and([w.say(p) for p in named]), D=d_text)))
            used = [w.occur(p, s, st.scope) for p in named]
            a = assumption[st.branch]
            c = w.occur(st.conclusion, s, st.scope, "derived", tuple([a] + used), CONTRADICTION_CAUSE)
            if discharge is not None:
                w.occur(discharge.conclusion, s, MAIN, "derived", (a, c), DISCHARGE)
                i += 1
            i += 1
            continue
        conclusion = w.say(st.conclusion)
        if not premises:
            tpl = rng.choice(FALLBACK) if st.status == "stated" and not st.reason else rng.choice(NO_PREMISE)
            (s,) = w.emit(_cap(tpl.format(C=conclusion, R=st.reason or "of the rules")))
            w.occur(st.conclusion, s, st.scope)
            i += 1
            continue
        p_text = join_and([w.say(p) for p in premises])
        kind = rng.choice(("lead", "lead", "forward", "back", "two"))
        tpl = rng.choice({"lead": LEAD, "forward": FORWARD, "back": BACK, "two": TWO}[kind])
        sents = w.emit(f"{_cap(p_text)}. {tpl} {conclusion}." if kind == "two"
                       else _cap(tpl.format(P=p_text, C=conclusion)))
        s_prem, s_concl = sents[0], sents[-1]
        used = [mention(p, s_prem, st.scope) for p in premises]
        w.occur(st.conclusion, s_concl, st.scope, "derived", tuple(used), w.rule(st.conclusion, premises))
        i += 1
    final = pack.grid_claims(instance, instance.data["solution"])
    w.emit("So the final grid is:")
    (s,) = w.emit(json.dumps(instance.data["solution"]))
    for claim in final:
        w.occur(claim, s, MAIN)
    return SynthTrace("\n".join(w.lines), style, w.claims, w.apps, steps)


def wired_graph(trace: SynthTrace, pack: Pack) -> nx.DiGraph:
    """G_raw wired from the deduction log (the graph a perfect extraction of ``trace.text`` gives)."""
    graph, _ = build_graph(trace.claims, trace.apps, pack)
    return graph
