"""The model-assisted extraction stages (docs/specs/reasoning_graphs.md §5 stages 2, 4b, 4c, 5, 6, 8).

Every stage talks to a :class:`kumo_gym.core.backend.ChatBackend` (for instance
``kumo_gym.training.backends.OpenAIChatBackend`` on any OpenAI-compatible server, or
``TransformersBackend`` for a local model) and trusts nothing it gets back: a reply must be JSON
of the stated shape, every claim is validated against the pack's schema
(:func:`kumo_gym.analysis.schema.validate_occurrence`) and every rule application against
docs/specs/reasoning_graphs.md §5's stage-8 checks. Invalid items are dropped and counted in ``counters[stage]``; a call
that fails (timeout, HTTP error, no JSON) is counted as ``failed_calls`` and the stage falls back to
what the deterministic path already has, so a flaky endpoint degrades recall, never correctness.

The prompts are our own words; each states the role, the puzzle, the task, the pack's claim or
rule description, the hard constraints and the exact JSON shape to return.
"""
from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from ..core.backend import ChatBackend
from .extract import (
    Sentence,
    _count,
    answer_grid_start,
    chunk,
    extract_claims,
    final_answer_claims,
    finalise,
    link_rules,
    segment,
    vote_indexing,
)
from .schema import MAIN, MISSING, Bounds, Pack, claim_json, validate_claim, validate_occurrence

# ---------------------------------------------------------------------------------------------
# prompts (our own wording)
# ---------------------------------------------------------------------------------------------
_CLAIM_RULES = """Hard rules:
- Extract only what the text itself asserts. Do not add consequences the text does not state.
- One object per occurrence: if the text states the same fact in two sentences, output it twice.
  Never merge occurrences across sentences or scopes. Using a fact as a premise is an occurrence.
- Ignore coordinates that only appear in examples, rule explanations or the answer-format text.
- A printed grid counts only when the text presents it as its final solution.
- status is "stated", "derived" or "tentative". tentative = assumed for the sake of argument
  (suppose, assume, what if, try ...). Tentative claims and everything concluded from them live in
  scope "BRANCH#k" (k = 1, 2, ... in order of appearance); the text returns to scope "MAIN" when it
  abandons or resolves the assumption. Never put a tentative claim in MAIN.
- When a branch ends in a contradiction, add {"kind": "Contradiction", "payload": {"branch": k,
  "note": "..."}} in that branch.
- Coordinates in your output are 0-based (row 0 is the top row, column 0 the left column). The
  trace uses {indexing} indexing: convert.
- source_sents are the numbers of the sentences (as numbered below) that state the occurrence."""

_CLAIM_SHAPE = """Reply with JSON only, exactly this shape:
{"claims": [{"kind": "<kind>", "payload": {...}, "status": "stated|derived|tentative",
             "scope": "MAIN|BRANCH#k", "source_sents": [<int>, ...]}]}"""

PROMPTS = {
    "indexing": (
        "You read a solver's reasoning about a {puzzle} grid with {H} rows and {W} columns and decide how it "
        "numbers rows and columns. Answer with exactly one word: 0-based or 1-based."
    ),
    "complete": (
        "You audit claim extraction for reasoning traces about the {puzzle} puzzle.\n"
        "You get numbered sentences and a draft list of claims found by pattern matching. Repair drafts "
        "that break the schema, add claims the sentences clearly state but the draft missed, and drop "
        "anything you would have to guess. Keep one object per occurrence; do not merge occurrences.\n\n"
        "Claim kinds (payload fields):\n{claims}\n\n" + _CLAIM_RULES + "\n\n" + _CLAIM_SHAPE
    ),
    "scratch": (
        "You extract every claim from a reasoning trace about the {puzzle} puzzle, aiming for complete "
        "recall: every assertion, every restatement, every premise use, with status and scope.\n\n"
        "Claim kinds (payload fields):\n{claims}\n\n" + _CLAIM_RULES + "\n\n" + _CLAIM_SHAPE
    ),
    "screen": (
        "You check extracted claims about the {puzzle} puzzle against the sentences they cite. For each "
        "numbered claim decide: keep (the cited sentences state it), normalise (they state it, but a field "
        "or the source_sents must change; give the corrected claim) or drop (not stated there). Never add "
        "new claims. Remove from source_sents any sentence that does not contain the occurrence.\n\n"
        "Claim kinds (payload fields):\n{claims}\n\n"
        'Reply with JSON only: {{"decisions": [{{"i": <claim number>, "action": "keep|normalise|drop", '
        '"claim": {{...only for normalise...}}}}]}}'
    ),
    "rule": (
        "You link one claim from a reasoning trace about the {puzzle} puzzle to the earlier claims it was "
        "derived from. Do not invent claims. The output is exactly the target claim. Cite every premise "
        'the text relies on by its id; write "C_MISSING" for a premise the reasoning uses but never states. '
        "All inputs must share the target's scope, except R_TENTATIVE_DISCHARGE, whose inputs come from "
        "one BRANCH#k and whose output is in MAIN. Choose the single best rule; if no rule explains the "
        "claim it was simply stated.\n\nRules (allowed outputs):\n{rules}\n\n"
        'Reply with JSON only: {{"rule": "<rule id>", "inputs": ["C<n>" or "C_MISSING", ...], '
        '"output": "<target id>", "support_sents": [<int>, ...]}} or [] when the claim was stated.'
    ),
}


def prompt_hash(stage: str) -> str:
    """sha256 (first 12 hex digits) of a stage's prompt template, recorded in provenance."""
    return hashlib.sha256(PROMPTS[stage].encode("utf-8")).hexdigest()[:12]


def _system(stage: str, pack: Pack, bounds: Bounds | None, indexing: str = "1-based") -> str:
    text = PROMPTS[stage]
    fill = {"puzzle": pack.puzzle.capitalize() if pack.puzzle != "cells" else "grid",
            "claims": pack.describe_claims(), "rules": pack.describe_rules(),
            "H": bounds.H if bounds else "?", "W": bounds.W if bounds else "?", "indexing": indexing}
    if stage in ("complete", "scratch"):
        # the shared rule block holds literal braces: fill only the named fields
        for k, v in fill.items():
            text = text.replace("{" + k + "}", str(v))
        return text
    return text.format(**fill)


def _numbered(sentences: list[Sentence], first: int, last: int) -> str:
    return "\n".join(f"[S{s.index}] {s.text}" for s in sentences[first - 1:last])


# ---------------------------------------------------------------------------------------------
# talking to the backend
# ---------------------------------------------------------------------------------------------
def parse_json_reply(text: str) -> Any:
    """The first JSON object or array in a model reply (code fences and prose around it allowed).

    Raises ``ValueError`` when there is none.
    """
    if not isinstance(text, str):
        raise ValueError("the reply is not text")  # noqa: TRY004
    fenced = re.findall(r"```(?:json)?\s*(.*?)```", text, flags=re.DOTALL)
    candidates = fenced + [text]
    decoder = json.JSONDecoder()
    for cand in candidates:
        for m in re.finditer(r"[\[{]", cand):
            try:
                value, _ = decoder.raw_decode(cand, m.start())
                return value
            except json.JSONDecodeError:
                continue
    raise ValueError("no JSON value in the reply")


def _ask(backend: ChatBackend, system: str, user: str, stage: str, counters: dict, max_tokens: int,
         temperature: float) -> Any:
    """One call; the parsed JSON reply, or None (the failure is counted)."""
    try:
        replies = backend.chat([{"role": "system", "content": system}, {"role": "user", "content": user}],
                               max_tokens=max_tokens, temperature=temperature)
        text = replies[0].text if replies else ""
    except Exception as e:  # noqa: BLE001 - timeouts, HTTP errors, refused connections: the stage falls back
        _count(counters, stage, "failed_calls", f"{type(e).__name__}: {str(e)[:200]}")
        return None
    _count(counters, stage, "calls")
    try:
        return parse_json_reply(text)
    except ValueError:
        _count(counters, stage, "malformed_json", text[:200])
        return None


def _claims_from_reply(reply: Any, stage: str, counters: dict, pack: Pack, bounds: Bounds | None,
                       n_sentences: int, lo: int, hi: int) -> list[dict] | None:
    if reply is None:
        return None
    items = reply.get("claims") if isinstance(reply, dict) else reply if isinstance(reply, list) else None
    if not isinstance(items, list):
        _count(counters, stage, "wrong_shape", json.dumps(reply)[:200])
        return None
    out = []
    for obj in items:
        try:
            occ = validate_occurrence(pack, obj, bounds, n_sentences, (lo, hi))
        except ValueError as e:
            _count(counters, stage, "invalid", str(e))
            continue
        out.append({**claim_json(occ["claim"]), "status": occ["status"], "scope": occ["scope"],
                    "source_sents": occ["source_sents"]})
    return out


def _occ_key(c: dict, pack: Pack) -> tuple:
    """An occurrence's identity: content key, status, scope, sentences."""
    try:
        key = validate_claim(pack, c["kind"], c["payload"])
    except ValueError:
        key = (c["kind"], json.dumps(c["payload"], sort_keys=True, default=str))
    return (key, c["status"], c["scope"], tuple(c["source_sents"]))


def _draft_json(c: dict) -> dict:
    return {"kind": c["kind"], "payload": c["payload"], "status": c["status"], "scope": c["scope"],
            "source_sents": c["source_sents"]}


# ---------------------------------------------------------------------------------------------
# the pipeline with a model
# ---------------------------------------------------------------------------------------------
def extract_with_model(text: str, answer_text: str, pack: Pack, bounds: Bounds | None, backend: ChatBackend, *,
                       rule_backend: ChatBackend | None = None, task: Any = None, instance: Any = None,
                       chunk_tokens: int = 2000, screen_batch: int = 200, support: int = 3,
                       max_tokens: int = 4096, temperature: float = 0.0, stages: tuple = ("complete", "scratch", "screen", "rules"),
                       count_tokens=None, seed: int | None = None) -> dict:
    """Stages 1-8 with a model; returns the same artefacts as the deterministic path, plus provenance.

    ``backend`` serves stages 2-6; ``rule_backend`` (default: ``backend``) serves stage 8, since
    the paper uses a smaller model there. ``stages`` selects which model stages run. ``seed``
    is sent with every request (repeated extractions for the stability analysis use different
    seeds).
    """
    rule_backend = rule_backend or backend
    if seed is not None:
        backend, rule_backend = _Seeded(backend, seed), _Seeded(rule_backend, seed)
    counters: dict = {}
    sentences = segment(text)
    n = len(sentences)
    H, W = (bounds.H, bounds.W) if bounds else (-1, -1)

    # stage 2: a decisive deterministic vote wins, else ask the model, else 1-based
    vote, votes = vote_indexing(text, H, W)
    indexing = vote
    if indexing is None and sentences:
        reply_text = None
        try:
            replies = backend.chat([{"role": "system", "content": _system("indexing", pack, bounds)},
                                    {"role": "user", "content": _numbered(sentences, 1, min(n, 60))}],
                                   max_tokens=8, temperature=0.0)
            reply_text = (replies[0].text if replies else "").lower()
            _count(counters, "indexing", "calls")
        except Exception as e:  # noqa: BLE001
            _count(counters, "indexing", "failed_calls", f"{type(e).__name__}: {str(e)[:200]}")
        if reply_text is not None:
            has0, has1 = "0-based" in reply_text, "1-based" in reply_text
            indexing = "0-based" if has0 and not has1 else "1-based" if has1 and not has0 else None
            if indexing is None:
                _count(counters, "indexing", "invalid", reply_text[:50])
    indexing = indexing or "1-based"
    offset = 1 if indexing == "1-based" else 0

    # stage 3 + 4a
    chunks = chunk(sentences, max_tokens=chunk_tokens, count_tokens=count_tokens)
    draft = extract_claims(sentences, pack, offset)
    merged: list[dict] = []
    for ch in chunks:
        in_chunk = [c for c in draft if ch.first <= c["source_sents"][0] <= ch.last]
        body = _numbered(sentences, ch.first, ch.last)
        # stage 4b completes the draft, it never replaces it: the draft (with its premise links)
        # stands, and the model's valid claims that the draft lacks are added
        completed = list(in_chunk)
        if "complete" in stages:
            user = body + "\n\nDraft claims:\n" + json.dumps([_draft_json(c) for c in in_chunk])
            reply = _claims_from_reply(
                _ask(backend, _system("complete", pack, bounds, indexing), user, "complete", counters, max_tokens,
                     temperature), "complete", counters, pack, bounds, n, ch.first, ch.last)
            have = {_occ_key(c, pack) for c in in_chunk}
            for c in reply or []:
                if _occ_key(c, pack) not in have:
                    have.add(_occ_key(c, pack))
                    completed.append(c)
                    _count(counters, "complete", "added")
        scratch = []
        if "scratch" in stages:
            scratch = _claims_from_reply(
                _ask(backend, _system("scratch", pack, bounds, indexing), body, "scratch", counters, max_tokens,
                     temperature), "scratch", counters, pack, bounds, n, ch.first, ch.last) or []
        # stage 5: union, exact duplicates dropped within the chunk
        seen = set()
        for c in list(completed) + scratch:
            key = (c["kind"], json.dumps(c["payload"], sort_keys=True), c["status"], c["scope"],
                   tuple(c["source_sents"]))
            if key in seen:
                _count(counters, "merge", "duplicate")
                continue
            seen.add(key)
            merged.append(c)

    # stage 6: screening in batches with a support window
    if "screen" in stages and merged:
        merged = _screen(merged, sentences, pack, bounds, backend, counters, screen_batch, support, max_tokens,
                         temperature)

    final = final_answer_claims(task, instance, answer_text, pack)
    if final and sentences:
        at = _answer_sentence(text, sentences)
        merged += [{"kind": k, "payload": p, "status": "stated", "scope": MAIN, "source_sents": [at],
                    "pos": 10**6 + j} for j, (k, p) in enumerate(final)]
    for j, c in enumerate(merged):
        c.setdefault("pos", j)
    claims = finalise(merged, pack, bounds, n, counters)

    # stage 8: one call per distinct, non-tentative, first-seen claim
    rule_apps = None
    if "rules" in stages:
        rule_apps = _rules(claims, sentences, pack, bounds, rule_backend, counters, max_tokens, temperature)
    apps = link_rules(claims, pack, counters, rule_apps=rule_apps)
    provenance = {
        "models": {"claims": _model_name(backend), "rules": _model_name(rule_backend)},
        "prompt_hashes": {s: prompt_hash(s) for s in PROMPTS},
        "stages": list(stages),
        "temperature": temperature,
        "seed": seed,
    }
    return {"sentences": sentences, "indexing": indexing, "index_votes": votes, "claims": claims, "apps": apps,
            "counters": counters, "provenance": provenance}


class _Seeded:
    """A backend that adds ``seed`` to every request."""

    def __init__(self, backend: ChatBackend, seed: int):
        self.backend, self.seed = backend, seed
        self.model = _model_name(backend)

    def chat(self, messages: list[dict], **kwargs):
        return self.backend.chat(messages, seed=self.seed, **kwargs)


def _answer_sentence(text: str, sentences: list[Sentence]) -> int:
    start = answer_grid_start(text)
    at = sentences[-1].index
    for s in sentences:
        if s.start <= start:
            at = s.index
    return at


def _model_name(backend: Any) -> str:
    return str(getattr(backend, "model", None) or type(backend).__name__)


def _screen(claims: list[dict], sentences: list[Sentence], pack: Pack, bounds: Bounds | None, backend: ChatBackend,
            counters: dict, batch: int, support: int, max_tokens: int, temperature: float) -> list[dict]:
    """Stage 6: keep / normalise / drop each claim; never add. A failed batch keeps its claims."""
    n = len(sentences)
    kept: list[dict] = []
    system = _system("screen", pack, bounds)
    for b in range(0, len(claims), batch):
        part = claims[b:b + batch]
        lo = max(1, min(c["source_sents"][0] for c in part) - support)
        hi = min(n, max(c["source_sents"][-1] for c in part) + support)
        listing = "\n".join(f"{i}: {json.dumps(_draft_json(c))}" for i, c in enumerate(part))
        reply = _ask(backend, system, _numbered(sentences, lo, hi) + "\n\nClaims:\n" + listing, "screen", counters,
                     max_tokens, temperature)
        decisions = reply.get("decisions") if isinstance(reply, dict) else None
        if not isinstance(decisions, list):
            if reply is not None:
                _count(counters, "screen", "wrong_shape", json.dumps(reply)[:200])
            kept.extend(part)
            continue
        verdict: dict[int, dict] = {}
        for d in decisions:
            i = d.get("i") if isinstance(d, dict) else None
            if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < len(part) or i in verdict:
                _count(counters, "screen", "invalid", f"decision {str(d)[:80]}")
                continue
            if d.get("action") not in ("keep", "normalise", "normalize", "drop"):
                _count(counters, "screen", "invalid", f"action {d.get('action')!r}")
                continue
            verdict[i] = d
        for i, c in enumerate(part):
            d = verdict.get(i)
            if d is None or d["action"] == "keep":
                kept.append(c)
            elif d["action"] == "drop":
                _count(counters, "screen", "dropped")
            else:
                fixed = d.get("claim")
                try:
                    occ = validate_occurrence(pack, fixed, bounds, n)
                except ValueError as e:
                    _count(counters, "screen", "invalid", f"normalised claim: {e}")
                    kept.append(c)
                    continue
                # normalising may narrow source_sents, never move the claim elsewhere
                if not set(occ["source_sents"]) <= set(c["source_sents"]) or occ["scope"] != c["scope"]:
                    _count(counters, "screen", "invalid", "normalisation moved the claim")
                    kept.append(c)
                    continue
                _count(counters, "screen", "normalised")
                kept.append({**claim_json(occ["claim"]), "status": occ["status"], "scope": occ["scope"],
                             "source_sents": occ["source_sents"], "pos": c.get("pos"), "cid": c.get("cid"),
                             "premises": c.get("premises", [])})
    return kept


def _rules(claims: list[dict], sentences: list[Sentence], pack: Pack, bounds: Bounds | None, backend: ChatBackend,
           counters: dict, max_tokens: int, temperature: float, context_chars: int = 24_000) -> dict[int, Any]:
    """Stage 8 calls: claim index -> the raw reply (validated later by link_rules)."""
    system = _system("rule", pack, bounds)
    seen = set()
    apps: dict[int, Any] = {}
    for i, c in enumerate(claims):
        key = c["claim"]
        if c["status"] == "tentative":
            continue
        if key in seen:
            continue  # restated: an edge from the last occurrence, no call
        seen.add(key)
        last = c["source_sents"][-1]
        # the trace cut at the last support sentence, most recent sentences kept within budget
        prefix = []
        budget = context_chars
        for s in reversed(sentences[:last]):
            if budget - len(s.text) < 0:
                break
            prefix.append(f"[S{s.index}] {s.text}")
            budget -= len(s.text)
        earlier = "\n".join(f"{claims[j]['id']}: {json.dumps(_occ_json(claims[j]))}" for j in range(i))
        user = ("Trace:\n" + "\n".join(reversed(prefix)) + "\n\nEarlier claims:\n" + (earlier or "(none)")
                + f"\n\nTarget: {c['id']}: {json.dumps(_occ_json(c))}")
        reply = _ask(backend, system, user, "rules", counters, max_tokens, temperature)
        if reply is None or reply == [] or (isinstance(reply, dict) and not reply.get("rule")):
            continue
        if isinstance(reply, list):
            reply = reply[0] if len(reply) == 1 else None
        if not isinstance(reply, dict):
            _count(counters, "rules", "wrong_shape")
            continue
        if reply.get("output") == MISSING:
            _count(counters, "rules", "invalid", f"{c['id']}: C_MISSING as output")
            continue
        apps[i] = reply
    return apps


def _occ_json(c: dict) -> dict:
    return {**claim_json(c["claim"]), "status": c["status"], "scope": c["scope"], "source_sents": c["source_sents"]}
