"""The KUMO diagnosis game as a Task and a multi-turn environment (``docs/specs/kumo.md`` §7-§8)."""
from __future__ import annotations

import copy
import dataclasses
import math
import re
from collections import OrderedDict
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar

import numpy as np

from ...core.capabilities import AnswerPicture, CheapAnswer, NearMiss
from ...core.deprecation import renamed
from ...core.errors import ConfigError, ContaminationError, ParseError, check_int
from ...core.extract import split_thinking
from ...core.instance import Instance, integral_floats
from ...core.params import Params, param
from ...core.task import InteractiveTask, SystemAndUser, Transition
from ...core.verdict import Verdict
from ..base import to_charset
from ..interactive import InteractiveEnv
from .book import BOOK_FORMATS, plural, render_book
from .domain import FINGERPRINT, TYPES, Domain, bad_name, builtin_domain_names, load_domain, register_domain
from .generate import (
    MAX_TOTAL,
    generate_instance,
    import_kumo_instance,
    matching_states,
    ruled_out_by,
    survivors,
)
from .search import outcome_matches

FAMILY = "kumo"
MATCH_MODES = ("exact", "lenient")
OBSERVATION_FORMATS = ("text", "kumo_dict")
ANY_DOMAIN = "any"
PROCEDURAL = "procedural"
KEYSPACES = ("train", "heldout")
MAX_NAME = 500  # longer answer regions are not names; refusing them keeps matching cheap
MAX_NAMES = 10_000  # names in one single-turn answer (far above any real trajectory)

_HELDOUT: set[str] = set()


def _fingerprint_of(domain: str | Domain) -> str:
    if isinstance(domain, str) and FINGERPRINT.match(domain):
        return domain
    return load_domain(domain).fingerprint


def declare_heldout(domain: str | Domain) -> str:
    """Mark a domain held out for this whole process (docs/specs/kumo.md §12); returns its fingerprint."""
    fp = _fingerprint_of(domain)
    _HELDOUT.add(fp)
    return fp


@lru_cache(maxsize=1)
def _builtin_index() -> tuple[tuple[str, str, str, int], ...]:
    """(name, fingerprint, label, usable actions) of every built-in domain (package data, fixed)."""
    out = []
    for name in builtin_domain_names():
        d = load_domain(name)
        out.append((name, d.fingerprint, d.label, len(d.usable_actions())))
    return tuple(out)


def heldout_fingerprints(extra=()) -> set[str]:
    """Fingerprints refused by training builders: declared, labelled ``heldout``, and ``extra``
    (names, paths or fingerprints; unlike :func:`declare_heldout`, these count for this call only)."""
    fps = set(_HELDOUT) | {fp for _, fp, label, _ in _builtin_index() if label == "heldout"}
    for x in extra or ():
        try:
            fps.add(_fingerprint_of(x))
        except ConfigError:
            raise ConfigError(f"heldout_domains: {x!r} is not a built-in domain name, a path or a fingerprint") from None
    return fps


def trainable_builtin_domains(heldout=(), min_actions: int = 0) -> list[str]:
    bad = heldout_fingerprints(heldout)
    return [n for n, fp, _, k in _builtin_index() if fp not in bad and k >= min_actions]


@lru_cache(maxsize=64)
def procedural_domain(seed: int, keyspace: str = "train") -> Domain:
    """The procedural domain of ``(seed, keyspace)`` with the docs/specs/kumo.md §14 defaults (cached)."""
    from .procedural import new_domain

    return new_domain(int(seed), keyspace=keyspace)


@dataclass(frozen=True)
class KumoParams(Params):
    """Parameters of ``kumo_gym/KUMO-v0`` (``docs/specs/kumo.md`` §5, §7, §12, §14)."""

    domain: str = param(ANY_DOMAIN, doc="a built-in domain name, a JSON path (ours or KUMO-style), a Domain object "
                        "or its JSON dict (e.g. a split_domain half; stored as its fingerprint), 'any' (a random "
                        "trainable built-in domain per episode) or 'procedural' (a fresh procedural domain per "
                        "episode, drawn from procedural_keyspace)")
    n_truths: int = param(4, lo=2, hi=MAX_TOTAL - 1, doc="candidate truths per instance")
    n_actions: int = param(6, lo=1, hi=MAX_TOTAL - 2, doc="tests per instance (n_truths + n_actions <= 62)")
    heldout_domains: list | None = param(  # noqa: RUF009 - param() is a dataclasses.field; None is the default
        None, kind=list, doc="domains (names, paths, fingerprints, Domain objects or dicts) that training builders "
        "must refuse; stored as fingerprints")
    procedural_keyspace: str = param("train", choices=KEYSPACES, doc="seed key-space of domain='procedural': "
                                     "'heldout' domains are held out by construction (docs/specs/kumo.md §12)")
    forbid_giveaway: bool = param(False, doc="reject instances with a truth no test relates to "
                                             "(docs/specs/kumo.md §5 step 10)")
    sat_order: str = param("shuffled", choices=("shuffled", "domain"),
                           doc="SAT variable order (docs/specs/kumo.md §5 step 3)")
    strict_float_observations: bool = param(True, doc="float observations match exactly one state "
                                                      "(docs/specs/kumo.md §5 step 6)")
    float_decimals: int = param(None, kind=int, lo=0, hi=15, doc="round float observations (None: full repr)")
    book_format: str = param("template", choices=BOOK_FORMATS, prompt=True,
                             doc="knowledge book: our prose, or the reduced mapping as JSON")
    match: str = param("exact", choices=MATCH_MODES, prompt=True,
                       doc="name matching; 'lenient' ignores case, spacing, quotes, a final period and a "
                           "leading list number or bullet")
    observation_format: str = param("text", choices=OBSERVATION_FORMATS, prompt=True,
                                    doc="'Result of A: v' or the reference's dict layout")

    def check(self) -> KumoParams:
        if self.n_truths + self.n_actions > MAX_TOTAL:
            raise ConfigError(f"n_truths + n_actions = {self.n_truths + self.n_actions} exceeds {MAX_TOTAL}")
        if self.heldout_domains is not None and not all(isinstance(x, str) for x in self.heldout_domains):
            raise ConfigError(f"heldout_domains {self.heldout_domains!r} must list domain names, paths or "
                              "fingerprints")
        return self


class KumoTask(SystemAndUser, InteractiveTask):
    """KUMO: find the one valid truth by running tests whose outcomes rule truths out.

    ## Description
    A hidden valid truth (a mineral, a car fault, ...) is one of ``n_truths`` candidates. Each
    turn the agent either runs one of ``n_actions`` tests, whose pre-drawn outcome is revealed,
    or names a truth, which ends the game. Outcomes only rule truths out, as the knowledge book
    explains: a string outcome matches its state exactly, a number matches every state whose
    closed interval ``[lo, hi]`` holds it (both ends included). Instances come from a SAT
    generator that guarantees exactly one truth survives all outcomes (KUMO, Lin et al. 2025;
    ``docs/specs/kumo.md``); an optimal expected-steps search (the paper's Algorithm 3, exact) is the
    oracle.

    ## Answer
    A move is a name, written ``<ANSWER> name </ANSWER>`` at the end of the reply: a test of the
    instance or a truth (the final prediction). Scored on its own (``Task.score``, the dataset
    reward functions), a completion is a whole play: the ``<ANSWER>`` names in order, tests then
    the prediction (the first truth named ends the game). It is solved only when the prediction
    is right **and** the tests it names justify it, so a guess never pays.

    ## Rules
    | code | rule |
    |---|---|
    | ``ruled_out`` | the predicted truth is not ruled out by the observation of any test of the instance
    (docs/specs/kumo.md §8), revealed or not |
    | ``undetermined`` | single-turn answers: the tests named before the prediction leave it the only possible truth, or
    no untested test could rule it out (docs/specs/kumo.md §9 base cases) |

    An unknown name is unreadable (``parse_error``); a play without a prediction is ``incomplete``.

    ## Version history
    v0: initial version.
    """

    family = FAMILY
    Params = KumoParams
    difficulties: ClassVar[dict] = {"easy": {"n_truths": 4, "n_actions": 6}, "hard": {"n_truths": 12, "n_actions": 16}}
    default_difficulty = "easy"
    rule_codes: ClassVar[dict[str, str]] = {
        "ruled_out": "the predicted truth is not ruled out by the observation of any test of the instance (closed "
                     "intervals, exact strings)",
        "undetermined": "single-turn answers: the tests named before the prediction leave it the only possible truth, "
                        "or no untested test could rule it out",
    }
    partial_credit = ("1 for a right prediction that the tests run determine (no other truth still possible, or "
                      "none of the tests left could rule it out), else 0: unlike the binary reward, a lucky guess "
                      "earns nothing")

    # ---- parameters -----------------------------------------------------------------------------
    def plain_kwargs(self, kwargs: dict) -> dict:
        """A ``domain`` (or ``heldout_domains`` entry) given as a Domain object or its JSON dict
        becomes its fingerprint, registered for this process (:func:`register_domain`): JSON-safe in
        params, records and instances, and the same content draws the same instances in any
        process. A malformed dict raises ConfigError naming the bad field."""
        kw = dict(kwargs)
        held = kw.get("heldout_domains")
        if isinstance(held, (str, tuple, Domain)):  # one domain, or a tuple: the natural spellings of a list
            kw["heldout_domains"] = list(held) if isinstance(held, tuple) else [held]
        if isinstance(kw.get("heldout_domains"), list):
            kw["heldout_domains"] = [register_domain(x) if isinstance(x, (Domain, dict)) else x
                                     for x in kw["heldout_domains"]]
        if isinstance(kw.get("domain"), (Domain, dict)):
            kw["domain"] = register_domain(kw["domain"])
        return kw

    def validate_params(self, params: dict) -> dict:
        p = dict(params)
        if p["domain"] not in (ANY_DOMAIN, PROCEDURAL):
            domain = load_domain(p["domain"])
            if p["n_actions"] > len(domain.usable_actions()):
                raise ConfigError(f"domain {domain.name!r} has {len(domain.usable_actions())} usable actions; "
                                  f"n_actions {p['n_actions']} is too many")
        elif p["domain"] == ANY_DOMAIN and not trainable_builtin_domains(p["heldout_domains"] or (), p["n_actions"]):
            raise ConfigError(f"no trainable built-in domain supports n_actions={p['n_actions']}")
        elif p["domain"] == PROCEDURAL and (p["n_truths"] > 50 or p["n_actions"] > 30):
            raise ConfigError(f"procedural domains have 50 truths and 30 actions; n_truths {p['n_truths']} / "
                              f"n_actions {p['n_actions']} is too many")
        p["heldout_domains"] = sorted(heldout_fingerprints(p["heldout_domains"] or ()) - heldout_fingerprints(()))
        return p

    # ---- generation ---------------------------------------------------------------------------
    def _domain_for(self, rng: np.random.Generator, params: dict) -> Domain:
        if params["domain"] == PROCEDURAL:
            return procedural_domain(int(rng.integers(2**31)), params["procedural_keyspace"])
        if params["domain"] != ANY_DOMAIN:
            return load_domain(params["domain"])
        pool = trainable_builtin_domains(params.get("heldout_domains") or [], params["n_actions"])
        return load_domain(pool[int(rng.integers(len(pool)))])

    def generate(self, rng: np.random.Generator, **params) -> Instance:
        """An instance by Algorithms 1-2 (docs/specs/kumo.md §5) in the given, a random built-in, or a procedural
        domain.

        ``params`` are resolved like ``gym.make``'s (``difficulty="hard"`` selects the preset);
        prompt options draw nothing from ``rng``.
        """
        p = self.resolve_params(**params)
        domain = self._domain_for(rng, p)
        opts = {k: p[k] for k in ("forbid_giveaway", "sat_order", "strict_float_observations", "float_decimals")}
        data = generate_instance(domain, p["n_truths"], p["n_actions"], rng, **opts)
        data["book_seed"] = int(rng.integers(2**31))
        return Instance(FAMILY, data, params=p)

    def load(self, obj: Any, domain: str | Domain | None = None, prompt_options: dict | None = None) -> Instance:
        """An Instance, its dict/JSON, our instance data, or a KUMO record (docs/specs/kumo.md §3).

        ``domain`` (from the caller's code: a name, path or Domain) supplies a record's outcomes;
        ``prompt_options`` (``book_format``, ...) apply to a record, which carries none.
        """
        if isinstance(obj, str) and obj.lstrip().startswith("{"):
            import json

            try:
                obj = json.loads(obj)
            except ValueError as e:
                raise ConfigError(f"the KUMO instance is not valid JSON: {e}") from None
        if isinstance(obj, dict) and "family" not in obj and "truths" in obj:
            obj = integral_floats(obj)  # an integer written 7.0 (a seed, a count, a bound) is 7
            if "outcomes" in obj and "observation_states" in obj:
                data = dict(obj)
            else:
                data = import_kumo_instance(obj, load_domain(domain) if domain is not None else None)
            seed = obj.get("seed")
            data.setdefault("book_seed", seed if isinstance(seed, int) and not isinstance(seed, bool) else 0)
            params = {**(prompt_options or {}), "n_truths": len(data["truths"]), "n_actions": len(data["actions"])}
            return Instance(FAMILY, data, params=params, seed=None)
        return super().load(obj)

    def validate_instance(self, instance: Instance) -> None:
        """Raise ConfigError naming the first bad field (docs/specs/kumo.md §5 "Instance JSON", §8).

        Besides types and cross-references, an instance must be playable: no name on both sides,
        no answer tag in a name, observations that match the stated ``observation_states``, and
        exactly its valid truth left once every observation is applied.
        """
        d = instance.data
        if not isinstance(d, dict):
            raise ConfigError("instance data must be a dict")
        for key in ("truths", "actions"):
            names = d.get(key)
            if not isinstance(names, list) or not all(isinstance(x, str) for x in names):
                raise ConfigError(f"field {key!r} must be a list of names, not {type(names).__name__}")
            if len(set(names)) != len(names):
                raise ConfigError(f"field {key!r} lists a name twice")
            for x in names:
                if bad_name(x):
                    raise ConfigError(f"field {key!r} holds the unplayable name {x[:80]!r} (empty or an answer tag)")
        truths, actions = d["truths"], d["actions"]
        if len(truths) < 2:
            raise ConfigError(f"field 'truths' has {len(truths)} name(s); an instance needs at least 2")
        if len(truths) + len(actions) > MAX_TOTAL:
            raise ConfigError(f"{len(truths)} truths + {len(actions)} actions exceed {MAX_TOTAL}")
        clash = sorted(set(truths) & set(actions))
        if clash:
            raise ConfigError(f"{clash[0]!r} is both a truth and an action of the instance; answers would be ambiguous")
        if d.get("valid_truth") not in truths:
            raise ConfigError(f"field 'valid_truth' {str(d.get('valid_truth'))[:80]!r} is not one of the truths")
        outcomes, obs = d.get("outcomes"), d.get("observations")
        if not isinstance(outcomes, dict):
            raise ConfigError("field 'outcomes' must be a dict of action -> {type, states}")
        if not isinstance(obs, dict):
            raise ConfigError("field 'observations' must be a dict of action -> observed value")
        stated = d.get("observation_states")
        if stated is not None and not isinstance(stated, dict):
            raise ConfigError("field 'observation_states' must be a dict of action -> state indices")
        for a in actions:
            o = outcomes.get(a)
            if not isinstance(o, dict) or o.get("type") not in TYPES or not isinstance(o.get("states"), list) \
                    or not o["states"]:
                raise ConfigError(f"outcomes of action {a!r} must be {{'type': 'str'|'float', 'states': [...]}}")
            for s in o["states"]:
                if not isinstance(s, dict) or not isinstance(s.get("rules_out"), list) \
                        or not all(isinstance(t, str) for t in s["rules_out"]):
                    raise ConfigError(f"a state of action {a!r} must be {{'state': ..., 'rules_out': [names]}}")
                st = s.get("state")
                interval = isinstance(st, list) and len(st) == 2 and all(_finite(v) for v in st)
                # a str action may keep interval states (KUMO's mixed actions): they match nothing
                ok = (isinstance(st, str) or interval) if o["type"] == "str" else interval
                if not ok:
                    raise ConfigError(f"state {str(st)[:60]!r} of {o['type']} action {a!r} is malformed")
            if a not in obs:
                raise ConfigError(f"field 'observations' has no value for action {a!r}")
            v = obs[a]
            listed = isinstance(v, list) and len(v) == 2 and all(_finite(x) for x in v)
            if not ((isinstance(v, str) or listed) if o["type"] == "str" else _finite(v)):
                raise ConfigError(f"observation {str(v)[:60]!r} of {o['type']} action {a!r} is malformed")
            matched = [k for k, s in enumerate(o["states"]) if outcome_matches(o["type"], s["state"], v)]
            if stated is not None and (a not in stated or stated[a] != matched):
                raise ConfigError(f"field 'observation_states' of action {a!r} says {stated.get(a)!r} but the "
                                  f"observation {v!r} matches the states {matched}")
        alive = survivors(d)
        if alive != [d["valid_truth"]]:
            raise ConfigError(f"the observations leave {len(alive)} truth(s) possible ({', '.join(alive[:5])}); an "
                              f"instance must leave exactly its valid truth {d['valid_truth']!r} "
                              "(docs/specs/kumo.md §5 step 8)")
        seed = d.get("book_seed", 0)
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ConfigError(f"field 'book_seed' {seed!r} must be an integer")

    # ---- text ---------------------------------------------------------------------------------
    def book(self, instance: Instance) -> str:
        d = instance.data
        return render_book(d, instance.params.get("book_format", "template"), int(d.get("book_seed", 0)))

    def system_prompt(self, instance: Instance) -> str:
        d = instance.data
        truth, action = d.get("truth_noun") or "truth", d.get("action_noun") or "action"
        truths, actions = plural(truth), plural(action)
        goal = d.get("goal") or f"identify the {truth} behind the case"
        return "\n".join([
            f"You are playing a deduction game in the domain {d.get('domain', '?')}: {goal}.",
            (f"Exactly one of the {truths} below is the valid one. Each turn you either run one {action} and "
             f"read its outcome, or name the {truth} you believe is valid, which ends the game. Outcomes only "
             f"rule {truths} out, as the knowledge book explains; a {truth} that nothing has ruled out is still "
             f"possible. Find the valid {truth} with as few {actions} as you can."),
            "",
            f"{truths.capitalize()}: " + ", ".join(d["truths"]),
            f"{actions.capitalize()}: " + ", ".join(d["actions"]),
            "",
            self.book(instance),
        ])

    def turn_instruction(self, instance: Instance) -> str:
        d = instance.data
        truth, action = d.get("truth_noun") or "truth", d.get("action_noun") or "action"
        # the example names a test, never a truth: copied, it runs a test and ends nothing
        return (f"Either run one of these {plural(action)}: {', '.join(d['actions'])}; or name one of these "
                f"{plural(truth)}: "
                f"{', '.join(d['truths'])}. Finish your reply with exactly one name from these lists between "
                f"answer tags, for example: <ANSWER> {d['actions'][0]} </ANSWER>")

    def user_prompt(self, instance: Instance) -> str:
        """The first user message: the start of the game and the turn instruction, once."""
        return "The game starts now. " + self.turn_instruction(instance)

    def interactive_prompt(self, instance: Instance) -> str:
        """The system part; the environment appends :meth:`observation` (the first turn)."""
        return self.system_prompt(instance)

    def observation_text(self, instance: Instance, action: str) -> str:
        value = instance.data["observations"][action]
        if instance.params.get("observation_format") == "kumo_dict":
            return repr({"action": action, "observation": value})
        return f"Result of {action}: {value}"

    def observation(self, instance: Instance, state, feedback: str = "", step: int = 0) -> str:
        if not feedback:
            return self.user_prompt(instance) if step == 0 else self.turn_instruction(instance)
        return f"{feedback}\n\n{self.turn_instruction(instance)}"

    # ---- answers --------------------------------------------------------------------------------
    @staticmethod
    def _name(region: str) -> str:
        region = region.strip()
        if "${" in region:
            inner = region[region.find("${") + 2:]
            close = inner.find("}")
            region = (inner[:close] if close >= 0 else inner).strip()
        if not region:
            raise ParseError("no name inside <ANSWER> ... </ANSWER>", "no_answer")
        if len(region) > MAX_NAME:
            raise ParseError(f"the answer region has {len(region)} characters; a name is expected", "too_long")
        return region

    def names(self, text: str) -> list[str]:
        """Every ``<ANSWER>`` name of ``text`` in order (docs/specs/kumo.md §7 "Parsing"); linear time.

        A region runs from ``<ANSWER>`` to the next ``</ANSWER>`` or ``<ANSWER>`` (or the end);
        without any ``<ANSWER>`` the whole stripped text is one name (the reference's behaviour).
        """
        if not isinstance(text, str):
            raise ParseError("the reply is not text", "no_answer")
        low = text.lower()
        start = low.find("<answer>")
        if start < 0:
            return [self._name(text)]
        out = []
        while start >= 0:
            if len(out) >= MAX_NAMES:
                raise ParseError(f"more than {MAX_NAMES} names in one answer", "too_long")
            begin = start + len("<answer>")
            nxt = low.find("<answer>", begin)
            close = low.find("</answer>", begin)
            end = min(x for x in (close, nxt, len(text)) if x >= 0)
            out.append(self._name(text[begin:end]))
            start = nxt
        return out

    def parse(self, text: str) -> list[str]:
        """A single-turn answer: the names of the play in order (tests, then the prediction)."""
        return self.names(text)

    def expected_answer(self, instance: Instance) -> str:
        return (f"one name from the lists between answer tags at the end of the reply, such as "
                f"`<ANSWER> {instance.data['actions'][0]} </ANSWER>`")

    def parse_move(self, text: str) -> str:
        """One move: the name in the last ``<ANSWER>`` region (a ``<think>`` block is ignored)."""
        return self.names(split_thinking(text).answer)[-1]

    def format_answer(self, answer) -> str:
        names = [answer] if isinstance(answer, str) else list(answer)
        return "\n".join(self.format_move(x) for x in names)

    def format_move(self, move: str) -> str:
        return f"<ANSWER> {move} </ANSWER>"

    #: a list number or bullet before a name ("2. Rottweiler", "3) Gait", "- Gait"), which lenient matching drops:
    #: a real model answers with one line of the numbered list it has just read
    _ENUMERATOR = re.compile(r"(?:\(?\d{1,3}[.)]|[-*\u2022])\s+")

    @classmethod
    def _fold(cls, name: str) -> str:
        name = name.strip().strip("`'\"*").strip()
        name = name.removesuffix(".")
        m = cls._ENUMERATOR.match(name)
        if m is not None:
            name = name[m.end():]
        return re.sub(r"\s+", " ", name.strip("`'\"* ")).casefold()

    def match_name(self, instance: Instance, name: str) -> tuple[str, str] | None:
        """``("action"|"truth", canonical name)`` or None (docs/specs/kumo.md §7: actions first, then truths)."""
        d = instance.data
        for kind, names in (("action", d["actions"]), ("truth", d["truths"])):
            if name in names:
                return kind, name
        if instance.params.get("match") == "lenient":
            f = self._fold(name)
            for kind, names in (("action", d["actions"]), ("truth", d["truths"])):
                for n in names:
                    if self._fold(n) == f:
                        return kind, n
        return None

    def judge(self, instance: Instance, prediction: str, tests: list[str] | None = None) -> Verdict:
        """The verdict on naming the truth ``prediction`` (docs/specs/kumo.md §8).

        ``tests=None`` (interactive play) applies the paper's rule alone: right iff no
        observation of the instance, revealed or not, rules the prediction out. With ``tests``
        (a single-turn play) the prediction must also be determined by them (rule
        ``undetermined``): the tests leave no other truth possible, or no untested test could
        rule the prediction out (then uniqueness makes it the valid one).
        """
        d = instance.data
        details: dict = {"predicted": prediction, "tests_taken": len(tests or ())}
        if self.rule_enabled("ruled_out"):
            culprit = next((a for a in d["actions"] if prediction in ruled_out_by(d, a)), None)
            if culprit is not None:
                return Verdict("wrong", f"Wrong: {prediction} is ruled out by the outcome of {culprit}.",
                               details={**details, "ruled_out_by": culprit,
                                        "violations": [{"rule": "ruled_out", "action": culprit}]})
        if tests is not None and self.rule_enabled("undetermined"):
            alive = survivors(d, dict.fromkeys(tests))
            untested = [a for a in d["actions"] if a not in set(tests)]
            related = any(prediction in s["rules_out"] for a in untested for s in d["outcomes"][a]["states"])
            if len(alive) > 1 and related:
                return Verdict("wrong", f"Unjustified: after the tests named, {len(alive)} truths are still possible "
                               f"({', '.join(alive[:6])}); naming one of them is a guess.",
                               details={**details, "still_possible": alive,
                                        "violations": [{"rule": "undetermined", "still_possible": len(alive)}]})
        return Verdict.success(f"Correct: {prediction} is consistent with every observation.", **details)

    def verify(self, instance: Instance, answer) -> Verdict:
        """A single-turn play: tests, then the prediction (the first truth named ends the game)."""
        names = [answer] if isinstance(answer, str) else answer
        if not isinstance(names, (list, tuple)) or not names:
            return Verdict("parse_error", "The answer names nothing.", details={"reason": "no_answer"})
        tests: list[str] = []
        for name in names:
            hit = self.match_name(instance, name) if isinstance(name, str) else None
            if hit is None:
                return Verdict("parse_error", f"{str(name)[:80]!r} is neither an action nor a truth of this game.",
                               details={"reason": "unknown_name"})
            kind, canonical = hit
            if kind == "truth":
                return self.judge(instance, canonical, tests)
            tests.append(canonical)
        return Verdict("incomplete", f"{len(tests)} test(s) named but no prediction.",
                       details={"tests_taken": len(tests), "reason": "no_prediction"})

    def solve(self, instance: Instance) -> list[str]:
        """The oracle's play: its tests, then the valid truth (a justified single-turn answer)."""
        return self.golden_moves(instance)

    def corrupt_answer(self, instance: Instance, answer, rng: np.random.Generator) -> list[str]:
        """The golden play with another instance truth as the prediction: ruled out, so it scores 0."""
        moves = [answer] if isinstance(answer, str) else list(answer)
        others = [t for t in instance.data["truths"] if t != moves[-1]]
        return moves[:-1] + [others[int(rng.integers(len(others)))]]

    def random_answer(self, instance: Instance, rng: np.random.Generator) -> list[str]:
        """A legal-looking random play: a random set of tests in random order, then a random truth."""
        d = instance.data
        k = int(rng.integers(len(d["actions"]) + 1))
        tests = [d["actions"][int(i)] for i in rng.permutation(len(d["actions"]))[:k]]
        return tests + [d["truths"][int(rng.integers(len(d["truths"])))]]

    # ---- reward integrity (core/capabilities) ---------------------------------------------------
    def near_misses(self, instance: Instance, rng: np.random.Generator) -> list[NearMiss]:
        """Plays that break exactly one rule (the registry-wide adversarial suite).

        ``ruled_out``: every test, then a wrong truth; truths ruled out by a single observation
        come first (a float one first of all: its interval must be closed at both ends to catch
        it), so a weakened interval test or a check that stops early is caught.
        ``undetermined``: the valid truth after only the tests that leave one other truth alive.
        """
        d = instance.data
        out: list[NearMiss] = []
        valid, actions = d["valid_truth"], list(d["actions"])
        by = {t: [a for a in actions if t in ruled_out_by(d, a)] for t in d["truths"] if t != valid}
        float_first = sorted(by, key=lambda t: (len(by[t]), d["outcomes"][by[t][0]]["type"] != "float"
                                                if by[t] else True, d["truths"].index(t)))
        for t in float_first[:4]:
            out.append(NearMiss("ruled_out", actions + [t], note=f"{t} ruled out only by {', '.join(by[t])}"))
        out += self._boundary_misses(instance, by)
        for u in float_first:
            keep = [a for a in actions if a not in by[u]]
            untested = [a for a in actions if a in by[u]]
            if not any(valid in s["rules_out"] for a in untested for s in d["outcomes"][a]["states"]):
                rel = [a for a in keep if any(valid in s["rules_out"] for s in d["outcomes"][a]["states"])]
                if not rel:
                    continue
                keep.remove(rel[int(rng.integers(len(rel)))])
            out.append(NearMiss("undetermined", keep + [valid], note=f"{u} is still possible"))
            if sum(m.rule == "undetermined" for m in out) >= 3:
                break
        return out

    def _boundary_misses(self, instance: Instance, by: dict) -> list[NearMiss]:
        """``ruled_out`` near misses on variants of the instance whose float observation sits
        exactly on an end of its interval (docs/specs/kumo.md §2: intervals are closed at both ends), for a truth
        that only that observation rules out: a half-open interval test lets the truth survive."""
        d = instance.data
        out: list[NearMiss] = []
        for t, acts in by.items():
            if len(acts) != 1 or d["outcomes"][acts[0]]["type"] != "float":
                continue
            a = acts[0]
            states = d["outcomes"][a]["states"]
            matched = [k for k, s in enumerate(states) if outcome_matches("float", s["state"], d["observations"][a])]
            for end in sorted(set(states[matched[0]]["state"])) if matched else ():
                if [k for k, s in enumerate(states) if outcome_matches("float", s["state"], end)] != matched:
                    continue  # the end is shared with another state: the observation would change meaning
                data = copy.deepcopy(d)
                data["observations"][a] = end
                data.get("observation_states", {}).pop(a, None)  # matched afresh, as for imported records
                variant = dataclasses.replace(instance, data=data)
                out.append(NearMiss("ruled_out", list(d["actions"]) + [t], instance=variant,
                                    note=f"{t} ruled out only by {a} = {end}, an end of its interval"))
            if len(out) >= 4:
                break
        return out

    def cheap_answers(self, instance: Instance, rng: np.random.Generator) -> list[CheapAnswer]:
        """The reward hacks a KUMO player could try (the registry-wide reward-hacking suite).

        In play (binary, the paper's reward) a guess is right with chance 1/|truths|; single-turn
        scoring and ``reward="partial"`` pay only a prediction the tests determine, so they pay
        none of these. (Running every test and then guessing is not listed: when right it is a
        complete, justified play, right with chance 1/|truths| in every mode.)
        """
        d = instance.data
        truths, actions = list(d["truths"]), list(d["actions"])
        chance = 1.0 / len(truths)
        guess = truths[int(rng.integers(len(truths)))]
        budget = self.max_steps(instance) + 5

        def play(names, moves=None):
            return {"completion": self.format_answer(names),
                    "moves": tuple(self.format_move(x) for x in (names if moves is None else moves))}

        return [
            CheapAnswer("empty", completion="", moves=("",) * 4, chance=0.0),
            CheapAnswer("blind_guess", chance=chance, **play([guess])),
            CheapAnswer("answer_at_once_first_truth", chance=chance, **play([truths[0]])),
            CheapAnswer("every_truth", chance=chance, **play(truths)),
            CheapAnswer("every_name_in_one_reply", completion=self.format_answer(truths + actions),
                        moves=(self.format_answer(truths + actions),) * budget, chance=chance),
            CheapAnswer("repeat_one_test", chance=0.0, **play([actions[0]] * budget)),
            CheapAnswer("step_after_the_end", chance=chance, **play([guess], [guess] * 4)),
        ]

    # ---- oracle ---------------------------------------------------------------------------------
    _ORACLE_CACHE: ClassVar[OrderedDict] = OrderedDict()

    def oracle(self, instance: Instance, memo_limit: int | None = None):
        """The oracle's realised play (cached per instance): a ``search.Trajectory``.

        The search is exact; only past ``memo_limit`` memo entries (default
        ``search.PLAY_MEMO_LIMIT``, far above what any Hard instance needs) does the greedy
        baseline play instead, marked ``optimal=False``.
        """
        from .search import PLAY_MEMO_LIMIT, oracle_play

        limit = PLAY_MEMO_LIMIT if memo_limit is None else int(memo_limit)
        key = (instance.instance_id, limit)
        cache = KumoTask._ORACLE_CACHE
        if key in cache:
            cache.move_to_end(key)
            return cache[key]
        traj = oracle_play(instance.data, limit)
        cache[key] = traj
        if len(cache) > 4096:
            cache.popitem(last=False)
        return traj

    def golden_moves(self, instance: Instance, memo_limit: int | None = None) -> list[str]:
        traj = self.oracle(instance, memo_limit)
        return list(traj.actions) + [traj.predicted]

    def oracle_move(self, instance: Instance, state) -> str:
        """The oracle's next move from any state (used for rollouts from off-policy states)."""
        from .search import OptimalSearch, _base_prediction, oracle_tables

        tab = oracle_tables(instance.data)
        T, A = tab.all_truths, tab.all_actions
        for a in dict.fromkeys(state or []):
            j = tab.actions.index(a)
            T &= ~int(tab.observed[j])
            A &= ~(1 << j)
        pred = _base_prediction(tab, T, A)
        if pred is not None:
            return tab.truths[pred] if pred >= 0 else tab.truths[0]
        _, j = OptimalSearch(tab).best(T, A)
        return tab.actions[j]

    def optimal_steps(self, instance: Instance) -> int:
        """The oracle's tests (the final prediction is not a test, docs/specs/kumo.md §11)."""
        return self.oracle(instance).tests

    def max_steps(self, instance: Instance) -> int:
        return 50

    # ---- interactive protocol -------------------------------------------------------------------
    def initial_state(self, instance: Instance) -> list:
        return []

    def check_move(self, instance: Instance, state, move) -> str | None:
        """None for a name of the lists (every such move is legal; repeats included)."""
        return None if isinstance(move, str) and self.match_name(instance, move) is not None else "unknown_name"

    def legal_moves(self, instance: Instance, state) -> list[str]:
        return self.move_catalog(instance)

    def transition(self, instance: Instance, state, move) -> Transition:
        hit = self.match_name(instance, move)
        if hit is None:
            return Transition(state, "illegal_move", f"{' '.join(str(move).split())[:80]!r} is not a name from the lists. Expected "
                              f"{self.expected_answer(instance)}.", details={"reason": "unknown_name"})
        kind, name = hit
        if kind == "action":
            new = list(state) + [name]
            return Transition(new, "continue", self.observation_text(instance, name),
                              details={"tests_taken": len(new), "action": name})
        v = self.judge(instance, name)
        # ``justified``: the tests run determine the prediction (what ``reward="partial"`` pays);
        # ``moves`` counts the tests only: the prediction ends the game and is not a test (docs/specs/kumo.md §11),
        # so evaluation ratios against ``optimal_steps`` (the oracle's tests) compare like with like
        justified = v.solved and self.judge(instance, name, list(state)).solved
        return Transition(list(state), "solved" if v.solved else "wrong", v.message, reward=v.reward,
                          details={**v.details, "tests_taken": len(state), "moves": len(state),
                                   "justified": justified})

    def render_state(self, instance: Instance, state) -> str:
        d = instance.data
        lines = [f"Tests run: {len(state)}"]
        for a in state:
            lines.append(f"  {a}: {d['observations'][a]}")
        ruled = set().union(*(ruled_out_by(d, a) for a in state)) if state else set()
        lines.append("Still possible: " + ", ".join(t for t in d["truths"] if t not in ruled))
        return "\n".join(lines)

    def render(self, instance: Instance, state=None) -> str:
        return self.render_state(instance, state or [])

    def final_state(self, instance: Instance, answer) -> list[str] | None:
        """The tests a single-turn play names before its prediction."""
        names = [answer] if isinstance(answer, str) else answer
        if not isinstance(names, (list, tuple)):
            return None
        tests = []
        for name in names:
            hit = self.match_name(instance, name) if isinstance(name, str) else None
            if hit is None or hit[0] == "truth":
                break
            tests.append(hit[1])
        return tests

    def state_picture(self, instance: Instance, state, verdict: dict, move=None) -> AnswerPicture:
        """The game as it ended, as text: the tests run with their outcomes, the prediction, and
        the test whose outcome rules the prediction out (the verdict's ``ruled_out_by``), marked
        with ``<<`` (whether it was run or not)."""
        d = instance.data
        details = verdict.get("details") if isinstance(verdict.get("details"), dict) else {}
        culprit, predicted = details.get("ruled_out_by"), details.get("predicted")
        taken = [a for a in (state or []) if a in d["observations"]]
        mark = "  << rules out the prediction"
        lines = [f"Tests run: {len(taken)}"]
        lines += [f"  {a}: {d['observations'][a]}" + (mark if a == culprit else "") for a in taken]
        if culprit in d["observations"] and culprit not in taken:
            lines.append(f"  (not run) {culprit}: {d['observations'][culprit]}{mark}")
        ruled = set().union(*(ruled_out_by(d, a) for a in taken)) if taken else set()
        lines.append("Still possible after these tests: " + ", ".join(t for t in d["truths"] if t not in ruled))
        lines.append(f"Prediction: {predicted}" if isinstance(predicted, str) else "No prediction.")
        marks = [{"what": "test", "at": culprit, "first": True, "run": culprit in taken}] if culprit in d["observations"] else []
        caption = "The game as it ended: the tests run, their outcomes and the prediction."
        if marks:
            caption += f" Marked: {culprit}, whose outcome rules the prediction out."
        return AnswerPicture(text="\n".join(lines), marks=marks, caption=caption)

    def render_rgb(self, instance: Instance, state=None) -> np.ndarray:
        """The instance as a picture: truths x tests, observed outcomes, what is still possible."""
        from .render import draw_game

        return draw_game(instance.data, list(state or []))

    # ---- structured view (SB3) ------------------------------------------------------------------
    def move_catalog(self, instance: Instance) -> list[str]:
        """Every action, then every truth: ``Discrete(n_actions + n_truths)`` (docs/specs/kumo.md §7)."""
        return list(instance.data["actions"]) + list(instance.data["truths"])

    def encode_state(self, instance: Instance, state) -> np.ndarray:
        """Alive-truth mask, taken-action mask, observed state index per action (scaled), and the
        static relation matrix (fraction of each action's states that rule out each truth)."""
        d = instance.data
        truths, actions = d["truths"], d["actions"]
        taken = set(state or [])
        ruled = set().union(*(ruled_out_by(d, a) for a in taken)) if taken else set()
        alive = [0.0 if t in ruled else 1.0 for t in truths]
        took = [1.0 if a in taken else 0.0 for a in actions]
        seen = []
        for a in actions:
            k = matching_states(d, a)
            n = len(d["outcomes"][a]["states"])
            seen.append((k[0] + 1) / n if a in taken and k else 0.0)
        rel = []
        for a in actions:
            sts = d["outcomes"][a]["states"]
            rel.extend(sum(t in s["rules_out"] for s in sts) / len(sts) for t in truths)
        return np.asarray(alive + took + seen + rel, dtype=np.float32)

    def state_bounds(self, instance: Instance):
        return 0.0, 1.0

    # ---- contamination --------------------------------------------------------------------------
    def check_trainable(self, instance: Instance) -> None:
        """Refuse instances of held-out domains (docs/specs/kumo.md §12)."""
        d = instance.data
        fp = d.get("domain_fingerprint")
        # an instance's own params may only add fingerprints: names in data are never resolved
        extra = [x for x in instance.params.get("heldout_domains") or () if isinstance(x, str) and FINGERPRINT.match(x)]
        if d.get("domain_label") == "heldout" or fp in heldout_fingerprints(extra):
            raise ContaminationError(f"domain {d.get('domain')!r} is held out; its instances must not be used "
                                     "for training")


def _finite(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


class DiagnosisGameEnv(InteractiveEnv):
    """KUMO diagnosis game (``kumo_gym/KUMO-v0``), multi-turn.

    ## Observation space
    ``Text``. After ``reset``: the game description, the truth and action lists, the knowledge
    book and the turn instruction (once). After a test: ``Result of <action>: <value>`` and the
    turn instruction. After the prediction: the verdict.

    ## Action space
    ``Text``. The reply must end with ``<ANSWER> name </ANSWER>``, the name being an action or a
    truth of the instance (exact match; ``match="lenient"`` tolerates case, spacing, quotes and a list number).
    A ``<think>...</think>`` block is ignored. Repeating a test is allowed and counted.

    ## Rewards
    ``reward="binary"`` (default, the paper's): 1 for naming a truth that no outcome of the
    instance rules out (= the valid truth), else 0. ``reward="partial"``: 1 only when the tests
    run also determine that truth (a lucky guess earns 0). ``step_penalty`` (a finite number in
    [0, 1], default 0) is subtracted per test.

    ## Episode end
    Terminated on a prediction. An unreadable reply or a name outside the lists has no effect
    and comes back as feedback; ``max_invalid`` (default 3) in a row truncate. Truncated after
    ``max_steps`` turns (default 50, the reference's budget).

    ## Info
    ``instance_id``, ``domain``, ``difficulty``, ``split``, ``optimal_steps`` (the oracle's tests;
    the final prediction is not a test), ``optimal_expected_steps`` and ``optimal_action`` (root of
    the exact expected-steps search), ``oracle_optimal``, ``tests_taken``; ``verdict`` on every
    step (its ``details.moves`` counts tests). Never the valid truth.

    ## Arguments
    ``step_penalty`` (see Rewards). ``oracle_memo_limit`` bounds the oracle's memo at reset
    (default 8,000,000 entries; no Hard instance needs a tenth of it); past it the greedy
    baseline fills ``optimal_*`` and ``oracle_optimal`` is False.
    ``reset(options={"instance": record})`` replays an Instance or a KUMO record (``truths,
    actions, observations, valid_truth``): its outcomes come from the ``domain`` argument (a name
    or a path you pass), from the record itself, or from the registered domain the record names
    (a record's ``domain`` string never opens a file of its own choosing).
    """

    def __init__(self, task, env_id: str, *, max_steps: int | None = 50, step_penalty: float = 0.0,
                 oracle_memo_limit: int | None = None, **kwargs):
        super().__init__(task, env_id, max_steps=max_steps, **kwargs)
        if isinstance(step_penalty, bool) or not isinstance(step_penalty, (int, float)) \
                or not math.isfinite(step_penalty) or not 0.0 <= step_penalty <= 1.0:
            # a negative penalty would pay for repeating a test (-1 x 49 steps = +49)
            raise ConfigError(f"step_penalty {step_penalty!r} must be a finite number in [0, 1]")
        self.step_penalty = float(step_penalty)
        self.oracle_memo_limit = None if oracle_memo_limit is None else check_int("oracle_memo_limit",
                                                                                  oracle_memo_limit, 1)
        self.tests_taken = 0

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        options = dict(options or {}) if isinstance(options, dict) else options
        rec = options.get("instance") if isinstance(options, dict) else None
        if isinstance(rec, str) and rec.lstrip().startswith("{"):
            import json

            try:
                rec = json.loads(rec)
            except ValueError as e:
                raise ConfigError(f"the KUMO instance is not valid JSON: {e}") from None
        if isinstance(rec, dict) and "family" not in rec and "truths" in rec and "observation_states" not in rec:
            dom = self.params.get("domain")
            prompt = {k: self.params[k] for k in self.task.prompt_option_names()}
            try:
                options["instance"] = self.task.load(rec, domain=None if dom in (ANY_DOMAIN, PROCEDURAL) else dom,
                                                     prompt_options=prompt)
            except (TypeError, KeyError, IndexError, AttributeError, ValueError) as e:
                if isinstance(e, ConfigError):
                    raise
                raise ConfigError(f"malformed KUMO record: {type(e).__name__}: {str(e)[:200]}") from None
        obs, info = super().reset(seed=seed, options=options)
        self.tests_taken = 0
        return obs, self._kumo_info(info)

    def _kumo_info(self, info: dict) -> dict:
        inst = self.instance
        traj = self.task.oracle(inst, self.oracle_memo_limit)
        info.update(domain=inst.data.get("domain"), tests_taken=self.tests_taken,
                    optimal_steps=traj.tests, optimal_expected_steps=float(traj.root_expected),
                    optimal_action=traj.actions[0] if traj.actions else None,
                    oracle_optimal=bool(traj.optimal))
        odd = inst.data.get("unmatched_observations")
        if odd:
            # a KUMO record's oddity, played as KUMO's engine plays it (docs/specs/kumo.md §3)
            info["unmatched_observations"] = list(odd)
            info["record_notes"] = [f"the observation of str action {a!r} is an interval, which KUMO's equality "
                                    "matching compares with no state: it rules nothing out" for a in odd]
        return info

    def _reward(self, verdict) -> float:
        if self.reward_mode == "partial":
            return 1.0 if verdict.solved and verdict.details.get("justified") else 0.0
        return float(verdict.reward)

    def _end(self, verdict, info):
        _, reward, terminated, truncated, info = super()._end(verdict, info)
        # the game is over: the verdict alone, no instruction to play on
        return to_charset(verdict.message), reward, terminated, truncated, info

    def step(self, action):
        obs, reward, terminated, truncated, info = super().step(action)
        v = info.get("verdict")
        details = (v or {}).get("details") or {}
        if v and v.get("status") == "illegal_move" and "unknown_name" in (details.get("reason"),
                                                                          details.get("last_reason")):
            # a name outside the instance is an unreadable answer in KUMO's protocol (docs/specs/kumo.md §7),
            # also when it is the last of the invalid replies that end the episode
            v["status"] = "parse_error"
            if info.get("status") == "illegal_move":
                info["status"] = "parse_error"
        self.tests_taken = len(self.state or [])
        info["tests_taken"] = self.tests_taken
        if info.get("status") == "continue":
            reward -= self.step_penalty
        return obs, float(reward), terminated, truncated, info


__all__ = ["DiagnosisGameEnv", "KumoParams", "KumoTask", "declare_heldout", "heldout_fingerprints", "procedural_domain"]

#: ``KumoEnv`` was this class's name: ``gym.make("kumo_gym/KUMO-v0").unwrapped`` is a ``KUMOEnv`` (the
#: id's documented subclass), and two names differing only in case misled readers
__getattr__ = renamed(__name__, {"KumoEnv": "DiagnosisGameEnv"})
