"""Stage 4a readers: from one normalised sentence to claim candidates (docs/specs/reasoning_graphs.md §5).

A reader looks at a :class:`~kumo_gym.analysis.text.Norm` sentence (cells already replaced by
``@k@`` tokens) and returns :class:`Found` items: a claim kind, its payload (0-based), and its
character span in the sentence (the premise linker uses the spans to tell premise clauses from
conclusions).

Most packs need no code here: they list :class:`Phrase` patterns, and :class:`PhraseReader`
compiles them. A phrase is a regular expression over the normalised text with placeholders:

============== ===========================================================================
``{cells}``    one or more cell tokens joined by commas/"and" -> one claim per cell (r, c)
``{cells_or}`` the same, also joined by "or" (use it only where "or" does not mean a choice)
``{cell}``     exactly one cell token
``{n}``        an integer, stored in payload field ``n`` (``{n:FIELD}`` names the field)
``{each:F}``   a list of numbers ("1, 2 or 3") -> one claim per number, in field ``F``
``{list:F}``   a list of numbers -> one claim whose field ``F`` is the list
``{line}``     ``row 3`` / ``column 2`` -> fields ``axis`` (ROW/COL) and ``index`` (shifted)
``{side}``     top/bottom/left/right -> field ``side``
``{runs}``     "3 1", "3, 1", "3-1", "[3, 1]" or "nothing" -> field ``runs`` (ordered ints)
``{neg}``      the negations (cannot, can't, is not, must not, ...)
``{be}``       the copulas (is, are, must be, has to be, becomes, =, : ...)
``{subj}``     guard: a subject list does not start right after a preposition
============== ===========================================================================

Phrases are tried in order; within one sentence a cell token is used by the first phrase that
reads it (so list negative phrases before positive ones), and a line claim is read once per
position. ``fixed`` payload fields complete the claim (``Light`` has none, Light Up's
unnumbered ``Black`` has ``n: None``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .text import BE, LIST, LIST_OR, NEG, SUBJ, Norm, axis_of, ints, tokens


@dataclass
class Found:
    """One claim read in a sentence: kind, 0-based payload, span ``[pos, end)`` in the normalised text."""

    kind: str
    payload: dict
    pos: int
    tentative_ok: bool = True
    end: int | None = None
    start: int | None = None  # where the words stating it begin (a list's phrase starts before its cell)


class Reader:
    """Base reader: ``read(norm)`` lists the claims of one sentence. ``offset`` is 1 for 1-based traces."""

    def __init__(self, pack: Any, offset: int):
        self.pack = pack
        self.offset = offset

    def rc(self, norm: Norm, k: int) -> dict:
        r, c = norm.coords[k]
        return {"r": r - self.offset, "c": c - self.offset}

    def idx(self, k: str | int) -> int:
        return int(k) - self.offset

    def read(self, norm: Norm) -> list[Found]:  # pragma: no cover - overridden
        raise NotImplementedError


_RUNS = r"(?:\[\s*)?(?:\d{1,2}(?:\s*(?:,\s*|-|\s)\s*\d{1,2}){0,20}|nothing|none|empty|no\s+runs?)(?:\s*\])?"
_PLACEHOLDERS = {
    "{cells}": f"(?P<cells>{LIST})",
    "{cells_or}": f"(?P<cells>{LIST_OR})",
    "{cell}": r"(?P<cells>@\d+@)",
    "{line}": r"(?P<axis>row|column|col)\s+(?P<index>\d{1,3})",
    "{side}": r"(?P<side>top|bottom|left|right)",
    "{runs}": f"(?P<runs>{_RUNS})",
    "{neg}": NEG,
    "{be}": BE,
    "{subj}": SUBJ,
}
_NUM_FIELD = re.compile(r"\{n(?::(\w+))?\}")
_LIST_FIELD = re.compile(r"\{(each|list):(\w+)\}")
_NUMS = r"\d{1,2}(?:\s*(?:,\s*(?:or|and)|,|or|and|nor|/)\s*\d{1,2}){0,20}"


@dataclass(frozen=True)
class Phrase:
    """One pattern of a pack's reader (see the module docstring for the placeholders)."""

    kind: str
    pattern: str
    fixed: dict = field(default_factory=dict)
    tentative_ok: bool = True

    @classmethod
    def group(cls, kind: str, *patterns: str, **options: Any) -> tuple[Phrase, ...]:
        """Several patterns of one kind (and the same ``fixed`` / ``tentative_ok``), in order."""
        return tuple(cls(kind, pattern, **options) for pattern in patterns)

    def compile(self) -> re.Pattern:
        text = self.pattern
        for key, rx in _PLACEHOLDERS.items():
            text = text.replace(key, rx)
        text = _NUM_FIELD.sub(lambda m: rf"(?P<num_{m.group(1) or 'n'}>\d{{1,3}})", text)
        text = _LIST_FIELD.sub(lambda m: f"(?P<{m.group(1)}_{m.group(2)}>{_NUMS})", text)
        return re.compile(text)


def _runs(text: str) -> list[int]:
    return [] if re.search(r"nothing|none|empty|no\s+run", text) else ints(text)


class PhraseReader(Reader):
    """The generic reader of a pack's :class:`Phrase` list (compiled once per pack)."""

    _cache: ClassVar[dict] = {}

    def __init__(self, pack: Any, offset: int):
        super().__init__(pack, offset)
        key = (pack.puzzle, id(pack.phrases))
        if key not in self._cache:
            self._cache[key] = [(p, p.compile()) for p in pack.phrases]
        self.compiled = self._cache[key]

    def read(self, norm: Norm) -> list[Found]:
        s = norm.text
        out: list[Found] = []
        used: set = set()
        taken: set = set()
        for phrase, rx in self.compiled:
            for m in rx.finditer(s):
                groups = m.groupdict()
                base = dict(phrase.fixed)
                each: tuple = (None, [None])
                for name, value in groups.items():
                    if value is None:
                        continue
                    if name.startswith("num_"):
                        base[name[4:]] = int(value)
                    elif name.startswith("list_"):
                        base[name[5:]] = ints(value)
                    elif name.startswith("each_"):
                        each = (name[5:], ints(value))
                    elif name == "axis":
                        base["axis"] = axis_of(value)
                    elif name == "index":
                        base["index"] = self.idx(value)
                    elif name == "side":
                        base["side"] = value.upper()
                    elif name == "runs":
                        base["runs"] = _runs(value)
                field_name, values = each
                payloads = [dict(base, **({field_name: v} if field_name else {})) for v in values]
                if groups.get("cells") is None:
                    if (phrase.kind, m.start()) in taken:
                        continue
                    taken.add((phrase.kind, m.start()))
                    out.extend(Found(phrase.kind, p, m.start(), phrase.tentative_ok, m.end()) for p in payloads)
                    continue
                start = m.start("cells")
                # a cell read as a clue or a solution claim is not read again as another one
                # ("the given black at (2, 5)" is a clue, not also a Black claim); state claims
                # ("the 2 at (1, 1) needs one more") read their cell independently
                group = "cell" if phrase.kind in self.pack.static_kinds else phrase.kind
                for k in tokens(groups["cells"]):
                    if (group, k) in used:
                        continue
                    used.add((group, k))
                    pos = start + groups["cells"].find(f"@{k}@")
                    out.extend(Found(phrase.kind, {**p, **self.rc(norm, k)}, pos, phrase.tentative_ok, m.end(), m.start())
                               for p in payloads)
        return out
