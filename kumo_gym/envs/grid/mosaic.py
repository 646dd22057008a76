"""Mosaic (grid_puzzles.md §5 "Mosaic"; Tatham's ``mosaic``)."""
from __future__ import annotations

import re
from typing import ClassVar

import numpy as np

from ...core.errors import ConfigError, check_choice, check_int
from ...core.instance import Instance
from ...solvers.sat import Formula, Propagator, UniquenessOracle, grade
from .base import Check, Encoding, GridTask, neighbours8, reduce_clues
from .tatham import decode_chargrid, encode_chargrid

BLACK, WHITE, EMPTY = 1, 2, 0
NO_CLUE = -1
DIGITS = "0123456789"


def block(r: int, c: int, H: int, W: int) -> list[tuple[int, int]]:
    """The cells a clue at (r, c) counts: itself and its up to eight neighbours, row-major."""
    return sorted([(r, c), *neighbours8(r, c, H, W)])


class MosaicTask(GridTask):
    """Mosaic: colour cells so every number counts the black cells around it.

    ## Description
    Some cells hold a number 0-9. Colour every cell black or white so that each number equals
    the number of black cells in the 3x3 block centred on it (the numbered cell included; cells
    outside the grid do not count). grid_puzzles.md §5, Tatham's *Mosaic*.

    ## Answer
    A JSON array of H rows of W integers: ``1`` black, ``2`` white (the paper's symbols). Any
    colouring that meets every clue scores 1.

    ## Presets
    ``trivial`` 3x3, ``easy`` 5x5, ``normal`` 10x10, ``hard`` 25x25 (the paper's Table 7).
    Explicit sizes: ``W``, ``H`` (3..50) and ``aggressive`` (Tatham's ``h``; True by default:
    clues are reduced to a minimal set; False keeps a clue whenever dropping it would need more
    than failed-literal probing, grade <= 1).

    Generation (§8): a random black/white image, a clue on every cell, then clues removed in a
    seeded random order while SAT certifies the image stays the only solution.

    ## Interactive mode
    ``{"r": row, "c": col, "v": 1}`` paints black, ``2`` white, ``0`` clears.

    ## Rule codes
    R1 each clue equals the number of black cells in its 3x3 block.
    """

    family = "mosaic"
    title = "Mosaic"
    difficulties: ClassVar[dict] = {
        "trivial": {"W": 3, "H": 3, "aggressive": True},
        "easy": {"W": 5, "H": 5, "aggressive": True},
        "normal": {"W": 10, "H": 10, "aggressive": True},
        "hard": {"W": 25, "H": 25, "aggressive": True},
    }
    param_names = ("W", "H", "aggressive", "backend")
    symbols = frozenset({BLACK, WHITE})
    state_keys = ("grid",)
    empty = EMPTY

    # ---- parameters -----------------------------------------------------------------------
    def validate_params(self, params: dict) -> dict:
        p = dict(params)
        p["W"] = check_int("W", p.get("W", 5), 3, 50)
        p["H"] = check_int("H", p.get("H", p["W"]), 3, 50)
        p["aggressive"] = p.get("aggressive", True)
        check_choice("aggressive", p["aggressive"], [True, False])
        return p

    def encode_params(self, params: dict, full: bool = True) -> str:
        s = f"{params['W']}x{params['H']}"
        # Tatham writes h0 only when aggressive reduction is off (h1 is the default)
        return s + ("h0" if full and not params.get("aggressive", True) else "")

    def decode_params(self, s: str) -> dict:
        m = re.fullmatch(r"(\d{1,3})(?:x(\d{1,3}))?(?:h([01]))?", s.strip())
        if not m:
            raise ConfigError(f"Mosaic parameter string {s!r} is not WxH or WxHh<0|1>")
        W = check_int("Mosaic width", int(m.group(1)), 3, 50)
        H = check_int("Mosaic height", int(m.group(2) or m.group(1)), 3, 50)
        p = {"W": W, "H": H}
        if m.group(3):
            p["aggressive"] = m.group(3) == "1"
        return p

    # ---- Tatham description: CHARGRID of digits --------------------------------------------
    def decode_game_id(self, params: dict, desc: str) -> dict:
        W, H = params["W"], params["H"]
        cells = decode_chargrid(desc, W * H, DIGITS)
        vals = [NO_CLUE if ch == "." else int(ch) for ch in cells]
        for i, v in enumerate(vals):
            r, c = divmod(i, W)
            if v > len(block(r, c, H, W)):
                raise ConfigError(f"Mosaic clue {v} at ({r}, {c}) exceeds the {len(block(r, c, H, W))} cells it counts")
        return {"grid": [vals[r * W:(r + 1) * W] for r in range(H)]}

    def encode_desc(self, instance: Instance) -> str:
        return encode_chargrid(["." if v < 0 else str(v) for row in instance.data["state"]["grid"] for v in row])

    # ---- SAT ------------------------------------------------------------------------------
    @staticmethod
    def _encode(H: int, W: int, clues: dict, guarded: bool = False):
        f = Formula()
        x = {(r, c): f.var(("black", r, c)) for r in range(H) for c in range(W)}
        sel = {}
        for (r, c), k in sorted(clues.items()):
            if guarded:
                sel[r, c] = f.var(("clue", r, c))
            f.exactly([x[cell] for cell in block(r, c, H, W)], k, guard=sel.get((r, c)))
        return f, x, sel

    def encode(self, instance: Instance) -> Encoding:
        H, W = self.dims(instance)
        grid = instance.data["state"]["grid"]
        clues = {(r, c): v for r in range(H) for c in range(W) if (v := grid[r][c]) >= 0}
        f, x, _ = self._encode(H, W, clues)

        def decode(true: set[int]) -> list[list]:
            return [[BLACK if x[r, c] in true else WHITE for c in range(W)] for r in range(H)]

        return Encoding(f, [x[k] for k in sorted(x)], decode, {"x": x})

    # ---- generator ------------------------------------------------------------------------
    def sample(self, rng: np.random.Generator, params: dict) -> tuple[dict, list[list]]:
        W, H = params["W"], params["H"]
        for _attempt in range(200):
            img = (rng.random((H, W)) < 0.5).tolist()
            sol = [[BLACK if b else WHITE for b in row] for row in img]
            full = {(r, c): sum(sol[a][b] == BLACK for a, b in block(r, c, H, W)) for r in range(H) for c in range(W)}
            f, x, sel = self._encode(H, W, full, guarded=True)
            answer = [x[k] for k in sorted(x)]
            model = [x[k] if sol[k[0]][k[1]] == BLACK else -x[k] for k in sorted(x)]
            groups = [[sel[k]] for k in sorted(sel)]
            with UniquenessOracle(f.clauses, answer, model) as oracle:
                if not oracle.unique([g[0] for g in groups]):
                    continue  # a few images are ambiguous even with every clue shown
                prop = Propagator(f.clauses)
                try:
                    def unique(lits, pr=prop, av=answer, orc=oracle):
                        # when unit propagation alone fixes every cell, the clues force the known
                        # image and no SAT call is needed (most removals early in the reduction)
                        known = pr.propagate(lits)
                        if known is not None and all(v in known or -v in known for v in av):
                            return True
                        return orc.unique(lits)

                    if params["aggressive"]:
                        kept = reduce_clues(unique, groups, rng)
                    else:
                        kept = reduce_clues(unique, groups, rng,
                                            acceptable=lambda lits, cl=f.clauses, av=answer, pr=prop:
                                            grade(cl, av, lits, pr) <= 1)
                finally:
                    prop.close()
            on = {g[0] for g in kept}
            grid = [[full[r, c] if sel[r, c] in on else NO_CLUE for c in range(W)] for r in range(H)]
            return {"grid": grid}, sol
        raise ConfigError(f"could not generate a unique {W}x{H} Mosaic puzzle")

    # ---- rules ----------------------------------------------------------------------------
    def cell_values(self, instance: Instance) -> tuple:
        return (BLACK, WHITE)

    def rule_checks(self, instance: Instance, grid: list[list]) -> list[Check]:
        H, W = self.dims(instance)
        clues = instance.data["state"]["grid"]
        checks = []
        for r in range(H):
            for c in range(W):
                k = clues[r][c]
                if k >= 0:
                    cells = block(r, c, H, W)
                    checks.append(Check("R1", cells, sum(grid[a][b] == BLACK for a, b in cells) == k))
        return checks

    def clue_count(self, instance: Instance) -> int:
        return sum(v >= 0 for row in instance.data["state"]["grid"] for v in row)

    def clue_features(self, instance: Instance) -> np.ndarray:
        """Per cell: clue + 1, so 0 means no clue (the structured view wants non-negative numbers)."""
        return np.asarray([v + 1 for row in instance.data["state"]["grid"] for v in row], np.float32)

    # ---- text -----------------------------------------------------------------------------
    def rules_text(self, instance: Instance) -> str:
        return ("- Colour every cell of the grid either black or white.\n"
                "- In the state's grid, a number 0 to 9 is a clue and -1 means no clue. A clue counts the black "
                "cells in the 3x3 square centred on its own cell: the clue cell itself and the up to eight cells "
                "touching it, including diagonally. Cells beyond the edge of the grid do not exist and count "
                "nothing, so a corner clue looks at 4 cells and an edge clue at 6.\n"
                "- Every clue must equal that count exactly. Cells without a clue may be either colour as long "
                "as all clues hold.")

    def answer_text(self, instance: Instance) -> str:
        return "give the colour of every cell as an integer: 1 for black, 2 for white."

    def draw(self, instance: Instance, grid: list[list]) -> str:
        """Each cell is its clue digit (or a blank) followed by its colour: # black, . white, ? unset."""
        H, W = self.dims(instance)
        clues = instance.data["state"]["grid"]
        mark = {BLACK: "#", WHITE: ".", EMPTY: "?"}
        lines = ["   " + "".join(f"{c % 10:>3}" for c in range(W))]
        for r in range(H):
            cells = "".join(f" {clues[r][c] if clues[r][c] >= 0 else ' '}{mark.get(grid[r][c], '?')}" for c in range(W))
            lines.append(f"{r:>3}{cells}")
        return "\n".join(lines)
