"""Palisade (docs/specs/grid_puzzles.md §5 "Palisade"; Tatham's ``palisade``). Game IDs: ``codec.py``;
region labels: ``regions.py``; the generator's deduction, search and clue reduction: ``kernel.py``."""
from __future__ import annotations

import dataclasses
import functools

import numpy as np

from ....core.errors import ConfigError
from ....core.instance import Instance
from ....core.params import param
from ....solvers.engine import Encoding
from ....solvers.sat import Formula
from ..base import Check, GridParams, GridTask, presets
from ..regions import EMPTY, RegionAnswers
from ..render import Sketch
from .claims import RULES as CLAIM_RULES
from .codec import NO_CLUE
from .geometry import border_count, capped_count, components, connectivity_cuts, first_order, neighbours

MAX_SIDE = 30
#: divisions drawn whose full numbering the deduction (``kernel.py``) must solve, as in Tatham's generator;
#: past them the search's count of solutions decides instead (small regions on larger grids, where nearly every
#: division is ambiguous, so that the deduction rarely solves one)
DRAWS = 200
#: divisions drawn for the search after those
SEARCH_DRAWS = 20
#: the branches one uniqueness proof of that search may take (past it a number stays)
BUDGET = 2000


@dataclasses.dataclass(frozen=True)
class PalisadeParams(GridParams.with_size(5, 2, MAX_SIDE)):
    n: int = param(5, lo=3, hi=60, doc="cells per region (Tatham's 'n'); it must divide W*H")

    def check(self):
        out = super().check()
        W, H, n = out.W, out.H, out.n
        if (W * H) % n or n >= W * H:
            raise ConfigError(f"Palisade W={W}, H={H}: the region size n={n} must divide the {W * H} cells and be "
                              "smaller than the grid")
        return out


class PalisadeTask(RegionAnswers, GridTask):
    """Palisade: divide the grid into regions of n cells; each number counts its cell's border sides.

    ## Description
    Divide the grid along the cell sides into connected regions of exactly n cells each. A number
    in a cell says how many of that cell's four sides are region borders, where the edge of the grid
    counts as a border (docs/specs/grid_puzzles.md §5, Tatham's *Palisade*, Nikoli's *Five Cells*).

    ## Answer
    A JSON array of H rows of W integers: a label per cell, the same label on every cell of one
    region and different labels on different regions. Labels are arbitrary (0 to W*H; -1 marks a
    cell left out, which breaks palisade.R2): any labelling of a valid division scores 1.

    ## Generation
    Our own generator (docs/specs/grid_puzzles.md §8) on Tatham's method, in one compiled call (``kernel.py``):
    a random division (each region grown from the first free cell by random free neighbours, drawn again while it
    leaves a pocket of free cells that regions of n cannot fill), every cell numbered, drawn again until our
    deduction solves the full numbering; then numbers removed in a seeded random order while the deduction still
    solves the puzzle. The deduction works on the edges between cells (border, open or unknown) and the
    components of cells joined by open edges: a number with its borders all found opens its other sides (and the
    reverse), two sides of a number that lead into one component go together, two components too large to join
    are walled apart, a component with one way out takes it, a border cannot end where it meets two open edges,
    and an area walled in must hold whole regions. What it settles holds in every solution, so a puzzle it
    solves is unique; our numbered share is Tatham's within 6 % at every preset (docs/grid.md). Where it cannot
    solve the full numbering of 200 divisions (small regions on large grids), a bounded search (branch on an edge,
    deduce, count solutions up to two) proves uniqueness instead. The SAT model (:meth:`encode`: every cell takes
    the first cell of its region as a label, each region is counted, connectivity is local clauses plus lazy cuts)
    is the independent check of uniqueness in the tests.

    ## Interactive mode
    ``{"r": row, "c": col, "v": k}`` gives a cell the label k; ``-1`` clears it.

    ## Version history
    * v0 (before the first release): on 2026-12-03 generation moved into one compiled kernel (a random division,
      Tatham's clue reduction on our own deduction solver, a bounded search in place of SAT), so from then on a
      seed draws another division and other numbers than before.
    """

    Params = PalisadeParams
    claim_rules = CLAIM_RULES
    difficulties = presets("W H n", (5, 5, 5), (8, 6, 6), (10, 8, 8), (15, 12, 10))
    rule_codes = """
        R1 every region (the cells sharing a label) is connected
        R2 every cell lies in a region of exactly n cells
        R3 a numbered cell has exactly that many sides on region borders (the grid's edge counts)
    """
    rules_prompt = """
        - Divide the whole grid into regions along the cell sides. Every region is a connected group of exactly {n}
          cells (cells connect through shared sides, not corners).
        - "clues" gives a number for some cells (-1 means no number). A number 0 to 4 says how many of the cell's
          four sides are region borders: a side on the edge of the grid is always a border, and a side shared with
          another cell is a border exactly when that cell belongs to another region.
    """
    symbols = frozenset(range(EMPTY, MAX_SIDE * MAX_SIDE + 1))
    state_keys = ("n", "clues")

    def shape(self, state: dict) -> tuple[int, int]:
        return len(state["clues"]), len(state["clues"][0])

    def anchors(self, instance: Instance) -> list[tuple[int, int]]:
        """The first cell of each region of the solution (its labels number the regions in that order)."""
        sol = instance.data.get("solution") or self.solve(instance)
        first: dict = {}
        for r, row in enumerate(sol):
            for c, v in enumerate(row):
                first.setdefault(v, (r, c))
        return [first[k] for k in sorted(first)]

    def rule_checks(self, instance: Instance, grid: list[list]) -> list[Check]:
        st = instance.data["state"]
        n = int(st["n"])
        checks = []
        regions = components(grid)
        for label in sorted(regions):
            comps = regions[label]
            if label == EMPTY:
                checks += [Check("R2", [cell], False) for comp in comps for cell in comp]
                continue
            checks.append(Check("R1", [cell for comp in comps[1:] for cell in comp], len(comps) == 1))
            cells = sorted(cell for comp in comps for cell in comp)
            checks.append(Check("R2", cells, len(cells) == n))
        for r, row in enumerate(st["clues"]):
            for c, k in enumerate(row):
                if k != NO_CLUE:
                    checks.append(Check("R3", [(r, c)], border_count(grid, r, c) == k))
        return checks

    def encode(self, state: dict) -> Encoding:
        """One formula per (H, W, n): ``x[cell][root]`` (the cell lies in the region whose first
        cell, row-major, is ``root``), the region counts (R2), "same region" literals of
        neighbouring cells, and per cell a counter of its borders that a number fixes by assumption (R3)."""
        H, W = self.shape(state)
        n = int(state["n"])
        enc = self.layout((H, W, n), lambda: self._rules(H, W, n))
        count, edge = enc.extra["count"], enc.extra["edge"]
        return enc.with_clues({(r, c): ("R3", tuple(count[r, c].eq(k - edge[r, c])))
                               for r, row in enumerate(state["clues"]) for c, k in enumerate(row) if k != NO_CLUE})

    @staticmethod
    def _rules(H: int, W: int, n: int) -> Encoding:
        f = Formula()
        x: dict = {}
        for r, c in np.ndindex(H, W):
            x[(r, c)] = {(a, b): f.var(("x", r, c, a, b)) for a in range(max(0, r - n + 1), r + 1)
                         for b in range(max(0, c - n + 1), min(W, c + n))
                         if (a, b) <= (r, c) and abs(r - a) + abs(c - b) <= n - 1}
        answer = [v for cell in x.values() for v in cell.values()]
        for cell, roots in x.items():
            f.exactly_one(list(roots.values()))
            for rt, v in roots.items():
                if rt != cell:
                    f.add([-v, x[rt][rt]])
                # R1, locally: a cell of a region of n >= 2 cells has a neighbour in it
                f.add([-v] + [x[nb][rt] for nb in neighbours(*cell, H, W) if rt in x[nb]], rule="R1")
        members: dict = {}
        for roots in x.values():
            for rt, v in roots.items():
                members.setdefault(rt, []).append(v)
        for rt, lits in members.items():
            # R2 on a counter of the root's members capped at 2n. A region of fewer than n cells while every other
            # region has n is impossible (the cells would not add up), so the lower bound is structure, not a rule
            # instance that can break alone; the upper bound is R2's instance (broken alone: two regions merged).
            # Between n and 2n no size can occur either: stated too, so that a solver breaking the upper bound
            # needs no counting argument to see it.
            ge = capped_count(f, lits, 2 * n, ("size", rt))
            f.add([-x[rt][rt]] + ge[n - 1:n])  # too few cells within reach: never a root
            if len(ge) > n:
                f.add([-ge[n], ge[2 * n - 1]] if len(ge) == 2 * n else [-ge[n]])
                f._tagged("R2", lits, 0, n, lambda ge=ge: f.add([-ge[n]]))
        same: dict = {}
        for a in x:
            for b in ((a[0], a[1] + 1), (a[0] + 1, a[1])):
                if b not in x:
                    continue
                s = same[a, b] = same[b, a] = f.var(("same", a, b))
                for p, q in ((a, b), (b, a)):
                    for rt, v in x[p].items():
                        if rt in x[q]:
                            f.add([-s, -v, x[q][rt]])
                            if p == a:
                                f.add([-v, -x[q][rt], s])
                        else:
                            f.add([-s, -v])
        # "same region" is an equivalence: around each grid point, three same-region pairs give the fourth
        for r, c in np.ndindex(H - 1, W - 1):
            ring = [same[(r, c), (r, c + 1)], same[(r, c + 1), (r + 1, c + 1)], same[(r + 1, c), (r + 1, c + 1)],
                    same[(r, c), (r + 1, c)]]
            for i, s in enumerate(ring):
                f.add([s] + [-t for j, t in enumerate(ring) if j != i])
        count, edge = {}, {}
        for r, c in np.ndindex(H, W):
            nbs = neighbours(r, c, H, W)
            count[r, c] = f.count([-same[(r, c), nb] for nb in nbs])
            edge[r, c] = 4 - len(nbs)

        # the (cell, root, literal) triples as arrays: decode reads all of them at once
        root_keys = sorted({rt for roots in x.values() for rt in roots})
        root_index = {rt: i for i, rt in enumerate(root_keys)}
        pair_cell = np.asarray([r * W + c for (r, c), roots in x.items() for _ in roots], np.int64)
        pair_root = np.asarray([root_index[rt] for roots in x.values() for rt in roots], np.int64)
        pair_var = np.asarray([v for roots in x.values() for v in roots.values()], np.int64)

        def decode(value: np.ndarray) -> list[list]:
            """The labels of the roots; a cell with no root or several (no model, but a near miss flips
            single literals) is left out, so that every answer literal shows in the grid."""
            on = np.asarray(value)[pair_var] > 0
            hits = np.bincount(pair_cell[on], minlength=H * W)
            chosen = np.full(H * W, -1, np.int64)
            chosen[pair_cell[on]] = pair_root[on]
            chosen[hits != 1] = -1
            flat = [None if i < 0 else root_keys[i] for i in chosen.tolist()]
            roots = [flat[r * W:(r + 1) * W] for r in range(H)]
            labels = first_order(roots)
            return [[EMPTY if rt is None else k for rt, k in zip(rr, lr)] for rr, lr in zip(roots, labels)]

        return Encoding(f, answer, decode, cuts=connectivity_cuts(x, H, W), cut_rule="R1",
                        extra={"x": x, "count": count, "edge": edge, "same": sorted(set(same.values()))})

    def sample(self, rng: np.random.Generator, params: dict) -> tuple[dict, list[list]]:
        """Tatham's method on our deduction, in one compiled call (``kernel.generate``): a random division
        (:func:`.geometry.random_division`), every cell numbered, drawn again until the deduction solves the
        full numbering; then numbers removed in a random order while the deduction still solves the puzzle.
        After :data:`DRAWS` divisions the search's count of solutions (:data:`BUDGET` branches) stands in
        for the deduction, for :data:`SEARCH_DRAWS` more."""
        from . import kernel

        W, H, n = params["W"], params["H"], params["n"]
        es, work, sol, div, label, clue, order = _scratch(H, W)
        left = kernel.generate(H, W, n, int(rng.integers(1, 2**31 - 1)), DRAWS, SEARCH_DRAWS, BUDGET, label, clue,
                               order, es, work, sol, div)
        if left < 0:
            raise RuntimeError(f"could not generate a {W}x{H} Palisade puzzle with regions of {n}")
        return {"n": n, "clues": clue.reshape(H, W).tolist()}, label.reshape(H, W).tolist()

    def sketch(self, instance: Instance, grid: list[list]) -> Sketch:
        """The numbers in their cells (``.`` where a cell is unlabelled), walls between cells of different regions."""
        # a 0 is a number here: passed as the text "0" so that it is drawn
        return self.label_sketch(grid, [[str(k) if k != NO_CLUE else "" for k in row]
                                        for row in instance.data["state"]["clues"]])

    def clue_count(self, instance: Instance) -> int:
        return sum(k != NO_CLUE for row in instance.data["state"]["clues"] for k in row)

    def clue_features(self, instance: Instance) -> np.ndarray:
        """Per cell: its number + 1, so 0 means no number."""
        return np.asarray([k + 1 for row in instance.data["state"]["clues"] for k in row], np.float32)


@functools.lru_cache(maxsize=8)
def _scratch(H: int, W: int) -> tuple:
    """``kernel.scratch`` for an H x W grid, kept (every generation of a preset reuses them)."""
    from . import kernel

    N = H * W
    return (*kernel.scratch(H, W), kernel.division_scratch(H, W), *(np.zeros(N, np.int64) for _ in range(3)))
