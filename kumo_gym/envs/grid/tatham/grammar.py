"""Tatham's shared sub-grammars (docs/specs/grid_puzzles.md §3-§4), used by the per-puzzle codecs.

* RUN: a letter ``a``..``z`` stands for 1..26 empty cells.
* NUMGRID: decimal numbers (``_`` separates two numbers) and RUN letters.
* CHARGRID: one character of a puzzle's alphabet per clue cell, RUN letters for empty cells.
* SKIPS: ``a``..``y`` skip 0..24 cells and then place something (upper case: another kind),
  ``z`` skips 25 (Unruly givens, Pattern pre-filled cells, Galaxies dots; Tents trees shifted by one).
* B62: one character per number, ``0-9a-zA-Z`` = 0..61.
* MASK: one hex digit of direction bits, R=1, U=2, L=4, D=8.
* :class:`ParamFormat`: a parameter string such as ``8x8de`` or ``14x14b20s2d0``, declared as a
  size and a list of :class:`Field`; it decodes and encodes both the full form (``CPARAMS``) and
  the short form a game ID carries (rule-changing fields only, docs/specs/grid_puzzles.md §4).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ....core.errors import ConfigError, check_ascii


class Unsupported(ConfigError):
    """A Tatham variant we do not model (Solo X/killer/jigsaw, ...)."""


class NotExportable(ConfigError):
    """A state our importer accepts but Tatham's description grammar cannot write back."""


# ---- RUN, NUMGRID, CHARGRID -----------------------------------------------------------------
def run_letters(run: int) -> str:
    """RUN: ``a``..``z`` for 1..26 empty cells, longer runs split into ``z`` blocks."""
    out = []
    while run > 0:
        k = min(run, 26)
        out.append(chr(ord("a") - 1 + k))
        run -= k
    return "".join(out)


def _check_cells(count: int, n_cells: int, final: bool = True) -> None:
    if count > n_cells:
        raise ConfigError(f"the game description covers more than {n_cells} cells")
    if final and count != n_cells:
        raise ConfigError(f"the game description covers {count} cells, expected {n_cells}")


def decode_numgrid(desc: str, n_cells: int, max_value: int | None = None) -> list[int]:
    """NUMGRID: decimal numbers (``_`` separates two numbers) and RUN letters; 0 = empty."""
    out: list[int] = []
    i = 0
    while i < len(desc):
        ch = desc[i]
        if "a" <= ch <= "z":
            out.extend([0] * (ord(ch) - ord("a") + 1))
            i += 1
        elif ch == "_":
            i += 1
        elif ch.isdigit():
            j = i
            while j < len(desc) and desc[j].isdigit() and j - i < 6:
                j += 1
            v = int(desc[i:j])
            if max_value is not None and not 1 <= v <= max_value:
                raise ConfigError(f"number {v} in the game description is outside 1..{max_value}")
            out.append(v)
            i = j
        else:
            raise ConfigError(f"unexpected character {ch!r} in the game description")
        _check_cells(len(out), n_cells, final=False)
    _check_cells(len(out), n_cells)
    return out


def encode_numgrid(values: list[int]) -> str:
    """The inverse of :func:`decode_numgrid`, written the way Tatham's encoders write it."""
    out = []
    run = 0
    for v in values:
        if not v:
            run += 1
            continue
        if run:
            out.append(run_letters(run))
        elif out:
            out.append("_")
        out.append(str(v))
        run = 0
    if run:
        out.append(run_letters(run))
    return "".join(out)


def decode_chargrid(desc: str, n_cells: int, alphabet: str, empty: str = ".") -> list[str]:
    """CHARGRID: one character of ``alphabet`` per clue cell; RUN letters give empty cells."""
    out: list[str] = []
    for ch in desc:
        if ch in alphabet:
            out.append(ch)
        elif "a" <= ch <= "z":
            out.extend([empty] * (ord(ch) - ord("a") + 1))
        else:
            raise ConfigError(f"unexpected character {ch!r} in the game description")
        _check_cells(len(out), n_cells, final=False)
    _check_cells(len(out), n_cells)
    return out


def encode_chargrid(cells: list[str], empty: str = ".") -> str:
    out = []
    run = 0
    for ch in cells:
        if ch == empty:
            run += 1
            continue
        if run:
            out.append(run_letters(run))
            run = 0
        out.append(ch)
    if run:
        out.append(run_letters(run))
    return "".join(out)


# ---- SKIPS ---------------------------------------------------------------------------------
def decode_skips(desc: str, area: int, *, sentinel: bool) -> dict[int, bool]:
    """SKIPS: ``{cell index: upper case}`` of the placements. With ``sentinel`` the encoder
    ends with a placement at index ``area`` (Unruly, Tents), which the walk must land on."""
    out: dict[int, bool] = {}
    pos = 0
    for ch in desc:
        if ch in "zZ":
            pos += 25
        elif "a" <= ch <= "y" or "A" <= ch <= "Y":
            pos += ord(ch.lower()) - ord("a")
            if pos < area:
                out[pos] = ch.isupper()
            pos += 1
        else:
            raise ConfigError(f"unexpected character {ch!r} in the game description")
        if pos > area + 1:
            raise ConfigError("the game description runs past the grid")
    if sentinel and pos != area + 1:
        raise ConfigError(f"the game description covers {pos - 1} cells, expected {area}")
    return out


def encode_skips(placements: dict[int, bool], area: int, *, sentinel: bool) -> str:
    """The inverse of :func:`decode_skips` (``sentinel`` adds the lower-case placement at ``area``)."""
    items = sorted(placements.items()) + ([(area, False)] if sentinel else [])
    out, last = [], 0
    for idx, upper in items:
        skip = idx - last
        while skip > 24:
            out.append("z")
            skip -= 25
        out.append(chr((ord("A") if upper else ord("a")) + skip))
        last = idx + 1
    return "".join(out)


# ---- B62 and MASK --------------------------------------------------------------------------
B62 = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
#: MASK direction bits (docs/specs/grid_puzzles.md §4)
R, U, L, D = 1, 2, 4, 8
DIRECTIONS = {"R": R, "U": U, "L": L, "D": D}


def b62_decode(ch: str) -> int:
    i = B62.find(ch)
    if i < 0 or len(ch) != 1:
        raise ConfigError(f"{ch!r} is not a base-62 digit (0-9, a-z, A-Z)")
    return i


def b62_encode(v: int) -> str:
    return B62[v]


def mask_decode(ch: str) -> str:
    """A MASK hex digit as direction letters in URDL order (``"UR"``)."""
    try:
        m = int(ch, 16)
    except ValueError:
        raise ConfigError(f"{ch!r} is not a direction mask (one hex digit)") from None
    return "".join(d for d in "URDL" if m & DIRECTIONS[d])


def mask_encode(dirs: str) -> str:
    return f"{sum(DIRECTIONS[d] for d in set(dirs)):X}"


# ---- parameter strings ---------------------------------------------------------------------
_SIZE = re.compile(r"(\d{1,3})(?:x(\d{1,3}))?")


def read_size(s: str) -> tuple[int, int, str]:
    """``WxH`` (or ``N``) at the start of ``s``: (W, H, rest)."""
    m = _SIZE.match(s)
    if not m:
        raise ConfigError(f"parameter string {s!r} does not start with a size such as 8x8")
    w = int(m.group(1))
    h = int(m.group(2)) if m.group(2) else w
    return w, h, s[m.end():]


_UNSET = object()


@dataclass(frozen=True)
class Field:
    """One field of a Tatham parameter string after the size.

    ``kind``: ``letter`` (``prefix`` + one of ``choices``: ``de``), ``number`` (``prefix`` +
    digits: ``b20``), ``decimal`` (``prefix`` + a decimal written as C's ``%g``: Rect ``e0.5``),
    ``bit`` (``prefix`` + 0/1 read as a bool: Mosaic ``h0``), ``flag`` (``prefix`` alone means
    True: Unruly ``u``) or ``token`` (one of ``choices`` with no prefix: Solo's ``r2``). ``in_id``: the field changes the rules, so game IDs carry it.
    ``omit``: a value the full form leaves out (Tatham's encoder skips its default there).
    """

    name: str
    prefix: str
    kind: str = "letter"
    choices: tuple = ()
    in_id: bool = False
    omit: Any = _UNSET

    def write(self, value) -> str:
        if self.kind == "flag":
            return self.prefix if value else ""
        if self.omit is not _UNSET and value == self.omit:
            return ""
        if self.kind == "bit":
            return f"{self.prefix}{int(bool(value))}"
        if self.kind == "decimal":
            return f"{self.prefix}{float(value):g}"  # C's %g, as Tatham writes Rect's e0.5
        return f"{self.prefix}{value}"

    def read(self, rest: str) -> tuple[Any, str] | None:
        """(value, rest after it) when ``rest`` starts with this field, else None."""
        if self.kind == "token":
            for tok in sorted(self.choices, key=len, reverse=True):
                if rest.startswith(tok):
                    return tok, rest[len(tok):]
            return None
        if not rest.startswith(self.prefix):
            return None
        after = rest[len(self.prefix):]
        if self.kind == "flag":
            return True, after
        if self.kind == "letter":
            if after[:1] and after[0] in self.choices:
                return after[0], after[1:]
            raise ConfigError(f"{(self.prefix + after[:1])!r} ({self.name}) is not one of: "
                              + ", ".join(self.prefix + c for c in self.choices))
        if self.kind == "decimal":
            m = re.match(r"\d{1,3}(?:\.\d{1,4})?", after)
            if not m:
                raise ConfigError(f"{self.prefix!r} must be followed by a number in {rest!r}")
            return float(m.group(0)), after[m.end():]
        m = re.match(r"\d{1,4}", after)
        if not m:
            raise ConfigError(f"{self.prefix!r} must be followed by a number in {rest!r}")
        v = int(m.group(0))
        if self.kind == "bit":
            if v not in (0, 1):
                raise ConfigError(f"{self.prefix}{v} is not {self.prefix}0 or {self.prefix}1")
            v = bool(v)
        return v, after[m.end():]


@dataclass(frozen=True)
class ParamFormat:
    """A puzzle's parameter-string grammar: a size, then :class:`Field` s in a fixed order.

    ``size`` names the parameters written as the size: ``("W", "H")`` for ``WxH``, ``("n",)``
    for ``N``. A size ``WxH`` may be written ``N`` for a square (Tatham's decoders accept it).
    """

    size: tuple[str, ...]
    fields: tuple[Field, ...] = ()
    #: what the puzzle is called in error messages
    title: str = ""

    def encode(self, params: dict, full: bool = True) -> str:
        s = "x".join(str(params[k]) for k in self.size)
        for f in self.fields:
            if (full or f.in_id) and f.name in params:
                s += f.write(params[f.name])
        return s

    def decode(self, s: str) -> dict:
        """The parameters written in ``s`` (flags absent from it are False; other absent fields
        are left out, so the caller's defaults apply)."""
        s = s.strip()
        check_ascii(f"{self.title} parameter string", s)
        w, h, rest = read_size(s)
        if len(self.size) == 1 and "x" in s[:len(s) - len(rest)]:
            raise ConfigError(f"{self.title} parameter string {s!r} takes one size number (e.g. 5de, not 5x5de)")
        out: dict[str, Any] = dict(zip(self.size, (w, h)))
        for f in self.fields:
            try:
                got = f.read(rest)
            except ConfigError as exc:  # say which puzzle, string and grammar the bad field is in
                raise ConfigError(f"{self.title} parameter string {s!r}: {exc} (the grammar is "
                                  f"{self.describe()})") from None
            if got is None:
                if f.kind == "flag":
                    out[f.name] = False
                continue
            out[f.name], rest = got
        if rest:
            raise ConfigError(f"unexpected {rest[:6]!r} in the {self.title} parameter string {s!r}; the grammar is "
                              f"{self.describe()}")
        return out

    def describe(self) -> str:
        parts = ["x".join(k.upper() if len(k) == 1 else f"<{k}>" for k in self.size)]
        for f in self.fields:
            if f.kind == "letter":
                parts.append(f"[{f.prefix}<{'|'.join(f.choices)}>]")
            elif f.kind == "token":
                parts.append(f"[{'|'.join(f.choices)}]")
            elif f.kind == "flag":
                parts.append(f"[{f.prefix}]")
            else:
                parts.append(f"[{f.prefix}<n>]")
        return "".join(parts)
