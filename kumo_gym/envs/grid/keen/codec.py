"""Keen game IDs (docs/specs/grid_puzzles.md §5 "Keen"): ``N:`` BLOCKS ``,`` CLUES.

BLOCKS walks the 2n(n-1) internal edges (the vertical ones in reading order, then the horizontal
ones column by column) plus a virtual terminating wall; each code is the number of non-wall edges
before the next wall (``_`` = 0, ``a``..``x`` = 1..24), optionally followed by a decimal repeat
count. CLUES is one token per cage, in order of the cage's first cell: ``a`` (+), ``m`` (x),
``s`` (-) or ``d`` (/), then the target.
"""
from __future__ import annotations

from ....core.errors import ConfigError
from ..tatham.grammar import Field, ParamFormat

PARAMS = ParamFormat(("n",), (Field("tatham_difficulty", "d", choices="enhxu"),
                              Field("multiplication_only", "m", kind="flag")), title="Keen")
OPS = {"a": "+", "m": "x", "s": "-", "d": "/"}
LETTERS = {v: k for k, v in OPS.items()}
#: the longest run a code may give (``y`` and ``z`` cannot occur for n <= 9)
MAX_RUN = 24


def edge_cells(k: int, n: int) -> tuple[int, int]:
    """The two cell indices (row-major) that internal edge ``k`` separates."""
    m = n * (n - 1)
    if k < m:
        r, c = divmod(k, n - 1)
        return r * n + c, r * n + c + 1
    c, r = divmod(k - m, n - 1)
    return r * n + c, (r + 1) * n + c


def make_state(n: int, cage_of: list[int], ops: dict[int, tuple[str, int]]) -> dict:
    """The state from a cage label per cell (any labels) and ``label -> (op, target)``: cage ids
    in order of each cage's first cell, cells row-major."""
    order: dict[int, int] = {}
    for lab in cage_of:
        order.setdefault(lab, len(order))
    # keys in sorted order, as a stored instance's JSON reads back (the prompt shows them)
    cages = [{"cells": [], "id": i, "op": "", "target": 0} for i in range(len(order))]
    for idx, lab in enumerate(cage_of):
        cages[order[lab]]["cells"].append([idx // n, idx % n])
    for lab, i in order.items():
        cages[i]["op"], cages[i]["target"] = ops[lab][0], int(ops[lab][1])
    return {"n": n, "cage_grid": [[order[cage_of[r * n + c]] for c in range(n)] for r in range(n)], "cages": cages}


def _find(parent: list[int], i: int) -> int:
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


def decode(params: dict, desc: str) -> dict:
    n = params["n"]
    blocks, sep, clues = desc.partition(",")
    if not sep:
        raise ConfigError("a Keen description needs the block structure, then ',' and the cage clues")
    total = 2 * n * (n - 1)
    parent = list(range(n * n))
    pos, i = 0, 0
    while i < len(blocks):
        ch = blocks[i]
        if ch == "_" or "a" <= ch <= "x":
            run = 0 if ch == "_" else ord(ch) - ord("a") + 1
        elif ch in "yz":
            raise ConfigError(f"Keen block code {ch!r} (a run of 25 or more) cannot occur for n <= 9")
        else:
            raise ConfigError(f"unexpected character {ch!r} in the Keen block structure")
        j = i + 1
        while j < len(blocks) and blocks[j].isdigit() and j - i <= 3:
            j += 1
        reps = int(blocks[i + 1:j]) if j > i + 1 else 1
        if reps < 1:
            raise ConfigError("a Keen block repeat count must be at least 1")
        i = j
        for _ in range(reps):
            if pos + run > total:
                raise ConfigError("too much data in the Keen block structure")
            for k in range(pos, pos + run):
                a, b = edge_cells(k, n)
                parent[_find(parent, a)] = _find(parent, b)
            pos += run + 1
            if pos > total + 1:
                raise ConfigError("too much data in the Keen block structure")
    if pos != total + 1:
        raise ConfigError(f"the Keen block structure covers {pos} edges, expected {total + 1}")
    roots = [_find(parent, i) for i in range(n * n)]
    firsts = list(dict.fromkeys(roots))
    size = {r: roots.count(r) for r in firsts}
    ops, k = {}, 0
    for root in firsts:
        if k >= len(clues):
            raise ConfigError(f"too few Keen clues: {len(firsts)} cages")
        letter = clues[k]
        if letter not in OPS:
            raise ConfigError(f"Keen clue type {letter!r} is not one of: a (+), m (x), s (-), d (/)")
        j = k + 1
        while j < len(clues) and clues[j].isdigit() and j - k <= 7:
            j += 1
        if j == k + 1:
            raise ConfigError(f"Keen clue {letter!r} needs a target number")
        if letter in "sd" and size[root] != 2:
            raise ConfigError("Keen subtraction and division cages must have two cells")
        ops[root] = (OPS[letter], int(clues[k + 1:j]))
        k = j
    if k != len(clues):
        raise ConfigError(f"too many Keen clues for {len(firsts)} cages")
    return make_state(n, roots, ops)


def encode(state: dict) -> str:
    n, lab = state["n"], state["cage_grid"]
    flat = [lab[r][c] for r in range(n) for c in range(n)]
    codes, run = [], 0
    for k in range(2 * n * (n - 1) + 1):
        if k < 2 * n * (n - 1):
            a, b = edge_cells(k, n)
            if flat[a] == flat[b]:
                run += 1
                continue
        if run > MAX_RUN:
            raise ConfigError("a Keen cage run longer than 24 edges cannot be written")
        codes.append("_" if run == 0 else chr(ord("a") - 1 + run))
        run = 0
    out, i = [], 0
    while i < len(codes):
        j = i
        while j < len(codes) and codes[j] == codes[i]:
            j += 1
        out.append(codes[i] * (j - i) if j - i <= 2 else f"{codes[i]}{j - i}")
        i = j
    clues = "".join(f"{LETTERS[cage['op']]}{int(cage['target'])}" for cage in state["cages"])
    return "".join(out) + "," + clues


def aux_solution(state: dict, aux: str) -> list[list]:
    """AUXINFO ``S`` plus n*n digits."""
    n = state["n"]
    return [[int(ch) for ch in aux[1 + r * n:1 + (r + 1) * n]] for r in range(n)]
