"""Logic grid puzzles as a FineReason puzzle tree (docs/specs/finereason.md §2 row "Logic grid",
docs/specs/finereason.md §3).

State: a table (header row of category names, one row per entity, first column pre-filled, ``''``
= empty) together with the clues applied so far. Tree edge: apply one clue that has not been
applied yet (:func:`.cluelang.apply_clue`, canonical or FineReason-compat semantics). Label:
Solvable iff the filled cells extend to a full table satisfying every clue
(:func:`.cluelang.solvable_table`). The clue language lives in :mod:`.cluelang`, the English of
generated clues in :mod:`.cluetext`.

The generator draws a random solution over our own categories and adds random true clues until
the solution is unique, then drops the clues that uniqueness does not need.
"""
from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import ClassVar

import numpy as np

from ...core.errors import ConfigError, ParseError, check_int
from . import cluetext
from .cluelang import (
    SEMANTICS,
    apply_clue,
    as_value,
    clue_holds,
    domain_index,
    equal,
    forced_closure,
    mentioned_values,
    parse_clue,
    placed,
    solvable_table,
    solve_table,
    to_fraction,
)
from .search import GridTables
from .text import format_value
from .tree import MoveCheck, PuzzleRules, every_rule

MAX_ROWS, MAX_COLUMNS, MAX_CLUES = 6, 5, 80


def clue_order(data) -> list[str]:
    return sorted(data["clues"], key=lambda c: (int(c) if str(c).isdigit() else 10**9, str(c)))


class LogicGridRules(PuzzleRules):
    """The grid rules under one clue semantics (``canonical`` or ``finereason``, docs/specs/finereason.md §3)."""

    name = "logicgrid"
    min_depth = 1
    presets: ClassVar[dict] = {"easy": {"n_rows": 3, "n_categories": 3}, "normal": {"n_rows": 4, "n_categories": 3},
               "hard": {"n_rows": 5, "n_categories": 3}}

    def __init__(self, semantics: str = "canonical"):
        self.semantics = semantics

    def root(self, data):
        return {"table": [list(r) for r in data["initial"]], "applied": []}

    def children(self, data, state):
        out = []
        for cid in clue_order(data):
            if cid in state["applied"]:
                continue
            for t in apply_clue(data, state["table"], cid, self.semantics):
                out.append((cid, {"table": t, "applied": state["applied"] + [cid]}))
        return out

    def is_complete(self, data, state):
        return len(state["applied"]) == len(data["clues"])

    def solvable(self, data, state):
        return solvable_table(data, state["table"])

    def visible(self, state):
        return state["table"]

    def max_depth(self, data):
        return len(data["clues"]) - 1

    # ---- the judge --------------------------------------------------------------------------
    def _todo(self, data, table, cid) -> set:
        cond = data["clues"][cid]["conditions"]
        return {(j, format_value(x)) for j, x in mentioned_values(data, cond, self.semantics)
                if not placed(table, j, x)}

    def check_forward(self, data, parent, candidate, enabled=every_rule, allow_noop: bool = True):
        pt = parent["table"]
        unapplied = [c for c in clue_order(data) if c not in parent["applied"]]

        def applying(cid):
            return MoveCheck(child={"table": candidate, "applied": parent["applied"] + ([cid] if cid else [])})

        if candidate == pt:
            confirming = next((c for c in unapplied if not self._todo(data, pt, c)
                               and clue_holds(data["clues"][c]["conditions"], pt)), None)
            if confirming is not None and allow_noop:
                return applying(confirming)
            if enabled("changes_state"):
                return MoveCheck("changes_state", "no_change_confirming" if confirming else "no_change")
            return applying(confirming)
        if self.semantics == "finereason":  # every compat child, also after the forced-value closure
            for cid in unapplied:
                kids = apply_clue(data, pt, cid, self.semantics)
                if candidate in kids or candidate in [forced_closure(data, k) for k in kids]:
                    return applying(cid)
        changed = [(i, j) for i in range(1, len(pt)) for j in range(len(pt[0])) if candidate[i][j] != pt[i][j]]
        for i, j in changed:
            if pt[i][j] != "" and enabled("keeps_filled"):
                return MoveCheck("keeps_filled", "changed_filled_cell")
        for i, j in changed:
            if candidate[i][j] != "" and domain_index(data, j, candidate[i][j]) is None and enabled("allowed_values"):
                return MoveCheck("allowed_values", "value_out_of_range")
        if enabled("no_conflict"):
            for j in range(1, len(pt[0])):
                col = [format_value(r[j]) for r in candidate[1:] if r[j] != ""]
                if len(col) != len(set(col)):
                    return MoveCheck("no_conflict", "value_used_twice")
        written = {(j, format_value(candidate[i][j])) for i, j in changed if candidate[i][j] != ""}
        # the clues whose values are exactly what was written: one of them must hold
        matching = [c for c in unapplied if (written == self._todo(data, pt, c) if self.semantics == "canonical"
                                              else bool(written) and written <= self._todo(data, pt, c))]
        holding = next((c for c in matching if clue_holds(data["clues"][c]["conditions"], candidate)), None)
        if holding is not None:
            return applying(holding)
        if matching:
            return MoveCheck("no_conflict", "clue_false") if enabled("no_conflict") else applying(matching[0])
        if enabled("single_move"):
            return MoveCheck("single_move", "not_clue_application")
        return applying(None)

    def illegal_moves(self, data, state, rng, allow_noop: bool = True):
        pt = state["table"]
        unapplied = [c for c in clue_order(data) if c not in state["applied"]]
        out = []
        if not allow_noop or not any(not self._todo(data, pt, c) for c in unapplied):
            out.append(("changes_state", [list(r) for r in pt]))
        kids = self.children(data, state)
        for cid, kid in kids[:1] + kids[-1:]:
            t = kid["table"]
            if t == pt:
                continue
            new = [(i, j) for i in range(1, len(t)) for j in range(1, len(t[0])) if t[i][j] != pt[i][j]]
            i, j = new[0]
            bad = [list(r) for r in t]
            bad[i][j] = "nobody"  # a value of no column
            out.append(("allowed_values", bad))
            # one placed value written over a filled cell of its column instead of into an empty one
            for i2 in range(1, len(t)):
                if pt[i2][j] != "":
                    moved = [list(r) for r in t]
                    moved[i][j], moved[i2][j] = "", t[i][j]
                    if clue_holds(data["clues"][cid]["conditions"], moved):
                        out.append(("keeps_filled", moved))
                        break
            # a second clue applied in the same move
            for _cid2, kid2 in self.children(data, kid):
                written = {(jj, format_value(kid2["table"][ii][jj])) for ii in range(1, len(t))
                           for jj in range(1, len(t[0])) if kid2["table"][ii][jj] != pt[ii][jj]}
                if kid2["table"] != t and all(written != self._todo(data, pt, c) for c in unapplied):
                    out.append(("single_move", kid2["table"]))
                    break
        # the values of one clue placed so that the clue is false
        for cid in unapplied[:1] + unapplied[-1:]:
            todo = [(j, x) for j, x in mentioned_values(data, data["clues"][cid]["conditions"], self.semantics)
                    if not placed(pt, j, x)]
            if not todo or len(todo) > 3:
                continue
            import itertools

            rows = [[i for i in range(1, len(pt)) if pt[i][j] == ""] for j, _ in todo]
            for choice in itertools.islice(itertools.product(*rows), 200):
                if len({(j, i) for (j, _), i in zip(todo, choice)}) < len(todo):
                    continue
                t = [list(r) for r in pt]
                for (j, x), i in zip(todo, choice):
                    t[i][j] = x
                if not clue_holds(data["clues"][cid]["conditions"], t):
                    out.append(("no_conflict", t))
                    break
        return out

    def normalize(self, data, raw):
        header = data["initial"][0]
        n = len(data["initial"])
        if not (isinstance(raw, list) and len(raw) == n and all(isinstance(r, list) and len(r) == len(header)
                                                                  for r in raw)):
            raise ValueError(f"a table is a list of {n} rows of {len(header)} cells, the header first")
        if [str(x) for x in raw[0]] != header:
            raise ValueError(f"the first row must be the header {header}")
        out = [list(header)]
        for row in raw[1:]:
            cells = []
            for j, x in enumerate(row):
                if isinstance(x, bool) or not isinstance(x, (int, float, str)):
                    raise TypeError(f"cell {x!r} is not a value")
                if x == "":
                    cells.append("")
                    continue
                # quoted numbers and bare words map onto the column's own value when one matches
                k = domain_index(data, j, x)
                if k is None and isinstance(x, str):
                    v = to_fraction(x)
                    k = None if v is None else domain_index(data, j, v)
                cells.append(data["domains"][j][k] if k is not None else str(x) if isinstance(x, str) else x)
            out.append(cells)
        return out

    def format_state(self, state):
        table = state["table"] if isinstance(state, dict) else state
        return "[" + ",\n ".join(format_value(row) for row in table) + "]"

    def generate(self, rng, params):
        return generate_puzzle(rng, check_int("n_rows", params.get("n_rows", 4), 3, MAX_ROWS),
                               check_int("n_categories", params.get("n_categories", 3), 2, 4))

    def validate_data(self, data):
        validate_puzzle(data)

    def rules_text(self, data):
        return ("Logic grid puzzle: every entity (a row of the table) gets exactly one value from each "
                "category, and no value is used twice within a category. The clues decide the matching. In "
                "a table the first row names the categories and '' marks an empty cell.")

    def data_text(self, data):
        lines = [data["question"], "", "Categories:", data["categories"], "", "Clues:"]
        lines += [f"{cid}. {data['clues'][cid]['text']}" for cid in clue_order(data)]
        return "\n".join(lines)

    move_rule = ("A forward move applies one clue that has not been applied yet: it writes the values that "
                 "clue mentions and that are not yet in the table into empty cells, so that the clue holds. "
                 "Values are never filled in by elimination.")

    backward_rule = "A backward move takes back the clue applied last, returning to the previous state."

    def from_reference(self, inputs: dict, outputs: dict) -> dict:
        """Puzzle data from a reference ``gridpuzzle_*`` row.

        Domains are the columns of the stored solution when there is one, else the parsed
        ``categories`` text. The solution is kept; when it breaks one of the puzzle's own coded clues
        (our interpreter reads them exactly), labels follow the solution (``oracle = "solution"``),
        as the reference labels do.
        """
        initial = inputs.get("initial")
        clues = {str(k): {"text": str(v.get("text", "")), "conditions": str(v["conditions"])}
                 for k, v in inputs["clues"].items()}
        for c in clues.values():
            parse_clue(c["conditions"])
        sol = outputs.get("solution")
        if sol:
            domains = [sorted((row[j] for row in sol[1:]), key=format_value) for j in range(len(sol[0]))]
        else:
            domains = [vals for _, vals in parse_categories(inputs["categories"])]
        if initial is None:
            header = [name for name, _ in parse_categories(inputs["categories"])]
            initial = [header] + [[v] + [""] * (len(header) - 1) for v in domains[0]]
        data = {"question": str(inputs.get("question", "")), "categories": str(inputs.get("categories", "")),
                "clues": clues, "initial": initial, "domains": domains}
        if sol:
            data["solution"] = sol
            if not all(clue_holds(c["conditions"], sol) for c in clues.values()):
                data["oracle"] = "solution"
        return data


RULES = LogicGridRules("canonical")
#: a reference row read as puzzle data (:meth:`~.tree.PuzzleRules.load_question`)
load_question = RULES.load_question
RULES_BY_SEMANTICS = {"canonical": RULES, "finereason": LogicGridRules("finereason")}


# ---- checking puzzle data -----------------------------------------------------------------------
def _value_ok(x) -> bool:
    if isinstance(x, bool):
        return False
    if isinstance(x, int):
        return abs(x) <= 10**9
    if isinstance(x, float):
        v = as_value(x)
        return not isinstance(v, str) and abs(v) <= 10**9 and (v * 10**4).denominator == 1
    return isinstance(x, str) and 0 < len(x) <= 100


def validate_puzzle(data: dict) -> None:
    """Raise ConfigError naming the first bad field of logic-grid puzzle data."""
    initial, domains, clues = data.get("initial"), data.get("domains"), data.get("clues")
    if not (isinstance(initial, list) and 2 <= len(initial) <= MAX_ROWS + 1 and isinstance(initial[0], list)
            and 2 <= len(initial[0]) <= MAX_COLUMNS and all(isinstance(h, str) and h for h in initial[0])):
        raise ConfigError(f"puzzle_data.initial must be a header of 2 to {MAX_COLUMNS} category names and up to "
                          f"{MAX_ROWS} rows")
    n, m = len(initial) - 1, len(initial[0])
    if len(set(initial[0])) != m:
        raise ConfigError("puzzle_data.initial: the category names must be distinct")
    if not (isinstance(domains, list) and len(domains) == m and all(
            isinstance(d, list) and len(d) == n and all(_value_ok(x) for x in d) for d in domains)):
        raise ConfigError(f"puzzle_data.domains must be {m} lists of {n} values (numbers up to 1e9 with at most "
                          "4 decimals, or strings of 1 to 100 characters)")
    for j, d in enumerate(domains):
        if len({format_value(as_value(x)) for x in d}) != n:
            raise ConfigError(f"puzzle_data.domains[{j}] repeats a value")
    for i, row in enumerate(initial[1:], start=1):
        if not (isinstance(row, list) and len(row) == m):
            raise ConfigError(f"puzzle_data.initial[{i}] must have {m} cells")
        if domain_index(data, 0, row[0]) is None:
            raise ConfigError(f"puzzle_data.initial[{i}][0] = {row[0]!r} is not a value of the first category")
        for j, x in enumerate(row[1:], start=1):
            if x != "" and domain_index(data, j, x) is None:
                raise ConfigError(f"puzzle_data.initial[{i}][{j}] = {x!r} is not a value of {initial[0][j]!r}")
    if len({format_value(as_value(r[0])) for r in initial[1:]}) != n:
        raise ConfigError("puzzle_data.initial: the first column must hold every value of the first category once")
    if not (isinstance(clues, dict) and 1 <= len(clues) <= MAX_CLUES):
        raise ConfigError(f"puzzle_data.clues must be a dict of 1 to {MAX_CLUES} clues")
    for cid, c in clues.items():
        if not (isinstance(c, dict) and isinstance(c.get("text"), str) and isinstance(c.get("conditions"), str)):
            raise ConfigError(f"puzzle_data.clues[{cid!r}] must be {{'text': str, 'conditions': str}}")
        try:
            parse_clue(c["conditions"])
        except ParseError as e:
            raise ConfigError(f"puzzle_data.clues[{cid!r}].conditions: {e}") from None
    for key in ("question", "categories"):
        if not isinstance(data.get(key, ""), str):
            raise ConfigError(f"puzzle_data.{key} must be text")
    sol = data.get("solution")
    if sol is not None and not (isinstance(sol, list) and len(sol) == n + 1 and all(
            isinstance(r, list) and len(r) == m for r in sol)):
        raise ConfigError(f"puzzle_data.solution must be a table of {n + 1} rows of {m} cells")
    if data.get("oracle") not in (None, "solution") or (data.get("oracle") and sol is None):
        raise ConfigError("puzzle_data.oracle must be absent or 'solution' (with a solution table)")
    if sol is not None:
        if sorted(format_value(as_value(r[0])) for r in sol[1:]) != sorted(format_value(as_value(r[0]))
                                                                          for r in initial[1:]):
            raise ConfigError("puzzle_data.solution must have the first column of puzzle_data.initial")
        for j in range(m):
            col = [r[j] for r in sol[1:]]
            if any(domain_index(data, j, x) is None for x in col) or len({format_value(as_value(x))
                                                                          for x in col}) != n:
                raise ConfigError(f"puzzle_data.solution column {j} must hold each value of {initial[0][j]!r} once")


# ---- sources ---------------------------------------------------------------------------------
def parse_categories(text: str) -> list[tuple[str, list]]:
    """``name : v1, v2, ... .`` lines of the reference ``categories`` field."""
    out = []
    for line in str(text).splitlines():
        if ":" not in line:
            continue
        name, _, vals = line.partition(":")
        vals = vals.strip().rstrip(".")
        items = []
        for v in vals.split(","):
            v = v.strip()
            try:
                d = Decimal(v)
                items.append(int(d) if d == d.to_integral_value() and "." not in v else float(v))
            except (InvalidOperation, ValueError, OverflowError):
                items.append(v)
        out.append((name.strip(), items))
    return out


TABLES_FOR_GENERATION = 1_000_000
CLUE_WEIGHTS = {"same": 0.2, "differ": 0.15, "order": 0.2, "offset": 0.15, "either": 0.15, "neither": 0.15}


def generate_puzzle(rng, n_rows: int, n_categories: int, max_clues: int = MAX_CLUES) -> dict:
    """A puzzle with a unique solution over our own categories (see the module docstring)."""
    if not 2 <= n_categories <= len(cluetext.CATEGORIES) + 1:
        raise ConfigError(f"n_categories {n_categories} is outside the valid range 2..{len(cluetext.CATEGORIES) + 1}")
    scale = cluetext.SCALES[str(rng.choice(sorted(cluetext.SCALES)))]
    cats = [str(x) for x in rng.choice(sorted(cluetext.CATEGORIES), n_categories - 1, replace=False)]
    header = [scale.name] + cats
    firsts = [scale.start + scale.step * i for i in range(n_rows)]
    domains = [firsts] + [sorted(str(x) for x in rng.choice(cluetext.CATEGORIES[c].values, n_rows, replace=False))
                          for c in cats]
    cols = [firsts] + [[str(x) for x in rng.permutation(d)] for d in domains[1:]]
    sol = [header] + [[cols[j][i] for j in range(n_categories)] for i in range(n_rows)]
    initial = [header] + [[v] + [""] * (n_categories - 1) for v in firsts]
    data = {"question": cluetext.question(header, n_rows),
            "categories": "\n".join(f"{h} : {', '.join(map(str, d))}." for h, d in zip(header, domains)),
            "clues": {}, "initial": initial, "domains": domains}
    kinds = [k for k in cluetext.KINDS if n_categories >= 3 or k not in ("either", "neither")]
    weights = [CLUE_WEIGHTS[k] for k in kinds]
    # up to a million tables (every preset, and 6x3): all of them at once, filtered by each new
    # clue in one vectorised pass; beyond, one exact search per clue is cheaper
    space = None
    if GridTables.size(n_rows, n_categories) <= TABLES_FOR_GENERATION:
        space = GridTables(header, [[as_value(x) for x in d] for d in domains], list(range(n_rows)))
        alive, truths = np.ones(space.total, bool), []
    seen = set()
    while True:
        kind = str(rng.choice(kinds, p=[w / sum(weights) for w in weights]))
        made = cluetext.random_clue(rng, kind, header, sol)
        if made is None or made[1] in seen:
            continue
        text, cond = made
        seen.add(cond)
        assert clue_holds(cond, sol), cond
        data["clues"][str(len(data["clues"]) + 1)] = {"text": text, "conditions": cond}
        if space is not None:
            truths.append(space.holds(parse_clue(cond)))
            alive &= truths[-1]
            unique = np.count_nonzero(alive) == 1
        else:
            unique = solve_table(data, limit=2)[0] == 1
        if unique:
            break
        if len(data["clues"]) >= max_clues:
            raise ConfigError("could not make a unique logic grid puzzle; try fewer rows")
    # drop clues that are not needed for uniqueness (the last ones first), then renumber 1..m
    ids = list(data["clues"])
    if space is not None:
        held = np.sum(truths, axis=0)  # per table, how many kept clues hold
        kept = len(ids)
        for c in range(len(ids) - 1, -1, -1):
            rest = held - truths[c]
            if kept - 1 >= 2 and np.count_nonzero(rest == kept - 1) == 1:
                held, kept = rest, kept - 1
                del data["clues"][ids[c]]
    else:
        for cid in ids[::-1]:
            trial = {k: v for k, v in data["clues"].items() if k != cid}
            if len(trial) >= 2 and solve_table({**data, "clues": trial}, limit=2)[0] == 1:
                data["clues"] = trial
    data["clues"] = {str(i + 1): c for i, c in enumerate(data["clues"].values())}
    # the solution is unique by construction, so agreeing with it is the exact label (no search)
    data["solution"] = sol
    data["oracle"] = "solution"
    return data


__all__ = [
    "RULES",
    "RULES_BY_SEMANTICS",
    "SEMANTICS",
    "LogicGridRules",
    "apply_clue",
    "clue_holds",
    "clue_order",
    "equal",
    "format_value",
    "generate_puzzle",
    "load_question",
    "parse_categories",
    "parse_clue",
    "solvable_table",
    "solve_table",
    "validate_puzzle",
]
