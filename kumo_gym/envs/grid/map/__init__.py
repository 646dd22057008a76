"""Map (docs/specs/grid_puzzles.md §5 "Map"; Tatham's ``map``). Game IDs: ``codec.py``."""
from __future__ import annotations

import dataclasses

import numpy as np

from ....core.errors import ConfigError
from ....core.instance import Instance
from ....core.params import param
from ....solvers.engine import Encoding
from ....solvers.sat import Formula
from ..base import Check, GridParams, GridTask, presets, tatham_level
from ..render import Sketch
from .claims import RULES as CLAIM_RULES
from .codec import COLOURS, NO_COLOUR
from .geometry import FOUR, borders, colouring_model, grown, neighbour_lists, random_colouring

EMPTY = "."
#: the clue reduction's deduction target per Tatham level (docs/specs/grid_puzzles.md §8): 0 unit
#: propagation (Tatham's Easy: a region left with one colour takes it), 1 failed-literal probing
#: (it covers Tatham's Normal pairs and Hard forcing chains), None a minimal unique set (SAT)
GRADE = {"e": 0, "n": 1, "h": 1, "u": None}
#: the least grade a puzzle of the level should need (Tatham rejects maps the level below solves;
#: a minimal unique set that probing cannot solve is rare, so Unreasonable asks for probing too)
LEAST_GRADE = {"e": 0, "n": 1, "h": 1, "u": 1}
#: maps drawn before one that misses its level's least grade is kept anyway
TRIES = 12
FILL = {"R": "red", "Y": "yellow", "G": "green", "B": "blue"}
_LETTERS = np.asarray(COLOURS, dtype=object)


@dataclasses.dataclass(frozen=True)
class MapParams(GridParams.with_size(20, 2, 30)):
    n: int = param(30, lo=5, hi=900, doc="regions (at most W*H)")
    tatham_difficulty: str = tatham_level("n", {"e": "easy", "n": "normal", "h": "hard", "u": "unreasonable"})

    def check(self):
        out = super().check()
        if out.n > out.W * out.H:
            raise ConfigError(f"Map n={out.n} regions do not fit in a {out.W}x{out.H} grid (at most {out.W * out.H})")
        return out


def reduce_colours(engine, x: np.ndarray, colour: np.ndarray, model, rng: np.random.Generator,
                   grade: int | None) -> list[int]:
    """The regions whose colours stay given (docs/specs/grid_puzzles.md §8 step 3): in a seeded
    order, each colour is dropped when deduction at ``grade`` (0 propagation, 1 probing) still
    fixes every region, or, with ``grade`` None, when SAT still finds the colouring unique; the
    last region of a colour always stays (as in Tatham's generator)."""
    n = len(colour)
    shown = np.ones(n, bool)
    left = np.bincount(colour, minlength=FOUR)
    lit = x[np.arange(n), colour].astype(np.int64)
    probe = np.asarray(engine.answer, np.int64) if grade else ()
    for i in rng.permutation(n):
        if left[colour[i]] == 1:
            continue
        shown[i] = False
        lits = lit[shown]
        if grade is not None:
            # the clues kept so far are solved at this grade, so the rest still are exactly when
            # deduction from them gives back the colour just dropped (and it stops once it has)
            ok = engine.arrays.derives(lits, lit[i:i + 1], probe)
        else:
            ok = engine.unique(lits.tolist(), model)
        if ok:
            left[colour[i]] -= 1
        else:
            shown[i] = True
    return np.flatnonzero(shown).tolist()


def _key(regions: list[list[int]]) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(int(k) for k in row) for row in regions)


class MapTask(GridTask):
    """Map: colour the regions of a map with four colours so that neighbouring regions differ.

    ## Description
    A grid of cells is cut into regions (``regions`` gives each cell's region number; the prompt
    also lists each region's neighbours, the regions sharing a cell edge with it). Colour every
    region red, yellow, green or blue so that no two neighbouring regions share a colour; some
    regions' colours are given (docs/specs/grid_puzzles.md §5, Tatham's *Map*).

    ## Answer
    A JSON array of H rows of W colour letters, ``"R"``, ``"Y"``, ``"G"`` or ``"B"``: every cell
    holds its region's colour. Any colouring that satisfies the rules scores 1.

    ## Generation
    Our own generator (docs/specs/grid_puzzles.md §8): ``n`` seed cells grow into regions (a
    random free cell beside a region joins it, until the grid is full), a random four-colouring
    (a backtracking search that colours the most constrained region next, trying colours in a
    random order), then colours removed in a seeded order while deduction still fixes every
    region (at least one region of each colour stays, as in Tatham's): Easy (``e``) by unit
    propagation, Normal and Hard (``n``, ``h``) by failed-literal probing, both compiled on the
    regions' sets of possible colours, Unreasonable (``u``) down to a minimal set that SAT proves
    unique.

    ## Interactive mode
    One move per step, ``{"r": row, "c": col, "v": "R"}`` (or ``"Y"``, ``"G"``, ``"B"``) colours
    one cell; ``"."`` clears it.

    ## Version history
    * v0 (before the first release): on 2026-12-03 the colouring came to be drawn by a compiled backtracking
      search in place of SAT with random phases, so from then on a seed draws the same map with another
      colouring and other given colours than before.
    """

    Params = MapParams
    claim_rules = CLAIM_RULES
    difficulties = presets("W H n tatham_difficulty", (20, 15, 30, "e"), (20, 15, 30, "n"), (20, 15, 30, "h"),
                           (30, 25, 75, "h"))
    rule_codes = """
        R1 every cell of a region has the same colour
        R2 neighbouring regions have different colours
        R3 a region whose colour is given has that colour
    """
    rules_prompt = """
        - The map is a grid of cells cut into regions: "regions" gives each cell's region number, and cells with the
          same number form one region.
        - "neighbours" lists, for region 0, 1, 2 ... in turn, the regions that share at least one cell edge with it
          (regions that only meet at a corner are not neighbours).
        - Colour every region with one of four colours, "R" (red), "Y" (yellow), "G" (green) or "B" (blue): every
          cell of a region gets the region's colour.
        - Two neighbouring regions never have the same colour.
        - "given" lists, for region 0, 1, 2 ... in turn, a colour the region must have, or "." where the colour is
          yours to find.
    """
    answer_prompt = 'give every cell the colour of its region: "R", "Y", "G" or "B".'
    symbols = frozenset(COLOURS)
    state_keys = ("regions", "neighbours", "given")
    empty = EMPTY

    def shape(self, state: dict) -> tuple[int, int]:
        return len(state["regions"]), len(state["regions"][0])

    def cell_values(self, instance: Instance) -> tuple:
        return COLOURS

    def givens(self, instance: Instance) -> dict:
        st = instance.data["state"]
        given = st["given"]
        return {(r, c): given[k] for r, row in enumerate(st["regions"]) for c, k in enumerate(row)
                if given[k] != NO_COLOUR}

    def rule_checks(self, instance: Instance, grid: list[list]) -> list[Check]:
        st = instance.data["state"]
        regions = st["regions"]
        inside, between = borders(_key(regions))
        checks = []
        for pairs in inside.values():
            odd = [(a, b) for a, b in pairs if grid[a[0]][a[1]] != grid[b[0]][b[1]]]
            checks.append(Check("R1", list(odd[0]) if odd else [pairs[0][0]], not odd))
        for pairs in between.values():
            same = [(a, b) for a, b in pairs if grid[a[0]][a[1]] == grid[b[0]][b[1]]]
            checks.append(Check("R2", list(same[0]) if same else [pairs[0][0]], not same))
        cells: dict[int, list] = {}
        for r, row in enumerate(regions):
            for c, k in enumerate(row):
                cells.setdefault(k, []).append((r, c))
        for k, g in enumerate(st["given"]):
            if g != NO_COLOUR:
                wrong = [cell for cell in cells[k] if grid[cell[0]][cell[1]] != g]
                checks.append(Check("R3", wrong[:1] or cells[k][:1], not wrong))
        return checks

    def encode(self, state: dict) -> Encoding:
        """One formula per map: ``x[r, c, k]`` (cell (r, c) has colour k), one colour per cell;
        R1 ties the colours of neighbouring cells of one region, R2 keeps them apart across a
        border; a given colour (R3) is an assumption on its region's cells."""
        key = _key(state["regions"])
        enc = self.layout(("map", key), lambda: self._rules(key))
        x = enc.extra["x"]
        cells: dict[int, list] = {}
        for r, row in enumerate(key):
            for c, k in enumerate(row):
                cells.setdefault(k, []).append((r, c))
        return enc.with_clues({k: ("R3", tuple(int(x[r, c, COLOURS.index(g)]) for r, c in cells[k]))
                               for k, g in enumerate(state["given"]) if g != NO_COLOUR})

    @staticmethod
    def _rules(key: tuple) -> Encoding:
        H, W = len(key), len(key[0])
        f = Formula()
        x = f.grid("colour", H, W, FOUR)
        for r in range(H):
            for c in range(W):
                f.exactly_one([int(v) for v in x[r, c]])
        inside, between = borders(key)
        for pairs in inside.values():
            for (r, c), (r2, c2) in pairs:
                for k in range(FOUR):
                    f.add([-int(x[r, c, k]), int(x[r2, c2, k])], rule="R1")
                    f.add([int(x[r, c, k]), -int(x[r2, c2, k])], rule="R1")
        for pairs in between.values():
            for (r, c), (r2, c2) in pairs:
                for k in range(FOUR):
                    f.add([-int(x[r, c, k]), -int(x[r2, c2, k])], rule="R2")

        def decode(value: np.ndarray) -> list[list]:
            return np.asarray(COLOURS)[np.argmax(value[x] > 0, axis=2)].tolist()

        return Encoding(f, x.ravel(), decode, extra={"x": x})

    def sample(self, rng: np.random.Generator, params: dict) -> tuple[dict, list[list]]:
        """A grown map, a random colouring, colours removed while the level's deduction still
        fixes every region (:data:`GRADE`); a map whose puzzle needs less than the level's
        :data:`LEAST_GRADE` is redrawn, up to :data:`TRIES` maps. Levels Easy to Hard run in the
        compiled :mod:`.kernel`; Unreasonable asks SAT for uniqueness (:func:`reduce_colours`)."""
        from . import kernel

        W, H, n, level = params["W"], params["H"], params["n"], params["tatham_difficulty"]
        least = LEAST_GRADE[level]
        for attempt in range(TRIES):
            regions, start, nb = grown(rng, H, W, n)
            colour = random_colouring(rng, start, nb)
            neighbours = neighbour_lists(start, nb)
            if GRADE[level] is None:
                engine, x = colouring_model(neighbours)
                model = engine.sample([int(x[i, colour[i]]) for i in range(n)])
                shown = reduce_colours(engine, x, colour, model, rng, None)
                if least == 0 or attempt == TRIES - 1:
                    break
                if engine.grade([int(x[i, colour[i]]) for i in shown]) >= least:
                    break
                continue
            order = rng.permutation(n)
            keep = np.ones(n, np.int8)
            check = 0 if least == 0 or attempt == TRIES - 1 else 1
            got = kernel.reduce(start, nb, colour, order, GRADE[level], keep, np.bincount(colour, minlength=FOUR),
                                np.zeros(n, np.int8), np.zeros(4 * n + 4, np.int64), np.zeros(4 * n + 4, np.int8),
                                np.zeros(n + 1, np.int64), check)
            shown = np.flatnonzero(keep).tolist()
            if got >= least:
                break
        on = set(shown)
        given = [COLOURS[colour[i]] if i in on else NO_COLOUR for i in range(n)]
        state = {"regions": regions, "neighbours": neighbours, "given": given}
        return state, _LETTERS[colour][np.asarray(regions)].tolist()

    def sketch(self, instance: Instance, grid: list[list]) -> Sketch:
        """Each cell's colour (letter and fill), the region number in the region's first cell,
        and walls along the region borders."""
        regions = instance.data["state"]["regions"]
        H, W = len(regions), len(regions[0])
        text = [[v if v in FILL else EMPTY for v in row] for row in grid]
        labels = [list(row) for row in text]
        fill: list[list[str | None]] = [[FILL.get(v) for v in row] for row in grid]
        seen: set[int] = set()
        for r, row in enumerate(regions):
            for c, k in enumerate(row):
                if k not in seen:
                    seen.add(k)
                    text[r][c] = f"{k}{text[r][c]}"
                    labels[r][c] = f"{k} {labels[r][c]}"
        walls = [((r, c), (r2, c2)) for r in range(H) for c in range(W) for r2, c2 in ((r + 1, c), (r, c + 1))
                 if r2 < H and c2 < W and regions[r][c] != regions[r2][c2]]
        return Sketch(H, W, text, fill, labels=labels, walls=walls)

    def clue_count(self, instance: Instance) -> int:
        return sum(g != NO_COLOUR for g in instance.data["state"]["given"])

    def clue_features(self, instance: Instance) -> np.ndarray:
        """Per region: its given colour's index + 1, 0 where none is given."""
        return np.asarray([COLOURS.index(g) + 1 if g != NO_COLOUR else 0 for g in instance.data["state"]["given"]],
                          np.float32)
