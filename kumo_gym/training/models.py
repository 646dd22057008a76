"""Loading the model to train: the tiny local model or any Hugging Face causal LM, with TRL's
``ModelConfig`` options (dtype, attention implementation, LoRA/QLoRA through peft), and the shared
parts of every trainer's configuration (device, precision, logging)."""
from __future__ import annotations

import contextlib
import json
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.errors import ConfigError


@dataclass
class LoadedModel:
    model: Any
    tokenizer: Any
    path: str
    peft_config: Any = None


def model_config(path: str, model_args: dict | None = None):
    """TRL's ``ModelConfig`` for ``path`` with ``model_args`` (unknown fields raise ConfigError)."""
    from trl import ModelConfig

    from .config import field_names

    args = dict(model_args or {})
    unknown = set(args) - field_names(ModelConfig)
    if unknown:
        raise ConfigError(f"model option(s) {sorted(unknown)} are not ModelConfig fields")
    args.pop("model_name_or_path", None)
    try:
        return ModelConfig(model_name_or_path=path, **args)
    except ValueError as e:
        raise ConfigError(f"model options: {e}") from None


def load_model(model: str = "tiny", model_args: dict | None = None) -> LoadedModel:
    """The model and tokenizer to train, and the peft config when ``use_peft`` is set.

    ``model``: ``"tiny"`` (built locally, nothing downloaded) or a Hugging Face path/name (a hub
    name downloads the weights on first use). ``model_args``: ModelConfig fields; QLoRA
    (``load_in_4bit``/``load_in_8bit``) needs CUDA and ``bitsandbytes`` and says so otherwise.
    """
    from .backends import model_path, pretrained_error

    path = model_path(model)  # a mistyped local path fails here, before torch is imported
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import get_peft_config, get_quantization_config

    margs = model_config(path, model_args)
    kwargs: dict[str, Any] = {"revision": margs.model_revision}
    if margs.attn_implementation:
        kwargs["attn_implementation"] = margs.attn_implementation
    if margs.dtype not in (None, "auto"):
        kwargs["dtype"] = getattr(torch, margs.dtype) if isinstance(margs.dtype, str) else margs.dtype
    elif margs.dtype == "auto":
        kwargs["dtype"] = "auto"
    if margs.load_in_4bit or margs.load_in_8bit:
        if not torch.cuda.is_available():
            raise ConfigError("load_in_4bit/load_in_8bit (QLoRA) need a CUDA GPU; on a CPU use plain LoRA "
                              "(use_peft: true) or full fine-tuning")
        try:
            import bitsandbytes  # noqa: F401
        except ImportError:
            raise ConfigError("load_in_4bit/load_in_8bit (QLoRA) need the bitsandbytes package: "
                              "pip install bitsandbytes") from None
        if not margs.use_peft:
            raise ConfigError("a quantized base model trains through LoRA adapters only: add use_peft: true")
        from accelerate import PartialState

        # each process loads its quantized copy on its own GPU
        kwargs.update(quantization_config=get_quantization_config(margs),
                      device_map={"": PartialState().local_process_index})
    try:
        peft_config = get_peft_config(margs)
    except ValueError as e:  # peft missing
        raise ConfigError(str(e)) from None
    try:
        tok = AutoTokenizer.from_pretrained(path, revision=margs.model_revision)
        lm = AutoModelForCausalLM.from_pretrained(path, **kwargs)
    except (OSError, ValueError) as exc:
        raise pretrained_error(model, exc) from None
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    return LoadedModel(lm, tok, path, peft_config)


def base_trainer_args(seed: int = 0, logging_steps: int = 1, report_to: str = "none") -> dict:
    """Trainer fields every kumo-gym run sets the same way: CPU when there is no GPU, bf16 on GPUs
    that support it, no intermediate checkpoints, logs every step."""
    import torch

    cuda = torch.cuda.is_available()
    return {"seed": seed, "use_cpu": not cuda, "bf16": cuda and torch.cuda.is_bf16_supported(), "save_strategy": "no",
                "logging_steps": logging_steps, "report_to": report_to, "disable_tqdm": False, "dataloader_num_workers": 0}


def save_trained(trainer, tok, out_dir, peft_config=None) -> None:
    """Save the trained model to ``out_dir/model`` as a full model (LoRA adapters merged in, so
    ``kumo-gym eval --model OUT/model`` and ``vllm serve OUT/model`` load it as any model), and
    the adapters alone to ``out_dir/adapter`` when LoRA was used."""
    from pathlib import Path

    out = Path(out_dir)
    model = trainer.model
    if peft_config is not None and hasattr(model, "merge_and_unload"):
        model.save_pretrained(str(out / "adapter"))
        tok.save_pretrained(str(out / "adapter"))
        if getattr(model, "is_loaded_in_4bit", False) or getattr(model, "is_loaded_in_8bit", False):
            return  # a quantized base cannot be merged; the adapters are the result
        model = model.merge_and_unload()
        model.save_pretrained(str(out / "model"))
    else:
        trainer.save_model(str(out / "model"))
    tok.save_pretrained(str(out / "model"))


def train_and_save(trainer, callbacks: list, output_dir, tok, save: bool, peft_config=None):
    """Run a TRL trainer, write its log history (and the model when ``save``); shared by GRPO and SFT."""
    for cb in callbacks:
        cb.trainer = trainer
    trainer.train()
    out = Path(output_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "log_history.json").write_text(json.dumps(trainer.state.log_history, indent=2, default=str) + "\n")
    (out / "trainer_args.json").write_text(trainer.args.to_json_string())  # every field the trainer ran with
    if save:
        save_trained(trainer, tok, out, peft_config)
    return trainer


#: transformers' warnings about the renamed checkpointing methods, which TRL's trainers still call
#: (``model.is_gradient_checkpointing``, ``gradient_checkpointing_enable/disable``) on every step.
#: Our own configuration uses the current names (:func:`kumo_gym.training.config.current_names`);
#: these calls are inside TRL, where a user can do nothing about them.
RENAMED_METHOD_WARNING = r"`(is_)?gradient_checkpointing(_enable|_disable)?` is deprecated"


@contextlib.contextmanager
def trl_renamed_api_warnings_hidden() -> Iterator[None]:
    """Hide, inside the block, only the FutureWarnings that TRL's calls of renamed transformers
    methods raise (:data:`RENAMED_METHOD_WARNING`); every other warning is shown as usual."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=RENAMED_METHOD_WARNING, category=FutureWarning)
        yield
