"""Tents (grid_puzzles.md §5 "Tents"; Tatham's ``tents``)."""
from __future__ import annotations

from typing import ClassVar

import numpy as np

from ...core.errors import ConfigError, check_choice, check_int
from ...core.instance import Instance
from ...solvers.sat import Formula, UniquenessOracle, grade
from .base import Check, Encoding, GridTask, neighbours4, neighbours8
from .tatham import read_size

TREE, TENT, GRASS = "T", "A", "."
LEVELS = {"e": "Easy", "t": "Tricky"}


def tree_tent_matching(trees: list, tents: list) -> dict:
    """A maximum matching tree -> tent over orthogonal adjacency (augmenting paths)."""
    tent_set = set(tents)
    adj = {t: [n for n in ((t[0] - 1, t[1]), (t[0], t[1] + 1), (t[0] + 1, t[1]), (t[0], t[1] - 1)) if n in tent_set]
           for t in trees}
    owner: dict = {}

    def augment(tree, seen):
        for tent in adj[tree]:
            if tent in seen:
                continue
            seen.add(tent)
            if tent not in owner or augment(owner[tent], seen):
                owner[tent] = tree
                return True
        return False

    for tree in trees:
        augment(tree, set())
    return {tree: tent for tent, tree in owner.items()}


class TentsTask(GridTask):
    """Tents: put a tent beside every tree.

    ## Description
    A grid holds trees. Place tents so that every tree has its own tent orthogonally next to it
    (trees and tents pair off one to one), no two tents touch, even diagonally, and each row and
    column holds the number of tents written beside it (grid_puzzles.md §5, Tatham's *Tents*).

    ## Answer
    A JSON array of H rows of W strings: ``"T"`` for a tree (copied), ``"A"`` for a tent and
    ``"."`` for an empty cell. Any grid that satisfies the rules scores 1.

    ## Presets
    ``trivial`` 4x4de, ``easy`` 6x6de, ``normal`` 8x8de, ``hard`` 15x15de (the paper's Table 7).
    Explicit sizes: ``W``, ``H`` (4..30) and ``tatham_difficulty`` (``e`` easy, ``t`` tricky).

    ## Interactive mode
    One move per step, ``{"r": row, "c": col, "v": "A"}`` to pitch a tent, ``"."`` to clear it.
    Trees cannot be changed.

    ## Rule codes
    R1 trees exactly at the given cells; R2 no two tents touch (every 2x2 window holds at most one
    tent); R3 row and column tent counts; R4 trees and tents pair off one to one between
    orthogonal neighbours.
    """

    family = "tents"
    title = "Tents"
    difficulties: ClassVar[dict] = {
        "trivial": {"W": 4, "H": 4, "tatham_difficulty": "e"},
        "easy": {"W": 6, "H": 6, "tatham_difficulty": "e"},
        "normal": {"W": 8, "H": 8, "tatham_difficulty": "e"},
        "hard": {"W": 15, "H": 15, "tatham_difficulty": "e"},
    }
    param_names = ("W", "H", "tatham_difficulty", "backend")
    symbols = frozenset({TREE, TENT, GRASS})
    state_keys = ("grid", "col_counts", "row_counts")
    empty = GRASS

    # ---- parameters -----------------------------------------------------------------------
    def validate_params(self, params: dict) -> dict:
        p = dict(params)
        p["W"] = check_int("W", p.get("W", 8), 4, 30)
        p["H"] = check_int("H", p.get("H", p["W"]), 4, 30)
        p["tatham_difficulty"] = p.get("tatham_difficulty", "e")
        check_choice("tatham_difficulty", p["tatham_difficulty"], list(LEVELS))
        return p

    def encode_params(self, params: dict, full: bool = True) -> str:
        s = f"{params['W']}x{params['H']}"
        return s + f"d{params.get('tatham_difficulty', 'e')}" if full else s

    def decode_params(self, s: str) -> dict:
        W, H, rest = read_size(s)
        p = {"W": W, "H": H}
        if rest:
            if len(rest) != 2 or rest[0] != "d":
                raise ConfigError(f"Tents parameter string {s!r} is not WxH or WxHd<e|t>")
            check_choice("Tents difficulty letter", rest[1], list(LEVELS))
            p["tatham_difficulty"] = rest[1]
        return p

    # ---- Tatham description (§5 "Tents" ID) -----------------------------------------------
    def decode_game_id(self, params: dict, desc: str) -> dict:
        W, H = params["W"], params["H"]
        area = W * H
        if "," not in desc:
            raise ConfigError("a Tents description needs the tree map, then ',' and the counts")
        tree_map, _, counts = desc.partition(",")
        grid = [GRASS] * area
        marks: dict[int, str] = {}
        i = 0
        for ch in tree_map:
            if ch == "_" or "a" <= ch <= "y":
                i += 0 if ch == "_" else ord(ch) - ord("a") + 1
                if i < area:
                    grid[i] = TREE
                elif i > area:
                    raise ConfigError("the Tents tree map runs past the grid")
                i += 1
            elif ch == "z":
                i += 25
            elif ch in "!-":
                # a given tent / non-tent for the cell just before the current position
                if i == 0 or i > area or grid[i - 1] == TREE:
                    raise ConfigError(f"misplaced {ch!r} in the Tents tree map")
                marks[i - 1] = TENT if ch == "!" else "-"
            else:
                raise ConfigError(f"unexpected character {ch!r} in the Tents tree map")
        if i != area + 1:
            raise ConfigError(f"the Tents tree map covers {i - 1} cells, expected {area}")
        nums = counts.split(",")
        if len(nums) != W + H or not all(n.isdigit() for n in nums):
            raise ConfigError(f"a {W}x{H} Tents description needs {W + H} counts, got {counts[:40]!r}")
        vals = [int(n) for n in nums]
        state = {"grid": [grid[r * W:(r + 1) * W] for r in range(H)], "col_counts": vals[:W], "row_counts": vals[W:]}
        if marks:
            state["marks"] = [[k // W, k % W, v] for k, v in sorted(marks.items())]
        return state

    def encode_desc(self, instance: Instance) -> str:
        st = instance.data["state"]
        if st.get("marks"):
            # Tatham never generates given tents; we read them but do not write them back
            raise ConfigError("Tents instances with given tents or non-tents cannot be exported as game IDs")
        flat = [v for row in st["grid"] for v in row] + [TREE]  # the sentinel tree at index W*H
        out = []
        run = 0
        for v in flat:
            if v == TREE:
                out.append("_" if run == 0 else chr(ord("a") + run - 1))
                run = 0
            else:
                run += 1
                if run == 26:
                    # "z" stands for 25 empty cells with no tree; a run of exactly 25 before a tree is "y"
                    out.append("z")
                    run = 1
        counts = st["col_counts"] + st["row_counts"]
        return "".join(out) + "," + ",".join(map(str, counts))

    # ---- generator (§8: random non-touching tree-tent pairs, all counts kept) ----------------
    def sample(self, rng: np.random.Generator, params: dict) -> tuple[dict, list[list]]:
        """Random layouts until one is unique and meets the grade target of §8.

        Easy (``e``, Tatham's lowest level): grade <= 1. Tricky (``t``): grade >= 1 preferred,
        i.e. unit propagation alone must not finish it; after 60 unique layouts miss the
        target, the first unique one is used.
        """
        W, H = params["W"], params["H"]
        easy = params["tatham_difficulty"] == "e"
        n_pairs = W * H // 5  # Tatham's density
        first = None
        unique_seen = 0
        for _ in range(2000):
            sol = self._random_layout(rng, W, H, n_pairs)
            if sol is None:
                continue
            state = self._clues(sol)
            enc = self.encode(Instance(self.family, {"W": W, "H": H, "state": state}))
            truth = [v if self._is_tent(enc, v, sol) else -v for v in enc.answer_vars]
            with UniquenessOracle(enc.formula.clauses, enc.answer_vars, truth) as oracle:
                if not oracle.unique([]):
                    continue
            g = grade(enc.formula.clauses, enc.answer_vars)
            if (g <= 1) if easy else (g >= 1):
                return state, sol
            first = first or (state, sol)
            unique_seen += 1
            if unique_seen >= 60:
                break
        if first is None:
            raise ConfigError(f"could not generate a unique {W}x{H} Tents puzzle")
        return first

    @staticmethod
    def _is_tent(enc: Encoding, var: int, sol: list[list]) -> bool:
        r, c = enc.extra["cell_of"][var]
        return sol[r][c] == TENT

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
            if not spots:
                continue
            a, b = spots[int(rng.integers(len(spots)))]
            grid[r][c] = TENT
            grid[a][b] = TREE
            placed += 1
        return grid if placed == n_pairs else None

    @staticmethod
    def _clues(sol: list[list]) -> dict:
        H, W = len(sol), len(sol[0])
        return {"grid": [[TREE if v == TREE else GRASS for v in row] for row in sol],
                "col_counts": [sum(sol[r][c] == TENT for r in range(H)) for c in range(W)],
                "row_counts": [sum(v == TENT for v in row) for row in sol]}

    # ---- SAT encoding ---------------------------------------------------------------------
    def encode(self, instance: Instance) -> Encoding:
        st = instance.data["state"]
        H, W = self.dims(instance)
        grid = st["grid"]
        f = Formula()
        tent = {(r, c): f.var(("tent", r, c)) for r in range(H) for c in range(W)}
        for (r, c), v in tent.items():
            if grid[r][c] == TREE:
                f.add([-v])  # R1
        for r in range(H - 1):  # R2: at most one tent in every 2x2 window
            for c in range(W - 1):
                f.at_most([tent[r, c], tent[r, c + 1], tent[r + 1, c], tent[r + 1, c + 1]], 1)
        for r in range(H):  # R3
            f.exactly([tent[r, c] for c in range(W)], st["row_counts"][r])
        for c in range(W):
            f.exactly([tent[r, c] for r in range(H)], st["col_counts"][c])
        # R4: pairing variables; each tree takes exactly one neighbouring tent, each tent exactly one tree
        pairs_of_cell: dict = {cell: [] for cell in tent}
        for r in range(H):
            for c in range(W):
                if grid[r][c] != TREE:
                    continue
                options = []
                for a, b in neighbours4(r, c, H, W):
                    if grid[a][b] == TREE:
                        continue
                    p = f.var(("pair", r, c, a, b))
                    f.add([-p, tent[a, b]])
                    options.append(p)
                    pairs_of_cell[a, b].append(p)
                f.exactly_one(options)
        for cell, ps in pairs_of_cell.items():
            if grid[cell[0]][cell[1]] == TREE:
                continue
            f.add([-tent[cell]] + ps)
            f.at_most(ps, 1)
        for r, c, v in st.get("marks", []):
            f.add([tent[r, c]] if v == TENT else [-tent[r, c]])
        answer = [tent[r, c] for r in range(H) for c in range(W)]
        cell_of = {v: k for k, v in tent.items()}

        def decode(true: set[int]) -> list[list]:
            return [[TREE if grid[r][c] == TREE else (TENT if tent[r, c] in true else GRASS) for c in range(W)]
                    for r in range(H)]

        return Encoding(f, answer, decode, {"cell_of": cell_of, "tent": tent})

    # ---- verification ---------------------------------------------------------------------
    def cell_values(self, instance: Instance) -> tuple:
        return (GRASS, TENT, TREE)

    def move_values(self, instance: Instance) -> tuple:
        return (GRASS, TENT)

    def givens(self, instance: Instance) -> dict:
        grid = instance.data["state"]["grid"]
        return {(r, c): TREE for r, row in enumerate(grid) for c, v in enumerate(row) if v == TREE}

    def rule_checks(self, instance: Instance, grid: list[list]) -> list[Check]:
        st = instance.data["state"]
        H, W = self.dims(instance)
        checks = []
        wrong_trees = [(r, c) for r in range(H) for c in range(W) if (grid[r][c] == TREE) != (st["grid"][r][c] == TREE)]
        checks.append(Check("R1", wrong_trees, not wrong_trees))
        for r in range(H - 1):
            for c in range(W - 1):
                window = [(r, c), (r, c + 1), (r + 1, c), (r + 1, c + 1)]
                here = [x for x in window if grid[x[0]][x[1]] == TENT]
                checks.append(Check("R2", here, len(here) <= 1))
        for r in range(H):
            row = [(r, c) for c in range(W) if grid[r][c] == TENT]
            checks.append(Check("R3", row or [(r, 0)], len(row) == st["row_counts"][r]))
        for c in range(W):
            col = [(r, c) for r in range(H) if grid[r][c] == TENT]
            checks.append(Check("R3", col or [(0, c)], len(col) == st["col_counts"][c]))
        trees = [(r, c) for r in range(H) for c in range(W) if st["grid"][r][c] == TREE]
        tents = [(r, c) for r in range(H) for c in range(W) if grid[r][c] == TENT]
        match = tree_tent_matching(trees, tents)
        matched_tents = set(match.values())
        lonely = [t for t in trees if t not in match] + [t for t in tents if t not in matched_tents]
        checks.append(Check("R4", sorted(lonely), not lonely))
        for r, c, v in st.get("marks", []):
            ok = (grid[r][c] == TENT) == (v == TENT)
            checks.append(Check("R5", [(r, c)], ok))
        return checks

    # ---- text -----------------------------------------------------------------------------
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

    def draw(self, instance: Instance, grid: list[list]) -> str:
        st = instance.data["state"]
        H, W = self.dims(instance)
        lines = ["     " + " ".join(f"{n:>2}" for n in st["col_counts"])]
        for r in range(H):
            cells = " ".join(f"{grid[r][c]:>2}" for c in range(W))
            lines.append(f"{st['row_counts'][r]:>3}  {cells}")
        return "\n".join(lines)

    def clue_features(self, instance: Instance) -> np.ndarray:
        st = instance.data["state"]
        return np.asarray(st["col_counts"] + st["row_counts"], np.float32)

    # ---- AUXINFO (§4: "S;T{c},{r}...") ----------------------------------------------------
    def aux_solution(self, instance: Instance, aux: str) -> list[list]:
        grid = [[TREE if v == TREE else GRASS for v in row] for row in instance.data["state"]["grid"]]
        for part in aux.split(";")[1:]:
            if part.startswith("T"):
                c, r = (int(x) for x in part[1:].split(","))
                grid[r][c] = TENT
        return grid
