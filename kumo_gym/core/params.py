"""Parameters declared once: a frozen dataclass per Task (docs/architecture.md §3).

Each field of a :class:`Params` subclass is one parameter a user may pass to ``gym.make`` (and
``make_dataset``, ``kumo-gym generate --env-kwargs`` ...). Its default, type, range or choices
and its one-line doc live in the field, and everything else is derived from it: validation with
errors that name the bad value and the valid choices, the presets (plain dicts of field values),
the ``kumo-gym`` help and the ``Arguments`` section of each environment's manual::

    @dataclass(frozen=True)
    class TentsParams(Params):
        W: int = param(8, lo=4, hi=30, doc="columns")
        H: int = param(8, lo=4, hi=30, doc="rows")
        tatham_difficulty: str = param("e", choices=("e", "t"), doc="Tatham's level: e easy, t tricky")

Fields declared with ``prompt=True`` are *prompt options*: they change only the text the model
sees, never which instance is drawn, so they are left out of the item seed and must not consume
random draws (the registry-wide determinism test checks this for every option of every env).
Cross-field rules (``H`` defaults to ``W``, ``k`` needs ``n``) go in :meth:`Params.check`.
"""
from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .errors import ConfigError

_META = "kumo_param"


@dataclass(frozen=True)
class ParamSpec:
    """What one parameter accepts (read from its dataclass field)."""

    name: str
    default: Any
    kind: type
    doc: str = ""
    lo: float | None = None
    hi: float | None = None
    choices: tuple | None = None
    prompt: bool = False
    nullable: bool = False

    def describe(self) -> str:
        """``int in 4..30, default 8`` style summary for help texts and manuals."""
        if self.choices is not None:
            what = "one of " + ", ".join(map(repr, self.choices))
        else:
            what = self.kind.__name__
            if self.lo is not None or self.hi is not None:
                what += f" in {_num(self.lo, '-inf')}..{_num(self.hi, 'inf')}"
        if self.nullable:
            what += " or None"
        return f"{what}, default {self.default!r}"

    def coerce(self, value: Any) -> Any:
        """``value`` converted to this parameter's type and checked; ConfigError otherwise."""
        if value is None:
            if self.nullable:
                return None
            raise ConfigError(f"{self.name} None is not allowed; expected {self.describe()}")
        v = _convert(self.name, value, self.kind, self.choices)
        if self.choices is not None and v not in self.choices:
            raise ConfigError(f"{self.name} {value!r} is not one of: {', '.join(map(str, self.choices))}")
        if self.kind in (int, float) and ((self.lo is not None and v < self.lo)
                                          or (self.hi is not None and v > self.hi)):
            raise ConfigError(f"{self.name} {v!r} is outside the valid range "
                              f"{_num(self.lo, '-inf')}..{_num(self.hi, 'inf')}")
        return v


def parse_value(text: str):
    """A parameter value written as text (``key=value`` on a command line or in an env spec): a
    JSON literal when it parses, ``true``/``false`` in any case as booleans, else the string."""
    try:
        return json.loads(text)
    except (json.JSONDecodeError, ValueError):
        low = text.lower()
        if low in ("true", "false"):
            return low == "true"
        return text


def _num(x, missing: str) -> str:
    if x is None:
        return missing
    return str(int(x)) if float(x).is_integer() else str(x)


def _convert(name: str, value: Any, kind: type, choices: tuple | None) -> Any:
    if kind is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in ("true", "false", "1", "0", "yes", "no"):
            return value.strip().lower() in ("true", "1", "yes")
        if isinstance(value, int) and value in (0, 1):
            return bool(value)
        raise ConfigError(f"{name} {value!r} is not a boolean (true/false)")
    if kind is int:
        if isinstance(value, bool):
            raise ConfigError(f"{name} {value!r} is not an integer")
        if isinstance(value, int):
            return int(value)
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if (isinstance(value, str) and value.isascii() and value.strip().lstrip("+-").isdigit()
                and len(value.strip()) <= 18):
            return int(value.strip())
        raise ConfigError(f"{name} {value!r} is not an integer")
    if kind is float:
        if isinstance(value, bool):
            raise ConfigError(f"{name} {value!r} is not a number")
        try:
            v = float(value) if isinstance(value, (int, float)) or isinstance(value, str) and value.isascii() else None
        except ValueError:
            v = None
        if v is None or not math.isfinite(v):
            raise ConfigError(f"{name} {value!r} is not a finite number")
        return v
    if kind is str:
        if isinstance(value, str):
            return value
        # numbers that name a choice ("3" or 3 for a level) are accepted in either type
        if (isinstance(value, (int, float)) and not isinstance(value, bool) and choices is not None
                and str(value) in choices):
            return str(value)
        raise ConfigError(f"{name} {value!r} is not a string" + (
            f"; expected one of: {', '.join(map(str, choices))}" if choices else ""))
    if isinstance(value, kind):
        return value
    raise ConfigError(f"{name} {value!r} is not a {kind.__name__}")


def param(default: Any, *, doc: str = "", lo: float | None = None, hi: float | None = None,
          choices: tuple | list | None = None, prompt: bool = False, nullable: bool = False,
          kind: type | None = None) -> Any:
    """A dataclass field declaring one parameter (see the module docstring).

    ``kind`` defaults to the type of ``default`` (give it when the default is None).
    """
    if kind is None:
        if default is None:
            raise TypeError("param(None, ...) needs kind=")
        kind = type(default)
    meta = {"doc": doc, "lo": lo, "hi": hi, "choices": None if choices is None else tuple(choices),
            "prompt": prompt, "nullable": nullable or default is None, "kind": kind}
    return field(default=default, metadata={_META: meta})


def param_bounds(declared: Any) -> tuple[float | None, float | None]:
    """``(lo, hi)`` of a field :func:`param` made (readable in ``__init_subclass__``, before the
    dataclass is built)."""
    meta = declared.metadata[_META]
    return meta["lo"], meta["hi"]


@dataclass(frozen=True)
class Params:
    """Base of the frozen parameter dataclasses of the Tasks."""

    #: set by subclasses that accept parameters the dataclass cannot list (rare)
    extra_allowed: ClassVar[bool] = False

    @classmethod
    def specs(cls) -> list[ParamSpec]:
        # read once per class (environments ask on every reset); a fresh list for the caller
        cached = cls.__dict__.get("_specs_cache")
        if cached is None:
            cached = tuple(cls._read_specs())
            type.__setattr__(cls, "_specs_cache", cached)
        return list(cached)

    @classmethod
    def _read_specs(cls) -> list[ParamSpec]:
        out = []
        for f in dataclasses.fields(cls):
            meta = f.metadata.get(_META)
            if meta is None:
                continue
            out.append(ParamSpec(f.name, f.default, meta["kind"], meta["doc"], meta["lo"], meta["hi"],
                                 meta["choices"], meta["prompt"], meta["nullable"]))
        return out

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(s.name for s in cls.specs())

    @classmethod
    def prompt_names(cls) -> tuple[str, ...]:
        return tuple(s.name for s in cls.specs() if s.prompt)

    @classmethod
    def from_kwargs(cls, values: Mapping[str, Any]) -> Params:
        """Validated parameters from ``values`` (unknown names raise ConfigError naming the valid ones)."""
        specs = {s.name: s for s in cls.specs()}
        unknown = [k for k in values if k not in specs]
        if unknown:
            raise ConfigError(f"parameter {unknown[0]!r} is not one of: {', '.join(sorted(specs)) or '(none)'}")
        kwargs = {k: specs[k].coerce(v) for k, v in values.items()}
        return cls(**kwargs).check()

    def check(self) -> Params:
        """Cross-field validation; return ``self`` or a completed copy (``dataclasses.replace``)."""
        return self

    def to_dict(self) -> dict:
        return {s.name: getattr(self, s.name) for s in self.specs()}

    def generation(self) -> dict:
        """The parameters that decide which instance is drawn (everything but prompt options)."""
        return {s.name: getattr(self, s.name) for s in self.specs() if not s.prompt}

    @classmethod
    def help_rows(cls) -> list[tuple[str, str, str]]:
        """``(name, accepted values, doc)`` rows for help texts and manuals."""
        return [(s.name, s.describe() + (" (prompt only)" if s.prompt else ""), s.doc) for s in cls.specs()]
