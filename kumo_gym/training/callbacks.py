"""A ``TrainerCallback`` that evaluates the model in our environments while it trains.

Every ``every`` optimizer steps (and once at the end) :class:`KumoGymEvalCallback` samples the
model on a fixed held-out set (``n`` validation instances per environment spec, the same
instances every time), plays them through the evaluation harness (single- or multi-turn, traces
kept under ``out_dir/step-<k>/``), scores them with our verifiers and logs, with the trainer's
own logger (so they reach TensorBoard, W&B or ``log_history`` like the loss):

* ``kumo_eval/success``, ``kumo_eval/parse_error``, ``kumo_eval/truncated``, ``kumo_eval/tokens``
  and ``kumo_eval/<Env>/success`` per environment;
* the reasoning-graph metrics of :mod:`kumo_gym.analysis.callback` on single-turn samples
  (``kumo_eval/graph/V``, ``.../H_str``, ``.../eta``, ``.../eta_defined`` ...).

It works with any ``transformers.Trainer`` (TRL's GRPOTrainer and SFTTrainer included).
"""
from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..analysis.results import summarize
from ..core.deprecation import renamed
from .evaluate import EvalSpec, Evaluator

log = logging.getLogger(__name__)


def _trainer_callback_base():
    from transformers import TrainerCallback

    return TrainerCallback


if TYPE_CHECKING:
    from transformers import TrainerCallback as TrainerCallbackBase
else:  # transformers' TrainerCallback, imported when a training module is
    TrainerCallbackBase = _trainer_callback_base()


def analysis_metrics(records: list[dict]) -> dict[str, float]:
    """Reasoning-graph metrics (``kumo_gym.analysis.callback``) of single-turn evaluation traces.

    Multi-turn episodes are left out: the graph metrics are defined on one reasoning trace.
    Returns ``{}`` when the analysis package is not available; never raises.
    """
    try:
        from ..analysis.callback import graph_metrics
        from ..analysis.callback import summarize as graph_summary
    except ImportError:
        return {}
    single = [r for r in records if (r.get("mode") or "answer") == "answer" and r.get("replies")]
    if not single:
        return {}
    try:
        per_sample = graph_metrics([r["replies"][0]["text"] for r in single], [r["instance"] for r in single],
                                   env_ids=[r["env_id"] for r in single], verdicts=[r.get("verdict") for r in single],
                                   reasoning=[r["replies"][0].get("reasoning") for r in single])
        out = graph_summary(per_sample, prefix="")
    except Exception as exc:  # noqa: BLE001 - analysis must never stop a training run
        log.warning("reasoning-graph metrics failed: %s", exc)
        return {}
    return {k: float(v) for k, v in out.items() if isinstance(v, (int, float)) and not math.isnan(v)}


class KumoGymEvalCallback(TrainerCallbackBase):
    """Periodic held-out evaluation with our verifiers (see the module docstring).

    ``specs``: the environments (``EvalSpec`` or ``"ID:key=value"`` strings); ``n`` instances
    each from ``split`` (default ``validation``, disjoint from training); ``every`` steps between
    evaluations (0: only at the end); ``max_tokens`` per reply; ``temperature`` 0 means greedy.
    Set ``callback.trainer = trainer`` to log through the trainer (``train_grpo``/``train_sft``
    do); without it metrics are appended to ``state.log_history``.
    """

    def __init__(self, specs: Sequence[EvalSpec | str], n: int = 4, every: int = 10, max_tokens: int = 128,
                 temperature: float = 0.0, out_dir: str | Path = "runs/callback", seed: int = 0,
                 split: str = "validation"):
        from .evaluate import parse_env_spec

        self.specs = [s if isinstance(s, EvalSpec) else parse_env_spec(s) for s in specs]
        self.n = int(n)
        self.every = int(every)
        self.max_tokens = int(max_tokens)
        self.temperature = float(temperature)
        self.out_dir = Path(out_dir)
        self.seed = int(seed)
        self.split = split
        self.trainer = None
        self.history: list[dict] = []
        self._last_step = None
        self._pending: list[dict] = []

    def evaluate(self, model, tokenizer, step: int) -> dict[str, float]:
        from ..wrappers.trace import read_traces
        from .backends import TransformersBackend

        was_training = model.training
        backend = TransformersBackend(model, tokenizer, device=str(model.device), max_tokens=self.max_tokens,
                                      temperature=self.temperature, seed=self.seed)
        try:
            ev = Evaluator(backend, self.out_dir / f"step-{step}", model_name=f"step-{step}", split=self.split,
                           seed=self.seed, max_tokens=self.max_tokens, temperature=self.temperature,
                           progress=False)
            path = ev.run(self.specs, self.n)
        finally:
            if was_training:
                model.train()
        records = read_traces(path)
        summary = summarize(records)
        statuses = [(r.get("verdict") or {}).get("status") for r in records]
        total = max(1, len(records))
        metrics = {
            "kumo_eval/success": sum(s == "solved" for s in statuses) / total,
            "kumo_eval/parse_error": sum(s == "parse_error" for s in statuses) / total,
            "kumo_eval/truncated": sum(s == "truncated" for s in statuses) / total,
            "kumo_eval/tokens": sum(r.get("completion_tokens") or 0 for r in records) / total,
        }
        for row in summary["by_env"]:
            key = f"kumo_eval/{row['group']}" + (f"/{row['difficulty']}" if row["difficulty"] else "")
            metrics[f"{key}/success"] = row["success"]
        metrics.update({f"kumo_eval/graph/{k}": v for k, v in analysis_metrics(records).items()})
        return metrics

    def _run(self, args, state, model, tokenizer, defer: bool) -> None:
        if model is None or tokenizer is None or state.global_step == self._last_step:
            return
        self._last_step = state.global_step
        metrics = self.evaluate(model, tokenizer, state.global_step)
        self.history.append({"step": state.global_step, **metrics})
        self._pending.append(metrics)
        if not defer:
            self._flush(state)

    def _flush(self, state) -> None:
        pending, self._pending = self._pending, []
        for metrics in pending:
            if self.trainer is not None:
                from transformers import Trainer

                # the base class's log: TRL's override would fold (and clear) its pending step metrics into ours
                Trainer.log(self.trainer, metrics)
            else:
                state.log_history.append({**metrics, "step": state.global_step})

    @staticmethod
    def _tokenizer(kwargs: dict[str, Any]):
        return kwargs.get("processing_class") or kwargs.get("tokenizer")

    def on_step_end(self, args, state, control, model=None, **kwargs):
        if self.every > 0 and state.global_step % self.every == 0:
            # logged after the trainer's own log of this step (on_log), which a log now would disturb
            self._run(args, state, model, self._tokenizer(kwargs), defer=True)
        return control

    def on_log(self, args, state, control, logs=None, **kwargs):
        if self._pending and not any(k.startswith("kumo_eval/") for k in (logs or {})):
            self._flush(state)
        return control

    def on_train_end(self, args, state, control, model=None, **kwargs):
        self._run(args, state, model, self._tokenizer(kwargs), defer=False)
        self._flush(state)
        return control


#: the old name, which read as the KUMO family's (the callback evaluates any environment)
__getattr__ = renamed(__name__, {"KumoEvalCallback": "KumoGymEvalCallback"})
