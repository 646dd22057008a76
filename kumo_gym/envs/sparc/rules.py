"""SPaRC rules: path validity and region rules, with diagnostics (docs/specs/sparc.md §5, §6).

Plain Python, written for clarity and for the diagnostics a Verdict reports. The solver in
:mod:`kumo_gym.envs.sparc.search` implements the same rules in numba; tests check that both agree on
every reference puzzle and on generated ones.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .puzzle import POLY, SQUARE, STAR, TRIANGLE, YLOP, SparcPuzzle, is_cell

PATH_FLAGS = ("incorrect_start_end", "disconnected", "intersecting", "rule_cell_crossing")
RULES = ("dot", "gap", "square", "star", "triangle", "poly")
#: the rule code of each path-error flag (the task's ``rule_codes``; the flags are the paper's)
PATH_RULES = {"start_end": "incorrect_start_end", "connected": "disconnected", "no_revisit": "intersecting",
              "no_rule_cell": "rule_cell_crossing", "in_bounds": "out_of_bounds"}


@dataclass
class PathCheck:
    """The outcome of checking one path (docs/specs/sparc.md §6).

    ``flags`` holds the four path-error flags of the paper plus ``invalid_path`` and
    ``out_of_bounds``; ``first_error`` is the index of the first offending position (None when
    the path is structurally valid); ``violations`` maps each rule to its offending positions
    (filled only for structurally valid paths); ``satisfied``/``total`` count rule constraints.
    """

    flags: dict
    first_error: int | None
    violations: dict = field(default_factory=dict)
    satisfied: int = 0
    total: int = 0

    @property
    def valid_path(self) -> bool:
        return not self.flags["invalid_path"] and not self.flags["out_of_bounds"]

    @property
    def solved(self) -> bool:
        return self.valid_path and not any(self.violations.values())

    @property
    def stops_early(self) -> bool:
        """Only flag: the path starts at S but ends before E (the 'incomplete' status)."""
        return self.flags["stops_early"]

    def broken_path_rules(self) -> list[str]:
        """Codes of the path rules broken (``start_end``, ``connected`` ...)."""
        return [code for code, flag in PATH_RULES.items() if self.flags[flag]]

    def violation_list(self) -> list[dict]:
        """Every broken rule as ``{"rule": code, ...}`` (the Verdict's ``violations``)."""
        out = [{"rule": code, "first_error": self.first_error} for code in self.broken_path_rules()]
        out += [{"rule": rule, "positions": [list(v) for v in pos]} for rule, pos in self.violations.items() if pos]
        return out


def path_errors(p: SparcPuzzle, path: list, skip=frozenset()) -> tuple[dict, int | None, bool]:
    """The path-error flags of docs/specs/sparc.md §6, the index of the first offending position, and whether the
    only problem is that the path stops before ``E``. Path rules whose codes are in ``skip`` are
    not checked (the task's rule switches)."""
    n = len(path)
    first = None
    check_ends = "start_end" not in skip
    bad_start = check_ends and (n == 0 or tuple(path[0]) != p.start)
    bad_end = check_ends and (n == 0 or tuple(path[-1]) != p.end)
    disconnected = intersecting = crossing = oob = False
    seen = set()
    if bad_start:
        first = 0
    for i, pos in enumerate(path):
        x, y = pos
        err = False
        if not p.in_bounds(x, y) and "in_bounds" not in skip:
            oob = err = True
        if i > 0 and abs(x - path[i - 1][0]) + abs(y - path[i - 1][1]) != 1 and "connected" not in skip:
            disconnected = err = True
        if pos in seen and "no_revisit" not in skip:
            intersecting = err = True
        seen.add(pos)
        if 0 < i < n - 1 and is_cell(x, y) and p.in_bounds(x, y) and "no_rule_cell" not in skip:
            crossing = err = True
        if err and first is None:
            first = i
    if bad_end and first is None:
        first = max(0, n - 1)
    flags = {"incorrect_start_end": bad_start or bad_end, "disconnected": disconnected,
             "intersecting": intersecting, "rule_cell_crossing": crossing}
    flags["invalid_path"] = any(flags.values())
    flags["out_of_bounds"] = oob
    stops_early = (not bad_start and bad_end and not (disconnected or intersecting or crossing or oob)
                   and n > 0 and not is_cell(*path[-1]))
    flags["stops_early"] = stops_early
    return flags, first, stops_early


def regions(p: SparcPuzzle, on_path: set) -> list[list[tuple[int, int]]]:
    """Cell regions cut by the path (docs/specs/sparc.md §5): neighbouring cells are joined unless the edge midpoint
    between them is on the path. Gaps do not cut; the border is a wall."""
    seen = set()
    out = []
    for c in p.cells():
        if c in seen:
            continue
        comp, stack = [], [c]
        seen.add(c)
        while stack:
            x, y = stack.pop()
            comp.append((x, y))
            for dx, dy in ((2, 0), (-2, 0), (0, 2), (0, -2)):
                nx, ny = x + dx, y + dy
                if (0 < nx < p.cols and 0 < ny < p.rows and (nx, ny) not in seen
                        and (x + dx // 2, y + dy // 2) not in on_path):
                    seen.add((nx, ny))
                    stack.append((nx, ny))
        out.append(sorted(comp))
    return out


def touched_edges(p: SparcPuzzle, cell, on_path: set) -> int:
    """How many of the cell's four edge midpoints the path visits (triangle rule)."""
    x, y = cell
    return sum((x + dx, y + dy) in on_path for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)))


def poly_region_ok(p: SparcPuzzle, region: list) -> bool:
    """The poly/ylop rule for one region (docs/specs/sparc.md §5).

    With ``net = sum|polys| - sum|ylops|``: no pieces -> true; ``net < 0`` -> false;
    ``net > 0`` -> ``|R| = net`` and a translation of every piece inside the grid with
    ``#polys - #ylops = [cell in R]`` on every cell; ``net = 0`` -> the same with target 0.
    Ylops are placed first (every translation), then polys cover the remaining demand; the
    first cell with demand left must be the first cell (in row order) of some poly.
    """
    polys = sorted(p.shapes[p.symbols[c][2]] for c in region if p.symbols.get(c, (0,))[0] == POLY)
    ylops = sorted(p.shapes[p.symbols[c][2]] for c in region if p.symbols.get(c, (0,))[0] == YLOP)
    if not polys and not ylops:
        return True
    net = sum(map(len, polys)) - sum(map(len, ylops))
    if net < 0 or (net > 0 and net != len(region)):
        return False
    w, h = p.width, p.height
    demand = [[0] * w for _ in range(h)]
    if net > 0:
        for x, y in region:
            demand[y // 2][x // 2] = 1

    def fits(cells, ox, oy):
        return all(0 <= ox + dx < w and 0 <= oy + dy < h for dx, dy in cells)

    def cover(used: list) -> bool:
        for cy in range(h):
            for cx in range(w):
                d = demand[cy][cx]
                if d < 0:
                    return False
                if d > 0:
                    # anchor the piece's first cell (row-major) on the first cell with demand
                    tried = set()
                    for i, cells in enumerate(polys):
                        if used[i] or cells in tried:
                            continue
                        tried.add(cells)
                        fx, fy = cells[0]
                        ox, oy = cx - fx, cy - fy
                        if not fits(cells, ox, oy) or any(demand[oy + dy][ox + dx] <= 0 for dx, dy in cells):
                            continue
                        for dx, dy in cells:
                            demand[oy + dy][ox + dx] -= 1
                        used[i] = True
                        if cover(used):
                            return True
                        used[i] = False
                        for dx, dy in cells:
                            demand[oy + dy][ox + dx] += 1
                    return False
        return all(used)

    def place_ylops(k: int, min_index: int) -> bool:
        if k == len(ylops):
            return cover([False] * len(polys))
        cells = ylops[k]
        sw = max(dx for dx, _ in cells) + 1
        sh = max(dy for _, dy in cells) + 1
        # identical ylops are interchangeable: place them in non-decreasing translation order
        start = min_index if k > 0 and ylops[k - 1] == cells else 0
        for t in range(start, w * h):
            ox, oy = t % w, t // w
            if ox + sw > w or oy + sh > h:
                continue
            for dx, dy in cells:
                demand[oy + dy][ox + dx] += 1
            ok = place_ylops(k + 1, t)
            for dx, dy in cells:
                demand[oy + dy][ox + dx] -= 1
            if ok:
                return True
        return False

    return place_ylops(0, 0)


def rule_report(p: SparcPuzzle, path: list, skip=frozenset()) -> tuple[dict, int, int]:
    """Rule violations of a structurally valid path: {rule: [positions]}, satisfied, total.

    One constraint per dot, gap, star and triangle, and one per region holding squares or
    polys/ylops (docs/specs/sparc.md §5). Offending positions are the symbols (or dots/gaps) involved. Rules
    whose codes are in ``skip`` are not checked.
    """
    on_path = set(map(tuple, path))
    viol = {r: [] for r in RULES}
    total = satisfied = 0
    if "dot" not in skip:
        for pos in p.dots:
            total += 1
            if pos in on_path:
                satisfied += 1
            else:
                viol["dot"].append(pos)
    if "gap" not in skip:
        for pos in p.gaps:
            total += 1
            if pos in on_path:
                viol["gap"].append(pos)
            else:
                satisfied += 1
    if "triangle" not in skip:
        for c, (kind, _colour, extra) in p.symbols.items():
            if kind == TRIANGLE:
                total += 1
                if touched_edges(p, c, on_path) == extra:
                    satisfied += 1
                else:
                    viol["triangle"].append(c)
    for region in regions(p, on_path):
        syms = [(c, p.symbols[c]) for c in region if c in p.symbols]
        squares = [(c, s[1]) for c, s in syms if s[0] == SQUARE]
        if squares and "square" not in skip:
            total += 1
            if len({col for _, col in squares}) == 1:
                satisfied += 1
            else:
                viol["square"].extend(c for c, _ in squares)
        if "star" not in skip:
            for c, s in syms:
                if s[0] == STAR:
                    total += 1
                    same = sum(1 for _, t in syms if t[1] == s[1])
                    if same == 2:
                        satisfied += 1
                    else:
                        viol["star"].append(c)
        if "poly" not in skip and any(s[0] in (POLY, YLOP) for _, s in syms):
            total += 1
            if poly_region_ok(p, region):
                satisfied += 1
            else:
                viol["poly"].extend(c for c, s in syms if s[0] in (POLY, YLOP))
    return {r: sorted(v) for r, v in viol.items()}, satisfied, total


def check_path(p: SparcPuzzle, path, skip=frozenset()) -> PathCheck:
    """Full check of a path given as a sequence of (x, y) pairs (docs/specs/sparc.md §5, §6). Rules whose codes
    are in ``skip`` are not checked (the task's rule switches: the mutation test in miniature)."""
    path = [tuple(int(v) for v in pos) for pos in path]
    flags, first, _ = path_errors(p, path, skip)
    check = PathCheck(flags, first)
    if not flags["invalid_path"] and not flags["out_of_bounds"]:
        check.first_error = None
        check.violations, check.satisfied, check.total = rule_report(p, path, skip)
    return check


def is_solution(p: SparcPuzzle, path) -> bool:
    return check_path(p, path).solved
