"""Errors shared by every family.

Every error that comes from bad input names the bad value and, where there is a closed set,
the valid choices (docs/architecture.md §9, house rules).
"""
from __future__ import annotations

from collections.abc import Iterable


class KumoGymError(Exception):
    """Base class of the errors this package raises on purpose."""


class ConfigError(KumoGymError, ValueError):
    """A parameter, preset, split or option that is not valid."""


class ParseError(KumoGymError, ValueError):
    """The answer text holds no well-formed answer.

    ``reason`` is a short stable code (``no_answer``, ``malformed_move``, ``ellipsis`` ...);
    ``truncated`` is set when the text looks cut off by a token limit.
    """

    def __init__(self, message: str, reason: str = "malformed", truncated: bool = False):
        super().__init__(message)
        self.reason = reason
        self.truncated = truncated


class ContaminationError(ConfigError):
    """A training utility was asked to use evaluation-only or held-out data."""


class UnsolvableInstanceError(ConfigError):
    """The requested parameters define a puzzle with no solution."""


def check_choice(name: str, value, choices: Iterable) -> None:
    """Raise ConfigError unless ``value`` is one of ``choices``.

    >>> check_choice("difficulty", "insane", ["easy", "hard"])
    Traceback (most recent call last):
    ...
    kumo_gym.core.errors.ConfigError: difficulty 'insane' is not one of: easy, hard
    """
    choices = list(choices)
    if value not in choices:
        raise ConfigError(f"{name} {value!r} is not one of: {', '.join(map(str, choices))}")


def check_ascii(what: str, text: str) -> None:
    """Raise ConfigError unless ``text`` is ASCII: Tatham's game IDs and parameter strings are, and a
    digit from another script (``'\u0661'``, which ``int`` would read as 1) must not slip through.

    >>> check_ascii("game ID", "5x5:a\u0661b")
    Traceback (most recent call last):
    ...
    kumo_gym.core.errors.ConfigError: game ID '5x5:a\u0661b' holds '\u0661' (U+0661) at position 5: Tatham's game IDs and parameter strings are ASCII (digits 0-9)
    """
    if not text.isascii():
        i = next(k for k, ch in enumerate(text) if ord(ch) > 127)
        raise ConfigError(f"{what} {text[:60]!r} holds {text[i]!r} (U+{ord(text[i]):04X}) at position {i}: "
                          "Tatham's game IDs and parameter strings are ASCII (digits 0-9)")


def check_int(name: str, value, lo: int | None = None, hi: int | None = None) -> int:
    """Return ``value`` as an int in [lo, hi] or raise ConfigError naming the range."""
    if isinstance(value, bool) or not isinstance(value, (int,)) and not (
        isinstance(value, float) and value.is_integer()
    ):
        try:
            if isinstance(value, str) and value.strip().lstrip("-").isdigit() and value.isascii():
                value = int(value)
            else:
                raise TypeError
        except TypeError:
            raise ConfigError(f"{name} {value!r} is not an integer") from None
    value = int(value)
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        rng = f"{lo if lo is not None else '-inf'}..{hi if hi is not None else 'inf'}"
        raise ConfigError(f"{name} {value} is outside the valid range {rng}")
    return value
