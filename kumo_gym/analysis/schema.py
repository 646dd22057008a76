"""Claim and rule schemas per puzzle: the "packs" of docs/specs/reasoning_graphs.md §6 (paper App. D.4).

A :class:`Pack` lists a puzzle's claim kinds with typed fields, which kinds are solution, clue
or state-dependent claims (docs/specs/grid_puzzles.md §7), which rule may output which kinds, and the
notes the LLM prompts show. :func:`validate_claim` turns any untrusted claim object (from the
deterministic extractor or a model) into a canonical content key or a reason for rejecting it;
:func:`validate_rule_app` checks a rule application (docs/specs/reasoning_graphs.md §5 "Stage 8 validation").

The packs themselves live in :mod:`kumo_gym.analysis.packs`, one module per grid puzzle (the
Tents and Solo packs are exact; the others follow docs/specs/reasoning_graphs.md §6's generic rules).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .graph import content_key

MAIN = "MAIN"
STATUSES = ("stated", "derived", "tentative")
MISSING = "C_MISSING"
DISCHARGE = "R_TENTATIVE_DISCHARGE"
CONTRADICTION_CAUSE = "R_CONTRADICTION_CAUSE"
#: the claim every puzzle has: a branch (or the whole trace) reaches a contradiction
CONTRADICTION = {"Contradiction": {"branch": "branch", "note": "note"}}
#: rule ids models write that mean one of ours
ALIASES = {"R_CONTRADICTION_DISCHARGE": DISCHARGE}

# Field types of claim payloads (docs/analysis.md "Field types"):
#   r, c          grid row / column (0-based, range-checked against the instance)
#   index         a line or unit index; its range follows the claim's axis/unit/side field
#   count         a non-negative integer; optcount: the same or null (Light Up's unnumbered blacks)
#   digit/digits  1..n (Sudoku); value/values: an int or a symbol; sym: a symbol, upper-cased
#   axis ROW|COL; unit ROW|COL|BOX; side TOP|BOTTOM|LEFT|RIGHT; polarity IN|OUT; color BLACK|WHITE
#   rs, cs        zipped cell lists (cell_r[i], cell_c[i] is one cell; sorted, unique)
#   cell          one [r, c] pair; cells: a sorted list of unique [r, c] pairs
#   xcell         an [r, c] pair that may lie one step outside the grid (Tracks' border edges)
#   runs          an ordered list of non-negative ints (nonogram clues; order matters)
#   dirs          a subset of U, R, D, L written in URDL order ("" allowed)
#   bool          true/false; branch: a branch number; note: free text (not part of the content key)
_FIELD_TYPES = ("r", "c", "index", "count", "optcount", "digit", "value", "sym", "axis", "unit", "side", "polarity",
                "color", "rs", "cs", "cell", "xcell", "cells", "runs", "dirs", "bool", "digits", "values", "branch", "note")


@dataclass(frozen=True)
class Pack:
    """The claim/rule schema of one puzzle and everything the pipeline needs to know about it
    (docs/specs/reasoning_graphs.md §6).

    A pack is data plus a few hooks, so that a new grid puzzle adds one module under
    ``kumo_gym/analysis/packs/`` (docs/analysis.md, "Adding a pack for a new grid puzzle"):

    - schema: ``kinds`` (kind -> {field: field type}; every pack also gets ``Contradiction``), which kinds are solution / clue claims
      (docs/specs/grid_puzzles.md §7; everything else is state-dependent), ``rules`` (rule id -> the kinds
      it may output), notes for the LLM prompts;
    - reading: ``phrases`` for the generic :class:`~kumo_gym.analysis.reading.PhraseReader`
      (or override :meth:`reader`), ``opposites`` (kind -> the kind that negates it on the same
      cell, for branch discharges), ``negative_kinds`` (solution kinds that rule something out);
    - the instance side: ``family`` (``Instance.family``), ``cstar_symbols`` or ``value_claim``
      (which answer cells are C* claims, :meth:`grid_claims`), :meth:`clue_claims`;
    - templates and a deduction model (:meth:`variables`, :meth:`constraints` ...) for the
      synthetic traces of :mod:`kumo_gym.analysis.synth` (optional).
    """

    puzzle: str
    kinds: dict  # kind -> {field: type}
    solution_kinds: frozenset
    clue_kinds: frozenset
    rules: dict  # rule id -> frozenset of output kinds
    aliases: dict = field(default_factory=lambda: dict(ALIASES))
    claim_notes: str = ""
    rule_notes: str = ""
    family: str = ""
    opposites: dict = field(default_factory=dict)
    negative_kinds: frozenset = frozenset()
    count_kinds: frozenset = frozenset()
    phrases: tuple = ()
    templates: dict = field(default_factory=dict)
    cstar_symbols: dict = field(default_factory=dict)  # answer symbol -> C* kind with payload {r, c}
    value_claim: tuple = ()  # (kind, value field): every answer cell is a C* claim {r, c, field: value}
    answer_kinds: dict = field(default_factory=dict)  # answer symbol -> solution kind of that cell (templates)

    def __post_init__(self):
        # every puzzle has the Contradiction claim (last, after the pack's own kinds)
        object.__setattr__(self, "kinds", {**self.kinds, **CONTRADICTION})

    # ---- schema -----------------------------------------------------------------------------
    @property
    def static_kinds(self) -> frozenset:
        """Kinds checkable against the instance or its solution (merged in the metric graph G)."""
        return self.solution_kinds | self.clue_kinds

    @property
    def env_family(self) -> str:
        return self.family or self.puzzle

    def rule_id(self, rule: str) -> str | None:
        rule = self.aliases.get(rule, rule)
        return rule if rule in self.rules else None

    def describe_claims(self) -> str:
        lines = [f"- {k}: {{{', '.join(f'{f}: {t}' for f, t in fs.items())}}}" for k, fs in self.kinds.items()]
        return "\n".join(lines) + ("\n" + self.claim_notes if self.claim_notes else "")

    def describe_rules(self) -> str:
        lines = [f"- {r}: outputs {' or '.join(sorted(k))}" for r, k in self.rules.items()]
        return "\n".join(lines) + ("\n" + self.rule_notes if self.rule_notes else "")

    # ---- reading and linking ----------------------------------------------------------------
    #: the class of the stage-4a reader, ``Reader(pack, offset)``; None: the generic phrase reader
    reader_class: ClassVar[type | None] = None

    def reader(self, offset: int):
        """The stage-4a reader (default: the generic phrase reader over ``phrases``)."""
        from .reading import PhraseReader

        return (self.reader_class or PhraseReader)(self, offset)

    def referents(self, kind: str, payload: dict) -> frozenset:
        """What a claim is about, for premise linking: its cells ``("cell", r, c)`` (from ``r``/``c``,
        ``tree_r``/``tree_c``, the pair fields ``a``/``b``, a ``cells`` list, zipped ``cell_r``/``cell_c``)
        and its lines ``("ROW", i)``/``("COL", i)``/``("BOX", i)``. A pack overrides it for a claim
        whose position is not a cell (Galaxies' dots, at half-cell positions, are about the cells
        they touch). Empty when the claim names no place."""
        out = set()
        for r, c in (("r", "c"), ("tree_r", "tree_c")):
            if isinstance(payload.get(r), int) and isinstance(payload.get(c), int):
                out.add(("cell", payload[r], payload[c]))
        pairs = [payload.get("a"), payload.get("b")] + list(payload.get("cells") or [])
        out.update(("cell", x[0], x[1]) for x in pairs if isinstance(x, (list, tuple)) and len(x) == 2
                   and all(isinstance(v, int) for v in x))
        out.update(("cell", r, c) for r, c in zip(payload.get("cell_r") or [], payload.get("cell_c") or []))
        line = payload.get("axis", payload.get("unit"))
        if isinstance(line, str) and isinstance(payload.get("index"), int):
            out.add((line.upper(), payload["index"]))
        return frozenset(out)

    def related(self, a: tuple, b: tuple) -> bool | None:
        """Whether claims ``a`` and ``b`` ((kind, payload) each) are about the same place: a shared
        cell or line, or a cell of one in a row or column of the other. None when either names no
        place (nothing to tell)."""
        ra, rb = self.referents(*a), self.referents(*b)
        if not ra or not rb:
            return None
        if ra & rb:
            return True
        for x, lines in ((ra, rb), (rb, ra)):
            for ref in x:
                if ref[0] == "cell" and (("ROW", ref[1]) in lines or ("COL", ref[2]) in lines):
                    return True
        return False

    def negates(self, a: tuple, b: tuple) -> bool:
        """Whether claim ``b`` negates the branch assumption ``a`` (a discharge of a refuted branch)."""
        ka, pa = a[0], json.loads(a[1])
        kb, pb = b[0], json.loads(b[1])
        if (pa.get("r"), pa.get("c")) != (pb.get("r"), pb.get("c")) or pa.get("r") is None:
            return False
        if self.opposites.get(ka) == kb:
            rest_a = {k: v for k, v in pa.items() if k not in ("r", "c")}
            rest_b = {k: v for k, v in pb.items() if k not in ("r", "c")}
            return rest_a == rest_b or not rest_a or not rest_b
        if kb == "Cand" and pb.get("polarity") == "OUT":  # "Suppose r1c1 = 5 ... so r1c1 is not 5"
            value = next((v for k, v in pa.items() if k not in ("r", "c")), None)
            return value is not None and value in (pb.get("d") or pb.get("vals") or [])
        return False

    def choose_rule(self, output: tuple, inputs: list[tuple]) -> str | None:
        """The rule id explaining ``output`` from premises of the given kinds (docs/specs/reasoning_graphs.md §6 generic
        rules): a contradiction's own cause, else :meth:`rule_for`."""
        kind = output[0]
        if kind == "Contradiction":
            return CONTRADICTION_CAUSE
        return self.rule_for(kind, {c[0] for c in inputs}, output, inputs)

    def rule_for(self, kind: str, kinds: set, output: tuple, inputs: list[tuple]) -> str | None:
        """The rule of an ``output`` claim of ``kind`` from premises of ``kinds`` (generic table).

        Packs with their own rule table (Tents, Sudoku) override this with their tie-breakers.
        """
        payload = json.loads(output[1])
        for rule in ("R_ELIM_BY_RULE", "R_FORCED", "R_COUNT", "R_CANDIDATES", "R_CLUE_STATED"):
            if rule not in self.rules or kind not in self.rules[rule]:
                continue
            if kind == "Cand" and (payload.get("polarity") == "OUT") != (rule == "R_ELIM_BY_RULE"):
                continue
            if rule == "R_FORCED" and kind in self.negative_kinds:
                continue
            return rule
        return None

    # ---- the instance side --------------------------------------------------------------------
    def answer_claim(self, r: int, c: int, value: Any) -> tuple[str, dict] | None:
        """The C* claim an answer cell states (None for a cell that states none, e.g. a Tents '.')."""
        if self.value_claim:
            kind, fname = self.value_claim
            return kind, {"r": r, "c": c, fname: value}
        kind = self.cstar_symbols.get(_symbol(value))
        return (kind, {"r": r, "c": c}) if kind else None

    def grid_claims(self, instance: Any, grid: list) -> list[tuple[str, dict]]:
        """The C*-form claims of an answer grid: the statement a final solution grid makes
        (docs/specs/reasoning_graphs.md §1)."""
        out = []
        for r, row in enumerate(grid):
            for c, v in enumerate(row):
                claim = self.answer_claim(r, c, v)
                if claim is not None:
                    out.append(claim)
        return out

    def solution_claims(self, instance: Any) -> list[tuple[str, str]]:
        """C* as content keys: the claims of the stored solution grid (docs/specs/grid_puzzles.md §7)."""
        sol = getattr(instance, "data", {}).get("solution") if instance is not None else None
        if not isinstance(sol, list):
            return []
        return [validate_claim(self, k, p) for k, p in self.grid_claims(instance, sol)]

    def clue_claims(self, instance: Any) -> list[tuple[str, str]]:
        """Every clue claim of the instance (used by tests and the synthetic traces)."""
        return []

    def template_variant(self, kind: str, payload: dict) -> str:
        """A template key suffix for claims of one kind that read differently (``Black:none``)."""
        return ""

    def env_claim(self, kind: str, payload: dict) -> dict:
        """The claim in the grid family's own schema (``verify_claim``): the same kinds here."""
        return {"type": kind, **payload}

    # ---- the deduction model (synthetic traces; optional) -------------------------------------
    def deduction_model(self, instance: Any):
        """A :class:`~kumo_gym.analysis.deduce.Model` of the instance (variables, domains, givens,
        constraints, facts), or None when the pack has none."""
        return


def _symbol(value: Any) -> Any:
    if isinstance(value, str):
        v = value.strip().upper()
        return int(v) if v.lstrip("-").isdigit() else v
    return value


@dataclass(frozen=True)
class Bounds:
    """Grid size used to range-check coordinates: H rows, W columns, n digit/box count."""

    H: int
    W: int
    n: int | None = None  # digits 1..n and boxes 0..n-1 (Solo)
    box_w: int | None = None
    box_h: int | None = None


_CHOICES = {"axis": ("ROW", "COL"), "unit": ("ROW", "COL", "BOX"), "polarity": ("IN", "OUT"),
            "side": ("TOP", "BOTTOM", "LEFT", "RIGHT"), "color": ("BLACK", "WHITE")}


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
                axis = claim.get("axis", claim.get("unit", claim.get("side")))
                axis = str(axis).upper() if isinstance(axis, str) else axis
                axis = {"COLUMN": "COL", "LEFT": "ROW", "RIGHT": "ROW", "TOP": "COL", "BOTTOM": "COL"}.get(axis, axis)
                limit = {"ROW": bounds.H, "COL": bounds.W, "BOX": bounds.n}.get(axis)
                if limit is not None and value >= limit:
                    raise ValueError(f"{axis} index {value} outside 0..{limit - 1}")
            if typ == "count" and value > max(bounds.H, bounds.W) * max(bounds.H, bounds.W):
                raise ValueError(f"count {value} is larger than the grid")
        return value
    if typ == "optcount":
        return None if value is None else _check_field(name, "count", value, bounds, claim)
    if typ in _CHOICES:
        allowed = _CHOICES[typ]
        v = str(value).strip().upper() if isinstance(value, str) else value
        v = {"COLUMN": "COL", "ROWS": "ROW", "COLS": "COL", "COLUMNS": "COL"}.get(v, v)
        if v not in allowed:
            raise ValueError(f"field {name!r} is {value!r}, not one of {', '.join(allowed)}")
        return v
    if typ == "sym":
        if isinstance(value, bool) or not isinstance(value, (int, str)) or str(value).strip() == "":
            raise ValueError(f"field {name!r} must be a symbol, got {value!r}")
        v = str(value).strip().upper()
        return int(v) if v.lstrip("-").isdigit() else v
    if typ == "bool":
        if not isinstance(value, bool):
            raise ValueError(f"field {name!r} must be true or false, got {value!r}")
        return value
    if typ == "cell":
        if not isinstance(value, (list, tuple)) or len(value) != 2:
            raise ValueError(f"field {name!r} must be an [r, c] pair, got {value!r}")
        return [_check_field(name, "r", value[0], bounds, claim), _check_field(name, "c", value[1], bounds, claim)]
    if typ == "xcell":
        if not isinstance(value, (list, tuple)) or len(value) != 2 or not all(_is_int(x) for x in value):
            raise ValueError(f"field {name!r} must be an [r, c] pair, got {value!r}")
        r, c = value
        if r < -1 or c < -1 or (bounds is not None and (r > bounds.H or c > bounds.W)):
            raise ValueError(f"field {name!r} {value!r} is more than one step outside the grid")
        return [r, c]
    if typ == "cells":
        if not isinstance(value, (list, tuple)) or not value:
            raise ValueError(f"field {name!r} must be a non-empty list of [r, c] pairs")
        return [list(p) for p in sorted({tuple(_check_field(name, "cell", x, bounds, claim)) for x in value})]
    if typ == "runs":
        if not isinstance(value, (list, tuple)):
            raise ValueError(f"field {name!r} must be a list of run lengths, got {value!r}")
        out = [_check_field(name, "count", x, bounds, claim) for x in value]
        if any(x == 0 for x in out):  # "0" is how some traces write an empty clue
            if out != [0]:
                raise ValueError(f"field {name!r} has a zero run: {value!r}")
            out = []
        return out
    if typ == "dirs":
        if not isinstance(value, str) or set(value.upper()) - set("URDL"):
            raise ValueError(f"field {name!r} must be letters from URDL, got {value!r}")
        return "".join(d for d in "URDL" if d in value.upper())
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
    fields; zips ``cell_r``/``cell_c`` into unique ``(r, c)`` pairs sorted by (r, c) (docs/specs/reasoning_graphs.md
    §1). Contradiction notes are dropped from the content key: two occurrences of "branch k failed"
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
    if {"r1", "c1", "r2", "c2"} <= out.keys() and (out["r2"], out["c2"]) < (out["r1"], out["c1"]):
        # an unordered pair of cells (Bridges' islands): the smaller one first, whichever is named first
        out["r1"], out["c1"], out["r2"], out["c2"] = out["r2"], out["c2"], out["r1"], out["c1"]
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
    """A rule application for claim number ``target`` (index into ``claims``), checked (docs/specs/reasoning_graphs.md
    §5 stage 8).

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
