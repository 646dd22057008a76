"""SAT-based instance generation, Algorithms 1-2 of the KUMO paper (``docs/specs/kumo.md`` §5).

Given a domain and sizes, draw a subset of truths, designate one valid truth, and ask a SAT
solver (python-sat, MiniSat 2.2) for at most one state per action, at most ``n_actions``
actions, such that every invalid truth is ruled out by some chosen state. The remaining action
slots are filled with states that keep the valid truth alive. Every instance leaves exactly one
truth consistent with all of its observations; this is asserted (docs/specs/kumo.md §5 step 8).
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from itertools import pairwise

import numpy as np

from ...core.errors import ConfigError
from .domain import Domain, State
from .search import matching_states, outcome_matches, ruled_out_by, survivors

GENERATOR_VERSION = 1
SAT_ORDERS = ("shuffled", "domain")
MAX_TOTAL = 62  # truths + actions must fit one int64 bitmask in the oracle (docs/specs/kumo.md §9)


class GenerationError(ConfigError):
    """No instance could be drawn for these settings (names the domain, sizes and the cause)."""


@dataclass
class GenerationStats:
    """Counters across draws (docs/specs/kumo.md §15 reports mean SAT attempts and giveaway rates)."""

    instances: int = 0
    attempts: int = 0
    unsat: int = 0
    non_unique: int = 0
    duplicates: int = 0
    giveaway_rejected: int = 0
    failing_truths: Counter = field(default_factory=Counter)

    @property
    def mean_attempts(self) -> float:
        return self.attempts / self.instances if self.instances else 0.0


class _Tables:
    """Bitmask view of a domain, computed once per domain object."""

    def __init__(self, domain: Domain):
        self.domain = domain
        self.truth_index = {t: i for i, t in enumerate(domain.truths)}
        self.actions = domain.usable_actions()
        self.states: list[list[State]] = [list(domain.outcomes[a].states) for a in self.actions]
        self.masks: list[list[int]] = [[sum(1 << self.truth_index[t] for t in s.rules_out) for s in sts]
                                       for sts in self.states]
        self.types = [domain.outcomes[a].type for a in self.actions]
        # an action named like a truth may not share an instance with that truth (docs/specs/kumo.md §4)
        self.clash = [1 << self.truth_index[a] if a in self.truth_index else 0 for a in self.actions]
        self.admissible: dict = {}


_TABLES: dict[int, _Tables] = {}


def tables(domain: Domain) -> _Tables:
    t = _TABLES.get(id(domain))
    if t is None or t.domain is not domain:
        if len(_TABLES) > 512:
            _TABLES.clear()
        t = _TABLES[id(domain)] = _Tables(domain)
    return t


def check_sizes(n_truths, n_actions) -> tuple[int, int]:
    from ...core.errors import check_int

    n_truths = check_int("n_truths", n_truths, 2)
    n_actions = check_int("n_actions", n_actions, 1)
    if n_truths + n_actions > MAX_TOTAL:
        raise ConfigError(f"n_truths + n_actions = {n_truths + n_actions} exceeds {MAX_TOTAL}")
    return n_truths, n_actions


# ---- float observations (docs/specs/kumo.md §5 step 6) ------------------------------------------------------------
def admissible_pieces(states: list[State], k: int, forbidden: list[int]):
    """Interval ``k`` minus the closed intervals ``forbidden``: open pieces and isolated points.

    The open pieces between breakpoints are either wholly inside or wholly outside each closed
    forbidden interval, so a value drawn strictly inside an admissible piece never touches a
    forbidden endpoint.
    """
    lo, hi = states[k].value
    bad = [states[j].value for j in forbidden if j != k]

    def allowed(x):
        # the matching rule itself (closed intervals), never a copy of it
        return outcome_matches("float", (lo, hi), x) and not any(outcome_matches("float", iv, x) for iv in bad)

    cuts = sorted({lo, hi, *(v for iv in bad for v in iv if lo < v < hi)})
    pieces = [(p, q) for p, q in pairwise(cuts) if q > p and allowed((p + q) / 2)]
    points = [c for c in cuts if allowed(c)]
    return pieces, points, allowed


def admissible_value(states: list[State], k: int, forbidden: list[int], rng: np.random.Generator,
                     float_decimals: int | None = None) -> float | None:
    """A value drawn uniformly (length-weighted) from :func:`admissible_pieces`; None if empty."""
    pieces, points, allowed = admissible_pieces(states, k, forbidden)
    for _ in range(32):
        if pieces:
            lengths = np.array([q - p for p, q in pieces])
            p, q = pieces[int(rng.choice(len(pieces), p=lengths / lengths.sum()))] if len(pieces) > 1 else pieces[0]
            x = p + float(rng.random()) * (q - p)
            if x == p:
                continue
        elif points:
            x = points[int(rng.integers(len(points)))]
        else:
            return None
        if float_decimals is not None:
            x = round(x, float_decimals)
        if allowed(x):
            return float(x)
    return None


def _has_value(tab, a: int, s: int, star: int, strict: bool) -> bool:
    key = (a, s, star if not strict else -1)
    hit = tab.admissible.get(key)
    if hit is None:
        sts = tab.states[a]
        pieces, points, _ = admissible_pieces(sts, s, _float_forbidden(sts, tab.masks[a], s, 1 << star, strict))
        hit = tab.admissible[key] = bool(pieces or points)
    return hit


def _float_forbidden(states: list[State], masks: list[int], k: int, star_bit: int, strict: bool) -> list[int]:
    if strict:
        return [j for j in range(len(states)) if j != k]
    return [j for j in range(len(states)) if j != k and masks[j] & star_bit]


# ---- the generator ---------------------------------------------------------------------------------
def generate_instance(domain: Domain, n_truths: int, n_actions: int, rng: np.random.Generator, *,
                      sat_order: str = "shuffled", strict_float_observations: bool = True,
                      float_decimals: int | None = None, shuffle_order: bool = True,
                      forbid_giveaway: bool = False, sample_unexcludable: bool = False,
                      max_attempts: int = 1000, exclude: set | None = None,
                      stats: GenerationStats | None = None) -> dict:
    """One instance of ``domain`` as JSON-safe data (docs/specs/kumo.md §5 "Instance JSON").

    ``exclude`` is a set of :func:`instance_key` values to avoid (a dataset's seen set or a
    held-out set); a hit is redrawn and counted as a duplicate.
    """
    from pysat.card import CardEnc, EncType
    from pysat.solvers import Solver

    if sat_order not in SAT_ORDERS:
        raise ConfigError(f"sat_order {sat_order!r} is not one of: {', '.join(SAT_ORDERS)}")
    n_truths, n_actions = check_sizes(n_truths, n_actions)
    tab = tables(domain)
    pool = domain.sampleable_truths(sample_unexcludable)
    if n_truths > len(pool):
        raise GenerationError(f"domain {domain.name!r} has {len(pool)} sampleable truths; n_truths={n_truths}")
    if n_actions > len(tab.actions):
        raise GenerationError(f"domain {domain.name!r} has {len(tab.actions)} usable actions; n_actions={n_actions}")
    stats = stats if stats is not None else GenerationStats()
    pool_idx = [tab.truth_index[t] for t in pool]
    n_act = len(tab.actions)

    for attempt in range(1, max_attempts + 1):
        stats.attempts += 1
        # 1. truths
        sub = [pool_idx[i] for i in rng.choice(len(pool_idx), size=n_truths, replace=False)]
        star = sub[int(rng.integers(n_truths))]
        star_bit = 1 << star
        sub_mask = sum(1 << t for t in sub)
        invalid = [t for t in sub if t != star]
        # 2. relevance and contradiction, per action and state
        relevant_actions: list[int] = []
        d_valid: list[tuple[int, int]] = []
        keep: list[list[int]] = []  # per action: states usable as the drawn observation
        for a in range(n_act):
            masks, sts = tab.masks[a], tab.states[a]
            if tab.clash[a] & sub_mask:
                keep.append([])
                continue
            ok = []
            for s, m in enumerate(masks):
                if m & star_bit:
                    continue
                if tab.types[a] == "float" and not _has_value(tab, a, s, star, strict_float_observations):
                    continue
                if tab.types[a] == "str" and not isinstance(tab.states[a][s].value, str):
                    continue  # an interval state of a str action matches no observation: never drawn
                ok.append(s)
            keep.append(ok)
            if any(m & sub_mask for m in masks):
                relevant_actions.append(a)
                d_valid.extend((a, s) for s in ok if masks[s] & sub_mask)
        # 3. SAT
        model = _solve(d_valid, tab.masks, invalid, n_actions, sat_order, rng, CardEnc, EncType, Solver)
        if model is None:
            stats.unsat += 1
            uncovered = [t for t in invalid if not any(tab.masks[a][s] >> t & 1 for a, s in d_valid)]
            stats.failing_truths.update(domain.truths[t] for t in (uncovered or invalid))
            continue
        chosen = dict(model)  # action -> state
        # 5. fill
        short = n_actions - len(chosen)
        rel_left = [a for a in relevant_actions if a not in chosen]
        irrel = [a for a in range(n_act) if a not in chosen and a not in set(relevant_actions)]
        for group in (rel_left, irrel):
            order = [group[i] for i in rng.permutation(len(group))]
            for a in order:
                if short == 0:
                    break
                if keep[a]:
                    chosen[a] = keep[a][int(rng.integers(len(keep[a])))]
                    short -= 1
        if short:
            continue
        # 6. observation values
        observations: dict[int, object] = {}
        for a, s in chosen.items():
            sts = tab.states[a]
            if tab.types[a] == "float":
                observations[a] = admissible_value(
                    sts, s, _float_forbidden(sts, tab.masks[a], s, star_bit, strict_float_observations), rng,
                    float_decimals)
            else:
                observations[a] = sts[s].value
        # 7. order
        truths = list(sub)
        actions = sorted(chosen)
        if shuffle_order:
            truths = [truths[i] for i in rng.permutation(len(truths))]
            actions = [actions[i] for i in rng.permutation(len(actions))]
        data = _instance_data(domain, tab, truths, actions, star, observations)
        data["generator"] = {"version": GENERATOR_VERSION, "sat_order": sat_order,
                             "strict_float_observations": strict_float_observations, "attempts": attempt}
        # 8. uniqueness, asserted
        if survivors(data) != [data["valid_truth"]]:
            stats.non_unique += 1
            continue
        if forbid_giveaway and has_giveaway(data):
            stats.giveaway_rejected += 1
            continue
        if exclude is not None:
            key = instance_key(data)
            if key in exclude:
                stats.duplicates += 1
                continue
            exclude.add(key)
        stats.instances += 1
        return data
    common = stats.failing_truths.most_common(1)
    raise GenerationError(
        f"no instance of domain {domain.name!r} with n_truths={n_truths}, n_actions={n_actions} after "
        f"{max_attempts} attempts" + (f"; the commonest uncoverable truth is {common[0][0]!r}" if common else ""))


def _solve(d_valid, masks, invalid, n_actions, sat_order, rng, CardEnc, EncType, Solver):
    """Algorithm 2: returns ``[(action, state)]`` or None when unsatisfiable."""
    if sat_order == "shuffled":
        d_valid = [d_valid[i] for i in rng.permutation(len(d_valid))]
    var = {pair: i + 1 for i, pair in enumerate(d_valid)}
    clauses: list[list[int]] = []
    for t in invalid:
        lits = [v for (a, s), v in var.items() if masks[a][s] >> t & 1]
        if not lits:
            return None  # an empty clause: UNSAT without calling the solver
        clauses.append(lits)
    by_action: dict[int, list[int]] = {}
    for (a, _), v in var.items():
        by_action.setdefault(a, []).append(v)
    for lits in by_action.values():
        clauses.extend([-x, -y] for i, x in enumerate(lits) for y in lits[i + 1:])
    bound = min(n_actions, len(by_action))
    # "at most N actions": with one state per action, counting states counts actions
    if bound < len(var):
        card = CardEnc.atmost(lits=list(var.values()), bound=bound, top_id=len(var), encoding=EncType.seqcounter)
        clauses.extend(card.clauses)
    with Solver(name="m22", bootstrap_with=clauses) as solver:
        if not solver.solve():
            return None
        model = solver.get_model()
    chosen = [pair for pair, v in var.items() if model[v - 1] > 0]
    return sorted(chosen)


def _instance_data(domain: Domain, tab: _Tables, truths: list[int], actions: list[int], star: int,
                   observations: dict[int, object]) -> dict:
    names = [domain.truths[t] for t in truths]
    inst_truths = set(names)
    outcomes = {}
    obs = {}
    obs_states = {}
    for a in actions:
        name = tab.actions[a]
        sts = tab.states[a]
        outcomes[name] = {"type": tab.types[a], "states": [
            {"state": s.label(), "rules_out": [t for t in s.rules_out if t in inst_truths]} for s in sts]}
        obs[name] = observations[a]
        obs_states[name] = [k for k, s in enumerate(sts) if s.matches(observations[a], tab.types[a])]
    act_names = [tab.actions[a] for a in actions]
    return {
        "domain": domain.name, "domain_fingerprint": domain.fingerprint, "domain_label": domain.label,
        "goal": domain.goal, "truth_noun": domain.truth_noun, "action_noun": domain.action_noun,
        "n_truths": len(names), "n_actions": len(act_names),
        "truths": names, "actions": act_names, "valid_truth": domain.truths[star],
        "observations": obs, "observation_states": obs_states, "outcomes": outcomes,
        "truth_descriptions": {t: domain.truth_descriptions[t] for t in names if t in domain.truth_descriptions},
        "action_descriptions": {a: domain.action_descriptions[a] for a in act_names if a in domain.action_descriptions},
        "action_units": {a: domain.action_units[a] for a in act_names if a in domain.action_units},
    }


# ---- instance-level rules (docs/specs/kumo.md §5 steps 8-10, docs/specs/kumo.md §8) ----------------------------------
# ``matching_states``, ``ruled_out_by`` and ``survivors`` live in ``solvers/kumo.py`` (one
# implementation of the matching rule, shared with the oracle) and are re-exported here.
__all__ = ["GenerationError", "GenerationStats", "generate_instance", "generate_many", "has_giveaway",
           "import_kumo_instance", "instance_key", "matching_states", "ruled_out_by", "survivors"]
def has_giveaway(data: dict) -> bool:
    """Some truth related to none of the instance's actions (docs/specs/kumo.md §5 step 10)."""
    related = {t for a in data["actions"] for s in data["outcomes"][a]["states"] for t in s["rules_out"]}
    return any(t not in related for t in data["truths"])


def instance_key(data: dict) -> tuple:
    """Duplicate key (docs/specs/kumo.md §5 step 9): truths, actions and the matched states, order-free."""
    return (frozenset(data["truths"]), frozenset(data["actions"]),
            frozenset((a, tuple(matching_states(data, a))) for a in data["actions"]))


def generate_many(domain: Domain, n_truths: int, n_actions: int, rngs, **kwargs) -> list[dict]:
    """Unique instances, one per generator in ``rngs`` (duplicates are redrawn from the same one)."""
    seen = kwargs.pop("exclude", None)
    seen = set() if seen is None else seen
    stats = kwargs.pop("stats", None) or GenerationStats()
    return [generate_instance(domain, n_truths, n_actions, rng, exclude=seen, stats=stats, **kwargs) for rng in rngs]


# ---- KUMO-format records (docs/specs/kumo.md §3 ``import_kumo_instance``) -------------------------------------------
def import_kumo_instance(record: dict | str, domain: Domain | None = None) -> dict:
    """Our instance data from a KUMO record (``truths, actions, observations, valid_truth``).

    ``domain`` (given by the caller's code) supplies the outcomes; without it the record must
    carry ``outcomes`` itself or name a *registered* domain (a built-in name, or a KUMO domain of
    the reference folder): a record's ``domain`` string never opens a file of its own choosing. A
    float action's observation given as text is coerced to a number (recorded in
    ``coerced_observation``). Malformed fields raise ConfigError naming the field.
    """
    import json

    from .domain import load_domain

    if isinstance(record, str):
        try:
            record = json.loads(record)
        except ValueError as e:
            raise ConfigError(f"a KUMO record is not valid JSON: {e}") from None
    if not isinstance(record, dict):
        raise ConfigError(f"a KUMO record must be a dict, not {type(record).__name__}")
    missing = [k for k in ("truths", "actions", "observations", "valid_truth") if k not in record]
    if missing:
        raise ConfigError(f"KUMO record lacks the keys: {', '.join(missing)}")
    for key in ("truths", "actions"):
        value = record[key]
        if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
            raise ConfigError(f"field {key!r} of the KUMO record must be a list of names, not "
                              f"{type(value).__name__} {str(value)[:60]!r}")
        if len(set(value)) != len(value):
            raise ConfigError(f"field {key!r} of the KUMO record lists a name twice")
    if not isinstance(record["observations"], dict):
        raise ConfigError(f"field 'observations' of the KUMO record must be a dict, not "
                          f"{type(record['observations']).__name__}")
    if not isinstance(record["valid_truth"], str):
        raise ConfigError(f"field 'valid_truth' of the KUMO record must be a name, not "
                          f"{type(record['valid_truth']).__name__}")
    if domain is None and isinstance(record.get("outcomes"), dict):
        domain = load_domain({"name": record.get("domain") if isinstance(record.get("domain"), str) else "inline",
                              "truths": record["truths"], "actions": record["actions"],
                              "outcomes": record["outcomes"]})
    if domain is None:
        if not isinstance(record.get("domain"), str):
            raise ConfigError("the KUMO record names no domain and carries no outcomes; pass domain=")
        domain = load_domain(record["domain"], allow_path=False)
    tab = tables(domain)
    aidx = {a: i for i, a in enumerate(tab.actions)}
    tidx = tab.truth_index
    for names, pool, kind in ((record["truths"], tidx, "truth"), (record["actions"], aidx, "action")):
        for x in names:
            if x not in pool:
                raise ConfigError(f"{kind} {x!r} of the record is not a usable {kind} of domain {domain.name!r} "
                                  "(unknown, or dropped by the importer: `kumo-gym kumo domains FILE` lists why); "
                                  "this instance cannot be played")
    clash = sorted(set(record["truths"]) & set(record["actions"]))
    if clash:
        raise ConfigError(f"{clash[0]!r} is both a truth and an action of the record; answers would be ambiguous")
    if record["valid_truth"] not in record["truths"]:
        raise ConfigError(f"valid_truth {record['valid_truth']!r} is not one of the record's truths")
    observations, coerced, odd = {}, [], []
    for a in record["actions"]:
        if a not in record["observations"]:
            raise ConfigError(f"the record has no observation for action {a!r}")
        v = record["observations"][a]
        if tab.types[aidx[a]] == "float" and isinstance(v, str):
            try:
                v = float(v)
            except ValueError:
                raise ConfigError(f"observation {v!r} of float action {a!r} is not a number") from None
            coerced.append(a)
        if tab.types[aidx[a]] == "str" and not isinstance(v, str):
            # KUMO's engine matches a str action's observation by equality: a list (an interval state
            # written as the observation) or a number matches no state and rules nothing out
            if not (isinstance(v, list) and len(v) == 2 and all(_finite_number(x) for x in v)):
                raise ConfigError(f"observation {str(v)[:60]!r} of str action {a!r} is neither text nor an interval")
            odd.append(a)
        observations[aidx[a]] = v
    data = _instance_data(domain, tab, [tidx[t] for t in record["truths"]], [aidx[a] for a in record["actions"]],
                          tidx[record["valid_truth"]], observations)
    data["generator"] = {"version": GENERATOR_VERSION, "source": "kumo-record",
                         "seed": record.get("seed") if isinstance(record.get("seed"), int) else None,
                         "setting": record.get("setting") if isinstance(record.get("setting"), str) else None}
    if coerced:
        data["coerced_observation"] = coerced
    if odd:
        data["unmatched_observations"] = odd
    return data


def _finite_number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
