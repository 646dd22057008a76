"""Net (docs/specs/grid_puzzles.md §5 "Net"; Tatham's ``net``). Game IDs: ``codec.py``."""
from __future__ import annotations

import dataclasses
from itertools import chain
from operator import itemgetter

import numpy as np

from ....core.errors import ConfigError
from ....core.instance import Instance
from ....core.params import param
from ....solvers.engine import Encoding
from ....solvers.sat import Formula
from ..base import Check, GridParams, GridTask, presets
from ..geometry import OPPOSITE as OPP
from ..geometry import STEP, step
from ..render import _GLYPH, Sketch
from .claims import RULES as CLAIM_RULES
from .codec import CANONICAL, ORIENTATIONS, PERIOD, QUARTERS, SHAPE_CNF, TURN, rotate
from .deduce import scramble, unique_tree
from .geometry import grid_links, link_dirs, random_tree, repair_tree, tree_rules, union_find

ARROW = {"U": "\u2191", "R": "\u2192", "D": "\u2193", "L": "\u2190"}


@dataclasses.dataclass(frozen=True)
class NetParams(GridParams.with_size(5, 2, 30)):
    wrap: bool = param(False, doc="Tatham's 'w': pipes may leave one side of the grid and come back on the opposite side")

    def check(self):
        p = super().check()
        if p.wrap and min(p.W, p.H) == 2:  # two parallel links between the same tiles: never unique (as Tatham says)
            raise ConfigError(f"a wrapping Net grid needs W and H of at least 3, got W={p.W}, H={p.H}")
        return p


def shape_of(state: dict) -> tuple[int, int, bool, frozenset]:
    return len(state["tiles"]), len(state["tiles"][0]), bool(state["wrap"]), frozenset(map(tuple, state["barriers"]))


def tile_dirs(state: dict, grid: list[list]) -> list[list[str]]:
    """Each tile's connections at the answer's orientation ("" where the value is not one)."""
    return [[rotate(CANONICAL[t["type"]], v) if v in ORIENTATIONS else "" for t, v in zip(trow, row)]
            for trow, row in zip(state["tiles"], grid)]


class NetTask(GridTask):
    """Net: rotate the tiles so the pipes join into one network.

    ## Description
    Every cell holds a pipe tile: an end (E), a straight (I), a corner (C), a tee (T) or a cross (X).
    Turn the tiles so that every pipe end meets its neighbour's (never the edge of a non-wrapping
    grid, never a barrier) and all tiles join into one network without loops (docs/specs/grid_puzzles.md §5, Tatham's
    *Net*).

    ## Answer
    A JSON array of H rows of W integers: each tile's clockwise turn 0, 90, 180 or 270 from its
    type's standard form (E: U, I: UD, C: UR, T: URL, X: URDL); symmetric tiles accept every turn
    giving the same connections. Rule net.R1 (a tile keeps its type) holds by construction.

    ## Generation
    Our own generator (docs/specs/grid_puzzles.md §8): a random spanning tree from the centre without crosses
    (as Tatham's), tiles turned at random; unique once our deduction (known links, no loop, no closed-off
    network) pins every tile, else a link near an undecided tile is swapped (Tatham's repair); failing that, SAT
    with lazy tree cuts certifies, the tree moving towards the second network SAT finds. Wrapping needs W, H >=
    3.

    ## Interactive mode
    ``{"r": row, "c": col, "v": 90}`` sets one tile's orientation; play starts from the scrambled tiles.
    """

    Params = NetParams
    claim_rules = CLAIM_RULES
    difficulties = presets("W H wrap", (2, 2, False), (4, 4, False), (5, 5, False), (11, 11, False))
    rule_codes = """
        R1 each tile keeps its type and only rotates
        R2 every pipe end meets its neighbour's opposite end (none off a non-wrapping grid or through a barrier)
        R3 the tiles joined by their pipes form one connected network without loops
    """
    answer_prompt = """
        give the final orientation of every tile as an integer 0, 90, 180 or 270 (the clockwise turn from its type's
          orientation-0 shape, not the turn to apply to the current one).
    """
    symbols = frozenset(ORIENTATIONS)
    state_keys = ("tiles", "wrap", "barriers")
    empty = 0

    def shape(self, state: dict) -> tuple[int, int]:
        return shape_of(state)[:2]

    def initial_grid(self, instance: Instance) -> list[list]:
        return [[t["orientation"] for t in row] for row in instance.data["state"]["tiles"]]

    def equivalent_values(self, instance: Instance, r: int, c: int, a, b) -> bool:
        period = PERIOD.get(instance.data["state"]["tiles"][r][c]["type"], 360)
        return a in ORIENTATIONS and b in ORIENTATIONS and a % period == b % period

    def canonical_codes(self, instance: Instance, codes: np.ndarray) -> np.ndarray:
        tiles = instance.data["state"]["tiles"]  # each tile's number of distinct turns, read in one pass
        period = np.fromiter(map(QUARTERS.__getitem__, map(itemgetter("type"), chain.from_iterable(tiles))),
                             np.int64).reshape(len(tiles), -1)
        return np.where(codes >= 0, codes % period, codes)

    def rule_checks(self, instance: Instance, grid: list[list]) -> list[Check]:
        H, W, wrap, bars = shape_of(instance.data["state"])
        dirs = tile_dirs(instance.data["state"], grid)
        ends = [((r, c), d, step(r, c, d, H, W, wrap, bars)) for r, c in np.ndindex(H, W) for d in dirs[r][c]]
        checks = [Check("R2", [a] + [n] * bool(n), bool(n) and OPP[d] in dirs[n[0]][n[1]]) for a, d, n in ends]
        joined = [(a, b) for a, d, b in grid_links(H, W, wrap, bars) if d in dirs[a[0]][a[1]] or OPP[d] in dirs[b[0]][b[1]]]
        comps, loops = union_find([(r, c) for r in range(H) for c in range(W)], joined)
        loop = sorted({cell for i in loops for cell in joined[i]})
        return checks + [Check("R3", comp, False) for comp in comps[1:]] + [Check("R3", loop, not loop)]

    def encode(self, state: dict) -> Encoding:
        """One formula per grid size, wrapping and barriers; the tile types are assumptions."""
        H, W, wrap, bars = shape_of(state)
        enc = self.layout((H, W, wrap, bars), lambda: self._rules(H, W, wrap, bars))
        end, typ = enc.extra["end"], enc.extra["type"]
        kinds = [[t["type"] for t in row] for row in state["tiles"]]
        picked = np.asarray([[list(CANONICAL).index(k) for k in r] for r in kinds])[..., None] == np.arange(len(CANONICAL))
        lits = np.where(picked, typ, -typ).reshape(H * W, -1).tolist()  # the type selectors, the tile's on
        clues = {(r, c): ("R1", tuple(x)) for (r, c), x in zip(np.ndindex(H, W), lits)}

        def decode(value: np.ndarray) -> list[list]:  # the orientation nearest to the ends that are on
            have = [[{d for i, d in enumerate(TURN) if value[end[r, c, i]] > 0} for c in range(W)] for r in range(H)]
            return [[min(ORIENTATIONS, key=lambda o: len(have[r][c] ^ set(rotate(CANONICAL[kinds[r][c]], o))))
                     for c in range(W)] for r in range(H)]
        return enc.with_clues(clues, decode=decode)

    @staticmethod
    def _rules(H: int, W: int, wrap: bool, bars: frozenset) -> Encoding:
        """``end[r, c, d]`` (answer): a pipe end of (r, c) towards d; a type selector per tile allows its
        rotations (R1); both ends of a link agree (R2); a link is on when either end points across it,
        and the links form a spanning tree (R3: the smallest breaks as clauses, the rest by cuts)."""
        f = Formula()
        end, typ = f.grid("end", H, W, 4), f.grid("type", H, W, len(CANONICAL))
        for r, c, k in np.ndindex(H, W, len(SHAPE_CNF)):  # type k allows its sets of ends only
            f.extend([[-int(typ[r, c, k])] + [int(end[r, c, abs(i) - 1]) * (1 if i > 0 else -1) for i in cl]
                      for cl in SHAPE_CNF[k]])
        for r, c, i in np.ndindex(H, W, 4):
            if step(r, c, TURN[i], H, W, wrap, bars) is None:
                f.add([-int(end[r, c, i])], rule="R2")
        edges = []
        for n, (a, d, b) in enumerate(grid_links(H, W, wrap, bars)):
            x, y = int(end[a][TURN.index(d)]), int(end[b][TURN.index(OPP[d])])
            link = f.var(("link", n))
            f.extend([[-link, x, y], [link, -x], [link, -y]])
            f.add([-x, y], rule="R2")
            f.add([-y, x], rule="R2")
            edges.append((a[0] * W + a[1], b[0] * W + b[1], link))
        cuts = tree_rules(f, H * W, edges)
        return Encoding(f, end.ravel(), None, cuts=cuts, cut_rule="R3", extra={"end": end, "type": typ})

    def sample(self, rng: np.random.Generator, params: dict) -> tuple[dict, list[list]]:
        """Tatham's way (``deduce.py``); failing that, a tree repaired towards SAT's second network until unique."""
        W, H, wrap = params["W"], params["H"], bool(params["wrap"])
        if (dirs := unique_tree(rng, H, W, wrap)) is not None:
            return scramble(rng, dirs, wrap)
        every = grid_links(H, W, wrap)
        pairs = [(a[0] * W + a[1], b[0] * W + b[1]) for a, _, b in every]
        for _ in range(100):
            tree = random_tree(rng, H * W, pairs, (H // 2) * W + W // 2, 3)
            for _ in range(4 * H * W):
                dirs = link_dirs(H, W, every, tree)
                state, solution = scramble(rng, dirs, wrap)
                enc = self.encode(state)
                end, lits = enc.extra["end"], enc.assumptions()
                truth = enc.solution_values(np.where([[[x in d for x in TURN] for d in row] for row in dirs], end, -end).ravel())
                if enc.engine.alternative(lits, truth) is None:
                    return state, solution
                other = enc.engine.sample(lits, avoid=truth)
                on = {i for i, (a, d, _) in enumerate(every) if other[end[a][TURN.index(d)]] > 0}
                tree = repair_tree(rng, tree, pairs, on, lambda t: not any("URDL" in row for row in link_dirs(H, W, every, t)))
                if tree is None:  # every repair makes a cross: start again from a new tree
                    break
        raise RuntimeError(f"could not generate a {W}x{H} Net puzzle")

    def rules_text(self, instance: Instance) -> str:
        st = instance.data["state"]
        return ("- Every cell holds a pipe tile; \"tiles\" gives each one's type, the directions its pipes point in now "
                "(U up, R right, D down, L left) and its current orientation.\n- At orientation 0, E (an end) points U, I "
                "(a straight) U and D, C (a corner) U and R, T (a tee) U, R and L, X (a cross) all four ways; orientation "
                "90, 180 or 270 turns that shape clockwise by so many degrees (90 turns U into R).\n"
                "- Tiles may only be turned, never changed.\n"
                "- Every pipe end must meet a pipe end of the neighbouring tile pointing straight back at it.\n"
                + ("- The grid wraps around: a pipe leaving one side enters the cell on the opposite side.\n" if st["wrap"]
                   else "- No pipe may point off the edge of the grid.\n")
                + ("- \"barriers\" lists walls as [row, col, side] (side \"R\": right of that cell, \"D\": below it); no "
                   "pipe may cross a wall.\n" if st["barriers"] else "")
                + "- All tiles must join into one single network, and the network must contain no loop.")

    def sketch(self, instance: Instance, grid: list[list]) -> Sketch:
        """Pipes as line segments from each cell centre (one leaving the grid shows a wrap or a bad
        end), a glyph per tile in text, barriers between neighbouring cells as walls."""
        H, W, _, bars = shape_of(instance.data["state"])
        dirs = tile_dirs(instance.data["state"], grid)
        walls = [((r, c), n) for r, c, s in sorted(bars) if (n := step(r, c, s, H, W)) is not None]  # wraps: none
        return Sketch(H, W, [[_GLYPH.get(frozenset(d)) or ARROW.get(d, "?") for d in row] for row in dirs], walls=walls,
                      edges=[((r, c), (r + STEP[d][0], c + STEP[d][1])) for r, c in np.ndindex(H, W) for d in dirs[r][c]])

    def clue_features(self, instance: Instance) -> np.ndarray:  # the tile types
        return np.asarray([list(CANONICAL).index(t["type"]) for row in instance.data["state"]["tiles"] for t in row], float)
