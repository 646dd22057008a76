"""Pattern game IDs (docs/specs/grid_puzzles.md §5 "Pattern"): column then row clues, optional pre-filled cells."""
from __future__ import annotations

from ....core.errors import ConfigError
from ..tatham.grammar import ParamFormat

PARAMS = ParamFormat(("W", "H"), title="Pattern")
BLACK, WHITE = 1, 0


def decode(params: dict, desc: str) -> dict:
    W, H = params["W"], params["H"]
    clues, _, filled = desc.partition(",")
    parts = clues.split("/")
    if len(parts) != W + H:
        raise ConfigError(f"a {W}x{H} Pattern description needs {W + H} '/'-separated clues, got {len(parts)}")
    lines = []
    for i, part in enumerate(parts):
        if part == "":
            lines.append([])
            continue
        nums = part.split(".")
        if not all(n.isdigit() and len(n) <= 3 for n in nums) or any(int(n) == 0 for n in nums):
            raise ConfigError(f"Pattern clue {part[:20]!r} is not run lengths joined by '.'")
        run = [int(n) for n in nums]
        length = H if i < W else W
        if sum(run) + len(run) - 1 > length:
            raise ConfigError(f"Pattern clue {part[:20]!r} does not fit in a line of {length} cells")
        lines.append(run)
    state = {"rows": lines[W:], "cols": lines[:W]}
    if filled:
        state["filled"] = _decode_filled(filled, W, H)
    return state


def _decode_filled(text: str, W: int, H: int) -> list[list[int]]:
    """The ``,`` section, walked as Tatham's parser walks it: a letter skips (letter - 'a')
    unknown cells and then sets the next one (lower case white, upper case black); ``z``/``Z``
    skips 25 cells without setting, and a skip that reaches the end of the grid sets nothing.
    The section must end exactly at the end of the grid."""
    area = W * H
    out, pos, i = [], 0, 0
    while pos < area:
        if i >= len(text):
            raise ConfigError("the Pattern pre-filled section stops before the end of the grid")
        ch = text[i]
        i += 1
        if not ("a" <= ch <= "z" or "A" <= ch <= "Z"):
            raise ConfigError(f"unexpected character {ch!r} in the Pattern pre-filled section")
        skip = ord(ch.lower()) - ord("a")
        pos += skip
        if skip < 25 and pos < area:
            out.append([pos // W, pos % W, BLACK if ch.isupper() else WHITE])
            pos += 1
        if pos > area:
            raise ConfigError("the Pattern pre-filled section runs past the grid")
    if i < len(text):
        raise ConfigError("the Pattern pre-filled section runs past the grid")
    return out


def encode(state: dict) -> str:
    text = "/".join(".".join(str(int(x)) for x in run) for run in list(state["cols"]) + list(state["rows"]))
    if state.get("filled"):
        H, W = len(state["rows"]), len(state["cols"])
        out, last = [], 0
        for r, c, v in sorted(state["filled"]):
            skip = r * W + c - last
            while skip >= 25:
                out.append("z")
                skip -= 25
            out.append(chr((ord("A") if v == BLACK else ord("a")) + skip))
            last = r * W + c + 1
        rest = H * W - last
        while rest >= 25:
            out.append("z")
            rest -= 25
        if rest:
            out.append(chr(ord("a") + rest))  # a skip that lands on the end sets nothing
        text += "," + "".join(out)
    return text


def aux_solution(state: dict, aux: str) -> list[list]:
    """AUXINFO ``S`` then 0/1 per cell (1 black)."""
    H, W = len(state["rows"]), len(state["cols"])
    if len(aux) != 1 + W * H or aux[0] != "S" or set(aux[1:]) - {"0", "1"}:
        raise ConfigError(f"Pattern AUXINFO {aux[:20]!r} is not S followed by {W * H} binary digits")
    return [[int(aux[1 + r * W + c]) for c in range(W)] for r in range(H)]
