"""From a reasoning trace to claim occurrences and rule applications (docs/specs/reasoning_graphs.md §5).

The deterministic stages live here and need no model:

1. :func:`segment` splits the trace into sentences (stage 1);
2. :func:`vote_indexing` decides whether the trace counts rows and columns from 0 or 1 (the
   deterministic half of stage 2);
3. :func:`chunk` packs whole sentences into token-balanced chunks (stage 3);
4. :func:`extract_claims` runs the puzzle pack's high-precision reader (stage 4a;
   :mod:`kumo_gym.analysis.packs`), with hypothesis markers that open ``BRANCH#k`` scopes with
   tentative assumptions and contradiction markers that close them, and links premises from
   the marker words (:func:`premise_links`);
5. :func:`finalise` validates, deduplicates and orders the occurrences (stage 7);
6. :func:`link_rules` finds restatements, premise-marker derivations and branch discharges
   (the deterministic form of stage 8);
7. :func:`build_graph` assembles G_raw (stage 10).

The LLM stages (4b, 4c, 6 and the model half of 2 and 8) are in :mod:`kumo_gym.analysis.llm`
and feed the same :func:`finalise` / :func:`build_graph`. :func:`kumo_gym.analysis.pipeline.analyse_trace`
runs the whole pipeline, with ``backend=None`` for the deterministic mode.

Recall of the deterministic mode is lower by design: it reads the phrasings of each pack
("tent at (r, c)", "(r, c) cannot be a tent", "r3c5 = 7", "row 2 needs 1 more", "Suppose ...",
"contradiction") and ignores everything it cannot read with confidence. Coordinates are read as
(row, column); see :mod:`kumo_gym.analysis.text` for the cell forms.
"""
from __future__ import annotations

import bisect
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from ..core.extract import split_thinking
from .graph import content_key
from .schema import (
    CONTRADICTION_CAUSE,
    DISCHARGE,
    MAIN,
    MISSING,
    Bounds,
    Pack,
    branch_number,
    validate_occurrence,
    validate_rule_app,
)
from .text import QUANTIFIED, normalise, vote_indexing

PIPELINE_VERSION = "kumo_gym.reasoning_graph/v1"


class NoPackError(ValueError):
    """The record's puzzle has no reasoning-graph pack (it is not a grid puzzle, or its pack is missing)."""


# ---------------------------------------------------------------------------------------------
# stage 1: sentences
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Sentence:
    """One sentence of the trace: 1-based ``index``, character span, text, paragraph number."""

    index: int
    start: int
    end: int
    text: str
    paragraph: int = 0


_ABBREVIATIONS = frozenset({"e.g", "i.e", "etc", "vs", "fig", "approx", "no", "cf", "mr", "dr", "st", "eq",
                            "resp", "incl", "al"})
# a sentence ends at . ! ? followed by whitespace and then a capital, a digit, a bracket, a bullet
# or a cell name such as "r1c1" (Sudoku traces often start a sentence with one)
_BOUNDARY = re.compile(r"[.!?]+[\"')\]]*\s+(?=[A-Z0-9(\[\-*\u2022#]|r\d+c\d+)")


def segment(text: str) -> list[Sentence]:
    """Split ``text`` into sentences (docs/specs/reasoning_graphs.md §5 stage 1).

    Boundaries: a terminator followed by whitespace and a capital/digit/bracket/bullet, and every
    newline that ends a non-empty line. Never inside decimals ("2.5"), after a coordinate that is
    not followed by a new sentence ("(1, 2). then"), or after an abbreviation ("e.g. The").
    """
    out: list[Sentence] = []
    paragraph = 0
    pos = 0
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        if not body.strip():
            paragraph += 1
            pos += len(line)
            continue
        cut = 0
        for m in _BOUNDARY.finditer(body):
            word = body[cut:m.start()].rsplit(None, 1)[-1].lower().lstrip("(") if body[cut:m.start()].strip() else ""
            if word in _ABBREVIATIONS or (len(word) == 1 and word.isalpha()):
                continue  # "e.g. The" or an initial: not a sentence end
            end = m.start() + len(m.group(0).rstrip())
            _add(out, body, cut, end, pos, paragraph)
            cut = m.end()
        _add(out, body, cut, len(body), pos, paragraph)
        pos += len(line)
    return out


def _add(out: list, body: str, a: int, b: int, offset: int, paragraph: int) -> None:
    piece = body[a:b]
    stripped = piece.strip()
    if not stripped:
        return
    lead = len(piece) - len(piece.lstrip())
    start = offset + a + lead
    out.append(Sentence(len(out) + 1, start, start + len(stripped), stripped, paragraph))


# ---------------------------------------------------------------------------------------------
# stage 3: token-balanced chunks
# ---------------------------------------------------------------------------------------------
@dataclass
class Chunk:
    """Whole sentences ``first..last`` (1-based, inclusive) plus read-only context sentences."""

    first: int
    last: int
    tokens: int
    context_before: list = field(default_factory=list)
    context_after: list = field(default_factory=list)


def approx_tokens(text: str) -> int:
    """Token estimate without a tokenizer: characters / 4, at least 1."""
    return max(1, (len(text) + 3) // 4)


def chunk(sentences: list[Sentence], max_tokens: int = 2000, count_tokens: Callable[[str], int] | None = None,
          context: int = 0) -> list[Chunk]:
    """Pack whole sentences into chunks of about ``max_tokens`` tokens (docs/specs/reasoning_graphs.md §5 stage 3).

    Balanced: the number of chunks is the minimum a greedy fill needs, and the per-chunk target is
    the total divided by that number, so the last chunk is not a small remainder. A sentence
    longer than the budget forms its own chunk. ``context`` adds that many read-only sentences
    on each side.
    """
    if not sentences:
        return []
    count = count_tokens or approx_tokens
    sizes = [count(s.text) for s in sentences]
    n_chunks = 0
    acc = 0
    for sz in sizes:  # greedy count of chunks needed
        if acc and acc + sz > max_tokens:
            n_chunks += 1
            acc = 0
        acc += sz
    n_chunks += 1
    target = sum(sizes) / n_chunks
    out: list[Chunk] = []
    first, acc = 0, 0
    for i, sz in enumerate(sizes):
        over_budget = acc and acc + sz > max_tokens
        over_target = acc and acc + sz / 2 > target and len(out) < n_chunks - 1
        if over_budget or over_target:
            out.append(Chunk(first + 1, i, acc))
            first, acc = i, 0
        acc += sz
    out.append(Chunk(first + 1, len(sizes), acc))
    if context:
        for ch in out:
            ch.context_before = list(range(max(1, ch.first - context), ch.first))
            ch.context_after = list(range(ch.last + 1, min(len(sentences), ch.last + context) + 1))
    return out


# ---------------------------------------------------------------------------------------------
# stage 4a: the deterministic extractor
# ---------------------------------------------------------------------------------------------
_HYPOTHESIS = re.compile(r"\b(suppose|assume|assuming|what if|if we|if i|let's try|let us try|try(?:ing)?|"
                         r"hypothetically|for the sake of argument)\b")
_CONTRADICTION = re.compile(r"\b(contradiction|contradicts|contradictory|impossible|inconsistent|"
                            r"not possible|violates?|violation|can't work|cannot work|doesn't work|"
                            r"does not work|fails|not allowed|forbidden)\b")
_NEGATED = re.compile(r"\b(?:no|not|don't|doesn't|didn't|isn't|wasn't|won't|without|never|any|see\s+no|can't|cannot|"
                      r"couldn't|can\s+not)\b[^,.;]{0,20}$")
_IF = re.compile(r"\b(?:if|whether|unless|otherwise)\b")
_ABANDON = re.compile(r"\b(?:go(?:ing)? back|back to|drop (?:this|that|it)|scratch that|never ?mind|instead|"
                      r"(?:doesn't|does not|didn't) (?:lead|help|get)|no contradiction|keep (?:it|this|that) as a candidate|"
                      r"abandon|start over|undo)\b")


def _contradiction(text: str):
    """The first contradiction marker that is not negated ("I don't see a contradiction")."""
    for m in _CONTRADICTION.finditer(text):
        if not _NEGATED.search(text[:m.start()]):
            return m
    return None


def _conditional(text: str, pos: int, hyp) -> bool:
    """Whether position ``pos`` lies in an "if ..." clause (a condition asserts nothing), unless
    that "if" is the sentence's hypothesis marker ("if we put a tent at ...")."""
    for m in _IF.finditer(text, 0, pos):
        if hyp is not None and hyp.start() <= m.start() < hyp.end():
            continue
        # "If P, Q" opening the sentence: Q is only the condition's consequence, asserted no more
        # than P is, up to a conclusion marker ("..., so C") or a semicolon
        opening = _OPENING_IF.match(text[:m.start()]) is not None
        end = (_IF_END_OPENING if opening else _IF_END).search(text, m.end())
        if end is None or pos < end.start():
            return True
    return False


_IF_END = re.compile(r",|;|\bthen\b")
_IF_END_OPENING = re.compile(r";|\b(?:so|therefore|thus|hence|which is|which would be)\b")
_OPENING_IF = re.compile(r"^\s*(?:(?:and|but|now|even|hmm|ok|okay|so|or)\b[\s,]*)*$")


#: longest sentence prefix the regex reader looks at (real sentences are far shorter)
MAX_SENTENCE_CHARS = 2000
#: most premises the marker linker attaches to one conclusion
MAX_PREMISES = 12


def extract_claims(sentences: list[Sentence], pack: Pack, offset: int = 0) -> list[dict]:
    """Stage 4a: candidate occurrences ``{kind, payload, status, scope, source_sents, pos, end, cid, premises}``.

    ``offset`` is 1 for a 1-based trace (subtracted from every coordinate and line index).
    Scopes: a hypothesis marker opens ``BRANCH#k`` and its first solution-kind claim is the
    tentative assumption; a contradiction marker adds ``Contradiction{branch: k}`` and returns to
    MAIN (claims after "so/therefore" in that sentence are MAIN again); a blank line or a new
    hypothesis also ends the branch.

    ``premises`` lists the candidate ids (``cid``) that the sentence's marker words present as
    support (:func:`premise_links`); ``pos`` orders claims within a sentence, premises first, so
    that inference edges always point forward in trace order.
    """
    reader = pack.reader(offset)
    out: list[dict] = []
    branch = 0
    scope = MAIN
    paragraph = None
    prev_out: list[int] = []
    assumed: dict = {}  # branch scope -> its assumption (kind, payload json)
    abandoned: list[int] = []  # branches dropped without a verdict (never confirmed later)
    by_cid: dict = {}  # candidate id -> candidate, for the sentences read so far
    for sent in sentences:
        if scope != MAIN and sent.paragraph != paragraph:
            scope = MAIN
        paragraph = sent.paragraph
        # regex reading is quadratic in the worst case within one sentence: a hostile
        # megabyte-long "sentence" is read only up to MAX_SENTENCE_CHARS
        norm = normalise(sent.text[:MAX_SENTENCE_CHARS])
        found = sorted(reader.read(norm), key=lambda f: f.pos)
        hyp = _HYPOTHESIS.search(norm.text)
        if hyp and not any(f.pos > hyp.start() and f.kind in pack.solution_kinds for f in found):
            hyp = None  # "let me try the other option": no assumption named, no branch
        if norm.text.endswith("?") and not hyp:
            found = []  # a question asserts nothing ("So r4c8 = 1?")
        found = [f for f in found if not _conditional(norm.text, f.pos, hyp)]
        quantified = [(m.start(1), m.end(1)) for m in QUANTIFIED.finditer(norm.text)]
        found = [f for f in found if not any(a <= f.pos < b for a, b in quantified)]
        con = _contradiction(norm.text) if scope != MAIN or hyp else None
        assumption_pos = None
        if hyp and (con is None or hyp.start() < con.start()):
            branch += 1
            scope = f"BRANCH#{branch}"
            first = next((f for f in found if f.pos > hyp.start() and f.kind in pack.solution_kinds), None)
            assumption_pos = first.pos if first else None
        back_to_main = None
        if con is not None and scope != MAIN:
            fwd = FORWARD.search(norm.text, con.end())
            back_to_main = fwd.start() if fwd else len(norm.text) + 1
        here = []
        for f in found:
            f_scope = scope
            if back_to_main is not None and f.pos > back_to_main:
                f_scope = MAIN
            same = (f.kind, json.dumps(f.payload, sort_keys=True))
            if f.pos == assumption_pos:
                assumed[f_scope] = same
            # the assumption named again inside its branch is still assumed, not asserted
            status = "tentative" if f.pos == assumption_pos or (f_scope != MAIN and assumed.get(f_scope) == same) \
                else "stated"
            here.append({"kind": f.kind, "payload": f.payload, "status": status, "scope": f_scope,
                         "source_sents": [sent.index], "pos": f.pos, "end": f.end if f.end is not None else f.pos,
                         "start": min(f.pos, f.start) if f.start is not None else f.pos,
                         "cid": len(out) + len(here), "premises": [], "clue": f.kind in pack.clue_kinds,
                         "abandoned": list(abandoned)})
        # ("Suppose instead X" opens a branch: its "instead" drops the previous one, not this one)
        if con is None and scope != MAIN and assumption_pos is None and _ABANDON.search(norm.text):
            abandoned.append(branch_number(scope))
            scope = MAIN  # "let me go back": the branch is dropped without a verdict
        if con is not None and scope != MAIN:
            k = branch_number(scope)
            here.append({"kind": "Contradiction", "payload": {"branch": k, "note": sent.text[:120]},
                         "status": "stated", "scope": scope, "source_sents": [sent.index], "pos": con.start(),
                         "end": con.end(), "cid": len(out) + len(here), "premises": [], "clue": False})
            scope = MAIN
        here.sort(key=lambda o: o["pos"])
        prev_out = _attach_premises(norm.text, here, prev_out, pack, by_cid)
        by_cid.update((o["cid"], o) for o in here)
        for o in here:
            o.pop("clue", None)
        out.extend(here)
    out.sort(key=lambda o: (o["source_sents"][0], o["pos"]))
    return out


# ---- premise linking ------------------------------------------------------------------------
# Markers that introduce premises ("since P, C" / "C because P") and conclusions ("P, so C").
_LEAD = re.compile(r"\s*(?:and |but |now |well |ok |okay |also |then |,\s*)*(?:since|because of|because|as|given that|given|"
                   r"with|now that|due to|owing to|from|using|considering|thanks to|seeing that|knowing that|"
                   r"based on)\b")
_BACK = re.compile(r"\b(?:because|since|given that|due to|owing to|as(?= (?:it|they|this|that|there|both|its|their|"
                   r"the|row|column|col|@\d+@|each|every|no|only|all)\b))\b")
FORWARD = re.compile(r"\b(?:therefore|thus|hence|so(?! far\b| on\b| much\b)|which means|this means|that means|"
                     r"meaning|it follows that|consequently|forcing|which forces|this forces|that forces|"
                     r"which leaves|which rules out|this rules out|that rules out|leaving|that leaves|this leaves|"
                     r"which gives|this gives|that gives|giving|which implies|this implies|that implies|"
                     r"and then|then|as a result|which makes|this makes|that makes|so that|"
                     # causal verbs: "the tent at X rules out Y", "row 0's clue forces Y"
                     r"rules out|rule out|eliminates|excludes|forces|blocks|implies|means)\b")
# a sentence that opens by pointing back at the previous one
_BACKREF = re.compile(r"^\s*(?:so|therefore|thus|hence|consequently|then|this|that|these|those|it|which|"
                      r"as a result|because of (?:this|that)|given (?:this|that)(?=\s*,)|in turn|in that case|"
                      r"from (?:this|that|there)(?=\s*,)|with (?:this|that)(?=\s*,))\b")
_CUT = re.compile(r",|;|\bthen\b")
_INLINE = frozenset({"therefore", "thus", "hence", "then", "consequently"})
_CLAUSE = re.compile(r"(?:,\s*and|,\s*but|;)\s+(?=(?:it|this|that|but)\b)")


def _first_after(items: list[dict], pos: int, end: int) -> dict | None:
    cands = [o for o in items if pos <= o["pos"] < end]
    return min(cands, key=lambda o: o["pos"]) if cands else None


def _inside_claim(items: list[dict], at: int, following: int) -> bool:
    """Whether position ``at`` lies within the words of one of ``items`` (past its first character)
    that ends before the claim ``following`` it begins (a reading whose words run on into the
    next claim, as "X is not 3 and 4 cannot go in X", does not hide that claim's "and")."""
    return any(min(o["pos"], o.get("start", o["pos"])) < at < o["end"] <= following for o in items)


def _lead_cut(text: str, items: list[dict], start: int, end: int) -> int | None:
    """Where the premise clause opened at ``start`` ends: the comma that closes it.

    "Since P1, P2 and P3, C": a list's last item follows its "and", so the closing comma is the
    first one after the item that follows the first "and"; without such a comma (as in "Since P,
    C1 and C2") it is the first comma after the first premise.
    """
    first = _first_after(items, start, end)
    if first is None:
        return None
    early = re.compile(r",|;").search(text, start, end)
    if early is not None and early.start() < first["pos"]:
        return early.start()  # "Because of that piece, C1 and C2": a premise clause naming no claim
    for m in re.finditer(r"\band\b", text[start:end]):
        nxt = _first_after(items, start + m.end(), end)
        if nxt is None:
            break
        if _inside_claim(items, start + m.start(), min(nxt["pos"], nxt.get("start", nxt["pos"]))):
            continue  # the "and" of one claim's own words ("the track joins X and Y") ends no list
        cut = _CUT.search(text, max(nxt["end"], nxt["pos"]), end)
        if cut is not None:
            return cut.start()
        break
    cut = _CUT.search(text, max(first["end"], first["pos"]), end)
    return cut.start() if cut is not None else None


def premise_links(text: str, items: list[dict]) -> tuple[dict, list[int], bool]:
    """Premise links of one sentence from its marker words.

    ``items`` are the sentence's claims (``pos``, ``end``, ``clue``), sorted by position. Returns
    ``(links, outputs, wants_previous)``: ``links[j]`` lists the item indices that support item
    ``j``; ``outputs`` are the items a following "So ..." sentence builds on (the conclusions of
    the last clause); ``wants_previous`` lists whether unsupported conclusions of the first
    clause take the previous sentence's outputs as premises ("Therefore C", "This forces C").

    - forward markers (so, therefore, which means, ...) split the sentence into clauses; each
      clause's claims follow from the outputs of the clause before it;
    - "Since P, C" (a premise marker opening a clause): P supports C, the premise clause ending
      at the comma found by :func:`_lead_cut`;
    - "C because P" (a premise marker inside a clause): P supports C, and P is moved before C;
    - a clue named just before a conclusion, with no comma or "and" between, supports it ("the
      tree at X needs its tent at Y"); clues themselves are never concluded.
    """
    n = len(text)
    links: dict = {j: [] for j in range(len(items))}
    pos0 = [o["pos"] for o in items]
    cuts = [m for m in FORWARD.finditer(text)]
    # "C1 because P1, and it cannot be 3 because P2": a new clause that does not build on the last
    breaks = {m.start() for m in _CLAUSE.finditer(text)}
    # a marker inside a claim's own words ("(1, 0) is then a zombie") does not split its clause
    splits = [m for m in cuts if not any(min(o["pos"], o.get("start", o["pos"])) < m.start() < o["end"] for o in items)]
    marks = sorted([(m.start(), m.end(), True) for m in splits] + [(b, b, False) for b in breaks])
    bounds = [0] + [a for a, _, _ in marks] + [n + 1]
    starts = [0] + [e for _, e, _ in marks]
    flows = [False] + [f for _, _, f in marks]
    if cuts and cuts[-1].end() >= len(text.rstrip(" .!")) and not _BACKREF.match(text):
        # "r7c2 must be 7 then.": a closing "then"/"so" points back like an opening one
        trailing = True
    else:
        trailing = False
    prev_outputs: list[int] = []
    wants_previous = bool(_BACKREF.match(text))
    first_clause_members: list[int] = []
    seen_members = False
    for k in range(len(bounds) - 1):
        a, b, body = bounds[k], bounds[k + 1], starts[k]
        members = [j for j, o in enumerate(items) if a <= o["pos"] < b]
        premises: list[int] = []
        conclusions = members
        lead = _LEAD.match(text, body)
        cut = None
        if lead is not None:  # "Since P, C"
            cut = _lead_cut(text, items, lead.end(), b)
            if cut is None:
                premises, conclusions = members, []
        else:
            back = next((m for m in _BACK.finditer(text, body, b)
                         if any(items[j]["pos"] < m.start() for j in members)), None)
            if back is not None:
                # "X, and since P, C" opens a new clause; "C, since P" and "C because P" do not
                opens = re.search(r"(?:\band|\bbut|;)\s*$", text[body:back.start()]) is not None
                cut = _lead_cut(text, items, back.end(), b) if opens else None
                if cut is None or not any(items[j]["pos"] >= cut for j in members):
                    cut = None  # "C because P": P supports C and comes first in the graph's order
                    conclusions = [j for j in members if items[j]["pos"] < back.start()]
                    premises = [j for j in members if items[j]["pos"] >= back.start()]
                    for j in premises:
                        items[j]["pos"] -= 10**6
        if cut is not None:  # "X, and since P, C": everything before the closing comma supports C
            premises = [j for j in members if items[j]["pos"] < cut]
            conclusions = [j for j in members if items[j]["pos"] >= cut]
        for j in conclusions:
            links[j].extend(premises)
        if k > 0 and not flows[k]:
            prev_outputs = []  # a new clause: it builds on nothing said before it in the sentence
        if k > 0 and flows[k]:
            if not prev_outputs and not seen_members and not re.search(r"@\d+@", text[:a]) and \
                    re.search(r"\b(?:therefore|thus|hence|then|rest|remaining|this|that|these|now)\b", text[:a]):
                # "The rest of row 3 is therefore empty, so C": nothing named before the marker,
                # so C builds on the previous sentence
                wants_previous = True
            for j in conclusions:
                links[j].extend(x for x in prev_outputs if x not in links[j])
        # a clue named just before a conclusion, with no comma or "and" between, supports it
        for j in conclusions:
            if items[j].get("clue"):
                continue
            for q in conclusions:
                start = items[j].get("start", pos0[j])
                if q == j or not items[q].get("clue") or pos0[q] >= pos0[j] or items[q]["end"] > start:
                    continue  # (a clue read from the same words as the conclusion is the same fact)
                if not re.search(r"[,;]|\band\b", text[items[q]["end"]:start]) and q not in links[j]:
                    links[j].append(q)
        if members and not seen_members:  # the first clause with claims
            first_clause_members = conclusions
            seen_members = True
        if members:
            prev_outputs = conclusions or members  # what the next clause builds on
    # "Column 5 is then full": a marker inside a claim's own words means it was concluded from
    # what came before
    inner = [j for j, o in enumerate(items) for m in cuts if pos0[j] < m.start() < o["end"] and not links[j]]
    # "The tree at X therefore gets its tent at Y": an adverb inside the clause (no comma before
    # it) points back at the previous sentence as well as at the clause's own subject
    for i, m in enumerate(cuts):
        if m.group(0) in _INLINE and m.start() > 0 and not re.search(r"(?:[,;:]|\band|\bso)\s*$",
                                                                       text[max(0, m.start() - 8):m.start()]):
            end = cuts[i + 1].start() if i + 1 < len(cuts) else n + 1
            inner += [j for j, o in enumerate(items) if m.end() <= pos0[j] < end and not o.get("clue")
                      and all(items[p].get("clue") for p in links[j])]  # (unless it names its premises)
    if trailing:
        inner += [j for j in range(len(items)) if not links[j]]
    previous = list(dict.fromkeys((first_clause_members if wants_previous else []) + inner))
    return links, prev_outputs, previous


def respective(conclusions: list[tuple], premises: list[tuple], related: Callable) -> list[list[int]] | None:
    """Which of ``premises`` each of ``conclusions`` builds on, when the two lists run in parallel.

    "(4, 2), (4, 3) and (4, 4) are the dots' centres. So (4, 2) belongs to dot 5, (4, 3) to dot 6
    ..." or "the loop joins X and Y, and X and Z. Therefore it continues from Y to ... and from Z
    to ...": several conclusions building on several earlier claims pair up by place, each with
    the premises about its own cells. The pairing is used only when it is clean: at least two of
    each, every conclusion related to some premise and every premise to some conclusion, and at
    least one pair unrelated (``related(p, c)`` True, False, or None when it cannot tell, which
    counts as related). Returns per conclusion the indices of its premises, or None (link all).
    """
    if len(conclusions) < 2 or len(premises) < 2:
        return None
    rel = [[k for k, p in enumerate(premises) if related(p, c) is not False] for c in conclusions]
    if not all(rel) or {k for r in rel for k in r} != set(range(len(premises))):
        return None
    if all(len(r) == len(premises) for r in rel):
        return None
    return rel


def _attach_premises(text: str, here: list[dict], prev_out: list[int], pack: Pack | None = None,
                     earlier: dict | None = None) -> list[int]:
    """Fill ``premises`` (candidate ids) of one sentence's candidates; returns the candidate ids a
    following "So ..." sentence builds on (a sentence without claims passes the previous ones on).
    ``earlier`` (the candidates so far, by id) lets several conclusions that build on the
    previous sentence pair up with its claims by place (:func:`respective`)."""
    if not here:
        # a sentence that reasons on its own ("..., so seeing 3 means none of row 2 is a ghost")
        # without naming a claim: what follows builds on that reasoning, not on older claims
        return [] if FORWARD.search(text) else prev_out
    links, _outputs, from_previous = premise_links(text, here)
    for j in list(links):
        if here[j].get("clue"):  # a clue is read off the puzzle, never concluded
            links[j] = []
    from_previous = [j for j in from_previous if not here[j].get("clue")]
    for j, prem in links.items():
        # a rule cites a handful of premises: keep the nearest MAX_PREMISES, which also keeps
        # a hostile sentence listing hundreds of cells from producing a quadratic edge set
        here[j]["premises"] = [here[p]["cid"] for p in prem][-MAX_PREMISES:]
    inherited = {j: prev_out for j in from_previous}
    if pack is not None and earlier is not None and all(p in earlier for p in prev_out):
        def claim(o: dict) -> tuple:
            return o["kind"], o["payload"]

        pairs = respective([claim(here[j]) for j in from_previous], [claim(earlier[p]) for p in prev_out], pack.related)
        if pairs is not None:
            inherited = {j: [prev_out[k] for k in ks] for j, ks in zip(from_previous, pairs)}
    for j in from_previous:  # "So C", "This forces C": C builds on the previous sentence
        here[j]["premises"] = (here[j]["premises"] + [p for p in inherited[j] if p not in here[j]["premises"]])[-MAX_PREMISES:]
    # what a following "So ..." builds on: the sentence's leaves, the claims it did not use as
    # premises of another of its claims
    used = {p for prem in links.values() for p in prem}
    out = [here[j]["cid"] for j in range(len(here)) if j not in used]
    here.sort(key=lambda o: o["pos"])
    return out


def final_answer_claims(task: Any, instance: Any, answer_text: str, pack: Pack) -> list[tuple]:
    """Solution claims of the final answer grid, when it parses (docs/specs/reasoning_graphs.md §1: a raw grid counts
    only as the final solution): its C*-form claims (:meth:`Pack.grid_claims`; Tents a Tent per ``A``, Solo
    an Assign per cell, Light Up a Light per ``L`` ...)."""
    if task is None or not answer_text:
        return []
    try:
        grid = task.parse(answer_text)
    except Exception:  # noqa: BLE001 - any parse failure just means no final-answer claims
        return []
    if not isinstance(grid, list) or not all(isinstance(row, list) for row in grid):
        return []
    bounds = bounds_of(instance)
    if bounds is not None and (len(grid) != bounds.H or any(len(row) != bounds.W for row in grid)):
        return []  # a grid of the wrong shape is no statement of this puzzle's solution
    try:
        return pack.grid_claims(instance, grid)
    except (TypeError, ValueError, KeyError, IndexError):
        return []


# ---------------------------------------------------------------------------------------------
# stage 7: finalise
# ---------------------------------------------------------------------------------------------
def finalise(candidates: list[dict], pack: Pack, bounds: Bounds | None, n_sentences: int,
             counters: dict | None = None, stage: str = "finalise") -> list[dict]:
    """Validate against the schema, drop invalid items (counted), dedupe, order by trace (docs/specs/reasoning_graphs.md
    §5 stage 7).

    An occurrence is unique per (content key, status, scope, first sentence); a content key occurs
    at most once per sentence. Ids are ``C1..Cn`` in trace order.
    """
    counters = counters if counters is not None else {}
    kept = []
    seen: dict = {}
    alias: dict = {}  # cid of a dropped duplicate -> cid of the kept occurrence
    for i, cand in enumerate(candidates):
        try:
            occ = validate_occurrence(pack, cand, bounds, n_sentences)
        except ValueError as e:
            _count(counters, stage, "invalid", str(e))
            continue
        key = (occ["claim"], occ["source_sents"][0])
        cid = cand.get("cid", ("x", i))
        if key in seen:
            _count(counters, stage, "duplicate")
            alias[cid] = seen[key]
            continue
        seen[key] = cid
        occ["pos"] = cand.get("pos", i)
        occ["order_hint"] = i
        occ["cid"] = cid
        occ["premises"] = list(cand.get("premises") or [])
        occ["abandoned"] = list(cand.get("abandoned") or [])
        kept.append(occ)
    for occ in kept:
        occ["premises"] = [alias.get(p, p) for p in occ["premises"]]
    kept.sort(key=lambda o: (o["source_sents"][0], o["pos"], o["order_hint"]))
    for n, occ in enumerate(kept, 1):
        occ["id"] = f"C{n}"
        occ.pop("order_hint", None)
    return kept


def _count(counters: dict, stage: str, what: str, example: str | None = None) -> None:
    st = counters.setdefault(stage, {})
    st[what] = st.get(what, 0) + 1
    if example and len(st.setdefault("examples", [])) < 5:
        st["examples"].append(example)


# ---------------------------------------------------------------------------------------------
# stage 8 (deterministic): restatements, premise markers, discharges
# ---------------------------------------------------------------------------------------------
def choose_rule(pack: Pack, output: tuple, inputs: list[tuple]) -> str | None:
    """The rule id explaining ``output`` from premises of the given kinds: the pack's tie-breakers
    (:meth:`Pack.choose_rule`), the deterministic stand-in for the rule model."""
    return pack.choose_rule(output, inputs)


def link_rules(claims: list[dict], pack: Pack, counters: dict | None = None,
               rule_apps: dict | None = None) -> list[dict]:
    """Stage 8, deterministic: a rule application (or none) for every occurrence, in trace order.

    - a content key seen before (non-tentatively) -> ``restated``, edge from its last occurrence;
    - a tentative claim -> branch assumption, no inputs;
    - a Contradiction -> ``R_CONTRADICTION_CAUSE`` from the branch assumption and the claims of its
      sentence in that branch;
    - the first MAIN claim after a refuted branch that negates its assumption ->
      ``R_TENTATIVE_DISCHARGE`` from the assumption and the Contradiction (a MAIN claim equal to
      an unrefuted assumption confirms it);
    - otherwise premise markers ("since P, C", "P, so C", "C because P"; "Therefore C" uses the
      previous sentence) give the inputs and :func:`choose_rule` the rule id.

    ``rule_apps`` (claim index -> ``{rule, inputs}``, from a model) override the marker linker
    and are validated first; an invalid one is logged in ``counters`` and the claim is stated.
    Returns one dict per claim: ``{status, rule, inputs (claim indices or C_MISSING), restates}``.
    """
    counters = counters if counters is not None else {}
    last_seen: dict = {}
    assumptions: dict[int, int] = {}  # branch -> claim index
    refuted: dict[int, int] = {}  # branch -> contradiction index
    pending: list[int] = []  # branches whose discharge we still expect
    out: list[dict] = [None] * len(claims)  # type: ignore[list-item]

    ids = {c.get("id"): i for i, c in enumerate(claims) if c.get("id") is not None}
    index_of = {c.get("cid"): i for i, c in enumerate(claims) if c.get("cid") is not None}
    premises = {i: [index_of[p] for p in c.get("premises", []) if p in index_of and index_of[p] != i]
                for i, c in enumerate(claims)}

    for i, c in enumerate(claims):
        key = c["claim"]
        kind = key[0]
        rec = {"status": c["status"], "rule": None, "inputs": [], "restates": None}
        k = branch_number(c["scope"])
        if c["status"] == "tentative":
            if k is not None:
                assumptions.setdefault(k, i)
                if k not in pending:
                    pending.append(k)
                    # a discharge follows its branch closely: only the latest few stay open
                    del pending[:-3]
            out[i] = rec
            continue
        if key in last_seen:
            rec["status"] = "restated"
            rec["restates"] = last_seen[key]
            last_seen[key] = i
            out[i] = rec
            continue
        last_seen[key] = i
        app = None
        if rule_apps is not None and i in rule_apps and rule_apps[i]:
            try:
                app = validate_rule_app(pack, rule_apps[i], i, claims, ids)
            except ValueError as e:
                _count(counters, "rules", "invalid", f"{c['id']}: {e}")
                app = None
        if app is None and rule_apps is None:
            app = _deterministic_app(i, c, claims, pack, premises, assumptions, refuted, pending)
            if app is not None:
                try:
                    app = validate_rule_app(pack, app, i, claims, ids)
                except ValueError as e:
                    _count(counters, "rules", "rejected_deterministic", f"{c['id']}: {e}")
                    app = None
        if kind == "Contradiction" and k is not None:
            refuted[k] = i
        if app is not None:  # one derivation per distinct content: later ones are restatements
            rec.update(status="derived", rule=app["rule"], inputs=app["inputs"])
            if app["rule"] == DISCHARGE:
                b = branch_number(claims[next(j for j in app["inputs"] if j != MISSING and claims[j]["status"] == "tentative")]["scope"])
                if b in pending:
                    pending.remove(b)
        out[i] = rec
    return out


def _deterministic_app(i, c, claims, pack, premises, assumptions, refuted, pending) -> dict | None:
    key = c["claim"]
    s = c["source_sents"][0]
    k = branch_number(c["scope"])
    if key[0] == "Contradiction" and k is not None:
        inputs = []
        if k in assumptions:
            inputs.append(assumptions[k])
        inputs += [j for j in premises[i] if claims[j]["scope"] == c["scope"] and j < i]
        j = i - 1
        while j >= 0 and claims[j]["source_sents"][0] == s:  # the claims of its own sentence
            if claims[j]["scope"] == c["scope"] and j not in inputs and claims[j]["claim"][0] != "Contradiction":
                inputs.append(j)
            j -= 1
        return {"rule": CONTRADICTION_CAUSE, "inputs": inputs} if inputs else None
    if c["scope"] == MAIN:
        for b in list(pending):
            a = assumptions.get(b)
            if a is None:
                continue
            if b in refuted and pack.negates(claims[a]["claim"], key):
                return {"rule": DISCHARGE, "inputs": [a, refuted[b]]}
            if b not in refuted and b == max(assumptions) and b not in c.get("abandoned", ()) and claims[a]["claim"] == key:
                # confirming an assumption: only the branch still being explored (a branch
                # abandoned for another one confirms nothing)
                return {"rule": DISCHARGE, "inputs": [a]}
    inputs = [j for j in premises[i] if claims[j]["scope"] == c["scope"] and j < i]
    if not inputs:
        return None
    rule = choose_rule(pack, key, [claims[j]["claim"] for j in inputs])
    return {"rule": rule, "inputs": inputs} if rule else None


# ---------------------------------------------------------------------------------------------
# stage 10: assemble G_raw
# ---------------------------------------------------------------------------------------------
def build_graph(claims: list[dict], apps: list[dict], pack: Pack) -> tuple[nx.DiGraph, dict]:
    """G_raw from the finalised occurrences and their rule applications (docs/specs/reasoning_graphs.md §1, §5 stage
    10).

    Inference edges run from each input to its conclusion (labelled with the rule); restatement
    edges from the last earlier occurrence. Each ``C_MISSING`` input becomes a fresh ``Missing``
    node just before its conclusion. Backward edges are dropped and reported.
    """
    g = nx.DiGraph()
    order_of: dict[str, float] = {}
    for n, c in enumerate(claims):
        order_of[c["id"]] = float(n)
    info = {"dropped_edges": [], "n_missing": 0}
    for n, (c, app) in enumerate(zip(claims, apps)):
        node = c["id"]
        for j, inp in enumerate(app["inputs"]):
            if inp == MISSING:
                info["n_missing"] += 1
                mid = f"M{info['n_missing']}"
                g.add_node(mid, claim=content_key("Missing", {"for": node, "slot": j}), kind="Missing",
                           sentence=c["source_sents"][0], order=n - 0.5 + j * 1e-3, status="missing",
                           scope=c["scope"], static=False, source_sents=list(c["source_sents"]),
                           label="unverifiable")
        g.add_node(node, claim=c["claim"], kind=c["claim"][0], sentence=c["source_sents"][0], order=float(n),
                   status=app["status"], scope=c["scope"], source_sents=list(c["source_sents"]),
                   static=c["claim"][0] in pack.static_kinds and app["status"] != "tentative",
                   rule=app["rule"])
    missing_seen = 0
    for c, app in zip(claims, apps):
        node = c["id"]
        if app["restates"] is not None:
            src = claims[app["restates"]]["id"]
            g.add_edge(src, node, type="restatement", rule=None)
        for inp in app["inputs"]:
            if inp == MISSING:
                missing_seen += 1
                g.add_edge(f"M{missing_seen}", node, type="inference", rule=app["rule"])
                continue
            src = claims[inp]["id"]
            if order_of[src] >= order_of[node]:
                info["dropped_edges"].append([src, node])
                continue
            if src != node:
                g.add_edge(src, node, type="inference", rule=app["rule"])
    return g, info


# ---------------------------------------------------------------------------------------------
# the whole pipeline for one trace
# ---------------------------------------------------------------------------------------------
def bounds_of(instance: Any) -> Bounds | None:
    """Grid bounds from an Instance (or its dict) of a grid family, or None."""
    data = getattr(instance, "data", None)
    if data is None and isinstance(instance, dict):
        data = instance.get("data", instance)
    if not isinstance(data, dict):
        return None
    state = data.get("state", data)
    grid = state.get("grid") if isinstance(state, dict) else None
    H = data.get("H") or (len(grid) if isinstance(grid, list) else None)
    W = data.get("W") or (len(grid[0]) if isinstance(grid, list) and grid and isinstance(grid[0], list) else None)
    if not H or not W:
        return None
    n = state.get("n") if isinstance(state, dict) else None
    return Bounds(int(H), int(W), int(n) if n else None, state.get("box_w"), state.get("box_h"))


def trace_text(record: dict) -> tuple[str, str]:
    """(reasoning text to analyse, answer region) of a trace record.

    The trace S is the thinking plus the final answer text (docs/specs/reasoning_graphs.md §1); a separate ``reasoning``
    field wins over ``<think>`` tags. Multi-turn records join their step actions.
    """
    completion = record.get("completion")
    if completion is None and record.get("steps"):
        completion = "\n".join(str(s.get("action", "")) for s in record["steps"])
    completion = completion or ""
    regions = split_thinking(completion, record.get("reasoning"))
    full = (regions.thinking + "\n" + regions.answer).strip() if regions.thinking else regions.answer
    return full, regions.answer


def extract_deterministic(text: str, answer_text: str, pack: Pack, bounds: Bounds | None, task: Any = None,
                          instance: Any = None, indexing: str | None = None) -> dict:
    """Stages 1, 2 (vote), 4a, 7 and 8 (deterministic) for one trace; returns the artefacts."""
    sentences = segment(text)
    counters: dict = {}
    vote, votes = vote_indexing(text, bounds.H if bounds else -1, bounds.W if bounds else -1)
    indexing = indexing or vote or "1-based"
    offset = 1 if indexing == "1-based" else 0
    cands = extract_claims(sentences, pack, offset)
    final = final_answer_claims(task, instance, answer_text, pack)
    if final and sentences:
        # the answer grid is the final solution statement: it sits in the sentence where it starts
        start = answer_grid_start(text)
        starts = [s.start for s in sentences]
        at = sentences[max(0, bisect.bisect_right(starts, start) - 1)].index if start >= 0 else sentences[-1].index
        for j, (kind, payload) in enumerate(final):
            cands.append({"kind": kind, "payload": payload, "status": "stated", "scope": MAIN,
                          "source_sents": [at], "pos": 10**6 + j})
    claims = finalise(cands, pack, bounds, len(sentences), counters)
    apps = link_rules(claims, pack, counters)
    return {"sentences": sentences, "indexing": indexing, "index_votes": votes, "claims": claims,
            "apps": apps, "counters": counters}


_GRID_OPEN = re.compile(r"\[\s*\[")


def answer_grid_start(text: str) -> int:
    """Where the last grid of ``text`` opens (-1 when none): ``[[`` or a pretty-printed ``[`` newline ``[``,
    as models echo JSON with one row per line."""
    start = -1
    for m in _GRID_OPEN.finditer(text):
        start = m.start()
    return start


def _tokens_of(record: dict, text: str) -> int:
    for key in ("completion_tokens", "tokens", "n_tokens"):
        v = record.get(key)
        if isinstance(v, int):
            return v
        if isinstance(v, dict) and isinstance(v.get("completion"), int):
            return v["completion"]
    return approx_tokens(text)


def graph_from_json(doc: dict) -> nx.DiGraph:
    """G_raw back from a ``kumo_gym.reasoning_graph/v1`` dict (round-trip of :func:`kumo_gym.analysis.pipeline.analyse_trace`)."""
    g = nx.DiGraph()
    for n, c in enumerate(doc["claims"]):
        g.add_node(c["id"], claim=content_key(c["kind"], c["payload"]), kind=c["kind"], sentence=c["source_sents"][0],
                   order=float(n), status=c["status"], scope=c["scope"], source_sents=c["source_sents"],
                   static=c["static"], label=c["label"])
    for e in doc["edges"]:
        for v in (e["src"], e["dst"]):
            if v not in g:  # a Missing placeholder: just before the node it feeds
                dst = next(c for c in doc["claims"] if c["id"] == e["dst"])
                g.add_node(v, claim=content_key("Missing", {"id": v}), kind="Missing",
                           sentence=dst["source_sents"][0], order=float(doc["claims"].index(dst)) - 0.5,
                           status="missing", scope=dst["scope"], static=False, label="unverifiable")
        g.add_edge(e["src"], e["dst"], type=e["type"], rule=e["rule"])
    return g
