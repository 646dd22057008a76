"""Tents (grid_puzzles.md §5 "Tents"; Tatham's ``tents``). Game IDs: ``tatham/tents.py``."""
from __future__ import annotations

import dataclasses
from typing import ClassVar

import numpy as np

from ...core.instance import Instance
from ...core.params import param
from ...solvers.engine import Encoding
from ...solvers.sat import Formula
from .base import Check, GridParams, GridTask
from .geometry import matching, neighbours4, neighbours8
from .render import Sketch

TREE, TENT, GRASS = "T", "A", "."


@dataclasses.dataclass(frozen=True)
class TentsParams(GridParams):
    W: int = param(8, lo=4, hi=30, doc="columns")
    H: int = param(None, kind=int, lo=4, hi=30, doc="rows (default: W)")
    tatham_difficulty: str = param("e", choices=("e", "t"), doc="Tatham's level: e easy, t tricky")


class TentsTask(GridTask):
    """Tents: put a tent beside every tree.

    ## Description
    A grid holds trees. Place tents so that every tree has its own tent orthogonally next to it
    (trees and tents pair off one to one), no two tents touch, even diagonally, and each row and
    column holds the number of tents written beside it (grid_puzzles.md §5, Tatham's *Tents*).

    ## Answer
    A JSON array of H rows of W strings: ``"T"`` for a tree (copied), ``"A"`` for a tent and
    ``"."`` for an empty cell. Any grid that satisfies the rules scores 1.

    ## Generation
    §8: random non-touching tree-tent pairs at Tatham's density (one pair per five cells), all
    counts shown, redrawn until SAT certifies one solution; Easy (``e``) puzzles must be solved by
    failed-literal probing (grade <= 1), Tricky (``t``) ones need more than unit propagation.

    ## Interactive mode
    One move per step, ``{"r": row, "c": col, "v": "A"}`` to pitch a tent, ``"."`` to clear it.
    Trees cannot be changed.
    """

    family = "tents"
    title = "Tents"
    Params = TentsParams
    difficulties: ClassVar[dict] = {
        "trivial": {"W": 4, "H": 4, "tatham_difficulty": "e"},
        "easy": {"W": 6, "H": 6, "tatham_difficulty": "e"},
        "normal": {"W": 8, "H": 8, "tatham_difficulty": "e"},
        "hard": {"W": 15, "H": 15, "tatham_difficulty": "e"},
    }
    rule_codes: ClassVar[dict] = {
        "tents.R1": "the given cells are kept: trees exactly where the puzzle has them (and an imported "
                    "ID's given tents and non-tents)",
        "tents.R2": "no two tents touch, not even diagonally (every 2x2 window holds at most one tent)",
        "tents.R3": "each row and each column holds the number of tents given for it",
        "tents.R4": "trees and tents pair off one to one between orthogonal neighbours",
    }
    symbols = frozenset({TREE, TENT, GRASS})
    state_keys = ("grid", "col_counts", "row_counts")
    empty = GRASS

    # ---- rules ----------------------------------------------------------------------------
    def move_values(self, instance: Instance) -> tuple:
        return (GRASS, TENT)

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

    # ---- SAT --------------------------------------------------------------------------------
    def encode(self, state: dict) -> Encoding:
        """Tent variables per cell; R4 through pairing variables (each tree exactly one tent
        partner, each tent exactly one tree), plus "every tree has a tent beside it" stated on the
        tent variables, the form of R4 that a near miss can break."""
        grid = state["grid"]
        H, W = len(grid), len(grid[0])
        f = Formula()
        tent = f.grid("tent", H, W)
        trees = [(r, c) for r in range(H) for c in range(W) if grid[r][c] == TREE]
        for r, c in trees:
            f.add([-int(tent[r, c])], rule="R1")
        for r, c, v in state.get("marks", []):
            f.add([int(tent[r, c]) if v == TENT else -int(tent[r, c])], rule="R1")
        for r in range(H - 1):
            for c in range(W - 1):
                f.at_most(tent[r:r + 2, c:c + 2].ravel().tolist(), 1, rule="R2")
        for r in range(H):
            f.exactly(tent[r].tolist(), state["row_counts"][r], rule="R3")
        for c in range(W):
            f.exactly(tent[:, c].tolist(), state["col_counts"][c], rule="R3")
        partners: dict = {}
        for r, c in trees:
            options = []
            for a, b in neighbours4(r, c, H, W):
                if grid[a][b] != TREE:
                    p = f.var(("pair", r, c, a, b))
                    f.add([-p, int(tent[a, b])])
                    options.append(p)
                    partners.setdefault((a, b), []).append(p)
            f.exactly_one(options, rule="R4")
            f.add([int(tent[a, b]) for a, b in neighbours4(r, c, H, W) if grid[a][b] != TREE], rule="R4")
        for r in range(H):
            for c in range(W):
                if grid[r][c] != TREE:
                    f.add([-int(tent[r, c])] + partners.get((r, c), []), rule="R4")
                    f.at_most(partners.get((r, c), []), 1)

        def decode(value: np.ndarray) -> list[list]:
            on = value[tent] > 0
            return [[TREE if grid[r][c] == TREE else TENT if on[r, c] else GRASS for c in range(W)] for r in range(H)]

        return Encoding(f, tent.ravel(), decode, extra={"tent": tent})

    # ---- generator (§8: random non-touching tree-tent pairs, all counts kept) ----------------
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
            eng = self.encode(state).engine
            g = eng.grade([])
            if easy and g <= 1 or not easy and g >= 1 and len(eng.models([], 2)) == 1:
                return state, sol
            if not easy and first is None and len(eng.models([], 2)) == 1:
                first = (state, sol)
            if first and attempt >= 60:
                return first
        raise RuntimeError(f"could not generate a {W}x{H} Tents puzzle")

    @staticmethod
    def _random_layout(rng, W: int, H: int, n_pairs: int) -> list[list] | None:
        grid = [[GRASS] * W for _ in range(H)]
        placed = 0
        for idx in rng.permutation(W * H):
            if placed == n_pairs:
                break
            r, c = divmod(int(idx), W)
            if grid[r][c] != GRASS or any(grid[a][b] == TENT for a, b in neighbours8(r, c, H, W)):
                continue
            spots = [(a, b) for a, b in neighbours4(r, c, H, W) if grid[a][b] == GRASS]
            if spots:
                a, b = spots[int(rng.integers(len(spots)))]
                grid[r][c], grid[a][b] = TENT, TREE
                placed += 1
        return grid if placed == n_pairs else None

    # ---- text and picture -------------------------------------------------------------------
    def rules_text(self, instance: Instance) -> str:
        return ("- Some cells hold trees (\"T\"). Put tents in some of the other cells.\n"
                "- Trees and tents come in pairs: every tree is matched with exactly one tent directly above, "
                "below, left or right of it, and every tent with exactly one tree, so there are as many tents as "
                "trees. A tent may also happen to touch other trees.\n"
                "- No two tents may touch each other, not even at a corner.\n"
                "- The number of tents in each row equals that row's entry in row_counts (top to bottom), and "
                "the number in each column equals its entry in col_counts (left to right).")

    def answer_text(self, instance: Instance) -> str:
        return ('give every cell of the grid: "T" for a tree (copied from the puzzle), "A" for a tent, '
                '"." for an empty cell.')

    def sketch(self, instance: Instance, grid: list[list]) -> Sketch:
        st = instance.data["state"]
        colour = {TREE: "green", TENT: "orange"}
        return Sketch(len(grid), len(grid[0]), [[v for v in row] for row in grid],
                      [[colour.get(v) for v in row] for row in grid],
                      top=[[str(n)] for n in st["col_counts"]], left=[[str(n)] for n in st["row_counts"]])

    def clue_features(self, instance: Instance) -> np.ndarray:
        st = instance.data["state"]
        return np.asarray(st["col_counts"] + st["row_counts"], np.float32)
