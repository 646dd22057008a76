"""Reward integrity for SPaRC: partial credit that cheap lines cannot collect, and
near misses that break exactly one rule.

**Partial credit.** Scoring the share of satisfied constraints paid 0.62-0.96 to the shortest
line from ``S`` to ``E`` that ignores every rule (most constraints hold by accident on a short
line). Credit now goes only to a line that follows a solution: for each solution ``s``, ``q`` is
the share of ``s``'s positions that the answer follows from ``S`` before it leaves ``s``, and
``b`` the share that a rule-blind line already follows (the longest prefix of ``s`` that lies on a
shortest line from ``S`` to ``E``, through gaps or around them, or on a walk along the border).
The credit is ``0.9 * max_s (q - b) / (1 - b)`` (0 when ``q <= b``), and 1 when solved. Every
cheap line therefore earns 0 by construction; a line that makes the right choices beyond what
a rule-blind line would earns in proportion to how far it gets.

**Near misses.** For the path rules, a solution altered at one place so that only that rule
breaks (the start or end dropped, a corner skipped, a step taken back and forth, a corner cut
through its cell, a detour outside the right or bottom border); for the symbol rules, solutions
of the puzzle with that one symbol (or dot, or gap) removed that are not solutions of the puzzle
itself, found by the solver, and kept only when no other rule can be involved (a removed symbol
of colour ``c`` must not share a region with a star of colour ``c``). A puzzle may show a rule
that no line breaks alone (squares that the other constraints already keep apart); the near miss
for it is then a line on a variant of the puzzle that keeps only that rule's symbols
(:func:`variant_near_miss`).
"""
from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from .generate import border_walks, cell_regions, distances_to
from .puzzle import POLY, SQUARE, STAR, TRIANGLE, YLOP, SparcPuzzle, is_cell, is_vertex
from .rules import check_path
from .search import enumerate_solutions

#: what a line that is not a solution can earn at most
CREDIT_CAP = 0.9


def common_prefix(a, b) -> int:
    """Number of leading positions ``a`` and ``b`` share."""
    n = 0
    for u, v in zip(a, b):
        if tuple(u) != tuple(v):
            break
        n += 1
    return n


def descent_prefix(solution, dist: dict) -> int:
    """Positions of the longest prefix of ``solution`` that lies on some shortest line to the end
    (every step one closer by ``dist``)."""
    n = 1
    while n < len(solution) and dist.get(tuple(solution[n])) is not None \
            and dist.get(tuple(solution[n - 1])) == dist[tuple(solution[n])] + 1:
        n += 1
    return n


def prefix_credit(p: SparcPuzzle, path, solutions) -> float:
    """Partial credit of a line that is not a solution (see the module docstring)."""
    if not path or not solutions or tuple(path[0]) != tuple(p.start):
        return 0.0
    free = distances_to(p.width, p.height, p.end)
    around = distances_to(p.width, p.height, p.end, frozenset(p.gaps))
    walks = border_walks(p.width, p.height, p.start, p.end)
    best = 0.0
    for s in solutions:
        q = common_prefix(path, s)
        b = max([descent_prefix(s, free), descent_prefix(s, around)] + [common_prefix(w, s) for w in walks])
        if q > b and len(s) > b:
            best = max(best, (q - b) / (len(s) - b))
    return CREDIT_CAP * min(1.0, best)


# ---- near misses ------------------------------------------------------------------------------------
def near_misses(p: SparcPuzzle, solutions: list, rng: np.random.Generator, per_rule: int = 2) -> Iterator:
    """``(rule code, line)`` pairs, each line breaking exactly that rule, at varied places."""
    sols = [[tuple(q) for q in s] for s in solutions]
    if not sols:
        return
    picks = [sols[i] for i in rng.permutation(len(sols))[:3]]
    for rule, make in (("start_end", _drop_end), ("connected", _skip_corner), ("no_revisit", _back_and_forth),
                       ("no_rule_cell", _cut_corner), ("in_bounds", _outside_detour)):
        made = []
        for s in picks:
            for line in make(p, s, rng):
                if line not in made:
                    made.append(line)
        for line in _varied(made, per_rule, rng):
            yield rule, line
    yield from _symbol_near_misses(p, sols, rng, per_rule)


def _varied(items: list, n: int, rng) -> list:
    """The first, the last and random others: misses at varied places."""
    if len(items) <= n:
        return items
    keep = [items[0], items[-1]] + [items[i] for i in rng.permutation(len(items))]
    out = []
    for it in keep:
        if it not in out:
            out.append(it)
    return out[:n]


def _drop_end(p, s, rng):
    if is_vertex(*s[0]):  # a corner never cuts a region or touches a triangle
        yield s[1:]
    if is_vertex(*s[-1]):
        yield s[:-1]


def _interior_corners(p, s):
    dots = set(p.dots)
    return [i for i in range(1, len(s) - 1) if is_vertex(*s[i]) and s[i] not in dots]


def _skip_corner(p, s, rng):
    for i in _interior_corners(p, s):
        yield s[:i] + s[i + 1:]


def _back_and_forth(p, s, rng):
    for i in range(1, len(s) - 1):
        yield s[:i + 1] + [s[i - 1], s[i]] + s[i + 1:]


def _cut_corner(p, s, rng):
    """Where the line turns around a cell, go through the cell instead of its corner."""
    for i in _interior_corners(p, s):
        (ax, ay), (vx, vy), (bx, by) = s[i - 1], s[i], s[i + 1]
        cell = (ax + bx - vx, ay + by - vy)
        if ax != bx and ay != by and is_cell(*cell) and p.in_bounds(*cell):
            yield s[:i] + [cell] + s[i + 1:]


def _outside_detour(p, s, rng):
    """Along the right or bottom border, replace an edge by a detour just outside the grid
    (coordinates past the grid can be written; negative ones cannot)."""
    dots = set(p.dots)
    for i in range(len(s) - 2):
        a, e, b = s[i], s[i + 1], s[i + 2]
        if e in dots or i + 2 >= len(s):
            continue
        for axis, edge in ((0, p.cols - 1), (1, p.rows - 1)):
            if a[axis] == e[axis] == b[axis] == edge and abs(a[1 - axis] - b[1 - axis]) == 2:
                out = [tuple(v + (1 if k == axis else 0) for k, v in enumerate(q)) for q in (a, e, b)]
                # the dropped border edge touched one cell: it must not hold a triangle
                inner = tuple(v - (1 if k == axis else 0) for k, v in enumerate(e))
                if p.symbols.get(inner, (0,))[0] != TRIANGLE:
                    yield s[:i + 1] + out + s[i + 2:]


_REMOVABLE = {"dot": "dots", "gap": "gaps", "square": (SQUARE,), "star": (STAR,), "triangle": (TRIANGLE,),
              "poly": (POLY, YLOP)}


def _symbol_near_misses(p: SparcPuzzle, sols: list, rng, per_rule: int) -> Iterator:
    """Solutions of the puzzle with one symbol removed that the puzzle itself rejects; for a
    cell symbol kind none of whose symbols binds alone (two squares of one colour in one
    region, say), its symbols of one colour removed together, then all of them."""
    known = {tuple(s) for s in sols}
    for rule, what in _REMOVABLE.items():
        if isinstance(what, str):
            where = list(getattr(p, what))
        else:
            where = [c for c, sym in p.symbols.items() if sym[0] in what]
        groups = [[where[i]] for i in rng.permutation(len(where))]
        if not isinstance(what, str):
            colours = sorted({p.symbols[c][1] for c in where})
            groups.append(None)  # the groups below only when no single symbol gave a miss
            groups += [[c for c in where if p.symbols[c][1] == col] for col in colours if len(colours) > 1]
            groups.append(where)
        found = 0
        for cells in groups:
            if found >= per_rule or (cells is None and found):
                break
            if cells is None:
                continue
            for q in _relaxed_solutions(p, cells):
                if tuple(q) in known:
                    continue
                if rule != "star" and _star_shares_region(p, q, cells):
                    continue  # a removed symbol counted for a star too: not this rule alone
                yield rule, q
                found += 1
                break


def _relaxed_solutions(p: SparcPuzzle, cells: list) -> list:
    """Solutions (at most 41) of ``p`` without the symbols, dots or gaps at ``cells``."""
    grid = [list(r) for r in p.grid]
    for x, y in cells:
        grid[y][x] = "N" if is_cell(x, y) else "+"
    used = {sym[2] for c, sym in p.symbols.items() if sym[0] in (POLY, YLOP) and c not in cells}
    relaxed = SparcPuzzle.from_grid(grid, {sid: [[int((x, y) in p.shapes[sid]) for x in range(4)]
                                                for y in range(4)] for sid in used})
    res = enumerate_solutions(relaxed, cap=40, node_limit=300_000)
    return [[tuple(v) for v in q] for q in res.solutions]


def _star_shares_region(p: SparcPuzzle, line, cells) -> bool:
    """Whether a removed symbol at ``cells`` shares a region of ``line`` with a star of its
    colour that stays (it counted for that star: the line would break the star rule too)."""
    label = cell_regions(p.width, p.height, set(line))
    removed = set(cells)
    return any(sym[0] == STAR and sym[1] == p.symbols[cell][1] and label[c] == label[cell]
               for cell in removed if cell in p.symbols
               for c, sym in p.symbols.items() if c not in removed)


def variant_near_miss(p: SparcPuzzle, rule: str) -> tuple[SparcPuzzle, list, list] | None:
    """``(variant, line, its solutions)``: the puzzle with only the symbols of ``rule`` kept (its
    dots, gaps or cell symbols), and a line that breaks that rule alone on it; the variant's
    solutions are listed up to 50. None when no line of the first ones found does."""
    what = _REMOVABLE[rule]
    grid = [list(r) for r in p.grid]
    for y, row in enumerate(grid):
        for x, tok in enumerate(row):
            keep = (tok == "." and rule == "dot") or (tok == "G" and rule == "gap") or \
                ((x, y) in p.symbols and not isinstance(what, str) and p.symbols[(x, y)][0] in what)
            if not keep and tok not in ("S", "E"):
                row[x] = "N" if is_cell(x, y) else "+"
    used = {sym[2] for c, sym in p.symbols.items() if sym[0] in (POLY, YLOP) and rule == "poly"}
    variant = SparcPuzzle.from_grid(grid, {sid: [[int((x, y) in p.shapes[sid]) for x in range(4)] for y in range(4)]
                                           for sid in sorted(used, key=int)})
    bare = [["N" if is_cell(x, y) else ("+" if tok not in ("S", "E") else tok) for x, tok in enumerate(row)]
            for y, row in enumerate(grid)]
    for line in enumerate_solutions(SparcPuzzle.from_grid(bare, {}), cap=200, node_limit=300_000).solutions:
        if sorted(r for r, where in check_path(variant, line).violations.items() if where) == [rule]:
            return variant, [tuple(q) for q in line], enumerate_solutions(variant, cap=49, node_limit=300_000).solutions
    return None
