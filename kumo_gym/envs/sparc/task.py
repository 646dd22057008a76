"""The SPaRC task: answer and interactive modes over one puzzle model (docs/specs/sparc.md §1-§13)."""
from __future__ import annotations

import dataclasses
import itertools
import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from ...core.capabilities import AnswerPicture, CheapAnswer, NearMiss
from ...core.errors import ConfigError, ContaminationError, ParseError, UnsolvableInstanceError
from ...core.extract import looks_truncated, split_thinking
from ...core.instance import Instance, integral_floats
from ...core.params import Params, param
from ...core.task import StepwiseTask, Transition
from ...core.verdict import Verdict, too_long
from . import text as tx
from .generate import RULE_SETS, RULE_TYPES, SAMPLERS, border_walks, generate, long_path, shortest_line
from .integrity import prefix_credit
from .official import FAMILY, instance_from_record, is_official, known_official, read_records
from .puzzle import COLOURS, SparcPuzzle, is_cell
from .render import point_box, render_rgb
from .rules import PATH_RULES, check_path
from .search import POLY, SQUARE, STAR, TRIANGLE, YLOP, enumerate_solutions

LEVELS = ("1", "2", "3", "4", "5")
SCORINGS = ("rules", "exact")
#: channels of :meth:`SparcTask.encode_state` (each a 13 x 13 plane, the largest grid)
STATE_CHANNELS = ("line", "gap", "dot", "visited", "head", "end", "square", "star", "triangle", "poly", "ylop",
                  "colour")
MAX_GRID = 13

#: every rule the verifier checks (docs/specs/sparc.md §5, §6): the path rules, then the rules of the symbols
RULE_CODES = {
    "start_end": "the line starts at S and ends at E",
    "connected": "consecutive positions of the line are one step apart (up, down, left or right)",
    "no_revisit": "the line never visits a position twice",
    "no_rule_cell": "the line never enters a rule cell (both coordinates odd)",
    "in_bounds": "every position of the line lies inside the grid",
    "gap": "the line never passes through a gap",
    "dot": "the line passes through every dot",
    "square": "all squares in one region have the same colour",
    "star": "the region of each star holds exactly two symbols of the star's colour, the star included",
    "triangle": "the line passes over exactly as many of a triangle cell's four edges as triangles are shown",
    "poly": "the polyominoes of a region, less its negative ones, cover it exactly (translated only)",
}


def _canonical_rules(value) -> str | None:
    """``rules`` as a rule-set name or a comma-joined list of rule types in canonical order."""
    if value is None:
        return None
    if isinstance(value, str):
        if value in RULE_SETS:
            return value
        parts = [t.strip() for t in value.replace("+", ",").split(",") if t.strip()]
    elif isinstance(value, (list, tuple)):
        parts = list(value)
    else:
        raise ConfigError(f"rules {value!r} must be a rule-set name ({', '.join(RULE_SETS)}) or a list of "
                          f"rule types ({', '.join(RULE_TYPES)})")
    if not parts:
        raise ConfigError(f"rules {value!r} names no rule type; use one of: {', '.join(RULE_SETS)}")
    for t in parts:
        if t not in RULE_TYPES:
            raise ConfigError(f"rules: rule type {t!r} is not one of: {', '.join(RULE_TYPES)}")
    if "ylop" in parts and "poly" not in parts:
        raise ConfigError("rule type 'ylop' needs 'poly' as well")
    canon = tuple(t for t in RULE_TYPES if t in parts)
    named = [name for name, types in RULE_SETS.items() if types == canon]
    return named[0] if named else ",".join(canon)


@dataclass(frozen=True)
class SparcParams(Params):
    """The parameters of ``kumo_gym/SPaRC-v0`` (docs/specs/sparc.md §7, §9)."""

    level: str = param("mixed", choices=("mixed",) + LEVELS,
                       doc="difficulty level to aim at (the published score's level), or 'mixed': one drawn per item")
    width: int = param(None, kind=int, lo=2, hi=6, doc="grid width in cells (default: drawn for the level)")
    height: int = param(None, kind=int, lo=2, hi=6, doc="grid height in cells (default: drawn for the level)")
    rules: str = param(None, kind=object,
                       doc="an official config (" + ", ".join(RULE_SETS) + ") or rule types "
                           "(dot gap square star triangle poly ylop) as a list or 'dot,star'; default: the "
                           "level's official mix")
    k: int = param(50, lo=1, hi=1000, doc="the most solutions a generated puzzle may have")
    sampler: str = param("planted", choices=SAMPLERS,
                         doc="'planted': calibrated to the official levels; 'uniform': the paper's random fill")
    density: float = param(0.5, lo=0.01, hi=1.0, doc="uniform sampler: the starting share of cells with a symbol")
    ylop_rate: float = param(0.05, lo=0.0, hi=1.0, doc="uniform sampler: share of puzzles with polys that get ylops")
    start_on_border: bool = param(True, doc="start on the outer border (as every official puzzle does)")
    records: str = param(None, kind=str, doc="a JSONL/JSON file of records to draw items from instead of generating")
    scoring: str = param("rules", choices=SCORINGS,
                         doc="'rules' (any valid line), or 'exact': one of the stored solutions (never changes the "
                             "instance drawn)")
    grid_format: str = param("array", choices=tx.GRID_FORMATS, prompt=True, doc="how the grid is written")
    shots: int = param(1, choices=(0, 1, 2), prompt=True, doc="worked examples of our own in the prompt")
    vision: object = param(False, kind=object, choices=(False, True, "yaml"), prompt=True,
                           doc="True: the grid is left out of the text (pair with the image); 'yaml': also add "
                               "the record's YAML description")
    template: str = param(None, kind=str, prompt=True,
                          doc="a str.format prompt over " + " ".join("{" + f + "}" for f in tx.TEMPLATE_FIELDS))

    def check(self) -> SparcParams:
        if self.template is not None:
            tx.check_template(self.template)
        if self.records is not None and not isinstance(self.records, str):
            raise ConfigError(f"records {self.records!r} must be a file path")
        return dataclasses.replace(self, rules=_canonical_rules(self.rules))


def _prompt_options(params: dict) -> tuple:
    """``(grid_format, shots)`` of an instance's parameters (a parameter set to None is unset)."""
    fmt, shots = params.get("grid_format"), params.get("shots")
    return ("array" if fmt is None else fmt), (1 if shots is None else shots)


@lru_cache(maxsize=4)
def _records_of(path: str) -> tuple:
    try:
        records = read_records(path)
    except (OSError, ValueError) as e:
        raise ConfigError(f"records file {path!r} cannot be read: {e}") from None
    if not records:
        raise ConfigError(f"records file {path!r} holds no records")
    return tuple(records)


def _presets() -> dict:
    out = {"mixed": {"level": "mixed"}}
    for lv in LEVELS:
        out[lv] = {"level": lv}
        out[f"level{lv}"] = {"level": lv}
    return out


class SparcTask(StepwiseTask):
    """SPaRC: draw a line from S to E through a grid so that every rule holds.

    ## Description
    A puzzle of ``w x h`` cells (2..6 each) is a token grid of ``2h+1`` rows and ``2w+1`` columns
    (docs/specs/sparc.md §1-§2). The line runs over corners and edge midpoints; rule cells (both coordinates
    odd) hold symbols that constrain the regions the line cuts the grid into: dots to visit, gaps
    to avoid, squares that must not share a region with another colour, stars that need exactly
    one same-coloured partner, triangles counting touched edges, and polyominoes (positive and
    negative) that must tile their region (rules as the official solutions establish them, docs/specs/sparc.md §5).
    Generated puzzles have 1 to ``k`` solutions, all stored in the record; level ``k`` matches
    the 500 official level-``k`` test puzzles in mean grid area, shortest solution length,
    number of rule types and solution count, each within 10 % (docs/sparc.md shows the table).

    ## Answer (``mode="answer"``, default)
    Reasoning, then ``####`` and the whole path as ``(x, y)`` pairs:
    ``#### (0, 2), (0, 1), (0, 0), (1, 0)``. The text after the last ``####`` counts (the whole
    text when there is none); the path is cut after its first visit to ``E``. Output cut by the
    token limit before a complete line after ``####`` is ``truncated``.

    ## Interactive (``mode="interactive"``)
    One step per turn: ``Final: right|up|left|down`` (or 0-3, or the next node as ``(x, y)``).
    The observation shows the step, the position, the legal moves and the grid with visited
    positions ``V`` and the head ``L``. Leaving the grid, entering a rule cell or a gap, or
    revisiting is an invalid move (no effect, feedback; three in a row truncate); reaching ``E``
    ends the episode with the rule verdict. ``max_steps`` defaults to the number of line
    positions.

    ## Verdicts (docs/specs/sparc.md §6)
    ``details["violations"]`` lists each broken rule by its code (see Rules);
    ``details["path_errors"]`` holds the paper's four flags (``incorrect_start_end``,
    ``disconnected``, ``intersecting``, ``rule_cell_crossing``), ``invalid_path`` and
    ``out_of_bounds``; ``details["rule_violations"]`` maps ``dot, gap, square, star, triangle,
    poly`` to the offending positions (structurally valid paths only). Status: ``solved``;
    ``wrong`` (valid path, some rule broken); ``illegal_move`` (a path error; ``first_error`` =
    0-based index of the first offending position); ``incomplete`` (a clean path from S that
    stops before E); ``parse_error`` (no coordinates); ``truncated``.

    ## Official records
    ``reset(options={"instance": record})`` plays an official record; ``records=FILE`` draws
    items from a record file. Official test records (recognised by content fingerprint) are
    evaluation-only: every training path refuses them (``ContaminationError``).

    ## Version history
    * v0: first version.
    * v0, levels recalibrated to the 500 official test puzzles (the id is unchanged): the
      generated instance of a given seed and level differs from the one earlier releases drew.
    """

    family = FAMILY
    Params = SparcParams
    difficulties = _presets()
    default_difficulty = "mixed"
    rule_codes = RULE_CODES
    partial_credit = ("0.9 x the share of a solution's positions that the answer's line follows from S before it "
                      "leaves every solution, counted only beyond the share that a rule-blind line (a shortest "
                      "line, a walk along the border) already follows; 1 when solved")
    answer_tags = ()
    template_field_names = tx.TEMPLATE_FIELDS

    # ---- parameters -------------------------------------------------------------------------
    def seed_params(self, params: dict) -> dict:
        """Prompt options and ``scoring`` never change which instance is drawn."""
        return {k: v for k, v in super().seed_params(params).items() if k != "scoring"}

    def template_fields(self, instance: Instance) -> dict:
        p = instance.params
        return tx.prompt_fields(self.puzzle(instance), *_prompt_options(p))

    # ---- instances --------------------------------------------------------------------------
    def puzzle(self, instance: Instance) -> SparcPuzzle:
        return SparcPuzzle.from_grid(instance.data["puzzle_array"], instance.data.get("polyshapes") or "{}",
                                     instance.data)

    def generate(self, rng: np.random.Generator, **params) -> Instance:
        """A fresh puzzle (docs/specs/sparc.md §9) with all its solutions stored in the record, or an item of
        the ``records`` file."""
        if params.get("records"):
            records = _records_of(str(params["records"]))
            rec = records[int(rng.integers(len(records)))]
            inst = instance_from_record(rec, rec.get("official_split"))
            return Instance(family=FAMILY, data=inst.data, params={**params, **inst.params})
        level = params.get("level", "mixed")
        level = int(rng.integers(1, 6)) if level in (None, "mixed") else int(level)
        _, fingerprints = known_official()
        gen = generate(rng, width=params.get("width"), height=params.get("height"), level=level,
                       rules=params.get("rules"), density=params.get("density", 0.5), k=params.get("k", 50),
                       sampler=params.get("sampler", "planted"),
                       start_on_border=params.get("start_on_border", True),
                       ylop_rate=params.get("ylop_rate", 0.05), forbidden=fingerprints)
        return Instance(family=FAMILY, data=gen.record(), params={**params, "source": "generated"})

    def load(self, obj: Any) -> Instance:
        """An Instance from an Instance (or its dict/JSON) or from a record (docs/specs/sparc.md §4, §13).

        A bare record is tagged as official test data when its content is an official test
        puzzle's (by fingerprint), whatever its fields say.
        """
        if isinstance(obj, str) and obj.lstrip().startswith("{"):
            try:
                obj = json.loads(obj)
            except json.JSONDecodeError as e:
                raise ConfigError(f"instance text is not valid JSON: {e}") from None
        if isinstance(obj, dict) and "puzzle_array" in obj:
            try:
                obj = integral_floats(obj)  # an official integer written 7.0 is 7 (fingerprints included)
                return instance_from_record(obj, obj.get("official_split"))
            except (ValueError, TypeError, KeyError) as e:
                raise ConfigError(f"not a valid SPaRC record: {e}") from None
        return super().load(obj)

    def validate_instance(self, instance: Instance) -> None:
        """Raise ConfigError naming the first bad field of a SPaRC instance (docs/specs/sparc.md §4)."""
        data = instance.data
        if not isinstance(data, dict):
            raise ConfigError("SPaRC instance data must be a record (a dict with 'puzzle_array')")
        try:
            p = SparcPuzzle.from_grid(data.get("puzzle_array"), data.get("polyshapes") or "{}")
        except (ValueError, TypeError) as e:
            raise ConfigError(f"SPaRC instance field 'puzzle_array'/'polyshapes' is invalid: {e}") from None
        gs = data.get("grid_size")
        if gs is not None and (not isinstance(gs, dict) or (gs.get("width"), gs.get("height")) != (p.width, p.height)):
            raise ConfigError(f"SPaRC instance field 'grid_size' {gs!r} does not match the {p.width} x {p.height} grid")
        lv = data.get("difficulty_level")
        if lv is not None and (isinstance(lv, bool) or lv not in (1, 2, 3, 4, 5)):
            raise ConfigError(f"SPaRC instance field 'difficulty_level' {lv!r} is not one of: 1, 2, 3, 4, 5")
        sols = data.get("solutions")
        if sols is not None:
            if not isinstance(sols, list):
                raise ConfigError("SPaRC instance field 'solutions' must be a list")
            for i, s in enumerate(sols):
                path = _stored_path(s)
                if path is None:
                    raise ConfigError(f"SPaRC instance field 'solutions[{i}]' is not {{'path': [{{'x', 'y'}}, ...]}}")
                if not check_path(p, path).solved:
                    raise ConfigError(f"SPaRC instance field 'solutions[{i}]' is not a valid solution of the puzzle")
            if data.get("solution_count") is not None and data["solution_count"] != len(sols):
                raise ConfigError(f"SPaRC instance field 'solution_count' {data['solution_count']!r} is not "
                                  f"len(solutions) = {len(sols)}")
        for name in ("scoring", "grid_format"):
            allowed = SCORINGS if name == "scoring" else tx.GRID_FORMATS
            if instance.params.get(name) is not None and instance.params[name] not in allowed:
                raise ConfigError(f"SPaRC instance parameter {name!r} {instance.params[name]!r} is not one of: "
                                  f"{', '.join(allowed)}")
        shots = instance.params.get("shots")
        if shots is not None and (isinstance(shots, bool) or shots not in (0, 1, 2)):
            raise ConfigError(f"SPaRC instance parameter 'shots' {shots!r} is not one of: 0, 1, 2")

    def check_trainable(self, instance: Instance) -> None:
        """Official test records never enter training (docs/specs/sparc.md §13). They are recognised by content
        (the fingerprint of the grid and the shapes), so renamed or re-tagged copies are caught and
        our own generated files never are."""
        if is_official(self.puzzle(instance)):
            raise ContaminationError(f"SPaRC puzzle {instance.data.get('id')} is an official test puzzle "
                                     "(evaluation only)")

    def difficulty_of(self, instance: Instance) -> str | None:
        lv = instance.data.get("difficulty_level")
        return None if lv is None else str(lv)

    def solutions(self, instance: Instance) -> list:
        """Every solution: the stored list when the record has one, else enumerated."""
        stored = instance.data.get("solutions")
        if stored is not None:
            paths = [_stored_path(s) for s in stored]
            if all(p is not None for p in paths):
                return paths
        return enumerate_solutions(self.puzzle(instance), cap=None, time_limit=10.0).solutions

    # ---- answer mode ------------------------------------------------------------------------
    def prompt(self, instance: Instance) -> str:
        p = instance.params
        text = tx.build_prompt(self.puzzle(instance), *_prompt_options(p),
                               template=p.get("template"), with_grid=not p.get("vision", False))
        if p.get("vision") == "yaml" and instance.data.get("text_visualization"):
            # the paper's vision prompt added the record's YAML description to the image
            text += "\n\nPuzzle description (YAML):\n" + instance.data["text_visualization"]
        return text

    def parse(self, text: str) -> list:
        return tx.extract_path(text)

    def expected_answer(self, instance: Instance) -> str:
        return ("`####` followed by the whole line from S to E as (x, y) positions separated by commas, "
                "such as `#### (0, 2), (0, 1), (0, 0)`")

    def expected_move(self, instance: Instance) -> str:
        return "`Final: <move>` with the move right, up, left or down, its number 0-3, or the next position as (x, y)"

    def format_answer(self, answer) -> str:
        return "#### " + tx.format_path(answer)

    def score(self, instance: Instance, completion: str, *, reasoning: str | None = None,
              finish_reason: str | None = None, n_output_tokens: int | None = None,
              max_new_tokens: int | None = None, max_answer_chars: int | None = None) -> Verdict:
        """As :meth:`Task.score`; in addition, an output cut by the token limit before a complete
        line after ``####`` is ``truncated`` (not an illegal path read from the reasoning)."""
        refused = too_long(completion, reasoning, max_answer_chars)
        if refused is not None:
            return refused
        if isinstance(completion, str) and looks_truncated(completion, finish_reason, n_output_tokens, max_new_tokens):
            answer = split_thinking(completion, reasoning).answer
            cut = "####" not in answer
            if not cut:
                try:
                    p = self.puzzle(instance)
                    cut = p.end not in tx.cut_at_end(tx.extract_path(answer), p.end)
                except ParseError:
                    cut = True
                except (ValueError, TypeError, KeyError):
                    cut = False
            if cut:
                return Verdict("truncated", "The output was cut off before a complete answer.",
                               details={"reason": "truncated", "truncated": True})
        return super().score(instance, completion, reasoning=reasoning, finish_reason=finish_reason,
                             n_output_tokens=n_output_tokens, max_new_tokens=max_new_tokens,
                             max_answer_chars=max_answer_chars)

    def solve(self, instance: Instance) -> list:
        """The shortest solution (first found on ties)."""
        sols = self.solutions(instance)
        if not sols:
            raise UnsolvableInstanceError(f"SPaRC puzzle {instance.data.get('id')} has no solution")
        return [tuple(p) for p in min(sols, key=len)]

    def optimal_steps(self, instance: Instance) -> int | None:
        try:
            return len(self.solve(instance)) - 1
        except UnsolvableInstanceError:
            return None

    def corrupt_answer(self, instance: Instance, answer, rng: np.random.Generator) -> list:
        """The golden path with one interior position dropped (disconnected), or, for a
        two-position path, cut before E."""
        path = [tuple(p) for p in answer]
        if len(path) <= 2:
            return path[:1]
        i = int(rng.integers(1, len(path) - 1))
        return path[:i] + path[i + 1:]

    def verify(self, instance: Instance, answer) -> Verdict:
        """Check a path by the rules (docs/specs/sparc.md §5, §6); ``scoring="exact"`` compares with the stored
        solution list instead (the official scoring; equivalent on complete lists)."""
        p = self.puzzle(instance)
        if isinstance(answer, str):
            return Verdict("parse_error", "The answer is not a list of (x, y) pairs.", details={"reason": "malformed"})
        try:
            whole = list(answer)
            items = tx.cut_at_end(whole, p.end)
        except TypeError:
            return Verdict("parse_error", "The answer is not a list of (x, y) pairs.", details={"reason": "malformed"})
        if len(items) < len(whole) and tx.continues(whole[len(items)]):
            # the line ends at E: a position written right after it is not ignored (prose after the path is)
            nxt = whole[len(items)]
            return Verdict("illegal_move", f"The path reaches the end {p.end} at position number {len(items)} and goes "
                           f"on to {nxt if isinstance(nxt, str) else tuple(nxt)}; nothing may follow the end.",
                           first_error=len(items) + 1, details={"reason": "move_after_end", "index": len(items) + 1})
        if not items:
            return Verdict("parse_error", "The answer holds no coordinates.", details={"reason": "no_answer"})
        path = []
        for i, item in enumerate(items):
            point = tx.as_point(item)
            if point is None:
                # nothing is skipped: one unreadable point (or text between points) voids the path
                shown = str(item) if isinstance(item, str) else repr(item)
                what = ("text between two points" if isinstance(item, tx.BadPoint) and not item.startswith("(")
                        else "not two integers")
                return Verdict("parse_error", f"Entry number {i + 1} of the path, {shown[:60]!r}, is {what}; "
                               "every position must be two integers (x, y) on the grid.", first_error=i + 1,
                               details={"reason": "malformed_point", "entry": shown[:60], "index": i + 1})
            path.append(point)
        return self.verdict_for(instance, p, path)

    def _skipped(self) -> frozenset:
        """The rule codes switched off (``rules_disabled``): their checks behave as deleted."""
        return frozenset(code for code in RULE_CODES if not self.rule_enabled(code))

    def verdict_for(self, instance: Instance, p: SparcPuzzle, path: list) -> Verdict:
        check = check_path(p, path, skip=self._skipped())
        flags = {k: bool(check.flags[k]) for k in PATH_RULES.values()}
        flags["invalid_path"] = bool(check.flags["invalid_path"])
        details = {"path_errors": flags, "path_length": len(path),
                   "rule_violations": {k: [list(v) for v in vs] for k, vs in check.violations.items()},
                   "violations": check.violation_list(), "rules_satisfied": check.satisfied,
                   "rules_total": check.total}
        if instance.params.get("scoring") == "exact" and instance.data.get("solutions") is not None:
            stored = {tuple(s) for s in self.solutions(instance)}
            details["scoring"] = "exact"
            if tuple(path) in stored:
                return Verdict("solved", "The path is one of the stored solutions.", details=details)
        if check.solved and details.get("scoring") != "exact":
            return Verdict("solved", "The path satisfies every rule.", details=details)
        score = self.credit(instance, p, path)
        details["partial_credit"] = score
        if not check.valid_path:
            if check.stops_early:
                return Verdict("incomplete", f"The path stops at {path[-1]} before reaching the end {p.end}.",
                               score=score, first_error=check.first_error, details=details)
            names = [c for c in check.broken_path_rules()]
            bad = path[check.first_error] if check.first_error is not None and check.first_error < len(path) else None
            return Verdict("illegal_move", f"The path is invalid ({', '.join(names)}); the first bad position is "
                           f"number {check.first_error} of {len(path)}" + (f", {bad}." if bad else "."), score=score,
                           first_error=check.first_error, details=details)
        broken = [k for k, v in check.violations.items() if v]
        msg = (f"The path breaks the {', '.join(broken)} rule{'s' if len(broken) > 1 else ''}." if broken
               else "The path is valid but is not one of the stored solutions.")
        return Verdict("wrong", msg, score=score, details=details)

    def credit(self, instance: Instance, p: SparcPuzzle, path: list) -> float:
        """Partial credit of an unsolved line (see :attr:`partial_credit`; docs/sparc.md)."""
        return prefix_credit(p, path, self.solutions(instance))

    # ---- reward integrity (core.capabilities) ----------------------------------------------
    def rules_of(self, instance: Instance) -> list[str]:
        """The rule codes a line can break on ``instance``: the line rules always, a symbol's rule
        only where the puzzle shows the symbol, and the square rule only with squares of two
        colours or more (squares of one colour never disagree, whatever the line)."""
        p = self.puzzle(instance)
        kinds = {s[0] for s in p.symbols.values()}
        shown = {"gap": bool(p.gaps), "dot": bool(p.dots), "star": STAR in kinds, "triangle": TRIANGLE in kinds,
                 "poly": bool(kinds & {POLY, YLOP}),
                 "square": len({s[1] for s in p.symbols.values() if s[0] == SQUARE}) >= 2}
        return [code for code in self.rule_codes if shown.get(code, True)]

    def near_misses(self, instance: Instance, rng: np.random.Generator):
        """Lines that break exactly one rule (see :mod:`kumo_gym.envs.sparc.integrity`); for a
        rule the puzzle shows but no line breaks alone, a line on a variant keeping only that
        rule's symbols."""
        from .integrity import near_misses, variant_near_miss

        p = self.puzzle(instance)
        covered = set()
        for rule, path in near_misses(p, self.solutions(instance), rng):
            covered.add(rule)
            yield NearMiss(rule, path)
        for rule in self.rules_of(instance):
            if rule in covered or rule in PATH_RULES:
                continue
            found = variant_near_miss(p, rule)
            if found is not None:
                variant, line, solutions = found
                yield NearMiss(rule, line, instance=instance_from_record(variant.make_record(solutions)),
                               note="the puzzle keeps only this rule's symbols: no line breaks it alone on the original")

    def cheap_answers(self, instance: Instance, rng: np.random.Generator) -> list[CheapAnswer]:
        """Rule-blind answers: nothing, the start alone, a shortest line (through gaps or around
        them), the two walks along the border, every line position in reading order; in
        interactive play also back-and-forth moves and steps after the end."""
        p = self.puzzle(instance)
        lines = {"shortest_line": shortest_line(p.width, p.height, p.start, p.end),
                 "shortest_line_around_gaps": shortest_line(p.width, p.height, p.start, p.end, frozenset(p.gaps))}
        for name, walk in zip(("border_walk_clockwise", "border_walk_counterclockwise"),
                              border_walks(p.width, p.height, p.start, p.end)):
            lines[name] = walk
        out = [CheapAnswer("empty", completion="", moves=("",)),
               CheapAnswer("start_only", completion=self.format_answer([p.start]))]
        every = [(x, y) for y in range(p.rows) for x in range(p.cols) if not is_cell(x, y)]
        out.append(CheapAnswer("every_position", completion=self.format_answer(every)))
        for name, line in lines.items():
            if line:
                moves = tuple(self.format_move(m) for m in _moves_of(line))
                out.append(CheapAnswer(name, completion=self.format_answer(line), moves=moves))
                out.append(CheapAnswer(name + "_then_more", moves=moves + ("Final: right", "Final: down", "Final: 0")))
        first = self.legal_moves(instance, self.initial_state(instance))
        if first:
            there, back = first[0], (first[0] + 2) % 4
            out.append(CheapAnswer("back_and_forth", moves=tuple(self.format_move(m) for m in [there, back] * 6)))
        out.append(CheapAnswer("same_move", moves=("Final: right",) * 12))
        return out

    def random_answer(self, instance: Instance, rng: np.random.Generator) -> list:
        """A random simple line from S to E (legal-looking; the rules are ignored)."""
        p = self.puzzle(instance)
        corners = (p.width + 1) * (p.height + 1)
        return long_path(rng, p.width, p.height, p.start, p.end, int(rng.integers(3, 2 * corners)), budget=2000)

    # ---- rendering --------------------------------------------------------------------------
    def render(self, instance: Instance, state: Any = None) -> str:
        p = self.puzzle(instance)
        if state:
            return tx.state_text(p, list(state), len(state) - 1, self.legal_moves(instance, state))
        return tx.puzzle_data_text(p, instance.params.get("grid_format", "array"))

    def render_rgb(self, instance: Instance, state: Any = None) -> np.ndarray:
        """The puzzle as an ``H x W x 3`` uint8 image, with the path so far when ``state`` is one."""
        return render_rgb(self.puzzle(instance), list(state) if state else None)

    def final_state(self, instance: Instance, answer: Any) -> Any:
        """The path as verified: its positions up to the first visit of the end (None when the
        answer holds no readable position)."""
        try:
            items = tx.cut_at_end(list(answer), self.puzzle(instance).end)
        except TypeError:
            return None
        path = [tx.as_point(item) for item in items]
        return tuple(path) if path and None not in path else None

    def answer_picture(self, instance: Instance, answer: Any, verdict: dict) -> AnswerPicture | None:
        path = self.final_state(instance, answer)
        if path is None:
            return None
        k = verdict.get("first_error")  # answer mode: the index of the first bad position
        bad = path[k] if type(k) is int and 0 <= k < len(path) else None
        return self._path_picture(instance, path, verdict, bad, k)

    def state_picture(self, instance: Instance, state: Any, verdict: dict, move: Any = None) -> AnswerPicture:
        """The path with the refused ``move``'s target (interactive play) framed in
        ``raster.MARK`` and the symbols of failing rules in ``raster.MARK_ALSO``."""
        path = tuple(state)
        bad = None
        if move is not None and path:
            try:
                bad = self._target(path, move)
            except (TypeError, ValueError, IndexError):
                bad = None
        return self._path_picture(instance, path, verdict, bad, None)

    def _path_picture(self, instance: Instance, path: tuple, verdict: dict, bad, index) -> AnswerPicture:
        p = self.puzzle(instance)
        details = verdict.get("details") if isinstance(verdict.get("details"), dict) else {}
        named = details.get("rule_violations") if isinstance(details.get("rule_violations"), dict) else {}
        symbols = {}
        for rule, positions in named.items():
            for pos in positions if isinstance(positions, list) else []:
                if isinstance(pos, list) and len(pos) == 2 and all(type(v) is int for v in pos):
                    symbols.setdefault(tuple(pos), rule)
        first = bad if bad is not None and p.in_bounds(*bad) else None
        img = render_rgb(p, list(path), first_mark=first, marks=list(symbols))
        marks = ([{"what": "point", "at": list(first), "first": True, "index": index,
                   "box": list(point_box(p, *first))}] if first else [])
        marks += [{"what": "symbol", "at": list(xy), "first": False, "rule": rule, "box": list(point_box(p, *xy))}
                  for xy, rule in symbols.items() if xy != first and p.in_bounds(*xy)]
        caption = f"The path as submitted ({len(path)} positions)."
        if bad is not None:
            caption += (f" Framed in red: position {tuple(bad)}, the first bad one"
                        + (f" (index {index})" if index is not None else "") + "."
                        if first else f" Its first bad position {tuple(bad)} is off the grid.")
        if symbols:
            caption += f" In purple: {len(symbols)} symbol(s) whose rule fails ({', '.join(sorted(set(symbols.values())))})."
        text = f"path: {tx.format_path(list(path))}" + (f"\nfirst bad position: {tuple(bad)}" if bad else "")
        return AnswerPicture(image=img, text=text, marks=marks, caption=caption)

    # ---- interactive mode -------------------------------------------------------------------
    def initial_state(self, instance: Instance) -> tuple:
        return (tuple(self.puzzle(instance).start),)

    def parse_move(self, text: str) -> int:
        return tx.parse_direction(text)

    def format_move(self, move) -> str:
        if isinstance(move, (tuple, list)):
            return f"Final: ({int(move[0])}, {int(move[1])})"
        return f"Final: {tx.DIRECTIONS[int(move)]}"

    def _target(self, state, move):
        if isinstance(move, (tuple, list)):
            return int(move[0]), int(move[1])
        dx, dy = tx.DIRECTION_STEPS[int(move)]
        x, y = state[-1]
        return x + dx, y + dy

    def check_move(self, instance: Instance, state, move) -> str | None:
        """None when ``move`` is legal, else the code of the rule it breaks."""
        if isinstance(move, (tuple, list)):
            if len(move) != 2:
                return "connected"
            if abs(move[0] - state[-1][0]) + abs(move[1] - state[-1][1]) != 1 and self.rule_enabled("connected"):
                return "connected"
        elif not isinstance(move, (int, np.integer)) or not 0 <= int(move) <= 3:
            return "connected"
        p = self.puzzle(instance)
        x, y = self._target(state, move)
        if not p.in_bounds(x, y):
            return "in_bounds"  # the state cannot hold a position outside the grid
        if is_cell(x, y) and self.rule_enabled("no_rule_cell"):
            return "no_rule_cell"
        if p.grid[y][x] == "G" and self.rule_enabled("gap"):
            return "gap"
        if (x, y) in state and self.rule_enabled("no_revisit"):
            return "no_revisit"
        return None

    def apply(self, instance: Instance, state, move) -> tuple:
        return tuple(state) + (self._target(state, move),)

    def is_goal(self, instance: Instance, state) -> bool:
        p = self.puzzle(instance)
        return tuple(state[-1]) == p.end and check_path(p, list(state), skip=self._skipped()).solved

    def legal_moves(self, instance: Instance, state) -> list:
        return [m for m in range(4) if self.check_move(instance, state, m) is None]

    def transition(self, instance: Instance, state, move) -> Transition:
        reason = self.check_move(instance, state, move)
        if reason is not None:
            return Transition(state, "illegal_move", f"Illegal move {self.format_move(move)}: {RULE_CODES[reason]}.",
                              details={"reason": reason, "rule": reason, "score": 0.0})
        new = self.apply(instance, state, move)
        p = self.puzzle(instance)
        if new[-1] == p.end:
            v = self.verdict_for(instance, p, list(new))
            return Transition(new, "solved" if v.solved else "wrong", v.message, reward=v.reward,
                              details={**v.details, "score": v.score})
        if not self.legal_moves(instance, new):
            return Transition(new, "incomplete", f"The line is stuck at {new[-1]}: no legal move is left.",
                              details={"reason": "stuck", "score": self.credit(instance, p, list(new))})
        step = (new[-1][0] - new[-2][0], new[-1][1] - new[-2][1])
        return Transition(new, "continue", f"Moved {tx.DIRECTIONS[tx.DIRECTION_STEPS.index(step)]} to {new[-1]}.")

    def golden_moves(self, instance: Instance) -> list[int]:
        return _moves_of(self.solve(instance))

    def interactive_prompt(self, instance: Instance) -> str:
        return tx.interactive_rules(self.puzzle(instance))

    def render_state(self, instance: Instance, state) -> str:
        return tx.state_text(self.puzzle(instance), list(state), len(state) - 1, self.legal_moves(instance, state),
                             instance.params.get("grid_format", "array"))

    def max_steps(self, instance: Instance) -> int:
        p = self.puzzle(instance)
        return sum(1 for y in range(p.rows) for x in range(p.cols) if not is_cell(x, y))

    # ---- structured view (Stable-Baselines3) ------------------------------------------------
    def move_catalog(self, instance: Instance) -> list[int]:
        """The four directions: 0 right (+x), 1 up (-y), 2 left (-x), 3 down (+y)."""
        return [0, 1, 2, 3]

    def state_bounds(self, instance: Instance) -> tuple[float, float]:
        return 0.0, 1.0

    def encode_state(self, instance: Instance, state) -> np.ndarray:
        """``len(STATE_CHANNELS) x 13 x 13`` planes (flattened, float32), padded to the largest grid."""
        p = self.puzzle(instance)
        planes = np.zeros((len(STATE_CHANNELS), MAX_GRID, MAX_GRID), np.float32)
        ch = {n: i for i, n in enumerate(STATE_CHANNELS)}
        for y in range(p.rows):
            for x in range(p.cols):
                if not is_cell(x, y):
                    planes[ch["line"], y, x] = 1
        for x, y in p.gaps:
            planes[ch["gap"], y, x] = 1
        for x, y in p.dots:
            planes[ch["dot"], y, x] = 1
        for x, y in state:
            planes[ch["visited"], y, x] = 1
        hx, hy = state[-1]
        planes[ch["head"], hy, hx] = 1
        planes[ch["end"], p.end[1], p.end[0]] = 1
        kinds = {1: "square", 2: "star", 3: "triangle", 4: "poly", 5: "ylop"}
        for (x, y), (kind, colour, extra) in p.symbols.items():
            planes[ch[kinds[kind]], y, x] = extra / 4 if kind == 3 else 1
            planes[ch["colour"], y, x] = (COLOURS.index(colour) + 1) / len(COLOURS)
        return planes.reshape(-1)


def _stored_path(solution) -> list | None:
    """A stored solution's path as ``(x, y)`` tuples, or None when malformed."""
    try:
        return [(int(d["x"]), int(d["y"])) for d in solution["path"]]
    except (KeyError, TypeError, ValueError):
        return None


def _moves_of(path) -> list[int]:
    """The direction numbers (0 right, 1 up, 2 left, 3 down) that walk ``path``."""
    return [tx.DIRECTION_STEPS.index((b[0] - a[0], b[1] - a[1])) for a, b in itertools.pairwise(path)]
