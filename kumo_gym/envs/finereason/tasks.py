"""The FineReason tasks: state checking, state transition and the tree walk (docs/specs/finereason.md §4-§7).

* :class:`StateCheckingTask` (``kumo_gym/FineReasonStateChecking-v0``),
* :class:`StateTransitionTask` (``kumo_gym/FineReasonStateTransition-v0``),
* :class:`TreeWalkTask` (``kumo_gym/FineReasonTreeWalk-v0``).

State checking and state transition items are the same instances (an item yields both
prompts), so an instance drawn for one can be replayed in the other. The puzzles themselves are
rules objects (:mod:`.tree`, one module per puzzle) that the tasks hold by composition.
"""
from __future__ import annotations

import json
import re
from typing import Any, ClassVar

import numpy as np

from ...core.capabilities import AnswerPicture, CheapAnswer, NearMiss
from ...core.errors import ConfigError, ContaminationError, ParseError
from ...core.extract import boxed_contents, hedged, normalize_quotes, tail
from ...core.instance import Instance, integral_floats
from ...core.task import InteractiveTask, Task, Transition
from ...core.verdict import Verdict
from .items import DEFECTS, PUZZLES, depth_of, label_of, load_reference, parent_state, rules_for, sample_puzzle_item
from .params import SCORING_OPTIONS, CheckingParams, TransitionParams, WalkParams, fill_presets, presets_doc
from .text import extract_all_states, extract_state_literal, format_value
from .tree import LABELS, MOVE_RULES, SOLVABLE, UNSOLVABLE

TITLES = {"sudoku": "Sudoku puzzle", "coloring": "graph colouring problem", "game24": "Game of 24 puzzle",
          "logicgrid": "logic grid puzzle"}
SC_LETTERS = {SOLVABLE: "A", UNSOLVABLE: "B"}
PRESET_NAMES = ("easy", "normal", "hard")
BINARY = ("the same as binary: a label, a move or a walk is right or wrong (the depth a walk reached and the "
          "kind of a wrong move are reported in details, never paid)")
#: the options a replayed instance takes from the environment that replays it
REPLAY_OPTIONS = ("no_programming", "faithful_labels", "transition_reward", "allow_confirming_noop",
                  "grid_semantics")


def _read_json(obj: Any) -> Any:
    """A JSON text as data (other objects unchanged); ConfigError when the text is not JSON."""
    if isinstance(obj, str) and obj.lstrip().startswith("{"):
        try:
            return json.loads(obj)
        except (ValueError, RecursionError) as e:
            raise ConfigError(f"the instance text is not valid JSON: {str(e)[:100]}") from None
    return obj


def _options(instance: Instance) -> dict:
    return instance.params or {}


def _words(item) -> tuple[str, str]:
    return rules_for(item["puzzle"]).label_words


def _no_programming(instance) -> str:
    if _options(instance).get("no_programming", True):
        return "Work it out by reasoning; do not write or run a program to solve it."
    return ""


def _explored_shown(instance) -> tuple[Any, Any]:
    """The explored child a prompt shows and its clue: the row's own defective one in faithful mode."""
    item = instance.data
    ref = item.get("reference_explored")
    if ref is not None and _options(instance).get("faithful_labels"):
        return ref["state"], ref.get("clue")
    return item.get("explored"), item.get("explored_clue")


def changed_cells(before, after, limit: int = 50) -> list[tuple[list[int], Any, Any]]:
    """Where the visible state ``after`` differs from ``before``: ``(index, old, new)`` for each
    differing entry of two lists of the same shape (a Sudoku cell ``[r, c]``, a vertex ``[v]``, a
    table cell); empty when the shapes differ (Game of 24's shorter list)."""
    out: list = []

    def walk(a, b, at):
        if len(out) >= limit:
            return
        if isinstance(a, list) and isinstance(b, list):
            if len(a) == len(b):
                for i, (x, y) in enumerate(zip(a, b)):
                    walk(x, y, at + [i])
            return
        if a != b:
            out.append((at, a, b))

    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        walk(before, after, [])
    return out


def move_picture(rules, data, shown, current, refused=None, heading: str = "State") -> AnswerPicture:
    """A FineReason state as text, with the cells a move changes from ``current`` listed and
    marked: the submitted state's own changes, or those of the ``refused`` move."""
    text = f"{heading} =\n{_format_any(rules, data, shown)}"
    moved = shown if refused is None else refused
    if refused is not None:
        text += f"\nRefused move: Next state: {format_value(refused) if isinstance(refused, list) else refused!r}"
    changes = changed_cells(current, moved)
    if changes:
        text += "\n" + ("The refused move changes" if refused is not None else "Changed from the current state") + ": "
        text += "; ".join(f"{tuple(at)} {old!r} -> {new!r}" for at, old, new in changes[:12])
    marks = [{"what": "cell", "at": at, "first": i == 0, "old": old, "new": new} for i, (at, old, new) in enumerate(changes)]
    caption = f"{heading}, as text" + ("; the refused move's changes are listed." if refused is not None else
                                       "; the cells that differ from the current state are listed." if changes else ".")
    return AnswerPicture(text=text, marks=marks, caption=caption)


def _format_any(rules, data, state) -> str:
    try:
        return rules.format_state(state)
    except (TypeError, KeyError, IndexError, AttributeError):  # a stale reference child of another shape
        return format_value(state) if isinstance(state, list) else json.dumps(state)


def with_options(task: Task, instance: Instance, options: dict) -> Instance:
    """``instance`` shown and judged with ``options`` (the prompt and scoring options ``task`` accepts)."""
    keep = {k: v for k, v in options.items() if k in REPLAY_OPTIONS and k in task.accepted_params()}
    if not keep:
        return instance
    return Instance(instance.family, instance.data, params={**instance.params, **keep}, seed=instance.seed,
                    split=instance.split)


def item_info(instance: Instance) -> dict:
    """What ``info`` says about an item: its puzzle, depth, source and, for a reference row, what of it
    is defective and which explored child is shown."""
    item = instance.data
    out = {"puzzle": item.get("puzzle")}
    if "current" not in item:  # a tree-walk instance
        return out
    out.update(depth=item.get("depth"), source=item.get("source", "generated"),
               defects=list(item.get("defects", [])))
    if out["source"] == "reference":
        shown, _ = _explored_shown(instance)
        out["explored_child"] = ("none" if shown is None else "reference" if "reference_explored" not in item
                                 or _options(instance).get("faithful_labels") else "oracle")
        out["defect_notes"] = {d: DEFECTS[d] for d in out["defects"] if d in DEFECTS}
    return out


# ---- instance checks ---------------------------------------------------------------------------
def _field(cond: bool, name: str, what: str) -> None:
    if not cond:
        raise ConfigError(f"instance field {name!r} {what}")


def _check_state(rules, data, state, name: str, puzzle: str) -> None:
    if puzzle == "logicgrid" and not name.startswith(("history", "explored")):
        _field(isinstance(state, dict) and isinstance(state.get("applied"), list)
               and all(isinstance(c, str) and c in data["clues"] for c in state["applied"]),
               name, "must be {'table': [...], 'applied': [clue ids of puzzle_data.clues]}")
        state = state["table"]
    try:
        ok = rules.normalize(data, state) == state
    except (ValueError, TypeError) as e:
        raise ConfigError(f"instance field {name!r} is not a {puzzle} state: {e}") from None
    _field(ok, name, f"is not written as a {puzzle} state (use the values of the puzzle)")
    problem = rules.state_problem(data, state)
    _field(problem is None, name, f"is not a state of this {puzzle}: it {problem}")


def validate_puzzle_fields(item: dict) -> None:
    """``puzzle`` and ``puzzle_data`` (every FineReason instance)."""
    _field(isinstance(item, dict), "data", "must be an object")
    _field(item.get("puzzle") in PUZZLES, "puzzle", f"must be one of: {', '.join(PUZZLES)}")
    _field(isinstance(item.get("puzzle_data"), dict), "puzzle_data", "must be an object")
    rules_for(item["puzzle"]).validate_data(item["puzzle_data"])


def validate_item(item: dict) -> None:
    """Every field of a state-checking / state-transition item (docs/specs/finereason.md §4), naming the first bad
    one."""
    validate_puzzle_fields(item)
    puzzle, data = item["puzzle"], item["puzzle_data"]
    rules = rules_for(puzzle)
    depth = item.get("depth")
    _field(isinstance(depth, int) and not isinstance(depth, bool) and depth >= 0, "depth",
           "must be an integer >= 0 (the moves from the root to the current state)")
    _field("current" in item, "current", "is missing")
    _check_state(rules, data, item["current"], "current", puzzle)
    _field(depth_of(puzzle, data, item["current"]) == depth, "depth",
           f"is {depth}, but the current state is {depth_of(puzzle, data, item['current'])} moves from the root")
    _field(item.get("label") in LABELS, "label", f"must be one of: {', '.join(LABELS)} (it is recomputed)")
    hist = item.get("history")
    _field(isinstance(hist, list) and (hist or depth == 0), "history",
           "must list the states before the current one, the parent last (it is empty)")
    for k, h in enumerate(hist):
        _field(isinstance(h, dict) and {"depth", "state", "label"} <= set(h), f"history[{k}]",
               "must be {'depth': int, 'state': ..., 'label': ..., 'clue': ...}")
        _field(isinstance(h["depth"], int) and 0 <= h["depth"] < depth, f"history[{k}].depth",
               f"must be an integer in 0..{depth - 1}")
        _field(h["label"] in LABELS, f"history[{k}].label", f"must be one of: {', '.join(LABELS)}")
        _check_state(rules, data, h["state"], f"history[{k}].state", puzzle)
    if hist:
        _field(hist[-1]["depth"] == depth - 1, "history", f"must end with the parent (depth {depth - 1})")
    if item.get("explored") is not None:
        _check_state(rules, data, item["explored"], "explored", puzzle)
    _field(isinstance(item.get("defects", []), list), "defects", "must be a list of names")


# ---- what the item tasks share ----------------------------------------------------------------
class FineReasonTask(Task):
    """What state checking and state transition share: items, loading, options.

    Not registered itself; see :class:`StateCheckingTask` and :class:`StateTransitionTask`.
    """

    family: ClassVar[str] = "finereason"
    difficulties: ClassVar[dict] = {name: {} for name in PRESET_NAMES}
    default_difficulty: ClassVar[str] = "normal"
    partial_credit: ClassVar[str] = BINARY

    def validate_params(self, params: dict) -> dict:
        return fill_presets(params, self.default_difficulty)

    def seed_params(self, params: dict) -> dict:
        """Prompt options and scoring options never change which item is drawn."""
        return {k: v for k, v in super().seed_params(params).items() if k not in SCORING_OPTIONS}

    # ---- instances ------------------------------------------------------------------------
    def generate(self, rng: np.random.Generator, **params) -> Instance:
        params = self.resolve_params(**params) if "difficulty" not in params or "puzzle" not in params else params
        label = {"any": None, "solvable": SOLVABLE, "unsolvable": UNSOLVABLE}[params["label"]]
        item = sample_puzzle_item(params["puzzle"], rng, params, label)
        return Instance(self.family, item, params=params)

    def load(self, obj: Any) -> Instance:
        """An Instance, its dict/JSON, or a reference FineReason row (its stored label is ignored)."""
        obj = _read_json(obj)
        if isinstance(obj, dict) and "inputs" in obj:
            item = load_reference(obj)
            return Instance(self.family, item, params={"puzzle": item["puzzle"]})
        inst = super().load(obj)
        self.validate_instance(inst)
        item = dict(inst.data)
        computed = label_of(item["puzzle"], item["puzzle_data"], item["current"])
        if computed != item.get("label"):  # labels are computed, never read
            item["label"] = computed
            inst = Instance(inst.family, item, params=inst.params, seed=inst.seed, split=inst.split)
        return inst

    def validate_instance(self, instance: Instance) -> None:
        validate_item(instance.data)

    def render(self, instance: Instance, state: Any = None) -> str:
        """The current state of the item (its label is the answer, so it is not shown)."""
        item = instance.data
        rules = rules_for(item["puzzle"], _options(instance))
        return (f"{TITLES[item['puzzle']]}, current state S({item['depth']}) =\n"
                f"{_format_any(rules, item['puzzle_data'], rules.visible(item['current']))}")

    def record_fields(self, instance: Instance) -> dict:
        item = instance.data
        return {"puzzle": item.get("puzzle"), "label": item.get("label"), "depth": item.get("depth")}

    def score(self, instance, completion, **meta):
        """As Task.score; the item's label, depth and puzzle are always in ``details`` (for metrics)."""
        verdict = super().score(instance, completion, **meta)
        for key in ("label", "depth", "puzzle"):
            if key in instance.data:
                verdict.details.setdefault(key, instance.data[key])
        return verdict

    def difficulty_of(self, instance: Instance):
        d = instance.params.get("difficulty")
        return None if d is None else str(d)

    def check_trainable(self, instance: Instance) -> None:
        if instance.data.get("source", "generated") != "generated":
            raise ContaminationError("FineReason items read from the reference files are evaluation data; "
                                     "pass allow_reference=True to the export to use them")

    # ---- prompt pieces ------------------------------------------------------------------------
    def _puzzle_parts(self, item) -> list[str]:
        rules, data = rules_for(item["puzzle"]), item["puzzle_data"]
        parts = ["Rules:\n" + rules.rules_text(data)]
        if rules.data_text(data):
            parts.append(rules.data_text(data))
        return parts


class StateCheckingTask(FineReasonTask):
    """FineReason state checking: is the current state of a puzzle still solvable?

    ## Description
    One node of a puzzle tree (Sudoku, graph colouring, Game of 24 or a logic grid puzzle) is
    shown with the first of its children that is known to be unsolvable. The model decides
    whether the current state can still be completed to a valid solution (docs/specs/finereason.md §5).
    Labels come from exact oracles, also for rows replayed from the reference files (their
    stored label is never read), and a replayed row shows its own states.

    ## Answer
    A final line ``Answer: (A)`` (Solvable / Colorable) or ``Answer: (B)`` (Unsolvable /
    Uncolorable). The last answer in the reply wins; ``Answer: B``, ``\\boxed{B}`` and the label
    words are also read. An answer line that names both options (``Answer: (A) or (B)``,
    ``Answer: A, B``, ``Answer: A/B``) is a hedge: it pays 0 with the status ``hedge``.
    """

    Params: ClassVar[type] = CheckingParams
    rule_codes: ClassVar[dict] = {"label": "the answer names the current state's true label: (A) Solvable "
                                           "(Colorable) or (B) Unsolvable (Uncolorable)"}

    _AFTER = re.compile(r"[\s:=*_]{0,12}(?:is\b[\s:*_]{0,6})?(?:\(\s{0,3}([AB])\s{0,3}\)|([AB])(?![A-Za-z0-9])|"
                        r"((?i:unsolvable|uncolorable|solvable|colorable))\b)")
    _MARKER = re.compile(r"answer", re.IGNORECASE)
    _BARE = re.compile(r"\(\s{0,3}([AB])\s{0,3}\)")
    _WORD = re.compile(r"(?i:(unsolvable|uncolorable|solvable|colorable))")

    def prompt(self, instance: Instance) -> str:
        item = instance.data
        rules, data = rules_for(item["puzzle"]), item["puzzle_data"]
        yes, no = _words(item)
        parts = [(f"You are given a {TITLES[item['puzzle']]} and a partly solved state of it. Decide whether "
                  "the current state can still be completed to a valid solution by further forward moves, "
                  "without changing anything already written. Look ahead: a state that breaks no rule yet "
                  "may still lead only to dead ends."), *self._puzzle_parts(item)]
        if item["puzzle"] == "logicgrid":
            lines = []
            for h in item["history"]:
                head = "S(0)" if h["depth"] == 0 else f"S({h['depth']}) (clue applied: {h['clue']})"
                lines.append(f"{head} =\n{rules.format_state(h['state'])}")
            applied = item["current"]["applied"]
            head = f"Current state S({item['depth']})" + (f" (clue applied: {applied[-1]})" if applied else "")
            lines.append(f"{head} =\n{rules.format_state(item['current'])}")
            parts.append("States so far:\n" + "\n".join(lines))
        else:
            parts.append(f"Current state =\n{rules.format_state(item['current'])}")
        shown, clue = _explored_shown(instance)
        if shown is not None:
            clue_text = f" (clue applied: {clue})" if item["puzzle"] == "logicgrid" and clue else ""
            parts.append(f"An explored next state{clue_text}, reached from the current state by one move, is known "
                         f"to be {no}:\n{_format_any(rules, data, shown)}")
        parts.append(_no_programming(instance))
        # the format line names no option by itself: read as a reply, the prompt chooses nothing
        parts.append(f"Is the current state {yes} or {no}?\n(A) {yes}\n(B) {no}\n"
                     "End your reply with one final line Answer: (X), where X is the letter of your choice, A or B.")
        return "\n\n".join(p for p in parts if p)

    def parse(self, text: str) -> str:
        """``A`` (Solvable) or ``B`` (Unsolvable), docs/specs/finereason.md §6: the last ``Answer:``, then
        ``\\boxed{}``, then the last bare ``(A)``/``(B)`` (not a mere listing of both options). An answer that names
        both options is unreadable. Linear in the text: each marker is followed a few dozen characters."""
        region = tail(normalize_quotes(text))
        markers = list(self._MARKER.finditer(region))
        for i in range(len(markers) - 1, -1, -1):
            m = markers[i]
            got = self._AFTER.match(region, m.end(), m.end() + 60)
            if got is not None:
                letter = self._letter(got.group(1) or got.group(2) or got.group(3))
                prev = self._AFTER.match(region, markers[i - 1].end(), markers[i - 1].end() + 60) if i else None
                if prev is not None and hedged(region, prev.end(), m.start()) and \
                        self._letter(prev.group(1) or prev.group(2) or prev.group(3)) != letter:
                    raise ParseError("the answer line names both options (Answer: (A) or Answer: (B)): a hedge, "
                                     "not an answer", reason="hedge")
                return self._unambiguous(letter, region, got.end())
        for box in reversed(boxed_contents(region, last=3)):
            b = box.strip().strip("()").strip()
            if b in ("A", "B"):
                return b
            if self._WORD.fullmatch(b):
                return self._letter(b)
        # without a marker the last bare option counts, unless the other one is written too and the
        # last appears only once: "(A) Solvable (B) Unsolvable" lists the options, it chooses none
        bare = list(self._BARE.finditer(region))
        if bare:
            letters = [m.group(1) for m in bare]
            last = letters[-1]
            if len(set(letters)) > 1 and letters.count(last) < 2:
                raise ParseError("both options are written and no 'Answer:' line chooses one", reason="ambiguous")
            since = bare[-2].end() if len(bare) > 1 else 0  # "(A) and (B); I pick (A)" lists, then chooses
            return self._unambiguous(last, region, bare[-1].end(), line_start=bare[-1].start(), since=since)
        raise ParseError("no 'Answer: (A)' or 'Answer: (B)' found", reason="no_answer")

    def expected_answer(self, instance: Instance) -> str:
        yes, no = _words(instance.data)
        return f"a final line `Answer: (A)` ({yes}) or `Answer: (B)` ({no}), naming one option"

    # the other option as a bare capital letter on the answer line: "A, B", "A and B", "A/B", "A or (B)";
    # "not B" / "rather than B" reject it, which is no hedge; "A" before a lower-case word is the article
    _OTHER: ClassVar[dict] = {"A": re.compile(r"(?<![A-Za-z0-9])A(?![A-Za-z0-9])(?![ \t][a-z])"),
                              "B": re.compile(r"(?<![A-Za-z0-9])B(?![A-Za-z0-9])")}
    _NEGATED = re.compile(r"(?:\bnot|\brather than|\binstead of)[\s(]{1,4}$", re.IGNORECASE)

    def _unambiguous(self, letter: str, region: str, end: int, line_start: int | None = None,
                     since: int = 0) -> str:
        """``letter`` unless the rest of its line also names the other option (``A, B``, ``A/B``,
        ``(A) or (B)``, ``A and Unsolvable``): such an answer line is a hedge (status ``hedge``). With
        ``line_start`` (a bare option with no ``Answer:`` before it) the line before the option counts too,
        back to the option listed before it (``since``): ``A (B) Unsolvable`` and ``(A) Unsolvable`` name
        both options (a letter and the other's word)."""
        stop = region.find("\n", end, end + 200)
        rest = region[end:stop if stop >= 0 else end + 200]
        if line_start is not None:
            begin = max(region.rfind("\n", max(0, line_start - 200), line_start) + 1, line_start - 200, since)
            rest = region[begin:line_start] + " " + rest
        other = "B" if letter == "A" else "A"
        named = [m for m in self._OTHER[other].finditer(rest) if not self._NEGATED.search(rest, 0, m.start())]
        words = [w for w in self._WORD.finditer(rest) if self._letter(w.group(1)) == other
                 and not self._NEGATED.search(rest, 0, w.start())]
        if named or words:
            said = named[0].group(0) if named else words[0].group(1)
            raise ParseError(f"the answer line names option {letter} and also {said!r}, which is option {other}: "
                             "a hedge, not an answer; end with one final line Answer: (A) or Answer: (B)",
                             reason="hedge")
        return letter

    @staticmethod
    def _letter(tok: str) -> str:
        t = tok.strip().lower()
        if t in ("a", "solvable", "colorable"):
            return "A"
        if t in ("b", "unsolvable", "uncolorable"):
            return "B"
        raise ParseError(f"answer {tok!r} is not A or B", reason="no_answer")

    def verify(self, instance: Instance, answer: str) -> Verdict:
        item = instance.data
        truth = SC_LETTERS[item["label"]]
        yes, no = _words(item)
        word = {"A": yes, "B": no}
        details = {"predicted": answer, "label": item["label"], "depth": item["depth"], "puzzle": item["puzzle"]}
        if answer != truth and self.rule_enabled("label"):
            return Verdict("wrong", f"Wrong: the current state is {word[truth]}, not {word.get(answer, answer)}.",
                           details={**details, "rule": "label"})
        return Verdict("solved", f"Correct: the current state is {word[truth]}.", details=details)

    def solve(self, instance: Instance) -> str:
        return SC_LETTERS[instance.data["label"]]

    def format_answer(self, answer: str) -> str:
        return f"Answer: ({answer})"

    def corrupt_answer(self, instance: Instance, answer: str, rng) -> str:
        return "B" if answer == "A" else "A"

    def near_misses(self, instance: Instance, rng):
        yield NearMiss("label", "B" if self.solve(instance) == "A" else "A")

    def cheap_answers(self, instance: Instance, rng) -> list[CheapAnswer]:
        truth = self.solve(instance)
        yes, no = _words(instance.data)
        base = {"A": float(truth == "A"), "B": float(truth == "B")}
        return [CheapAnswer("constant (A)", completion="Answer: (A)", chance=base["A"]),
                CheapAnswer("constant (B)", completion="Answer: (B)", chance=base["B"]),
                CheapAnswer("both (A) and (B)", completion="Answer: (A) and (B)"),
                *(CheapAnswer(f"both letters {first}{joint}{second}", completion=f"Answer: {first}{joint}{second}")
                  for first, second in (("A", "B"), ("B", "A")) for joint in (", ", " and ", "/", " or ")),
                CheapAnswer("either option", completion=f"Answer: {yes} or {no}"),
                CheapAnswer("every option listed", completion=f"(A) {yes}\n(B) {no}"),
                CheapAnswer("two answers, the last counts", completion="Answer: (A)\nAnswer: (B)", chance=base["B"]),
                CheapAnswer("empty", completion="")]

    def random_answer(self, instance: Instance, rng) -> str:
        return "A" if rng.random() < 0.5 else "B"


# ---- state transition -----------------------------------------------------------------------------
#: FineReason's names of the judge's categories (docs/specs/finereason.md §7)
ERROR_NAMES = {"correct": "correct", "unsolvable_child": "unsolvable_child", "dead_child": "unsolvable_child",
               "invalid_move": "invalid_move", "no_change": "sibling", "sibling": "sibling",
               "forward": "backtracking_failure", "backtracking_failure": "backtracking_failure",
               "parsing_error": "parse_error"}
MESSAGES = {
    "correct": "Correct move.",
    "unsolvable_child": "Wrong: that is the explored child, which is known to be unsolvable.",
    "dead_child": "Wrong: that move leads into a subtree with no solution (strict transition reward).",
    "invalid_move": "Invalid move",
    "no_change": "Wrong: the state is unsolvable, but it was left unchanged instead of going back.",
    "sibling": "Wrong: that is another child of the parent; the move should return to the parent.",
    "forward": "Wrong: the state is unsolvable, so a forward move cannot help; go back to the parent.",
    "backtracking_failure": "Wrong: the state is unsolvable and the answer is not its parent.",
}


class StateTransitionTask(FineReasonTask):
    """FineReason state transition: make one move from the current state of a puzzle tree.

    ## Description
    The prompt shows the puzzle, the history of states with their true labels (``S(j)``,
    ``L(j)``), the current state with its label and an explored child known to be unsolvable
    (docs/specs/finereason.md §5). At a solvable state the model must make a forward move that is not
    the explored child; at an unsolvable state it must go back to the parent.

    ## Answer
    A final line ``Next state: <state>`` with the state as a Python list in the prompt's format.
    The last list after the last ``Next state:`` is read (without the marker, the last list).

    ## Judging (docs/specs/finereason.md §7)
    Solvable: with ``transition_reward='lenient'`` (the paper's rule, default) any legal one-move
    child other than the explored child is right, solvable or not; with ``'strict'`` only a move
    to a solvable child is. Unsolvable: exactly the parent. ``details["error"]`` is one of
    ``correct``, ``unsolvable_child``, ``invalid_move``, ``multiple_moves``, ``sibling``,
    ``backtracking_failure``, ``parse_error``; ``details["category"]`` gives the finer category
    of docs/specs/finereason.md §7, ``details["reason"]`` the sub-reason of an invalid move, ``details["rule"]`` the
    rule broken; ``child_solvable`` and ``st_strict_correct`` say whether a right move was also a
    strictly right one.
    """

    Params: ClassVar[type] = TransitionParams
    rule_codes: ClassVar[dict] = {
        **MOVE_RULES,
        "forward_when_solvable": "at a solvable state the move goes forward: going back to the parent is wrong",
        "avoid_dead_child": "at a solvable state the move does not enter a subtree known to be dead: never the "
                            "explored child, and with transition_reward='strict' no unsolvable child at all",
        "back_when_unsolvable": "at an unsolvable state the move is exactly the backward move to the parent",
    }

    def prompt(self, instance: Instance) -> str:
        item = instance.data
        rules, data = rules_for(item["puzzle"]), item["puzzle_data"]
        yes, no = _words(item)
        i = item["depth"]
        parts = [(f"You are solving a {TITLES[item['puzzle']]} by searching its tree of states. Make exactly one "
                  f"move from the current state S({i}) toward a solution."), *self._puzzle_parts(item)]
        parts.append("Moves:\n- Forward: " + rules.move_rule + "\n- Backward: " + rules.backward_rule +
                     f"\nIf S({i}) is {yes}, make a forward move that keeps the puzzle solvable; the explored state "
                     f"S({i + 1}) is {no}, so do not choose it. If S({i}) is {no}, make the backward move.")
        # faithful_labels: the reference prompts label every ancestor Solvable, even a dead one
        # (docs/specs/finereason.md §5)
        faithful = bool(_options(instance).get("faithful_labels"))
        lines = []
        for h in item["history"]:
            clue = f"  (clue applied: {h['clue']})" if h.get("clue") else ""
            lines.append(f"S({h['depth']}) ={clue}\n{rules.format_state(h['state'])}\nL({h['depth']}) = "
                         f"{yes if faithful or h['label'] == SOLVABLE else no}")
        cur_clue = (f"  (clue applied: {item['current']['applied'][-1]})"
                    if item["puzzle"] == "logicgrid" and item["current"]["applied"] else "")
        lines.append(f"S({i}) ={cur_clue}\n{rules.format_state(item['current'])}\nL({i}) = "
                     f"{yes if item['label'] == SOLVABLE else no}")
        shown, clue = _explored_shown(instance)
        if shown is not None:
            clue_text = f"  (clue applied: {clue})" if item["puzzle"] == "logicgrid" and clue else ""
            lines.append(f"S({i + 1}) ={clue_text}\n{_format_any(rules, data, shown)}\nL({i + 1}) = {no}")
        parts.append("History:\n" + "\n\n".join(lines))
        parts.append(_no_programming(instance))
        parts.append("End your reply with one final line: Next state: <the new state as a Python list, in the "
                     "same format as the states above>.")
        return "\n\n".join(p for p in parts if p)

    def parse(self, text: str):
        value, _ = extract_state_literal(text)
        return value

    def expected_answer(self, instance: Instance) -> str:
        return "a final line `Next state: <the new state as a Python list, written like the states shown>`"

    def final_state(self, instance: Instance, answer) -> Any:
        """The next state as submitted."""
        return answer if isinstance(answer, list) else None

    def state_picture(self, instance: Instance, state, verdict: dict, move=None) -> AnswerPicture:
        item = instance.data
        rules = rules_for(item["puzzle"], _options(instance))
        return move_picture(rules, item["puzzle_data"], state, rules.visible(item["current"]), None,
                            "Next state as submitted")

    def score(self, instance, completion, **meta):
        verdict = super().score(instance, completion, **meta)
        if isinstance(completion, str):
            verdict.details.setdefault("marker_missing", "next state:" not in tail(completion, 400_000).lower())
        if verdict.status in ("parse_error", "truncated"):
            verdict.details.setdefault("error", "parse_error")
            verdict.details.setdefault("category", "parsing_error")
        return verdict

    # ---- judging ----------------------------------------------------------------------------
    @staticmethod
    def _allow_noop(instance) -> bool:
        opts = _options(instance)
        if opts.get("allow_confirming_noop") is not None:
            return bool(opts["allow_confirming_noop"])
        return opts.get("grid_semantics") == "finereason"

    def judge(self, instance: Instance, candidate) -> tuple[str, str | None, str | None, dict]:
        """``(category, rule, sub_reason, extra details)`` of a visible candidate state (docs/specs/finereason.md
        §7)."""
        item = instance.data
        rules, data = rules_for(item["puzzle"], _options(instance)), item["puzzle_data"]
        cur = item["current"]
        parent_vis = item["history"][-1]["state"] if item["history"] else None
        on = self.rule_enabled
        if item["label"] == SOLVABLE:
            if parent_vis is not None and rules.same(data, candidate, parent_vis) and on("forward_when_solvable"):
                return "invalid_move", "forward_when_solvable", "unneeded_backtrack", {}
            explored = item.get("explored")
            if explored is not None and rules.same(data, candidate, explored) and on("avoid_dead_child"):
                return "unsolvable_child", "avoid_dead_child", None, {"is_tree_child": True, "child_solvable": False}
            if parent_vis is not None and rules.same(data, candidate, parent_vis):
                return "correct", None, None, {}  # the backtrack check is switched off
            move = rules.check_forward(data, cur, candidate, on, allow_noop=self._allow_noop(instance))
            if not move.legal:
                return "invalid_move", move.rule, move.reason, {}
            solvable = rules.solvable(data, move.child)
            tree = any(rules.same(data, rules.visible(c), candidate) for _, c in rules.children(data, cur))
            extra = {"is_tree_child": tree, "child_solvable": solvable}
            if not solvable and _options(instance).get("transition_reward") == "strict" and on("avoid_dead_child"):
                return "dead_child", "avoid_dead_child", None, extra
            return "correct", None, None, extra
        if parent_vis is not None and rules.same(data, candidate, parent_vis):
            return "correct", None, None, {}
        if not on("back_when_unsolvable"):
            return "correct", None, None, {}
        if rules.same(data, candidate, rules.visible(cur)):
            category = "no_change"
        elif parent_vis is not None and rules.check_forward(data, parent_state(item), candidate).legal:
            category = "sibling"
        elif rules.check_forward(data, cur, candidate).legal:
            category = "forward"
        else:
            category = "backtracking_failure"
        return category, "back_when_unsolvable", None, {}

    def verify(self, instance: Instance, answer) -> Verdict:
        item = instance.data
        rules = rules_for(item["puzzle"], _options(instance))
        try:
            candidate = rules.normalize(item["puzzle_data"], answer)
        except (ValueError, TypeError) as e:
            return Verdict("parse_error", f"The next state does not have the right shape: {e}",
                           details={"error": "parse_error", "category": "parsing_error", "reason": "wrong_shape"})
        category, rule, reason, extra = self.judge(instance, candidate)
        error = "multiple_moves" if reason == "multiple_changes" else ERROR_NAMES[category]
        details = {"category": category, "error": error, "reason": reason, "label": item["label"],
                   "depth": item["depth"], "puzzle": item["puzzle"], **extra}
        if rule is not None:
            details["rule"] = rule
        details["st_strict_correct"] = category == "correct" and extra.get("child_solvable", True)
        message = MESSAGES[category] + (f" ({reason}: {MOVE_RULES.get(rule, rule)})." if category == "invalid_move"
                                        else "")
        status = "solved" if category == "correct" else ("illegal_move" if category == "invalid_move" else "wrong")
        return Verdict(status, message, details=details)

    def solve(self, instance: Instance):
        """Golden move (docs/specs/finereason.md §8): the first solvable child that changes the state and is not the
        explored one, or the parent at an unsolvable state."""
        item = instance.data
        rules, data = rules_for(item["puzzle"], _options(instance)), item["puzzle_data"]
        if item["label"] == UNSOLVABLE:
            return item["history"][-1]["state"]
        current = rules.visible(item["current"])
        for _, child in rules.children(data, item["current"]):
            vis = rules.visible(child)
            if vis != current and rules.solvable(data, child) and not (
                    item.get("explored") is not None and rules.same(data, vis, item["explored"])):
                return vis
        raise ConfigError("this solvable state has no solvable move that changes it")  # sampled items always do

    def format_answer(self, answer) -> str:
        return "Next state: " + format_value(answer)

    def corrupt_answer(self, instance: Instance, answer, rng):
        item = instance.data
        if item["label"] == SOLVABLE and item.get("explored") is not None:
            return item["explored"]
        return rules_for(item["puzzle"]).visible(item["current"])

    # ---- the adversarial catalogues -------------------------------------------------------------
    def near_misses(self, instance: Instance, rng):
        item = instance.data
        rules, data = rules_for(item["puzzle"], _options(instance)), item["puzzle_data"]
        cur = item["current"]
        parent_vis = item["history"][-1]["state"] if item["history"] else None
        explored = item.get("explored")
        seen = [parent_vis, explored]
        if item["label"] == SOLVABLE:
            if explored is not None:
                yield NearMiss("avoid_dead_child", explored)
            if _options(instance).get("transition_reward") == "strict":
                dead = [rules.visible(c) for _, c in rules.children(data, cur) if not rules.solvable(data, c)]
                for vis in dead[1:2] + dead[-1:]:
                    yield NearMiss("avoid_dead_child", vis)
            if parent_vis is not None:
                yield NearMiss("forward_when_solvable", parent_vis)
            for rule, cand in rules.illegal_moves(data, cur, rng, allow_noop=self._allow_noop(instance)):
                if not any(s is not None and rules.same(data, cand, s) for s in seen):
                    yield NearMiss(rule, cand)
            return
        yield NearMiss("back_when_unsolvable", rules.visible(cur))
        kids = rules.children(data, cur)
        if kids:
            yield NearMiss("back_when_unsolvable", rules.visible(kids[-1][1]))
        if parent_vis is not None:
            siblings = [rules.visible(c) for _, c in rules.children(data, parent_state(item))
                        if not rules.same(data, rules.visible(c), rules.visible(cur))]
            if siblings:
                yield NearMiss("back_when_unsolvable", siblings[0])
        if len(item["history"]) >= 2:
            yield NearMiss("back_when_unsolvable", item["history"][-2]["state"])

    def cheap_answers(self, instance: Instance, rng) -> list[CheapAnswer]:
        item = instance.data
        rules, data = rules_for(item["puzzle"], _options(instance)), item["puzzle_data"]
        cur = rules.visible(item["current"])
        solvable_item = item["label"] == SOLVABLE
        # copying the state is a real move only where a grid clue already holds and no-ops count
        noop_move = solvable_item and self._allow_noop(instance) and item["puzzle"] == "logicgrid" and any(
            rules.visible(c) == cur and (rules.solvable(data, c) or _options(instance).get("transition_reward")
                                         != "strict") for _, c in rules.children(data, item["current"]))
        out = [CheapAnswer("copy the current state", completion=self.format_answer(cur), chance=float(noop_move)),
               CheapAnswer("empty", completion="")]
        if item["history"]:
            out.append(CheapAnswer("always go back", completion=self.format_answer(item["history"][-1]["state"]),
                                   chance=float(not solvable_item)))
        if item.get("explored") is not None:
            out.append(CheapAnswer("the explored child", completion=self.format_answer(item["explored"])))
        return out

    def random_answer(self, instance: Instance, rng):
        """A legal-looking move: a random child of the current state, or the parent."""
        item = instance.data
        rules, data = rules_for(item["puzzle"], _options(instance)), item["puzzle_data"]
        kids = [rules.visible(c) for _, c in rules.children(data, item["current"])]
        if kids and (rng.random() < 0.5 or not item["history"]):
            return kids[int(rng.integers(len(kids)))]
        return item["history"][-1]["state"] if item["history"] else rules.visible(item["current"])


# ---- the interactive tree walk ---------------------------------------------------------------------
class TreeWalkTask(InteractiveTask):
    """FineReason tree walk: solve a puzzle one minimal move at a time, forward or back.

    ## Description
    The episode starts at the root of a puzzle tree (an unsolved Sudoku, a graph with vertex 0
    coloured 1, four numbers, an empty logic grid). Each move writes one state: a legal forward
    move from the current state (docs/specs/finereason.md §7, "valid child") or the previous state (a
    backward move). The walk is solved when a complete valid solution is reached (grid: every
    clue applied and the table consistent with the solution; applying a clue that already holds
    leaves the table unchanged and is a move).

    ## Answer
    Answer mode: the whole walk as ``Next state: [...]`` lines, replayed move by move; the last
    move must reach the solution (a move after it is an error, reason ``move_after_solution``).
    Interactive mode: one ``Next state: [...]`` per step (the last one in the text is read).
    """

    family: ClassVar[str] = "finereason_walk"
    Params: ClassVar[type] = WalkParams
    difficulties: ClassVar[dict] = {name: {} for name in PRESET_NAMES}
    default_difficulty: ClassVar[str] = "normal"
    partial_credit: ClassVar[str] = BINARY
    rule_codes: ClassVar[dict] = {**MOVE_RULES, "reaches_solution": "the walk ends at a complete valid solution"}

    def validate_params(self, params: dict) -> dict:
        return fill_presets(params, self.default_difficulty)

    def generate(self, rng: np.random.Generator, **params) -> Instance:
        params = self.resolve_params(**params) if "difficulty" not in params or "puzzle" not in params else params
        data = rules_for(params["puzzle"], params).generate(rng, params)
        return Instance(self.family, {"puzzle": params["puzzle"], "puzzle_data": data}, params=params)

    def load(self, obj: Any) -> Instance:
        obj = _read_json(obj)
        if isinstance(obj, dict) and "inputs" in obj:
            from .items import LOADERS, detect_puzzle

            obj = integral_floats(obj)  # 7.0 is 7, as FineReason's == reads it
            puzzle = detect_puzzle(obj["inputs"])
            return Instance(self.family, {"puzzle": puzzle, "puzzle_data": LOADERS[puzzle](obj)},
                            params={"puzzle": puzzle})
        inst = Task.load(self, obj)
        self.validate_instance(inst)
        return inst

    def validate_instance(self, instance: Instance) -> None:
        validate_puzzle_fields(instance.data)

    def _rules(self, instance):
        return rules_for(instance.data["puzzle"], _options(instance)), instance.data["puzzle_data"]

    def prompt(self, instance: Instance) -> str:
        rules, data = self._rules(instance)
        parts = [(f"Solve this {TITLES[instance.data['puzzle']]} by walking its tree of states, one move at a "
                  f"time, until you reach a complete solution."), "Rules:\n" + rules.rules_text(data)]
        if rules.data_text(data):
            parts.append(rules.data_text(data))
        parts.append("Moves:\n- Forward: " + rules.move_rule + "\n- Backward: " + rules.backward_rule +
                     " Write the previous state to go back.")
        parts.append("Start state =\n" + rules.format_state(rules.root(data)))
        parts.append("Write each move on its own line as: Next state: <the new state as a Python list>. In one "
                     "reply, list every move of the walk in order.")
        return "\n\n".join(parts)

    def interactive_prompt(self, instance: Instance) -> str:
        return self.prompt(instance).replace(
            "In one reply, list every move of the walk in order.", "Send one move per step.")

    # ---- answer mode: the whole walk ------------------------------------------------------------
    def parse(self, text: str) -> list:
        moves = extract_all_states(text)
        if not moves:
            raise ParseError("no 'Next state: [...]' line found", reason="no_answer")
        return moves

    def expected_answer(self, instance: Instance) -> str:
        return "one line `Next state: <the new state as a Python list>` per move, in order"

    def expected_move(self, instance: Instance) -> str:
        return "one line `Next state: <the new state as a Python list, written like the state shown>`"

    def verify(self, instance: Instance, answer: list) -> Verdict:
        state = self.initial_state(instance)
        deepest = 0
        for k, move in enumerate(answer, start=1):
            t = self.transition(instance, state, move)
            if t.status == "illegal_move":
                return Verdict("illegal_move", f"Move {k}: {t.feedback}", first_error=k, details=t.details)
            state = t.state
            deepest = max(deepest, len(state["path"]) - 1)
            if t.status == "solved":
                if k < len(answer):
                    # the walk ends where it is judged: a move after the solution is an error, whatever it is
                    return Verdict("illegal_move", f"Move {k + 1}: the walk reached a solution at move {k} and "
                                   f"went on ({len(answer) - k} more move{'s' if len(answer) - k > 1 else ''}); "
                                   "nothing may follow the solution.", first_error=k + 1,
                                   details={"reason": "move_after_solution", "moves": len(answer), "solved_at": k})
                return Verdict("solved", f"Solved in {k} moves.", details={"moves": k})
        details = {"moves": len(answer), "deepest": deepest}
        if not self.rule_enabled("reaches_solution"):
            return Verdict("solved", "The walk is legal (the goal check is switched off).", details=details)
        return Verdict("incomplete", "The walk ends before a solution is reached.",
                       details={**details, "rule": "reaches_solution"})

    def solve(self, instance: Instance) -> list:
        return self.golden_moves(instance)

    def _walk(self, instance: Instance, answer: list) -> tuple[dict, Any]:
        """The state the walk reaches, replayed as :meth:`verify` replays it, and its first
        illegal move (None when every move is legal)."""
        state = self.initial_state(instance)
        for k, move in enumerate(answer):
            t = self.transition(instance, state, move)
            if t.status == "illegal_move":
                return state, move
            state = t.state
            if t.status == "solved":
                return state, (answer[k + 1] if k + 1 < len(answer) else None)
        return state, None

    def final_state(self, instance: Instance, answer) -> dict | None:
        return self._walk(instance, answer)[0] if isinstance(answer, list) else None

    def answer_picture(self, instance: Instance, answer, verdict: dict) -> AnswerPicture | None:
        """The state the walk reaches, with its first illegal move's changes listed."""
        if not isinstance(answer, list):
            return None
        state, bad = self._walk(instance, answer)
        return self.state_picture(instance, state, verdict, bad)

    def state_picture(self, instance: Instance, state, verdict: dict, move=None) -> AnswerPicture:
        rules, data = self._rules(instance)
        now = rules.visible(state["path"][-1])
        return move_picture(rules, data, now, now, move, f"State reached (depth {len(state['path']) - 1})")

    def golden_moves(self, instance: Instance) -> list:
        rules, data = self._rules(instance)
        return [rules.visible(s) for s in rules.solution_path(data)[1:]]

    def format_answer(self, answer: list) -> str:
        return "\n".join(self.format_move(m) for m in answer)

    def corrupt_answer(self, instance: Instance, answer: list, rng) -> list:
        return answer[:-1] if len(answer) > 1 else [self.initial_state(instance)["path"][0]]

    def optimal_steps(self, instance: Instance) -> int:
        rules, data = self._rules(instance)
        return len(rules.solution_path(data)) - 1

    def max_steps(self, instance: Instance) -> int:
        return 3 * self.optimal_steps(instance) + 10

    # ---- the adversarial catalogues -------------------------------------------------------------
    def near_misses(self, instance: Instance, rng):
        """Each illegal move as a detour (move, then back) inside the golden walk, at the first and
        the last move; and the golden walk without its last move."""
        rules, data = self._rules(instance)
        path = rules.solution_path(data)
        golden = [rules.visible(s) for s in path[1:]]
        for k in dict.fromkeys([0, len(path) - 2]):
            done = set()
            for rule, cand in rules.illegal_moves(data, path[k], rng):
                if rule in done:
                    continue
                done.add(rule)
                yield NearMiss(rule, golden[:k] + [cand, rules.visible(path[k])] + golden[k:])
        if len(golden) > 1:
            yield NearMiss("reaches_solution", golden[:-1])

    def _greedy_walk(self, instance) -> tuple[list, bool]:
        """Always the first child, whatever its label, until a leaf."""
        rules, data = self._rules(instance)
        state, walk = rules.root(data), []
        while True:
            kids = rules.children(data, state)
            if not kids:
                return walk, rules.is_solution(data, state)
            state = kids[0][1]
            walk.append(rules.visible(state))

    def cheap_answers(self, instance: Instance, rng) -> list[CheapAnswer]:
        rules, data = self._rules(instance)
        root = rules.visible(rules.root(data))
        first = rules.children(data, rules.root(data))
        out = [CheapAnswer("empty", completion="", moves=("",)),
               CheapAnswer("the start state", completion=self.format_move(root), moves=(self.format_move(root),))]
        if first:
            there, back = self.format_move(rules.visible(first[0][1])), self.format_move(root)
            out.append(CheapAnswer("back and forth", completion="\n".join([there, back] * 5), moves=(there, back)))
        greedy, solves = self._greedy_walk(instance)
        if greedy:
            out.append(CheapAnswer("first move every time", completion=self.format_answer(greedy),
                                   moves=tuple(self.format_move(m) for m in greedy), chance=float(solves)))
        return out

    def random_answer(self, instance: Instance, rng) -> list:
        """A random legal forward walk of random length (no look-ahead)."""
        rules, data = self._rules(instance)
        state, walk = rules.root(data), []
        for _ in range(int(rng.integers(1, self.optimal_steps(instance) + 1))):
            kids = rules.children(data, state)
            if not kids:
                break
            state = kids[int(rng.integers(len(kids)))][1]
            walk.append(rules.visible(state))
        return walk or [rules.visible(state)]

    # ---- interactive mode -----------------------------------------------------------------------
    def initial_state(self, instance: Instance) -> dict:
        rules, data = self._rules(instance)
        return {"path": [rules.root(data)]}

    def parse_move(self, text: str):
        value, _ = extract_state_literal(text)
        return value

    def format_move(self, move) -> str:
        return "Next state: " + format_value(move)

    def transition(self, instance: Instance, state: dict, move) -> Transition:
        rules, data = self._rules(instance)
        path = state["path"]
        try:
            cand = rules.normalize(data, move)
        except (ValueError, TypeError) as e:
            return Transition(state, "illegal_move", f"Illegal move: {e}", details={"reason": "wrong_shape"})
        check = rules.check_forward(data, path[-1], cand, self.rule_enabled)
        if check.legal:
            new = {"path": path + [check.child]}
            if rules.is_solution(data, check.child):
                return Transition(new, "solved", "Solved: a complete valid solution is reached.", reward=1.0)
            return Transition(new, "continue", f"Forward move to depth {len(path)}.")
        if len(path) > 1 and rules.same(data, cand, rules.visible(path[-2])):
            return Transition({"path": path[:-1]}, "continue", f"Backward move to depth {len(path) - 2}.")
        return Transition(state, "illegal_move", f"Illegal move ({check.reason}): {MOVE_RULES[check.rule]}.",
                          details={"reason": check.reason, "rule": check.rule})

    def is_goal(self, instance: Instance, state: dict) -> bool:
        rules, data = self._rules(instance)
        return rules.is_solution(data, state["path"][-1])

    def render_state(self, instance: Instance, state: dict) -> str:
        rules, _ = self._rules(instance)
        return f"Current state (depth {len(state['path']) - 1}) =\n{rules.format_state(state['path'][-1])}"

    def render(self, instance: Instance, state: Any = None) -> str:
        return self.render_state(instance, self.initial_state(instance) if state is None else state)


for _task in (StateCheckingTask, StateTransitionTask, TreeWalkTask):  # the manual's preset table, from the data
    _task.__doc__ = (_task.__doc__ or "").rstrip() + presets_doc()
