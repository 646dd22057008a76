"""Bridges (docs/specs/grid_puzzles.md §5 "Bridges"; Tatham's ``bridges``). Game IDs: ``codec.py``."""
from __future__ import annotations

import dataclasses
import functools

import numpy as np

from ....core.instance import Instance
from ....core.params import param
from ....solvers.engine import Encoding
from ....solvers.sat import Formula
from ..base import Check, GridParams, GridTask, presets, tatham_level
from ..render import Sketch
from .claims import RULES as CLAIM_RULES
from .geometry import (
    WATER,
    bridge_symbol,
    crossings,
    islands_of,
    joined,
    read_bridge,
    sight_lines,
    spread,
    tree_path,
)

#: the text board's glyph per bridge symbol (ASCII; as Tatham's text form for one and two bridges)
GLYPH = {"H1": "-", "H2": "=", "H3": "~", "H4": "#", "V1": "|", "V2": '"', "V3": "!", "V4": ":"}
#: the answer symbol of each bridge code of ``kernel.py`` (0 water, k: k across, 10 + k: k down)
KERNEL_SYMBOL = {0: WATER, **{k: bridge_symbol("H", k) for k in range(1, 5)},
                 **{10 + k: bridge_symbol("V", k) for k in range(1, 5)}}
#: redraws of a layout before a level's preferred grade is given up (any unique puzzle is kept)
GRADE_TRIES = 30


@dataclasses.dataclass(frozen=True)
class BridgesParams(GridParams.with_size(7, 3, 30)):
    islands: int = param(30, lo=1, hi=30, doc="islands, percent of the cells (Tatham's 'i')")
    expansion: int = param(10, lo=0, hi=100, doc="percent chance of placing a new island as far as it can go "
                                                   "(and of closing a loop) (Tatham's 'e')")
    max_bridges: int = param(2, lo=1, hi=4, doc="the most bridges between two islands (Tatham's 'm')")
    no_loops: bool = param(False, doc="Tatham's 'L': the bridges may form no loop (the islands form a tree)")
    tatham_difficulty: int = tatham_level(0, {0: "easy", 1: "medium", 2: "hard"})


def layout_of(state: dict) -> tuple:
    grid = state["grid"]
    return (len(grid), len(grid[0]), int(state["max_bridges"]), bool(state["no_loops"]), tuple(islands_of(grid)))


class BridgesTask(GridTask):
    """Bridges (Hashiwokakero): join the islands with bridges.

    ## Description
    Some cells are islands, each showing a number. Draw bridges between islands: a bridge runs
    straight along a row or column over water cells from one island to the next one in that line,
    two islands are joined by at most ``max_bridges`` parallel bridges, bridges never cross, every
    island has exactly its number of bridge ends, and all islands are joined into one group
    (with ``no_loops``, also without any loop) (docs/specs/grid_puzzles.md §5, Tatham's *Bridges*).

    ## Answer
    A JSON array of H rows of W cells: the island's number (copied) on an island, ``"."`` for open
    water, ``"H1"``..``"H4"`` for a water cell crossed by that many bridges running left-right and
    ``"V1"``..``"V4"`` for bridges running up-down. Any grid that satisfies the rules scores 1.

    ## Generation
    Our own generator (docs/specs/grid_puzzles.md §8), Tatham's method, compiled (``kernel.py``): islands
    grown one by one from a random start at the island density, each new one bridged to the island it grew
    from (1..max_bridges bridges; the expansion percent places it as far as possible or closes a loop)
    until the density is reached or 50 tries in a row fail; a board whose islands miss a side of the grid
    is redrawn. The numbers are the bridge counts. Redrawn until deduction
    over the sight lines (island sums, crossings, connectivity; ``kernel.py``) certifies the board the only
    solution: levels 0 and 1 keep boards that it solves with failed-literal probing without the
    connectivity rule, level 2 prefers ones that the rules alone do not solve (probing does, or a complete search proves uniqueness) for
    GRADE_TRIES draws.

    ## Interactive mode
    One move per step, ``{"r": row, "c": col, "v": "H2"}`` sets a water cell (``"."`` clears it).
    Islands cannot be changed.

    ## Version history
    * v0 (before the first release): on 2026-12-03 generation moved into one compiled kernel (deduction and a
      bounded count of solutions in place of SAT), so from then on a seed draws another board than before.
    """

    Params = BridgesParams
    claim_rules = CLAIM_RULES
    difficulties = presets("W H islands expansion max_bridges no_loops tatham_difficulty",
                           (7, 7, 30, 10, 2, False, 0), (7, 7, 30, 10, 2, False, 1), (10, 10, 30, 10, 2, False, 1),
                           (15, 15, 30, 10, 2, False, 2))
    rule_codes = """
        R1 the islands are kept: every island cell holds its number and no other cell holds a number
        R2 every bridge cell continues straight on both sides to an island or a bridge cell of the same direction and
           number of bridges
        R3 every island has exactly its number of bridge ends around it
        R4 all islands are joined into one group by the bridges
        R5 with no_loops, the bridges form no loop
    """
    rules_prompt = """
        - In the state's grid, a number is an island and "." is water.
        - Join islands with bridges. A bridge runs in a straight line along a row or a column, over water only, from
          one island to the next island in that line.
        - Two islands may be joined by 1 to {max_bridges} parallel bridges. Bridges may not cross each other.
        - Each island's number is the total number of bridges that end at it.
        - All islands must be joined into one connected group.{loops}
    """
    answer_prompt = """
        give every cell of the grid: copy each island's number; write "." for water without a bridge, "H1" or "H2"
          (up to "H{max_bridges}") for water crossed by that many bridges running left-right, and "V1", "V2"... for
          bridges running up-down.
    """
    symbols = frozenset({WATER, *range(1, 17)} | {bridge_symbol(x, k) for x in "HV" for k in range(1, 5)})
    state_keys = ("grid", "max_bridges", "no_loops")
    empty = WATER
    given_symbols = frozenset(range(1, 17))

    def prompt_fields(self, instance: Instance) -> dict:
        st = instance.data["state"]
        loops = " The bridges may not form any loop." if st["no_loops"] else ""
        return {**st, "loops": loops}

    def cell_values(self, instance: Instance) -> tuple:
        st = instance.data["state"]
        numbers = sorted({v for row in st["grid"] for v in row if isinstance(v, int)})
        return (*numbers, WATER, *(bridge_symbol(x, k) for x in "HV" for k in range(1, int(st["max_bridges"]) + 1)))

    def givens(self, instance: Instance) -> dict:
        grid = instance.data["state"]["grid"]
        return {cell: grid[cell[0]][cell[1]] for cell in islands_of(grid)}

    def rule_checks(self, instance: Instance, grid: list[list]) -> list[Check]:
        st = instance.data["state"]
        H, W = self.dims(instance)
        given = st["grid"]
        wrong = [(r, c) for r in range(H) for c in range(W)
                 if (grid[r][c] != given[r][c] if isinstance(given[r][c], int) else isinstance(grid[r][c], int))]
        checks = [Check("R1", wrong, not wrong)]
        for r in range(H):
            for c in range(W):
                got = read_bridge(grid[r][c])
                if got is None:
                    continue
                dr, dc = (0, 1) if got[0] == "H" else (1, 0)
                ends = [(r - dr, c - dc), (r + dr, c + dc)]
                ok = all(0 <= a < H and 0 <= b < W and (isinstance(given[a][b], int) or grid[a][b] == grid[r][c])
                         for a, b in ends)
                checks.append(Check("R2", [(r, c)], ok))
        isles = islands_of(given)
        for r, c in isles:
            ends = 0
            for a, b, letter in ((r, c - 1, "H"), (r, c + 1, "H"), (r - 1, c, "V"), (r + 1, c, "V")):
                got = read_bridge(grid[a][b]) if 0 <= a < H and 0 <= b < W else None
                ends += got[1] if got is not None and got[0] == letter else 0
            checks.append(Check("R3", [(r, c)], ends == given[r][c]))
        cells = [(r, c) for r in range(H) for c in range(W)]
        links = joined([[given[r][c] if isinstance(given[r][c], int) else v for c, v in enumerate(row)]
                        for r, row in enumerate(grid)], H, W)
        root, _, spare = spread(cells, links)
        groups: dict = {}
        for cell in isles:
            groups.setdefault(root[cell], []).append(cell)
        parts = sorted(groups.values(), key=lambda g: (-len(g), g[0]))
        checks += [Check("R4", part, False) for part in parts[1:]] or [Check("R4", [], True)]
        if st["no_loops"]:
            loop = sorted(links[spare[0]]) if spare else []
            checks.append(Check("R5", loop, not loop))
        return checks

    def encode(self, state: dict) -> Encoding:
        """One formula per island layout (positions, most bridges, loops); the island numbers are
        assumptions on counters."""
        key = layout_of(state)
        enc = self.layout(key, lambda: self._rules(*key))
        counts = enc.extra["counts"]
        grid = state["grid"]
        clues = {("island", r, c): ("R3", tuple(counts[k].eq(int(grid[r][c]))))
                 for k, (r, c) in enumerate(key[4])}
        bare = enc.decode

        def decode(value: np.ndarray) -> list[list]:
            out = bare(value)
            for r, c in key[4]:
                out[r][c] = grid[r][c]
            return out

        return enc.with_clues(clues, decode=decode)

    @staticmethod
    def _rules(H: int, W: int, maxb: int, no_loops: bool, isles: tuple) -> Encoding:
        """``unit[n, k]``: sight line n carries more than k bridges; crossing lines exclude each other;
        each island counts the units of its lines (R3, by assumption); the lines in use join every
        island (R4, lazy cuts: a closed-off group needs a line out of it), and with no_loops form no
        cycle (cuts too)."""
        f = Formula()
        lines = sight_lines(H, W, list(isles))
        unit = f.grid("unit", max(len(lines), 1), maxb)[:len(lines)]
        for n in range(len(lines)):
            f.extend([[-int(unit[n, k + 1]), int(unit[n, k])] for k in range(maxb - 1)])
        f.extend([[-int(unit[a, 0]), -int(unit[b, 0])] for a, b in crossings(lines)])
        at: list[list[int]] = [[] for _ in isles]
        for n, (i, j, _, _) in enumerate(lines):
            at[i] += unit[n].tolist()
            at[j] += unit[n].tolist()
        counts = [f.count(x) for x in at]
        ends = [(i, j, int(unit[n, 0])) for n, (i, j, _, _) in enumerate(lines)]
        cuts = _network_cuts(len(isles), ends, no_loops)
        empty = [[WATER if (r, c) not in isles else 0 for c in range(W)] for r in range(H)]

        def decode(value: np.ndarray) -> list[list]:
            out = [list(row) for row in empty]
            for n, (_, _, letter, cells) in enumerate(lines):
                k = int(sum(value[unit[n]] > 0))
                for r, c in cells if k else ():
                    if out[r][c] == WATER:
                        out[r][c] = bridge_symbol(letter, k)
            return out

        # glucose: a new layout's solver starts in microseconds where CaDiCaL's takes milliseconds, and
        # the solver only answers yes/no questions here (which model it finds never reaches a puzzle)
        return Encoding(f, unit.ravel(), decode, cuts=cuts, cut_rule="R4", solver="glucose4",
                        extra={"counts": counts, "lines": lines, "unit": unit})

    def sample(self, rng: np.random.Generator, params: dict) -> tuple[dict, list[list]]:
        """Random boards until one is certified unique at the level (all in ``kernel.generate``):
        levels 0 and 1 take those that deduction with probing solves without the connectivity rule
        (grade <= 1), level 2 prefers
        ones beyond the rules alone (grade 1, or 2: proved unique by a complete search) for
        GRADE_TRIES draws."""
        from . import kernel

        W, H, maxb, level = params["W"], params["H"], int(params["max_bridges"]), int(params["tatham_difficulty"])
        no_loops = bool(params["no_loops"])
        buffers = _scratch(H, W)
        want = max(int(params["islands"]) * W * H // 100, 3)
        got = kernel.generate(H, W, want, int(params["expansion"]), maxb, not no_loops, level, GRADE_TRIES,
                              int(rng.integers(2**62)), *buffers)
        if got < 0:
            raise RuntimeError(f"could not generate a {W}x{H} Bridges puzzle")
        out = buffers[-1]
        n = H * W
        number, bridge = out[:n].tolist(), out[n:2 * n].tolist()
        sol = [[number[i] if number[i] >= 0 else KERNEL_SYMBOL[bridge[i]] for i in range(r * W, (r + 1) * W)]
               for r in range(H)]
        state = {"grid": [[v if v >= 0 else WATER for v in number[r * W:(r + 1) * W]] for r in range(H)],
                 "max_bridges": maxb, "no_loops": no_loops}
        return state, sol

    def sketch(self, instance: Instance, grid: list[list]) -> Sketch:
        text = [[str(v) if isinstance(v, int) else GLYPH.get(v, " " if v == WATER else "?") for v in row] for row in grid]
        colours = [["lightgray" if isinstance(v, int) else ("steelblue" if read_bridge(v) else None) for v in row]
                   for row in grid]
        return Sketch(len(grid), len(grid[0]), text, colours)

    def clue_count(self, instance: Instance) -> int:
        return len(self.givens(instance))  # the islands, every one numbered

    def clue_features(self, instance: Instance) -> np.ndarray:
        return np.asarray([[v if isinstance(v, int) else 0 for v in row] for row in instance.data["state"]["grid"]],
                          np.float32).ravel()


@functools.lru_cache(maxsize=8)
def _scratch(H: int, W: int) -> tuple:
    """``kernel.scratch`` for an H x W grid, kept (every generation of a preset reuses them)."""
    from . import kernel

    return kernel.scratch(H, W)


def _network_cuts(n: int, ends: list[tuple[int, int, int]], no_loops: bool):
    """The ``cuts`` callback: a model whose used lines split the islands gets, for each group but the
    largest, "some line leaving this group is used"; with ``no_loops`` a connected model with a cycle
    gets "not every line of this cycle is used". Both follow from the rules alone."""
    def cuts(value: np.ndarray) -> list[list[int]]:
        used = [(i, j, lit) for i, j, lit in ends if value[lit] > 0]
        root, up, spare = spread(range(n), [(i, j) for i, j, _ in used])
        members: dict[int, set] = {}
        for x in range(n):
            members.setdefault(root[x], set()).add(x)
        parts = sorted(members.values(), key=len)
        if len(parts) > 1:
            return [[lit for i, j, lit in ends if (i in part) != (j in part)] for part in parts[:-1]]
        if not no_loops or not spare:
            return []
        i, j, lit = used[spare[0]]
        return [[-lit] + [-used[k][2] for k in tree_path(up, i, j)]]

    return cuts
