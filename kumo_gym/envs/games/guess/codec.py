"""Tatham's Guess game IDs: ``c6p4g10Bm:HEX`` (docs/games.md, Guess).

The parameters are the number of colours (``c``), pegs (``p``) and guesses (``g``), then ``b``/``B``
(blank pegs allowed in guesses or not) and ``m``/``M`` (a colour may repeat or not). The
description is the hidden code, one byte per peg (colours 1..c), hidden by Tatham's reversible
scrambling (:mod:`kumo_gym.envs.games.obfuscate`).
"""
from __future__ import annotations

import re

from ....core.errors import ConfigError
from ..base import match_params
from ..obfuscate import hide_bytes, is_hex, reveal_bytes

_PARAMS = re.compile(r"c(\d{1,2})p(\d{1,2})g(\d{1,3})([bB])([mM])")


def hide(code: list[int]) -> str:
    return hide_bytes(bytes(code))


def reveal(text: str, pegs: int) -> list[int]:
    if len(text) != 2 * pegs or not is_hex(text):
        raise ConfigError(f"a Guess description is {2 * pegs} hex digits (the hidden code), got {text[:40]!r}")
    return list(reveal_bytes(text))


def encode_params(params: dict, full: bool = True) -> str:
    return (f"c{params['colours']}p{params['pegs']}g{params['guesses']}"
            f"{'b' if params['blanks'] else 'B'}{'m' if params['multiple'] else 'M'}")


def decode_params(text: str) -> dict:
    c, p, g, b, m = match_params(_PARAMS, text, "a Guess parameter string (expected e.g. 'c6p4g10Bm': colours, "
                                 "pegs, guesses, b/B blanks allowed or not, m/M repeats allowed or not)")
    out = {"colours": int(c), "pegs": int(p), "guesses": int(g), "blanks": b == "b", "multiple": m == "m"}
    if not 2 <= out["colours"] <= 10 or not 2 <= out["pegs"] <= 6 or not 1 <= out["guesses"] <= 30:
        raise ConfigError(f"Guess parameters {text!r}: colours must be 2..10, pegs 2..6 and guesses 1..30")
    if not out["multiple"] and out["colours"] < out["pegs"]:
        raise ConfigError(f"Guess parameters {text!r}: without repeats there must be at least as many colours as pegs")
    return out


def encode_desc(data: dict) -> str:
    return hide(data["code"])


def decode_desc(params: dict, desc: str) -> dict:
    code = reveal(desc, params["pegs"])
    if any(not 1 <= x <= params["colours"] for x in code):
        raise ConfigError(f"the Guess description {desc!r} does not hide a code of colours 1..{params['colours']}")
    if not params["multiple"] and len(set(code)) != len(code):
        raise ConfigError(f"the Guess description {desc!r} repeats a colour, which these parameters forbid")
    data = {k: params[k] for k in ("colours", "pegs", "guesses", "blanks", "multiple")}
    data["code"] = code
    data["game_id"] = f"{encode_params(data)}:{hide(code)}"
    return data
