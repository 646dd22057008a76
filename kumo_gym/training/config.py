"""The whole trainer configuration of ``kumo-gym train grpo|sft``, from the command line or YAML.

Three groups of options, as in TRL's own scripts (``TrlParser((ScriptArguments, GRPOConfig,
ModelConfig))``):

* ours (:data:`KUMO_OPTIONS`): the environments (``envs``), ``size`` (training items per
  environment), ``model``, the curriculum and mixture, the evaluation callback ...;
* every field of TRL's ``GRPOConfig`` / ``SFTConfig`` (``learning_rate``,
  ``gradient_accumulation_steps``, ``bf16``, ``use_vllm``, ``vllm_mode`` ...), with the
  defaults of :func:`kumo_gym.training.grpo.train_grpo` / ``train_sft`` where ours differ;
* every field of TRL's ``ModelConfig``: LoRA through peft (``use_peft``, ``lora_r``,
  ``lora_alpha``, ``lora_target_modules`` ...), QLoRA (``load_in_4bit``), ``dtype``,
  ``attn_implementation``.

On the command line a field is ``--field_name value`` or ``--field-name value`` (TRL's
``HfArgumentParser`` spelling); in a YAML file (``--config run.yaml``) it is a top-level key.
The command line wins over the file, the file over the defaults. The resolved configuration is
written to ``OUTPUT_DIR/train_config.yaml`` so a run can be repeated with ``--config``.
"""
from __future__ import annotations

import dataclasses
import difflib
from pathlib import Path
from typing import Any

from ..core.errors import ConfigError

ALGORITHMS = ("grpo", "sft")

#: our options and their defaults (None: decided by the trainer function)
KUMO_OPTIONS: dict[str, dict[str, Any]] = {
    "common": {"envs": None, "size": 64, "model": "tiny", "output_dir": None, "shard": None, "heldout": None,
               "callback_every": 0, "callback_n": 4, "callback_max_tokens": 128, "save": True,
               "curriculum": None, "mixture": None},
    "grpo": {"reward_weights": None, "prompts_per_step": 2, "max_turn_tokens": 128},
    "sft": {},
}

#: other spellings of our options and of trainer fields (the older command line, YAML habits)
ALIASES = {"env": "envs", "out": "output_dir", "n": "size", "model_name_or_path": "model",
           "batch_size": "per_device_train_batch_size", "epochs": "num_train_epochs"}


def kumo_keys(algo: str) -> dict[str, Any]:
    return {**KUMO_OPTIONS["common"], **KUMO_OPTIONS[algo]}


def config_classes(algo: str):
    """``(GRPOConfig or SFTConfig, ModelConfig)``."""
    from trl import GRPOConfig, ModelConfig, SFTConfig

    if algo not in ALGORITHMS:
        raise ConfigError(f"algorithm {algo!r} is not one of: {', '.join(ALGORITHMS)}")
    return (GRPOConfig if algo == "grpo" else SFTConfig), ModelConfig


def field_names(cls) -> set[str]:
    return {f.name for f in dataclasses.fields(cls) if f.init}


@dataclasses.dataclass
class TrainSetup:
    """The three groups of options of one training run (see the module docstring)."""

    algo: str
    kumo: dict = dataclasses.field(default_factory=dict)
    trainer: dict = dataclasses.field(default_factory=dict)
    model: dict = dataclasses.field(default_factory=dict)

    def update(self, other: TrainSetup) -> TrainSetup:
        self.kumo.update(other.kumo)
        self.trainer.update(other.trainer)
        self.model.update(other.model)
        return self

    def to_dict(self) -> dict:
        """One flat mapping, readable back with :func:`split_options` (the YAML file's form)."""
        return {**self.kumo, **self.trainer, **self.model}


def split_options(algo: str, options: dict, source: str = "options") -> TrainSetup:
    """Sort flat ``options`` into ours, trainer fields and model fields; unknown names raise
    ConfigError with the closest valid names."""
    trainer_cls, model_cls = config_classes(algo)
    ours, tnames, mnames = kumo_keys(algo), field_names(trainer_cls), field_names(model_cls)
    setup = TrainSetup(algo)
    for raw, value in options.items():
        key = ALIASES.get(str(raw).replace("-", "_"), str(raw).replace("-", "_"))
        if key in ours:
            setup.kumo[key] = value
        elif key in tnames:
            setup.trainer[key] = value
        elif key in mnames:
            setup.model[key] = value
        else:
            close = difflib.get_close_matches(key, [*ours, *tnames, *mnames, *ALIASES], n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise ConfigError(f"{source}: {raw!r} is not a kumo-gym option, a {trainer_cls.__name__} field or a "
                              f"ModelConfig field{hint}")
    return setup


def load_config_file(path: str | Path, algo: str) -> TrainSetup:
    """The options of a YAML file (a mapping of option names to values; ``yaml.safe_load``, so the
    file can hold data only, never code)."""
    import yaml

    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"config file {str(path)!r} does not exist")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as e:
        raise ConfigError(f"config file {str(path)!r} is not valid YAML: {e}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"config file {str(path)!r} must hold a mapping of option names to values, not "
                          f"{type(data).__name__}")
    return split_options(algo, data, source=str(path))


def parse_trainer_cli(algo: str, argv: list[str]) -> TrainSetup:
    """Trainer and model fields given on the command line (``--field value``), explicit ones only.

    TRL's ``HfArgumentParser`` reads the values (types, booleans, lists); only the fields named
    in ``argv`` are kept, so the defaults of our trainer functions are not overwritten by TRL's.
    """
    if not argv:
        return TrainSetup(algo)
    from transformers import HfArgumentParser

    trainer_cls, model_cls = config_classes(algo)
    parser = HfArgumentParser((trainer_cls, model_cls))
    probe = list(argv)
    if not any(a.split("=")[0] in ("--use_cpu", "--use-cpu") for a in probe):
        # TRL's default bf16=True fails validation on a CPU-only machine before we can read anything;
        # the probe only reads values: fields not named in argv are dropped below
        probe += ["--use_cpu", "true"]
    named = {a.split("=")[0].lstrip("-").replace("-", "_") for a in probe if a.startswith("--")}
    if "activation_checkpointing" in field_names(trainer_cls) and not named & {
            "activation_checkpointing", "gradient_checkpointing", "no_activation_checkpointing",
            "no_gradient_checkpointing"}:
        # TRL's default is given under its deprecated name, which warns when read; the probe names the
        # current field instead (dropped below unless argv names it)
        probe += ["--activation_checkpointing", "true"]
    try:
        trainer, model, rest = parser.parse_args_into_dataclasses(args=probe, return_remaining_strings=True)
    except SystemExit:
        raise ConfigError(f"could not read the trainer options {' '.join(argv)!r} (see kumo-gym train {algo} "
                          "--help-trainer)") from None
    if rest:
        setup = split_options(algo, {a.lstrip("-").split("=")[0]: None for a in rest if a.startswith("--")},
                              source="command line")
        raise ConfigError(f"unrecognized arguments: {' '.join(rest)}" + (
            f" (options of ours go before the trainer fields: {', '.join(setup.kumo)})" if setup.kumo else ""))
    tnames, mnames = field_names(trainer_cls), field_names(model_cls)
    setup = TrainSetup(algo)
    for tok in argv:
        if not tok.startswith("--"):
            continue
        name = tok[2:].split("=", 1)[0].replace("-", "_")
        if name.startswith("no_") and name[3:] in tnames | mnames:
            name = name[3:]
        if name in tnames:
            setup.trainer[name] = getattr(trainer, name)
        elif name in mnames:
            setup.model[name] = getattr(model, name)
    return setup


def trainer_help(algo: str) -> str:
    """The command-line help of every trainer and model field (``--help-trainer``)."""
    from transformers import HfArgumentParser

    parser = HfArgumentParser(config_classes(algo))
    parser.prog = f"kumo-gym train {algo}"
    return parser.format_help()


def write_config(setup: TrainSetup, path: str | Path) -> Path:
    """The resolved options as YAML (plain values only), so ``--config`` repeats the run."""
    import yaml

    def plain(v):
        if isinstance(v, (str, int, float, bool)) or v is None:
            return v
        if isinstance(v, dict):
            return {str(k): plain(x) for k, x in v.items()}
        if isinstance(v, (list, tuple, set)):
            return [plain(x) for x in v]
        return str(v)

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump({k: plain(v) for k, v in setup.to_dict().items()}, sort_keys=True))
    return path


def make_config(algo: str, args: dict):
    """A ``GRPOConfig``/``SFTConfig`` from ``args``; a bad field or value is a ConfigError naming it."""
    cls = config_classes(algo)[0]
    args = current_names(cls, args)
    unknown = sorted(set(args) - field_names(cls))
    if unknown:
        raise ConfigError(f"{', '.join(unknown)} {'is not a' if len(unknown) == 1 else 'are not'} {cls.__name__} "
                          "field(s)")
    try:
        return cls(**args)
    except (ValueError, TypeError) as e:
        raise ConfigError(f"{cls.__name__}: {e}") from None


#: trainer fields transformers renamed: (deprecated name, current name)
RENAMED_FIELDS = (("gradient_checkpointing", "activation_checkpointing"),
                  ("gradient_checkpointing_kwargs", "activation_checkpointing_kwargs"))


def current_names(cls, args: dict) -> dict:
    """``args`` with the deprecated trainer field names replaced by the current ones of the installed
    transformers (a value given under the current name wins), and the checkpointing default of ``cls``
    (TRL turns it on) passed under the current name, so that building the config warns about nothing."""
    names = field_names(cls)
    out = dict(args)
    for old, new in RENAMED_FIELDS:
        if new not in names:
            continue  # an older transformers: the old names are the current ones
        if old in out:
            value = out.pop(old)
            out.setdefault(new, value)
    if "activation_checkpointing" in names and out.get("activation_checkpointing") is None:
        default = {f.name: f.default for f in dataclasses.fields(cls)}.get("gradient_checkpointing")
        if isinstance(default, bool):
            out["activation_checkpointing"] = default
    return out
