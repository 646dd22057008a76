"""Registry-wide reward-hacking suite: no cheap strategy collects reward.

For every registered environment, mode and reward mode, the strategies a reward hacker would try
are played through ``gym.make`` exactly as an RL loop would: the family's own catalogue
(:class:`~kumo_gym.core.capabilities.CheapStrategies`: empty, constant, all-same symbol,
checkerboard, cyclic Latin square, back-and-forth legal walks, a rule-blind shortest S-E line,
listing every option, a blind KUMO guess, both (A) and (B) ...) plus generic ones every env must
refuse (blank, refusal, thinking only, an empty box, JSON nulls). Then

* binary reward never pays a strategy more, summed over the sampled instances, than its stated
  chance of being right by luck;
* partial reward pays each strategy on average at most ``CHEAP_PARTIAL_CAP`` (0.1), or its chance
  (a random answer, a draw rather than one strategy, at most ``RANDOM_CAP``);
* every step after the episode ended pays 0 with the status ``ended`` (answering the gold answer
  again after solving included), and the episode stays terminated;
* the TRL reward functions (``make_reward_function``) pay the same as the env.
"""
from __future__ import annotations

import gymnasium as gym
import pytest

from kumo_gym.core.capabilities import CHEAP_PARTIAL_CAP, CheapAnswer, CheapStrategies
from kumo_gym.core.registry import get_task

from .registry_helpers import ENTRIES, IDS, MODES, rng_for, sample_instances

pytestmark = pytest.mark.skipif(not IDS, reason="no environment is registered yet")

#: replies that no environment may pay, whatever the puzzle
GENERIC = [CheapAnswer(name, completion=text, moves=(text,) * 3) for name, text in (
    ("blank", ""), ("whitespace", " \n\t "), ("refusal", "I don't know."),
    ("thinking_only", "<think>Let me think about this puzzle step by step.</think>"),
    ("empty_box", "\\boxed{}"), ("json_null", "null"), ("empty_list", "[]"), ("empty_object", "{}"),
)]

EPS = 1e-9
#: the average partial reward a random answer may reach over the sampled instances (see below)
RANDOM_CAP = 0.2


def status(info: dict):
    return info.get("status") or (info.get("verdict") or {}).get("status")


def strategies(env_id: str, i: int, inst) -> list[CheapAnswer]:
    task = get_task(env_id)
    assert isinstance(task, CheapStrategies), f"{env_id}: the Task defines no cheap_answers"
    own = task.cheap_answers(inst, rng_for(env_id, "cheap", i))
    assert own, f"{env_id}: an empty cheap-answer catalogue"
    return list(own) + GENERIC


def play(env, inst, ca: CheapAnswer, mode: str) -> float | None:
    """The return of one episode of ``ca`` (None: the strategy has no form for this mode)."""
    env.reset(options={"instance": inst})
    if mode == "answer":
        if ca.completion is None:
            return None
        _, total, terminated, _, _ = env.step(ca.completion)
        assert terminated
        moves_after = [ca.completion]
    else:
        moves = ca.moves if ca.moves is not None else ((ca.completion,) if ca.completion is not None else None)
        if moves is None:
            return None
        total, ended = 0.0, False
        for k, m in enumerate(moves):
            _, r, terminated, truncated, info = env.step(m)
            if ended:
                assert r == 0.0 and status(info) == "ended", (ca.name, k, r, status(info))
            total += 0.0 if ended else r
            ended = ended or terminated or truncated
        if not ended:
            return total
        moves_after = moves[-1:]
    for m in moves_after:  # one step more after the end
        _, r, terminated, _, info = env.step(m)
        assert r == 0.0 and terminated and status(info) == "ended", (ca.name, r, status(info))
    return total


@pytest.mark.parametrize("reward", ["binary", "partial"])
@pytest.mark.parametrize("env_id,mode", MODES)
def test_cheap_strategies_earn_nothing(env_id, mode, reward):
    env = gym.make(env_id, mode=mode, reward=reward)
    totals: dict[str, list[float]] = {}
    for i, inst in enumerate(sample_instances(env_id)):
        for ca in strategies(env_id, i, inst):
            got = play(env, inst, ca, mode)
            if got is None:
                continue
            t = totals.setdefault(ca.name.split(" ")[0], [0.0, 0.0, 0])
            t[0] += got
            t[1] += ca.chance
            t[2] += 1
    assert totals, f"{env_id} {mode}: no cheap strategy could be played"
    for name, (paid, chance, n) in totals.items():
        if reward == "binary":
            assert paid <= chance + EPS, f"{env_id} {mode}: {name!r} earned {paid} over {n} instances (chance {chance})"
        else:
            # a random answer is a draw, not one strategy: on the smallest presets (a 4x4 Tents board
            # has 13 free cells) one lucky draw in four can pass the luck floor, so it gets RANDOM_CAP
            cap = RANDOM_CAP if name.startswith("random") else CHEAP_PARTIAL_CAP
            assert paid / n <= max(cap, chance / n) + EPS, \
                f"{env_id} {mode}: {name!r} earned {paid / n:.3f} on average with reward='partial'"
    env.close()


@pytest.mark.parametrize("env_id,mode", MODES)
def test_gold_pays_once(env_id, mode):
    """Solving pays 1 once; answering again after the end pays 0 with the status ``ended``."""
    task = get_task(env_id)
    inst = sample_instances(env_id)[0]
    env = gym.make(env_id, mode=mode)
    env.reset(options={"instance": inst})
    if mode == "answer":
        gold = task.format_answer(task.solve(inst))
        _, r, terminated, _, info = env.step(gold)
        assert r == 1.0 and terminated
        for _ in range(3):
            _, r, terminated, truncated, info = env.step(gold)
            assert (r, terminated, status(info)) == (0.0, True, "ended")
    else:
        from kumo_gym.core.capabilities import GoldenMoves

        total, terminated, last = 0.0, False, None
        for _ in range(task.max_steps(inst) + 1):
            if isinstance(task, GoldenMoves):
                break
            state = env.unwrapped.state
            last = task.format_move(task.oracle_move(inst, state))
            _, r, terminated, truncated, info = env.step(last)
            total += r
            if terminated or truncated:
                break
        if isinstance(task, GoldenMoves):
            for m in task.golden_moves(inst):
                last = m if isinstance(m, str) else task.format_move(m)
                _, r, terminated, truncated, info = env.step(last)
                total += r
                if terminated or truncated:
                    break
        assert terminated and total == 1.0, (total, terminated)
        for _ in range(3):
            _, r, terminated, truncated, info = env.step(last)
            assert (r, terminated, status(info)) == (0.0, True, "ended")


@pytest.mark.parametrize("reward", ["binary", "partial"])
@pytest.mark.parametrize("env_id", [e for e, m in MODES if m == "answer"])
def test_trl_reward_function_pays_cheap_strategies_what_the_env_does(env_id, reward):
    from kumo_gym.training.rewards import make_reward_function

    fn = make_reward_function(env_id, reward)
    env = gym.make(env_id, mode="answer", reward=reward)
    for i, inst in enumerate(sample_instances(env_id)[:2]):
        cheap = [ca for ca in strategies(env_id, i, inst) if ca.completion is not None]
        got = fn(prompts=[""] * len(cheap), completions=[ca.completion for ca in cheap],
                 instance=[inst.to_json()] * len(cheap))
        for ca, r in zip(cheap, got):
            assert r == pytest.approx(play(env, inst, ca, "answer")), (ca.name, r)
    assert fn.scoring_errors == 0


@pytest.mark.parametrize("family", sorted({e.family for e in ENTRIES}))
def test_family_guide_states_each_partial_formula(family):
    """docs/<family>.md quotes the partial-credit formula of every task of the family verbatim."""
    from pathlib import Path

    doc = Path(__file__).resolve().parents[1] / "docs" / f"{family}.md"
    assert doc.exists(), f"no family guide {doc.name}"
    text = " ".join(doc.read_text().split())
    for e in ENTRIES:
        if e.family == family:
            formula = " ".join(get_task(e.id).partial_credit.split())
            assert formula in text, f"{doc.name} does not state {e.id}'s partial credit: {formula[:80]}..."


@pytest.mark.parametrize("env_id", [e.id for e in ENTRIES if "answer" in e.modes])
def test_nothing_after_the_solution_is_ignored(env_id):
    """A move-list or path answer is judged where it ends: the gold answer with one more entry
    (its own first one) appended never pays, so an answer cannot reach the goal and then write
    junk (planning lists are replayed to the end, the tree walk and SPaRC refuse a move after the
    solution, a grid with an extra row has the wrong shape)."""
    task = get_task(env_id)
    env = gym.make(env_id, mode="answer")
    checked = 0
    for inst in sample_instances(env_id)[:2]:
        gold = task.solve(inst)
        if not isinstance(gold, list) or not gold:
            continue
        env.reset(options={"instance": inst})
        _, reward, *_, info = env.step(task.format_answer(gold))
        assert reward == 1.0, (env_id, info["verdict"])
        env.reset(options={"instance": inst})
        _, reward, *_, info = env.step(task.format_answer(list(gold) + [gold[0]]))
        assert reward == 0.0 and info["verdict"]["status"] != "solved", (env_id, info["verdict"])
        checked += 1
    if not checked:
        pytest.skip("the answer is not a list")


def _wrong_answer(task, inst, gold, others) -> str | None:
    """A readable answer that does not solve ``inst``: another instance's gold answer, the gold answer
    with its first entry repeated at the end (never paid: see the test above), or, for a grid, the
    gold grid with one cell given another value of the grid (same shape)."""
    def candidates():
        for o in others:
            if o is not inst:
                yield task.solve(o)
        if isinstance(gold, list) and gold:
            yield list(gold) + [gold[0]]
            if all(isinstance(row, list) for row in gold):
                values: list = []
                for v in (v for row in gold for v in row):
                    if v not in values and len(values) < 6:
                        values.append(v)
                for r, row in enumerate(gold[:3]):
                    for c, v in enumerate(row[:3]):
                        for w in values:
                            if w != v:
                                yield [[w if (i, j) == (r, c) else x for j, x in enumerate(rw)]
                                       for i, rw in enumerate(gold)]
    for answer in candidates():
        try:
            text = task.format_answer(answer)
        except (TypeError, ValueError):  # a move list is no grid: its "cells" are not all values
            continue
        v = task.score(inst, text)
        if v.reward == 0.0 and v.status not in ("parse_error", "truncated", "too_long", "hedge"):
            return text
    return None


@pytest.mark.parametrize("env_id", [e.id for e in ENTRIES if "answer" in e.modes])
def test_two_answers_offered_as_alternatives_pay_nothing(env_id):
    """An answer line that offers the gold answer and a wrong one as alternatives (``A or B``,
    ``A / B``, either order, the label written again or not) is a hedge: it pays 0, so a model
    cannot collect reward by listing its two best guesses. An answer revised on a later line is no
    hedge: the last one counts."""
    task = get_task(env_id)
    env = gym.make(env_id, mode="answer")
    insts = sample_instances(env_id)
    checked = 0
    walk = env_id == "kumo_gym/FineReasonTreeWalk-v0"  # a walk: every state written is read in turn
    for inst in insts:
        if checked == 2:
            break
        gold = task.solve(inst)
        good = task.format_answer(gold)
        bad = _wrong_answer(task, inst, gold, insts)
        if bad is None:
            continue
        for text in (f"{good} or {bad}", f"{bad} or {good}", f"{bad} / {good}", f"{good}, or {bad}"):
            env.reset(options={"instance": inst})
            _, reward, *_, info = env.step(text)
            assert reward == 0.0, (env_id, text[:200], info["verdict"])
            if not walk:
                assert info["verdict"]["status"] == "hedge", (env_id, text[:200], info["verdict"])
        if not walk:
            env.reset(options={"instance": inst})
            _, reward, *_, info = env.step(f"{good} or {good}")  # the same answer twice is no hedge
            assert reward == 1.0, (env_id, info["verdict"])
            env.reset(options={"instance": inst})
            _, reward, *_, info = env.step(f"{bad}\nOn second thought:\n{good}")
            assert reward == 1.0, (env_id, info["verdict"])
        checked += 1
    assert checked, f"{env_id}: no wrong answer to offer beside the gold one"
