"""Tents (docs/specs/grid_puzzles.md §5 "Tents"; Tatham's ``tents``). Game IDs: ``codec.py``."""
from __future__ import annotations

import dataclasses

import numpy as np

from ....core.instance import Instance
from ....solvers.engine import Encoding
from ....solvers.sat import Formula
from ..base import Check, GridParams, GridTask, presets, tatham_level
from ..geometry import neighbours4, neighbours8
from ..render import Sketch
from .claims import RULES as CLAIM_RULES
from .geometry import matching

TREE, TENT, GRASS = "T", "A", "."


@dataclasses.dataclass(frozen=True)
class TentsParams(GridParams.with_size(8, 4, 30)):
    tatham_difficulty: str = tatham_level("e", {"e": "easy", "t": "tricky"})


class TentsTask(GridTask):
    """Tents: put a tent beside every tree.

    ## Description
    A grid holds trees. Place tents so that every tree has its own tent orthogonally next to it
    (trees and tents pair off one to one), no two tents touch, even diagonally, and each row and
    column holds the number of tents written beside it (docs/specs/grid_puzzles.md §5, Tatham's *Tents*).

    ## Answer
    A JSON array of H rows of W strings: ``"T"`` for a tree (copied), ``"A"`` for a tent and
    ``"."`` for an empty cell. Any grid that satisfies the rules scores 1.

    ## Generation
    Our own generator (docs/specs/grid_puzzles.md §8): random non-touching tree-tent pairs at Tatham's density
    (one per five cells), every count shown, redrawn until unique: Easy (``e``) solved by failed-literal
    probing, Tricky not by propagation.

    ## Interactive mode
    One move per step, ``{"r": row, "c": col, "v": "A"}`` to pitch a tent, ``"."`` to clear it.
    Trees cannot be changed.
    """

    Params = TentsParams
    claim_rules = CLAIM_RULES
    difficulties = presets("W H tatham_difficulty", (4, 4, "e"), (6, 6, "e"), (8, 8, "e"), (15, 15, "e"))
    rule_codes = """
        R1 the given cells are kept: trees exactly where the puzzle has them (and an imported ID's given tents and
           non-tents)
        R2 no two tents touch, not even diagonally (every 2x2 window holds at most one tent)
        R3 each row and each column holds the number of tents given for it
        R4 trees and tents pair off one to one between orthogonal neighbours
    """
    rules_prompt = """
        - Some cells hold trees ("T"). Put tents in some of the other cells.
        - Trees and tents come in pairs: every tree is matched with exactly one tent directly above, below, left or
          right of it, and every tent with exactly one tree, so there are as many tents as trees. A tent may also
          happen to touch other trees.
        - No two tents may touch each other, not even at a corner.
        - The number of tents in each row equals that row's entry in row_counts (top to bottom), and the number in
          each column equals its entry in col_counts (left to right).
    """
    answer_prompt = """
        give every cell of the grid: "T" for a tree (copied from the puzzle), "A" for a tent, "." for an empty cell.
    """
    symbols = frozenset({TREE, TENT, GRASS})
    state_keys = ("grid", "col_counts", "row_counts")
    empty = GRASS
    given_symbols = frozenset({TREE})

    def givens(self, instance: Instance) -> dict:
        grid = instance.data["state"]["grid"]
        return {(r, c): TREE for r, row in enumerate(grid) for c, v in enumerate(row) if v == TREE}

    def rule_checks(self, instance: Instance, grid: list[list]) -> list[Check]:
        st = instance.data["state"]
        H, W = self.dims(instance)
        marks = {(r, c): v for r, c, v in st.get("marks", [])}
        wrong = [(r, c) for r in range(H) for c in range(W)
                 if (grid[r][c] == TREE) != (st["grid"][r][c] == TREE)
                 or (r, c) in marks and (grid[r][c] == TENT) != (marks[r, c] == TENT)]
        checks = [Check("R1", wrong, not wrong)]
        for r in range(H - 1):
            for c in range(W - 1):
                here = [x for x in ((r, c), (r, c + 1), (r + 1, c), (r + 1, c + 1)) if grid[x[0]][x[1]] == TENT]
                checks.append(Check("R2", here, len(here) <= 1))
        checks += [Check("R3", [(r, 0)], sum(v == TENT for v in grid[r]) == st["row_counts"][r]) for r in range(H)]
        checks += [Check("R3", [(0, c)], sum(grid[r][c] == TENT for r in range(H)) == st["col_counts"][c])
                   for c in range(W)]
        trees = [(r, c) for r in range(H) for c in range(W) if st["grid"][r][c] == TREE]
        tents = [(r, c) for r in range(H) for c in range(W) if grid[r][c] == TENT]
        tent_set = set(tents)
        match = matching(trees, lambda t: [n for n in neighbours4(*t, H, W) if n in tent_set])
        paired = set(match.values())
        lonely = [t for t in trees if t not in match] + [t for t in tents if t not in paired]
        return checks + [Check("R4", sorted(lonely), not lonely)]

    def encode(self, state: dict) -> Encoding:
        """One formula per grid size; the trees, the counts (counters) and imported marks are
        assumptions, so a layout costs one propagation call, never a formula build."""
        grid = state["grid"]
        H, W = len(grid), len(grid[0])
        enc = self.layout((H, W), lambda: self._rules(H, W))
        tree, tent, rows, cols = (enc.extra[k] for k in ("tree", "tent", "rows", "cols"))
        clues = {("tree", r, c): ("R1", (int(tree[r, c]) * (1 if v == TREE else -1),))
                 for r, row in enumerate(grid) for c, v in enumerate(row)}
        clues |= {("mark", r, c): ("R1", (int(tent[r, c]) * (1 if v == TENT else -1),)) for r, c, v in state.get("marks", [])}
        clues |= {("row", r): ("R3", tuple(rows[r].eq(k))) for r, k in enumerate(state["row_counts"])}
        clues |= {("col", c): ("R3", tuple(cols[c].eq(k))) for c, k in enumerate(state["col_counts"])}
        is_tree = np.array([[v == TREE for v in row] for row in grid])

        def decode(value: np.ndarray) -> list[list]:
            return np.where(is_tree, TREE, np.where(value[tent] > 0, TENT, GRASS)).tolist()

        return enc.with_clues(clues, decode=decode)

    @staticmethod
    def _rules(H: int, W: int) -> Encoding:
        """Tent and tree variables per cell; R4 through pairing variables (each tree exactly one
        tent partner, each tent exactly one tree), plus "every tree has a tent beside it" stated on
        the tent variables, the form of R4 that a near miss can break."""
        f = Formula()
        tent, tree = f.grid("tent", H, W), f.grid("tree", H, W)
        for (r, c), t in np.ndenumerate(tent):
            f.add([-int(tree[r, c]), -int(t)], rule="R1")
        for r in range(H - 1):
            for c in range(W - 1):
                f.at_most(tent[r:r + 2, c:c + 2].ravel().tolist(), 1, rule="R2")
        pair = {(a, b): f.var(("pair", a, b)) for a in np.ndindex(H, W) for b in neighbours4(*a, H, W)}
        for (a, b), p in pair.items():
            f.extend([[-p, int(tree[a])], [-p, int(tent[b])]])
        for a in np.ndindex(H, W):
            out = [pair[a, b] for b in neighbours4(*a, H, W)]
            into = [pair[b, a] for b in neighbours4(*a, H, W)]
            f.add([-int(tree[a])] + out, rule="R4")
            f.add([-int(tree[a])] + [int(tent[b]) for b in neighbours4(*a, H, W)], rule="R4")
            f.add([-int(tent[a])] + into, rule="R4")
            f.at_most(out, 1)
            f.at_most(into, 1)
        rows, cols = [f.count(tent[r].tolist()) for r in range(H)], [f.count(tent[:, c].tolist()) for c in range(W)]
        return Encoding(f, tent.ravel(), None, extra={"tent": tent, "tree": tree, "rows": rows, "cols": cols})

    def sample(self, rng: np.random.Generator, params: dict) -> tuple[dict, list[list]]:
        """Random layouts until one meets the target: Easy grade <= 1 (probing solves it, which
        proves uniqueness), Tricky unique with grade >= 1 (after 60 tries, any unique one)."""
        W, H, easy = params["W"], params["H"], params["tatham_difficulty"] == "e"
        first = None
        for attempt in range(2000):
            sol = self._random_layout(rng, W, H, W * H // 5)
            if sol is None:
                continue
            state = {"grid": [[TREE if v == TREE else GRASS for v in row] for row in sol],
                     "col_counts": [sum(sol[r][c] == TENT for r in range(H)) for c in range(W)],
                     "row_counts": [sum(v == TENT for v in row) for row in sol]}
            enc = self.encode(state)
            eng, lits = enc.engine, enc.assumptions()
            g = eng.grade(lits)
            unique = g <= 1 or not easy and len(eng.models(lits, 2)) == 1
            if unique and (g <= 1 if easy else g >= 1):
                return state, sol
            first = first or (state, sol) if unique else first
            if first and attempt >= 60:
                return first
        raise RuntimeError(f"could not generate a {W}x{H} Tents puzzle")

    @staticmethod
    def _random_layout(rng, W: int, H: int, n_pairs: int) -> list[list] | None:
        grid, placed = [[GRASS] * W for _ in range(H)], 0
        for r, c in (divmod(int(i), W) for i in rng.permutation(W * H)):
            spots = [(a, b) for a, b in neighbours4(r, c, H, W) if grid[a][b] == GRASS]
            if placed < n_pairs and grid[r][c] == GRASS and spots and \
                    all(grid[a][b] != TENT for a, b in neighbours8(r, c, H, W)):
                a, b = spots[int(rng.integers(len(spots)))]
                grid[r][c], grid[a][b], placed = TENT, TREE, placed + 1
        return grid if placed == n_pairs else None

    def sketch(self, instance: Instance, grid: list[list]) -> Sketch:
        st = instance.data["state"]
        return Sketch(len(grid), len(grid[0]), [list(row) for row in grid],
                      [[{TREE: "green", TENT: "orange"}.get(v) for v in row] for row in grid],
                      top=[[str(n)] for n in st["col_counts"]], left=[[str(n)] for n in st["row_counts"]])

    def clue_count(self, instance: Instance) -> int:
        return len(self.givens(instance))  # the trees (every count is always shown)

    def clue_features(self, instance: Instance) -> np.ndarray:
        st = instance.data["state"]
        return np.asarray(st["col_counts"] + st["row_counts"], np.float32)
