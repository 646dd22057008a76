"""The LLM chat interface: an environment as system/user/assistant messages.

``ChatEnv`` turns any kumo_gym environment into a conversation. ``reset`` gives the opening
messages (the family's system part when it has one, then the prompt); ``step`` takes a raw
model completion, with an optional separate reasoning trace and the generation's
``finish_reason``, and answers with the conversation so far. With a tokenizer (anything with
``encode`` or a Hugging Face tokenizer), prompt and completion token counts are recorded in
``info["tokens"]``.
"""
from __future__ import annotations

import re
from typing import Any

import gymnasium as gym

_SURROGATES = re.compile("[\ud800-\udfff]")


def _count(tokenizer, text: str) -> int | None:
    if tokenizer is None:
        return None
    # lone surrogates (invalid UTF-8) make Rust tokenizers raise: count them as U+FFFD
    text = _SURROGATES.sub("\ufffd", text)
    if hasattr(tokenizer, "encode"):
        try:
            return len(tokenizer.encode(text, add_special_tokens=False))
        except TypeError:
            return len(tokenizer.encode(text))
    return int(tokenizer(text))


def observation_text(obs) -> str:
    """The text of an observation (image observations are ``{"text": ..., "image": ...}``)."""
    return obs["text"] if isinstance(obs, dict) else obs


def message_text(content) -> str:
    """The text of a message's content: a string, or the text parts of a multimodal content list."""
    if isinstance(content, str):
        return content
    return "\n".join(p.get("text", "") for p in content or [] if isinstance(p, dict) and p.get("type") == "text")


def fold_system(messages: list[dict]) -> list[dict]:
    """``messages`` with their system message(s) moved to the start of the first user message (a
    blank line between), for chat templates that refuse a system role (Gemma 2's raises "System role
    not supported") or drop it. Other messages are copied unchanged."""
    system = "\n\n".join(message_text(m.get("content", "")) for m in messages if m.get("role") == "system")
    out = [dict(m) for m in messages if m.get("role") != "system"]
    if not system:
        return out
    for m in out:
        if m.get("role") == "user":
            c = m.get("content", "")
            m["content"] = f"{system}\n\n{c}" if isinstance(c, str) else [{"type": "text", "text": system}, *c]
            return out
    return [{"role": "user", "content": system}, *out]


#: whether a tokenizer's chat template keeps a system message, by (tokenizer, template)
_SYSTEM_OK: dict[tuple[int, str | None], bool] = {}


def system_supported(tok) -> bool:
    """Whether ``tok``'s chat template renders a system message (rather than raising or dropping it)."""
    key = (id(tok), getattr(tok, "chat_template", None))
    if key not in _SYSTEM_OK:
        mark = "\u2063kumo-system\u2063"
        try:
            text = tok.apply_chat_template([{"role": "system", "content": mark}, {"role": "user", "content": "u"}],
                                           tokenize=False, add_generation_prompt=True)
            _SYSTEM_OK[key] = mark in text
        except Exception:  # noqa: BLE001  (jinja's raise_exception, or no template at all)
            _SYSTEM_OK[key] = False
    return _SYSTEM_OK[key]


def for_template(tok, messages: list[dict]) -> list[dict]:
    """``messages`` as ``tok``'s chat template can take them: unchanged, or with the system message
    folded into the first user message where the template has no system role (:func:`fold_system`)."""
    if any(m.get("role") == "system" for m in messages) and not system_supported(tok):
        return fold_system(messages)
    return messages


def fold_rows_for(tok, dataset, columns: tuple[str, ...] = ("prompt", "messages")):
    """A trainer's dataset (``datasets`` map-style or iterable) with the conversations in ``columns``
    passed through :func:`fold_system` when ``tok``'s chat template has no system role (TRL applies the
    template to them itself); unchanged otherwise."""
    if system_supported(tok):
        return dataset

    def fold(row):
        return {c: fold_system(row[c]) for c in columns if isinstance(row.get(c), list) and row[c]
                and isinstance(row[c][0], dict)}

    return dataset.map(fold)


def user_content(text: str, obs):
    """A user message's content: ``text``, or for an image observation one image part (a PIL image)
    followed by the text, the form TRL's vision-language trainers and processors take."""
    if not isinstance(obs, dict):
        return text
    from PIL import Image

    return [{"type": "image", "image": Image.fromarray(obs["image"])}, {"type": "text", "text": text}]


class ChatEnv(gym.Wrapper):
    """Chat-message view of a kumo_gym environment.

    >>> import gymnasium as gym, kumo_gym
    >>> from kumo_gym.wrappers import ChatEnv
    >>> chat = ChatEnv(gym.make("kumo_gym/Hanoi-v0", n=3))
    >>> messages, info = chat.reset(seed=0)
    >>> messages, reward, done, truncated, info = chat.step("... moves = [[1,0,2]]")
    """

    def __init__(self, env: gym.Env, tokenizer: Any = None):
        super().__init__(env)
        self.tokenizer = tokenizer
        self.messages: list[dict] = []
        self.tokens = {"prompt": 0, "completion": 0, "reasoning": 0}

    def reset(self, **kwargs):
        obs, info = self.env.reset(**kwargs)
        base: Any = self.env.unwrapped  # one of ours: task, instance, prompt_template
        task, inst = base.task, base.instance
        if hasattr(base, "score_completion"):
            msgs = [dict(m) for m in task.messages(inst)]
            if base.prompt_template and msgs and msgs[-1]["role"] == "user":
                msgs[-1]["content"] = observation_text(obs)  # a user template replaces the user part only
            if msgs and msgs[-1]["role"] == "user":
                msgs[-1]["content"] = user_content(msgs[-1]["content"], obs)
            self.messages = msgs
        else:
            self.messages = [{"role": "user", "content": user_content(observation_text(obs), obs)}]
        self.tokens = {"prompt": sum(_count(self.tokenizer, message_text(m["content"])) or 0 for m in self.messages),
                       "completion": 0, "reasoning": 0}
        info = dict(info, tokens=dict(self.tokens) if self.tokenizer is not None else None)
        return list(self.messages), info

    def step(self, completion: str, reasoning: str | None = None, finish_reason: str | None = None,
             n_output_tokens: int | None = None, max_new_tokens: int | None = None):
        completion = completion if isinstance(completion, str) else ("" if completion is None else str(completion))
        base = self.env.unwrapped
        meta = {"reasoning": reasoning, "finish_reason": finish_reason, "n_output_tokens": n_output_tokens,
                "max_new_tokens": max_new_tokens}
        action: str | dict[str, str | int | None]
        if hasattr(base, "score_completion") and any(v is not None for v in meta.values()):
            action = {"completion": completion, **meta}
        else:
            action = completion
        obs, reward, terminated, truncated, info = self.env.step(action)
        msg = {"role": "assistant", "content": completion}
        if reasoning is not None:
            msg["reasoning"] = reasoning
        self.messages.append(msg)
        text = observation_text(obs)
        if not (terminated or truncated):
            self.messages.append({"role": "user", "content": user_content(text, obs)})
        if self.tokenizer is not None:
            self.tokens["completion"] += _count(self.tokenizer, completion) or 0
            if reasoning:
                self.tokens["reasoning"] += _count(self.tokenizer, reasoning) or 0
            if not (terminated or truncated):
                self.tokens["prompt"] += _count(self.tokenizer, text) or 0
            info = dict(info, tokens=dict(self.tokens))
        info = dict(info, feedback=text)
        return list(self.messages), reward, terminated, truncated, info
