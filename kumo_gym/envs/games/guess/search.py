"""Mastermind search (Tatham's Guess): feedback, the codes consistent with a history, and a
Knuth-style minimax guesser.

Feedback of a guess against a code is ``(black, white)``: pegs of the right colour in the right
place, and further pegs of a right colour in a wrong place (blank pegs, colour 0, match nothing).
The guesser keeps the codes consistent with every answer so far and plays the guess whose worst
answer leaves the fewest of them (ties: a guess that could itself be the code, then the first in
order). The guesses weighed are every code while there are fewer than 1500, else the consistent
codes (an evenly spaced sample of 600 while more remain); the first guess is chosen among one representative of each colour pattern (aabb, aabc,
...), which by symmetry weighs every first guess. Games of at most 30 codes are played by exhaustive
minimax instead (the fewest guesses in the worst case, exactly). The number of guesses the player
needs is the efficiency reference of the environment.
"""
from __future__ import annotations

from functools import lru_cache
from itertools import product

import numpy as np

#: below this many codes every code is weighed as a guess (a table of n x n answers)
ALL_GUESSES_BELOW = 1500
#: games with at most this many codes are played by exhaustive minimax (an exact worst case)
EXACT_UP_TO = 30
#: with more codes, the consistent ones are weighed, at most this many (evenly spaced)
WEIGHED_MAX = 600


@lru_cache(maxsize=8)
def all_codes(colours: int, pegs: int, multiple: bool = True) -> np.ndarray:
    """Every code (colours 1..colours), in lexicographic order, as an (n, pegs) int8 array."""
    rows = [c for c in product(range(1, colours + 1), repeat=pegs) if multiple or len(set(c)) == pegs]
    return np.array(rows, np.int8).reshape(-1, pegs)


def feedback(guess, codes: np.ndarray, colours: int) -> np.ndarray:
    """``black * 16 + white`` of ``guess`` against each row of ``codes``."""
    g = np.asarray(guess, np.int16)
    black = (codes == g).sum(axis=1)
    total = np.zeros(len(codes), np.int64)
    for c in range(1, colours + 1):
        total += np.minimum((codes == c).sum(axis=1), int((g == c).sum()))
    return black * 16 + (total - black)


def score(guess, code, colours: int) -> tuple[int, int]:
    fb = int(feedback(guess, np.asarray([code], np.int8), colours)[0])
    return fb // 16, fb % 16


def consistent(codes: np.ndarray, history, colours: int) -> np.ndarray:
    """Indices of the codes that give every recorded answer: ``history`` holds (guess, black, white)."""
    keep = np.ones(len(codes), bool)
    for guess, b, w in history:
        if len(guess) != codes.shape[1]:
            continue  # a guess of the wrong length says nothing a code could match
        keep &= feedback(guess, codes, colours) == b * 16 + w
    return np.flatnonzero(keep)


def _patterns(colours: int, pegs: int, multiple: bool) -> list[tuple]:
    """One code per colour pattern: block sizes in non-increasing order, colours 1, 2, ... in order."""
    out = []

    def parts(n, most):
        if n == 0:
            yield []
            return
        for k in range(min(n, most), 0, -1):
            for rest in parts(n - k, k):
                yield [k, *rest]

    for sizes in parts(pegs, pegs if multiple else 1):
        if len(sizes) <= colours:
            out.append(tuple(c + 1 for c, k in enumerate(sizes) for _ in range(k)))
    return out


def _counts(codes: np.ndarray, colours: int) -> np.ndarray:
    return np.stack([(codes == c).sum(axis=1) for c in range(1, colours + 1)], axis=1).astype(np.int16)


def worst_sizes(weighed: np.ndarray, pool: np.ndarray, colours: int, block: int = 256) -> np.ndarray:
    """For each guess of ``weighed``, the size of the largest group of ``pool`` sharing one answer."""
    pegs = pool.shape[1]
    kinds = 16 * pegs + pegs + 1
    cp = _counts(pool, colours)
    out = np.empty(len(weighed), np.int64)
    for s in range(0, len(weighed), block):
        wg = weighed[s:s + block]
        black = (wg[:, None, :] == pool[None, :, :]).sum(-1)
        total = np.minimum(_counts(wg, colours)[:, None, :], cp[None, :, :]).sum(-1)
        fb = black * 16 + (total - black)
        flat = (np.arange(len(wg))[:, None] * kinds + fb).ravel()
        out[s:s + len(wg)] = np.bincount(flat, minlength=len(wg) * kinds).reshape(len(wg), kinds).max(axis=1)
    return out


def best_guess(codes: np.ndarray, alive: np.ndarray, colours: int, multiple: bool, first: bool) -> tuple:
    if len(alive) == 1:
        return tuple(int(x) for x in codes[alive[0]])
    pool = codes[alive]
    if first:
        weighed = np.array(_patterns(colours, codes.shape[1], multiple), np.int8)
    elif len(codes) < ALL_GUESSES_BELOW:
        weighed = codes
    elif len(pool) <= WEIGHED_MAX:
        weighed = pool
    else:  # an evenly spaced sample of the consistent codes
        weighed = pool[:: -(-len(pool) // WEIGHED_MAX)]
    worst = worst_sizes(weighed, pool, colours)
    # a guess that could be the code wins ties; then the first in order
    if weighed is codes:
        inside = np.zeros(len(codes), bool)
        inside[alive] = True
    elif len(codes) >= ALL_GUESSES_BELOW:
        inside = np.ones(len(weighed), bool)
    else:
        inside = np.zeros(len(weighed), bool)
    key = worst * 2 + (~inside)
    return tuple(int(x) for x in weighed[int(np.argmin(key))])


def play(code, colours: int, pegs: int, multiple: bool, history=(), limit: int = 64) -> list[tuple]:
    """The guesser's guesses from ``history`` until it names ``code`` (the last guess)."""
    codes = all_codes(colours, pegs, multiple)
    hist = list(history)
    out: list[tuple] = []
    code = tuple(int(x) for x in code)
    while len(out) < limit:
        alive = consistent(codes, hist, colours)
        if len(alive) == 0:
            return out
        if len(codes) <= EXACT_UP_TO:
            g = tuple(int(x) for x in codes[_exact(colours, pegs, multiple, frozenset(alive.tolist()))[1]])
        else:
            g = best_guess(codes, alive, colours, multiple, first=not hist)
        out.append(g)
        if g == code:
            return out
        b, w = score(g, code, colours)
        hist.append((g, b, w))
    return out


@lru_cache(maxsize=8)
def _table(colours: int, pegs: int, multiple: bool) -> np.ndarray:
    codes = all_codes(colours, pegs, multiple)
    return np.stack([feedback(g, codes, colours) for g in codes])


@lru_cache(maxsize=200_000)
def _exact(colours: int, pegs: int, multiple: bool, alive: frozenset) -> tuple[int, int]:
    """(the fewest guesses that always find a code of ``alive``, the first such guess's index)."""
    if len(alive) == 1:
        return 1, next(iter(alive))
    table = _table(colours, pegs, multiple)
    idx = np.array(sorted(alive))
    best, best_g = 1 << 30, -1
    for g in range(len(table)):
        parts: dict[int, list] = {}
        for i, f in zip(idx.tolist(), table[g, idx].tolist(), strict=True):
            if f != 16 * pegs:
                parts.setdefault(f, []).append(i)
        if any(len(q) == len(alive) for q in parts.values()):
            continue  # learns nothing
        cost = 1 + max((_exact(colours, pegs, multiple, frozenset(q))[0] for q in parts.values()), default=0)
        if cost < best or (cost == best and g in alive and best_g not in alive):
            best, best_g = cost, g
    return best, best_g


def exact_minimax(colours: int, pegs: int, multiple: bool = True) -> int:
    """The fewest guesses that always suffice (exhaustive game-tree search; small games only)."""
    return _exact(colours, pegs, multiple, frozenset(range(len(all_codes(colours, pegs, multiple)))))[0]
