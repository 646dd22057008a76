"""Train Tracks game IDs (docs/specs/grid_puzzles.md §5 "Tracks"): given pieces as MASK digits with RUN
letters between them, then the column and row counts, ``S`` marking the exit column and the
entry row."""
from __future__ import annotations

from ....core.errors import ConfigError
from ..tatham.grammar import Field, ParamFormat, mask_decode, mask_encode, run_letters

PARAMS = ParamFormat(("W", "H"), (Field("tatham_difficulty", "d", choices="eth"),
                                  Field("single_ones", "o", kind="flag")), title="Tracks")
#: the six track pieces (two distinct directions), as MASK digits
PIECE_DIGITS = "3569AC"


def decode(params: dict, desc: str) -> dict:
    W, H = params["W"], params["H"]
    area = W * H
    cells, _, counts = desc.partition(",")
    pieces: dict[str, str] = {}
    i = 0
    for ch in cells:
        if ch in PIECE_DIGITS:
            if i >= area:
                raise ConfigError("the Tracks pieces run past the grid")
            pieces[f"{i // W},{i % W}"] = mask_decode(ch)
            i += 1
        elif "a" <= ch <= "z":
            i += ord(ch) - ord("a") + 1
        elif ch in "0123456789ABCDEF":
            raise ConfigError(f"Tracks piece {ch!r} does not join exactly two directions (pieces: {PIECE_DIGITS})")
        else:
            raise ConfigError(f"unexpected character {ch!r} in the Tracks pieces")
        if i > area:
            raise ConfigError("the Tracks pieces run past the grid")
    if i != area:
        raise ConfigError(f"the Tracks pieces cover {i} cells, expected {area}")
    toks = counts.split(",") if counts else []
    if len(toks) != W + H:
        raise ConfigError(f"a {W}x{H} Tracks description needs {W + H} counts after the pieces, got {len(toks)}")
    vals, marks = [], []
    for k, tok in enumerate(toks):
        mark = tok.startswith("S")
        num = tok[1:] if mark else tok
        if not (num.isdigit() and len(num) <= 3):
            raise ConfigError(f"Tracks count {tok[:8]!r} is not a number (optionally after 'S')")
        vals.append(int(num))
        if mark:
            marks.append(k)
    exits = [k for k in marks if k < W]
    entries = [k - W for k in marks if k >= W]
    if len(exits) != 1 or len(entries) != 1:
        raise ConfigError("a Tracks description marks exactly one column (the exit) and one row (the entry) with 'S'")
    for k, v in enumerate(vals):
        if v > (H if k < W else W):
            raise ConfigError(f"Tracks count {v} is larger than its line")
    return {"col_counts": vals[:W], "row_counts": vals[W:], "entry_row": entries[0], "exit_col": exits[0],
            "given_pieces": pieces}


def given_pieces(state: dict) -> dict[tuple[int, int], str]:
    """The given pieces by cell (the state keys them ``"row,column"``), in reading order."""
    return {tuple(int(x) for x in k.split(",")): v for k, v in sorted(state["given_pieces"].items())}


def track_ends(state: dict) -> dict[tuple[int, int], str]:
    """Where the track leaves the grid: the entry cell to the left, the exit cell downwards."""
    return {(state["entry_row"], 0): "L", (len(state["row_counts"]) - 1, state["exit_col"]): "D"}


def count_labels(state: dict) -> tuple[list[str], list[str]]:
    """The column and the row counts as an ID writes them: ``S`` before the exit column's and the entry row's."""
    return ([("S" if c == state["exit_col"] else "") + str(int(n)) for c, n in enumerate(state["col_counts"])],
            [("S" if r == state["entry_row"] else "") + str(int(n)) for r, n in enumerate(state["row_counts"])])


def encode(state: dict) -> str:
    W, H = len(state["col_counts"]), len(state["row_counts"])
    pieces = given_pieces(state)
    out, run = [], 0
    for r in range(H):
        for c in range(W):
            if (r, c) in pieces:
                out.append(run_letters(run))
                out.append(mask_encode(pieces[r, c]))
                run = 0
            else:
                run += 1
    out.append(run_letters(run))
    cols, rows = count_labels(state)
    return "".join(out) + "," + ",".join(cols + rows)
