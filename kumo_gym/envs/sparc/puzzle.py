"""The SPaRC puzzle model: token grid, parity classes, polyshapes, official record format.

Spec ``docs/specs/sparc.md`` §1 (grid and coordinates), §2 (tokens), §3 (polyshapes) and
§4 (record format). A :class:`SparcPuzzle` is the parsed, validated form of one record; it keeps
the record itself verbatim so that writing it back gives byte-identical JSON.
"""
from __future__ import annotations

import hashlib
import json
import re
import warnings
from dataclasses import dataclass, field

from .difficulty import difficulty_score
from .search import (
    COLOURS,
    NONE,
    POLY,
    SQUARE,
    STAR,
    TRIANGLE,
    TRIANGLE_LETTERS,
    YLOP,
    is_cell,
    shape_cells,
    symbol_of_token,
)

COLOUR_NAMES = ("red", "blue", "green", "yellow", "white", "orange", "purple", "black")
NAME_OF_COLOUR = dict(zip(COLOURS, COLOUR_NAMES))
KIND_NAMES = {SQUARE: "square", STAR: "star", TRIANGLE: "triangle", POLY: "poly", YLOP: "ylop"}

TOKEN_RE = re.compile(r"S|E|\+|N|\.|G|o-[RBGYWOPK]|\*-[RBGYWOPK]|[ABCD]-[RBGYWOPK]|[PY]-[RBGYWOPK]-\d+")
LINE_TOKENS = ("S", "E", "+", ".", "G")
MIN_SIDE, MAX_SIDE = 2, 6
__all__ = ["COLOURS", "NONE", "POLY", "SQUARE", "STAR", "TRIANGLE", "TRIANGLE_LETTERS", "YLOP", "SparcPuzzle",
           "is_cell", "is_edge", "is_vertex", "shape_array", "shape_cells", "shape_id"]


def is_vertex(x: int, y: int) -> bool:
    return (x & 1) == 0 and (y & 1) == 0


def is_edge(x: int, y: int) -> bool:
    """Exactly one coordinate odd: an edge midpoint (docs/specs/sparc.md §1)."""
    return ((x ^ y) & 1) == 1


def shape_id(cells) -> int:
    """The id our generator writes for a shape: bit ``4x + y`` per cell (x, y < 4), docs/specs/sparc.md §3."""
    return sum(1 << (4 * x + y) for x, y in cells)


def shape_array(cells) -> list[list[int]]:
    """The 4x4 ``arr[y][x]`` array of normalised shape cells (agrees with :func:`shape_id`)."""
    arr = [[0] * 4 for _ in range(4)]
    for x, y in cells:
        arr[y][x] = 1
    return arr


@dataclass
class SparcPuzzle:
    """One parsed SPaRC puzzle (docs/specs/sparc.md §1–§4).

    ``grid`` is ``puzzle_array`` (rows of tokens, ``grid[y][x]``); ``shapes`` maps each polyshape
    id (a string, as in the record) to its normalised cell tuple; ``record`` is the verbatim record
    when the puzzle came from one.
    """

    width: int
    height: int
    grid: list
    shapes: dict
    start: tuple
    end: tuple
    record: dict | None = None
    dots: list = field(default_factory=list)
    gaps: list = field(default_factory=list)
    symbols: dict = field(default_factory=dict)  # (x, y) -> (kind, colour letter, count or shape id)

    # ---- construction -------------------------------------------------------------------------
    @classmethod
    def from_grid(cls, grid, polyshapes: dict | str | None = None, record: dict | None = None) -> SparcPuzzle:
        """Parse and validate a token grid; raise ValueError naming the bad token and position."""
        if not isinstance(grid, (list, tuple)) or not grid or not all(isinstance(r, (list, tuple)) for r in grid):
            raise ValueError("puzzle_array must be a non-empty list of rows")
        rows, cols = len(grid), len(grid[0])
        if any(len(r) != cols for r in grid):
            raise ValueError("puzzle_array rows differ in length")
        if rows % 2 == 0 or cols % 2 == 0:
            raise ValueError(f"puzzle_array is {rows} x {cols}; it must be (2h+1) x (2w+1)")
        w, h = (cols - 1) // 2, (rows - 1) // 2
        if not (MIN_SIDE <= w <= MAX_SIDE and MIN_SIDE <= h <= MAX_SIDE):
            raise ValueError(f"grid of {w} x {h} cells is outside {MIN_SIDE}..{MAX_SIDE} per side")
        if isinstance(polyshapes, str):
            try:
                polyshapes = json.loads(polyshapes)
            except json.JSONDecodeError as e:
                raise ValueError(f"polyshapes is not valid JSON: {e}") from None
        polyshapes = polyshapes or {}
        if not isinstance(polyshapes, dict):
            raise ValueError("polyshapes must be a JSON object {id: 4x4 array}")  # noqa: TRY004 (spec: ValueError)
        shapes = {}
        for sid, arr in polyshapes.items():
            if (not isinstance(arr, list) or len(arr) != 4
                    or any(not isinstance(r, list) or len(r) != 4 or any(v not in (0, 1) for v in r) for r in arr)):
                raise ValueError(f"polyshape {sid!r} is not a 4x4 array of 0/1")
            cells = shape_cells(arr)
            if not cells:
                raise ValueError(f"polyshape {sid!r} has no cells")
            shapes[str(sid)] = cells
        start = end = None
        dots, gaps, symbols = [], [], {}
        for y, row in enumerate(grid):
            for x, tok in enumerate(row):
                if not isinstance(tok, str) or not TOKEN_RE.fullmatch(tok):
                    raise ValueError(f"token {tok!r} at (x={x}, y={y}) is not a SPaRC token")
                cell = is_cell(x, y)
                if cell != (tok not in LINE_TOKENS):
                    where = "rule cell" if cell else "line position"
                    raise ValueError(f"token {tok!r} at (x={x}, y={y}) cannot stand on a {where}")
                if tok == "S":
                    if start is not None:
                        raise ValueError(f"second start 'S' at (x={x}, y={y})")
                    start = (x, y)
                elif tok == "E":
                    if end is not None:
                        raise ValueError(f"second end 'E' at (x={x}, y={y})")
                    end = (x, y)
                elif tok == ".":
                    dots.append((x, y))
                elif tok == "G":
                    if not is_edge(x, y):
                        raise ValueError(f"gap 'G' at (x={x}, y={y}) is not on an edge midpoint")
                    gaps.append((x, y))
                elif cell and tok != "N":
                    sym = symbol_of_token(tok)
                    if sym[0] in (POLY, YLOP) and sym[2] not in shapes:
                        raise ValueError(f"token {tok!r} at (x={x}, y={y}) uses polyshape {sym[2]} "
                                         f"missing from polyshapes ({', '.join(shapes) or 'none'})")
                    symbols[(x, y)] = sym
        if start is None or end is None:
            raise ValueError(f"puzzle_array needs exactly one 'S' and one 'E' (start={start}, end={end})")
        return cls(w, h, [list(r) for r in grid], shapes, start, end, record, dots, gaps, symbols)

    @classmethod
    def from_record(cls, record: dict) -> SparcPuzzle:
        """Parse an official record (docs/specs/sparc.md §4), keeping it verbatim for :meth:`to_record`."""
        if not isinstance(record, dict) or "puzzle_array" not in record:
            raise ValueError("a SPaRC record needs the field 'puzzle_array'")
        p = cls.from_grid(record["puzzle_array"], record.get("polyshapes") or "{}", record)
        gs = record.get("grid_size")
        if isinstance(gs, dict) and (gs.get("width"), gs.get("height")) != (p.width, p.height):
            raise ValueError(f"grid_size {gs} does not match the {p.width} x {p.height} puzzle_array")
        yaml_text = record.get("text_visualization")
        if isinstance(yaml_text, str) and yaml_text:
            problems = p.yaml_mismatches(yaml_text)
            if problems:
                warnings.warn(f"record {record.get('id')}: YAML disagrees with puzzle_array: {problems[:3]}",
                              stacklevel=2)
        return p

    def to_record(self) -> dict:
        """The record this puzzle was loaded from (unchanged), or a fresh one (docs/specs/sparc.md §4)."""
        if self.record is not None:
            return self.record
        return self.make_record()

    def make_record(self, solutions=None, puzzle_id: str | None = None, difficulty: tuple | None = None) -> dict:
        """A record in the official format for a puzzle we built (docs/specs/sparc.md §4, §9)."""
        if difficulty is None:
            difficulty = difficulty_score(self.symbols.values(), self.width * self.height)
        score, level = difficulty
        used = sorted({s[2] for s in self.symbols.values() if s[0] in (POLY, YLOP)}, key=int)
        shapes = {sid: shape_array(self.shapes[sid]) for sid in used}
        rec = {
            "id": puzzle_id or self.fingerprint(),
            "difficulty_level": int(level),
            "difficulty_score": float(score),
            "grid_size": {"height": self.height, "width": self.width},
            "polyshapes": json.dumps(shapes, separators=(",", ":")),
            "puzzle_array": [list(r) for r in self.grid],
        }
        if solutions is not None:
            rec["solution_count"] = len(solutions)
            rec["solutions"] = [{"index": i, "path": [{"x": x, "y": y} for x, y in path], "pathLength": len(path)}
                                for i, path in enumerate(solutions)]
        rec["text_visualization"] = self.yaml()
        return rec

    def fingerprint(self) -> str:
        """16 hex digits identifying the puzzle by its content (docs/specs/sparc.md §9 dedup, docs/specs/sparc.md §13
        contamination): the token grid with each polyshape id replaced by the shape's cells, so two records of one
        puzzle match whatever their ids, tags or shape labels."""
        def canonical(tok: str) -> str:
            if tok[0] in "PY" and len(tok) > 4:
                return tok[:4] + ";".join(f"{x},{y}" for x, y in self.shapes[tok[4:]])
            return tok

        key = json.dumps([[canonical(t) for t in row] for row in self.grid], separators=(",", ":"))
        return hashlib.sha256(key.encode()).hexdigest()[:16]

    # ---- YAML (text_visualization) ------------------------------------------------------------
    def yaml_items(self) -> list[tuple[tuple[int, int], dict]]:
        """The YAML ``cells`` entries as ((x, y), properties), sorted by x then y as the data are."""
        items = []
        for pos in self.dots:
            items.append((pos, {"dot": 1}))
        for pos in self.gaps:
            items.append((pos, {"gap": 1}))
        for pos, (kind, colour, extra) in self.symbols.items():
            props = {"type": KIND_NAMES[kind]}
            if kind == TRIANGLE:
                props["count"] = extra
            elif kind in (POLY, YLOP):
                props["polyshape"] = int(extra)
            props["color"] = NAME_OF_COLOUR[colour]
            items.append((pos, props))
        items.sort(key=lambda it: it[0])
        return items

    def yaml(self) -> str:
        """``text_visualization`` in the layout of the official records."""
        lines = ["puzzle:", "  dimensions:", f"    width: {self.width}", f"    height: {self.height}",
                 "  start:", f"    x: {self.start[0]}", f"    y: {self.start[1]}",
                 "  end:", f"    x: {self.end[0]}", f"    y: {self.end[1]}", "  cells:"]
        for (x, y), props in self.yaml_items():
            lines += ["    - position:", f"        x: {x}", f"        y: {y}", "      properties:"]
            for k, v in props.items():
                lines.append(f'        {k}: "{v}"' if isinstance(v, str) else f"        {k}: {v}")
        return "\n".join(lines) + "\n"

    def yaml_mismatches(self, text: str) -> list[str]:
        """Differences between a record's YAML and its array (docs/specs/sparc.md §4 cross-check)."""
        got = _parse_yaml_cells(text)
        want = {pos: props for pos, props in self.yaml_items()}
        problems = []
        for pos in sorted(set(got) | set(want)):
            if got.get(pos) != want.get(pos):
                problems.append(f"{pos}: yaml {got.get(pos)} vs array {want.get(pos)}")
        return problems

    # ---- convenience --------------------------------------------------------------------------
    @property
    def cols(self) -> int:
        return 2 * self.width + 1

    @property
    def rows(self) -> int:
        return 2 * self.height + 1

    def in_bounds(self, x: int, y: int) -> bool:
        return 0 <= x < self.cols and 0 <= y < self.rows

    def is_border(self, x: int, y: int) -> bool:
        return x in (0, self.cols - 1) or y in (0, self.rows - 1)

    def cells(self) -> list[tuple[int, int]]:
        return [(x, y) for y in range(1, self.rows, 2) for x in range(1, self.cols, 2)]

    def rule_types(self) -> set[str]:
        """Names of the rule types present: dot, gap, square, star, triangle, poly, ylop."""
        out = {KIND_NAMES[s[0]] for s in self.symbols.values()}
        if self.dots:
            out.add("dot")
        if self.gaps:
            out.add("gap")
        return out


def _parse_yaml_cells(text: str) -> dict:
    """The ``cells`` entries of a record's YAML as {(x, y): properties}.

    Reads only the fixed layout of the official ``text_visualization`` (no YAML library needed,
    nothing evaluated).
    """
    out: dict = {}
    pos: list = []
    props: dict | None = None
    in_cells = False
    for raw in text.splitlines():
        line = raw.strip()
        if line == "cells:":
            in_cells = True
            continue
        if not in_cells or not line:
            continue
        if line.startswith("- position:"):
            pos, props = [], None
        elif line == "properties:":
            props = {}
            out[tuple(pos)] = props
        elif ":" in line:
            k, v = (s.strip() for s in line.split(":", 1))
            v = v.strip('"')
            val = int(v) if v.lstrip("-").isdigit() else v
            if props is None:
                if k in ("x", "y"):
                    pos.append(val)
            else:
                props[k] = val
    return out
