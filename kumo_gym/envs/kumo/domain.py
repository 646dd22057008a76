"""KUMO domains: the JSON format, the importer for KUMO-style files and the validator.

Implements ``docs/specs/kumo.md`` §2 (format ``kumo_gym.domain/v1``), §3 (importer: every
defect becomes an :class:`Issue`, never an exception) and docs/specs/kumo.md §4 (validation rules).

A domain is a universe of *truths* (candidate hidden explanations) and *actions* (tests). Each
action has a type, ``str`` or ``float``, and a list of states; observing a state rules OUT the
truths listed for it and confirms nothing. Float states are closed intervals ``[lo, hi]``.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import pairwise
from pathlib import Path
from typing import Any

from ...core.errors import ConfigError
from ...core.instance import canonical_json
from .search import outcome_matches

SCHEMA = "kumo_gym.domain/v1"
BUILTIN_DIR = Path(__file__).resolve().parent / "domains"
TYPES = ("str", "float")
LABELS = ("train", "validation", "heldout")
REVERSED_INTERVALS = ("keep", "swap", "drop")
_FORBIDDEN_IN_NAMES = ("<ANSWER>", "</ANSWER>")
#: error codes that leave no playable instance at all; any other error refuses only the instances
#: that contain the defect (an unusable action is dropped, a clashing name is kept off one side)
FATAL_CODES = ("too_few_truths", "no_usable_action")


def bad_name(name) -> bool:
    """A name no instance may contain: empty, not text, or holding an answer tag (docs/specs/kumo.md §4)."""
    return not isinstance(name, str) or not name.strip() or any(m in name.upper() for m in _FORBIDDEN_IN_NAMES)


@dataclass(frozen=True)
class State:
    """One outcome of an action: a string, or a closed float interval ``(lo, hi)``."""

    value: Any
    rules_out: tuple[str, ...]

    def matches(self, observation: Any, kind: str | None = None) -> bool:
        """Whether ``observation`` falls in this state (docs/specs/kumo.md §2: closed intervals, exact strings).
        ``kind`` is the action's type; an interval state of a ``str`` action matches by equality, so never."""
        kind = kind or ("float" if isinstance(self.value, tuple) else "str")
        return outcome_matches(kind, self.label() if kind == "str" else self.value, observation)

    @property
    def reversed(self) -> bool:
        """A reversed interval ``[hi, lo]`` kept as KUMO's engine keeps it (it matches nothing)."""
        return isinstance(self.value, tuple) and self.value[0] > self.value[1]

    def label(self) -> Any:
        return list(self.value) if isinstance(self.value, tuple) else self.value


@dataclass(frozen=True)
class Outcome:
    type: str
    states: tuple[State, ...]


@dataclass(frozen=True)
class Issue:
    """One defect of a domain (docs/specs/kumo.md §3). ``severity`` is ``"error"`` (unusable) or ``"warning"``."""

    severity: str
    code: str
    domain: str
    action: str | None = None
    state: Any = None
    truth: str | None = None
    message: str = ""

    def __str__(self) -> str:
        where = ", ".join(f"{k} {v!r}" for k, v in (("action", self.action), ("state", self.state),
                                                    ("truth", self.truth)) if v is not None)
        return f"[{self.severity}] {self.code} in domain {self.domain!r}{' (' + where + ')' if where else ''}: {self.message}"


@dataclass(frozen=True)
class Domain:
    """A KUMO domain in our format (docs/specs/kumo.md §2). Order of ``truths``/``actions``/states fixes iteration."""

    name: str
    truths: tuple[str, ...]
    actions: tuple[str, ...]
    outcomes: dict
    goal: str = ""
    truth_noun: str = "truth"
    action_noun: str = "action"
    truth_descriptions: dict = field(default_factory=dict)
    action_descriptions: dict = field(default_factory=dict)
    action_units: dict = field(default_factory=dict)
    provenance: dict = field(default_factory=dict)

    def __repr__(self) -> str:
        # the full content runs to tens of kilobytes; error messages and logs need only its identity
        try:
            fp = self.fingerprint[:12] + "..."
        except (AttributeError, TypeError, KeyError, ValueError):  # a hand-built, malformed Domain
            fp = "(malformed)"
        return f"Domain(name={self.name!r}, {len(self.truths)} truths, {len(self.actions)} actions, fingerprint={fp})"

    # ---- views ------------------------------------------------------------------------------
    @property
    def label(self) -> str:
        """``train``/``validation``/``heldout`` (docs/specs/kumo.md §12); procedural held-out seeds say ``heldout``."""
        lab = self.provenance.get("label", "train")
        return lab if lab in LABELS else "train"

    def usable_actions(self) -> list[str]:
        """Actions an instance may contain: with outcomes, a known type and a playable name."""
        return [a for a in self.actions if a in self.outcomes and self.outcomes[a].states
                and self.outcomes[a].type in TYPES and not bad_name(a)]

    def sampleable_truths(self, sample_unexcludable: bool = False) -> list[str]:
        """Truths an instance may contain (playable names; by default only those some state rules out)."""
        if sample_unexcludable:
            return [t for t in self.truths if not bad_name(t)]
        ruled = {t for o in self.outcomes.values() for s in o.states for t in s.rules_out}
        return [t for t in self.truths if t in ruled and not bad_name(t)]

    def to_dict(self) -> dict:
        outcomes = {}
        for a in self.actions:
            if a not in self.outcomes:
                continue
            o = self.outcomes[a]
            outcomes[a] = {"type": o.type, "states": [{"state": s.label(), "rules_out": list(s.rules_out)}
                                                     for s in o.states]}
        truths = [{"name": t, "description": self.truth_descriptions[t]} if t in self.truth_descriptions else t
                  for t in self.truths]
        actions = []
        for a in self.actions:
            extra = {k: v for k, v in (("description", self.action_descriptions.get(a)),
                                       ("unit", self.action_units.get(a))) if v}
            actions.append({"name": a, **extra} if extra else a)
        return {"schema": SCHEMA, "name": self.name, "goal": self.goal, "truth_noun": self.truth_noun,
                "action_noun": self.action_noun, "truths": truths, "actions": actions, "outcomes": outcomes,
                "provenance": self.provenance}

    @property
    def fingerprint(self) -> str:
        """sha256 of the canonical JSON (docs/specs/kumo.md §2); identifies a domain for held-out checks."""
        fp = self.__dict__.get("_fingerprint")
        if fp is None:  # a frozen dataclass: cache through __dict__, the content never changes
            fp = hashlib.sha256(canonical_json(self.to_dict()).encode("utf-8")).hexdigest()
            self.__dict__["_fingerprint"] = fp
        return fp


# ---- import ---------------------------------------------------------------------------------
def _name_of(item) -> tuple[str | None, dict]:
    if isinstance(item, str):
        return item, {}
    if isinstance(item, dict) and isinstance(item.get("name"), str):
        return item["name"], item
    return None, {}


def _number(x) -> float | None:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def _interval(value) -> tuple[float, float] | None:
    if isinstance(value, (list, tuple)) and len(value) == 2:
        lo, hi = _number(value[0]), _number(value[1])
        if lo is not None and hi is not None:
            return lo, hi
    return None


def _scalar_text(value) -> str | None:
    """Canonical text of a scalar state (``1`` -> ``"1"``, ``2.0`` -> ``"2"``)."""
    if isinstance(value, str):
        return value
    n = _number(value)
    if n is None:
        return None
    return str(int(n)) if n.is_integer() else repr(n)


def import_kumo_domain(obj: Any, *, reversed_intervals: str = "keep") -> tuple[Domain, list[Issue]]:
    """A Domain from our JSON or a KUMO-style dict, plus every defect found (docs/specs/kumo.md §3).

    Never raises on content: a field of the wrong type (``"truths": 7``) is an ``error`` issue
    naming the field, and a dict that is not a domain at all yields an empty domain with errors.
    ``reversed_intervals``: ``"keep"`` (default) keeps ``[2, 1]`` as KUMO's engine does: the
    state never matches an observation but still counts wherever states count (the oracle's
    weights, which actions can rule a truth out); ``"swap"`` reads it as ``[1, 2]``; ``"drop"``
    removes the state (matching agrees with the engine, the oracle does not).
    """
    if reversed_intervals not in REVERSED_INTERVALS:
        raise ConfigError(f"reversed_intervals {reversed_intervals!r} is not one of: {', '.join(REVERSED_INTERVALS)}")
    issues: list[Issue] = []
    if isinstance(obj, (str, Path)) and not str(obj).lstrip().startswith("{"):
        obj = json.loads(Path(obj).read_text(encoding="utf-8"))
    elif isinstance(obj, str):
        try:
            obj = json.loads(obj)
        except ValueError:
            obj = None
    if not isinstance(obj, dict):
        issues.append(Issue("error", "bad_field", "unnamed", message=f"a domain is a JSON object, not "
                            f"{type(obj).__name__}"))
        obj = {}
    name = obj.get("name") if isinstance(obj.get("name"), str) else obj.get("domain")
    name = name if isinstance(name, str) and name else "unnamed"

    def issue(sev, code, msg, action=None, state=None, truth=None):
        issues.append(Issue(sev, code, name, action, state, truth, msg))

    def field_of(key: str, kind: type, default):
        value = obj.get(key)
        if value is None:
            return default
        if not isinstance(value, kind):
            issue("error", "bad_field", f"field {key!r} must be a {kind.__name__}, not {type(value).__name__} "
                  f"{str(value)[:40]!r}; ignored")
            return default
        return value

    def names(kind: str, texts: tuple[str, ...]) -> tuple[list[str], dict[str, dict[str, str]]]:
        """The distinct names listed under ``kind + "s"`` and their text fields ``texts`` (warned drops)."""
        out: list[str] = []
        meta_text: dict[str, dict[str, str]] = {key: {} for key in texts}
        for item in field_of(kind + "s", list, []):
            name, meta = _name_of(item)
            if name is None:
                issue("warning", "bad_name", f"{kind} entry {str(item)[:60]!r} is not a name; dropped")
                continue
            if name in out:
                issue("warning", f"duplicate_{kind}", f"{kind} {name!r} is listed twice; the first is kept",
                      **{kind: name})
                continue
            out.append(name)
            for key in texts:
                if isinstance(meta.get(key), str) and meta[key]:
                    meta_text[key][name] = meta[key]
        return out, meta_text

    truths, truth_text = names("truth", ("description",))
    truth_desc = truth_text["description"]
    truth_set = set(truths)
    actions, action_text = names("action", ("description", "unit"))
    action_desc, action_unit = action_text["description"], action_text["unit"]

    raw_outcomes = field_of("outcomes", dict, {})
    for a in raw_outcomes:
        if a not in actions:
            issue("warning", "outcome_for_unknown_action", f"outcomes given for unlisted action {a!r}; appended",
                  action=a)
            actions.append(a)
    outcomes: dict[str, Outcome] = {}
    for a in list(actions):
        spec = raw_outcomes.get(a)
        if not isinstance(spec, dict) or not isinstance(spec.get("states"), list) or not spec["states"]:
            issue("warning", "action_without_outcomes", f"action {a!r} has no outcomes; dropped", action=a)
            actions.remove(a)
            continue
        out = _import_outcome(a, spec, truth_set, issue, reversed_intervals)
        if out is None:
            actions.remove(a)
            continue
        outcomes[a] = out

    provenance = dict(field_of("provenance", dict, {}))
    if "schema" not in obj:
        provenance.setdefault("source", "kumo-import")
        for key in ("source", "license", "semantics", "num_truths", "num_actions", "num_float_actions"):
            if key in obj:
                provenance.setdefault("kumo_" + key if key == "source" else key, obj[key])
    domain = Domain(name=name, truths=tuple(truths), actions=tuple(actions), outcomes=outcomes,
                    goal=field_of("goal", str, ""), truth_noun=field_of("truth_noun", str, "") or "truth",
                    action_noun=field_of("action_noun", str, "") or "action", truth_descriptions=truth_desc,
                    action_descriptions=action_desc, action_units=action_unit, provenance=provenance)
    issues.extend(validate_domain(domain))
    return domain, issues


def _import_outcome(a, spec, truth_set, issue, reversed_intervals) -> Outcome | None:
    typ = spec.get("type")
    raw_states = [s for s in spec["states"] if isinstance(s, dict) and "state" in s]
    values = [s["state"] for s in raw_states]
    intervals = [_interval(v) for v in values]
    if typ == "float" or (typ == "int" and values and all(iv is not None for iv in intervals)):
        if typ == "int":
            issue("warning", "coerced_type", f"action {a!r} has type 'int' with interval states; read as float", action=a)
        if not values or any(iv is None for iv in intervals):
            issue("error", "unusable_action", f"action {a!r} mixes state shapes; dropped", action=a)
            return None
        kind = "float"
    elif typ == "str" or typ in ("int", "dict"):
        texts = [_scalar_text(v) for v in values]
        if typ != "str":
            issue("warning", "coerced_type", f"action {a!r} has type {typ!r} with scalar states; read as str",
                  action=a)
        if typ == "str" and values and all(t is not None or iv is not None for t, iv in zip(texts, intervals)) \
                and any(t is None for t in texts):
            # KUMO's engine plays such an action (DemographicEnv, QuantumEnv): it matches a str action's
            # observation by equality, so an interval state there matches no observation (KUMO compares
            # the record's list with its tuple); it still counts where the engine counts states
            issue("warning", "mixed_states", f"str action {a!r} also has interval states; kept, matching no "
                  "observation (KUMO's equality matching)", action=a)
        elif not values or any(t is None for t in texts):
            issue("error", "unusable_action", f"action {a!r} has states of mixed or unknown shape; dropped", action=a)
            return None
        kind = "str"
    else:
        issue("error", "unusable_action", f"action {a!r} has unknown type {typ!r}; dropped", action=a)
        return None

    states: list[State] = []
    index: dict = {}
    for raw, iv in zip(raw_states, intervals):
        if kind == "str" and iv is not None and _scalar_text(raw["state"]) is None:
            value = iv  # an interval state of a str action (see "mixed_states" above)
        elif kind == "float":
            lo, hi = iv
            if lo > hi:
                what = {"keep": "kept; it matches no observation", "swap": "swapped", "drop": "dropped"}
                issue("warning", "reversed_interval", f"interval [{lo}, {hi}] of {a!r} is reversed; "
                      + what[reversed_intervals], action=a, state=[lo, hi])
                if reversed_intervals == "drop":
                    continue
                if reversed_intervals == "swap":
                    lo, hi = hi, lo
            value = (lo, hi)
        elif kind == "str":
            value = _scalar_text(raw["state"])
        rules = []
        listed = raw.get("rules_out")
        if listed is not None and not isinstance(listed, list):
            issue("warning", "bad_field", f"rules_out of state {value!r} of {a!r} is not a list; read as empty",
                  action=a, state=list(value) if isinstance(value, tuple) else value)
            listed = []
        for t in listed or []:
            if not isinstance(t, str) or t not in truth_set:
                issue("warning", "unknown_truth", f"state {value!r} of {a!r} rules out unknown truth {t!r}; removed",
                      action=a, state=list(value) if isinstance(value, tuple) else value, truth=str(t))
            elif t not in rules:
                rules.append(t)
        st = State(value, tuple(rules))
        if value in index:
            prev = states[index[value]]
            label = list(value) if isinstance(value, tuple) else value
            if prev.rules_out == st.rules_out:
                issue("warning", "duplicate_state", f"state {label!r} of {a!r} is listed twice; dropped", action=a,
                      state=label)
                continue
            issue("warning", "duplicate_state", f"state {label!r} of {a!r} is listed twice with different rule-outs;"
                  " the last wins", action=a, state=label)
            states[index[value]] = st
            continue
        index[value] = len(states)
        states.append(st)
    if not states:
        issue("warning", "action_without_outcomes", f"action {a!r} has no usable state; dropped", action=a)
        return None
    return Outcome(kind, tuple(states))


# ---- validation -----------------------------------------------------------------------------
def _fold(name: str) -> str:
    return re.sub(r"\s+", " ", name.casefold()).strip()


def validate_domain(domain: Domain, n_truths: int | None = None, n_actions: int | None = None) -> list[Issue]:
    """Every defect of a parsed domain (docs/specs/kumo.md §4). An empty list means the domain is clean.

    Errors in :data:`FATAL_CODES` leave no playable instance (fewer than 2 sampleable truths, no
    usable action); any other error (a name with an answer tag) only keeps that name out of
    instances. A name that is both a truth and an action is a warning here: it is refused in an
    instance that holds it on both sides (``validate_instance``), and the generator keeps it off
    one side. With ``n_truths``/``n_actions`` it also warns when that setting cannot be supported.
    """
    issues: list[Issue] = []
    name = domain.name

    def issue(sev, code, msg, action=None, state=None, truth=None):
        issues.append(Issue(sev, code, name, action, state, truth, msg))

    for kind, names in (("truth", domain.truths), ("action", domain.actions)):
        folded: dict[str, str] = {}
        for n in names:
            if bad_name(n):
                issue("error", "bad_name", f"{kind} name {n!r} is empty, not text, or contains an answer tag; "
                      "no instance will contain it", **{kind: n} if kind == "truth" else {"action": n})
                continue
            f = _fold(n)
            if f in folded and folded[f] != n:
                issue("warning", "ambiguous_names", f"{kind}s {folded[f]!r} and {n!r} differ only in case or spacing",
                      **{kind: n} if kind == "truth" else {"action": n})
            folded.setdefault(f, n)
    for n in sorted(set(domain.truths) & set(domain.actions)):
        issue("warning", "truth_action_clash", f"{n!r} is both a truth and an action; no instance holds it on both "
              "sides (answers would be ambiguous there)", truth=n, action=n)

    ruled_any: set[str] = set()
    for a in domain.actions:
        out = domain.outcomes.get(a)
        if out is None:
            continue
        if out.type not in TYPES:
            issue("error", "unusable_action", f"action {a!r} has unknown type {out.type!r}", action=a)
            continue
        related = set()
        for s in out.states:
            related.update(s.rules_out)
            if out.type == "float" and s.value[0] > s.value[1]:
                issue("warning", "reversed_interval", f"interval {list(s.value)} of {a!r} is reversed", action=a,
                      state=list(s.value))
        ruled_any |= related
        if len(out.states) < 2:
            issue("warning", "too_few_states", f"action {a!r} has {len(out.states)} state(s); it can only pad", action=a)
        if not related:
            issue("warning", "action_relates_nothing", f"action {a!r} rules out no truth in any state", action=a)
        if len(out.states) >= 1:
            always = set(out.states[0].rules_out)
            for s in out.states[1:]:
                always &= set(s.rules_out)
            for t in sorted(always, key=domain.truths.index):
                issue("warning", "truth_always_ruled_out", f"every state of {a!r} rules out {t!r}", action=a, truth=t)
        if out.type == "float":
            ivs = sorted(s.value for s in out.states if not s.reversed)
            for (lo1, hi1), (lo2, hi2) in pairwise(ivs):
                if lo2 < hi1:
                    issue("warning", "overlapping_intervals", f"intervals [{lo1}, {hi1}] and [{lo2}, {hi2}] of {a!r}"
                          " overlap", action=a, state=[lo2, hi2])
    for t in domain.truths:
        if t not in ruled_any:
            issue("warning", "truth_never_ruled_out", f"no state rules out {t!r}; it is excluded from sampling", truth=t)
    usable = domain.usable_actions()
    sampleable = domain.sampleable_truths()
    if len(sampleable) < 2:
        issue("error", "too_few_truths", f"only {len(sampleable)} truth(s) can be ruled out; at least 2 are needed")
    if not usable:
        issue("error", "no_usable_action", "no action has any state")
    if n_actions is not None and n_actions > len(usable):
        issue("warning", "setting_unsupported", f"n_actions {n_actions} exceeds the {len(usable)} usable actions")
    if n_truths is not None and n_truths > len(sampleable):
        issue("warning", "setting_unsupported", f"n_truths {n_truths} exceeds the {len(sampleable)} sampleable truths")
    return issues


def errors(issues: list[Issue]) -> list[Issue]:
    return [i for i in issues if i.severity == "error"]


def check_domain(domain: Domain, issues: list[Issue] | None = None) -> Domain:
    """Return ``domain`` or raise ConfigError when it can hold no playable instance.

    Only :data:`FATAL_CODES` refuse the whole domain (the message lists every error, so that a
    bad field such as ``"truths": 7`` is named); other errors refuse only the instances that would
    contain the defect (docs/specs/kumo.md §3, §4).
    """
    issues = validate_domain(domain) if issues is None else issues
    bad = errors(issues)
    if any(i.code in FATAL_CODES for i in bad):
        raise ConfigError(f"domain {domain.name!r} is unusable: " + "; ".join(str(i) for i in bad[:5]))
    return domain


# ---- loading ----------------------------------------------------------------------------------
def builtin_domain_names() -> list[str]:
    """The names (file stems) of our built-in domains, sorted."""
    return sorted(p.stem for p in BUILTIN_DIR.glob("*.json"))


def reference_dir() -> Path | None:
    """``shared/reference`` next to the repository, or ``$KUMO_GYM_REFERENCE``; None when absent."""
    env = os.environ.get("KUMO_GYM_REFERENCE")
    cands = [Path(env)] if env else []
    cands.append(Path(__file__).resolve().parents[4] / "shared" / "reference")
    for c in cands:
        if c.is_dir():
            return c
    return None


@lru_cache(maxsize=256)
def _load_file(path: str, mtime: float) -> tuple[Domain, tuple[Issue, ...]]:
    domain, issues = import_kumo_domain(json.loads(Path(path).read_text(encoding="utf-8")))
    return domain, tuple(issues)


def reference_domain_names() -> list[str]:
    """Names (file stems) of the KUMO domains in the reference folder, when it is present."""
    ref = reference_dir()
    return sorted(p.stem for p in (ref / "kumo" / "domains").glob("*.json")) if ref is not None else []


def named_domain_path(name: str) -> Path | None:
    """The file of a *registered* domain name: a built-in domain, or a KUMO domain of the
    reference folder. Names are looked up in the folder listings, never joined into a path, so a
    name from data (a record's ``domain`` field) can only ever open one of those files."""
    if not isinstance(name, str):
        return None
    if name in builtin_domain_names():
        return BUILTIN_DIR / f"{name}.json"
    if name in reference_domain_names():
        return reference_dir() / "kumo" / "domains" / f"{name}.json"
    return None


def resolve_domain_path(spec: str, *, allow_path: bool = True) -> Path:
    """The file of a registered domain name (:func:`named_domain_path`) or, with ``allow_path``,
    of a JSON path given by the caller's code. Strings read from records and instances are
    resolved with ``allow_path=False``: they may name a domain but never open a file of their own
    choosing."""
    if not isinstance(spec, str) or not spec:
        raise ConfigError(f"domain {spec!r} is not a domain name or a path")
    named = named_domain_path(spec)
    if named is not None:
        return named
    choices = ", ".join(builtin_domain_names() + reference_domain_names())
    if not allow_path:
        raise ConfigError(f"domain {spec[:200]!r} is not one of: {choices} (a record may only name a registered "
                          "domain; pass a file as domain=PATH or a Domain object from your own code)")
    p = Path(spec).expanduser()
    if p.suffix == ".json" and p.is_file():
        return p.resolve()
    raise ConfigError(f"domain {spec[:200]!r} is not a JSON file nor one of: {choices}")


#: problems of a domain given from code that refuse it even when an instance could still be drawn:
#: a field of the wrong type, an action whose outcomes are missing or malformed (a file with these
#: defects, official data, is read leniently instead: the defect is dropped with an issue)
_STRICT_CODES = ("bad_field", "action_without_outcomes", "unusable_action")
_REQUIRED_FIELDS = (("truths", "a list of names"), ("outcomes", "a dict of action -> {type, states}"))


def domain_from_code(spec: Domain | dict) -> Domain:
    """A usable Domain from a Domain object or its JSON form (a dict in our schema or KUMO's).

    The result is the domain re-read from its JSON form, so a Domain object and its ``to_dict()``
    give the same domain, fingerprint and instances. Unlike a file, whose defects are dropped with
    a reported issue (docs/specs/kumo.md §3), a domain built in code must be well formed: a missing field, a field of the
    wrong type or a malformed action raises ConfigError naming it.
    """
    if isinstance(spec, Domain):
        try:
            obj = spec.to_dict()
        except (AttributeError, TypeError, KeyError, ValueError) as e:
            raise ConfigError(f"the Domain object {str(getattr(spec, 'name', '?'))[:80]!r} is malformed "
                              f"({type(e).__name__}: {str(e)[:200]}); build it with import_kumo_domain or "
                              "pass its JSON form as a dict") from None
    elif isinstance(spec, dict):
        obj = spec
    else:
        raise ConfigError(f"domain {str(spec)[:80]!r} is not a Domain or a dict")
    for key, what in _REQUIRED_FIELDS:
        if key not in obj:
            raise ConfigError(f"the domain dict has no field {key!r} ({what}); it has: "
                              f"{', '.join(map(str, list(obj)[:20])) or '(no fields)'}")
    domain, issues = import_kumo_domain(obj)
    for i in issues:
        if i.code in _STRICT_CODES and (i.severity == "error" or i.code != "bad_field"):
            what = i.message.removesuffix("; ignored").removesuffix("; dropped")
            if i.code == "action_without_outcomes":
                what = (f"field 'outcomes' of action {i.action!r} must be {{'type': 'str'|'float', 'states': "
                        "[{'state': ..., 'rules_out': [names]}, ...]}} with at least one state")
            raise ConfigError(f"domain {domain.name!r} is malformed: {what}")
    return check_domain(domain, issues)


#: domains given from code in this process, by fingerprint (:func:`register_domain`)
_FROM_CODE: dict[str, Domain] = {}
FINGERPRINT = re.compile(r"^[0-9a-f]{64}$")


def register_domain(spec: Domain | dict) -> str:
    """Make a domain built in code (a Domain object, e.g. a ``split_domain`` half, or its JSON
    dict) nameable by its fingerprint in this process; returns the fingerprint.

    The fingerprint is a hash of the domain's content, so it stands for the domain wherever a
    name is stored (an environment's parameters, an instance's ``params``, item seeds): the same
    content gives the same instances in any process, and an instance stays playable anywhere,
    because it carries its own outcomes.
    """
    domain = domain_from_code(spec)
    fp = domain.fingerprint
    _FROM_CODE.setdefault(fp, domain)
    return fp


def load_domain(spec: str | dict | Domain, *, allow_path: bool = True) -> Domain:
    """A usable Domain from a registered name, a path (``allow_path``), a dict, a Domain, or the
    fingerprint of a domain given from code in this process (:func:`register_domain`).

    A domain that can hold no playable instance raises ConfigError (:func:`check_domain`).
    """
    if isinstance(spec, Domain):
        return check_domain(spec)
    if isinstance(spec, dict):
        domain, issues = import_kumo_domain(spec)
        return check_domain(domain, issues)
    if isinstance(spec, str) and FINGERPRINT.match(spec):
        if spec in _FROM_CODE:
            return _FROM_CODE[spec]
        raise ConfigError(f"domain {spec!r} is a fingerprint, but no domain with it was given in this process; "
                          "pass the Domain object or its JSON dict as domain=")
    path = resolve_domain_path(spec, allow_path=allow_path)
    domain, issues = _load_file(str(path), path.stat().st_mtime)
    return check_domain(domain, list(issues))


def domain_issues(spec: str | dict) -> tuple[Domain, list[Issue]]:
    """Everything wrong with a domain given by name, path or dict (used by the CLI)."""
    if isinstance(spec, dict):
        return import_kumo_domain(spec)
    return import_kumo_domain(json.loads(resolve_domain_path(spec).read_text(encoding="utf-8")))
