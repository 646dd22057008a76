"""Procedural KUMO domains without a language model, and the optional LLM proposal path (docs/specs/kumo.md §14).

``new_domain(seed)`` composes names from syllable and word lists and draws rule-out relations
with a community structure (a state rules out truths of its action's home community with
probability ``p_within``), then repairs and validates the result. Seeds live in two disjoint
key-spaces, ``train`` and ``heldout``: a held-out seed's domain is labelled ``heldout`` and
refused by training builders by construction.
"""
from __future__ import annotations

import hashlib
import json

import numpy as np

from ...core.errors import ConfigError, check_choice
from ...core.seeding import derive_entropy
from .domain import SCHEMA, Domain, errors, import_kumo_domain, validate_domain

GENERATOR_VERSION = 2  # 2: names that leak neither key-space nor seed
KEYSPACES = ("train", "heldout")

_SYLLABLES = ("ka", "lo", "mi", "ren", "sa", "tor", "vel", "qui", "dan", "esh", "ori", "pel", "zan", "mur",
              "tis", "bra", "gol", "hen", "ix", "jun", "nor", "ul", "ced", "fay", "wyn", "os", "rak", "tem")
THEMES = {
    "ailment": {"goal": "diagnose which {truth} afflicts the specimen", "truth": "ailment", "action": "assay",
                "suffixes": ("itis", "osis", " syndrome", " fever", " blight", " palsy"),
                "tests": ("assay", "panel", "culture", "scan", "titre", "smear", "probe", "swab")},
    "artifact": {"goal": "identify which {truth} the excavated fragment comes from", "truth": "artifact",
                 "action": "analysis", "suffixes": (" ware", " style", " culture", " horizon", " tradition"),
                 "tests": ("dating", "glaze study", "isotope ratio", "residue test", "imaging", "microscopy")},
    "malfunction": {"goal": "find which {truth} stops the machine", "truth": "malfunction", "action": "check",
                    "suffixes": (" fault", " leak", " stall", " drift", " overload", " seizure"),
                    "tests": ("readout", "pressure check", "load test", "trace", "sweep", "inspection")},
}
_STR_STATES = ("absent", "faint", "marked", "intense", "blue", "green", "amber", "grey", "rough", "smooth",
               "rapid", "slow", "regular", "irregular", "positive", "negative", "mixed", "none seen")


def _name(rng, used: set, suffixes) -> str:
    for _ in range(1000):
        n = "".join(_SYLLABLES[int(i)] for i in rng.integers(len(_SYLLABLES), size=int(rng.integers(2, 4))))
        n = n.capitalize() + suffixes[int(rng.integers(len(suffixes)))]
        if n.casefold() not in used:
            used.add(n.casefold())
            return n
    raise ConfigError("ran out of distinct names; lower n_truths or n_actions")


def domain_rng(seed: int, keyspace: str = "train", params: dict | None = None) -> np.random.Generator:
    check_choice("keyspace", keyspace, KEYSPACES)
    return np.random.default_rng(np.random.SeedSequence(derive_entropy("kumo.procedural", keyspace, int(seed),
                                                                       params or {})))


def new_domain(seed: int, *, keyspace: str = "train", n_truths: int = 50, n_actions: int = 30,
               float_fraction: float = 0.4, n_communities: int = 5, p_within: float = 0.85,
               max_rule_out: int = 6, p_empty_state: float = 0.2, theme: str = "ailment", decimals: int = 2,
               probe: bool = True, max_redraws: int = 20) -> Domain:
    """A validated procedural domain for ``(seed, keyspace, params)`` (docs/specs/kumo.md §14), deterministic."""
    check_choice("theme", theme, sorted(THEMES))
    params = {"n_truths": n_truths, "n_actions": n_actions, "float_fraction": float_fraction,
              "n_communities": n_communities, "p_within": p_within, "max_rule_out": max_rule_out,
              "p_empty_state": p_empty_state, "theme": theme, "decimals": decimals}
    if n_truths < 4 or n_actions < 2:
        raise ConfigError(f"n_truths {n_truths} / n_actions {n_actions}: need at least 4 truths and 2 actions")
    rng = domain_rng(seed, keyspace, params)
    for _ in range(max_redraws):
        obj = _draw(rng, seed, keyspace, params)
        domain, issues = import_kumo_domain(obj)
        if issues or (probe and not _probe(domain, rng)):
            continue
        return domain
    raise ConfigError(f"no clean procedural domain for seed {seed} with {params} after {max_redraws} draws")


def _draw(rng, seed, keyspace, p) -> dict:
    th = THEMES[p["theme"]]
    used: set = set()
    truths = [_name(rng, used, th["suffixes"]) for _ in range(p["n_truths"])]
    community = rng.integers(p["n_communities"], size=p["n_truths"])
    members = [np.flatnonzero(community == c) for c in range(p["n_communities"])]
    actions, outcomes = [], {}
    for _ in range(p["n_actions"]):
        a = _name(rng, used, tuple(" " + t for t in th["tests"]))
        actions.append(a)
        home = int(rng.integers(p["n_communities"]))
        k = int(rng.integers(2, 5))
        ruled = []
        for _ in range(k):
            if rng.random() < p["p_empty_state"]:
                ruled.append([])
                continue
            size = int(rng.integers(1, p["max_rule_out"] + 1))
            picks = set()
            for _ in range(size):
                pool = members[home] if rng.random() < p["p_within"] and len(members[home]) else np.arange(
                    p["n_truths"])
                picks.add(int(pool[int(rng.integers(len(pool)))]))
            ruled.append(sorted(picks))
        if rng.random() < p["float_fraction"]:
            scale = float(10 ** int(rng.integers(0, 4)))
            gap = 10 ** -p["decimals"]
            cuts = np.sort(rng.choice(np.arange(1, 100), size=k - 1, replace=False)) * scale / 100
            edges = [0.0, *cuts.tolist(), scale]
            states = [[round(edges[i], p["decimals"]), round(edges[i + 1] - gap, p["decimals"])] for i in range(k)]
            typ = "float"
        else:
            picks = rng.choice(len(_STR_STATES), size=k, replace=False)
            states = [_STR_STATES[int(i)] for i in picks]
            typ = "str"
        outcomes[a] = {"type": typ, "states": [{"state": s, "rules_out": r} for s, r in zip(states, ruled)]}
    _repair(rng, truths, outcomes)
    for o in outcomes.values():
        for s in o["states"]:
            s["rules_out"] = [truths[i] for i in sorted(set(s["rules_out"]))]
    return {"schema": SCHEMA, "name": _domain_name(seed, keyspace, p),
            "goal": th["goal"].format(truth=th["truth"]), "truth_noun": th["truth"], "action_noun": th["action"],
            "truths": truths, "actions": actions, "outcomes": outcomes,
            "provenance": {"source": "procedural", "seed": int(seed), "params": p, "keyspace": keyspace,
                           "label": "heldout" if keyspace == "heldout" else "train",
                           "generator_version": GENERATOR_VERSION}}


def _domain_name(seed: int, keyspace: str, p: dict) -> str:
    """A made-up place name and the theme ("Velmurtis ailments"): it says nothing of the key-space
    or the seed, which a prompt must not leak (a held-out domain would announce itself). It comes
    from its own hashed stream, so the rest of the domain does not depend on it."""
    rng = domain_rng(seed, keyspace, {**p, "part": "name"})
    word = "".join(_SYLLABLES[int(i)] for i in rng.integers(len(_SYLLABLES), size=int(rng.integers(2, 4))))
    return f"{word.capitalize()} {p['theme']}s"


def _repair(rng, truths, outcomes) -> None:
    """docs/specs/kumo.md §14 repairs: every truth ruled out somewhere; none by every state of one action; every
    action relates some truth."""
    acts = list(outcomes)
    ruled = {i for o in outcomes.values() for s in o["states"] for i in s["rules_out"]}
    for t in range(len(truths)):
        if t not in ruled:
            o = outcomes[acts[int(rng.integers(len(acts)))]]
            o["states"][int(rng.integers(len(o["states"])))]["rules_out"].append(t)
    for o in outcomes.values():
        always = set(o["states"][0]["rules_out"]).intersection(*(s["rules_out"] for s in o["states"][1:]))
        for t in always:
            s = o["states"][int(rng.integers(len(o["states"])))]
            s["rules_out"] = [x for x in s["rules_out"] if x != t]
        if not any(s["rules_out"] for s in o["states"]):
            o["states"][0]["rules_out"].append(int(rng.integers(len(truths))))


def _probe(domain: Domain, rng) -> bool:
    """docs/specs/kumo.md §14 acceptance: Easy (and Hard when possible) generation works with mean attempts <= 10."""
    from .generate import GenerationError, GenerationStats, generate_instance

    settings = [(4, 6)] + ([(12, 16)] if len(domain.usable_actions()) >= 16 else [])
    for nt, na in settings:
        stats = GenerationStats()
        try:
            for _ in range(20):
                generate_instance(domain, nt, na, rng, max_attempts=50, stats=stats)
        except GenerationError:
            return False
        if stats.mean_attempts > 10:
            return False
    return True


def anonymize(domain: Domain, seed: int = 0) -> Domain:
    """Rename truths, actions and string states to neutral tokens (KUMO's anonymous control)."""
    rng = np.random.default_rng(seed)
    torder = rng.permutation(len(domain.truths))
    tmap = {t: f"Truth {int(torder[i]) + 1}" for i, t in enumerate(domain.truths)}
    amap = {a: f"Test {i + 1}" for i, a in enumerate(domain.actions)}
    outcomes = {}
    for a in domain.actions:
        o = domain.outcomes[a]
        outcomes[amap[a]] = {"type": o.type, "states": [
            {"state": s.label() if o.type == "float" else f"outcome {k + 1}",
             "rules_out": [tmap[t] for t in s.rules_out]} for k, s in enumerate(o.states)]}
    obj = {"schema": SCHEMA, "name": f"Anonymous {domain.name}", "goal": "identify the valid truth",
           "truths": [tmap[t] for t in domain.truths], "actions": [amap[a] for a in domain.actions],
           "outcomes": outcomes, "provenance": {"source": "anonymized", "of": domain.fingerprint, "seed": seed,
                                                "label": domain.label}}
    return import_kumo_domain(obj)[0]


# ---- optional LLM pipeline (docs/specs/kumo.md §14) ------------------------------------------------------------------
_PROPOSE = ("Invent a diagnosis game domain about {topic}. Reply with ONE JSON object in this schema and nothing "
            "else: {schema}. Requirements: at least {nt} truths and {na} actions; both action types 'str' and "
            "'float'; at least 2 states per action; a state lists the truths it RULES OUT; no truth may be ruled "
            "out by every state of one action; float states are non-overlapping closed intervals [lo, hi].")
_SCHEMA_HINT = ('{"name": str, "goal": str, "truth_noun": str, "action_noun": str, "truths": [str], '
                '"actions": [str], "outcomes": {action: {"type": "str"|"float", "states": '
                '[{"state": str or [lo, hi], "rules_out": [truth]}]}}}')


def _json_object(text: str) -> dict | None:
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        return None
    try:
        obj = json.loads(text[start:end + 1])
    except ValueError:
        return None
    return obj if isinstance(obj, dict) else None


def propose_domain(backend, topic: str, *, n_truths: int = 50, n_actions: int = 30, max_continuations: int = 3,
                   max_repairs: int = 3, max_tokens: int = 16000, model: str = "") -> tuple[Domain | None, list]:
    """Ask a model (any ``ChatBackend``) for a domain in our schema; accept it only when it imports
    with zero errors and passes the generation probe (docs/specs/kumo.md §14). Returns ``(domain or None, issues)``."""
    prompt = _PROPOSE.format(topic=topic, schema=_SCHEMA_HINT, nt=n_truths, na=n_actions)
    messages = [{"role": "user", "content": prompt}]
    issues: list = []
    for _ in range(max_repairs + 1):
        text = ""
        for _ in range(max_continuations + 1):
            reply = backend.chat(messages + ([{"role": "assistant", "content": text}] if text else []),
                                 max_tokens=max_tokens, temperature=0.7)
            part = reply[0] if reply else None
            text += part.text if part else ""
            if part is None or part.finish_reason != "length":
                break
        obj = _json_object(text)
        if obj is None:
            issues = ["the reply holds no JSON object"]
            messages = messages + [{"role": "assistant", "content": text},
                                   {"role": "user", "content": "That was not one JSON object. Send it again."}]
            continue
        obj["schema"] = SCHEMA
        obj["provenance"] = {"source": "llm", "model": model, "topic": topic,
                             "prompt_sha256": hashlib.sha256(prompt.encode()).hexdigest()}
        domain, issues = import_kumo_domain(obj)
        issues = issues + [i for i in validate_domain(domain, 4, 6) if i not in issues]
        if not errors(issues) and not issues and _probe(domain, np.random.default_rng(0)):
            return domain, []
        report = "\n".join(str(i) for i in issues) or "instances could not be generated from it"
        messages = messages + [{"role": "assistant", "content": text},
                               {"role": "user", "content": "Fix these problems and send the whole JSON again:\n"
                                + report}]
    return None, issues
