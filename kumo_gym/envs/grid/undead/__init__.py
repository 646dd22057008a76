"""Undead (docs/specs/grid_puzzles.md §5 "Undead"; Tatham's ``undead``). Game IDs: ``codec.py``."""
from __future__ import annotations

import dataclasses

import numpy as np

from ....core.errors import ConfigError
from ....core.instance import Instance
from ....core.params import param
from ....solvers.engine import Encoding, descend
from ....solvers.sat import Formula
from ..base import Check, GridParams, GridTask, presets, tatham_level
from ..render import Sketch, sketch_cells
from .claims import RULES as CLAIM_RULES
from .codec import MIRRORS, MONSTERS, SIDES, state_of, visible
from .deduce import opener
from .geometry import change_one, scatter_symbols, sight_lines

#: mirrors on base + per-cell W H of the cells: Tatham's 35/37/40 % at 3x3/4x4/7x7, ~38 % at Easy 4x4
MIRROR_SHARE = {"e": (0.36, 0.0015), "n": (0.33, 0.0015), "t": (0.33, 0.0015)}
#: the docs/specs/grid_puzzles.md §8 grade per level (Tatham's: mostly 0 at e, 1-2 at n; after 6 layouts the first
#: unique one is taken), and the monster draws per mirror layout
GRADE_TARGET, LAYOUT_TRIES = {"e": 0, "n": 1, "t": 1}, 3


@dataclasses.dataclass(frozen=True)
class UndeadParams(GridParams):
    W: int = param(4, lo=2, hi=12, doc="columns (W*H at most 54, as Tatham's)")
    H: int = param(None, kind=int, lo=2, hi=12, doc="rows (default: W)")
    tatham_difficulty: str = tatham_level("e", {"e": "easy", "n": "normal", "t": "tricky"})

    def check(self):
        p = super().check()
        if p.W * p.H > 54:
            raise ConfigError(f"an Undead grid of {p.W}x{p.H} has more than the 54 cells Tatham's allows")
        return p


class UndeadTask(GridTask):
    """Undead: place ghosts, vampires and zombies so the mirrors show the right numbers.

    ## Description
    Some cells hold diagonal mirrors; every other cell holds a ghost (G), a vampire (V) or a zombie
    (Z), with the totals given. An edge number counts the monsters seen from there, the line of
    sight bouncing off mirrors: zombies always, vampires only before the first mirror, ghosts only
    after it (a cell passed twice counts twice). docs/specs/grid_puzzles.md §5, Tatham's *Undead*.

    ## Answer
    H rows of W strings: ``"G"``, ``"V"`` or ``"Z"``; mirrors copied (anything there is ignored).

    ## Generation
    Our own generator (docs/specs/grid_puzzles.md §8): mirrors on 34-40 % of the cells (Tatham's density),
    random monsters, every total and sight count shown; monsters on cells that deduction leaves open are changed
    (a change is kept when no more cells stay open) until deduction solves the puzzle, which proves it unique.
    At ``e`` that is Undead's own deduction (the bounds of every count, deduce.py, as Tatham's easy
    solver); at ``n`` and ``t`` failed-literal probing, preferring puzzles propagation does not solve.

    ## Interactive mode
    ``{"r": row, "c": col, "v": "G"}`` (``"V"``, ``"Z"``), ``"."`` clears; mirrors are fixed.
    """

    Params = UndeadParams
    claim_rules = CLAIM_RULES
    difficulties = presets("W H tatham_difficulty", (3, 3, "e"), (4, 4, "e"), (4, 4, "n"), (7, 7, "n"))
    rule_codes = """
        R1 every cell without a mirror holds G, V or Z, and given monsters are kept
        R2 the numbers of ghosts, vampires and zombies equal the totals
        R3 each edge number equals the monsters seen from there along its line of sight
    """
    rules_prompt = """
        - In the grid "\\\\" (one backslash, escaped as JSON writes it) and "/" are two-sided mirrors, "." an empty cell
          (a letter: a given monster). Every cell without a mirror holds one monster: a ghost G, a vampire V or a
          zombie Z.
        - "totals" says how many ghosts, vampires and zombies there are in all.
        - Each edge number counts the monsters seen looking into the grid from that spot: "top" and "bottom" list the
          numbers above and below the columns (left to right), "left" and "right" those beside the rows (top to
          bottom). The gaze goes straight into the grid from the edge; a mirror "\\\\" turns it from down to right,
          right to down, up to left and left to up, a mirror "/" from down to left, left to down, up to right and
          right to up; it ends when it leaves the grid.
        - Zombies are always seen. Vampires are seen only before the gaze has hit any mirror; ghosts are seen only
          after it has hit at least one. A monster passed twice is counted twice.
    """
    answer_prompt = """
        give every cell: "G", "V" or "Z" for its monster; copy the mirrors ("\\\\" or "/") where they are.
    """
    symbols = frozenset({*MONSTERS, *MIRRORS})
    state_keys = ("grid", "totals", *SIDES)
    empty = "."
    given_symbols = frozenset(MIRRORS)
    max_cells = 54  # Tatham's limit

    def cell_values(self, instance: Instance) -> tuple:
        return (*MONSTERS, *MIRRORS)

    def givens(self, instance: Instance) -> dict:
        return {(r, c): v for r, row in enumerate(instance.data["state"]["grid"]) for c, v in enumerate(row) if v != "."}

    def equivalent_values(self, instance: Instance, r: int, c: int, a, b) -> bool:
        """Whatever is written on a mirror is ignored."""
        return a == b or instance.data["state"]["grid"][r][c] in MIRRORS

    def rule_checks(self, instance: Instance, grid: list[list]) -> list[Check]:
        """A cell without a monster fails R1 only: R2 and R3 hold when some choice of monsters there meets them."""
        st = instance.data["state"]
        free = [(r, c) for r, row in enumerate(st["grid"]) for c, v in enumerate(row) if v not in MIRRORS]
        checks = [Check("R1", [(r, c)], grid[r][c] in MONSTERS and st["grid"][r][c] in (".", grid[r][c])) for r, c in free]
        unknown = sum(grid[r][c] not in MONSTERS for r, c in free)
        for t in MONSTERS:
            have = [(r, c) for r, c in free if grid[r][c] == t]
            checks.append(Check("R2", have or free[:1], len(have) <= st["totals"][t] <= len(have) + unknown))
        for (side, i), seen in sight_lines(st["grid"]).items():
            lo = sum(grid[r][c] in MONSTERS and visible(grid[r][c], t) for (r, c), t in seen)
            hi = lo + sum(grid[r][c] not in MONSTERS for (r, c), _ in seen)
            checks.append(Check("R3", [x for x, _ in seen[:1]], lo <= st[side][i] <= hi))
        return checks

    def encode(self, state: dict) -> Encoding:
        """One formula per mirror layout; totals and sight counts fix counters by assumption."""
        layout = tuple(tuple(v if v in MIRRORS else "." for v in row) for row in state["grid"])
        enc = self.layout(layout, lambda: self._rules(layout))
        x, count = enc.extra["x"], enc.extra["count"]
        clues = {("given", r, c): ("R1", (x[r, c, v],)) for r, row in enumerate(state["grid"])
                 for c, v in enumerate(row) if v in MONSTERS}
        clues |= {("total", t): ("R2", tuple(count["total", t].eq(state["totals"][t]))) for t in MONSTERS}
        clues |= {(side, i): ("R3", tuple(count[side, i].eq(n))) for side in SIDES for i, n in enumerate(state[side])}
        return enc.with_clues(clues)

    @staticmethod
    def _rules(layout: tuple) -> Encoding:
        H, W = len(layout), len(layout[0])
        f = Formula()
        free = [(r, c) for r in range(H) for c in range(W) if layout[r][c] == "."]
        x = {(r, c, t): f.var(("monster", r, c, t)) for r, c in free for t in MONSTERS}
        for r, c in free:
            f.exactly([x[r, c, t] for t in MONSTERS], 1)
        count = {("total", t): f.count([x[r, c, t] for r, c in free]) for t in MONSTERS}
        count |= {key: f.count([x[r, c, t] for (r, c), turned in line for t in MONSTERS if visible(t, turned)])
                  for key, line in sight_lines(layout).items()}

        def decode(value: np.ndarray) -> list[list]:
            return [[v if v != "." else next((t for t in MONSTERS if value[x[r, c, t]] > 0), "G")
                     for c, v in enumerate(row)] for r, row in enumerate(layout)]

        return Encoding(f, [x[k] for k in sorted(x)], decode, extra={"x": x, "count": count})

    def sample(self, rng: np.random.Generator, params: dict) -> tuple[dict, list[list]]:
        """Random mirrors and monsters, changed where probing leaves cells open (the class docstring)."""
        W, H, level = params["W"], params["H"], params["tatham_difficulty"]
        first = None
        deep = GRADE_TARGET[level] > 0  # e: descend on the kernel's deduction (grade 0 is the target)
        for attempt in range(400):
            if attempt % LAYOUT_TRIES == 0:  # a new mirror layout (a new formula) every few draws
                k = int((MIRROR_SHARE[level][0] + MIRROR_SHARE[level][1] * W * H) * W * H + rng.random())
                layout = scatter_symbols(rng, H, W, k, MIRRORS)
                free = [(r, c) for r in range(H) for c in range(W) if layout[r][c] == "."]
                open_cells = self._opener(layout, free) if deep else opener(layout, free)
            start = [[v if v != "." else MONSTERS[int(rng.integers(3))] for v in row] for row in layout]
            sol, still_open = descend(start, open_cells,
                                      lambda g, cells: change_one(rng, g, cells, MONSTERS), 8 + 2 * len(free))
            if still_open or not free:
                continue
            if not deep:  # the kernel's deduction settled it: unique (Easy's target)
                return state_of(layout, sol), sol
            enc = self.encode(state := state_of(layout, sol))
            g = enc.engine.grade(enc.assumptions())
            if g == GRADE_TARGET[level] or first and attempt >= 6 * LAYOUT_TRIES:
                return (state, sol) if g == GRADE_TARGET[level] else first
            first = first or (state, sol)
        if not first:
            raise RuntimeError(f"could not generate a {W}x{H} Undead puzzle")
        return first

    def _opener(self, layout: list, free: list):
        """``open_cells(sol)``: the cells failed-literal probing leaves open in the puzzle of ``sol``
        on this mirror layout, the assumptions of :meth:`encode` read from sight lines traced once."""
        key = tuple(tuple(v if v in MIRRORS else "." for v in row) for row in layout)
        enc = self.layout(key, lambda: self._rules(key))
        x, count = enc.extra["x"], enc.extra["count"]
        totals = [(t, count["total", t]) for t in MONSTERS]
        lines = [(count[key], [(r, c, turned) for (r, c), turned in line]) for key, line in sight_lines(layout).items()]
        cells = [(r, c, [x[r, c, t] for t in MONSTERS]) for r, c in free]
        run = enc.engine.probe

        def open_cells(sol: list[list[str]]) -> list[tuple[int, int]]:
            lits = [lit for t, cnt in totals for lit in cnt.eq(sum(v == t for row in sol for v in row))]
            lits += [lit for cnt, line in lines for lit in cnt.eq(sum(visible(sol[r][c], turned) for r, c, turned in line))]
            value = run(lits)
            return [(r, c) for r, c, xs in cells if any(value[v] == 0 for v in xs)]

        return open_cells

    def clue_count(self, instance: Instance) -> int:  # mirrors and givens (every count is always shown)
        return sum(v != "." for row in instance.data["state"]["grid"] for v in row)

    def clue_features(self, instance: Instance) -> np.ndarray:
        st = instance.data["state"]
        return np.asarray([st["totals"][t] for t in MONSTERS] + [n for side in SIDES for n in st[side]], np.float32)

    def sketch(self, instance: Instance, grid: list[list]) -> Sketch:
        st, colour = instance.data["state"], {"G": "blue", "V": "red", "Z": "green", "\\": "given", "/": "given"}
        cells = sketch_cells([[m if m in MIRRORS else v for m, v in zip(*rows)] for rows in zip(st["grid"], grid)],
                             fill=lambda r, c, v: colour.get(v))
        return dataclasses.replace(cells, caption="  ".join(f"{k}: {st['totals'][k]}" for k in MONSTERS),
                                   **{side: [[str(n)] for n in st[side]] for side in SIDES})
