"""Train Tracks (docs/specs/grid_puzzles.md §5 "Tracks"; Tatham's ``tracks``). Game IDs: ``codec.py``."""
from __future__ import annotations

import dataclasses
from itertools import pairwise, permutations

import numpy as np

from ....core.instance import Instance
from ....core.params import param
from ....solvers.engine import Encoding, reduce_clues
from ....solvers.sat import Formula
from ..base import Check, GridParams, GridTask, presets, tatham_level
from ..play import STEPS, DirectionAnswers, EdgeMoves, canonical_dirs, dirs_edges, grid_edges
from ..render import Sketch
from .claims import RULES as CLAIM_RULES
from .codec import count_labels, given_pieces, track_ends
from .deduce import STRIP_ORDERS, few, path_masks, strip_pieces
from .geometry import inside_sides, random_path, track_border, track_faults, track_literals, track_vars

PIECES = ("", "UR", "UD", "UL", "RD", "RL", "DL")
#: above this many cells at least as many pieces stay as Tatham's show (a minimal set: 7.9 at 15x15, his 11.8)
BOUNDED_ABOVE = 100
#: as a share of the track (15x15dt: 11.5 over 60 puzzles)
BOUNDED_SHARE = 0.16
#: the share of the grid Tatham's tracks fill, by grid area (measured on its presets)
DENSITY = ((16, 0.77), (64, 0.55), (225, 0.32))


@dataclasses.dataclass(frozen=True)
class TracksParams(GridParams):
    W: int = param(8, lo=4, hi=20, doc="columns")
    H: int = param(None, kind=int, lo=4, hi=20, doc="rows (default: W)")
    tatham_difficulty: str = tatham_level("e", {"e": "easy", "t": "tricky", "h": "hard"})
    single_ones: bool = param(False, doc="Tatham's 'o' (generation only): no two neighbouring lines both count 1")


class TracksTask(DirectionAnswers, EdgeMoves, GridTask):
    """Train Tracks: lay one railway from the left edge to the bottom edge.

    ## Description
    The track enters the grid from the left at the marked row (``entry_row``) and leaves through
    the bottom at the marked column (``exit_col``). Every track cell is a straight piece or a
    90-degree curve joining two neighbours, connections are mutual, and the track is a single
    path with no loops or branches. The numbers give how many cells of each column and each row
    the track uses; given pieces stay as they are (docs/specs/grid_puzzles.md §5, Tatham's *Tracks*).

    ## Answer
    A JSON array of H rows of W strings: each track cell lists the two directions it connects
    (letters ``U``, ``R``, ``D``, ``L`` in any order, ``"RD"``), an empty cell is ``""``. The entry
    cell includes ``L`` and the exit cell ``D``. Any valid track scores 1.

    ## Generation
    Our own generator (docs/specs/grid_puzzles.md §8): a loop-erased random walk from the entry to the exit
    cell, stretched by random detours to Tatham's track density; every count shown, both end pieces given, the
    other pieces removed in a seeded random order while our deduction still finds the track (Tatham's way,
    unique without SAT; Tricky keeps the fewest of three orders and two draws up to 100 cells), on larger grids
    with removed pieces given back up to Tatham's share of the track (16 %). Level Hard then removes more while
    unique (SAT with lazy cuts against closed loops). ``o`` is honoured by redrawing.

    ## Interactive mode
    ``{"op": "edge", "cells": [[r1, c1], [r2, c2]], "v": 1}`` lays the track between two
    neighbouring cells, ``"v": 0`` removes it. Given pieces and the two border ends are fixed.
    """

    title = "Train Tracks"
    Params = TracksParams
    claim_rules = CLAIM_RULES
    difficulties = presets("W H tatham_difficulty", (4, 4, "e"), (8, 8, "e"), (8, 8, "t"), (15, 15, "t"))
    rule_codes = """
        R1 the track enters from the left edge at entry_row and leaves through the bottom edge at exit_col, and
           touches the border nowhere else
        R2 every connection between two cells is claimed by both of them
        R3 the track is one path: no closed loop anywhere
        R4 each column and each row holds as many track cells as its count
        R5 given pieces keep their connections to their neighbours
    """
    rules_prompt = """
        - Lay a railway track through some cells of the grid. It comes in from outside the left edge into row
          entry_row of column 0, and goes out through the bottom edge from column exit_col of the last row.
        - Each track cell holds one piece joining exactly two of its sides: a straight piece or a quarter turn. When a
          cell joins towards a neighbour, that neighbour must join back towards it; apart from the two ends, no piece
          points off the grid.
        - The whole track is one path from the entry to the exit: no branches, no crossings, and no closed loops
          anywhere.
        - col_counts (left to right) and row_counts (top to bottom) give how many cells of each column and row the
          track passes through.
        - given_pieces maps "row,column" to a piece that is already laid; keep it as given.
    """
    answer_prompt = """
        for every cell give a string: the two sides its piece joins, written with the letters U (up), R (right), D
          (down), L (left), such as "RD" or "UL"; or "" for a cell without track. The entry cell includes L and the
          exit cell includes D.
    """
    symbols = frozenset({""} | {a + b for a, b in permutations("URDL", 2)})
    state_keys = ("col_counts", "row_counts", "entry_row", "exit_col", "given_pieces")
    empty = ""

    def shape(self, state: dict) -> tuple[int, int]:
        return len(state["row_counts"]), len(state["col_counts"])

    def cell_values(self, instance: Instance) -> tuple:
        return PIECES  # one spelling per piece (URDL order); parse and verify accept any order

    def givens(self, instance: Instance) -> dict:
        return given_pieces(instance.data["state"])

    def fixed_cells(self, instance: Instance) -> set:
        return set(self.givens(instance))  # an end cell without a given piece keeps its other side free

    def fixed_pieces(self, instance: Instance) -> dict:
        ends = track_ends(instance.data["state"])
        return {**ends, **{x: canonical_dirs(v + ends.get(x, "")) for x, v in self.givens(instance).items()}}

    # ---- rules --------------------------------------------------------------------------------
    def rule_checks(self, instance: Instance, grid: list[list]) -> list[Check]:
        st, (H, W) = instance.data["state"], self.dims(instance)
        off, one_sided, loops = track_faults(grid, set(track_ends(st).items()))
        checks = [Check("R1", off, not off)]
        checks += [Check("R2", [a, b], (a, b) not in one_sided) for a, b in grid_edges(H, W)]
        checks.append(Check("R3", loops, not loops))
        used = [[v != "" for v in row] for row in grid]
        checks += [Check("R4", [(0, c)], sum(col) == k) for c, (col, k) in enumerate(zip(zip(*used), st["col_counts"]))]
        checks += [Check("R4", [(r, 0)], sum(row) == k) for r, (row, k) in enumerate(zip(used, st["row_counts"]))]
        return checks + [Check("R5", [(r, c)], set(inside_sides(r, c, grid[r][c], H, W)) == set(inside_sides(r, c, piece, H, W)))
                         for (r, c), piece in self.givens(instance).items()]

    def encode(self, state: dict) -> Encoding:
        H, W = self.shape(state)
        enc = self.layout((H, W), lambda: self._rules(H, W))
        d, rows, cols = enc.extra["d"], enc.extra["rows"], enc.extra["cols"]
        clues = {("border",): ("R1", track_border(d, set(track_ends(state).items())))}
        clues |= {("col", c): ("R4", cols[c].eq(k)) for c, k in enumerate(state["col_counts"])}
        clues |= {("row", r): ("R4", rows[r].eq(k)) for r, k in enumerate(state["row_counts"])}
        for (r, c), piece in given_pieces(state).items():
            clues[("piece", r, c)] = ("R5", [int(d[r, c, "URDL".index(x)]) * (1 if x in piece else -1)
                                              for x in inside_sides(r, c, "URDL", H, W)])
        return enc.with_clues(clues)

    @staticmethod
    def _rules(H: int, W: int) -> Encoding:
        """Direction variables per cell (R2 between neighbours), line counters, R3 by cuts (geometry.track_vars)."""
        f = Formula()
        d, t, decode, cuts = track_vars(f, H, W, rule="R2")
        rows, cols = [f.count(t[r].tolist()) for r in range(H)], [f.count(t[:, c].tolist()) for c in range(W)]
        return Encoding(f, d.ravel(), decode, cuts=cuts, cut_rule="R3", extra={"d": d, "rows": rows, "cols": cols})

    def sample(self, rng: np.random.Generator, params: dict) -> tuple[dict, list[list]]:
        """Tricky on small grids keeps the better of two draws, or the first with few pieces (``deduce.few``)."""
        tries = 2 if params["tatham_difficulty"] != "e" and params["W"] * params["H"] <= BOUNDED_ABOVE else 1
        draws = [self._draw(rng, params)]
        while len(draws) < tries and not few(draws[-1][0]):
            draws.append(self._draw(rng, params))
        return min(draws, key=lambda d: len(d[0]["given_pieces"]))

    def _draw(self, rng: np.random.Generator, params: dict) -> tuple[dict, list[list]]:
        W, H, level = params["W"], params["H"], params["tatham_difficulty"]
        while True:
            entry, exit_ = int(rng.integers(H)), int(rng.integers(W))
            if (entry, 0) == (H - 1, exit_):
                continue  # a one-cell track: no puzzle
            length = float(np.interp(H * W, *zip(*DENSITY))) * H * W
            path = random_path(rng, H, W, (entry, 0), (H - 1, exit_), length)
            if len(path) < 0.8 * length:
                continue  # a walk hugging a corner that no detour can stretch
            masks, sol = path_masks(H, W, path)
            on = masks.reshape(H, W) > 0
            cols, rows = on.sum(axis=0).tolist(), on.sum(axis=1).tolist()
            if params.get("single_ones") and any(a == b == 1 for line in (rows, cols) for a, b in pairwise(line)):
                continue
            state = {"col_counts": cols, "row_counts": rows, "entry_row": entry, "exit_col": exit_,
                     "given_pieces": {f"{r},{c}": sol[r][c] for r, c in sorted(path)}}
            share = round(BOUNDED_SHARE * len(path)) if (big := H * W > BOUNDED_ABOVE) else 0  # a floor on big grids
            state["given_pieces"] = strip_pieces(rng, state, masks, path, STRIP_ORDERS[level], keep=share)
            if level != "h":
                return state, sol
            enc = self.encode(state)
            keys = [("piece", r, c) for r, c in path[1:-1] if f"{r},{c}" in state["given_pieces"]]
            truth = enc.solution_values(track_literals(enc.extra["d"], sol))
            kept = reduce_clues(enc.engine, [enc.clues[k][1] for k in keys], rng, truth, grade_limit=1 if big else None,
                                fixed=enc.assumptions([k for k in enc.clues if k not in keys]),
                                keep=share - 2 if big else 0, runs=False)  # 2: the ends
            gone = {f"{k[1]},{k[2]}" for k, keep in zip(keys, kept) if not keep}
            state["given_pieces"] = {k: v for k, v in state["given_pieces"].items() if k not in gone}
            return state, sol

    def sketch(self, instance: Instance, grid: list[list]) -> Sketch:
        st, (H, W) = instance.data["state"], self.dims(instance)
        edges = sorted(dirs_edges([[v if isinstance(v, str) else "" for v in row] for row in grid]))
        edges += [(x, (x[0] + STEPS[k][0], x[1] + STEPS[k][1])) for x, k in track_ends(st).items()]
        given, (top, left) = self.givens(instance), count_labels(st)
        fill = [["given" if (r, c) in given else None for c in range(W)] for r in range(H)]
        return Sketch(H, W, [[""] * W for _ in range(H)], fill, edges=edges, top=[[x] for x in top], left=[[x] for x in left])

    def clue_count(self, instance: Instance) -> int:
        return len(instance.data["state"]["given_pieces"])  # the pieces (every count is always shown)

    def clue_features(self, instance: Instance) -> np.ndarray:
        st = instance.data["state"]
        return np.asarray(st["col_counts"] + st["row_counts"] + [st["entry_row"], st["exit_col"]], np.float32)
