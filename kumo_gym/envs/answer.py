"""AnswerEnv: one prompt, one answer, one verdict."""
from __future__ import annotations

from typing import Any

import gymnasium as gym

from ..core.errors import ConfigError
from ..core.verdict import Verdict, too_long
from .base import PuzzleEnv


class AnswerEnv(PuzzleEnv):
    """Single-answer environment over any Task.

    ## Description
    ``reset`` draws an instance (or replays ``options={"instance": ...}``) and returns its prompt.
    ``step(text)`` reads the model's whole completion, verifies the answer by the puzzle's rules
    and ends the episode.

    ## Observation space
    ``Text``: the prompt after ``reset``; after ``step``, the verdict's one-sentence message.

    ## Action space
    ``Text``: a raw completion. It may contain reasoning; a ``<think>...</think>`` block is never
    read as the answer. Any string is accepted: a malformed answer is a ``parse_error`` verdict.

    ## Rewards
    ``reward="binary"`` (default): 1 when solved, else 0. ``reward="partial"``: the verdict's
    ``score``, the fraction of the puzzle's constraints met.

    ## Episode end
    Always after one step (``terminated=True``). A further ``step`` before ``reset`` pays 0 and
    returns the verdict status ``ended``.

    ## Info
    ``instance_id``, ``family``, ``difficulty``, ``split``, ``optimal_steps``; after ``step`` also
    ``verdict`` (the Verdict as a dict).

    ## Arguments
    ``difficulty`` or the family's size parameters, ``split`` (train/validation/test), ``reward``,
    ``render_mode`` ("ansi", or "rgb_array" where the family draws images), ``prompt_template``
    (a ``str.format`` template with ``{prompt}`` and the instance parameters), ``observation``
    (``"text"``, or ``"image+text"`` where the family draws images: a dict of the text and an
    ``image_size`` x ``image_size`` RGB picture of the puzzle, for vision-language models),
    ``max_answer_chars`` (default 1,000,000: a longer completion is refused unread with the status
    ``too_long``).
    """

    def __init__(self, task, env_id: str, max_steps: int | None = None, **kwargs: Any):
        if max_steps not in (None, 1):
            raise ConfigError(f"max_steps {max_steps!r} is not valid in answer mode, which has exactly one step; "
                              "use mode='interactive' for multi-step play")
        super().__init__(task, env_id, **kwargs)
        self.last_verdict: Verdict | None = None

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        inst = self._next_instance(seed, options)
        self.last_verdict = None
        return self._obs(self._prompt_text(inst)), self._info()

    @property
    def ended(self) -> bool:
        return self.last_verdict is not None

    def score_completion(self, completion: str, **meta) -> Verdict:
        """Verify a completion with optional ``reasoning``, ``finish_reason``, token counts."""
        refused = too_long(completion, meta.get("reasoning"), self.max_answer_chars)
        if refused is not None:
            return refused
        return self.task.score(self.instance, completion, **meta, max_answer_chars=self.max_answer_chars)

    def step(self, action):
        if self.instance is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        if self.ended:
            verdict = Verdict("ended", "The episode has already ended; call reset() for a new puzzle.")
            info = self._info()
            info["verdict"] = verdict.to_dict()
            return self._obs(verdict.message), 0.0, True, False, info
        if isinstance(action, dict):
            meta = {k: action.get(k) for k in ("reasoning", "finish_reason", "n_output_tokens", "max_new_tokens")}
            verdict = self.score_completion(action.get("completion", ""), **meta)
        else:
            verdict = self.score_completion(action if isinstance(action, str) else str(action))
        self.last_verdict = verdict
        info = self._info()
        info["verdict"] = verdict.to_dict()
        return self._obs(verdict.message), self._reward(verdict), True, False, info
