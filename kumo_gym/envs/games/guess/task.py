"""Guess (Tatham's Mastermind): find the hidden code from the black and white pegs of each guess."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ....core.capabilities import NearMiss
from ....core.errors import ConfigError, ParseError
from ....core.instance import Instance
from ....core.params import param
from ...planning import moves as mv
from ..base import AskingGame, GameParams
from .search import all_codes, play

GUESS_PARTIAL_CREDIT = (
    "1 when a guess names the hidden code within the guess limit; 0 otherwise. Guessing is a search for "
    "information whose value shows only in the end, and a share of the codes ruled out would pay guesses that "
    "merely look informative, so no partial credit is given; the efficiency measure is the number of guesses "
    "against the Knuth-style guesser's (optimal_length)")
PEG_HUES = [(200, 200, 200), (214, 39, 40), (31, 119, 180), (44, 160, 44), (255, 127, 14), (148, 103, 189),
            (140, 86, 75), (227, 119, 194), (188, 189, 34), (23, 190, 207), (60, 60, 60)]


@dataclass(frozen=True)
class GuessParams(GameParams):
    colours: int = param(6, lo=2, hi=10, doc="number of colours C (pegs are colours 1..C)")
    pegs: int = param(4, lo=2, hi=6, doc="pegs P in the code and in every guess")
    guesses: int = param(10, lo=1, hi=30, doc="guesses allowed (Tatham's limit)")
    blanks: bool = param(False, doc="a guess may leave pegs blank (0); the code never has blanks")
    multiple: bool = param(True, doc="a colour may appear more than once in the code and in guesses")

    def check(self) -> GuessParams:
        if not self.multiple and self.colours < self.pegs:
            raise ConfigError(f"without repeated colours there must be at least as many colours as pegs "
                              f"(colours={self.colours}, pegs={self.pegs})")
        if self.colours ** self.pegs > 40_000:
            raise ConfigError(f"{self.colours} colours on {self.pegs} pegs make {self.colours ** self.pegs} codes; "
                              "at most 40000 are supported")
        return self


class GuessTask(AskingGame):
    """Guess: find the hidden code of coloured pegs, guess by guess.

    ## Description
    A hidden code of ``P`` pegs, each a colour 1..``C`` (colours may repeat unless ``multiple`` is
    off). Each guess is a row of ``P`` colours; the answer is a number of black pegs (right colour in
    the right place) and white pegs (further pegs of a right colour in a wrong place). The game is
    won by a guess equal to the code, within ``G`` guesses. The reference player is a Knuth-style
    guesser (the guess whose worst answer leaves the fewest consistent codes); its number of guesses
    on the instance is ``optimal_length``, so efficiency is guesses used against it.

    ## Interactive (``mode="interactive"``)
    One guess per step, e.g. ``[1, 1, 2, 2]`` (the prompt's example has the instance's own peg
    count); the observation lists every guess so far with its
    black and white pegs. This is the game proper: each guess can use the answers so far.

    ## Answer (``mode="answer"``, default)
    Static Mastermind: ``moves = [[...], [...], ...]``, guesses fixed in advance and scored in order;
    solved when one of them, within the limit, is the code (nothing may follow it). Kept for the
    one-reply protocol of the suite; the interactive mode is the one that measures inference from
    feedback.
    """

    partial_credit: ClassVar[str] = GUESS_PARTIAL_CREDIT
    question = "guess"
    questions = "guesses"
    move_fields = "[colour, colour, ...] (one colour per peg)"
    move_example = "[1, 1, 2, 2]"
    example_game_id = "c6p4g10Bm:c4ddb96a"
    rule_codes = """
        wrong_length: a guess has exactly P pegs
        bad_colour: every peg is a colour 1..C (0, a blank, only where blanks are allowed, never all blank)
        repeated_colour: no colour appears twice in a guess where repeats are not allowed
        out_of_guesses: at most G guesses are made
    """
    tatham_presets: ClassVar[dict[str, str]] = {"tatham_standard": "c6p4g10Bm", "tatham_super": "c8p5g12Bm"}
    difficulties: ClassVar[dict[str, dict]] = {
        "trivial": {"colours": 3, "pegs": 2, "guesses": 6},
        "easy": {"colours": 4, "pegs": 3, "guesses": 8},
        "normal": {"colours": 6, "pegs": 4, "guesses": 10},
        "hard": {"colours": 6, "pegs": 4, "guesses": 6},
        "tatham_standard": {"colours": 6, "pegs": 4, "guesses": 10},
        "tatham_super": {"colours": 8, "pegs": 5, "guesses": 12},
    }
    default_difficulty = "normal"

    # ---- instance ----------------------------------------------------------------------
    def build(self, params: dict, rng: np.random.Generator) -> dict:
        c, p = params["colours"], params["pegs"]
        while True:
            code = [int(x) for x in rng.integers(1, c + 1, p)]
            if params["multiple"] or len(set(code)) == p:
                break
        data = {k: params[k] for k in ("colours", "pegs", "guesses", "blanks", "multiple")}
        data["code"] = code
        return self.with_game_id(data)

    # ---- rules -------------------------------------------------------------------------------------
    def _code(self, instance: Instance) -> tuple:
        return tuple(instance.data["code"])

    def initial_state(self, instance: Instance) -> tuple:
        return ()

    def goal_state(self, instance: Instance) -> tuple:
        code = self._code(instance)
        return ((code, len(code), 0),)

    def is_goal(self, instance: Instance, state: tuple) -> bool:
        return bool(state) and state[-1][0] == self._code(instance)

    def question_limit(self, instance: Instance) -> int:
        return int(instance.data["guesses"])

    def check_move(self, instance: Instance, state: tuple, move: list) -> str | None:
        d = instance.data
        off = self._disabled_rules
        if "wrong_length" not in off and len(move) != d["pegs"]:
            return "wrong_length"
        if "bad_colour" not in off:
            lo = 0 if d["blanks"] else 1
            if any(not lo <= x <= d["colours"] for x in move) or not any(move):
                return "bad_colour"
        if "repeated_colour" not in off and not d["multiple"]:
            used = [x for x in move if x]
            if len(set(used)) != len(used):
                return "repeated_colour"
        if "out_of_guesses" not in off and len(state) >= d["guesses"]:
            return "out_of_guesses"
        return None

    def apply(self, instance: Instance, state: tuple, move: list) -> tuple:
        code = self._code(instance)
        guess = tuple(int(x) for x in move)
        black = sum(a == b for a, b in zip(guess, code, strict=False))
        common = sum(min(guess.count(c), code.count(c)) for c in set(code))
        return (*state, (guess, black, common - black))

    def rules_of(self, instance: Instance) -> list[str]:
        return [r for r in self.rule_codes if r != "repeated_colour" or not instance.data["multiple"]]

    # ---- the reference guesser -----------------------------------------------------------------------
    def _plays(self, instance: Instance, state: tuple) -> list:
        d = instance.data
        history = [(g, b, w) for g, b, w in state]
        return [list(g) for g in play(self._code(instance), d["colours"], d["pegs"], d["multiple"], history)]

    def distance(self, instance: Instance, state: tuple) -> int | None:
        return len(self._plays(instance, state))

    def path_from(self, instance: Instance, state: tuple) -> list | None:
        return self._plays(instance, state)

    def near_misses(self, instance: Instance, rng: np.random.Generator) -> list[NearMiss]:
        """The planning near misses, plus for the guess limit: G legal guesses that miss, then the code."""
        out = [nm for nm in super().near_misses(instance, rng) if nm.rule != "out_of_guesses"]
        d = instance.data
        code = list(self._code(instance))
        wrong = [g for g in (list(map(int, r)) for r in self._catalog(instance)[:64]) if g != code]
        if len(wrong) >= d["guesses"]:
            out.append(NearMiss("out_of_guesses", wrong[: d["guesses"]] + [code]))
        return out

    # ---- moves ---------------------------------------------------------------------------------------
    def coerce_move(self, value: Any) -> list:
        if not isinstance(value, list) or not 1 <= len(value) <= 10 or any(isinstance(v, list) for v in value):
            raise ParseError(f"a guess is a flat list of colours, one per peg, got {str(value)[:60]}",
                             "malformed_move")
        return [mv.as_int(v) for v in value]

    def move_example_for(self, instance: Instance) -> str:
        """A guess of this instance's length and rules (pairs of colours where repeats are allowed,
        else 1..P), never the code itself: the prompt must not hold the answer."""
        d = instance.data
        p, c = d["pegs"], d["colours"]
        guess = [1 + (i // 2) % c for i in range(p)] if d["multiple"] else [1 + i % c for i in range(p)]
        if guess == list(self._code(instance)):
            guess = guess[1:] + guess[:1] if len(set(guess)) > 1 else [1 + guess[0] % c] * p
        return "[" + ", ".join(map(str, guess)) + "]"

    def is_single_move(self, value: Any) -> bool:
        return isinstance(value, list) and 1 <= len(value) <= 10 and not any(isinstance(v, list) for v in value)

    def _catalog(self, instance: Instance) -> np.ndarray:
        d = instance.data
        return all_codes(d["colours"], d["pegs"], d["multiple"])

    def move_catalog(self, instance: Instance) -> list:
        """Every code (blank pegs left out)."""
        return [list(map(int, g)) for g in self._catalog(instance)]

    def legal_moves(self, instance: Instance, state: tuple) -> list:
        return [] if len(state) >= instance.data["guesses"] else self.move_catalog(instance)

    def candidate_moves(self, instance: Instance, state: tuple) -> list:
        """Guesses that break each rule, then a few legal ones."""
        d = instance.data
        c, p = d["colours"], d["pegs"]
        out = [[1] * (p - 1), [1] * (p + 1), [c + 1] + [1] * (p - 1), [0] * p, [-1] + [1] * (p - 1)]
        if not d["blanks"]:
            out.append([0] + [1] * (p - 1))
        out += [[1, 1] + list(range(2, p)), [2, 2] + list(range(3, p + 1))]
        return out + [list(map(int, g)) for g in self._catalog(instance)[:20]]

    def encode_state(self, instance: Instance, state: tuple) -> np.ndarray:
        """Per guess slot: the pegs one-hot (blank or colour 1..C), then black and white over P."""
        d = instance.data
        c, p, g = d["colours"], d["pegs"], d["guesses"]
        width = p * (c + 1) + 2
        vec = np.zeros(g * width, np.float32)
        for i, (guess, b, w) in enumerate(state[:g]):
            for j, x in enumerate(guess[:p]):
                if 0 <= x <= c:
                    vec[i * width + j * (c + 1) + x] = 1.0
            vec[i * width + width - 2] = b / p
            vec[i * width + width - 1] = w / p
        return vec

    # ---- text ------------------------------------------------------------------------------------------
    def rules(self, instance: Instance) -> str:
        d = instance.data
        rep = "Colours may repeat." if d["multiple"] else "No colour appears twice."
        blank = " A guess may leave pegs blank (0), but not all of them." if d["blanks"] else ""
        return (f"You are playing Guess (Mastermind). A hidden code has {d['pegs']} pegs, each a colour numbered 1 to "
                f"{d['colours']}. {rep} Each guess is a list of {d['pegs']} colours.{blank} After each guess you are "
                "told how many pegs are black (the right colour in the right place) and how many are white (a "
                "colour that is in the code, but in another place; each code peg counts at most once). You win by "
                f"guessing the code exactly, within {d['guesses']} guesses.")

    def example(self) -> tuple[str, list]:
        return ("With 3 colours on 2 pegs, the guess [1, 2] scored 0 black and 2 white, so the code is [2, 1].",
                [[1, 2], [2, 1]])

    def other_examples(self) -> list[tuple[str, list]]:
        # answers only the code [4, 3], where the first example answers only [2, 1]: one of the two never answers
        desc = ("With 4 colours on 2 pegs, the guess [1, 2] scored 0 black and 0 white and the guess [3, 4] "
                "0 black and 2 white, so the code is [4, 3].")
        return [(desc, [[1, 2], [3, 4], [4, 3]])]

    def render_state(self, instance: Instance, state: tuple) -> str:
        if not state:
            return "No guesses yet."
        return "\n".join(f"Guess {i + 1}: {list(g)} -> {b} black, {w} white" for i, (g, b, w) in enumerate(state))

    def describe(self, instance: Instance) -> str:
        d = instance.data
        return (f"Find the hidden code of {d['pegs']} pegs (colours 1..{d['colours']}) in at most {d['guesses']} "
                "guesses.")

    def observation(self, instance: Instance, state: tuple, feedback: str = "", step: int = 0) -> str:
        head = f"{feedback}\n\n" if feedback else ""
        left = instance.data["guesses"] - len(state)
        return f"{head}Guesses made: {len(state)} ({left} left)\n{self.render_state(instance, state)}"

    def picture(self, instance: Instance, state: tuple) -> tuple[np.ndarray, dict]:
        from ... import raster

        d = instance.data
        p, g = d["pegs"], d["guesses"]
        cell = 28
        img = np.full((g * cell + 24, (p + 3) * cell + 24, 3), (250, 250, 250), np.uint8)
        places = {}
        for i in range(g):
            y0 = 12 + i * cell
            for j in range(p):
                x0 = 12 + j * cell
                colour = state[i][0][j] if i < len(state) and j < len(state[i][0]) else 0
                raster.fill(img, (x0 + 3, y0 + 3, x0 + cell - 3, y0 + cell - 3),
                            PEG_HUES[colour] if 0 <= colour < len(PEG_HUES) else PEG_HUES[-1])
            if i < len(state):
                raster.draw_text(img, f"{state[i][1]}B{state[i][2]}W", y0 + cell / 2, 12 + (p + 1.5) * cell, 1,
                                 raster.INK)
            places[("guess", str(i + 1))] = (10, y0, 12 + (p + 3) * cell, y0 + cell)
        return img, places

    def move_places(self, instance: Instance, move: Any) -> list:
        return []
