"""Tents: the exact pack of docs/specs/reasoning_graphs.md §6 ("Tents"); docs/specs/grid_puzzles.md §5, §7.

Claims: ``Tree``/``Quota`` (clues), ``Tent``/``NotTent`` (solution; C* = one ``Tent`` per tent),
``Remaining``, ``TreeCandidate``, ``LineCandidates`` (state), ``Contradiction``. The reader is
hand-tuned (hand-labelled fixtures in ``tests/analysis/fixtures``); ``choose_rule`` applies the
NotTent tie-breaks of docs/specs/grid_puzzles.md §6. The deduction model: one variable per non-tree cell, the line
counts, "every tree has a tent next to it", "tents never touch" and "a tent needs a tree next to it".
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ..deduce import Constraint, Model
from ..reading import Found, Reader
from ..schema import Pack
from ..text import LINE, LIST, LIST_OR, NEG, SUBJ, Norm, axis_of, tokens
from .common import cell_fields, lines, negations, neighbours4, neighbours8, pack_rules

_EMPTY = r"(?:empty|grass|blank|unoccupied|blocked|ruled\s+out|excluded|eliminated|impossible|free\s+of\s+tents)"
_TREE_REF = r"(?:the\s+)?(?:tree\s+(?:at\s+)?)?@\d+@"


def compiled(*patterns: str) -> tuple[re.Pattern, ...]:
    """The patterns compiled, in order (the reader tries them in this order)."""
    return tuple(re.compile(p) for p in patterns)


class TentsReader(Reader):
    """Tents: Tree, Quota, Tent, NotTent, Remaining, TreeCandidate (pack ``tents``)."""

    NOT_TENT = compiled(
        rf"\bno\s+tents?\s+(?:(?:can|could|may|will)\s+(?:go|be)\s+)?(?:at|in|on)\s+({LIST_OR})",
        rf"{SUBJ}({LIST_OR})\s+{NEG}\s+(?:be\s+|have\s+|hold\s+|contain\s+|get\s+|take\s+)?(?:a\s+)?tents?\b",
        rf"{SUBJ}({LIST})\s+(?:is|are|must\s+be|becomes?|stays?|remains?)\s+(?:all\s+|both\s+|also\s+|then\s+|"
            rf"now\s+|therefore\s+|definitely\s+)?{_EMPTY}\b",
        rf"\b(?:rules?\s+out|ruling\s+out|eliminates?|excludes?|mark|marks)\s+({LIST})(?:\s+as\s+(?:grass|empty))?",
        rf"\btents?\s+(?:at|in|on)\s+({LIST_OR})\s+(?:is|are|would\s+be)\s+(?:impossible|not\s+possible|"
            rf"ruled\s+out|invalid|illegal|not\s+allowed)",
        rf"\b(?:empty|grass|no\s+tents?)\s*:\s*({LIST})",
        rf"\b(?:cannot|can't|can\s+not)\s+(?:use|take|go\s+(?:to|in|at))\s+({LIST_OR})",
    )
    TENT = compiled(
        rf"\b(?:place|put|add|places|puts|placing|putting)\s+(?:a\s+|the\s+|its\s+)?tents?\s+"
            rf"(?:(?:of|for)\s+{_TREE_REF}\s+)?(?:at|in|on)\s+({LIST})(?!\s*(?:,\s*)?or\b)",
        rf"(?<!no\s)\btents?\s+(?:(?:for|of)\s+{_TREE_REF}\s+)?(?:must\s+be\s+|must\s+go\s+|goes\s+|is\s+|are\s+|"
            rf"will\s+be\s+|has\s+to\s+be\s+|is\s+then\s+|is\s+therefore\s+)?(?:at|in|on)\s+({LIST})(?!\s*(?:,\s*)?or\b)",
        rf"{SUBJ}({LIST})\s+(?:is|are|must\s+be|has\s+to\s+be|should\s+be|will\s+be|becomes?|gets)\s+"
            rf"(?:then\s+|therefore\s+|also\s+|definitely\s+)?(?:a\s+|the\s+)?tents?\b",
        r"\bonly\s+(?:possible\s+)?(?:place|cell|spot|option|candidate|position|choice)\b[^.;]{0,120}?\bis\s+(@\d+@)",
        rf"\btree\s+(?:at\s+)?@\d+@\s+(?:must\s+|can\s+only\s+|has\s+to\s+|will\s+|then\s+|therefore\s+)*"
            rf"(?:take|takes|use|uses|get|gets|gets\s+its\s+tent\s+at|have\s+its\s+tent\s+at)\s+({LIST})(?!\s*(?:,\s*)?or\b)",
        rf"\b(?:has|have|already\s+has|got)\s+(?:a\s+tent|one)\s+(?:at|in|on)\s+({LIST})(?!\s*(?:,\s*)?or\b)",
        rf"\b(?:with|having)\s+({LIST})\s+(?:as\s+)?(?:a\s+)?tents?\b",
    )
    TREE = compiled(
        rf"(?<!no\s)(?<!adjacent\s)\btrees?\s+(?:is\s+|are\s+)?(?:at|in|on)\s+({LIST})",
        rf"{SUBJ}({LIST})\s+(?:is|are)\s+(?:a\s+)?trees?\b",
        rf"\btrees?\s*:\s*({LIST})",
    )
    TREE_CAND = compiled(
        rf"\btree\s+(?:at\s+)?(@\d+@)\s+(?:needs|must\s+have|requires|has)\s+(?:its\s+|a\s+)?tent\s+(?:at|in|on)\s+({LIST_OR})",
        rf"\bcandidates?\s+for\s+(?:the\s+)?tree\s+(?:at\s+)?(@\d+@)\s*(?:is|are|:)\s*({LIST_OR})",
        rf"\btree\s+(?:at\s+)?(@\d+@)\s+(?:could|can|may|might)\s+(?:use|take|go\s+(?:to|at)|have\s+its\s+tent\s+at)\s+"
            rf"({LIST_OR})",
        rf"\b(?:options|spots|neighbours|neighbors|candidate\s+cells)\s+(?:for|of)\s+(?:the\s+)?tree\s+(?:at\s+)?(@\d+@)"
            rf"\s*(?:are|:)\s*({LIST_OR})",
    )
    QUOTA = compiled(
        rf"\b{LINE}\s*(?:'s)?\s*(?:clue|count|quota|target|number)\s*(?:is|=|of|:)\s*(\d+)",
        rf"\b{LINE}\s+(?:needs|requires|must\s+have|should\s+have|has\s+to\s+have|wants)\s+(?:exactly\s+)?(\d+)\s+tents?\b",
        rf"\b{LINE}\s*:\s*(\d+)\s+tents?\b",
        rf"\b{LINE}\s+has\s+(?:a\s+)?(?:clue|count)\s+(?:of\s+)?(\d+)",
        rf"\b{LINE}\s*,?\s+(?:whose|which\s+has\s+a|with\s+a)\s+(?:clue|count)\s+(?:is\s+|of\s+)?(\d+)",
        rf"\b{LINE}\s+has\s+its\s+(\d+)\s+tents?\b",
        rf"\b{LINE}\s+(?:needs|requires|has|wants)\s+(no)\s+tents\b",
        rf"\b(?:clue|count|quota)\s+(?:for|of)\s+{LINE}\s*(?:is|=|:)\s*(\d+)",
    )
    # "row 1 is full since its clue is 1": the clue of the last line named before it
    QUOTA_ITS = re.compile(r"\bits\s+(?:clue|count|quota)\s+(?:is|=|of)\s+(\d+)")
    REMAINING = compiled(
        rf"\b{LINE}\s+(?:now\s+|still\s+|then\s+|would\s+)?(?:needs?|requires?|has)\s+(\d+)\s+more\b",
        rf"\b{LINE}\s+(?:now\s+|still\s+|then\s+)?(?:needs|requires|has)\s+(\d+)\s+(?:tents?\s+)?(?:remaining|left)\b",
    )
    LINE_FULL = compiled(
        rf"\b{LINE}\s+(?:is\s+)?(?:now\s+|then\s+|already\s+)?(?:full|complete|satisfied|done|finished)\b",
        rf"\b{LINE}\s+(?:now\s+|then\s+)?(?:needs|requires)\s+no\s+more\b",
        rf"\b(?:uses|used|fills|filled|completes|completed)\s+up\s+{LINE}\b",
        rf"\b(?:uses\s+up|fills|completes)\s+{LINE}\b",
    )
    #: the readings of a line's count, in the order tried (the first at a position wins): kind, payload field
    LINE_COUNTS = ((REMAINING, "Remaining", "remaining"), (QUOTA, "Quota", "tents"), (LINE_FULL, "Remaining", "remaining"))
    # "it cannot be a tent": the cell named last before the pronoun
    IT_NOT = re.compile(rf"\b(?:it|this\s+cell|that\s+cell)\s+{NEG}\s+(?:be\s+|have\s+|hold\s+)?(?:a\s+)?tents?\b")
    IT_TENT = re.compile(r"\b(?:it|this\s+cell|that\s+cell)\s+(?:is|must\s+be|has\s+to\s+be)\s+(?:a\s+|the\s+)?tent\b")

    def read(self, norm: Norm) -> list[Found]:
        s = norm.text
        out: list[Found] = []
        used: set = set()

        def cells(kind, pat):
            for m in pat.finditer(s):
                for k in tokens(m.group(1)):
                    if k not in used:
                        used.add(k)
                        out.append(Found(kind, self.rc(norm, k), m.start(1) + m.group(1).find(f"@{k}@"), end=m.end()))

        for m in (mm for pat in self.TREE_CAND for mm in pat.finditer(s)):
            tree = tokens(m.group(1))[0]
            cand = tokens(m.group(2))
            if len(cand) > 1:
                t = self.rc(norm, tree)
                rs = [self.rc(norm, k)["r"] for k in cand]
                cs = [self.rc(norm, k)["c"] for k in cand]
                out.append(Found("TreeCandidate", {"tree_r": t["r"], "tree_c": t["c"], "cell_r": rs, "cell_c": cs},
                                  m.start(), tentative_ok=False, end=m.end()))
                used.update(cand)
        for pat in self.NOT_TENT:
            cells("NotTent", pat)
        for pat in self.TENT:
            cells("Tent", pat)
        for pat in self.TREE:
            cells("Tree", pat)
        for pat, kind in ((self.IT_NOT, "NotTent"), (self.IT_TENT, "Tent")):
            for m in pat.finditer(s):
                before = [(s.rfind(f"@{k}@", 0, m.start()), k) for k in range(len(norm.coords))]
                before = [x for x in before if x[0] >= 0]
                if before:
                    k = max(before)[1]
                    if k not in used:
                        used.add(k)
                        out.append(Found(kind, self.rc(norm, k), m.start(), end=m.end()))
        taken: set = set()
        # a line (groups 1, 2) and its count (group 3: a number or "no"; LINE_FULL has none: 0)
        for pats, kind, name in self.LINE_COUNTS:
            for m in (mm for pat in pats for mm in pat.finditer(s)):
                if m.start() in taken:
                    continue
                taken.add(m.start())
                n = int(m.group(3)) if m.re.groups > 2 and m.group(3) != "no" else 0
                out.append(Found(kind, {"axis": axis_of(m.group(1)), "index": self.idx(m.group(2)), name: n},
                                 m.start(), tentative_ok=False, end=m.end()))
        for m in self.QUOTA_ITS.finditer(s):
            lines = list(re.finditer(LINE, s[:m.start()]))
            if lines:
                last = lines[-1]
                out.append(Found("Quota", {"axis": axis_of(last.group(1)), "index": self.idx(last.group(2)),
                                            "tents": int(m.group(1))}, m.start(), tentative_ok=False, end=m.end()))
        return out


@dataclass(frozen=True)
class TentsPack(Pack):
    reader_class = TentsReader

    def rule_for(self, kind: str, kinds: set, output: tuple, inputs: list[tuple]) -> str | None:
        """docs/specs/grid_puzzles.md §6 "Tents": the rule for the output kind, with the NotTent tie-breaks in order."""
        if kind == "NotTent":
            zero_line = any(c[0] in ("Quota", "Remaining") and json.loads(c[1]).get(
                "tents" if c[0] == "Quota" else "remaining") == 0 for c in inputs)
            full_line = "Tent" in kinds and kinds & {"Quota", "Remaining"}
            if zero_line or full_line:
                return "R_LINE_BLOCK"
            if "Tent" in kinds:
                return "R_NO_TOUCH"
            return "R_CELL_NEEDS_TREE"
        if kind == "Tent":
            return "R_LINE_CAND" if kinds and kinds <= {"Quota", "Remaining", "LineCandidates", "NotTent"} \
                and "Tree" not in kinds and kinds & {"Quota", "Remaining", "LineCandidates"} else "R_ONLY_CAND"
        if kind == "TreeCandidate":
            return "R_ONLY_CAND"
        if kind == "LineCandidates":
            return "R_LINE_CAND"
        if kind == "Remaining":
            return "R_COUNT_REMAINING"
        return None

    def clue_claims(self, instance: Any) -> list:
        st = instance.data["state"]
        out = [("Tree", {"r": r, "c": c}) for r, row in enumerate(st["grid"]) for c, v in enumerate(row) if v == "T"]
        out += [("Quota", {"axis": "ROW", "index": i, "tents": k}) for i, k in enumerate(st["row_counts"])]
        out += [("Quota", {"axis": "COL", "index": i, "tents": k}) for i, k in enumerate(st["col_counts"])]
        return out

    def deduction_model(self, instance: Any) -> Model:
        st = instance.data["state"]
        grid, H, W = st["grid"], int(instance.data["H"]), int(instance.data["W"])
        sol = instance.data["solution"]
        trees = {(r, c) for r in range(H) for c in range(W) if grid[r][c] == "T"}
        cells = [(r, c) for r in range(H) for c in range(W) if (r, c) not in trees]
        cons = []
        for axis, i, line in lines(H, W):
            k = (st["row_counts"] if axis == "ROW" else st["col_counts"])[i]
            free = tuple(x for x in line if x not in trees)
            if free:
                cons.append(Constraint(free, lambda vals, k=k: sum(v == "A" for v in vals) == k,
                                       (("Quota", {"axis": axis, "index": i, "tents": k}),), name="line count"))
        for (r, c) in sorted(trees):
            free = tuple(x for x in neighbours4(r, c, H, W) if x not in trees)
            cons.append(Constraint(free, lambda vals: "A" in vals, (("Tree", {"r": r, "c": c}),),
                                   name="tree needs a tent"))
        for (r, c) in cells:
            for (a, b) in neighbours8(r, c, H, W):
                if (a, b) > (r, c) and (a, b) not in trees:
                    cons.append(Constraint(((r, c), (a, b)), lambda vals: vals != ("A", "A"), name="no touching"))
            if not any(x in trees for x in neighbours4(r, c, H, W)):
                cons.append(Constraint(((r, c),), lambda vals: vals == (".",), reason="no tree is next to it",
                                       name="tent needs a tree"))

        def fact(var, value):
            return ("Tent" if value == "A" else "NotTent"), {"r": var[0], "c": var[1]}

        return Model(domains={x: ("A", ".") for x in cells}, constraints=cons, fact=fact,
                     solution={x: ("A" if sol[x[0]][x[1]] == "A" else ".") for x in cells})


PACK = TENTS = TentsPack(
    puzzle="tents",
    kinds={
        "Tree": cell_fields(),
        "Quota": {"axis": "axis", "index": "index", "tents": "count"},
        "Tent": cell_fields(),
        "NotTent": cell_fields(),
        "Remaining": {"axis": "axis", "index": "index", "remaining": "count"},
        "TreeCandidate": {"tree_r": "r", "tree_c": "c", "cell_r": "rs", "cell_c": "cs"},
        "LineCandidates": {"axis": "axis", "index": "index", "cell_r": "rs", "cell_c": "cs"},
    },
    solution_kinds=frozenset({"Tent", "NotTent"}),
    clue_kinds=frozenset({"Tree", "Quota"}),
    rules=pack_rules("""
        R_COUNT_REMAINING Remaining
        R_LINE_BLOCK NotTent
        R_NO_TOUCH NotTent
        R_CELL_NEEDS_TREE NotTent
        R_ONLY_CAND TreeCandidate Tent
        R_LINE_CAND LineCandidates Tent
    """, discharge={"Tent", "NotTent"}),
    claim_notes=("Quota is the row/column clue; Remaining is how many tents a line still needs at "
                 "that point. TreeCandidate/LineCandidates list exactly the cells the text names "
                 "(cell_r[i], cell_c[i] is one cell). axis is ROW or COL."),
    rule_notes=("For NotTent prefer, in order: R_LINE_BLOCK (line full), R_NO_TOUCH (touches a "
                "tent), R_CELL_NEEDS_TREE (no adjacent tree), R_TENTATIVE_DISCHARGE (negates a "
                "branch assumption)."),
    **negations(Tent="NotTent"),
    count_kinds=frozenset({"Remaining"}),
    cstar_symbols={"A": "Tent"},
    answer_kinds={"A": "Tent", ".": "NotTent"},
    templates={
        "Tent": ("there is a tent at {cell}", "{cell} is a tent", "the tent goes at {cell}", "{cell} must be a tent",
                 "a tent must go at {cell}"),
        "NotTent": ("{cell} cannot be a tent", "there is no tent at {cell}", "{cell} is empty",
                    "no tent can go at {cell}", "{cell} is not a tent"),
        "Tree": ("there is a tree at {cell}", "the tree at {cell} needs a tent", "{cell} is a tree"),
        "Quota": ("{line} needs {tents} tent{tents_s}", "the clue for {line} is {tents}", "{line} has a count of {tents}"),
        "Remaining": ("{line} needs {remaining} more tent{remaining_s}",),
    },
)
