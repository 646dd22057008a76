"""Pattern (nonogram): docs/specs/grid_puzzles.md §5, §7; docs/specs/reasoning_graphs.md §6 "Other puzzles".

Claims: ``Black{r,c}`` / ``White{r,c}`` (solution; C* = the black cells; the answer writes 1 for
black and 0 for white), ``LineClue{axis,index,runs}`` (clue: the runs of a row or column, in
order; an empty line has ``runs: []``), ``Contradiction``.

Deduction model: one variable per cell; each row and column must show exactly its runs.
"""
from __future__ import annotations

from typing import Any

from ..deduce import Constraint, Model
from ..reading import Phrase
from ..schema import Pack
from .common import colour_model, colour_pack, lines, runs_of

BLACK, WHITE = 1, 0


def line_support(runs: list[int], doms: list[set]) -> list[set]:
    """For each cell of a nonogram line, the colours it has in some placement of ``runs`` that
    fits the cells' domains (all empty when none fits). Forward/backward reachability over
    (position, runs placed): O(length x runs x longest run)."""
    n, k = len(doms), len(runs)
    can_b = [BLACK in d for d in doms]
    can_w = [WHITE in d for d in doms]

    def moves(i, j):
        """Transitions from state (i, j): (next state, cells painted black, cell painted white or None)."""
        if i < n and can_w[i]:
            yield (i + 1, j), (), i
        if j < k:
            L = runs[j]
            if i + L <= n and all(can_b[i:i + L]):
                if i + L == n:
                    yield (n, j + 1), range(i, i + L), None
                elif can_w[i + L]:
                    yield (i + L + 1, j + 1), range(i, i + L), i + L

    reach = {(0, 0)}
    order = [(i, j) for i in range(n + 1) for j in range(k + 1)]
    for state in order:  # states only move to larger i: row-major order is topological
        if state in reach:
            for nxt, _, _ in moves(*state):
                reach.add(nxt)
    done = {(n, k)}
    for state in reversed(order):
        if any(nxt in done for nxt, _, _ in moves(*state)):
            done.add(state)
    out: list[set] = [set() for _ in range(n)]
    if (0, 0) not in done:
        return out
    for state in order:
        if state not in reach:
            continue
        for nxt, blacks, white in moves(*state):
            if nxt in done:
                for x in blacks:
                    out[x].add(BLACK)
                if white is not None:
                    out[white].add(WHITE)
    return out


class PatternPack(Pack):
    def clue_claims(self, instance: Any) -> list:
        st = instance.data["state"]
        return [("LineClue", {"axis": "ROW", "index": i, "runs": list(x)}) for i, x in enumerate(st["rows"])] + \
               [("LineClue", {"axis": "COL", "index": i, "runs": list(x)}) for i, x in enumerate(st["cols"])]

    def deduction_model(self, instance: Any) -> Model:
        st = instance.data["state"]
        H, W = len(st["rows"]), len(st["cols"])
        cons = []
        for axis, i, line in lines(H, W):
            runs = list((st["rows"] if axis == "ROW" else st["cols"])[i])
            cons.append(Constraint(tuple(line), lambda vals, runs=runs: runs_of(vals, BLACK) == runs,
                                   (("LineClue", {"axis": axis, "index": i, "runs": runs}),), name="line runs",
                                   support=lambda doms, runs=runs: line_support(runs, doms)))
        givens = {(r, c): v for r, c, v in st.get("filled", [])}
        return colour_model(instance.data["solution"], cons, BLACK, WHITE, givens=givens)


PACK = PATTERN = PatternPack(
    puzzle="pattern",
    **colour_pack(
        BLACK, WHITE, {"LineClue": {"axis": "axis", "index": "index", "runs": "runs"}},
        phrases=(
            *Phrase.group("LineClue", r"\b{line}(?:'s)? (?:clue|clues|hint|runs|blocks|numbers) (?:is|are|=|:|of|reads?) {runs}",
                                      r"\b(?:the )?(?:clue|clues|runs|hint|numbers) (?:for|of|in) {line} (?:is|are|=|:|reads?) {runs}",
                                      r"\b{line} (?:has|needs|wants) (?:the )?(?:clue|runs|blocks) {runs}",
                                      r"\b{line} (?:is|has) (?:a )?(?:clue|runs) \({runs}\)"),
            # where a run lies: "the 3 in column 3 must be (3, 3), (4, 3) and (5, 3)", "the run of 3 is (3, 2), ..."
            Phrase("Black", r"\b(?:the |its |that )?(?:run |block )?(?:of )?\d+ (?:in (?:row|column|col) \d+ )?(?:must be|is|are|covers|"
                            r"occupies|has to be)(?: then| therefore)? {cells}"),
        ),
        templates={
            "LineClue": ("the clue for {line} is {runs}", "{line}'s clue is {runs}", "{line} has the clue {runs}"),
        },
        black_words="black|shaded|filled|dark|painted|on",
        white_words="white|unshaded|empty|blank|unfilled|clear|unpainted|off|crossed out|crossed",
    ),
    claim_notes=("Black / White: the colour of cell (r, c). LineClue: the clue of a row (axis ROW) or column "
                 "(axis COL): the lengths of its black runs in order (left to right, top to bottom); [] for none."),
)
