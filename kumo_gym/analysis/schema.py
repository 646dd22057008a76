"""Claim and rule schemas per puzzle: the "packs" of reasoning_graphs.md §6 (paper App. D.4).

A :class:`Pack` lists a puzzle's claim kinds with typed fields, which kinds are solution, clue
or state-dependent claims (grid_puzzles.md §7), which rule may output which kinds, and the
notes the LLM prompts show. :func:`validate_claim` turns any untrusted claim object (from the
deterministic extractor or a model) into a canonical content key or a reason for rejecting it;
:func:`validate_rule_app` checks a rule application (§5 "Stage 8 validation").

The Tents and Solo packs are exact; ``cells`` is the generic pack for every other grid puzzle
whose solution is a value per cell (``Cell``/``NotCell`` plus candidates and counts).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .graph import content_key

MAIN = "MAIN"
STATUSES = ("stated", "derived", "tentative")
MISSING = "C_MISSING"
DISCHARGE = "R_TENTATIVE_DISCHARGE"
CONTRADICTION_CAUSE = "R_CONTRADICTION_CAUSE"

# field types: r/c are grid coordinates, index depends on the axis/unit field of the same claim
_FIELD_TYPES = ("r", "c", "index", "count", "digit", "value", "axis", "unit", "polarity", "rs", "cs",
                "digits", "values", "branch", "note")


@dataclass(frozen=True)
class Pack:
    """The claim/rule schema of one puzzle (§6)."""

    puzzle: str
    kinds: dict  # kind -> {field: type}
    solution_kinds: frozenset
    clue_kinds: frozenset
    rules: dict  # rule id -> frozenset of output kinds
    aliases: dict = field(default_factory=dict)
    claim_notes: str = ""
    rule_notes: str = ""

    @property
    def static_kinds(self) -> frozenset:
        """Kinds checkable against the instance or its solution (merged in the metric graph G)."""
        return self.solution_kinds | self.clue_kinds

    def rule_id(self, rule: str) -> str | None:
        rule = self.aliases.get(rule, rule)
        return rule if rule in self.rules else None

    def describe_claims(self) -> str:
        lines = [f"- {k}: {{{', '.join(f'{f}: {t}' for f, t in fs.items())}}}" for k, fs in self.kinds.items()]
        return "\n".join(lines) + ("\n" + self.claim_notes if self.claim_notes else "")

    def describe_rules(self) -> str:
        lines = [f"- {r}: outputs {' or '.join(sorted(k))}" for r, k in self.rules.items()]
        return "\n".join(lines) + ("\n" + self.rule_notes if self.rule_notes else "")


TENTS = Pack(
    puzzle="tents",
    kinds={
        "Tree": {"r": "r", "c": "c"},
        "Quota": {"axis": "axis", "index": "index", "tents": "count"},
        "Tent": {"r": "r", "c": "c"},
        "NotTent": {"r": "r", "c": "c"},
        "Remaining": {"axis": "axis", "index": "index", "remaining": "count"},
        "TreeCandidate": {"tree_r": "r", "tree_c": "c", "cell_r": "rs", "cell_c": "cs"},
        "LineCandidates": {"axis": "axis", "index": "index", "cell_r": "rs", "cell_c": "cs"},
        "Contradiction": {"branch": "branch", "note": "note"},
    },
    solution_kinds=frozenset({"Tent", "NotTent"}),
    clue_kinds=frozenset({"Tree", "Quota"}),
    rules={
        "R_COUNT_REMAINING": frozenset({"Remaining"}),
        "R_LINE_BLOCK": frozenset({"NotTent"}),
        "R_NO_TOUCH": frozenset({"NotTent"}),
        "R_CELL_NEEDS_TREE": frozenset({"NotTent"}),
        "R_ONLY_CAND": frozenset({"TreeCandidate", "Tent"}),
        "R_LINE_CAND": frozenset({"LineCandidates", "Tent"}),
        CONTRADICTION_CAUSE: frozenset({"Contradiction"}),
        DISCHARGE: frozenset({"Tent", "NotTent"}),
    },
    aliases={"R_CONTRADICTION_DISCHARGE": DISCHARGE},
    claim_notes=("Quota is the row/column clue; Remaining is how many tents a line still needs at "
                 "that point. TreeCandidate/LineCandidates list exactly the cells the text names "
                 "(cell_r[i], cell_c[i] is one cell). axis is ROW or COL."),
    rule_notes=("For NotTent prefer, in order: R_LINE_BLOCK (line full), R_NO_TOUCH (touches a "
                "tent), R_CELL_NEEDS_TREE (no adjacent tree), R_TENTATIVE_DISCHARGE (negates a "
                "branch assumption)."),
)

SOLO = Pack(
    puzzle="solo",
    kinds={
        "Assign": {"r": "r", "c": "c", "d": "digit"},
        "Given": {"r": "r", "c": "c", "d": "digit"},
        "Cand": {"r": "r", "c": "c", "d": "digits", "polarity": "polarity"},
        "UnitMissing": {"unit": "unit", "index": "index", "d": "digits"},
        "UnitPlaces": {"unit": "unit", "index": "index", "digit": "digit", "cell_r": "rs", "cell_c": "cs"},
        "UnitHas": {"unit": "unit", "index": "index", "digit": "digit"},
        "Contradiction": {"branch": "branch", "note": "note"},
    },
    solution_kinds=frozenset({"Assign"}),
    clue_kinds=frozenset({"Given", "UnitHas"}),
    rules={
        "R_UNIT_HAS_STATED": frozenset({"UnitHas"}),
        "R_UNIT_MISSING_STATED": frozenset({"UnitMissing"}),
        "R_ELIM_BY_UNIT_PRESENCE": frozenset({"Cand"}),
        "R_ELIM_BY_CONSTRAINT": frozenset({"Cand"}),
        "R_ONLY_REMAINING_IN_CELL": frozenset({"Assign"}),
        "R_ONLY_MISSING_DIGIT_IN_UNIT": frozenset({"Assign"}),
        "R_PATTERN_EXPERT": frozenset({"Cand", "Assign", "UnitPlaces"}),
        CONTRADICTION_CAUSE: frozenset({"Contradiction"}),
        DISCHARGE: frozenset({"Cand", "Assign"}),
    },
    aliases={"R_CONTRADICTION_DISCHARGE": DISCHARGE},
    claim_notes=("Assign states a digit in a cell; Cand OUT removes the listed digits from a cell "
                 "(one claim per eliminated digit), Cand IN lists a cell's only possible digits. "
                 "unit is ROW, COL or BOX; boxes are numbered row-major."),
    rule_notes="R_PATTERN_EXPERT only when the text names a technique (pair, wing, fish ...).",
)

CELLS = Pack(
    puzzle="cells",
    kinds={
        "Cell": {"r": "r", "c": "c", "v": "value"},
        "NotCell": {"r": "r", "c": "c", "v": "value"},
        "Given": {"r": "r", "c": "c", "v": "value"},
        "Cand": {"r": "r", "c": "c", "vals": "values", "polarity": "polarity"},
        "Remaining": {"axis": "axis", "index": "index", "remaining": "count"},
        "Contradiction": {"branch": "branch", "note": "note"},
    },
    solution_kinds=frozenset({"Cell", "NotCell"}),
    clue_kinds=frozenset({"Given"}),
    rules={
        "R_CLUE_STATED": frozenset({"Given"}),
        "R_ELIM_BY_RULE": frozenset({"NotCell", "Cand"}),
        "R_FORCED": frozenset({"Cell"}),
        "R_COUNT": frozenset({"Remaining"}),
        "R_CANDIDATES": frozenset({"Cand"}),
        CONTRADICTION_CAUSE: frozenset({"Contradiction"}),
        DISCHARGE: frozenset({"Cell", "NotCell", "Cand"}),
    },
    aliases={"R_CONTRADICTION_DISCHARGE": DISCHARGE},
    claim_notes="Cell states the value of a cell in the final grid; NotCell rules a value out.",
)

PACKS = {"tents": TENTS, "solo": SOLO, "cells": CELLS}


def pack_for(family_or_env: str) -> Pack:
    """The pack for a grid family name or env id (``Tents``, ``kumo_gym/Solo-v0`` ...)."""
    name = family_or_env.split("/")[-1].split("-v")[0].lower()
    return PACKS.get(name, CELLS)


@dataclass(frozen=True)
class Bounds:
    """Grid size used to range-check coordinates: H rows, W columns, n digit/box count."""

    H: int
    W: int
    n: int | None = None  # digits 1..n and boxes 0..n-1 (Solo)
    box_w: int | None = None
    box_h: int | None = None


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _check_field(name: str, typ: str, value: Any, bounds: Bounds | None, claim: dict):
    """The canonical value of one field, or raise ValueError naming the problem."""
    if typ in ("r", "c", "index", "count", "digit", "branch"):
        if isinstance(value, str) and value.strip().isdigit():
            value = int(value.strip())
        if not _is_int(value):
            raise ValueError(f"field {name!r} must be an integer, got {value!r}")
        if value < 0:
            raise ValueError(f"field {name!r} is negative: {value}")
        if bounds is not None:
            if typ == "r" and value >= bounds.H:
                raise ValueError(f"row {value} outside 0..{bounds.H - 1}")
            if typ == "c" and value >= bounds.W:
                raise ValueError(f"column {value} outside 0..{bounds.W - 1}")
            if typ == "digit" and bounds.n is not None and not 1 <= value <= bounds.n:
                raise ValueError(f"digit {value} outside 1..{bounds.n}")
            if typ == "index":
                axis = claim.get("axis", claim.get("unit"))
                limit = {"ROW": bounds.H, "COL": bounds.W, "BOX": bounds.n}.get(axis)
                if limit is not None and value >= limit:
                    raise ValueError(f"{axis} index {value} outside 0..{limit - 1}")
            if typ == "count" and value > max(bounds.H, bounds.W) * max(bounds.H, bounds.W):
                raise ValueError(f"count {value} is larger than the grid")
        return value
    if typ == "axis" or typ == "unit" or typ == "polarity":
        allowed = {"axis": ("ROW", "COL"), "unit": ("ROW", "COL", "BOX"), "polarity": ("IN", "OUT")}[typ]
        v = str(value).strip().upper() if isinstance(value, str) else value
        v = {"COLUMN": "COL", "ROWS": "ROW", "COLS": "COL"}.get(v, v)
        if v not in allowed:
            raise ValueError(f"field {name!r} is {value!r}, not one of {', '.join(allowed)}")
        return v
    if typ in ("digits", "values"):
        if not isinstance(value, list):
            value = [value]
        out = []
        for x in value:
            if typ == "digits":
                out.append(_check_field(name, "digit", x, bounds, claim))
            elif isinstance(x, (int, str)) and not isinstance(x, bool):
                out.append(x)
            else:
                raise ValueError(f"field {name!r} holds {x!r}")
        if not out:
            raise ValueError(f"field {name!r} is empty")
        return sorted(set(out), key=lambda x: (str(type(x)), x))
    if typ in ("rs", "cs"):
        if not isinstance(value, list) or not value:
            raise ValueError(f"field {name!r} must be a non-empty list")
        return [_check_field(name, "r" if typ == "rs" else "c", x, bounds, claim) for x in value]
    if typ == "value":
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            raise ValueError(f"field {name!r} must be an int or a symbol, got {value!r}")
        if isinstance(value, str) and value.strip().lstrip("-").isdigit():
            value = int(value.strip())
        return value
    if typ == "note":
        return "" if value is None else str(value)[:200]
    raise AssertionError(typ)  # pragma: no cover - the packs above use only known types


def validate_claim(pack: Pack, kind: Any, payload: Any, bounds: Bounds | None = None) -> tuple[str, str]:
    """The canonical content key of a claim, or raise ``ValueError`` saying why it is invalid.

    Checks the kind, the exact field set, types and grid ranges; sorts and deduplicates list
    fields; zips ``cell_r``/``cell_c`` into unique ``(r, c)`` pairs sorted by (r, c) (§1).
    Contradiction notes are dropped from the content key: two occurrences of "branch k failed"
    are the same claim whatever words explain them.
    """
    if not isinstance(kind, str) or kind not in pack.kinds:
        raise ValueError(f"kind {kind!r} is not one of: {', '.join(pack.kinds)}")
    if not isinstance(payload, dict):
        raise ValueError(f"payload of {kind} must be an object, got {type(payload).__name__}")  # noqa: TRY004
    fields = pack.kinds[kind]
    extra = set(payload) - set(fields)
    if kind == "Contradiction":
        extra.discard("note")
    missing = [f for f in fields if f not in payload and not (kind == "Contradiction" and f == "note")]
    if extra or missing:
        raise ValueError(f"{kind} needs fields {sorted(fields)}; missing {missing}, unexpected {sorted(extra)}")
    out = {}
    for name, typ in fields.items():
        if name == "note":
            continue
        out[name] = _check_field(name, typ, payload[name], bounds, payload)
    if "cell_r" in out:
        if len(out["cell_r"]) != len(out["cell_c"]):
            raise ValueError("cell_r and cell_c differ in length")
        pairs = sorted(set(zip(out["cell_r"], out["cell_c"])))
        out["cell_r"], out["cell_c"] = [p[0] for p in pairs], [p[1] for p in pairs]
    return content_key(kind, out)


def validate_occurrence(pack: Pack, obj: Any, bounds: Bounds | None, n_sentences: int,
                        sentence_range: tuple[int, int] | None = None) -> dict:
    """A claim occurrence ``{kind, payload, status, scope, source_sents}`` checked and normalised.

    Raises ``ValueError`` naming the problem (stage 7: types, ranges, tentative only in a
    BRANCH, source sentences inside the trace or the chunk).
    """
    if not isinstance(obj, dict):
        raise ValueError(f"a claim must be an object, got {type(obj).__name__}")  # noqa: TRY004
    key = validate_claim(pack, obj.get("kind"), obj.get("payload"), bounds)
    status = obj.get("status", "stated")
    if status not in STATUSES:
        raise ValueError(f"status {status!r} is not one of: {', '.join(STATUSES)}")
    scope = obj.get("scope", MAIN)
    if not isinstance(scope, str) or not (scope == MAIN or _branch_number(scope) is not None):
        raise ValueError(f"scope {scope!r} is neither MAIN nor BRANCH#k")
    if status == "tentative" and scope == MAIN:
        raise ValueError("a tentative claim must be in a BRANCH#k scope")
    sents = obj.get("source_sents")
    if not isinstance(sents, list) or not sents or not all(_is_int(s) for s in sents):
        raise ValueError(f"source_sents must be a non-empty list of sentence numbers, got {sents!r}")
    lo, hi = sentence_range or (1, n_sentences)
    if any(not lo <= s <= hi for s in sents):
        raise ValueError(f"source_sents {sents} outside sentences {lo}..{hi}")
    return {"claim": key, "status": status, "scope": scope, "source_sents": sorted(set(sents))}


def _branch_number(scope: str) -> int | None:
    if scope.startswith("BRANCH#") and scope[7:].isdigit():
        return int(scope[7:])
    return None


def branch_number(scope: str) -> int | None:
    """k for a ``BRANCH#k`` scope, None for MAIN or anything else."""
    return _branch_number(scope) if isinstance(scope, str) else None


def validate_rule_app(pack: Pack, app: Any, target: int, claims: list[dict], ids: dict | None = None) -> dict:
    """A rule application for claim number ``target`` (index into ``claims``), checked (§5 stage 8).

    In order: the rule id is allowed; the output kind is allowed for the rule; every input exists
    and precedes the output; all claims share one scope except for a discharge (BRANCH#k -> MAIN,
    with exactly one tentative assumption, plus that branch's Contradiction when the output
    differs from the assumption); ``C_MISSING`` only among the inputs. Returns
    ``{rule, inputs (indices or C_MISSING)}``; raises ``ValueError`` naming the violation.
    ``ids`` maps claim ids to indices (built from ``claims`` when not given).
    """
    if not isinstance(app, dict):
        raise ValueError(f"a rule application must be an object, got {type(app).__name__}")  # noqa: TRY004
    rule = pack.rule_id(app.get("rule")) if isinstance(app.get("rule"), str) else None
    if rule is None:
        raise ValueError(f"rule {app.get('rule')!r} is not one of: {', '.join(pack.rules)}")
    out = claims[target]
    kind = out["claim"][0]
    if kind not in pack.rules[rule]:
        raise ValueError(f"rule {rule} cannot output {kind} (allowed: {', '.join(sorted(pack.rules[rule]))})")
    if app.get("output") not in (None, target) and app.get("output") != out.get("id"):
        if app.get("output") == MISSING:
            raise ValueError("C_MISSING may only appear among the inputs")
        raise ValueError(f"output {app.get('output')!r} is not the target claim")
    inputs = app.get("inputs", [])
    if not isinstance(inputs, list):
        raise ValueError("inputs must be a list")  # noqa: TRY004
    if ids is None:  # callers validating many applications pass the id -> index map once
        ids = {c.get("id"): i for i, c in enumerate(claims) if c.get("id") is not None}
    resolved = []
    for x in inputs:
        if x == MISSING:
            resolved.append(MISSING)
            continue
        i = ids.get(x, x if _is_int(x) else None)
        if i is None or not 0 <= i < len(claims):
            raise ValueError(f"input {x!r} is not an extracted claim")
        if i >= target:
            raise ValueError(f"input {x!r} does not precede the output")
        resolved.append(i)
    real = [i for i in resolved if i != MISSING]
    if rule == DISCHARGE:
        if out["scope"] != MAIN:
            raise ValueError("a discharge must output a MAIN claim")
        assumptions = [i for i in real if claims[i]["status"] == "tentative"]
        if len(assumptions) != 1:
            raise ValueError("a discharge needs exactly one tentative assumption")
        k = branch_number(claims[assumptions[0]]["scope"])
        contradictions = [i for i in real if claims[i]["claim"][0] == "Contradiction"]
        if any(claims[i]["scope"] != claims[assumptions[0]]["scope"] for i in real):
            raise ValueError(f"discharge inputs must all come from BRANCH#{k}")
        negates = out["claim"] != claims[assumptions[0]]["claim"]
        if negates and len(contradictions) != 1:
            raise ValueError(f"negating the assumption of BRANCH#{k} needs that branch's Contradiction")
        if not negates and contradictions:
            raise ValueError("confirming an assumption must not cite a Contradiction")
    else:
        scopes = {claims[i]["scope"] for i in real} | {out["scope"]}
        if len(scopes) > 1:
            raise ValueError(f"rule {rule} mixes scopes {sorted(scopes)}")
    return {"rule": rule, "inputs": resolved}


def claim_json(key: tuple[str, str]) -> dict:
    """``{"kind", "payload"}`` of a content key (for prompts and graph JSON)."""
    return {"kind": key[0], "payload": json.loads(key[1])}
