"""From a reasoning trace to claim occurrences and rule applications (reasoning_graphs.md §5).

The deterministic stages live here and need no model:

1. :func:`segment` splits the trace into sentences (stage 1);
2. :func:`vote_indexing` decides whether the trace counts rows and columns from 0 or 1 (the
   deterministic half of stage 2);
3. :func:`chunk` packs whole sentences into token-balanced chunks (stage 3);
4. :func:`extract_claims` is the high-precision regex extractor per puzzle (stage 4a): Tents and
   Solo schemas, generic ``Cell`` claims for the other grid puzzles, hypothesis markers that open
   ``BRANCH#k`` scopes with tentative assumptions, contradiction markers that close them;
5. :func:`finalise` validates, deduplicates and orders the occurrences (stage 7);
6. :func:`link_rules` finds restatements, premise-marker derivations and branch discharges
   (the deterministic form of stage 8);
7. :func:`build_graph` assembles G_raw (stage 10).

The LLM stages (4b, 4c, 6 and the model half of 2 and 8) are in :mod:`kumo_gym.analysis.llm`
and feed the same :func:`finalise` / :func:`build_graph`. :func:`analyse_trace` runs the whole
pipeline, with ``backend=None`` for the deterministic mode.

Recall of the deterministic mode is lower by design: it reads the phrasings listed in the
patterns below ("tent at (r, c)", "(r, c) cannot be a tent", "r3c5 = 7", "row 2 needs 1 more",
"Suppose ...", "contradiction") and ignores everything it cannot read with confidence.
Coordinates are read as (row, column).
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
    pack_for,
    validate_occurrence,
    validate_rule_app,
)

PIPELINE_VERSION = "kumo_gym.reasoning_graph/v1"


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
    """Split ``text`` into sentences (§5 stage 1).

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
# stage 2: 0- or 1-based indexing
# ---------------------------------------------------------------------------------------------
_COORD_PATTERNS = (
    re.compile(r"\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*\)"),
    re.compile(r"\b[rR](\d{1,3})\s*[cC](\d{1,3})\b"),
    re.compile(r"\brow\s+(\d{1,3})\s*,?\s*(?:and\s+)?(?:column|col)\s+(\d{1,3})\b", re.IGNORECASE),
)
_UNIT = re.compile(r"\b(row|column|col|box|block)\s+(\d{1,3})\b", re.IGNORECASE)


def vote_indexing(text: str, H: int, W: int) -> tuple[str | None, dict]:
    """The deterministic indexing vote (§5 stage 2): ``"0-based"``, ``"1-based"`` or None.

    Evidence for 0-based: "row 0", "column 0", a coordinate with a 0. Evidence for 1-based: an
    index equal to H (rows) or W (columns). A vote is decisive when only one side has evidence.
    """
    zero = one = 0
    for pat in _COORD_PATTERNS:
        for m in pat.finditer(text):
            r, c = int(m.group(1)), int(m.group(2))
            zero += (r == 0) + (c == 0)
            one += (r == H) + (c == W)
    for m in _UNIT.finditer(text):
        unit, k = m.group(1).lower(), int(m.group(2))
        zero += k == 0
        one += (unit == "row" and k == H) or (unit in ("column", "col") and k == W)
    votes = {"zero": zero, "one": one}
    if zero and not one:
        return "0-based", votes
    if one and not zero:
        return "1-based", votes
    return None, votes


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
    """Pack whole sentences into chunks of about ``max_tokens`` tokens (§5 stage 3).

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
                            r"does not work|fails)\b")
# leading "since P, C" / inline "C because P" / "P, so C"
_LEAD_PREMISE = re.compile(r"^\s*(?:since|because|as|given that|given)\b")
_BACK_PREMISE = re.compile(r"\b(?:because|since|given that|due to|as)\b")
_FORWARD = re.compile(r"\b(?:therefore|thus|hence|so|which means|this means|that means|it follows that|"
                      r"then|forcing|so that|consequently)\b")

_LIST = r"@\d+@(?:\s*(?:,\s*and|,|and)\s*@\d+@){0,40}"
_LIST_OR = r"@\d+@(?:\s*(?:,\s*or|,|or|and)\s*@\d+@){0,40}"
#: longest sentence prefix the regex reader looks at (real sentences are far shorter)
MAX_SENTENCE_CHARS = 2000
#: most premises the marker linker attaches to one conclusion
MAX_PREMISES = 12
_DIGITS = r"\d{1,2}(?:\s*(?:,\s*(?:or|and)|,|or|and|nor|/)\s*\d{1,2})*"
_LINE = r"(row|column|col)\s+(\d{1,3})"
_UNITX = r"(row|column|col|box|block)\s+(\d{1,3})"
# a subject list ("(1, 1) and (1, 3) cannot ...") never starts right after a preposition: in
# "the tent at (1, 0), (1, 1) cannot be a tent" the first cell belongs to "tent at"
_SUBJ = r"(?<!\bat )(?<!\bin )(?<!\bon )(?<!\bof )(?<!\bto )"
_NEG = r"(?:cannot|can't|can\s+not|must\s+not|mustn't|is\s+not|isn't|are\s+not|aren't|can\s+never|could\s+not|couldn't)"


@dataclass
class _Found:
    kind: str
    payload: dict
    pos: int
    tentative_ok: bool = True


@dataclass
class _Norm:
    """A sentence with coordinates replaced by ``@k@`` tokens, lower-cased."""

    text: str
    coords: list  # k -> (r, c) as written


def _normalise(text: str) -> _Norm:
    coords: list = []

    def sub(m):
        coords.append((int(m.group(1)), int(m.group(2))))
        return f" @{len(coords) - 1}@ "

    s = text.lower()
    for pat in _COORD_PATTERNS:
        s = pat.sub(sub, s)
    # keep coordinate numbering in reading order (patterns ran one after another)
    order = sorted(range(len(coords)), key=lambda k: s.find(f"@{k}@"))
    remap = {old: new for new, old in enumerate(order)}
    s = re.sub(r"@(\d+)@", lambda m: f"@{remap[int(m.group(1))]}@", s)
    s = re.sub(r"\s+", " ", s).strip()
    return _Norm(s, [coords[k] for k in order])


def _tokens(group: str) -> list[int]:
    return [int(k) for k in re.findall(r"@(\d+)@", group)]


def _digits(group: str) -> list[int]:
    return [int(d) for d in re.findall(r"\d{1,2}", group)]


def _axis(word: str) -> str:
    return {"row": "ROW", "column": "COL", "col": "COL", "box": "BOX", "block": "BOX"}[word]


class _Reader:
    """Regex reader for one puzzle; ``read(norm)`` lists the claims of one sentence."""

    def __init__(self, pack: Pack, offset: int):
        self.pack = pack
        self.offset = offset

    def rc(self, norm: _Norm, k: int) -> dict:
        r, c = norm.coords[k]
        return {"r": r - self.offset, "c": c - self.offset}

    def idx(self, k: str) -> int:
        return int(k) - self.offset

    def read(self, norm: _Norm) -> list[_Found]:  # pragma: no cover - overridden
        raise NotImplementedError


class TentsReader(_Reader):
    """Tents: Tree, Quota, Tent, NotTent, Remaining, TreeCandidate (pack ``tents``)."""

    NOT_TENT = (
        re.compile(rf"\bno\s+tents?\s+(?:(?:can|could|may|will)\s+(?:go|be)\s+)?(?:at|in|on)\s+({_LIST_OR})"),
        re.compile(rf"{_SUBJ}({_LIST_OR})\s+{_NEG}\s+(?:be\s+|have\s+|hold\s+|contain\s+|get\s+)?(?:a\s+)?tents?\b"),
        re.compile(rf"{_SUBJ}({_LIST})\s+(?:is|are|must\s+be|becomes?|stays?|remains?)\s+(?:empty|grass|blank|unoccupied)\b"),
        re.compile(rf"\b(?:rule\s+out|eliminate|exclude|mark)\s+({_LIST})(?:\s+as\s+(?:grass|empty))?"),
        re.compile(rf"\btents?\s+(?:at|in|on)\s+({_LIST_OR})\s+(?:is|are|would\s+be)\s+(?:impossible|not\s+possible|"
                   rf"ruled\s+out|invalid|illegal|not\s+allowed)"),
    )
    TENT = (
        re.compile(rf"\b(?:place|put|add|places|puts)\s+(?:a\s+|the\s+|its\s+)?tents?\s+(?:at|in|on)\s+({_LIST})(?!\s*(?:,\s*)?or\b)"),
        re.compile(rf"(?<!no\s)\btents?\s+(?:must\s+be\s+|must\s+go\s+|goes\s+|is\s+|are\s+|will\s+be\s+|has\s+to\s+be\s+)?(?:at|in|on)\s+({_LIST})(?!\s*(?:,\s*)?or\b)"),
        re.compile(rf"{_SUBJ}({_LIST})\s+(?:is|are|must\s+be|has\s+to\s+be|should\s+be|will\s+be|becomes?|gets)\s+(?:a\s+|the\s+)?tents?\b"),
        re.compile(r"\bonly\s+(?:possible\s+)?(?:place|cell|spot|option|candidate|position|choice)\b[^.;]{0,120}?\bis\s+(@\d+@)"),
    )
    TREE = (
        re.compile(rf"(?<!no\s)(?<!adjacent\s)\btrees?\s+(?:is\s+|are\s+)?(?:at|in|on)\s+({_LIST})"),
        re.compile(rf"{_SUBJ}({_LIST})\s+(?:is|are)\s+(?:a\s+)?trees?\b"),
    )
    TREE_CAND = (
        re.compile(rf"\btree\s+(?:at\s+)?(@\d+@)\s+(?:needs|must\s+have|requires|has)\s+(?:its\s+|a\s+)?tent\s+(?:at|in|on)\s+({_LIST_OR})"),
        re.compile(rf"\bcandidates?\s+for\s+(?:the\s+)?tree\s+(?:at\s+)?(@\d+@)\s*(?:is|are|:)\s*({_LIST_OR})"),
    )
    QUOTA = (
        re.compile(rf"\b{_LINE}\s*(?:'s)?\s*(?:clue|count|quota|target|number)\s*(?:is|=|of|:)\s*(\d+)"),
        re.compile(rf"\b{_LINE}\s+(?:needs|requires|must\s+have|should\s+have|has\s+to\s+have|wants)\s+(?:exactly\s+)?(\d+)\s+tents?\b"),
        re.compile(rf"\b{_LINE}\s*:\s*(\d+)\s+tents?\b"),
        re.compile(rf"\b{_LINE}\s+has\s+(?:a\s+)?(?:clue|count)\s+(?:of\s+)?(\d+)"),
    )
    QUOTA_REV = re.compile(rf"\b(?:clue|count|quota)\s+(?:for|of)\s+{_LINE}\s*(?:is|=|:)\s*(\d+)")
    REMAINING = (
        re.compile(rf"\b{_LINE}\s+(?:now\s+|still\s+|then\s+)?(?:needs|requires|has)\s+(\d+)\s+more\b"),
        re.compile(rf"\b{_LINE}\s+(?:now\s+|still\s+|then\s+)?(?:needs|requires|has)\s+(\d+)\s+(?:tents?\s+)?(?:remaining|left)\b"),
    )
    LINE_FULL = (
        re.compile(rf"\b{_LINE}\s+(?:is\s+)?(?:now\s+)?(?:full|complete|satisfied|done)\b"),
        re.compile(rf"\b{_LINE}\s+(?:now\s+)?(?:needs|requires)\s+no\s+more\b"),
    )

    def read(self, norm: _Norm) -> list[_Found]:
        s = norm.text
        out: list[_Found] = []
        used: set = set()

        def cells(kind, pat):
            for m in pat.finditer(s):
                for k in _tokens(m.group(1)):
                    if k not in used:
                        used.add(k)
                        out.append(_Found(kind, self.rc(norm, k), m.start(1) + m.group(1).find(f"@{k}@")))

        for m in (mm for pat in self.TREE_CAND for mm in pat.finditer(s)):
            tree = _tokens(m.group(1))[0]
            cand = _tokens(m.group(2))
            if len(cand) > 1:
                t = self.rc(norm, tree)
                rs = [self.rc(norm, k)["r"] for k in cand]
                cs = [self.rc(norm, k)["c"] for k in cand]
                out.append(_Found("TreeCandidate", {"tree_r": t["r"], "tree_c": t["c"], "cell_r": rs, "cell_c": cs},
                                  m.start(), tentative_ok=False))
                used.update(cand)
        for pat in self.NOT_TENT:
            cells("NotTent", pat)
        for pat in self.TENT:
            cells("Tent", pat)
        for pat in self.TREE:
            cells("Tree", pat)
        taken: set = set()
        for pats, kind in ((self.REMAINING, "Remaining"), (self.QUOTA, "Quota")):
            for pat in pats:
                for m in pat.finditer(s):
                    if m.start() in taken:
                        continue
                    taken.add(m.start())
                    field_name = "remaining" if kind == "Remaining" else "tents"
                    out.append(_Found(kind, {"axis": _axis(m.group(1)), "index": self.idx(m.group(2)),
                                             field_name: int(m.group(3))}, m.start(), tentative_ok=False))
        for m in self.QUOTA_REV.finditer(s):
            out.append(_Found("Quota", {"axis": _axis(m.group(1)), "index": self.idx(m.group(2)),
                                        "tents": int(m.group(3))}, m.start(), tentative_ok=False))
        for pat in self.LINE_FULL:
            for m in pat.finditer(s):
                out.append(_Found("Remaining", {"axis": _axis(m.group(1)), "index": self.idx(m.group(2)),
                                                "remaining": 0}, m.start(), tentative_ok=False))
        return out


class SoloReader(_Reader):
    """Sudoku: Assign, Given, Cand IN/OUT, UnitMissing, UnitHas, UnitPlaces (pack ``solo``)."""

    CAND_OUT = (
        re.compile(rf"(@\d+@)\s+{_NEG}\s+(?:be\s+|contain\s+|hold\s+)?(?:a\s+)?({_DIGITS})\b"),
        re.compile(r"\b(\d{1,2})\s+(?:cannot|can't|can\s+not|is\s+not\s+possible|must\s+not)\s+(?:go\s+|be\s+)?(?:placed\s+)?(?:in|at|into)\s+(@\d+@)"),
        re.compile(r"\b(?:eliminate|remove|rule\s+out|exclude)\s+(?:the\s+)?(?:digit\s+)?(\d{1,2})\s+from\s+(@\d+@)"),
    )
    CAND_IN = re.compile(rf"(@\d+@)\s+(?:can\s+only\s+be|must\s+be\s+either|is\s+either|must\s+be\s+one\s+of|"
                         rf"has\s+(?:only\s+)?(?:the\s+)?candidates|candidates\s*(?:are|:))\s*[{{\[(]?\s*({_DIGITS})")
    GIVEN = (
        re.compile(r"(@\d+@)\s+(?:is\s+)?(?:a\s+)?given\s+(?:as\s+|=\s*|digit\s+)?(\d{1,2})\b"),
        re.compile(r"\bgiven\s+(?:digit\s+)?(\d{1,2})\s+(?:at|in)\s+(@\d+@)"),
    )
    ASSIGN = (
        re.compile(r"(@\d+@)\s*(?:=|:|is|must\s+be|has\s+to\s+be|becomes|gets|will\s+be|should\s+be|is\s+therefore|"
                   r"is\s+then|is\s+forced\s+to\s+be)\s+(?:a\s+)?(\d{1,2})\b(?!\s*(?:,\s*\d|or\b|and\s+\d|/))"),
        re.compile(r"\b(?:place|put|write|fill\s+in|enter|placing|putting|writing)\s+(?:a\s+|the\s+)?(?:digit\s+)?(\d{1,2})\s+(?:at|in|into)\s+(@\d+@)"),
        re.compile(r"\b(\d{1,2})\s+(?:goes|must\s+go|has\s+to\s+go|belongs)\s+(?:in|at|into)\s+(@\d+@)"),
    )
    MISSING = re.compile(rf"\b{_UNITX}\s+(?:is\s+)?(?:still\s+)?(?:missing|needs|lacks)\s+(?:only\s+)?(?:the\s+)?"
                         rf"(?:digits?\s+|numbers?\s+)?({_DIGITS})\b")
    HAS = re.compile(rf"\b{_UNITX}\s+(?:already\s+)?(?:has|contains|includes)\s+(?:a\s+|the\s+)?(?:digits?\s+|numbers?\s+)?"
                     rf"({_DIGITS})\b(?!\s*(?:more|empty|cells|blank))")
    PLACES = re.compile(rf"\bin\s+{_UNITX},?\s+(?:the\s+)?(?:digit\s+)?(\d{{1,2}})\s+(?:can\s+only\s+go|must\s+go|"
                        rf"can\s+only\s+be\s+placed|fits\s+only|is\s+only\s+possible)\s+(?:in|at)\s+({_LIST_OR})")

    def read(self, norm: _Norm) -> list[_Found]:
        s = norm.text
        out: list[_Found] = []
        used: set = set()
        for pat in self.CAND_OUT:
            for m in pat.finditer(s):
                k_group, d_group = (1, 2) if m.group(1).startswith("@") else (2, 1)
                k = _tokens(m.group(k_group))[0]
                used.add(k)
                for d in _digits(m.group(d_group)):
                    out.append(_Found("Cand", {**self.rc(norm, k), "d": [d], "polarity": "OUT"}, m.start()))
        for m in self.CAND_IN.finditer(s):
            k = _tokens(m.group(1))[0]
            ds = _digits(m.group(2))
            if k not in used and len(ds) > 1:
                used.add(k)
                out.append(_Found("Cand", {**self.rc(norm, k), "d": ds, "polarity": "IN"}, m.start()))
        for kind, pats in (("Given", self.GIVEN), ("Assign", self.ASSIGN)):
            for pat in pats:
                for m in pat.finditer(s):
                    k_group, d_group = (1, 2) if m.group(1).startswith("@") else (2, 1)
                    k = _tokens(m.group(k_group))[0]
                    if k in used:
                        continue
                    used.add(k)
                    out.append(_Found(kind, {**self.rc(norm, k), "d": int(m.group(d_group))}, m.start()))
        for m in self.MISSING.finditer(s):
            out.append(_Found("UnitMissing", {"unit": _axis(m.group(1)), "index": self.idx(m.group(2)),
                                              "d": _digits(m.group(3))}, m.start(), tentative_ok=False))
        for m in self.HAS.finditer(s):
            for d in _digits(m.group(3)):
                out.append(_Found("UnitHas", {"unit": _axis(m.group(1)), "index": self.idx(m.group(2)), "digit": d},
                                  m.start(), tentative_ok=False))
        for m in self.PLACES.finditer(s):
            ks = _tokens(m.group(4))
            out.append(_Found("UnitPlaces", {"unit": _axis(m.group(1)), "index": self.idx(m.group(2)),
                                             "digit": int(m.group(3)),
                                             "cell_r": [self.rc(norm, k)["r"] for k in ks],
                                             "cell_c": [self.rc(norm, k)["c"] for k in ks]}, m.start(),
                              tentative_ok=False))
        return out


class CellsReader(_Reader):
    """Generic cell-value puzzles: ``Cell`` and ``NotCell`` with integer values (pack ``cells``)."""

    NOT = re.compile(rf"(@\d+@)\s+{_NEG}\s+(?:be\s+)?(?:a\s+)?({_DIGITS})\b")
    IS = re.compile(r"(@\d+@)\s*(?:=|is|must\s+be|has\s+to\s+be|becomes|will\s+be)\s+(?:a\s+)?(\d{1,2})\b"
                    r"(?!\s*(?:,\s*\d|or\b|/))")

    def read(self, norm: _Norm) -> list[_Found]:
        out: list[_Found] = []
        used: set = set()
        for m in self.NOT.finditer(norm.text):
            k = _tokens(m.group(1))[0]
            used.add(k)
            for v in _digits(m.group(2)):
                out.append(_Found("NotCell", {**self.rc(norm, k), "v": v}, m.start()))
        for m in self.IS.finditer(norm.text):
            k = _tokens(m.group(1))[0]
            if k not in used:
                out.append(_Found("Cell", {**self.rc(norm, k), "v": int(m.group(2))}, m.start()))
        return out


READERS = {"tents": TentsReader, "solo": SoloReader, "cells": CellsReader}


def extract_claims(sentences: list[Sentence], pack: Pack, offset: int = 0) -> list[dict]:
    """Stage 4a: candidate occurrences ``{kind, payload, status, scope, source_sents, pos, cid, premises}``.

    ``offset`` is 1 for a 1-based trace (subtracted from every coordinate and line index).
    Scopes: a hypothesis marker opens ``BRANCH#k`` and its first solution-kind claim is the
    tentative assumption; a contradiction marker adds ``Contradiction{branch: k}`` and returns to
    MAIN (claims after "so/therefore" in that sentence are MAIN again); a blank line or a new
    hypothesis also ends the branch.

    ``premises`` lists the candidate ids (``cid``) that the sentence's marker words present as
    support (:func:`_premise_groups`); ``pos`` orders claims within a sentence, premises first, so
    that inference edges always point forward in trace order.
    """
    reader = READERS[pack.puzzle](pack, offset)
    out: list[dict] = []
    branch = 0
    scope = MAIN
    paragraph = None
    prev_cids: list[int] = []
    for sent in sentences:
        if scope != MAIN and sent.paragraph != paragraph:
            scope = MAIN
        paragraph = sent.paragraph
        # regex reading is quadratic in the worst case within one sentence: a hostile
        # megabyte-long "sentence" is read only up to MAX_SENTENCE_CHARS
        norm = _normalise(sent.text[:MAX_SENTENCE_CHARS])
        found = sorted(reader.read(norm), key=lambda f: f.pos)
        hyp = _HYPOTHESIS.search(norm.text)
        if norm.text.endswith("?") and not hyp:
            found = []  # a question asserts nothing ("So r4c8 = 1?")
        con = _CONTRADICTION.search(norm.text) if scope != MAIN or hyp else None
        assumption_pos = None
        if hyp and (con is None or hyp.start() < con.start()):
            branch += 1
            scope = f"BRANCH#{branch}"
            first = next((f for f in found if f.pos > hyp.start() and f.kind in pack.solution_kinds), None)
            assumption_pos = first.pos if first else None
        back_to_main = None
        if con is not None and scope != MAIN:
            fwd = _FORWARD.search(norm.text, con.end())
            back_to_main = fwd.start() if fwd else len(norm.text) + 1
        here = []
        for f in found:
            f_scope = scope
            if back_to_main is not None and f.pos > back_to_main:
                f_scope = MAIN
            status = "tentative" if f.pos == assumption_pos else "stated"
            here.append({"kind": f.kind, "payload": f.payload, "status": status, "scope": f_scope,
                         "source_sents": [sent.index], "pos": f.pos, "cid": len(out) + len(here), "premises": []})
        if con is not None and scope != MAIN:
            k = branch_number(scope)
            here.append({"kind": "Contradiction", "payload": {"branch": k, "note": sent.text[:120]},
                         "status": "stated", "scope": scope, "source_sents": [sent.index], "pos": con.start(),
                         "cid": len(out) + len(here), "premises": []})
            scope = MAIN
        here.sort(key=lambda o: o["pos"])
        _attach_premises(norm.text, here, prev_cids, pack)
        out.extend(here)
        prev_cids = [o["cid"] for o in here]
    out.sort(key=lambda o: (o["source_sents"][0], o["pos"]))
    return out


def _attach_premises(text: str, here: list[dict], prev_cids: list[int], pack: Pack) -> None:
    """Fill ``premises`` of one sentence's candidates from its marker words (see _premise_groups).

    A clue named inside the conclusion clause ("so the tree at X has its tent at Y") also
    supports what follows it there; "Therefore C" with no premise in its own sentence uses the
    previous sentence. Premises that the text names after their conclusion ("C because P") are
    moved before it in the within-sentence order.
    """
    positions = [o["pos"] for o in here]
    for prem, concl in _premise_groups(text, positions):
        for n, j in enumerate(concl):
            clues = [here[q]["cid"] for q in concl[:n] if here[q]["kind"] in pack.clue_kinds]
            # a rule cites a handful of premises: keep the nearest MAX_PREMISES, which also keeps
            # a hostile sentence listing hundreds of cells from producing a quadratic edge set
            here[j]["premises"] = ([here[p]["cid"] for p in prem] + clues)[-MAX_PREMISES:]
        if prem and concl and min(prem) > max(concl):
            for p in prem:
                here[p]["pos"] -= 10**6
    if re.match(r"^\s*(?:therefore|thus|hence|so|consequently)\b", text):
        for o in here:
            if not o["premises"]:
                o["premises"] = list(prev_cids[-MAX_PREMISES:])
    here.sort(key=lambda o: o["pos"])


def final_answer_claims(task: Any, instance: Any, answer_text: str, pack: Pack) -> list[dict]:
    """Solution claims of the final answer grid, when it parses (§1: a raw grid counts only as the
    final solution). Tents: a Tent per ``A``; Solo: an Assign per cell; cells: a Cell per cell."""
    if task is None or not answer_text:
        return []
    try:
        grid = task.parse(answer_text)
    except Exception:  # noqa: BLE001 - any parse failure just means no final-answer claims
        return []
    if not isinstance(grid, list):
        return []
    bounds = bounds_of(instance)
    if bounds is not None and (len(grid) != bounds.H or any(not isinstance(row, list) or len(row) != bounds.W
                                                            for row in grid)):
        return []  # a grid of the wrong shape is no statement of this puzzle's solution
    out = []
    for r, row in enumerate(grid):
        if not isinstance(row, list):
            return []
        for c, v in enumerate(row):
            if pack.puzzle == "tents":
                if str(v).upper() == "A":
                    out.append(("Tent", {"r": r, "c": c}))
            elif pack.puzzle == "solo":
                out.append(("Assign", {"r": r, "c": c, "d": v}))
            else:
                out.append(("Cell", {"r": r, "c": c, "v": v}))
    return out


# ---------------------------------------------------------------------------------------------
# stage 7: finalise
# ---------------------------------------------------------------------------------------------
def finalise(candidates: list[dict], pack: Pack, bounds: Bounds | None, n_sentences: int,
             counters: dict | None = None, stage: str = "finalise") -> list[dict]:
    """Validate against the schema, drop invalid items (counted), dedupe, order by trace (§5 stage 7).

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
def _negates(a: tuple, b: tuple) -> bool:
    """Whether claim ``b`` is the negation of the branch assumption ``a`` (same cell)."""
    ka, pa = a[0], json.loads(a[1])
    kb, pb = b[0], json.loads(b[1])
    same_cell = pa.get("r") == pb.get("r") and pa.get("c") == pb.get("c")
    if not same_cell:
        return False
    pairs = {("Tent", "NotTent"), ("NotTent", "Tent"), ("Cell", "NotCell"), ("NotCell", "Cell")}
    if (ka, kb) in pairs:
        return pa.get("v") == pb.get("v")
    if ka == "Assign" and kb == "Cand":
        return pb.get("polarity") == "OUT" and pa.get("d") in pb.get("d", [])
    return False


def choose_rule(pack: Pack, output: tuple, inputs: list[tuple]) -> str | None:
    """The rule id explaining ``output`` from premises of the given kinds (§6 tie-breakers).

    Deterministic stand-in for the rule model: it picks the pack's rule for the output kind,
    using the NotTent tie-breaks for Tents and the premise kinds for Sudoku.
    """
    kind = output[0]
    kinds = {c[0] for c in inputs}
    if kind == "Contradiction":
        return CONTRADICTION_CAUSE
    if pack.puzzle == "tents":
        if kind == "NotTent":
            zero_line = any(c[0] in ("Quota", "Remaining") and json.loads(c[1]).get(
                "tents" if c[0] == "Quota" else "remaining") == 0 for c in inputs)
            if zero_line:
                return "R_LINE_BLOCK"
            if "Tent" in kinds:
                return "R_NO_TOUCH"
            if "Tree" in kinds or not inputs:
                return "R_CELL_NEEDS_TREE"
            return "R_CELL_NEEDS_TREE"
        if kind in ("Tent", "TreeCandidate"):
            return "R_LINE_CAND" if kinds <= {"Quota", "Remaining", "LineCandidates"} and kind == "Tent" else "R_ONLY_CAND"
        if kind == "LineCandidates":
            return "R_LINE_CAND"
        if kind == "Remaining":
            return "R_COUNT_REMAINING"
        return None
    if pack.puzzle == "solo":
        if kind == "Assign":
            if "Cand" in kinds or not kinds & {"UnitMissing", "UnitHas"}:
                return "R_ONLY_REMAINING_IN_CELL"
            return "R_ONLY_MISSING_DIGIT_IN_UNIT"
        if kind == "Cand" and json.loads(output[1]).get("polarity") == "OUT":
            return "R_ELIM_BY_UNIT_PRESENCE" if kinds & {"UnitHas", "Assign", "Given"} else "R_ELIM_BY_CONSTRAINT"
        return None
    if kind == "Cell":
        return "R_FORCED"
    if kind == "NotCell" or (kind == "Cand" and json.loads(output[1]).get("polarity") == "OUT"):
        return "R_ELIM_BY_RULE"
    if kind == "Remaining":
        return "R_COUNT"
    return None


def _premise_groups(text: str, positions: list[int]) -> list[tuple[list[int], list[int]]]:
    """(premise indices, conclusion indices) pairs of one sentence from its marker words.

    ``positions`` are the claim positions in the normalised sentence.

    - "Since P, C" and "X, and since P, C": everything before the comma closing the premise
      clause supports C;
    - "P, so C1, hence C2": each conclusion segment uses everything before it;
    - "C because P": P supports C.

    Returns [] when the sentence has no marker.
    """
    lead = _LEAD_PREMISE.match(text)
    back = None if lead else _BACK_PREMISE.search(text)
    marker = lead or back
    if marker is not None:
        comma = re.search(r",|\bthen\b", text[marker.end():])
        if comma is not None and any(p >= marker.end() + comma.end() for p in positions):
            cut = marker.end() + comma.start()
            prem = [i for i, p in enumerate(positions) if p < cut]
            concl = [i for i, p in enumerate(positions) if p >= cut]
            return [(prem, concl)] if prem and concl else []
        if back is not None:
            concl = [i for i, p in enumerate(positions) if p < back.start()]
            prem = [i for i, p in enumerate(positions) if p >= back.start()]
            return [(prem, concl)] if prem and concl else []
        return []
    groups = []
    cuts = [m.start() for m in _FORWARD.finditer(text)]
    for j, cut in enumerate(cuts):
        nxt = cuts[j + 1] if j + 1 < len(cuts) else len(text) + 1
        prem = [i for i, p in enumerate(positions) if p < cut]
        concl = [i for i, p in enumerate(positions) if cut <= p < nxt]
        if concl:
            groups.append((prem, concl))
    return groups


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
            if b in refuted and _negates(claims[a]["claim"], key):
                return {"rule": DISCHARGE, "inputs": [a, refuted[b]]}
            if b not in refuted and claims[a]["claim"] == key:
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
    """G_raw from the finalised occurrences and their rule applications (§1, §5 stage 10).

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
    for n, (c, app) in enumerate(zip(claims, apps)):
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

    The trace S is the thinking plus the final answer text (§1); a separate ``reasoning`` field
    wins over ``<think>`` tags. Multi-turn records join their step actions.
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
        start = text.rfind("[[")
        starts = [s.start for s in sentences]
        at = sentences[max(0, bisect.bisect_right(starts, start) - 1)].index if start >= 0 else sentences[-1].index
        for j, (kind, payload) in enumerate(final):
            cands.append({"kind": kind, "payload": payload, "status": "stated", "scope": MAIN,
                          "source_sents": [at], "pos": 10**6 + j})
    claims = finalise(cands, pack, bounds, len(sentences), counters)
    apps = link_rules(claims, pack, counters)
    return {"sentences": sentences, "indexing": indexing, "index_votes": votes, "claims": claims,
            "apps": apps, "counters": counters}


def _task_for(record: dict):
    env_id = record.get("env_id")
    if not env_id:
        return None
    try:
        from ..core.registry import get_task

        return get_task(env_id)
    except Exception:  # noqa: BLE001 - unknown env id or a family not installed: no final-answer parsing
        return None


def analyse_trace(record: dict, backend: Any = None, *, pack: Pack | None = None, task: Any = None,
                  solution_claims: list | None = None, profile: str = "default", llm_options: dict | None = None,
                  force: bool = False) -> dict:
    """The full pipeline on one trace record; returns the ``kumo_gym.reasoning_graph/v1`` dict.

    ``backend=None`` runs the deterministic mode (no model). With a ChatBackend the LLM stages of
    :mod:`kumo_gym.analysis.llm` run too. ``solution_claims`` (content keys) default to C* of the
    instance (:func:`kumo_gym.analysis.verify.solution_claims`).
    """
    from ..core.instance import Instance
    from .graph import reasoning_metrics
    from .verify import label_graph
    from .verify import solution_claims as cstar_of

    env_id = record.get("env_id") or record.get("family") or ""
    pack = pack or pack_for(env_id)
    task = task if task is not None else _task_for(record)
    inst = record.get("instance")
    instance = Instance.from_dict(inst) if isinstance(inst, dict) else inst
    bounds = bounds_of(instance)
    text, answer = trace_text(record)
    provenance: dict[str, Any] = {"pipeline": PIPELINE_VERSION, "mode": "llm" if backend is not None else "deterministic",
                                  "profile": profile}
    if backend is None:
        art = extract_deterministic(text, answer, pack, bounds, task, instance)
    else:
        from .llm import extract_with_model

        art = extract_with_model(text, answer, pack, bounds, backend, task=task, instance=instance,
                                 **(llm_options or {}))
        provenance.update(art.get("provenance", {}))
    graph, info = build_graph(art["claims"], art["apps"], pack)
    verdict = record.get("verdict") or {}
    solved = verdict.get("solved", verdict.get("status") == "solved") if verdict else None
    if instance is not None:
        label_graph(graph, instance, pack, profile=profile)
    cstar = solution_claims if solution_claims is not None else (cstar_of(instance, pack) if instance is not None else [])
    metrics = reasoning_metrics(graph, cstar, merge_static=True, solved=solved, force=force)
    metrics["dropped_edges"] = info["dropped_edges"] + metrics["dropped_edges"]
    metrics["n_missing"] = info["n_missing"]
    labels = {v: graph.nodes[v].get("label") for v in graph}
    return {
        "schema": PIPELINE_VERSION,
        "trace_id": record.get("trace_id") or record.get("id"),
        "puzzle": pack.puzzle,
        "env_id": record.get("env_id"),
        "instance_id": record.get("instance_id") or (instance.instance_id if instance is not None else None),
        "difficulty": record.get("difficulty") or (getattr(instance, "params", None) or {}).get("difficulty"),
        "size": f"{bounds.H}x{bounds.W}" if bounds else None,
        "model": record.get("model"),
        "solved": solved,
        "tokens": _tokens_of(record, text),
        "indexing": art["indexing"],
        "sentences": [{"index": s.index, "text": s.text} for s in art["sentences"]],
        "claims": [{"id": c["id"], "kind": c["claim"][0], "payload": json.loads(c["claim"][1]),
                    "status": a["status"], "scope": c["scope"], "source_sents": c["source_sents"],
                    "label": labels.get(c["id"]), "static": graph.nodes[c["id"]]["static"]}
                   for c, a in zip(art["claims"], art["apps"])],
        "edges": [{"src": u, "dst": v, "type": d.get("type"), "rule": d.get("rule")} for u, v, d in graph.edges(data=True)],
        "missing": [{"id": v, "feeds": list(graph.successors(v))} for v in graph
                    if graph.nodes[v].get("kind") == "Missing"],
        "solution_claims": [list(k) for k in cstar],
        "metrics": metrics,
        "counters": art["counters"],
        "provenance": provenance,
    }


def _tokens_of(record: dict, text: str) -> int:
    for key in ("completion_tokens", "tokens", "n_tokens"):
        v = record.get(key)
        if isinstance(v, int):
            return v
        if isinstance(v, dict) and isinstance(v.get("completion"), int):
            return v["completion"]
    return approx_tokens(text)


def graph_from_json(doc: dict) -> nx.DiGraph:
    """G_raw back from a ``kumo_gym.reasoning_graph/v1`` dict (round-trip of :func:`analyse_trace`)."""
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
