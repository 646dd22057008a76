"""Tatham's Twiddle game IDs: ``WxHnN[r][o][mK]:DESC`` (docs/games.md, Twiddle).

The parameter string is the size, ``n`` and the block size, ``r`` when the numbers count rows
only (every tile of row ``i`` carries ``i + 1``), ``o`` when orientation counts, and ``mK`` when
the board was scrambled by K moves; Tatham writes the same string in the short and the full form.
The description lists the W*H numbers in reading order, each followed by a comma (the last by
nothing) or, when orientation counts, by the letter of the way its tile points: ``u``, ``l``,
``d``, ``r``. A state is the tuple of codes ``4 * number + orientation`` (0 up, 1 left, 2 down,
3 right).
"""
from __future__ import annotations

from ....core.errors import ConfigError
from .search import goal_of, solve_constructive

MAX_SIDE = 6
MAX_NUMBER = 999
LETTERS = "uldr"


def encode_params(params: dict, full: bool = True) -> str:
    k = params.get("movetarget")
    return (f"{params['w']}x{params['h']}n{params['n']}" + ("r" if params.get("rowsonly") else "")
            + ("o" if params.get("orientable") else "") + (f"m{k}" if k else ""))


def _number(text: str, i: int) -> tuple[int, int]:
    j = i
    while j < len(text) and text[j].isdigit() and j - i < 4:
        j += 1
    if j == i or (text[i] == "0" and j - i > 1):
        raise ConfigError(f"Twiddle parameter string {text[:40]!r}: expected a number without leading zeros "
                          f"at position {i}")
    return int(text[i:j]), j


def decode_params(text: str) -> dict:
    """Our parameters from Tatham's canonical string (the form ``sgt-twiddle`` writes)."""
    if not isinstance(text, str) or not text[:1].isdigit():
        raise ConfigError(f"{str(text)[:40]!r} is not a Twiddle parameter string (expected e.g. '3x3n2' or "
                          "'4x4n2om8')")
    w, i = _number(text, 0)
    if text[i:i + 1] != "x":
        raise ConfigError(f"Twiddle parameter string {text[:40]!r}: expected 'x' after the width (e.g. '3x3n2')")
    h, i = _number(text, i + 1)
    if text[i:i + 1] != "n":
        raise ConfigError(f"Twiddle parameter string {text[:40]!r}: expected 'n<block size>' after the size "
                          "(Tatham writes it always, e.g. '3x3n2')")
    n, i = _number(text, i + 1)
    rowsonly = text[i:i + 1] == "r"
    i += rowsonly
    orientable = text[i:i + 1] == "o"
    i += orientable
    k = None
    if text[i:i + 1] == "m":
        k, i = _number(text, i + 1)
        if k == 0:
            raise ConfigError(f"Twiddle parameter string {text[:40]!r}: 'm0' is written as no 'm' at all")
    if i != len(text):
        raise ConfigError(f"Twiddle parameter string {text[:40]!r}: unexpected {text[i:i + 10]!r}; after the size "
                          "and 'n<block>' only 'r', 'o' and 'm<moves>' may follow, in that order")
    if not (2 <= w <= MAX_SIDE and 2 <= h <= MAX_SIDE):
        raise ConfigError(f"Twiddle size {w}x{h} is not in 2..{MAX_SIDE} x 2..{MAX_SIDE}")
    if not 2 <= n <= min(w, h):
        raise ConfigError(f"Twiddle block size {n} is not in 2..{min(w, h)} (at least 2, at most the board's "
                          "width and height)")
    rw, rh = w - n + 1, h - n + 1
    if min(rw, rh) == 1 and max(rw, rh) in (2, 3) and w * h > 6:
        raise ConfigError(f"Twiddle {w}x{h} with {n}x{n} blocks is not supported: its {rw * rh} blocks overlap too "
                          "much for the solver's 3-cycles (use a smaller block or a wider board)")
    if orientable and n % 2:
        raise ConfigError(f"Twiddle block size {n} with orientation ('o') is not supported: orientation is "
                          "available with even block sizes (2, 4, 6)")
    return {"w": w, "h": h, "n": n, "rowsonly": rowsonly, "orientable": orientable, "movetarget": k}


def encode_desc(data: dict) -> str:
    board = data["board"]
    if data["orientable"]:
        return "".join(f"{v >> 2}{LETTERS[v & 3]}" for v in board)
    return ",".join(str(v >> 2) for v in board)


def decode_desc(params: dict, desc: str) -> dict:
    w, h, orientable = params["w"], params["h"], params["orientable"]
    size = w * h
    board, i = [], 0
    sep = LETTERS if orientable else ","
    what = "a number and one of the letters u, l, d, r" if orientable else "comma-separated numbers"
    for k in range(size):
        j = i
        while j < len(desc) and desc[j].isdigit() and j - i < 4:
            j += 1
        if j == i or (desc[i] == "0" and j - i > 1) or not 1 <= int(desc[i:j]) <= MAX_NUMBER:
            raise ConfigError(f"a {w}x{h} Twiddle description is {size} entries of {what} (numbers 1..{MAX_NUMBER}, "
                              f"no leading zeros); entry {k + 1} of {desc[:60]!r} is not")
        v = 4 * int(desc[i:j])
        last = k == size - 1
        if orientable:
            if j >= len(desc) or desc[j] not in sep:
                raise ConfigError(f"Twiddle description {desc[:60]!r}: entry {k + 1} needs one of u, l, d, r "
                                  "after its number")
            v |= LETTERS.index(desc[j])
            j += 1
        elif not last:
            if j >= len(desc) or desc[j] != ",":
                raise ConfigError(f"a {w}x{h} Twiddle description is {size} {what}; expected ',' after entry "
                                  f"{k + 1} of {desc[:60]!r}")
            j += 1
        board.append(v)
        i = j
    if i != len(desc):
        raise ConfigError(f"Twiddle description {desc[:60]!r} has {desc[i:i + 10]!r} after its {size} entries")
    board_t = tuple(board)
    if board_t == goal_of(board_t):
        raise ConfigError(f"Twiddle board {desc[:60]!r} is already solved")
    if solve_constructive(board_t, w, h, params["n"], orientable) is None:
        raise ConfigError(f"Twiddle board {desc[:60]!r} cannot be solved with {params['n']}x{params['n']} "
                          "rotations (a parity or orientation invariant differs from the goal's)")
    data = {"w": w, "h": h, "n": params["n"], "rowsonly": params["rowsonly"], "orientable": orientable,
            "movetarget": params.get("movetarget"), "board": list(board_t)}
    data["game_id"] = f"{encode_params(data)}:{encode_desc(data)}"
    return data
