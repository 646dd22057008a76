"""Where a trainer's log dictionaries go, a one-line progress bar, and the cost of the environment
side of a GRPO step.

``transformers.Trainer`` prints every log dictionary to the terminal (``PrinterCallback``, or
through its tqdm bar); :func:`route_logs` sends them to a JSON-lines file in the run directory
instead and keeps one progress bar per training phase on the terminal.

:class:`TimedReward` wraps a reward function and adds up the CPU time it spends (parsing and
verifying completions: the environment side of a GRPO step); :class:`EnvCostCallback` logs it
with the step's own CPU time, so ``log_history`` shows the environment's share of each step.
"""
from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from transformers import TrainerCallback as _Base
else:
    def _base():
        from transformers import TrainerCallback

        return TrainerCallback

    _Base = _base()


class TimedReward:
    """A reward function that records the CPU seconds spent inside ``func`` (``seconds``)."""

    def __init__(self, func):
        self.func = func
        self.__name__ = getattr(func, "__name__", "reward")
        self.seconds = 0.0

    def __call__(self, *args, **kwargs):
        t = time.process_time()
        try:
            return self.func(*args, **kwargs)
        finally:
            self.seconds += time.process_time() - t

    def __getattr__(self, name):  # scoring_errors and the like, read from the wrapped function
        return getattr(self.func, name)


class EnvCostCallback(_Base):
    """Logs ``env/reward_cpu_s`` (CPU seconds the reward functions took since the last log),
    ``env/step_cpu_s`` (CPU seconds of the whole step) and ``env/share`` (their ratio)."""

    def __init__(self, rewards: list[TimedReward]):
        self.rewards = rewards
        self._cpu = time.process_time()
        self._env = 0.0
        self.total_cpu = 0.0
        self.total_env = 0.0

    def on_log(self, args, state, control, logs=None, **kwargs):
        if logs is None or "reward" not in logs:
            return
        cpu, env = time.process_time(), sum(r.seconds for r in self.rewards)
        step_cpu, env_cpu = cpu - self._cpu, env - self._env
        self._cpu, self._env = cpu, env
        self.total_cpu += step_cpu
        self.total_env += env_cpu
        extra = {"env/reward_cpu_s": round(env_cpu, 4), "env/step_cpu_s": round(step_cpu, 3),
                 "env/share": round(env_cpu / step_cpu, 5) if step_cpu > 0 else 0.0}
        logs.update(extra)
        # the trainer stored a copy of ``logs`` in log_history before calling back
        if state.log_history and state.log_history[-1].get("step") == state.global_step:
            state.log_history[-1].update(extra)


class FileLogCallback(_Base):
    """Appends every log dictionary, with its step, to ``path`` (JSON lines)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text("")

    def on_log(self, args, state, control, logs=None, **kwargs):
        if logs:
            with self.path.open("a") as f:
                f.write(json.dumps({"step": state.global_step, **logs}, default=str) + "\n")


class BarCallback(_Base):
    """One tqdm bar over the optimizer steps, showing the latest reward or loss."""

    def __init__(self, desc: str):
        self.desc = desc
        self.bar = None

    def on_train_begin(self, args, state, control, **kwargs):
        from tqdm.auto import tqdm

        self.bar = tqdm(total=state.max_steps, desc=self.desc, unit="step", dynamic_ncols=True)

    def on_step_end(self, args, state, control, **kwargs):
        if self.bar is not None:
            self.bar.update(state.global_step - self.bar.n)

    def on_log(self, args, state, control, logs=None, **kwargs):
        if self.bar is not None and logs:
            shown = {k: logs[k] for k in ("reward", "loss") if isinstance(logs.get(k), (int, float))}
            if shown:
                self.bar.set_postfix({k: f"{v:.3f}" for k, v in shown.items()})

    def on_train_end(self, args, state, control, **kwargs):
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def route_logs(trainer, log_file: str | Path, desc: str) -> None:
    """Log dictionaries to ``log_file`` instead of the terminal; one progress bar named ``desc``."""
    from transformers.trainer_callback import PrinterCallback, ProgressCallback

    trainer.remove_callback(PrinterCallback)
    trainer.remove_callback(ProgressCallback)
    trainer.add_callback(FileLogCallback(log_file))
    trainer.add_callback(BarCallback(desc))
