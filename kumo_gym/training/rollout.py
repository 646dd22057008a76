"""Multi-turn GRPO rollouts: whole episodes in kumo_gym environments, as a TRL ``rollout_func``.

TRL 1.16's ``environment_factory`` drives environments through *tool calls*, which our text
environments do not speak, so multi-turn GRPO uses its other hook, ``rollout_func``.
:class:`EpisodeRollout` plays one environment instance per rollout (the rollouts of a group share
their row's instance), batching the model's turns across the rollouts still running.

The token sequence is built turn by turn from the ids the model actually produced: each model
turn's sampled tokens (loss mask 1) are followed by the environment's reply rendered through the
tokenizer's chat template (mask 0), and the next turn is generated from exactly that sequence.
So the policy is trained on the very context it sampled from, whatever the chat template does to
earlier turns when it renders a whole conversation (Qwen3's templates drop earlier reasoning, for
example). The episode's final verdict goes to the reward functions as the ``kumo_verdict`` column.

Generation runs on the policy itself (``transformers.generate``) or, with ``use_vllm=True``,
through TRL's vLLM integration in either mode (``vllm_mode="server"``: ``trl vllm-serve``;
``"colocate"``: vLLM inside the training processes): TRL syncs the weights before each rollout
batch and every turn is one ``vllm_generation.generate`` call; the sampled tokens' log-probabilities
come back for TRL's importance-sampling correction (environment tokens carry 0 and are masked out).
With several processes, every process takes part in every turn's generation call (server mode
gathers the prompts of all processes), so they stay in step until the last episode ends.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..core.errors import ConfigError
from ..core.instance import canonical_json
from ..wrappers.chat import for_template, system_supported
from .evaluate import EvalSpec


def prompt_key(prompt) -> str:
    """A lookup key for a prompt as TRL hands it back (messages or text)."""
    if isinstance(prompt, list):
        prompt = [{"role": m.get("role"), "content": m.get("content")} for m in prompt]
    return canonical_json(prompt)


def _clean(messages: list[dict]) -> list[dict]:
    return [{"role": m["role"], "content": m.get("content", "")} for m in messages]


def render(tok, messages: list[dict], generation_prompt: bool) -> str:
    """The text of ``messages`` under ``tok``'s chat template (the system message folded into the first
    user turn where the template has no system role: :func:`kumo_gym.wrappers.chat.for_template`)."""
    return tok.apply_chat_template(for_template(tok, _clean(messages)), add_generation_prompt=generation_prompt,
                                   tokenize=False)


_A, _U = "\u2063kumo-assistant\u2063", "\u2063kumo-user\u2063"


def _turn_frame(tok) -> tuple[str, str, str]:
    """``(end of an assistant turn, text before a user message, text after it up to the next
    generation prompt)`` for ``tok``'s chat template, read off a probe conversation with markers."""
    probe = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"},
             {"role": "assistant", "content": _A}, {"role": "user", "content": _U}]
    if not system_supported(tok):  # a template without a system role (the system text joins the first user turn)
        probe = probe[1:]
    before = render(tok, probe[:-1], False)
    after = render(tok, probe, True)
    if _A not in before or _U not in after:
        raise ConfigError("this chat template drops message contents; multi-turn GRPO cannot split it into turns")
    end = before[before.rindex(_A) + len(_A):]  # how an assistant turn ends when it is the last one
    at = after.index(_U)
    start = after.rfind(end, 0, at) if end else -1
    if start < 0:
        raise ConfigError("this chat template cannot be split into turns (multi-turn GRPO needs to find where an "
                          "assistant turn ends and the next user turn starts)")
    return end, after[start + len(end):at], after[at + len(_U):]


def env_turn_text(tok, messages: list[dict], hit_eos: bool) -> str:
    """The text between the end of the model's last turn (``messages[-2]``, as sampled) and the
    start of its next turn: the template's end of an assistant turn (without the end-of-turn token
    when the model sampled it), the environment's message (``messages[-1]``) and the generation
    prompt.

    The conversation is rendered as it is when the rendering of the whole extends that of the
    conversation up to the model's turn; templates that rewrite earlier turns (Qwen3 drops their
    reasoning) are handled with the template's turn frame instead (:func:`_turn_frame`).
    """
    eos = tok.eos_token or ""
    content = messages[-2].get("content", "")
    before = render(tok, messages[:-1], False)
    after = render(tok, messages, True)
    at = before.rfind(content) if content else -1
    if after.startswith(before) and at >= 0:
        tail = before[at + len(content):] + after[len(before):]
    else:
        end, head, rest = _turn_frame(tok)
        tail = end + head + messages[-1].get("content", "") + rest
    if hit_eos and eos and tail.startswith(eos):
        tail = tail[len(eos):]
    return tail


#: one generated turn: its token ids, and their log-probabilities when the generator gives them
Sample = tuple[list[int], "list[float] | None"]


@dataclass
class _Episode:
    spec: EvalSpec
    chat: Any
    prompt: list[dict]
    prompt_ids: list[int]
    completion_ids: list[int] = field(default_factory=list)
    mask: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)
    done: bool = False
    verdict: dict | None = None

    @property
    def context(self) -> list[int]:
        return self.prompt_ids + self.completion_ids


BUDGET_VERDICT = {"status": "truncated", "message": "The token budget ran out mid-episode.", "score": 0.0,
                  "reward": 0.0, "first_error": None, "details": {"reason": "token_budget"}}


@dataclass
class EpisodeRollout:
    """A TRL ``rollout_func`` that plays whole episodes (see the module docstring).

    ``rows`` are the training rows (to find each prompt's instance and mode; more can be added
    with :meth:`add_rows`); ``max_turn_tokens`` bounds one model turn; the trainer's
    ``max_completion_length`` bounds the whole conversation after the prompt (an episode that runs
    out is ended as ``truncated``).
    """

    rows: list[dict]
    max_turn_tokens: int = 128
    temperature: float = 1.0
    lookup: dict = field(default_factory=dict, init=False)

    def __post_init__(self):
        self.add_rows(self.rows)

    def add_rows(self, rows: list[dict]) -> None:
        """Make more training rows known (a curriculum makes its rows while training runs)."""
        for r in rows:
            self.lookup[prompt_key(r["prompt"])] = r

    def _start(self, prompt, tok) -> _Episode:
        import gymnasium as gym

        import kumo_gym  # noqa: F401

        from ..core.instance import Instance
        from ..wrappers.chat import ChatEnv

        row = self.lookup.get(prompt_key(prompt))
        if row is None:
            raise ConfigError("a GRPO prompt has no matching training row (EpisodeRollout needs the training rows)")
        spec = EvalSpec(row["env_id"], json.loads(row["spec"]))
        inst = Instance.from_json(row["instance"])
        chat = ChatEnv(gym.make(spec.env_id, split=inst.split or "train", **spec.kwargs))
        messages, _ = chat.reset(options={"instance": inst})
        prompt_ids = tok(render(tok, messages, True), add_special_tokens=False)["input_ids"]
        return _Episode(spec, chat, list(messages), list(prompt_ids))

    # ---- the rollout ------------------------------------------------------------------------
    def __call__(self, prompts: list, trainer) -> dict:
        tok = trainer.processing_class
        budget = int(trainer.args.max_completion_length or 512)
        vllm = bool(getattr(trainer, "use_vllm", False))
        episodes = [self._start(p, tok) for p in prompts]
        model = trainer.accelerator.unwrap_model(trainer.model)
        was_training = model.training
        model.eval()
        try:
            while self._any_active(trainer, episodes):
                active = [e for e in episodes if not e.done]
                turn = max(1, min(self.max_turn_tokens, budget - min((len(e.completion_ids) for e in active),
                                                                       default=0)))
                samples: list[Sample]
                if vllm:
                    samples = self._generate_vllm(trainer, active, turn)
                else:
                    samples = self._generate_local(model, tok, active, turn) if active else []
                for ep, (ids, lps) in zip(active, samples):
                    self._advance(ep, tok, ids, lps, budget)
        finally:
            if was_training:
                model.train()
        out: dict[str, Any] = {"prompt_ids": [], "completion_ids": [], "logprobs": [] if vllm else None,
                               "env_mask": [], "kumo_verdict": []}
        for ep in episodes:
            ids, mask, lps = ep.completion_ids[:budget], ep.mask[:budget], ep.logprobs[:budget]
            if not ids:  # TRL needs at least one completion token per rollout
                ids, mask, lps = [tok.eos_token_id], [0], [0.0]
            out["prompt_ids"].append(ep.prompt_ids)
            out["completion_ids"].append(ids)
            out["env_mask"].append(mask)
            if vllm:
                out["logprobs"].append(lps)
            out["kumo_verdict"].append(ep.verdict)
            ep.chat.close()
        return out

    def _advance(self, ep: _Episode, tok, ids: list[int], lps: list[float] | None, budget: int) -> None:
        """Append one model turn, play it, and append the environment's reply (or end)."""
        room = budget - len(ep.completion_ids)
        ids = list(ids)[: max(1, min(self.max_turn_tokens, room))]
        eos = tok.eos_token_id
        hit_eos = eos in ids
        if hit_eos:
            ids = ids[: ids.index(eos) + 1]
        lps = [0.0] * len(ids) if lps is None else [float(x) if x is not None else float("nan") for x in lps[:len(ids)]]
        ep.completion_ids += ids
        ep.mask += [1] * len(ids)
        ep.logprobs += lps
        text = tok.decode(ids, skip_special_tokens=True)
        messages, _, terminated, truncated, info = ep.chat.step(
            text, finish_reason="stop" if hit_eos else "length", n_output_tokens=len(ids),
            max_new_tokens=self.max_turn_tokens)
        if terminated or truncated:
            ep.done, ep.verdict = True, info.get("verdict")
            return
        reply = tok(env_turn_text(tok, messages, hit_eos), add_special_tokens=False)["input_ids"]
        ep.completion_ids += reply
        ep.mask += [0] * len(reply)
        ep.logprobs += [0.0] * len(reply)
        if len(ep.completion_ids) >= budget:
            ep.done, ep.verdict = True, dict(BUDGET_VERDICT)

    @staticmethod
    def _any_active(trainer, episodes) -> bool:
        """Whether any process still has an episode running (every process must join every
        generation call of vLLM's server mode)."""
        local = sum(not e.done for e in episodes)
        acc = trainer.accelerator
        if getattr(acc, "num_processes", 1) <= 1:
            return local > 0
        import torch

        total = acc.gather(torch.tensor([local], device=acc.device)).sum().item()
        return total > 0

    # ---- generation back ends -----------------------------------------------------------------
    def _generate_local(self, model, tok, active: list[_Episode], max_new: int) -> list[Sample]:
        import torch

        contexts = [e.context for e in active]
        width = max(len(x) for x in contexts)
        pad = tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id
        ids = torch.tensor([[pad] * (width - len(x)) + x for x in contexts], device=model.device)
        attn = torch.tensor([[0] * (width - len(x)) + [1] * len(x) for x in contexts], device=model.device)
        with torch.no_grad():
            gen = model.generate(input_ids=ids, attention_mask=attn, max_new_tokens=max_new, do_sample=True,
                                 temperature=self.temperature, top_k=0, top_p=1.0, pad_token_id=pad,
                                 eos_token_id=tok.eos_token_id)
        return [(row, None) for row in gen[:, width:].tolist()]

    def _generate_vllm(self, trainer, active: list[_Episode], max_new: int) -> list[Sample]:
        """One turn for ``active`` through ``trainer.vllm_generation`` (TRL's VLLMGeneration)."""
        gen = trainer.vllm_generation
        collective = getattr(gen, "mode", "server") == "server" or getattr(gen, "tensor_parallel_size", 1) > 1
        if not active and not collective:
            return []
        saved = gen.max_completion_length
        gen.max_completion_length = max_new  # one turn, not the whole conversation
        try:
            _, completion_ids, logprobs, _ = gen.generate(prompts=[e.context for e in active], images=None,
                                                          num_generations=1)
        finally:
            gen.max_completion_length = saved
        out: list[Sample] = []
        for i, ids in enumerate(completion_ids):
            lps: list[float] | None = None
            if logprobs is not None:
                # one entry per token: [sampled token's logprob, ...top-k]; keep the sampled one
                lps = [x[0] if isinstance(x, (list, tuple)) else x for x in logprobs[i]]
            out.append((list(ids), lps))
        return out
