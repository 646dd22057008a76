"""Magnets (docs/specs/grid_puzzles.md §5 "Magnets"; Tatham's ``magnets``). Game IDs: ``codec.py``."""
from __future__ import annotations

import dataclasses
import functools

import numpy as np

from ....core.instance import Instance
from ....core.params import param
from ....solvers.engine import Encoding
from ....solvers.sat import Formula
from ..base import Check, GridParams, GridTask, presets, tatham_level
from ..geometry import random_tiling
from ..render import Sketch
from .claims import RULES as CLAIM_RULES
from .codec import COUNTS
from .deduce import accepted, deduced, lay, strip_counts
from .geometry import across, slot_pairs

PLUS, BLANK, MINUS = 1, 0, -1  # Tatham's solutions leave about a quarter of the cells blank:
BLANK_SHARE = 0.27
SEARCH_STEPS = 60  # local-search changes per layout at t with S before it is redrawn


@functools.lru_cache(maxsize=64)
def count_lines(H: int, W: int) -> tuple:
    """(state key, index, cells, sign) of every count clue, in the order of COUNTS (cached: read only)."""
    return tuple((key, i, [(r, i) for r in range(H)] if key.endswith("cols") else [(i, c) for c in range(W)], sign)
            for key, sign in zip(COUNTS, (PLUS, PLUS, MINUS, MINUS)) for i in range(W if key.endswith("cols") else H))


@dataclasses.dataclass(frozen=True)
class MagnetsParams(GridParams):
    W: int = param(6, lo=2, hi=30, doc="columns")
    H: int = param(5, lo=2, hi=30, doc="rows")
    tatham_difficulty: str = tatham_level("e", {"e": "easy", "t": "tricky"})
    strip: bool = param(False, doc="Tatham's 'S': hide the counts the puzzle does not need")


class MagnetsTask(GridTask):
    """Magnets: fill domino slots with magnets and blanks to meet the pole counts.

    ## Description
    The grid is cut into two-cell slots (and, on an odd grid, one single cell). Each slot holds a
    magnet, a + pole and a - pole in either order, or is blank; a single cell is blank. Two
    orthogonally adjacent cells never carry the same pole. The numbers around the grid count the
    + poles (top: per column, left: per row) and the - poles (bottom, right); a missing number
    is free (docs/specs/grid_puzzles.md §5, Tatham's *Magnets*).

    ## Answer
    H rows of W integers: ``1`` a + pole, ``-1`` a - pole, ``0`` blank. Any valid filling scores 1.

    ## Generation
    Our own generator (docs/specs/grid_puzzles.md §8): a random slot layout (domino tiling), magnets laid slot
    by slot in random order (a quarter blank, as in Tatham's, never two like poles side by side), every count
    shown; at ``e`` redrawn until failed-literal probing solves it (without ``S``, ``t`` prefers puzzles it does
    not). At ``t`` with ``S``, as Tatham's generator: slots that Magnets' own deduction (deduce.py:
    slot, neighbour and line-count rules) leaves open are laid again until it settles the grid, then counts are
    removed in random order while it still does (unique by deduction, no search). At ``e`` with ``S`` counts are
    removed while probing still solves it, random ones coming back while fewer than half remain.

    ## Interactive mode
    ``{"r": row, "c": col, "v": 1}`` (+), ``-1`` (-), ``0`` (blank), ``null`` clears; single cells are 0.
    """

    Params = MagnetsParams
    claim_rules = CLAIM_RULES
    difficulties = presets("W H tatham_difficulty strip",
                           (3, 2, "e", False), (6, 5, "e", False), (6, 5, "t", True), (10, 9, "t", True))
    rule_codes = """
        R1 each slot holds a magnet (1 and -1) or two blanks (0, 0); a single cell is 0
        R2 no two orthogonally adjacent cells are both 1 or both -1
        R3 the + counts (top per column, left per row) and - counts (bottom, right) match their clues
    """
    rules_prompt = """
        - "slots" cuts the grid into two-cell slots: "L" and "R" are the left and right cells of a horizontal slot,
          "T" and "B" the top and bottom cells of a vertical one; "*" is a single cell that belongs to no slot.
        - Each slot is either a magnet, one cell + (1) and the other - (-1) in either order, or empty, both cells 0. A
          single cell is always 0.
        - Two cells that share a side never hold the same pole: no 1 next to a 1, no -1 next to a -1.
        - plus_cols[c] is the number of 1s in column c and plus_rows[r] the number in row r; minus_cols and minus_rows
          count the -1s the same way. A null entry means that count is not given.
    """
    answer_prompt = "give every cell as an integer: 1 for a + pole, -1 for a - pole, 0 for an empty cell."
    symbols = frozenset({PLUS, BLANK, MINUS})
    state_keys = ("slots", *COUNTS)
    empty = None

    def shape(self, state: dict) -> tuple[int, int]:
        return len(state["slots"]), len(state["slots"][0])

    def cell_values(self, instance: Instance) -> tuple:
        return (PLUS, MINUS, BLANK)

    def givens(self, instance: Instance) -> dict:
        return {cell: BLANK for cell in slot_pairs(instance.data["state"]["slots"])[1]}

    def rule_checks(self, instance: Instance, grid: list[list]) -> list[Check]:
        st = instance.data["state"]
        H, W = self.dims(instance)
        pairs, singles, mate = slot_pairs(st["slots"])
        checks = [Check("R1", [a, b], (grid[a[0]][a[1]], grid[b[0]][b[1]]) in ((1, -1), (-1, 1), (0, 0))) for a, b in pairs]
        checks += [Check("R1", [s], grid[s[0]][s[1]] == BLANK) for s in singles]
        checks += [Check("R2", [x, y], grid[x[0]][x[1]] == BLANK or grid[x[0]][x[1]] != grid[y[0]][y[1]])
                   for x, y in across(H, W, mate)]
        return checks + [Check("R3", cells[:1], sum(grid[r][c] == sign for r, c in cells) == st[key][i])
                         for key, i, cells, sign in count_lines(H, W) if st[key][i] is not None]

    def encode(self, state: dict) -> Encoding:
        """One formula per grid size; the slot layout (one R1 clue) and the counts are assumptions."""
        H, W = self.shape(state)
        enc = self.layout((H, W), lambda: self._rules(H, W))
        slot, single = enc.extra["slot"], enc.extra["single"]
        pairs, singles = (set(x) for x in slot_pairs(state["slots"])[:2])
        lits = [v if ab in pairs else -v for ab, v in slot.items()] + [v if cell in singles else -v for cell, v in single.items()]
        eq = enc.extra["eq"]  # (key, i, count) -> the count clue, kept on the layout
        clues = {("layout",): ("R1", tuple(lits))}
        for key, i, _, _ in count_lines(H, W):
            if (v := state[key][i]) is not None:
                if (clue := eq.get((key, i, v))) is None:
                    clue = eq[key, i, v] = ("R3", tuple(enc.extra["count"][key, i].eq(v)))
                clues[key, i] = clue
        return enc.with_clues(clues)

    @staticmethod
    def _rules(H: int, W: int) -> Encoding:
        f = Formula()
        p, m = f.grid("plus", H, W), f.grid("minus", H, W)
        slot = {(a, b): f.var(("slot", *a, *b)) for a in np.ndindex(H, W) for b in ((a[0], a[1] + 1), (a[0] + 1, a[1]))
                if b[0] < H and b[1] < W}
        single = {cell: f.var(("single", *cell)) for cell in np.ndindex(H, W)}
        for cell in np.ndindex(H, W):  # a cell is not both; a single cell is blank
            f.add([-int(p[cell]), -int(m[cell])])
            f.add([-single[cell], -int(p[cell])], rule="R1")
            f.add([-single[cell], -int(m[cell])], rule="R1")
        for (a, b), t in slot.items():  # in a slot, + at one end exactly when - at the other
            for x, y in ((p[a], m[b]), (m[b], p[a]), (m[a], p[b]), (p[b], m[a])):
                f.add([-t, -int(x), int(y)], rule="R1")
        for (a, b), t in slot.items():  # neighbours in different slots: no like poles
            f.add([t, -int(p[a]), -int(p[b])], rule="R2")
            f.add([t, -int(m[a]), -int(m[b])], rule="R2")
        count = {(key, i): f.count([int((p if sign == PLUS else m)[cell]) for cell in cells])
                 for key, i, cells, sign in count_lines(H, W)}

        def decode(value: np.ndarray) -> list[list]:
            return np.where(value[p] > 0, PLUS, np.where(value[m] > 0, MINUS, BLANK)).tolist()

        return Encoding(f, np.concatenate([p.ravel(), m.ravel()]), decode, solver="glucose4",
                        extra={"count": count, "slot": slot, "single": single, "eq": {}})

    def sample(self, rng: np.random.Generator, params: dict) -> tuple[dict, list[list]]:
        W, H, level = params["W"], params["H"], params["tatham_difficulty"]
        for attempt in range(3000):
            slots = random_tiling(rng, H, W)
            sol = lay(rng, slots, BLANK_SHARE)
            if level == "t" and params["strip"]:  # deduction alone, as Tatham's generator
                d = deduced(rng, slots, sol, SEARCH_STEPS)
                if d is None:
                    continue
                state = {"slots": slots} | {key: [None if v < 0 else int(v) for v in counts[sl]] for key, counts, sl in
                                            zip(COUNTS, (d.tp, d.tp, d.tm, d.tm), (slice(H, None), slice(H)) * 2)}
                return state, np.select([d.mask == 1, d.mask == 2], [PLUS, MINUS], BLANK).reshape(H, W).tolist()
            poles = np.asarray(sol)  # the count of each sign in every row and column
            state = {"slots": slots} | {key: (poles == sign).sum(axis=0 if key.endswith("cols") else 1).tolist()
                                        for key, sign in zip(COUNTS, (PLUS, PLUS, MINUS, MINUS))}
            enc = self.encode(state)
            eng, every = enc.engine, enc.assumptions()
            value = self._values(enc, sol)
            if not accepted(eng, every, value, level, params["strip"], attempt):
                continue
            if params["strip"]:
                strip_counts(enc, state, rng, value)
            return state, sol
        raise RuntimeError(f"could not generate a {W}x{H} Magnets puzzle")

    @staticmethod
    def _values(enc: Encoding, sol: list[list[int]]) -> np.ndarray:
        """The solution's value array on the answer variables (the plus then the minus grid)."""
        value = np.zeros(enc.formula.n_vars + 1, np.int8)
        poles = np.asarray(sol)
        value[enc.answer] = np.where(np.concatenate([(poles == PLUS).ravel(), (poles == MINUS).ravel()]), 1, -1)
        return value

    def clue_count(self, instance: Instance) -> int:  # the counts shown
        return sum(v is not None for key in COUNTS for v in instance.data["state"][key])

    def clue_features(self, instance: Instance) -> np.ndarray:  # a hidden count is -1
        return np.asarray([-1 if v is None else v for key in COUNTS for v in instance.data["state"][key]], np.float32)

    def sketch(self, instance: Instance, grid: list[list]) -> Sketch:
        st = instance.data["state"]
        H, W = self.dims(instance)
        label = {PLUS: "+", MINUS: "-", BLANK: "x"}
        text = [["*" if st["slots"][r][c] == "*" else label.get(v, ".") for c, v in enumerate(row)] for r, row in enumerate(grid)]
        clue = lambda vals, sign: [["" if v is None else f"{sign}{v}"] for v in vals]  # "+2": two + poles
        return Sketch(H, W, text, [[{PLUS: "red", MINUS: "blue", BLANK: "grey"}.get(v) for v in row] for row in grid],
                      top=clue(st["plus_cols"], "+"), left=clue(st["plus_rows"], "+"), bottom=clue(st["minus_cols"], "-"),
                      right=clue(st["minus_rows"], "-"), walls=across(H, W, slot_pairs(st["slots"])[2]))
