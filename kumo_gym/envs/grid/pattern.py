"""Pattern, a nonogram (grid_puzzles.md §5 "Pattern"; Tatham's ``pattern``)."""
from __future__ import annotations

import re
from typing import ClassVar

import numpy as np

from ...core.errors import ConfigError, check_int
from ...core.instance import Instance
from ...solvers.sat import Formula, UniquenessOracle
from .base import Check, Encoding, GridTask, dump_state

BLACK, WHITE, EMPTY = 1, 0, -1


def runs(line: list) -> list[int]:
    """The lengths of the maximal black runs of ``line``, in order."""
    out, n = [], 0
    for v in line:
        if v == BLACK:
            n += 1
        elif n:
            out.append(n)
            n = 0
    if n:
        out.append(n)
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


class PatternTask(GridTask):
    """Pattern: a nonogram, paint the picture the run lengths describe.

    ## Description
    Every row and every column has a clue: the lengths of its blocks of consecutive black cells,
    in order (left to right, top to bottom). Blocks are separated by at least one white cell; an
    empty clue means the line is all white. grid_puzzles.md §5, Tatham's *Pattern*.

    ## Answer
    A JSON array of H rows of W integers: ``1`` black, ``0`` white (clues are not part of the
    grid). Any grid whose lines all match their clues scores 1.

    ## Presets
    ``trivial`` 2x2, ``easy`` 10x10, ``normal`` 15x15, ``hard`` 25x25 (the paper's Table 7).
    Explicit sizes: ``W``, ``H`` (1..50).

    Generation (§8): a random picture, smoothed into blobs the way Tatham's generator does
    (each cell replaced by the mean of its 3x3 neighbourhood, thresholded at the median), its clues
    derived, resampled until SAT certifies the picture is the only solution.

    ## Interactive mode
    ``{"r": row, "c": col, "v": 1}`` black, ``0`` white, ``-1`` clears. Cells pre-filled by an
    imported Tatham ID are fixed.

    ## Rule codes
    R1 each row's and each column's runs equal its clue; R2 pre-filled cells kept (imported IDs).
    """

    family = "pattern"
    title = "Pattern"
    difficulties: ClassVar[dict] = {
        "trivial": {"W": 2, "H": 2},
        "easy": {"W": 10, "H": 10},
        "normal": {"W": 15, "H": 15},
        "hard": {"W": 25, "H": 25},
    }
    param_names = ("W", "H", "backend")
    symbols = frozenset({BLACK, WHITE})
    state_keys = ("rows", "cols")
    empty = EMPTY

    # ---- parameters -----------------------------------------------------------------------
    def validate_params(self, params: dict) -> dict:
        p = dict(params)
        p["W"] = check_int("W", p.get("W", 10), 1, 50)
        p["H"] = check_int("H", p.get("H", p["W"]), 1, 50)
        return p

    def encode_params(self, params: dict, full: bool = True) -> str:
        return f"{params['W']}x{params['H']}"

    def decode_params(self, s: str) -> dict:
        m = re.fullmatch(r"(\d{1,3})(?:x(\d{1,3}))?", s.strip())
        if not m:
            raise ConfigError(f"Pattern parameter string {s!r} is not WxH")
        return self.validate_params({"W": int(m.group(1)), "H": int(m.group(2) or m.group(1))})

    # ---- Tatham description (§5 "Pattern" ID) -----------------------------------------------
    def decode_game_id(self, params: dict, desc: str) -> dict:
        W, H = params["W"], params["H"]
        clues, _, filled = desc.partition(",")
        parts = clues.split("/")
        if len(parts) != W + H:
            raise ConfigError(f"a {W}x{H} Pattern description needs {W + H} '/'-separated clues, got {len(parts)}")
        lines = []
        for i, part in enumerate(parts):
            if part == "":
                lines.append([])
                continue
            nums = part.split(".")
            if not all(n.isdigit() and len(n) <= 3 for n in nums) or any(int(n) == 0 for n in nums):
                raise ConfigError(f"Pattern clue {part[:20]!r} is not run lengths joined by '.'")
            run = [int(n) for n in nums]
            length = H if i < W else W
            if sum(run) + len(run) - 1 > length:
                raise ConfigError(f"Pattern clue {part[:20]!r} does not fit in a line of {length} cells")
            lines.append(run)
        state = {"rows": lines[W:], "cols": lines[:W]}
        if filled:
            state["filled"] = self._decode_filled(filled, W, H)
        return state

    @staticmethod
    def _decode_filled(text: str, W: int, H: int) -> list[list[int]]:
        """The ``,`` section, walked as Tatham's parser walks it: a letter skips (letter - 'a')
        unknown cells and then sets the next one (lower case white, upper case black); ``z``/``Z``
        skips 25 cells without setting, and a skip that reaches the end of the grid sets nothing.
        The section must end exactly at the end of the grid."""
        area = W * H
        out, pos, i = [], 0, 0
        while pos < area:
            if i >= len(text):
                raise ConfigError("the Pattern pre-filled section stops before the end of the grid")
            ch = text[i]
            i += 1
            if not ("a" <= ch <= "z" or "A" <= ch <= "Z"):
                raise ConfigError(f"unexpected character {ch!r} in the Pattern pre-filled section")
            skip = ord(ch.lower()) - ord("a")
            pos += skip
            if skip < 25 and pos < area:
                out.append([pos // W, pos % W, BLACK if ch.isupper() else WHITE])
                pos += 1
            if pos > area:
                raise ConfigError("the Pattern pre-filled section runs past the grid")
        if i < len(text):
            raise ConfigError("the Pattern pre-filled section runs past the grid")
        return out

    def encode_desc(self, instance: Instance) -> str:
        st = instance.data["state"]
        text = "/".join(".".join(map(str, run)) for run in st["cols"] + st["rows"])
        if st.get("filled"):
            H, W = self.dims(instance)
            out, last = [], 0
            for r, c, v in sorted(st["filled"]):
                skip = r * W + c - last
                while skip >= 25:
                    out.append("z")
                    skip -= 25
                out.append(chr((ord("A") if v == BLACK else ord("a")) + skip))
                last = r * W + c + 1
            rest = H * W - last
            while rest >= 25:
                out.append("z")
                rest -= 25
            if rest:
                out.append(chr(ord("a") + rest))  # a skip that lands on the end sets nothing
            text += "," + "".join(out)
        return text

    def aux_solution(self, instance: Instance, aux: str) -> list[list]:
        """Tatham's reference solution from a save file's AUXINFO (§4): ``S`` then 0/1 per cell."""
        H, W = self.dims(instance)
        if len(aux) != 1 + W * H or aux[0] != "S" or set(aux[1:]) - {"0", "1"}:
            raise ConfigError(f"Pattern AUXINFO {aux[:20]!r} is not S followed by {W * H} binary digits")
        return [[int(aux[1 + r * W + c]) for c in range(W)] for r in range(H)]

    # ---- SAT ------------------------------------------------------------------------------
    def _formula(self, H: int, W: int, rows: list, cols: list) -> tuple[Formula, dict]:
        f = Formula()
        x = {(r, c): f.var(("black", r, c)) for r in range(H) for c in range(W)}
        for r in range(H):
            encode_line(f, [x[r, c] for c in range(W)], rows[r], ("row", r))
        for c in range(W):
            encode_line(f, [x[r, c] for r in range(H)], cols[c], ("col", c))
        return f, x

    def encode(self, instance: Instance) -> Encoding:
        H, W = self.dims(instance)
        st = instance.data["state"]
        f, x = self._formula(H, W, st["rows"], st["cols"])
        for r, c, v in st.get("filled", []):
            f.add([x[r, c] if v == BLACK else -x[r, c]])

        def decode(true: set[int]) -> list[list]:
            return [[BLACK if x[r, c] in true else WHITE for c in range(W)] for r in range(H)]

        return Encoding(f, [x[k] for k in sorted(x)], decode, {"x": x})

    # ---- generator ------------------------------------------------------------------------
    @staticmethod
    def _picture(rng: np.random.Generator, H: int, W: int) -> list[list[int]]:
        """Random noise smoothed by neighbourhood averaging, thresholded at the median, as
        Tatham's generator does, so the picture has blobs rather than salt and pepper."""
        a = rng.random((H, W))
        # one smoothing pass: each cell becomes the mean of its in-grid 3x3 neighbourhood
        pad = np.pad(a, 1)
        ones = np.pad(np.ones((H, W)), 1)
        win = [(1 + dr, 1 + dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1)]
        a = sum(pad[r:r + H, c:c + W] for r, c in win) / sum(ones[r:r + H, c:c + W] for r, c in win)
        thr = np.median(a)
        return [[BLACK if a[r, c] > thr else WHITE for c in range(W)] for r in range(H)]

    def sample(self, rng: np.random.Generator, params: dict) -> tuple[dict, list[list]]:
        W, H = params["W"], params["H"]
        for _attempt in range(500):
            sol = self._picture(rng, H, W) if min(H, W) > 3 else \
                [[int(b) for b in row] for row in (rng.random((H, W)) < 0.5).tolist()]
            rows = [runs(row) for row in sol]
            cols = [runs([sol[r][c] for r in range(H)]) for c in range(W)]
            f, x = self._formula(H, W, rows, cols)
            keys = sorted(x)
            model = [x[k] if sol[k[0]][k[1]] == BLACK else -x[k] for k in keys]
            with UniquenessOracle(f.clauses, [x[k] for k in keys], model) as oracle:
                if oracle.unique([]):
                    return {"rows": rows, "cols": cols}, sol
        raise ConfigError(f"could not generate a unique {W}x{H} Pattern puzzle")

    # ---- rules ----------------------------------------------------------------------------
    def dims(self, instance: Instance) -> tuple[int, int]:
        st = instance.data["state"]
        return len(st["rows"]), len(st["cols"])

    def make_instance(self, params: dict, state: dict, solution: list[list] | None, source: str,
                      game_id: str | None = None, tatham_params: str | None = None, W: int | None = None,
                      H: int | None = None) -> Instance:
        """As the base, with the sizes read off the clue lists (the state has no grid)."""
        return super().make_instance(params, state, solution, source, game_id, tatham_params,
                                     W=len(state["cols"]) if W is None else W,
                                     H=len(state["rows"]) if H is None else H)

    def cell_values(self, instance: Instance) -> tuple:
        return (BLACK, WHITE)

    def givens(self, instance: Instance) -> dict:
        return {(r, c): v for r, c, v in instance.data["state"].get("filled", [])}

    def rule_checks(self, instance: Instance, grid: list[list]) -> list[Check]:
        H, W = self.dims(instance)
        st = instance.data["state"]
        checks = []
        for r in range(H):
            checks.append(Check("R1", [(r, c) for c in range(W)], runs(grid[r]) == list(st["rows"][r])))
        for c in range(W):
            checks.append(Check("R1", [(r, c) for r in range(H)],
                                runs([grid[r][c] for r in range(H)]) == list(st["cols"][c])))
        checks += [Check("R2", [(r, c)], grid[r][c] == v) for (r, c), v in sorted(self.givens(instance).items())]
        return checks

    def clue_count(self, instance: Instance) -> int:
        st = instance.data["state"]
        return sum(len(run) for run in st["rows"] + st["cols"])

    def clue_features(self, instance: Instance) -> np.ndarray:
        """Each line's clue padded to the longest possible run list ((length + 1) // 2 numbers)."""
        H, W = self.dims(instance)
        st = instance.data["state"]
        out = []
        for run, length in [(r, W) for r in st["rows"]] + [(c, H) for c in st["cols"]]:
            n = (length + 1) // 2
            out.extend(list(run) + [0] * (n - len(run)))
        return np.asarray(out, np.float32)

    # ---- text -----------------------------------------------------------------------------
    def state_json(self, instance: Instance) -> str:
        st = instance.data["state"]
        keys = self.state_keys + (("filled",) if st.get("filled") else ())
        return dump_state(st, keys)

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

    def answer_text(self, instance: Instance) -> str:
        return "give the colour of every cell as an integer: 1 for black, 0 for white (the clues are not part of the grid)."

    def draw(self, instance: Instance, grid: list[list]) -> str:
        """Row clues on the left, column clues stacked on top; ``#`` black, ``.`` white, ``?`` unset."""
        H, W = self.dims(instance)
        st = instance.data["state"]
        row_txt = [" ".join(map(str, run)) or "0" for run in st["rows"]]
        left = max(len(t) for t in row_txt)
        depth = max(len(run) for run in st["cols"]) or 1
        lines = []
        for d in range(depth):
            cells = []
            for run in st["cols"]:
                k = d - (depth - max(len(run), 1))
                val = (run[k] if run else 0) if k >= 0 else None
                cells.append(f"{val:>3}" if val is not None else "   ")
            lines.append(" " * (left + 1) + "".join(cells))
        mark = {BLACK: "#", WHITE: ".", EMPTY: "?"}
        for r in range(H):
            lines.append(f"{row_txt[r]:>{left}} " + "".join(f"  {mark.get(grid[r][c], '?')}" for c in range(W)))
        return "\n".join(lines)
