"""FineReason parameters, declared once (:mod:`kumo_gym.core.params`).

``puzzle`` chooses the tree; each puzzle has its own size parameters, whose per-preset values
are data on the puzzle's rules class (``SudokuRules.presets`` ...). A size parameter of another
puzzle is refused with an error naming the parameters that apply. Prompt options
(``prompt=True``) never change which instance is drawn and consume no random draws; scoring
options (``transition_reward``, ``allow_confirming_noop``) only change how an answer is judged and
are left out of the item seed as well.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...core.errors import ConfigError
from ...core.params import Params, param
from .cluelang import SEMANTICS
from .items import PUZZLES, RULES
from .tree import UNSOLVABLE_MODES

LABEL_CHOICES = ("any", "solvable", "unsolvable")
TRANSITION_REWARDS = ("lenient", "strict")
#: parameters that belong to one puzzle only (the size parameters, and the grid's semantics)
PUZZLE_ONLY = {p: RULES[p].size_params() for p in PUZZLES}
PUZZLE_ONLY["logicgrid"] += ("grid_semantics", "allow_confirming_noop")
#: options that change only how an answer is judged (not the prompt, not the instance)
SCORING_OPTIONS = ("transition_reward", "allow_confirming_noop")


@dataclass(frozen=True)
class PuzzleParams(Params):
    """The puzzle and its sizes (every FineReason task)."""

    puzzle: str = param("sudoku", choices=PUZZLES, doc="the puzzle tree: sudoku, coloring, game24 or logicgrid")
    empty_cells: int = param(None, kind=int, lo=4, hi=58,
                             doc="sudoku: empty cells of the generated puzzle (presets 40 / 47 / 54)")
    n_vertices: int = param(None, kind=int, lo=4, hi=30, doc="coloring: vertices of the random graph (10 / 15 / 20)")
    slack: int = param(None, kind=int, lo=0, hi=5,
                       doc="coloring: colour budget k minus the chromatic number (1 / 1 / 0)")
    max_number: int = param(None, kind=int, lo=4, hi=99, doc="game24: the largest of the four numbers (9 / 13 / 20)")
    n_rows: int = param(None, kind=int, lo=3, hi=6, doc="logicgrid: entities, one table row each (3 / 4 / 5)")
    n_categories: int = param(None, kind=int, lo=2, hi=4,
                              doc="logicgrid: categories, the numeric first one included (3 / 3 / 3)")
    grid_semantics: str = param(None, kind=str, choices=SEMANTICS,
                                doc="logicgrid: how a clue is applied: 'canonical' (default, "
                                    "docs/specs/finereason.md §3) or 'finereason' (the reference builder's compat "
                                    "semantics, which accepts every reference transition)")

    def check(self) -> PuzzleParams:
        for puzzle, names in PUZZLE_ONLY.items():
            if puzzle == self.puzzle:
                continue
            for name in names:
                if name in self.specs_by_name() and getattr(self, name, None) is not None:
                    raise ConfigError(f"parameter {name!r} does not apply to puzzle {self.puzzle!r}; its own "
                                      f"parameters are: {', '.join(n for n in PUZZLE_ONLY[self.puzzle])}")
        return self

    @classmethod
    def specs_by_name(cls) -> set[str]:
        return {s.name for s in cls.specs()}


@dataclass(frozen=True)
class WalkParams(PuzzleParams):
    """Parameters of the tree walk: the puzzle and its sizes."""


@dataclass(frozen=True)
class CheckingParams(PuzzleParams):
    """Parameters of state-checking items (and the base of state transition)."""

    label: str = param("any", choices=LABEL_CHOICES,
                       doc="the label of the current state: any (50/50), solvable or unsolvable")
    depth: int = param(None, kind=int, lo=1, hi=60,
                       doc="moves from the root to the current state (default: uniform over the feasible depths)")
    unsolvable_mode: str = param(None, kind=str, choices=UNSOLVABLE_MODES,
                                 doc="how unsolvable states are drawn: first_wrong_step (the parent is solvable; "
                                     "sudoku's default) or any (a random descent into a dead subtree)")
    no_programming: bool = param(True, prompt=True, doc="ask the model to reason without writing a program")
    faithful_labels: bool = param(False, prompt=True,
                                  doc="reproduce the reference prompts: every ancestor labelled Solvable, and a "
                                      "reference row's own explored child shown even where it is defective")


@dataclass(frozen=True)
class TransitionParams(CheckingParams):
    """Parameters of state-transition items: the item's, plus how a move is judged."""

    transition_reward: str = param("lenient", choices=TRANSITION_REWARDS,
                                   doc="at a solvable state: 'lenient' (the paper's rule) pays any legal move "
                                       "except the explored child; 'strict' pays only moves to a solvable child")
    allow_confirming_noop: bool = param(None, kind=bool,
                                        doc="logicgrid: accept an unchanged table as the application of a clue "
                                            "that already holds (default: off, on with grid_semantics='finereason')")


def fill_presets(params: dict, default_difficulty: str) -> dict:
    """Complete resolved parameters: the puzzle's preset sizes and the depth bounds it allows."""
    p = dict(params)
    puzzle = p["puzzle"]
    diff = p.get("difficulty") or default_difficulty
    p["difficulty"] = diff
    for key, val in RULES[puzzle].presets[diff].items():
        if p.get(key) is None:
            p[key] = val
    if p.get("depth") is not None:
        lo = RULES[puzzle].min_depth
        # the deepest non-complete state each puzzle size allows (grids: known once clues are drawn)
        hi = {"sudoku": lambda: p["empty_cells"] - 1, "coloring": lambda: p["n_vertices"] - 2,
              "game24": lambda: 2, "logicgrid": lambda: 60}[puzzle]()
        if not lo <= p["depth"] <= hi:
            raise ConfigError(f"depth {p['depth']} is outside the valid range {lo}..{hi} for puzzle {puzzle!r}")
    return p


def presets_doc() -> str:
    """The ``Sizes per preset`` section of the manuals, from the puzzles' presets."""
    lines = ["| preset | " + " | ".join(PUZZLES) + " |", "|---|" + "---|" * len(PUZZLES)]
    for diff in ("easy", "normal", "hard"):
        cells = [", ".join(f"{k}={v}" for k, v in RULES[p].presets[diff].items()) for p in PUZZLES]
        lines.append(f"| {diff} | " + " | ".join(cells) + " |")
    return "\n\n    ## Sizes per preset\n    " + "\n    ".join(lines) + "\n"
