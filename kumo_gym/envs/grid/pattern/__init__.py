"""Pattern, a nonogram (docs/specs/grid_puzzles.md §5 "Pattern"; Tatham's ``pattern``). Game IDs:
``codec.py``."""
from __future__ import annotations

import dataclasses

import numpy as np

from ....core.instance import Instance
from ....solvers.engine import Encoding
from ....solvers.sat import Formula
from ..base import Check, GridParams, GridTask, cells_decoder, presets
from ..render import Sketch
from .claims import RULES as CLAIM_RULES
from .deduce import LineSolver, picture

BLACK, WHITE, EMPTY = 1, 0, -1


def runs(line: list) -> list[int]:
    """The lengths of the maximal black runs of ``line``, in order."""
    out, n = [], 0
    for v in list(line) + [WHITE]:
        if v == BLACK:
            n += 1
        elif n:
            out.append(n)
            n = 0
    return out


def encode_line(f: Formula, cells: list[int], clue: list[int], key) -> None:
    """Clauses making the black cells of ``cells`` (variables) form exactly the runs ``clue``.

    ``start[j, p]``: run j starts at position p (within the range the other runs leave it). Each
    run starts exactly once; run j+1 starts at least one cell after run j ends; a cell is black
    exactly when some placed run covers it.
    """
    L = len(cells)
    if not clue:
        f.extend([[-v] for v in cells])
        return
    k = len(clue)
    lo = [sum(clue[:j]) + j for j in range(k)]
    hi = [L - sum(clue[j:]) - (k - 1 - j) for j in range(k)]
    if hi[0] < 0 or any(h < lo_ for lo_, h in zip(lo, hi)):
        f.add([])  # the runs do not fit in the line
        return
    start = {(j, p): f.var((key, j, p)) for j in range(k) for p in range(lo[j], hi[j] + 1)}
    cover: list[list[int]] = [[] for _ in range(L)]
    for j in range(k):
        f.exactly_one([start[j, p] for p in range(lo[j], hi[j] + 1)])
        for p in range(lo[j], hi[j] + 1):
            s = start[j, p]
            for q in range(p, p + clue[j]):
                f.add([-s, cells[q]])
                cover[q].append(s)
            if j + 1 < k:
                for q in range(lo[j + 1], min(hi[j + 1], p + clue[j]) + 1):
                    f.add([-s, -start[j + 1, q]])
    for q in range(L):
        f.add([-cells[q]] + cover[q])


@dataclasses.dataclass(frozen=True)
class PatternParams(GridParams.with_size(10, 1, 30)):
    """Pattern's parameters are the size of its grid."""


class PatternTask(GridTask):
    """Pattern: a nonogram, paint the picture the run lengths describe.

    ## Description
    Every row and every column has a clue: the lengths of its blocks of consecutive black cells,
    in order (left to right, top to bottom). Blocks are separated by at least one white cell; an
    empty clue means the line is all white. docs/specs/grid_puzzles.md §5, Tatham's *Pattern*.

    ## Answer
    A JSON array of H rows of W integers: ``1`` black, ``0`` white (clues are not part of the
    grid). Any grid whose lines all match their clues scores 1.

    ## Generation
    Our own generator (docs/specs/grid_puzzles.md §8): a random picture, smoothed into blobs the way Tatham's
    generator does (each cell replaced by the mean of its 3x3 neighbourhood, thresholded at the median), its
    clues derived, redrawn until line-by-line deduction solves it, Tatham's criterion, which proves the picture
    the only solution without any search.

    ## Interactive mode
    ``{"r": row, "c": col, "v": 1}`` black, ``0`` white, ``-1`` clears. Cells pre-filled by an
    imported Tatham ID are fixed.
    """

    Params = PatternParams
    claim_rules = CLAIM_RULES
    difficulties = presets("W H", (2, 2), (10, 10), (15, 15), (25, 25))
    rule_codes = """
        R1 the black runs of every row and every column, in order, equal its clue; pre-filled cells of an imported ID
           are kept
    """
    answer_prompt = """
        give the colour of every cell as an integer: 1 for black, 0 for white (the clues are not part of the grid).
    """
    symbols = frozenset({BLACK, WHITE})
    state_keys = ("rows", "cols", "filled")
    empty = EMPTY

    def shape(self, state: dict) -> tuple[int, int]:
        return len(state["rows"]), len(state["cols"])

    def cell_values(self, instance: Instance) -> tuple:
        return (BLACK, WHITE)

    def givens(self, instance: Instance) -> dict:
        return {(r, c): v for r, c, v in instance.data["state"].get("filled", [])}

    def rule_checks(self, instance: Instance, grid: list[list]) -> list[Check]:
        H, W = self.dims(instance)
        st = instance.data["state"]
        checks = [Check("R1", [(r, c) for c in range(W)], runs(grid[r]) == list(st["rows"][r])) for r in range(H)]
        checks += [Check("R1", [(r, c) for r in range(H)], runs([grid[r][c] for r in range(H)]) == list(st["cols"][c]))
                   for c in range(W)]
        return checks + [Check("R1", [(r, c)], grid[r][c] == v) for (r, c), v in sorted(self.givens(instance).items())]

    def encode(self, state: dict) -> Encoding:
        """The clues are the rules here (no layout is shared); pre-filled cells are assumptions."""
        H, W = self.shape(state)
        f = Formula()
        x = f.grid("black", H, W)
        for r in range(H):
            encode_line(f, x[r].tolist(), state["rows"][r], ("row", r))
        for c in range(W):
            encode_line(f, x[:, c].tolist(), state["cols"][c], ("col", c))


        clues = {(r, c): ("R1", (int(x[r, c]) if v == BLACK else -int(x[r, c]),)) for r, c, v in state.get("filled", [])}
        return Encoding(f, x.ravel(), cells_decoder(x, BLACK, WHITE), clues=clues, extra={"x": x})

    picture = staticmethod(picture)

    def sample(self, rng: np.random.Generator, params: dict) -> tuple[dict, list[list]]:
        W, H = params["W"], params["H"]
        solver = LineSolver(H, W)
        for _attempt in range(2000):
            pic = self.picture(rng, H, W)
            # as Tatham's generator: a picture is kept when line-by-line deduction solves it
            lines = solver.clues_if_solved(pic)
            if lines is not None:
                return {"rows": lines[:H], "cols": lines[H:]}, pic.tolist()
        raise RuntimeError(f"could not generate a unique {W}x{H} Pattern puzzle")

    def clue_count(self, instance: Instance) -> int:
        st = instance.data["state"]
        return sum(len(run) for run in st["rows"] + st["cols"])

    def clue_features(self, instance: Instance) -> np.ndarray:
        """Each line's clue padded to the longest possible run list ((length + 1) // 2 numbers)."""
        H, W = self.dims(instance)
        st = instance.data["state"]
        out = []
        for run, length in [(r, W) for r in st["rows"]] + [(c, H) for c in st["cols"]]:
            out.extend(list(run) + [0] * ((length + 1) // 2 - len(run)))
        return np.asarray(out, np.float32)

    def rules_text(self, instance: Instance) -> str:
        text = ("- Colour every cell black or white.\n"
                "- \"rows\" gives one clue per row, top to bottom; \"cols\" one clue per column, left to right. "
                "A clue lists the lengths of the groups of consecutive black cells in that line, in order: "
                "left to right for a row, top to bottom for a column.\n"
                "- Groups in a line are separated by one or more white cells, and the line holds no black cells "
                "other than these groups. An empty clue [] means the whole line is white.")
        if instance.data["state"].get("filled"):
            text += ("\n- \"filled\" lists cells whose colour is already known as [row, column, colour] "
                     "(1 black, 0 white); keep them.")
        return text

    def sketch(self, instance: Instance, grid: list[list]) -> Sketch:
        st = instance.data["state"]
        return Sketch(len(grid), len(grid[0]), [[{BLACK: "#", WHITE: "."}.get(v, "?") for v in row] for row in grid],
                      [[{BLACK: "black", WHITE: None}.get(v, "given") for v in row] for row in grid],
                      labels=[["" for _ in row] for row in grid],
                      top=[[str(n) for n in run] or ["0"] for run in st["cols"]],
                      left=[[str(n) for n in run] or ["0"] for run in st["rows"]])
