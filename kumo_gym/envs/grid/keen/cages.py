"""Arithmetic cages (Keen; docs/specs/grid_puzzles.md §5 "Keen", §8): the clue check, its SAT encoding and
Tatham's way of cutting a Latin square into cages and handing out clue types."""
from __future__ import annotations

import functools
import math

import numpy as np

from ....solvers.sat import Formula

#: Tatham's largest cage; cages with more value tuples than this are encoded as a sum/product chain
MAXBLK, TUPLE_CAP = 6, 300
#: the order Tatham hands out clue types, division first
OP_ORDER = ("/", "-", "x", "+")


def cage_ok(op: str, target: int, vals: list[int]) -> bool:
    """Whether the values of a cage meet its clue (``+``, ``x``; ``-`` and ``/`` on two cells)."""
    if op == "+":
        return sum(vals) == target
    if op == "x":
        return math.prod(vals) == target
    if len(vals) != 2:
        return False
    lo, hi = sorted(vals)
    return hi - lo == target if op == "-" else hi == target * lo


@functools.lru_cache(maxsize=4096)
def cage_tuples(n: int, size: int, op: str, target: int) -> tuple[tuple, ...] | None:
    """The value tuples of ``size`` cells in 1..n meeting the clue (None: more than TUPLE_CAP);
    cached, the same clues come back in draw after draw."""
    if op in "-/":
        pairs = [(lo, lo + target if op == "-" else lo * target) for lo in range(1, n + 1)]
        return tuple(t for lo, hi in pairs if hi <= n and hi != lo for t in ((lo, hi), (hi, lo)))
    out: list[tuple] = []

    def walk(prefix: tuple, acc: int) -> bool:
        left = size - len(prefix)
        if left == 0:
            if acc == target:
                out.append(prefix)
            return len(out) <= TUPLE_CAP
        for v in range(1, n + 1):
            a = acc + v if op == "+" else acc * v
            if (op == "+" and a + (left - 1) > target) or (op == "x" and target % a):
                continue
            if not walk(prefix + (v,), a):
                return False
        return True

    return tuple(out) if walk((), 0 if op == "+" else 1) else None


def cage_literal(f: Formula, x: np.ndarray | list, n: int, key, cells: list, op: str, target: int) -> int:
    """A literal equivalent to "the cage meets its clue" (so assuming it enforces the clue and its
    negation breaks exactly this cage): a selector per value tuple, or for large sum/product
    cages a chain of partial results that can still reach the target. Support clauses let
    propagation remove values no tuple (or chain edge) uses while the clue is assumed."""
    xs = x.tolist() if isinstance(x, np.ndarray) else x  # nested lists: numpy scalar indexing is slow
    cell_vars = [xs[r][c] for r, c in cells]
    lit = lambda i, v: cell_vars[i][v - 1]
    add_all, add_one = f.clauses.extend, f.clauses.append  # fresh untagged lists: no copies
    ok = f.var(("ok", key))
    tuples = cage_tuples(n, len(cells), op, target)
    if tuples is not None:
        sels = []
        for t in tuples:
            s = f.var(("sel", key, t))
            add_all([[-s, lit(i, v)] for i, v in enumerate(t)])
            add_one([s] + [-lit(i, v) for i, v in enumerate(t)])
            sels.append((s, t))
        add_one([-ok] + [s for s, _ in sels])
        add_all([[ok, -s] for s, _ in sels])
        using = {(i, v): [] for i in range(len(cells)) for v in range(1, n + 1)}
        for s, t in sels:
            for i, v in enumerate(t):
                using[i, v].append(s)
        add_all([-ok, -lit(i, v)] + ss for (i, v), ss in using.items())
        return ok
    step = (lambda a, v: a + v) if op == "+" else (lambda a, v: a * v)
    layers = [{0 if op == "+" else 1}]
    for _ in cells:
        layers.append({step(a, v) for a in layers[-1] for v in range(1, n + 1) if step(a, v) <= target})
    keep = [set() for _ in layers]
    keep[-1] = {target} & layers[-1]
    for j in range(len(cells) - 1, -1, -1):
        keep[j] = {a for a in layers[j] if any(step(a, v) in keep[j + 1] for v in range(1, n + 1))}
    # node (j, a): the first j cells give a; it is true exactly when they do (a one-hot chain)
    node = {(j, a): f.var(("node", key, j, a)) for j in range(1, len(cells)) for a in sorted(keep[j])}
    node[len(cells), target] = ok
    into: dict = {k: [] for k in node}
    for j, states in enumerate(keep[:-1]):
        for v in range(1, n + 1):
            edges = []
            for a in sorted(states):
                if step(a, v) in keep[j + 1]:
                    if j == 0:
                        e = lit(0, v)
                    else:
                        e = f.var(("edge", key, j, a, v))
                        add_all([[-e, node[j, a]], [-e, lit(j, v)], [e, -node[j, a], -lit(j, v)]])
                    into[j + 1, step(a, v)].append(e)
                    edges.append(e)
            add_one([-ok, -lit(j, v)] + edges)
    for k, es in into.items():
        add_one([-node[k]] + es)
        add_all([[node[k], -e] for e in es])
    return ok


class _Numbering:
    """What :func:`cage_literal` asks of a :class:`Formula` (new variables, a clause list) and no
    more."""

    def __init__(self, top: int):
        self.top = top
        self.clauses: list[list[int]] = []

    def var(self, _key) -> int:
        self.top += 1
        return self.top


@functools.lru_cache(maxsize=4096)
def cage_template(n: int, size: int, op: str, target: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, int]:
    """The clauses :func:`cage_literal` writes for a cage of ``size`` cells, over local variables:
    ``i * n + v`` is "cell i holds v" (1-based, up to ``size * n``), the ones above are its own
    new variables in the order it creates them. ``(variable of each literal, its sign, clause
    sizes, new variables, local literal of the clue)``; cached, the same clues come back in draw
    after draw."""
    f = _Numbering(size * n)
    local = [[[i * n + v for v in range(1, n + 1)] for i in range(size)]]
    ok = cage_literal(f, local, n, 0, [(0, i) for i in range(size)], op, target)
    sizes = np.fromiter(map(len, f.clauses), np.int64, len(f.clauses))
    lits = np.asarray([lit for cl in f.clauses for lit in cl], np.int64)
    return np.abs(lits), np.sign(lits), sizes, f.top - size * n, ok


@functools.lru_cache(maxsize=16)
def _cell_neighbours(n: int) -> tuple[tuple[int, ...], ...]:
    """Each cell's neighbours on an n x n grid (left, right, up, down; cached: read only)."""
    a = n * n
    return tuple(tuple(j for j, ok in ((i - 1, i % n), (i + 1, i % n < n - 1), (i - n, i >= n), (i + n, i < a - n)) if ok)
                 for i in range(a))


def tatham_cages(rng: np.random.Generator, n: int) -> list[int]:
    """A cage label per cell, as Tatham's generator cuts them: dominoes placed with probability
    3/4, then every leftover cell joined to its first neighbour (in a random order) whose cage
    has room; redrawn if a cell is left alone."""
    a = n * n
    nbrs = _cell_neighbours(n)
    while True:
        rank = np.empty(a, np.int64)
        rank[rng.permutation(a)] = np.arange(a)
        rank = rank.tolist()
        cage, single = list(range(a)), [True] * a
        members = [[i] for i in range(a)]  # a label's cells (its size)
        for fold in (False, True):
            for i in range(a):
                if not single[i]:
                    continue
                cand = [j for j in nbrs[i] if (len(members[cage[j]]) < MAXBLK if fold else single[j])]
                if cand and (fold or rng.integers(4)):
                    best = min(cand, key=rank.__getitem__)
                    old, new = cage[i], cage[best]
                    for k in members[old]:
                        cage[k] = new
                    members[new] += members[old]
                    single[i] = single[best] = False
        if not any(single):
            return cage


def tatham_clue_types(rng: np.random.Generator, n: int, sol: list[list], cage_of: list[int], easy_products: bool,
                      mult: bool) -> dict:
    """``label -> (op, target)`` as Tatham hands out clue types: each type in turn (``/``, ``-``,
    ``x``, ``+``) goes to the first cage, in a random order, that suits it well, else to one that
    suits it at all. Two-cell sums of 3, 4, 2n-2, 2n-1 suit badly, a difference of n-1 never,
    and (unless ``easy_products``) a product with at most two factorisations badly."""
    cells: dict[int, list[int]] = {}
    for i, lab in enumerate(cage_of):
        cells.setdefault(lab, []).append(sol[i // n][i % n])
    good, bad = {}, {}
    for lab, vals in cells.items():
        good[lab], bad[lab] = ({"x"}, set()) if mult else ({"+", "x"}, set())
        if len(vals) == 2 and not mult:
            q, p = sorted(vals)
            good[lab] = {"-"} if p - q < n - 1 else set()
            (good if 4 < p + q < 2 * n - 2 else bad)[lab].add("+")
            (bad if _factorisations(n, p * q) <= 2 and not easy_products else good)[lab].add("x")
            if p % q == 0 and 2 * (p // q) <= n:
                good[lab].add("/")
    order = list(dict.fromkeys(cage_of[i] for i in rng.permutation(n * n).tolist()))
    ops: dict[int, tuple[str, int]] = {}
    while True:  # rounds of the four types, until a round places none
        done = False
        for op in OP_ORDER:
            lab = next((lab for lab in order if op in good[lab]), None)
            if lab is None:
                lab = next((lab for lab in order if op in bad[lab]), None)
            if lab is not None:
                vals = cells[lab]
                ops[lab], done = (op, sum(vals) if op == "+" else math.prod(vals) if op == "x" else
                                  abs(vals[0] - vals[-1]) if op == "-" else max(vals) // min(vals)), True
                order.remove(lab)
        if not done:
            return ops


@functools.lru_cache(maxsize=256)
def _factorisations(n: int, product: int) -> int:
    """How many ordered pairs of distinct values 1..n multiply to ``product``."""
    return sum(1 for d in range(1, n + 1) if product % d == 0 and product // d <= n and product // d != d)
