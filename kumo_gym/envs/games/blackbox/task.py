"""Black Box (Tatham's Black Box): fire rays into a box and deduce where the hidden balls are."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ....core.capabilities import NearMiss
from ....core.errors import ParseError
from ....core.instance import Instance
from ....core.params import param
from ...planning import moves as mv
from ..base import GRID_INK, LIGHT, AskingGame, GameParams
from . import codec
from .search import HIT, REFLECT, n_placements, n_rays, play, signature, table, trace

BLACKBOX_PARTIAL_CREDIT = (
    "1 when the final answer places balls that give every ray the same result as the hidden ones (Tatham's "
    "test: layouts no ray can tell apart are both right), within the allowed number of balls; 0 otherwise. Rays "
    "gather information whose value shows only in the final answer, and a share of balls placed right would pay "
    "answers that guess, so no partial credit is given; the efficiency measure is the number of rays against the "
    "reference player's (optimal_length counts its rays and its final answer)")
SIDES = {"t": "T", "top": "T", "r": "R", "right": "R", "b": "B", "bottom": "B", "l": "L", "left": "L"}
ANSWER_WORDS = ("balls", "ball", "answer")
#: answers listed in the move catalogue (every placement) only on boxes with at most this many placements
CATALOG_ANSWERS_MAX = 256
BALL_HUE, HIT_HUE, REFLECT_HUE = (40, 40, 40), (214, 39, 40), (31, 119, 180)


@dataclass(frozen=True)
class BlackboxParams(GameParams):
    w: int = param(8, lo=2, hi=codec.MAX_SIDE, doc="width of the box (columns)")
    h: int = param(8, lo=2, hi=codec.MAX_SIDE, doc="height of the box (rows)")
    minballs: int = param(5, lo=1, hi=codec.MAX_BALLS, doc="fewest hidden balls (Tatham's m)")
    maxballs: int = param(5, lo=1, hi=codec.MAX_BALLS, doc="most hidden balls (Tatham's M); the count is drawn "
                                                             "uniformly between the two")

    def check(self) -> BlackboxParams:
        codec.check_params(self.w, self.h, self.minballs, self.maxballs, codec.encode_params(self.__dict__))
        return self


def ray_name(w: int, h: int, ray: int) -> str:
    """``T3``, ``R0`` ...: the side and the column (top, bottom) or row (left, right) of a ray number."""
    if ray < w:
        return f"T{ray}"
    if ray < w + h:
        return f"R{ray - w}"
    if ray < 2 * w + h:
        return f"B{2 * w + h - 1 - ray}"
    return f"L{2 * w + 2 * h - 1 - ray}"


def ray_number(w: int, h: int, side: str, i: int) -> int | None:
    """The ray number of side and index, None when the index is off that side."""
    if not 0 <= i < (w if side in "TB" else h):
        return None
    return {"T": i, "R": w + i, "B": 2 * w + h - 1 - i, "L": 2 * w + 2 * h - 1 - i}[side]


class BlackboxTask(AskingGame):
    """Black Box: find the hidden balls in a box by firing rays in from its edges.

    ## Description
    A ``w`` x ``h`` box hides ``minballs``..``maxballs`` balls. A ray fired in from an edge square
    (``["T", col]``, ``["B", col]``, ``["L", row]``, ``["R", row]``) travels straight; a ball
    straight ahead absorbs it (a hit); a ball diagonally ahead turns it a quarter turn away from
    that ball (two such balls send it back); a ball diagonally in front of the entry square
    reflects it at once. Each ray is answered: hit, reflected (it came back out where it went in),
    or the edge square it came out of. The game ends with one answer naming every ball,
    ``["balls", [row, col], ...]``; it wins when those balls give every possible ray the same
    result as the hidden ones (Tatham's rule) and their number is allowed. The reference player
    (``search.py``) keeps the placements consistent with the answers and fires the most
    informative ray (exact minimax on tiny boxes); its rays plus the answer are
    ``optimal_length``, so efficiency is moves used against it.

    ## Interactive (``mode="interactive"``)
    One ray or the final answer per step, e.g. ``["L", 2]``; the observation lists every ray so
    far with its result. This is the game proper: each ray can use the answers so far. After the
    final answer the game is over.

    ## Answer (``mode="answer"``, default)
    ``moves = [["T", 0], ..., ["balls", [r, c], ...]]``: rays fixed in advance, then the answer.
    Kept for the one-reply protocol of the suite; only interactive play measures inference from
    the rays' results.
    """

    partial_credit: ClassVar[str] = BLACKBOX_PARTIAL_CREDIT
    move_fields = '["T" | "B", col] or ["L" | "R", row] to fire a ray; ["balls", [row, col], ...] to answer'
    move_example = '["L", 2]'

    @property
    def answer_format(self) -> str:
        return 'moves = [["L", 2], ["T", 0], ..., ["balls", [row, col], ...]]'
    example_game_id = "w5h5m3M3:26232f52f07fc593"
    rule_codes = """
        off_board: a ray enters at a square of that side (index 0..w-1 on top and bottom, 0..h-1 on the sides); a ball is inside the box
        already_known: a ray is fired only where no result is known yet (not again, not at the exit of an earlier ray)
        repeated_ball: the final answer names each cell at most once
        ball_count: the final answer names between minballs and maxballs balls
        game_over: nothing follows the final answer
    """
    difficulties: ClassVar[dict[str, dict]] = {
        "trivial": {"w": 3, "h": 3, "minballs": 1, "maxballs": 1},
        "easy": {"w": 4, "h": 4, "minballs": 2, "maxballs": 2},
        "normal": {"w": 5, "h": 5, "minballs": 3, "maxballs": 3},
        "hard": {"w": 6, "h": 6, "minballs": 3, "maxballs": 3},
        "tatham_5x5_3": {"w": 5, "h": 5, "minballs": 3, "maxballs": 3},
        "tatham_8x8_5": {"w": 8, "h": 8, "minballs": 5, "maxballs": 5},
        "tatham_8x8_3_6": {"w": 8, "h": 8, "minballs": 3, "maxballs": 6},
        "tatham_10x10_5": {"w": 10, "h": 10, "minballs": 5, "maxballs": 5},
        "tatham_10x10_4_10": {"w": 10, "h": 10, "minballs": 4, "maxballs": 10},
    }
    tatham_presets: ClassVar[dict[str, str]] = {
        "tatham_5x5_3": "w5h5m3M3", "tatham_8x8_5": "w8h8m5M5", "tatham_8x8_3_6": "w8h8m3M6",
        "tatham_10x10_5": "w10h10m5M5", "tatham_10x10_4_10": "w10h10m4M10"}
    default_difficulty = "normal"

    # ---- instance ----------------------------------------------------------------------
    def build(self, params: dict, rng: np.random.Generator) -> dict:
        w, h = params["w"], params["h"]
        n = int(rng.integers(params["minballs"], params["maxballs"] + 1))
        cells = rng.choice(w * h, size=n, replace=False)
        data = {k: params[k] for k in ("w", "h", "minballs", "maxballs")}
        data["balls"] = [[int(c) // w, int(c) % w] for c in cells]
        return self.with_game_id(data)

    # ---- rules -------------------------------------------------------------------------------------
    def _dims(self, instance: Instance) -> tuple[int, int, int, int]:
        d = instance.data
        return d["w"], d["h"], d["minballs"], d["maxballs"]

    def _truth(self, instance: Instance) -> tuple:
        return tuple(sorted(tuple(b) for b in instance.data["balls"]))

    def _signature(self, instance: Instance, balls: tuple) -> tuple:
        w, h, _, _ = self._dims(instance)
        if balls == self._truth(instance):
            return self.cached(instance, "signature", lambda: signature(w, h, balls))
        return signature(w, h, balls)

    def initial_state(self, instance: Instance) -> tuple:
        """(the rays fired, as (ray number, result) pairs; the final answer as sorted cells, or None)."""
        return ((), None)

    def goal_state(self, instance: Instance) -> tuple:
        return ((), self._truth(instance))

    def is_goal(self, instance: Instance, state: tuple) -> bool:
        answer = state[1]
        if answer is None:
            return False
        _, _, lo, hi = self._dims(instance)
        return lo <= len(answer) <= hi and self._signature(instance, answer) == self._signature(
            instance, self._truth(instance))

    def _known(self, state: tuple) -> set[int]:
        out = set()
        for ray, result in state[0]:
            out.add(ray)
            if result >= 0:
                out.add(result)
        return out

    def question_limit(self, instance: Instance) -> int:
        """Every entry square fired once, then the final answer."""
        d = instance.data
        return 2 * (d["w"] + d["h"]) + 1

    def check_move(self, instance: Instance, state: tuple, move: list) -> str | None:
        w, h, lo, hi = self._dims(instance)
        off = self._disabled_rules
        if "game_over" not in off and state[1] is not None:
            return "game_over"
        if move[0] == "balls":
            cells = move[1:]
            if "off_board" not in off and any(not (0 <= r < h and 0 <= c < w) for r, c in cells):
                return "off_board"
            if "repeated_ball" not in off and len({tuple(x) for x in cells}) != len(cells):
                return "repeated_ball"
            if "ball_count" not in off and not lo <= len({tuple(x) for x in cells}) <= hi:
                return "ball_count"
            return None
        ray = ray_number(w, h, move[0], move[1])
        if "off_board" not in off and ray is None:
            return "off_board"
        if "already_known" not in off and ray in self._known(state):
            return "already_known"
        return None

    def apply(self, instance: Instance, state: tuple, move: list) -> tuple:
        w, h, _, _ = self._dims(instance)
        if move[0] == "balls":
            return (state[0], tuple(sorted({(r % h, c % w) for r, c in move[1:]})))
        ray = ray_number(w, h, move[0], move[1])
        if ray is None:
            raise IndexError(f"ray {move} is off the box")
        return ((*state[0], (ray, trace(w, h, self._truth(instance), ray))), state[1])

    # ---- the reference player ----------------------------------------------------------------------
    def _answer(self, instance: Instance) -> list:
        return ["balls", *[list(b) for b in self._truth(instance)]]

    def _plays(self, instance: Instance, state: tuple) -> list:
        w, h, lo, hi = self._dims(instance)
        if state[1] is not None:
            return []
        rays = play(w, h, lo, hi, self._truth(instance), state[0])
        return [list(self._ray_move(instance, r)) for r in rays] + [self._answer(instance)]

    def _ray_move(self, instance: Instance, ray: int) -> list:
        w, h, _, _ = self._dims(instance)
        name = ray_name(w, h, ray)
        return [name[0], int(name[1:])]

    def distance(self, instance: Instance, state: tuple) -> int | None:
        if state[1] is not None:
            return 0 if self.is_goal(instance, state) else None
        return len(self._plays(instance, state))

    def path_from(self, instance: Instance, state: tuple) -> list | None:
        if state[1] is not None:
            return [] if self.is_goal(instance, state) else None
        return self._plays(instance, state)

    def near_misses(self, instance: Instance, rng: np.random.Generator) -> list[NearMiss]:
        """The planning near misses, plus for ``game_over``: a wrong final answer, then the right one."""
        out = [nm for nm in super().near_misses(instance, rng) if nm.rule != "game_over"]
        gold = [list(m) for m in self.solve(instance)]
        wrong = self._wrong_answer(instance)
        if wrong is not None:
            out.append(NearMiss("game_over", gold[:-1] + [wrong, gold[-1]]))
        return out

    def _wrong_answer(self, instance: Instance) -> list | None:
        """An allowed answer that is not right: the hidden balls with one moved to another cell."""
        w, h, _, _ = self._dims(instance)
        truth = list(self._truth(instance))
        for r in range(h):
            for c in range(w):
                if (r, c) in truth:
                    continue
                cand = tuple(sorted(truth[1:] + [(r, c)]))
                if self._signature(instance, cand) != self._signature(instance, tuple(truth)):
                    return ["balls", *[list(b) for b in cand]]
        return None

    # ---- moves ---------------------------------------------------------------------------------------
    def coerce_move(self, value: Any) -> list:
        if not self.is_single_move(value):
            raise ParseError('a Black Box move is ["T", col], ["B", col], ["L", row], ["R", row] or '
                             f'["balls", [row, col], ...], got {str(value)[:60]}', "malformed_move")
        word = value[0].strip().lower()[:8]
        if word in ANSWER_WORDS:
            cells = value[1:]
            if len(cells) > 1024 or any(not isinstance(x, list) or len(x) != 2 for x in cells):
                raise ParseError(f'the final answer is ["balls", [row, col], ...], got {str(value)[:60]}',
                                 "malformed_move")
            return ["balls", *[[mv.as_int(x[0]), mv.as_int(x[1])] for x in cells]]
        side = SIDES.get(word)
        if side is None:
            raise ParseError(f'a ray enters from side "T", "B", "L" or "R" (or the answer "balls"), got '
                             f'{value[0][:20]!r}', "malformed_move")
        if len(value) != 2 or isinstance(value[1], list):
            raise ParseError(f'a ray is [side, index] such as ["L", 2], got {str(value)[:60]}', "malformed_move")
        return [side, mv.as_int(value[1])]

    def is_single_move(self, value: Any) -> bool:
        return isinstance(value, list) and len(value) >= 1 and isinstance(value[0], str)

    def format_move(self, move: Any) -> str:
        if move and move[0] == "balls":
            return '["balls", ' + ", ".join(f"[{r}, {c}]" for r, c in move[1:]) + "]"
        return super().format_move(move)

    def _rays(self, instance: Instance) -> list:
        w, h, _, _ = self._dims(instance)
        return [self._ray_move(instance, r) for r in range(n_rays(w, h))]

    def move_catalog(self, instance: Instance) -> list:
        """Every ray, and on boxes of at most 256 placements every answer."""
        w, h, lo, hi = self._dims(instance)
        out = self._rays(instance)
        if n_placements(w, h, lo, hi) <= CATALOG_ANSWERS_MAX:
            out += [["balls", *[[c // w, c % w] for c in p]] for p in table(w, h, lo, hi)[0]]
        return out

    def legal_moves(self, instance: Instance, state: tuple) -> list:
        if state[1] is not None:
            return []
        known = self._known(state)
        w, h, _, _ = self._dims(instance)
        return [m for m in self.move_catalog(instance)
                if m[0] == "balls" or ray_number(w, h, m[0], m[1]) not in known]

    def candidate_moves(self, instance: Instance, state: tuple) -> list:
        """Moves that break each rule, then the legal rays."""
        w, h, lo, hi = self._dims(instance)
        truth = [list(b) for b in self._truth(instance)]
        known = sorted(self._known(state))
        out = [["T", w], ["L", h], ["B", -1], ["R", -1], ["balls", [h, 0], *truth[1:]], ["balls", [0, -1], *truth[1:]]]
        out += [self._ray_move(instance, r) for r in known[:4]]
        out += [["balls", *truth, truth[0]]]
        spare = [[r, c] for r in range(h) for c in range(w) if [r, c] not in truth]
        out += [["balls", *truth[: lo - 1]] if lo > 1 else ["balls"], ["balls", *truth, *spare[: hi + 1 - len(truth)]]]
        return out + [m for m in self._rays(instance) if ray_number(w, h, m[0], m[1]) not in known]

    def encode_state(self, instance: Instance, state: tuple) -> np.ndarray:
        """Per edge square: result known, hit, reflected, and the exit square's number over the ray count;
        then whether the final answer is given."""
        w, h, _, _ = self._dims(instance)
        r = n_rays(w, h)
        vec = np.zeros(4 * r + 1, np.float32)
        for ray, result in state[0]:
            if not 0 <= ray < r:
                continue
            vec[4 * ray] = 1.0
            if result == HIT:
                vec[4 * ray + 1] = 1.0
            elif result == REFLECT:
                vec[4 * ray + 2] = 1.0
            else:
                vec[4 * ray + 3] = result / r
                vec[4 * result] = 1.0
                vec[4 * result + 3] = ray / r
        vec[-1] = float(state[1] is not None)
        return vec

    # ---- text ------------------------------------------------------------------------------------------
    def _count_text(self, instance: Instance) -> str:
        _, _, lo, hi = self._dims(instance)
        return f"{lo} ball{'s' * (lo != 1)}" if lo == hi else f"between {lo} and {hi} balls"

    def rules(self, instance: Instance) -> str:
        w, h, _, _ = self._dims(instance)
        return (f"You are playing Black Box. A box of {h} rows and {w} columns (row 0 at the top, column 0 at the "
                f"left) hides {self._count_text(instance)}, at most one per cell. You learn where they are by "
                'firing rays into the box from its edge: ["T", c] enters column c from the top, ["B", c] from the '
                'bottom, ["L", r] enters row r from the left and ["R", r] from the right. A ray goes straight '
                "until something happens: if the next cell ahead holds a ball the ray is absorbed (a hit); if a "
                "cell diagonally ahead holds a ball the ray turns by a right angle, away from that ball (with "
                "balls diagonally ahead on both sides it turns back the way it came); if a ball sits diagonally "
                "in front of the edge square where the ray enters, the ray is turned back at once. Each ray is "
                "answered: hit, reflected (it came back out at its own entry square), or the edge square where "
                "it left the box. A ray may not be fired where the result is already known (its own square or "
                'the exit of an earlier ray). When you are ready, give one final answer ["balls", [row, col], '
                "...] naming every ball; nothing can follow it. It is right when your balls would give every "
                "possible ray the same result as the hidden ones.")

    def example(self) -> tuple[str, list]:
        desc = ("In a 3x3 box with one ball, the ray [\"L\", 1] was a hit, so the ball is in row 1; the ray "
                "[\"T\", 1] was a hit too, so the ball is at row 1, column 1.")
        return (desc,
                [["L", 1], ["T", 1], ["balls", [1, 1]]])

    def other_examples(self) -> list[tuple[str, list]]:
        desc = ("In a 3x3 box with one ball, the ray [\"L\", 0] was a hit and the ray [\"T\", 2] was a hit, so the "
                "ball is at row 0, column 2.")
        return [(desc, [["L", 0], ["T", 2], ["balls", [0, 2]]])]

    def _result_text(self, instance: Instance, result: int) -> str:
        w, h, _, _ = self._dims(instance)
        if result == HIT:
            return "hit"
        if result == REFLECT:
            return "reflected"
        name = ray_name(w, h, result)
        return f'came out at ["{name[0]}", {name[1:]}]'

    def render_state(self, instance: Instance, state: tuple) -> str:
        w, h, _, _ = self._dims(instance)
        lines = [f'Ray {i + 1}: ["{ray_name(w, h, ray)[0]}", {ray_name(w, h, ray)[1:]}] -> '
                 f"{self._result_text(instance, result)}" for i, (ray, result) in enumerate(state[0])]
        if state[1] is not None:
            lines.append("Final answer: balls at " + ", ".join(f"[{r}, {c}]" for r, c in state[1]))
        return "\n".join(lines) if lines else "No rays fired yet."

    def describe(self, instance: Instance) -> str:
        w, h, _, _ = self._dims(instance)
        return f"Find the {self._count_text(instance)} hidden in the {h}x{w} box (rows x columns)."

    def observation(self, instance: Instance, state: tuple, feedback: str = "", step: int = 0) -> str:
        head = f"{feedback}\n\n" if feedback else ""
        return f"{head}Rays fired: {len(state[0])}\n{self.render_state(instance, state)}"

    def picture(self, instance: Instance, state: tuple) -> tuple[np.ndarray, dict]:
        from ... import raster

        w, h, _, _ = self._dims(instance)
        cell, pad = 26, 8
        img = np.full(((h + 2) * cell + 2 * pad, (w + 2) * cell + 2 * pad, 3), LIGHT, np.uint8)
        places = {}
        for r in range(h):
            for c in range(w):
                box = (pad + (c + 1) * cell, pad + (r + 1) * cell, pad + (c + 2) * cell, pad + (r + 2) * cell)
                raster.frame(img, box, 1, GRID_INK)
                if state[1] is not None and (r, c) in state[1]:
                    raster.fill(img, (box[0] + 6, box[1] + 6, box[2] - 6, box[3] - 6), BALL_HUE)
                places[("cell", f"({r},{c})")] = box
        marks = {}
        for i, (ray, result) in enumerate(state[0]):
            marks[ray] = ("H", HIT_HUE) if result == HIT else ("R", REFLECT_HUE) if result == REFLECT else (
                str(i + 1), raster.INK)
            if result >= 0:
                marks[result] = (str(i + 1), raster.INK)
        for ray in range(n_rays(w, h)):
            name = ray_name(w, h, ray)
            k = int(name[1:])
            gx, gy = {"T": (k + 1, 0), "B": (k + 1, h + 1), "L": (0, k + 1), "R": (w + 1, k + 1)}[name[0]]
            box = (pad + gx * cell, pad + gy * cell, pad + (gx + 1) * cell, pad + (gy + 1) * cell)
            places[("ray", name)] = box
            if ray in marks:
                text, hue = marks[ray]
                raster.draw_text(img, text, (box[1] + box[3]) / 2, (box[0] + box[2]) / 2, 1, hue)
        return img, places

    def move_places(self, instance: Instance, move: Any) -> list:
        if isinstance(move, list) and move and move[0] == "balls":
            return [("cell", f"({r},{c})") for r, c in move[1:] if isinstance(r, int) and isinstance(c, int)]
        if isinstance(move, list) and len(move) == 2 and isinstance(move[0], str) and isinstance(move[1], int):
            return [("ray", f"{move[0]}{move[1]}")]
        return []


