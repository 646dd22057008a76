"""Mosaic (docs/specs/grid_puzzles.md §5 "Mosaic"; Tatham's ``mosaic``). Game IDs: ``codec.py``."""
from __future__ import annotations

import dataclasses
import functools

import numpy as np

from ....core.errors import ConfigError
from ....core.instance import Instance
from ....core.params import param
from ....solvers.engine import Encoding
from ....solvers.sat import Formula
from ..base import Check, GridParams, GridTask, cells_decoder, presets
from ..render import Sketch
from .claims import RULES as CLAIM_RULES

BLACK, WHITE, EMPTY = 1, 2, 0
NO_CLUE = -1
NONE, NO_IMAGE = np.zeros(0, np.int64), np.zeros(0, np.int8)


def block(r: int, c: int, H: int, W: int) -> list[tuple[int, int]]:
    """The cells a clue at (r, c) counts: itself and its up to eight neighbours, row-major."""
    return [(a, b) for a in range(max(r - 1, 0), min(r + 2, H)) for b in range(max(c - 1, 0), min(c + 2, W))]


@functools.lru_cache(maxsize=16)
def blocks(H: int, W: int) -> tuple[tuple[tuple[tuple[int, int], ...], ...], ...]:
    """:func:`block` of every cell of an ``H`` x ``W`` grid, by row and column (read-only, cached)."""
    return tuple(tuple(tuple(block(r, c, H, W)) for c in range(W)) for r in range(H))


#: the most cells Tatham's Mosaic accepts (its size check: at least 3x3, at most this many tiles)
MAX_TILES = 10_000


@dataclasses.dataclass(frozen=True)
class MosaicParams(GridParams):
    W: int = param(5, lo=3, hi=MAX_TILES // 3, doc=f"columns (W x H at most {MAX_TILES:,} cells, as Tatham's Mosaic)")
    H: int = param(None, kind=int, lo=3, hi=MAX_TILES // 3, doc="rows (default: W)")
    aggressive: bool = param(True, doc="Tatham's 'h': True drops every clue it can while unit propagation "
                                       "still solves the puzzle; False tries only half of them")

    def check(self):
        p = super().check()
        if p.W * p.H > MAX_TILES:
            raise ConfigError(f"Mosaic W={p.W}, H={p.H}: {p.W * p.H:,} cells is more than {MAX_TILES:,}, the largest "
                              "grid Tatham's Mosaic accepts")
        return p


class MosaicTask(GridTask):
    """Mosaic: colour cells so every number counts the black cells around it.

    ## Description
    Some cells hold a number 0-9. Colour every cell black or white so that each number equals
    the number of black cells in the 3x3 block centred on it (the numbered cell included; cells
    outside the grid do not count). docs/specs/grid_puzzles.md §5, Tatham's *Mosaic*.

    ## Answer
    A JSON array of H rows of W integers: ``1`` black, ``2`` white (the paper's symbols). Any
    colouring that meets every clue scores 1.

    ## Generation
    Our own generator (docs/specs/grid_puzzles.md §8): a random black/white image that unit propagation solves
    from every clue (as Tatham's generator redraws images its solver cannot finish), then clues removed in a
    seeded random order while propagation still solves it, which proves the image is the only solution.

    ## Interactive mode
    ``{"r": row, "c": col, "v": 1}`` paints black, ``2`` white, ``0`` clears.
    """

    Params = MosaicParams
    max_cells = MAX_TILES  # Tatham's limit, not the product of the two bounds
    claim_rules = CLAIM_RULES
    difficulties = presets("W H aggressive", (3, 3, True), (5, 5, True), (10, 10, True), (25, 25, True))
    rule_codes = """
        R1 each clue equals the number of black cells in its 3x3 block
    """
    rules_prompt = """
        - Colour every cell of the grid either black or white.
        - In the state's grid, a number 0 to 9 is a clue and -1 means no clue. A clue counts the black cells in the
          3x3 square centred on its own cell: the clue cell itself and the up to eight cells touching it, including
          diagonally. Cells beyond the edge of the grid do not exist and count nothing, so a corner clue looks at 4
          cells and an edge clue at 6.
        - Every clue must equal that count exactly. Cells without a clue may be either colour as long as all clues
          hold.
    """
    answer_prompt = "give the colour of every cell as an integer: 1 for black, 2 for white."
    symbols = frozenset({BLACK, WHITE})
    empty = EMPTY

    def cell_values(self, instance: Instance) -> tuple:
        return (BLACK, WHITE)

    def rule_checks(self, instance: Instance, grid: list[list]) -> list[Check]:
        H, W = self.dims(instance)
        clues = instance.data["state"]["grid"]
        black = np.zeros((H + 2, W + 2), np.int64)  # the black cells, padded by one white ring
        black[1:-1, 1:-1] = np.asarray(grid) == BLACK
        count = sum(black[i:i + H, j:j + W] for i in range(3) for j in range(3))  # each 3x3 block's blacks
        cells = blocks(H, W)
        return [Check("R1", cells[r][c], count[r, c] == k)
                for r in range(H) for c in range(W) if (k := clues[r][c]) >= 0]

    def encode(self, state: dict) -> Encoding:
        """One formula per size: a counter per 3x3 block; a clue fixes its count by assumption."""
        grid = state["grid"]
        H, W = len(grid), len(grid[0])
        enc = self.layout((H, W), lambda: self._rules(H, W))
        count = enc.extra["count"]
        return enc.with_clues({(r, c): ("R1", tuple(count[r, c].eq(k)))
                               for r in range(H) for c in range(W) if (k := grid[r][c]) >= 0})

    @staticmethod
    def _rules(H: int, W: int) -> Encoding:
        f = Formula()
        x = f.grid("black", H, W)
        count = {(r, c): f.count([int(x[cell]) for cell in block(r, c, H, W)]) for r in range(H) for c in range(W)}


        return Encoding(f, x.ravel(), cells_decoder(x, BLACK, WHITE), extra={"x": x, "count": count})

    def sample(self, rng: np.random.Generator, params: dict) -> tuple[dict, list[list]]:
        from . import kernel

        W, H = params["W"], params["H"]
        n = H * W
        nbr, (truth, clue, active, val, queue, inq) = kernel.blocks(H, W), kernel.scratch(H, W)
        # as Tatham's generator, an image is redrawn until propagation solves it from every clue;
        # images are drawn in batches (the same numbers as one at a time) and tested by the kernel
        # (it deduces exactly what the CNF's propagation does, see kernel); the generator
        # is then left just after the image taken, as drawing them one by one would leave it
        batch = max(4, min(64, 4096 // n))
        for _round in range(0, 2000, batch):
            state = rng.bit_generator.state
            images = (rng.random((batch, H, W)) < 0.5).view(np.int8).ravel()
            k = kernel.run(H, W, nbr, images, truth, clue, active, NONE, val, queue, inq)
            if k < 0:
                continue
            rng.bit_generator.state = state
            rng.random((k + 1, H, W))
            # clues dropped in a seeded order while propagation still solves the puzzle, which
            # proves it unique; not aggressive: only every second clue of the order may go
            order = rng.permutation(n)
            tried = np.sort(order if params["aggressive"] else order[::2]).astype(np.int64)
            kernel.run(H, W, nbr, NO_IMAGE, truth, clue, active, tried[rng.permutation(len(tried))], val, queue, inq)
            grid = np.where(active > 0, clue, NO_CLUE).reshape(H, W)
            return {"grid": grid.tolist()}, np.where(truth > 0, BLACK, WHITE).reshape(H, W).tolist()
        # our limit, not Tatham's: on long thin grids (3 x 50 and thinner) almost every random image
        # has an ambiguous stretch somewhere, so none of the images drawn is solved by propagation
        raise ConfigError(f"our Mosaic generator found no uniquely solvable {W}x{H} image in 2,000 draws: on long, thin "
                          "grids almost every random image is ambiguous somewhere (a limit of our generator, not of "
                          "Tatham's rules); import a Tatham game ID of this size (reset(options={'instance': "
                          "'WxH:desc'})) or use backend='tatham'")

    def clue_features(self, instance: Instance) -> np.ndarray:
        """Per cell: clue + 1, so 0 means no clue (the structured view wants non-negative numbers)."""
        return np.asarray([v + 1 for row in instance.data["state"]["grid"] for v in row], np.float32)

    def sketch(self, instance: Instance, grid: list[list]) -> Sketch:
        clues = instance.data["state"]["grid"]
        labels = [[str(k) if k >= 0 else "" for k in row] for row in clues]
        mark = {BLACK: "#", WHITE: "."}
        return Sketch(len(grid), len(grid[0]), [[k + mark.get(v, "?") for k, v in zip(kr, row)] for kr, row in zip(labels, grid)],
                      [[{BLACK: "black", WHITE: "white"}.get(v, "given") for v in row] for row in grid], labels=labels)
