"""The SPaRC task: answer and interactive modes over one puzzle model (spec §1-§13)."""
from __future__ import annotations

import itertools
import json
from functools import lru_cache
from typing import Any

import numpy as np

from ...core.errors import ConfigError, ContaminationError, UnsolvableInstanceError, check_choice
from ...core.instance import Instance
from ...core.task import StepwiseTask, Transition
from ...core.verdict import Verdict
from ...solvers.sparc import enumerate_solutions
from . import text as tx
from .generate import RULE_SETS, RULE_TYPES, SAMPLERS, generate
from .official import FAMILY, instance_from_record, known_official, read_records
from .puzzle import COLOURS, SparcPuzzle, is_cell
from .render import render_rgb
from .rules import PATH_FLAGS, check_path

LEVELS = (1, 2, 3, 4, 5)
SCORINGS = ("rules", "exact")
#: channels of :meth:`SparcTask.encode_state` (each a 13 x 13 plane, the largest grid)
STATE_CHANNELS = ("line", "gap", "dot", "visited", "head", "end", "square", "star", "triangle", "poly", "ylop",
                  "colour")
MAX_GRID = 13


@lru_cache(maxsize=4)
def _records_of(path: str) -> list:
    try:
        records = read_records(path)
    except (OSError, ValueError) as e:
        raise ConfigError(f"records file {path!r} cannot be read: {e}") from None
    if not records:
        raise ConfigError(f"records file {path!r} holds no records")
    return records


def _presets() -> dict:
    out = {"mixed": {"level": "mixed"}}
    for lv in LEVELS:
        out[str(lv)] = {"level": lv}
        out[f"level{lv}"] = {"level": lv}
    return out


class SparcTask(StepwiseTask):
    """SPaRC: draw a line from S to E through a grid so that every rule holds.

    ## Description
    A puzzle of ``w x h`` cells (2..6 each) is a token grid of ``2h+1`` rows and ``2w+1`` columns
    (spec §1-§2). The line runs over corners and edge midpoints; rule cells (both coordinates
    odd) hold symbols that constrain the regions the line cuts the grid into: dots to visit, gaps
    to avoid, squares that must not share a region with another colour, stars that need exactly
    one same-coloured partner, triangles counting touched edges, and polyominoes (positive and
    negative) that must tile their region (rules as the official solutions establish them, §5).

    ## Answer (``mode="answer"``, default)
    Reasoning, then ``####`` and the whole path as ``(x, y)`` pairs:
    ``#### (0, 2), (0, 1), (0, 0), (1, 0)``. The text after the last ``####`` counts (the whole
    text when there is none); the path is cut after its first visit to ``E``.

    ## Interactive (``mode="interactive"``)
    One step per turn: ``Final: right|up|left|down`` (or 0-3, or the next node as ``(x, y)``). The observation shows the step,
    the position, the legal moves and the grid with visited positions ``V`` and the head ``L``.
    Leaving the grid, entering a rule cell or a gap, or revisiting ends the episode as
    ``illegal_move``; reaching ``E`` ends it with the rule verdict. ``max_steps`` defaults to the
    number of line positions.

    ## Verdicts (§6)
    ``details["path_errors"]`` holds the paper's four flags (``incorrect_start_end``,
    ``disconnected``, ``intersecting``, ``rule_cell_crossing``), ``invalid_path`` and
    ``out_of_bounds``; ``details["rule_violations"]`` maps ``dot, gap, square, star, triangle,
    poly`` to the offending positions (only for structurally valid paths). Status: ``solved``;
    ``wrong`` (valid path, some rule broken); ``illegal_move`` (a path error; ``first_error`` =
    0-based index of the first offending position); ``incomplete`` (a clean path from S that
    stops before E); ``parse_error`` (no coordinates); ``truncated``. ``score``: for a broken path
    0.1 for a readable answer plus 0.1 per path flag not raised (at most 0.5); for a valid path
    ``0.5 + 0.5 * satisfied / total`` rule constraints (one per dot, gap, star, triangle and per
    region holding squares or polyominoes); 1 when solved.

    ## Arguments
    ``difficulty``: ``"1"``..``"5"`` (or ``level1``..``level5``), the published difficulty level
    to aim at, or ``"mixed"`` (default: a level drawn per item). ``width``, ``height`` (2..6),
    ``rules`` (an official config name such as ``"stars"`` or ``"polys_ylops"``, or a list of
    rule types ``dot gap square star triangle poly ylop``), ``density`` (start of the density
    loop, 0.5), ``k`` (solution cap, 50), ``sampler`` (``planted``/``uniform``),
    ``start_on_border``, ``grid_format`` (``array``/``table``/``coords``), ``shots`` (0-2 worked
    examples), ``scoring`` (``rules``/``exact``: compare with the stored solution list),
    ``vision`` (True: leave the grid out of the text, pair with ``render_mode="rgb_array"``;
    ``"yaml"``: the same plus the record's YAML description),
    ``template`` (a ``str.format`` prompt over the fields ``{width} {height} {start} {end}
    {grid} {polyshapes} {example} {legend} {rules} {basics} {answer_format} {role}``),
    ``records`` (a JSONL/JSON file of official records to draw items from instead of
    generating; such items are tagged as official test data unless a record says
    ``"official_split": "train"``).
    ``reset(options={"instance": record})`` plays an official record; official test records are
    evaluation-only (``check_trainable`` raises ContaminationError).

    ## Version history
    * v0: first version.
    """

    family = FAMILY
    difficulties = _presets()
    default_difficulty = "mixed"
    param_names = ("level", "width", "height", "rules", "density", "k", "sampler", "start_on_border", "grid_format",
                   "shots", "scoring", "vision", "ylop_rate", "records", "template")
    answer_tags = ()

    # ---- parameters -------------------------------------------------------------------------
    def validate_params(self, params: dict) -> dict:
        p = dict(params)
        lv = p.get("level")
        if lv is not None and lv != "mixed":
            if isinstance(lv, str) and lv.isdigit():
                lv = int(lv)
            check_choice("level", lv, LEVELS + ("mixed",))
            p["level"] = lv
        for name in ("width", "height"):
            if p.get(name) is not None:
                v = p[name]
                if isinstance(v, bool) or not isinstance(v, int) or not 2 <= v <= 6:
                    raise ConfigError(f"{name} {v!r} is not an integer in 2..6")
        rules = p.get("rules")
        if isinstance(rules, str):
            check_choice("rules", rules, list(RULE_SETS))
        elif rules is not None:
            if not isinstance(rules, (list, tuple)) or not rules:
                raise ConfigError(f"rules {rules!r} must be a rule-set name ({', '.join(RULE_SETS)}) "
                                  "or a list of rule types")
            for t in rules:
                check_choice("rule type", t, RULE_TYPES)
            p["rules"] = [t for t in RULE_TYPES if t in rules]
        if "sampler" in p:
            check_choice("sampler", p["sampler"], SAMPLERS)
        if "grid_format" in p:
            check_choice("grid_format", p["grid_format"], tx.GRID_FORMATS)
        if "shots" in p:
            check_choice("shots", p["shots"], (0, 1, 2))
        if p.get("template") is not None:
            tx.check_template(p["template"])
        if "vision" in p:
            check_choice("vision", p["vision"], (False, True, "yaml"))
        if "scoring" in p:
            check_choice("scoring", p["scoring"], SCORINGS)
        if "density" in p and not (isinstance(p["density"], (int, float)) and 0 < p["density"] <= 1):
            raise ConfigError(f"density {p['density']!r} is not in (0, 1]")
        if "k" in p and not (isinstance(p["k"], int) and 1 <= p["k"] <= 1000):
            raise ConfigError(f"k {p['k']!r} is not an integer in 1..1000")
        return p

    # ---- instances --------------------------------------------------------------------------
    def puzzle(self, instance: Instance) -> SparcPuzzle:
        return SparcPuzzle.from_grid(instance.data["puzzle_array"], instance.data.get("polyshapes") or "{}",
                                     instance.data)

    def generate(self, rng: np.random.Generator, **params) -> Instance:
        """A fresh puzzle (spec §9) with all its solutions stored in the record."""
        if params.get("records"):
            # draw from a file of records (e.g. the official test split): evaluation items
            records = _records_of(str(params["records"]))
            rec = records[int(rng.integers(len(records)))]
            inst = instance_from_record(rec, rec.get("official_split", "test"))
            return Instance(family=FAMILY, data=inst.data, params={**params, **inst.params})
        level = params.get("level")
        if level == "mixed":
            level = int(rng.integers(1, 6))
        _, fingerprints = known_official()
        gen = generate(rng, width=params.get("width"), height=params.get("height"), level=level,
                       rules=params.get("rules"), density=params.get("density", 0.5), k=params.get("k", 50),
                       sampler=params.get("sampler", "planted"),
                       start_on_border=params.get("start_on_border", True),
                       ylop_rate=params.get("ylop_rate", 0.05), forbidden=fingerprints)
        return Instance(family=FAMILY, data=gen.record(), params={**params, "source": "generated"})

    def load(self, obj: Any) -> Instance:
        """An Instance from an Instance (or its dict/JSON) or from an official record (§4, §13).

        A bare record is treated as an official test record (evaluation-only) unless it carries
        ``"official_split": "train"``.
        """
        if isinstance(obj, str) and obj.lstrip().startswith("{"):
            try:
                obj = json.loads(obj)
            except json.JSONDecodeError as e:
                raise ConfigError(f"instance text is not valid JSON: {e}") from None
        if isinstance(obj, dict) and "puzzle_array" in obj:
            try:
                return instance_from_record(obj, obj.get("official_split", "test"))
            except ValueError as e:
                raise ConfigError(f"not a valid SPaRC record: {e}") from None
        return super().load(obj)

    def check_trainable(self, instance: Instance) -> None:
        """Official test records never enter training (by tag, id or fingerprint, §13)."""
        if instance.params.get("official_split") == "test":
            raise ContaminationError(f"SPaRC record {instance.data.get('id')} is from the official test split "
                                     "(evaluation only)")
        ids, fps = known_official()
        if instance.params.get("source") != "generated" and instance.data.get("id") in ids:
            raise ContaminationError(f"SPaRC record {instance.data.get('id')} is an official test record")
        if fps and self.puzzle(instance).fingerprint() in fps:
            raise ContaminationError(f"SPaRC puzzle {instance.data.get('id')} equals an official test record")

    def difficulty_of(self, instance: Instance) -> str | None:
        lv = instance.data.get("difficulty_level")
        return None if lv is None else str(lv)

    def solutions(self, instance: Instance) -> list:
        """Every solution: the stored list when the record has one, else enumerated."""
        stored = instance.data.get("solutions")
        if stored is not None:
            try:
                return [[(int(d["x"]), int(d["y"])) for d in s["path"]] for s in stored]
            except (KeyError, TypeError, ValueError):
                pass  # a malformed list is ignored: the solver is the authority
        return enumerate_solutions(self.puzzle(instance), cap=None).solutions

    # ---- answer mode ------------------------------------------------------------------------
    def prompt(self, instance: Instance) -> str:
        p = instance.params
        text = tx.build_prompt(self.puzzle(instance), p.get("grid_format", "array"), p.get("shots", 1),
                               template=p.get("template"), with_grid=not p.get("vision", False))
        if p.get("vision") == "yaml" and instance.data.get("text_visualization"):
            # the paper's vision prompt added the record's YAML description to the image
            text += "\n\nPuzzle description (YAML):\n" + instance.data["text_visualization"]
        return text

    def parse(self, text: str) -> list:
        return tx.extract_path(text)

    def format_answer(self, answer) -> str:
        return "#### " + tx.format_path(answer)

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
        """Check a path by the rules (spec §5, §6); ``scoring="exact"`` compares with the stored
        solution list instead (the official scoring; equivalent on complete lists)."""
        p = self.puzzle(instance)
        try:
            path = [(int(x), int(y)) for x, y in answer]
        except (TypeError, ValueError):
            return Verdict("parse_error", "The answer is not a list of (x, y) pairs.", details={"reason": "malformed"})
        if not path:
            return Verdict("parse_error", "The answer holds no coordinates.", details={"reason": "no_answer"})
        path = tx.cut_at_end(path, p.end)
        return self.verdict_for(instance, p, path)

    def verdict_for(self, instance: Instance, p: SparcPuzzle, path: list) -> Verdict:
        check = check_path(p, path)
        flags = {k: bool(check.flags[k]) for k in PATH_FLAGS + ("invalid_path", "out_of_bounds")}
        details = {"path_errors": flags, "path_length": len(path),
                   "rule_violations": {k: [list(v) for v in vs] for k, vs in check.violations.items()},
                   "rules_satisfied": check.satisfied, "rules_total": check.total}
        if instance.params.get("scoring") == "exact" and instance.data.get("solutions") is not None:
            stored = {tuple((d["x"], d["y"]) for d in s["path"]) for s in instance.data["solutions"]}
            details["scoring"] = "exact"
            if tuple(path) in stored:
                return Verdict("solved", "The path is one of the stored solutions.", details=details)
        if not check.valid_path:
            if check.stops_early:
                return Verdict("incomplete", f"The path stops at {path[-1]} before reaching the end {p.end}.",
                               score=0.1 * (1 + sum(not flags[k] for k in PATH_FLAGS)),
                               first_error=check.first_error, details=details)
            names = [k for k in PATH_FLAGS + ("out_of_bounds",) if flags[k]]
            score = 0.1 * (1 + sum(not flags[k] for k in PATH_FLAGS))
            return Verdict("illegal_move", f"The path is invalid ({', '.join(names)}); the first bad position is "
                           f"number {check.first_error} of {len(path)}.", score=score,
                           first_error=check.first_error, details=details)
        if check.solved and details.get("scoring") != "exact":
            return Verdict("solved", "The path satisfies every rule.", details=details)
        broken = [k for k, v in check.violations.items() if v]
        frac = check.satisfied / check.total if check.total else 1.0
        msg = (f"The path breaks the {', '.join(broken)} rule{'s' if len(broken) > 1 else ''}." if broken
               else "The path is valid but is not one of the stored solutions.")
        return Verdict("wrong", msg, score=min(0.99, 0.5 + 0.5 * frac), details=details)

    # ---- rendering --------------------------------------------------------------------------
    def render(self, instance: Instance, state: Any = None) -> str:
        p = self.puzzle(instance)
        if state:
            return tx.state_text(p, list(state), len(state) - 1, self.legal_moves(instance, state))
        return tx.puzzle_data_text(p, instance.params.get("grid_format", "array"))

    def render_rgb(self, instance: Instance, state: Any = None) -> np.ndarray:
        """The puzzle as an ``H x W x 3`` uint8 image, with the path so far when ``state`` is one."""
        return render_rgb(self.puzzle(instance), list(state) if state else None)

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
        if isinstance(move, (tuple, list)):
            if len(move) != 2 or abs(move[0] - state[-1][0]) + abs(move[1] - state[-1][1]) != 1:
                return "not_adjacent"
        elif not isinstance(move, (int, np.integer)) or not 0 <= int(move) <= 3:
            return "unknown_move"
        p = self.puzzle(instance)
        x, y = self._target(state, move)
        if not p.in_bounds(x, y):
            return "off_grid"
        if is_cell(x, y):
            return "rule_cell"
        if p.grid[y][x] == "G":
            return "gap"
        if (x, y) in state:
            return "revisit"
        return None

    def apply(self, instance: Instance, state, move) -> tuple:
        return tuple(state) + (self._target(state, move),)

    def is_goal(self, instance: Instance, state) -> bool:
        p = self.puzzle(instance)
        return tuple(state[-1]) == p.end and check_path(p, list(state)).solved

    def legal_moves(self, instance: Instance, state) -> list:
        return [m for m in range(4) if self.check_move(instance, state, m) is None]

    def transition(self, instance: Instance, state, move) -> Transition:
        reason = self.check_move(instance, state, move)
        if reason is not None:
            return Transition(state, "illegal_move", f"Illegal move {self.format_move(move)}: {reason}.",
                              details={"reason": reason, "score": 0.0})
        new = self.apply(instance, state, move)
        step = (new[-1][0] - new[-2][0], new[-1][1] - new[-2][1])
        p = self.puzzle(instance)
        if new[-1] == p.end:
            v = self.verdict_for(instance, p, list(new))
            return Transition(new, "solved" if v.solved else "wrong", v.message, reward=v.reward,
                              details={**v.details, "score": v.score})
        if not self.legal_moves(instance, new):
            return Transition(new, "incomplete", f"The line is stuck at {new[-1]}: no legal move is left.",
                              details={"reason": "stuck", "score": 0.0})
        return Transition(new, "continue", f"Moved {tx.DIRECTIONS[tx.DIRECTION_STEPS.index(step)]} to {new[-1]}.")

    def golden_moves(self, instance: Instance) -> list[int]:
        path = self.solve(instance)
        return [tx.DIRECTION_STEPS.index((b[0] - a[0], b[1] - a[1])) for a, b in itertools.pairwise(path)]

    def interactive_prompt(self, instance: Instance) -> str:
        return tx.interactive_rules(self.puzzle(instance))

    def render_state(self, instance: Instance, state) -> str:
        return tx.state_text(self.puzzle(instance), list(state), len(state) - 1, self.legal_moves(instance, state),
                             instance.params.get("grid_format", "array"))

    def observation(self, instance: Instance, state, feedback: str = "", step: int = 0) -> str:
        text = self.render_state(instance, state)
        return f"{feedback}\n\n{text}" if feedback else text

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
