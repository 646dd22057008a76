"""Text the model sees and the answer it writes (docs/specs/sparc.md §7).

The prompt keeps the structure of the paper's prompt (role, grid basics, legend, rules, optional
worked example, puzzle data, output format) in our own words; the rules are stated as the
official solutions establish them (docs/specs/sparc.md §5), not as the paper's prompt words them.
"""
from __future__ import annotations

import re

from ...core.errors import ParseError, check_choice
from ...core.extract import last_match, tail
from .puzzle import NAME_OF_COLOUR, POLY, YLOP, SparcPuzzle

GRID_FORMATS = ("array", "table", "coords")
MAX_COORDS = 4096

ROLE = ("You are solving a SPaRC path puzzle. Draw one line through the grid from the start to the "
        "end so that every rule below holds.")

BASICS = (
    "## Grid\n"
    "The puzzle has {width} x {height} cells. It is written as an array of {rows} rows and {cols} columns. "
    "A position is (x, y): x is the column, y the row, (0, 0) is the top-left corner, x grows to the "
    "right and y grows downward. Positions with both x and y odd are rule cells: the line never enters "
    "them. All other positions (corners and edge midpoints) can carry the line. The line moves one "
    "position up, down, left or right per step and never visits a position twice, so it alternates "
    "between corners and edge midpoints.")

LEGEND = (
    "## Legend\n"
    "- `S`: start of the line. `E`: end of the line.\n"
    "- `+`: empty line position. `N`: empty rule cell.\n"
    "- `.`: dot; the line must pass through this position.\n"
    "- `G`: gap; the line must not pass through this position.\n"
    "- `o-C`: square of colour C.\n"
    "- `*-C`: star of colour C.\n"
    "- `A-C`, `B-C`, `C-C`, `D-C`: triangles of colour C, showing 1, 2, 3 or 4 triangles.\n"
    "- `P-C-<id>`: polyomino of colour C with shape <id> (shapes are listed with the puzzle).\n"
    "- `Y-C-<id>`: negative polyomino of colour C with shape <id>.\n"
    "- Colours: " + ", ".join(f"{c} = {n}" for c, n in NAME_OF_COLOUR.items()) + ".")

RULES = (
    "## Rules\n"
    "The line splits the rule cells into regions: two side-by-side cells belong to the same region "
    "unless the line passes over the edge midpoint between them. The outer border is a wall; gaps do "
    "not separate regions.\n"
    "1. Start at S, finish at E, one step at a time, never revisiting a position, never entering a "
    "rule cell and never passing through a gap.\n"
    "2. Dots: the line visits every dot.\n"
    "3. Squares: all squares inside one region have the same colour.\n"
    "4. Stars: the region of a star of colour C holds exactly two symbols of colour C, the star "
    "itself included. Every coloured symbol counts (squares, stars, triangles, polyominoes).\n"
    "5. Triangles: the line passes over exactly as many of the cell's four edge midpoints "
    "(left, right, above, below) as triangles are shown (1 to 4).\n"
    "6. Polyominoes: a region holding polyominoes must have exactly the area of all its "
    "polyominoes together, and they must tile it exactly: each shape is shifted, never rotated or "
    "mirrored. Negative polyominoes in the region subtract their area: the shapes must be "
    "placeable inside the grid so that, on every cell, the number of polyominoes covering it minus "
    "the number of negative polyominoes covering it is 1 inside the region and 0 outside. A "
    "region with only negative polyominoes is never valid. The colour of a polyomino matters only "
    "for stars.")

ANSWER_FORMAT = (
    "## Answer format\n"
    "Reason step by step first. Then write `####` followed by the whole line from start to end, "
    "every position included, as (x, y) pairs separated by commas, for example:\n"
    "#### (0, 2), (0, 1), (0, 0), (1, 0)")

# Our own small examples for the worked-example section (shots=1 or 2); tests check that each
# listed answer is the puzzle's only solution.
EXAMPLES = (
    {
        "grid": [["+", "+", "+", "+", "E"],
                 ["+", "o-R", "+", "o-B", "+"],
                 ["+", "+", "+", "+", "+"],
                 ["G", "N", "+", "N", "+"],
                 ["S", "+", ".", "G", "+"]],
        "shapes": {},
        "explanation": ("The red and blue squares must end up in different regions, so the line has "
                        "to pass over (2, 1), the edge between them. The gap at (0, 3) blocks the way "
                        "up the left side and the gap at (3, 4) the bottom right, so the line goes "
                        "right through the dot at (2, 4), straight up the middle to (2, 0) and right "
                        "along the top to E."),
        "answer": [(0, 4), (1, 4), (2, 4), (2, 3), (2, 2), (2, 1), (2, 0), (3, 0), (4, 0)],
    },
    {
        "grid": [["S", "+", "+", "+", "+"],
                 ["G", "B-Y", "+", "N", "+"],
                 ["+", "+", "+", "+", "+"],
                 ["+", "N", "+", "P-R-3", "+"],
                 ["+", "+", "+", "+", "E"]],
        "shapes": {"3": [[1, 0, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]},
        "explanation": ("The gap at (0, 1) forces the first step to the right. Going down the middle "
                        "column touches the two-triangle cell at (1, 1) on exactly two edges, (1, 0) "
                        "and (2, 1), and cuts the grid into two columns. The right column is a region "
                        "of two cells stacked vertically, which the vertical domino fills exactly."),
        "answer": [(0, 0), (1, 0), (2, 0), (2, 1), (2, 2), (2, 3), (2, 4), (3, 4), (4, 4)],
    },
)


def grid_text(p: SparcPuzzle, fmt: str = "array", marks: dict | None = None) -> str:
    """The token grid, one row per line (docs/specs/sparc.md §7): ``array`` prints each row as a Python list,
    ``table`` as a markdown table, ``coords`` as a markdown table with row and column labels.
    ``marks`` overrides tokens at positions (interactive mode's ``V`` and ``L``)."""
    check_choice("grid_format", fmt, GRID_FORMATS)
    rows = [[(marks or {}).get((x, y), tok) for x, tok in enumerate(row)] for y, row in enumerate(p.grid)]
    if fmt == "array":
        return "\n".join(str(r) for r in rows)
    if fmt == "table":
        head = "| " + " | ".join(" " for _ in rows[0]) + " |"
        sep = "|" + "|".join("---" for _ in rows[0]) + "|"
        return "\n".join([head, sep] + ["| " + " | ".join(r) + " |" for r in rows])
    head = "| y \\ x | " + " | ".join(str(x) for x in range(len(rows[0]))) + " |"
    sep = "|---|" + "|".join("---" for _ in rows[0]) + "|"
    return "\n".join([head, sep] + [f"| {y} | " + " | ".join(r) + " |" for y, r in enumerate(rows)])


def shapes_text(p: SparcPuzzle) -> str:
    """``Shape <id>:`` and its four rows for each polyshape used; empty when there are none."""
    if p.record is not None:
        import json

        arrays = json.loads(p.record.get("polyshapes") or "{}")
    else:
        from .puzzle import shape_array

        arrays = {sid: shape_array(cells) for sid, cells in p.shapes.items()}
    used = {s[2] for s in p.symbols.values() if s[0] in (POLY, YLOP)}
    out = []
    for sid in sorted(arrays, key=lambda s: (len(s), s)):
        if sid in used:
            out.append(f"Shape {sid}:")
            out.extend(str(list(r)) for r in arrays[sid])
    return "\n".join(out)


def format_path(path) -> str:
    return ", ".join(f"({x}, {y})" for x, y in path)


def example_text(shots: int, fmt: str = "array") -> str:
    if shots <= 0:
        return ""
    parts = ["## Worked example" + ("s" if shots > 1 else "")]
    for ex in EXAMPLES[:shots]:
        p = SparcPuzzle.from_grid(ex["grid"], ex["shapes"])
        parts.append(puzzle_data_text(p, fmt, arrays=ex["shapes"]))
        parts.append(ex["explanation"])
        parts.append("#### " + format_path(ex["answer"]))
    return "\n\n".join(parts)


def puzzle_data_text(p: SparcPuzzle, fmt: str = "array", arrays: dict | None = None) -> str:
    lines = [f"Start: ({p.start[0]}, {p.start[1]})", f"End: ({p.end[0]}, {p.end[1]})",
             f"Grid ({p.rows} rows x {p.cols} columns):", grid_text(p, fmt)]
    if arrays is not None:
        shapes = "\n".join(f"Shape {sid}:\n" + "\n".join(str(r) for r in arr) for sid, arr in arrays.items())
    else:
        shapes = shapes_text(p)
    if shapes:
        lines += ["Polyomino shapes (row by row, 1 = part of the shape):", shapes]
    return "\n".join(lines)


def prompt_fields(p: SparcPuzzle, fmt: str = "array", shots: int = 1) -> dict:
    """The named fields a ``prompt_template`` may use (docs/specs/sparc.md §7)."""
    return {"width": p.width, "height": p.height, "start": f"({p.start[0]}, {p.start[1]})",
            "end": f"({p.end[0]}, {p.end[1]})", "grid": grid_text(p, fmt), "polyshapes": shapes_text(p),
            "example": example_text(shots, fmt), "legend": LEGEND, "rules": RULES,
            "basics": BASICS.format(width=p.width, height=p.height, rows=p.rows, cols=p.cols),
            "answer_format": ANSWER_FORMAT, "role": ROLE}


TEMPLATE_FIELDS = ("width", "height", "start", "end", "grid", "polyshapes", "example", "legend", "rules", "basics",
                   "answer_format", "role")


def check_template(template: str) -> str:
    """Raise ConfigError unless ``template`` uses only plain named fields of TEMPLATE_FIELDS
    (no attribute or index access, no format spec: the template is user text, formatted, never evaluated)."""
    from ..base import check_prompt_template

    return check_prompt_template(template, TEMPLATE_FIELDS, what="template", specs=False)


def build_prompt(p: SparcPuzzle, fmt: str = "array", shots: int = 1, template: str | None = None,
                 with_grid: bool = True) -> str:
    """The answer-mode prompt. ``template`` is a ``str.format`` text over :func:`prompt_fields`;
    ``with_grid=False`` leaves the grid out (vision variant, where the image shows it)."""
    f = prompt_fields(p, fmt, shots)
    if template is not None:
        return template.format_map(f)
    data = puzzle_data_text(p, fmt) if with_grid else "\n".join(
        [f"Start: ({p.start[0]}, {p.start[1]})", f"End: ({p.end[0]}, {p.end[1]})"]
        + (["Polyomino shapes:", f["polyshapes"]] if f["polyshapes"] else []))
    parts = [ROLE, f["basics"], LEGEND, RULES]
    if f["example"]:
        parts.append(f["example"])
    parts += ["## Puzzle\n" + data, ANSWER_FORMAT]
    return "\n\n".join(parts)


# A point as the answer writes it: a bracketed group of at most 64 characters without brackets
# inside (the bound keeps the scan linear: "((((" costs at most 64 steps per bracket).
_GROUP = re.compile(r"\(([^()]{0,64})\)")
# a group that is meant as a point: only digits, signs, dots, commas and spaces, at least one digit
_NUMERIC = re.compile(r"[\d\s.,+\-]*\d[\d\s.,+\-]*")
_PAIR = re.compile(r"\s*([+-]?\d{1,9})\s*,\s*([+-]?\d{1,9})\s*")
# what may stand between two points: spaces, commas, semicolons, list brackets, arrows, bars
_SEPARATOR = re.compile(r"[\s,;\[\]{}|=>\-\u2013\u2014\u2192\u21d2\u27f6]*")


class BadPoint(str):
    """An entry of a parsed path that is not a point: a bracketed group that is not two integers
    (``(2.5, 1)``, ``(1, 2, 7)``), or text between two points that is not a separator. The
    verifier refuses a path holding one before the end (docs/specs/sparc.md §7): nothing is skipped."""


def extract_path(text: str) -> list:
    """The path after the last ``####`` (the whole text when there is none), in order
    (docs/specs/sparc.md §7): every bracketed group of digits, signs, dots and commas is a point;
    spaces, commas, semicolons, list brackets, arrows and newlines may stand between points. A
    group that is not two integers, or other text between two points, is kept in the list as a
    :class:`BadPoint` (never skipped), so that the verifier names it. Raises ParseError when there
    is no point. The cut after the first ``E`` needs the puzzle: see :func:`cut_at_end`."""
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    text = tail(text)
    pos = text.rfind("####")
    region = text if pos < 0 else text[pos + 4:]
    if pos > 0:
        prev = text.rfind("####", max(0, pos - 2000), pos)
        line_start = text.rfind("\n", 0, pos) + 1
        if prev >= line_start and _GROUP.search(text, prev + 4, pos) is not None and \
                _GROUP.findall(text, prev + 4, pos) != _GROUP.findall(region.split("\n", 1)[0]):
            # "#### path or #### other path": two different answers on one line
            raise ParseError("the answer line holds two different '####' paths: a hedge, not one answer",
                             reason="hedge")
    out: list = []
    last = None  # end of the previous point-like group
    for m in _GROUP.finditer(region):
        body = m.group(1)
        if not _NUMERIC.fullmatch(body):
            continue  # prose in brackets, judged as text between points
        if last is not None and not _SEPARATOR.fullmatch(region, last, m.start()):
            gap = " ".join(region[last:m.start()].split())
            out.append(BadPoint(gap if len(gap) <= 40 else gap[:37] + "..."))
        pair = _PAIR.fullmatch(body)
        out.append((int(pair.group(1)), int(pair.group(2))) if pair else BadPoint(m.group(0)))
        last = m.end()
        if len(out) >= MAX_COORDS:
            break
    if not out:
        raise ParseError("no (x, y) coordinates after the last '####'" if pos >= 0
                         else "no '####' answer and no (x, y) coordinates", reason="no_answer")
    return out


def as_point(item) -> tuple[int, int] | None:
    """``item`` as an ``(x, y)`` pair of integers, or None: a :class:`BadPoint` or any other string,
    anything but two numbers, a bool, or a number that is not integral (``2.0`` is 2, ``2.5`` is None)."""
    if isinstance(item, str):
        return None
    try:
        if len(item) != 2:
            return None
    except TypeError:
        return None
    out = []
    for v in item:
        if isinstance(v, bool):
            return None
        try:
            iv = int(v)
            if iv != v:
                return None
        except (TypeError, ValueError, OverflowError):
            return None
        out.append(iv)
    return (out[0], out[1])


def continues(item) -> bool:
    """Whether an entry after ``E`` carries the line on: a point or a bracketed group, not prose
    (text after the path ends it; docs/specs/sparc.md §7)."""
    return not isinstance(item, BadPoint) or item.startswith("(")


def cut_at_end(path: list, end: tuple) -> list:
    """The path up to and including the first position equal to ``end`` (docs/specs/sparc.md §7)."""
    end = tuple(end)
    for i, pos in enumerate(path):
        if not isinstance(pos, str) and as_point(pos) == end:
            return list(path[:i + 1])
    return list(path)


# ---- interactive mode --------------------------------------------------------------------------
DIRECTIONS = ("right", "up", "left", "down")
DIRECTION_STEPS = ((1, 0), (0, -1), (-1, 0), (0, 1))
# After "final": an optional run of spaces and asterisks, a colon, then spaces and asterisks and
# the move. Each piece is a single character class with a bounded repeat count and the move
# starts with a letter, digit or "(", so no two pieces can match the same text: the regex
# cannot backtrack ("Final:" + 20,000 spaces took 39 s with nested \s* pieces).
_FINAL = re.compile(r"final[ *]{0,8}:[ \t*]{0,64}(right|up|left|down|[0-3](?![0-9])|\(\s{0,8}\d{1,3}\s{0,8},\s{0,8}\d{1,3}\s{0,8}\))",
                    re.IGNORECASE)
_WORD = re.compile(r"\b(right|up|left|down|[0-3])\b", re.IGNORECASE)


def parse_direction(text: str):
    """One move: ``Final: <right|up|left|down|0-3|(x, y)>``, else the last direction word or
    digit. Returns 0-3, or an ``(x, y)`` pair naming the next node. Linear in the text; raises
    only ParseError."""
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    text = tail(text, 100_000)
    m = last_match(_FINAL, text) or last_match(_WORD, text)
    if m is None:
        raise ParseError("no move: expected 'Final: right|up|left|down', a digit 0-3 or the next (x, y)",
                         reason="no_move")
    tok = m.group(1).lower()
    if tok.startswith("("):
        x, y = (int(v) for v in tok.strip("()").split(","))
        return (x, y)
    return int(tok) if tok.isdigit() else DIRECTIONS.index(tok)


def interactive_rules(p: SparcPuzzle) -> str:
    shapes = shapes_text(p)
    return "\n\n".join([
        ROLE, BASICS.format(width=p.width, height=p.height, rows=p.rows, cols=p.cols), LEGEND, RULES,
        ("## Playing\nYou draw the line one step per turn, starting on S. Each turn shows the grid with "
        "the positions already on the line marked V and the current position marked L. Reply with "
        "your reasoning and end with `Final: <move>`, where the move is right (+x), up (-y), left "
        "(-x) or down (+y), its number 0-3, or the next position as (x, y). Leaving the grid, entering a rule cell or a gap, or "
        "revisiting a position ends the game. Reaching E ends it and the rules are checked."),
        "Polyomino shapes:\n" + shapes if shapes else ""]).rstrip()


def state_text(p: SparcPuzzle, path: list, step: int, legal: list[int], fmt: str = "array") -> str:
    """One turn of interactive mode: step, position, legal moves and the marked grid (docs/specs/sparc.md §7)."""
    marks = {tuple(pos): "V" for pos in path[:-1]}
    marks[tuple(path[-1])] = "L"
    moves = ", ".join(f"{k}={DIRECTIONS[k]} ({'+x' if k == 0 else '-y' if k == 1 else '-x' if k == 2 else '+y'})"
                      for k in legal) or "none"
    return (f"Step {step}. Current position: ({path[-1][0]}, {path[-1][1]}). End: ({p.end[0]}, {p.end[1]}).\n"
            f"Legal moves: {moves}\n" + grid_text(p, fmt, marks))
