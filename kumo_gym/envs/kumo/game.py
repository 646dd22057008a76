"""The KUMO diagnosis game as a Task and a multi-turn environment (``specs/kumo.md`` §7-§8)."""
from __future__ import annotations

import re
from collections import OrderedDict
from functools import lru_cache
from typing import Any, ClassVar

import numpy as np

from ...core.errors import ConfigError, ContaminationError, ParseError, check_choice, check_int
from ...core.extract import split_thinking
from ...core.instance import Instance
from ...core.task import InteractiveTask, Transition
from ...core.verdict import Verdict
from ..base import to_charset
from ..interactive import InteractiveEnv
from .book import BOOK_FORMATS, plural, render_book
from .domain import Domain, builtin_domain_names, load_domain
from .generate import generate_instance, import_kumo_instance, matching_states, ruled_out_by, survivors

FAMILY = "kumo"
MATCH_MODES = ("exact", "lenient")
OBSERVATION_FORMATS = ("text", "kumo_dict")
ANY_DOMAIN = "any"
MAX_NAME = 500  # longer answer regions are not names; refusing them keeps matching cheap

_HELDOUT: set[str] = set()


def declare_heldout(domain: str | Domain) -> str:
    """Mark a domain held out for this process (§12); returns its fingerprint."""
    fp = load_domain(domain).fingerprint if not (isinstance(domain, str) and len(domain) == 64
                                                  and all(c in "0123456789abcdef" for c in domain)) else domain
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
    """Fingerprints refused by training builders: declared, labelled ``heldout``, and ``extra``."""
    fps = set(_HELDOUT) | {fp for _, fp, label, _ in _builtin_index() if label == "heldout"}
    for x in extra or ():
        try:
            fps.add(declare_heldout(x) if not isinstance(x, str) or len(x) != 64 else x)
        except ConfigError:
            raise ConfigError(f"heldout domain {x!r} is not a built-in name, a path or a fingerprint") from None
    return fps


def trainable_builtin_domains(heldout=(), min_actions: int = 0) -> list[str]:
    bad = heldout_fingerprints(heldout)
    return [n for n, fp, _, k in _builtin_index() if fp not in bad and k >= min_actions]


class KumoTask(InteractiveTask):
    """KUMO: find the one valid truth by running tests whose outcomes rule truths out.

    Stateless rules of the game; :class:`KumoEnv` is the Gymnasium manual. A move (and an
    answer) is a name: an action of the instance (a test) or a truth (the final prediction),
    written as ``<ANSWER> name </ANSWER>``.
    """

    family = FAMILY
    difficulties: ClassVar[dict] = {"easy": {"n_truths": 4, "n_actions": 6}, "hard": {"n_truths": 12, "n_actions": 16}}
    default_difficulty = "easy"
    param_names = ("domain", "n_truths", "n_actions", "heldout_domains", "book_format", "match",
                   "observation_format", "forbid_giveaway", "sat_order", "strict_float_observations",
                   "float_decimals")

    def validate_params(self, params: dict) -> dict:
        p = dict(params)
        p.setdefault("domain", ANY_DOMAIN)
        p.setdefault("n_truths", 4)
        p.setdefault("n_actions", 6)
        from .generate import check_sizes

        p["n_truths"], p["n_actions"] = check_sizes(p["n_truths"], p["n_actions"])
        if p["domain"] != ANY_DOMAIN:
            if not isinstance(p["domain"], str):
                raise ConfigError("pass a domain as a built-in name or a JSON path (params must stay JSON-safe)")
            domain = load_domain(p["domain"])
            if p["n_actions"] > len(domain.usable_actions()):
                raise ConfigError(f"domain {domain.name!r} has {len(domain.usable_actions())} usable actions; "
                                  f"n_actions {p['n_actions']} is too many")
        heldout = p.get("heldout_domains") or []
        if isinstance(heldout, str):
            heldout = [heldout]
        p["heldout_domains"] = sorted(heldout_fingerprints(heldout) - heldout_fingerprints(()))
        for key, choices in (("book_format", BOOK_FORMATS), ("match", MATCH_MODES),
                             ("observation_format", OBSERVATION_FORMATS)):
            if key in p:
                check_choice(key, p[key], choices)
        return p

    # ---- generation ---------------------------------------------------------------------------
    def _domain_for(self, rng: np.random.Generator, params: dict) -> Domain:
        if params.get("domain", ANY_DOMAIN) != ANY_DOMAIN:
            return load_domain(params["domain"])
        pool = trainable_builtin_domains(params.get("heldout_domains") or [], params["n_actions"])
        if not pool:
            raise ConfigError(f"no trainable built-in domain supports n_actions={params['n_actions']}")
        return load_domain(pool[int(rng.integers(len(pool)))])

    def generate(self, rng: np.random.Generator, **params) -> Instance:
        """An instance by Algorithms 1-2 (§5) in the given or a randomly drawn built-in domain."""
        p = self.validate_params(params)
        domain = self._domain_for(rng, p)
        opts = {k: p[k] for k in ("forbid_giveaway", "sat_order", "strict_float_observations", "float_decimals")
                if k in p}
        data = generate_instance(domain, p["n_truths"], p["n_actions"], rng, **opts)
        data["book_seed"] = int(rng.integers(2**31))
        return Instance(FAMILY, data, params=p)

    def load(self, obj: Any, domain: str | Domain | None = None) -> Instance:
        """An Instance, its dict/JSON, our instance data, or a KUMO record (§3)."""
        if isinstance(obj, str) and obj.lstrip().startswith("{"):
            import json

            obj = json.loads(obj)
        if isinstance(obj, dict) and "family" not in obj and "truths" in obj:
            if "outcomes" in obj and "observation_states" in obj:
                data = dict(obj)
            else:
                data = import_kumo_instance(obj, load_domain(domain) if domain is not None else None)
            data.setdefault("book_seed", int(obj.get("seed") or 0) if isinstance(obj.get("seed"), int) else 0)
            params = {"n_truths": len(data["truths"]), "n_actions": len(data["actions"])}
            return Instance(FAMILY, data, params=params, seed=None)
        return super().load(obj)

    # ---- text ---------------------------------------------------------------------------------
    def book(self, instance: Instance) -> str:
        d = instance.data
        return render_book(d, instance.params.get("book_format", "template"), int(d.get("book_seed", 0)))

    def system_message(self, instance: Instance) -> str:
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
        return (f"Either run one of these {plural(action)}: {', '.join(d['actions'])}; or name one of these "
                f"{plural(truth)}: "
                f"{', '.join(d['truths'])}. Finish your reply with <ANSWER> ${{action_name}} </ANSWER> or "
                f"<ANSWER> ${{truth_name}} </ANSWER>, putting the exact name in place of the placeholder.")

    def messages(self, instance: Instance) -> list[dict]:
        return [{"role": "system", "content": self.system_message(instance)},
                {"role": "user", "content": "The game starts now. " + self.turn_instruction(instance)}]

    def prompt(self, instance: Instance) -> str:
        sys_msg, user = self.messages(instance)
        return sys_msg["content"] + "\n\n" + user["content"]

    interactive_prompt = prompt

    def observation_text(self, instance: Instance, action: str) -> str:
        value = instance.data["observations"][action]
        if instance.params.get("observation_format") == "kumo_dict":
            return repr({"action": action, "observation": value})
        return f"Result of {action}: {value}"

    # ---- answers --------------------------------------------------------------------------------
    def parse(self, text: str) -> str:
        """The name after the last ``<ANSWER>`` (up to ``</ANSWER>`` or the end), §7 "Parsing"."""
        if not isinstance(text, str):
            raise ParseError("the reply is not text", "no_answer")
        low = text.lower()
        start = low.rfind("<answer>")
        if start >= 0:
            end = low.find("</answer>", start)
            region = text[start + 8:end if end >= 0 else len(text)]
        else:
            region = text
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

    def format_answer(self, answer: str) -> str:
        return f"<ANSWER> {answer} </ANSWER>"

    format_move = format_answer

    @staticmethod
    def _fold(name: str) -> str:
        name = name.strip().strip("`'\"*").strip()
        name = name.removesuffix(".")
        return re.sub(r"\s+", " ", name.strip("`'\"* ")).casefold()

    def match_name(self, instance: Instance, name: str) -> tuple[str, str] | None:
        """``("action"|"truth", canonical name)`` or None (§7: actions first, then truths)."""
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

    def verify(self, instance: Instance, answer: str) -> Verdict:
        """Success iff the named truth is not ruled out by any observation of the instance (§8)."""
        hit = self.match_name(instance, answer) if isinstance(answer, str) else None
        d = instance.data
        if hit is None:
            return Verdict("parse_error", f"{str(answer)[:80]!r} is neither an action nor a truth of this game.",
                           details={"reason": "unknown_name"})
        kind, name = hit
        if kind == "action":
            return Verdict("incomplete", f"{name} is a test, not a final prediction.", details={"action": name})
        alive = survivors(d)
        if name in alive:
            return Verdict.success(f"Correct: {name} is consistent with every observation.", predicted=name)
        culprit = next(a for a in d["actions"] if name in ruled_out_by(d, a))
        return Verdict("wrong", f"Wrong: {name} is ruled out by the outcome of {culprit}.",
                       details={"predicted": name, "ruled_out_by": culprit})

    def solve(self, instance: Instance) -> str:
        """The oracle's final prediction (the valid truth)."""
        return self.golden_moves(instance)[-1]

    def corrupt_answer(self, instance: Instance, answer: str, rng: np.random.Generator) -> str:
        """Another instance truth: ruled out by some observation, so it scores 0."""
        others = [t for t in instance.data["truths"] if t != answer]
        return others[int(rng.integers(len(others)))]

    # ---- oracle ---------------------------------------------------------------------------------
    _ORACLE_CACHE: ClassVar[OrderedDict] = OrderedDict()

    def oracle(self, instance: Instance, memo_limit: int | None = None):
        """The oracle's realised play (cached per instance): a ``solvers.kumo.Trajectory``.

        Past ``memo_limit`` memo entries (default ``solvers.kumo.PLAY_MEMO_LIMIT``, which keeps a
        reset under about a second) the greedy baseline plays instead, marked ``optimal=False``.
        """
        from ...solvers.kumo import PLAY_MEMO_LIMIT, oracle_play

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
        from ...solvers.kumo import OptimalSearch, _base_prediction, oracle_tables

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
        return self.oracle(instance).tests

    def max_steps(self, instance: Instance) -> int:
        return 50

    # ---- interactive protocol -------------------------------------------------------------------
    def initial_state(self, instance: Instance) -> list:
        return []

    def parse_move(self, text: str) -> str:
        return self.parse(split_thinking(text).answer)

    def check_move(self, instance: Instance, state, move) -> str | None:
        return None if self.match_name(instance, move) is not None else "unknown_name"

    def legal_moves(self, instance: Instance, state) -> list[str]:
        return self.move_catalog(instance)

    def transition(self, instance: Instance, state, move) -> Transition:
        hit = self.match_name(instance, move)
        if hit is None:
            return Transition(state, "illegal_move", f"{str(move)[:80]!r} is not a name from the lists.",
                              details={"reason": "unknown_name"})
        kind, name = hit
        if kind == "action":
            new = list(state) + [name]
            return Transition(new, "continue", self.observation_text(instance, name),
                              details={"tests_taken": len(new), "action": name})
        v = self.verify(instance, name)
        return Transition(list(state), "solved" if v.solved else "wrong", v.message,
                          reward=v.reward, details={"tests_taken": len(state), **v.details})

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

    def observation(self, instance: Instance, state, feedback: str = "", step: int = 0) -> str:
        return f"{feedback}\n\n{self.turn_instruction(instance)}" if feedback else self.turn_instruction(instance)

    # ---- structured view (SB3) ------------------------------------------------------------------
    def move_catalog(self, instance: Instance) -> list[str]:
        """Every action, then every truth: ``Discrete(n_actions + n_truths)`` (§7)."""
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
        """Refuse instances of held-out domains (§12)."""
        d = instance.data
        fp = d.get("domain_fingerprint")
        if d.get("domain_label") == "heldout" or fp in heldout_fingerprints(instance.params.get("heldout_domains")):
            raise ContaminationError(f"domain {d.get('domain')!r} is held out; its instances must not be used "
                                     "for training")


class KumoEnv(InteractiveEnv):
    """KUMO diagnosis game (``kumo_gym/KUMO-v0``), multi-turn.

    ## Description
    A hidden valid truth (a mineral, a car fault, ...) is one of ``n_truths`` candidates. Each
    turn the agent either runs one of ``n_actions`` tests, whose pre-drawn outcome is revealed,
    or names a truth, which ends the game. Outcomes only rule truths out, as the knowledge book
    in the first observation explains. Instances come from a SAT generator that guarantees
    exactly one truth survives all outcomes (KUMO, Lin et al. 2025; ``specs/kumo.md``).

    ## Observation space
    ``Text``. After ``reset``: the game description, the truth and action lists, the knowledge
    book and the turn instruction. After a test: ``Result of <action>: <value>`` and the turn
    instruction. After the prediction: the verdict.

    ## Action space
    ``Text``. The reply must end with ``<ANSWER> name </ANSWER>``, the name being an action or a
    truth of the instance (exact match; ``match="lenient"`` tolerates case, spacing, quotes).
    A ``<think>...</think>`` block is ignored. Repeating a test is allowed and counted.

    ## Rewards
    1 for naming a truth that no outcome of the instance rules out (= the valid truth), else 0;
    ``step_penalty`` (default 0) is subtracted per test.

    ## Episode end
    Terminated on a prediction or an unreadable reply / unknown name (``parse_error``; with
    ``illegal_action="reject"`` a correction is sent instead, at most ``max_illegal`` times).
    Truncated after ``max_steps`` turns (default 50).

    ## Info
    ``instance_id``, ``domain``, ``difficulty``, ``split``, ``optimal_steps`` (oracle tests),
    ``optimal_expected_steps`` and ``optimal_action`` (root of the expected-steps search),
    ``tests_taken``; ``verdict`` at the end. Never the valid truth.

    ## Arguments
    ``domain`` (a built-in name, a JSON path ours or KUMO-style, or ``"any"``: a random
    trainable built-in domain per episode), ``difficulty`` (``easy`` = 4 truths/6 actions,
    ``hard`` = 12/16) or ``n_truths``/``n_actions``, ``split``, ``heldout_domains`` (names,
    paths or fingerprints refused by training builders), ``max_steps``, ``book_format``
    (``template``/``symbolic``), ``match``, ``observation_format`` (``text``/``kumo_dict``),
    ``forbid_giveaway``, ``step_penalty``. ``reset(options={"instance": record})`` replays an
    Instance or a KUMO record (``truths, actions, observations, valid_truth``; the domain comes
    from the record, the ``domain`` argument or the reference folder). ``oracle_memo_limit``
    bounds the oracle's search at reset (default 400,000 states; beyond it the greedy baseline
    fills ``optimal_*`` and ``oracle_optimal`` is False).

    ## Version history
    v0: initial version.
    """

    def __init__(self, task, env_id: str, *, max_steps: int | None = 50, step_penalty: float = 0.0,
                 oracle_memo_limit: int | None = None, **kwargs):
        super().__init__(task, env_id, max_steps=max_steps, **kwargs)
        self.step_penalty = float(step_penalty)
        self.oracle_memo_limit = None if oracle_memo_limit is None else check_int("oracle_memo_limit",
                                                                                  oracle_memo_limit, 1)
        self.tests_taken = 0

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        options = dict(options or {})
        rec = options.get("instance")
        if isinstance(rec, dict) and "family" not in rec and "truths" in rec and "observation_states" not in rec:
            dom = self.params.get("domain")
            options["instance"] = self.task.load(rec, domain=None if dom in (None, ANY_DOMAIN) else dom)
        obs, info = super().reset(seed=seed, options=options)
        self.tests_taken = 0
        return obs, self._kumo_info(info)

    def _kumo_info(self, info: dict) -> dict:
        inst = self.instance
        traj = self.task.oracle(inst, self.oracle_memo_limit)
        info.update(domain=inst.data.get("domain"), tests_taken=self.tests_taken,
                    optimal_expected_steps=float(traj.root_expected),
                    optimal_action=traj.actions[0] if traj.actions else None,
                    oracle_optimal=bool(traj.optimal))
        return info

    def _end(self, verdict, info):
        _, reward, terminated, truncated, info = super()._end(verdict, info)
        # the game is over: the verdict alone, no instruction to play on
        return to_charset(verdict.message), reward, terminated, truncated, info

    def step(self, action):
        obs, reward, terminated, truncated, info = super().step(action)
        v = info.get("verdict")
        if v and v.get("status") == "illegal_move" and (v.get("details") or {}).get("reason") == "unknown_name":
            # a name outside the instance is an unreadable answer in KUMO's protocol (§7)
            v["status"] = "parse_error"
            info["status"] = "parse_error"
        self.tests_taken = len(self.state or [])
        info["tests_taken"] = self.tests_taken
        if info.get("status") == "continue":
            reward -= self.step_penalty
        return obs, float(reward), terminated, truncated, info


__all__ = ["KumoEnv", "KumoTask", "check_int", "declare_heldout", "heldout_fingerprints", "to_charset"]
