"""The FineReason tasks: state checking, state transition and the tree walk (spec finereason.md §4-§7).

Three Tasks share one parameter set (:class:`FineReasonParams`):

* :class:`StateCheckingTask` (``kumo_gym/FineReasonStateChecking-v0``),
* :class:`StateTransitionTask` (``kumo_gym/FineReasonStateTransition-v0``),
* :class:`TreeWalkTask` (``kumo_gym/FineReasonTreeWalk-v0``).

State checking and state transition items are the same instances (an item yields both
prompts), so an instance drawn for one can be replayed in the other.
"""
from __future__ import annotations

import re
from typing import Any, ClassVar

import numpy as np

from ...core.errors import ConfigError, ParseError, check_choice, check_int
from ...core.extract import normalize_quotes, tail
from ...core.instance import Instance
from ...core.task import InteractiveTask, Task, Transition
from ...core.verdict import Verdict
from .items import PUZZLES, RULES, label_of, load_reference, parent_state, sample_puzzle_item
from .text import extract_all_states, extract_state_literal, format_value
from .tree import SOLVABLE, UNSOLVABLE, UNSOLVABLE_MODES

TITLES = {"sudoku": "Sudoku puzzle", "coloring": "graph colouring problem", "game24": "Game of 24 puzzle",
          "logicgrid": "logic grid puzzle"}

#: size parameters of each puzzle; the other puzzles' size parameters are refused
SIZE_PARAMS = {"sudoku": ("empty_cells",), "coloring": ("n_vertices", "slack"), "game24": ("max_number",),
               "logicgrid": ("n_rows", "n_categories")}

#: difficulty presets per puzzle (docs/finereason.md): sizes, not depths; depths are sampled
PRESETS = {
    "sudoku": {"easy": {"empty_cells": 40}, "normal": {"empty_cells": 47}, "hard": {"empty_cells": 54}},
    "coloring": {"easy": {"n_vertices": 10, "slack": 1}, "normal": {"n_vertices": 15, "slack": 1},
                 "hard": {"n_vertices": 20, "slack": 0}},
    "game24": {"easy": {"max_number": 9}, "normal": {"max_number": 13}, "hard": {"max_number": 20}},
    "logicgrid": {"easy": {"n_rows": 3, "n_categories": 3}, "normal": {"n_rows": 4, "n_categories": 3},
                  "hard": {"n_rows": 5, "n_categories": 3}},
}
LABEL_CHOICES = ("any", "solvable", "unsolvable")
SC_LETTERS = {SOLVABLE: "A", UNSOLVABLE: "B"}


class FineReasonParams(Task):
    """Parameters and instances shared by the three FineReason tasks."""

    family: ClassVar[str] = "finereason"
    difficulties: ClassVar[dict] = {name: {} for name in ("easy", "normal", "hard")}
    default_difficulty: ClassVar[str] = "normal"
    param_names: ClassVar[tuple] = ("puzzle", "label", "depth", "unsolvable_mode", "no_programming", "faithful_labels",
                                    "empty_cells", "n_vertices", "slack", "max_number", "n_rows", "n_categories")

    def validate_params(self, params: dict) -> dict:
        p = dict(params)
        puzzle = p.setdefault("puzzle", "sudoku")
        check_choice("puzzle", puzzle, PUZZLES)
        diff = p.setdefault("difficulty", self.default_difficulty)
        check_choice("difficulty", diff, list(PRESETS[puzzle]))
        for name in (n for names in SIZE_PARAMS.values() for n in names):
            if name in p and name not in SIZE_PARAMS[puzzle]:
                raise ConfigError(f"parameter {name!r} does not apply to puzzle {puzzle!r}; its size "
                                  f"parameters are: {', '.join(SIZE_PARAMS[puzzle])}")
        for key, val in PRESETS[puzzle][diff].items():
            p.setdefault(key, val)
        check_choice("label", p.setdefault("label", "any"), LABEL_CHOICES)
        if p.get("unsolvable_mode") is not None:
            check_choice("unsolvable_mode", p["unsolvable_mode"], UNSOLVABLE_MODES)
        if p.get("depth") is not None:
            # the deepest non-complete state each puzzle size allows (grids: known once clues are drawn)
            hi = {"sudoku": p.get("empty_cells", 0) - 1, "coloring": p.get("n_vertices", 0) - 2, "game24": 2,
                  "logicgrid": None}[puzzle]
            p["depth"] = check_int("depth", p["depth"], 2 if puzzle in ("sudoku", "coloring") else 1, hi)
        p["no_programming"] = bool(p.get("no_programming", True))
        if p.get("faithful_labels"):
            p["faithful_labels"] = True  # absent when off, so default instances keep their ids
        return p

    # ---- instances ------------------------------------------------------------------------
    def generate(self, rng: np.random.Generator, **params) -> Instance:
        params = self.validate_params(params)
        label = {"any": None, "solvable": SOLVABLE, "unsolvable": UNSOLVABLE}[params["label"]]
        item = sample_puzzle_item(params["puzzle"], rng, params, label)
        return Instance(self.family, item, params=params)

    def load(self, obj: Any) -> Instance:
        """An Instance, its dict/JSON, or a reference FineReason row (its stored label is ignored)."""
        if isinstance(obj, str) and obj.lstrip().startswith("{") and '"inputs"' in obj[:200]:
            import json

            obj = json.loads(obj)
        if isinstance(obj, dict) and "inputs" in obj:
            item = load_reference(obj)
            return Instance(self.family, item, params={"puzzle": item["puzzle"], "no_programming": True})
        inst = super().load(obj)
        item = dict(inst.data)
        rules = RULES.get(item.get("puzzle"))
        if rules is None:
            raise ConfigError(f"instance puzzle {item.get('puzzle')!r} is not one of: {', '.join(PUZZLES)}")
        computed = label_of(rules, item["puzzle_data"], item["current"])
        if computed != item.get("label"):  # labels are computed, never read
            item["label"] = computed
            inst = Instance(inst.family, item, params=inst.params, seed=inst.seed, split=inst.split)
        return inst

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

    # ---- shared prompt pieces -------------------------------------------------------------
    @staticmethod
    def words(item) -> tuple[str, str]:
        return RULES[item["puzzle"]].label_words

    def state_block(self, item, name: str, state) -> str:
        return f"{name} =\n{RULES[item['puzzle']].format_state(state)}"

    def no_programming(self, instance) -> str:
        if instance.params.get("no_programming", True):
            return "Work it out by reasoning; do not write or run a program to solve it.\n\n"
        return ""

    def check_trainable(self, instance: Instance) -> None:
        from ...core.errors import ContaminationError

        if instance.data.get("source", "generated") != "generated":
            raise ContaminationError("FineReason items read from the reference files are evaluation data; "
                                     "pass allow_reference=True to the export to use them")


class StateCheckingTask(FineReasonParams):
    """FineReason state checking: is the current state of a puzzle still solvable?

    ## Description
    One node of a puzzle tree (Sudoku, graph colouring, Game of 24 or a logic grid puzzle) is
    shown with the first of its children that is known to be unsolvable. The model decides
    whether the current state can still be completed (spec finereason.md §5).

    ## Answer
    A final line ``Answer: (A)`` (Solvable / Colorable) or ``Answer: (B)`` (Unsolvable /
    Uncolorable). The last answer in the reply wins; ``Answer: B``, ``\\boxed{B}`` and the label
    words are also read.

    ## Rewards
    1 for the right label, else 0. The label is computed by an exact oracle, also for items
    replayed from the reference files.

    ## Arguments
    ``puzzle`` (sudoku, coloring, game24, logicgrid; default sudoku), ``difficulty``
    (easy/normal/hard, sizes per puzzle), ``label`` (any/solvable/unsolvable), ``depth``,
    ``unsolvable_mode`` (first_wrong_step/any), ``no_programming``, ``faithful_labels`` (transition
    prompts label every ancestor Solvable, as the reference prompts do), and the size parameters
    ``empty_cells`` | ``n_vertices``, ``slack`` | ``max_number`` | ``n_rows``, ``n_categories``.
    """

    _ANSWER = re.compile(r"(?i:answer)\s*[:=]?\s*(?:is\s*)?\**\s*(?:\(\s*([AB])\s*\)|([AB])(?![A-Za-z0-9])|"
                         r"(?i:(unsolvable|uncolorable|solvable|colorable))\b)")
    _BARE = re.compile(r"\(\s*([AB])\s*\)")
    _WORD = re.compile(r"\b(?i:(unsolvable|uncolorable|solvable|colorable))\b")

    def prompt(self, instance: Instance) -> str:
        item = instance.data
        rules = RULES[item["puzzle"]]
        data = item["puzzle_data"]
        yes, no = self.words(item)
        parts = [(f"You are given a {TITLES[item['puzzle']]} and a partly solved state of it. Decide whether "
                 f"the current state can still be completed to a valid solution by further forward moves, "
                 f"without changing anything already written. Look ahead: a state that breaks no rule yet "
                 f"may still lead only to dead ends."),
                 "Rules:\n" + rules.rules_text(data)]
        if rules.data_text(data):
            parts.append(rules.data_text(data))
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
        if item.get("explored") is not None:
            clue = f" (clue applied: {item['explored_clue']})" if item["puzzle"] == "logicgrid" else ""
            parts.append(f"An explored next state{clue}, reached from the current state by one move, is known "
                         f"to be {no}:\n{rules.format_state(item['explored'])}")
        parts.append(self.no_programming(instance).strip() if self.no_programming(instance) else "")
        parts.append(f"Is the current state {yes} or {no}?\n(A) {yes}\n(B) {no}\n"
                     f"End your reply with one final line: Answer: (A) or Answer: (B).")
        return "\n\n".join(p for p in parts if p)

    def parse(self, text: str) -> str:
        """``A`` (Solvable) or ``B`` (Unsolvable), spec §6: the last ``Answer:``, then ``\\boxed{}``,
        then a bare ``(A)``/``(B)``."""
        region = tail(normalize_quotes(text))
        last = None
        for m in self._ANSWER.finditer(region):
            last = m
        if last is not None:
            return self._letter(last.group(1) or last.group(2) or last.group(3))
        for box in reversed(_last_boxed(region)):
            b = box.strip().strip("()").strip()
            if b in ("A", "B"):
                return b
            w = self._WORD.fullmatch(b)
            if w:
                return self._letter(w.group(1))
        bare = None
        for m in self._BARE.finditer(region):
            bare = m
        if bare is not None:
            return bare.group(1)
        raise ParseError("no 'Answer: (A)' or 'Answer: (B)' found", reason="no_answer")

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
        yes, no = self.words(item)
        word = {"A": yes, "B": no}
        details = {"predicted": answer, "label": item["label"], "depth": item["depth"], "puzzle": item["puzzle"]}
        if answer == truth:
            return Verdict("solved", f"Correct: the current state is {word[truth]}.", details=details)
        return Verdict("wrong", f"Wrong: the current state is {word[truth]}, not {word.get(answer, answer)}.",
                       details=details)

    def solve(self, instance: Instance) -> str:
        return SC_LETTERS[instance.data["label"]]

    def format_answer(self, answer: str) -> str:
        return f"Answer: ({answer})"

    def corrupt_answer(self, instance: Instance, answer: str, rng) -> str:
        return "B" if answer == "A" else "A"


def _last_boxed(text: str, k: int = 3) -> list[str]:
    """Contents of the last ``k`` ``\\boxed{...}``; scanning only those keeps hostile input linear."""
    starts = [m.end() for m in re.finditer(r"\\boxed\s*\{", text)][-k:]
    out = []
    for i in starts:
        depth, j = 1, i
        while j < len(text) and depth and j - i < 2000:
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            j += 1
        if depth == 0:
            out.append(text[i:j - 1])
    return out


# ---- state transition -----------------------------------------------------------------------------
#: FineReason's names of the judge's categories (spec §7)
ERROR_NAMES = {"correct": "correct", "unsolvable_child": "unsolvable_child", "invalid_move": "invalid_move",
               "no_change": "sibling", "sibling": "sibling", "forward": "backtracking_failure",
               "backtracking_failure": "backtracking_failure", "parsing_error": "parse_error"}


class StateTransitionTask(FineReasonParams):
    """FineReason state transition: make one move from the current state of a puzzle tree.

    ## Description
    The prompt shows the puzzle, the history of states with their true labels (``S(j)``,
    ``L(j)``), the current state with its label and an explored child known to be unsolvable
    (spec finereason.md §5). At a solvable state the model must make a forward move that is not
    the explored child; at an unsolvable state it must go back to the parent.

    ## Answer
    A final line ``Next state: <state>`` with the state as a Python list in the prompt's format.
    The last list after the last ``Next state:`` is read (without the marker, the last list).

    ## Judging (§7)
    Solvable: any legal one-move child other than the explored child is correct (it need not be
    solvable; ``details["child_solvable"]`` and ``st_strict_correct`` say whether it was).
    Unsolvable: exactly the parent. ``details["error"]`` is one of ``correct``,
    ``unsolvable_child``, ``invalid_move``, ``multiple_moves``, ``sibling``,
    ``backtracking_failure``, ``parse_error``; ``details["category"]`` gives the finer category
    of §7 and ``details["reason"]`` the sub-reason of an invalid move.

    ## Arguments
    As :class:`StateCheckingTask`.
    """

    def prompt(self, instance: Instance) -> str:
        item = instance.data
        rules = RULES[item["puzzle"]]
        data = item["puzzle_data"]
        yes, no = self.words(item)
        i = item["depth"]
        parts = [(f"You are solving a {TITLES[item['puzzle']]} by searching its tree of states. Make exactly one "
                 f"move from the current state S({i}) toward a solution."),
                 "Rules:\n" + rules.rules_text(data)]
        if rules.data_text(data):
            parts.append(rules.data_text(data))
        parts.append("Moves:\n- Forward: " + rules.move_text() + "\n- Backward: " + rules.backward_text() +
                     f"\nIf S({i}) is {yes}, make a forward move that keeps the puzzle solvable; the explored state "
                     f"S({i + 1}) is {no}, so do not choose it. If S({i}) is {no}, make the backward move.")
        # faithful_labels: the reference prompts label every ancestor Solvable, even a dead one (§5)
        faithful = bool(instance.params.get("faithful_labels"))
        lines = []
        for h in item["history"]:
            clue = f"  (clue applied: {h['clue']})" if h.get("clue") else ""
            lines.append(f"S({h['depth']}) ={clue}\n{rules.format_state(h['state'])}\nL({h['depth']}) = "
                         f"{yes if faithful or h['label'] == SOLVABLE else no}")
        cur_clue = (f"  (clue applied: {item['current']['applied'][-1]})"
                    if item["puzzle"] == "logicgrid" and item["current"]["applied"] else "")
        lines.append(f"S({i}) ={cur_clue}\n{rules.format_state(item['current'])}\nL({i}) = "
                     f"{yes if item['label'] == SOLVABLE else no}")
        if item.get("explored") is not None:
            clue = f"  (clue applied: {item['explored_clue']})" if item.get("explored_clue") else ""
            lines.append(f"S({i + 1}) ={clue}\n{rules.format_state(item['explored'])}\nL({i + 1}) = {no}")
        parts.append("History:\n" + "\n\n".join(lines))
        parts.append(self.no_programming(instance).strip() if self.no_programming(instance) else "")
        parts.append("End your reply with one final line: Next state: <the new state as a Python list, in the "
                     "same format as the states above>.")
        return "\n\n".join(p for p in parts if p)

    def parse(self, text: str):
        value, _ = extract_state_literal(text)
        return value

    def score(self, instance, completion, **meta):
        verdict = super().score(instance, completion, **meta)
        if isinstance(completion, str):
            verdict.details.setdefault("marker_missing", "next state:" not in tail(completion, 400_000).lower())
        if verdict.status in ("parse_error", "truncated"):
            verdict.details.setdefault("error", "parse_error")
            verdict.details.setdefault("category", "parsing_error")
        return verdict

    def judge(self, item: dict, candidate) -> tuple[str, str | None, dict]:
        """The §7 category, the invalid-move sub-reason and extra details for a visible state."""
        rules = RULES[item["puzzle"]]
        data = item["puzzle_data"]
        cur = item["current"]
        parent_vis = item["history"][-1]["state"] if item["history"] else None
        if item["label"] == SOLVABLE:
            if item.get("explored") is not None and rules.same(data, candidate, item["explored"]):
                return "unsolvable_child", None, {"is_tree_child": True, "child_solvable": False}
            err, child = rules.forward_error(data, cur, candidate)
            if err is None:
                tree = any(rules.same(data, rules.visible(c), candidate) for _, c in rules.children(data, cur))
                return "correct", None, {"is_tree_child": tree, "child_solvable": rules.solvable(data, child)}
            if parent_vis is not None and rules.same(data, candidate, parent_vis):
                err = "unneeded_backtrack"
            return "invalid_move", err, {}
        if parent_vis is not None and rules.same(data, candidate, parent_vis):
            return "correct", None, {}
        if rules.same(data, candidate, rules.visible(cur)):
            return "no_change", None, {}
        if rules.forward_error(data, parent_state(item), candidate)[0] is None:
            return "sibling", None, {}
        if rules.forward_error(data, cur, candidate)[0] is None:
            return "forward", None, {}
        return "backtracking_failure", None, {}

    def verify(self, instance: Instance, answer) -> Verdict:
        item = instance.data
        rules = RULES[item["puzzle"]]
        try:
            candidate = rules.normalize(item["puzzle_data"], answer)
        except (ValueError, TypeError) as e:
            return Verdict("parse_error", f"The next state does not have the right shape: {e}",
                           details={"error": "parse_error", "category": "parsing_error", "reason": "wrong_shape"})
        category, reason, extra = self.judge(item, candidate)
        error = ERROR_NAMES[category]
        if reason == "multiple_changes":
            error = "multiple_moves"
        details = {"category": category, "error": error, "reason": reason, "label": item["label"],
                   "depth": item["depth"], "puzzle": item["puzzle"], **extra}
        details["st_strict_correct"] = category == "correct" and extra.get("child_solvable", True)
        messages = {
            "correct": "Correct move.",
            "unsolvable_child": "Wrong: that is the explored child, which is known to be unsolvable.",
            "invalid_move": f"Invalid move ({reason}).",
            "no_change": "Wrong: the state is unsolvable, but it was left unchanged instead of going back.",
            "sibling": "Wrong: that is another child of the parent; the move should return to the parent.",
            "forward": "Wrong: the state is unsolvable, so a forward move cannot help; go back to the parent.",
            "backtracking_failure": "Wrong: the state is unsolvable and the answer is not its parent.",
        }
        status = "solved" if category == "correct" else ("illegal_move" if category == "invalid_move" else "wrong")
        return Verdict(status, messages[category], details=details)

    def solve(self, instance: Instance):
        """Golden move (§8): the first solvable child other than the explored one, or the parent."""
        item = instance.data
        rules = RULES[item["puzzle"]]
        data = item["puzzle_data"]
        if item["label"] == UNSOLVABLE:
            return item["history"][-1]["state"]
        for _, child in rules.children(data, item["current"]):
            vis = rules.visible(child)
            if rules.solvable(data, child) and not (item.get("explored") is not None
                                                    and rules.same(data, vis, item["explored"])):
                return vis
        raise ConfigError("a solvable state without a solvable child")  # impossible for sampled items

    def format_answer(self, answer) -> str:
        return "Next state: " + format_value(answer)

    def corrupt_answer(self, instance: Instance, answer, rng):
        item = instance.data
        rules = RULES[item["puzzle"]]
        if item["label"] == SOLVABLE and item.get("explored") is not None:
            return item["explored"]
        return rules.visible(item["current"])


# ---- the interactive tree walk ---------------------------------------------------------------------
class TreeWalkTask(InteractiveTask, FineReasonParams):
    """FineReason tree walk: solve a puzzle one minimal move at a time, forward or back.

    ## Description
    The episode starts at the root of a puzzle tree (an unsolved Sudoku, an uncoloured graph with
    vertex 0 coloured 1, four numbers, an empty logic grid). Each step is one state: a legal forward
    move from the current state (spec finereason.md §7, "valid child") or the previous state (a
    backward move). The episode is solved when a complete valid solution is reached (grid: every
    clue applied and the table agrees with the solution).

    ## Observation / action
    Text. The action's last ``Next state: [...]`` is read. An illegal or unreadable move ends the
    episode by default (``illegal_action="reject"`` keeps it going).

    ## Answer mode
    The whole walk as ``Next state:`` lines; it is replayed move by move.

    ## Rewards
    1 on reaching a solution, else 0 (``reward="partial"``: the depth reached over the solution depth).

    ## Arguments
    ``puzzle`` and the size parameters as :class:`StateCheckingTask` (``label``, ``depth`` and
    ``unsolvable_mode`` have no effect); ``max_steps`` (default: 3 x solution depth + 10).
    """

    family: ClassVar[str] = "finereason_walk"

    def generate(self, rng: np.random.Generator, **params) -> Instance:
        params = self.validate_params(params)
        data = RULES[params["puzzle"]].generate(rng, params)
        return Instance(self.family, {"puzzle": params["puzzle"], "puzzle_data": data}, params=params)

    def load(self, obj: Any) -> Instance:
        if isinstance(obj, dict) and "inputs" in obj:
            from .items import LOADERS, detect_puzzle

            puzzle = detect_puzzle(obj["inputs"])
            return Instance(self.family, {"puzzle": puzzle, "puzzle_data": LOADERS[puzzle](obj)},
                            params={"puzzle": puzzle})
        inst = Task.load(self, obj)
        check_choice("puzzle", inst.data.get("puzzle"), PUZZLES)
        return inst

    def check_trainable(self, instance):
        return None

    def _rules(self, instance):
        return RULES[instance.data["puzzle"]], instance.data["puzzle_data"]

    def prompt(self, instance: Instance) -> str:
        rules, data = self._rules(instance)
        parts = [(f"Solve this {TITLES[instance.data['puzzle']]} by walking its tree of states, one move at a "
                 f"time, until you reach a complete solution."), "Rules:\n" + rules.rules_text(data)]
        if rules.data_text(data):
            parts.append(rules.data_text(data))
        parts.append("Moves:\n- Forward: " + rules.move_text() + "\n- Backward: " + rules.backward_text() +
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

    def verify(self, instance: Instance, answer: list) -> Verdict:
        state = self.initial_state(instance)
        best = 0
        goal = self.optimal_steps(instance) or 1
        for k, move in enumerate(answer, start=1):
            t = self.transition(instance, state, move)
            if t.status == "illegal_move":
                return Verdict("illegal_move", f"Move {k}: {t.feedback}", score=best / goal, first_error=k,
                               details=t.details)
            state = t.state
            best = max(best, len(state["path"]) - 1)
            if t.status == "solved":
                return Verdict("solved", f"Solved in {k} moves.", details={"moves": k})
        return Verdict("incomplete", "The walk ends before a solution is reached.", score=min(best / goal, 0.99),
                       details={"moves": len(answer)})

    def solve(self, instance: Instance) -> list:
        return self.golden_moves(instance)

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
        err, child = rules.forward_error(data, path[-1], cand)
        if err is None:
            new = {"path": path + [child]}
            if rules.is_solution(data, child):
                return Transition(new, "solved", "Solved: a complete valid solution is reached.", reward=1.0)
            return Transition(new, "continue", f"Forward move to depth {len(path)}.")
        if len(path) > 1 and rules.same(data, cand, rules.visible(path[-2])):
            return Transition({"path": path[:-1]}, "continue", f"Backward move to depth {len(path) - 2}.")
        return Transition(state, "illegal_move", f"Illegal move: {err}.", details={"reason": err})

    def is_goal(self, instance: Instance, state: dict) -> bool:
        rules, data = self._rules(instance)
        return rules.is_solution(data, state["path"][-1])

    def render_state(self, instance: Instance, state: dict) -> str:
        rules, _ = self._rules(instance)
        return f"Current state (depth {len(state['path']) - 1}) =\n{rules.format_state(state['path'][-1])}"

    def render(self, instance: Instance, state: Any = None) -> str:
        if state is None:
            return self.prompt(instance)
        return self.render_state(instance, state)
