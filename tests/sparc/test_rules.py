"""Rules and verdicts (docs/specs/sparc.md §5, §6), checked against every stored official solution."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kumo_gym.core import Instance
from kumo_gym.envs.sparc.puzzle import SQUARE, STAR, SparcPuzzle, is_cell
from kumo_gym.envs.sparc.rules import check_path, regions
from kumo_gym.envs.sparc.search import enumerate_solutions
from kumo_gym.envs.sparc.task import SparcTask

from .conftest import stored_paths

TASK = SparcTask()


def test_every_stored_solution_is_accepted(ref_records):
    n = 0
    for r in ref_records:
        p = SparcPuzzle.from_record(r)
        for path in stored_paths(r):
            check = check_path(p, path)
            assert check.solved, (r["id"], check.flags, check.violations)
            n += 1
    assert n == 332


def _all_simple_paths(p: SparcPuzzle):
    """Every simple S -> E path over line positions (no rules at all), by plain DFS."""
    out, path, seen = [], [p.start], {p.start}

    def dfs(pos):
        if pos == p.end:
            out.append(list(path))
            return
        x, y = pos
        for nxt in ((x + 1, y), (x, y - 1), (x - 1, y), (x, y + 1)):
            if p.in_bounds(*nxt) and not is_cell(*nxt) and nxt not in seen:
                seen.add(nxt)
                path.append(nxt)
                dfs(nxt)
                path.pop()
                seen.discard(nxt)

    dfs(p.start)
    return out


def test_rules_alone_select_exactly_the_stored_solutions(ref_records):
    """On the small reference puzzles, filtering every simple path by our rules gives the stored
    solution list: the rules are right independently of the solver."""
    checked = 0
    for r in ref_records:
        p = SparcPuzzle.from_record(r)
        if p.width * p.height > 8:
            continue
        accepted = {tuple(path) for path in _all_simple_paths(p) if check_path(p, path).solved}
        assert accepted == {tuple(s) for s in stored_paths(r)}, r["id"]
        checked += 1
    assert checked >= 10


def _strict_star_ok(p: SparcPuzzle, path) -> bool:
    """The paper prompt's alternative reading: a star pairs with stars or squares only."""
    for region in regions(p, set(path)):
        syms = [p.symbols[c] for c in region if c in p.symbols]
        for kind, colour, _ in syms:
            if kind == STAR and sum(1 for k, c, _ in syms if c == colour and k in (STAR, SQUARE)) != 2:
                return False
    return True


def test_strict_star_variant_fails_as_the_spec_says(ref_records):
    failing = sum(all(not _strict_star_ok(SparcPuzzle.from_record(r), s) for s in stored_paths(r))
                  for r in ref_records)
    assert failing == 16


def test_decoding_shape_ids_as_bitmasks_fails_as_the_spec_says(ref_records):
    failing = []
    for r in ref_records:
        p = SparcPuzzle.from_record(r)
        if not p.shapes:
            continue
        decoded = {}
        for sid in p.shapes:
            bits = [(b // 4, b % 4) for b in range(32) if int(sid) >> b & 1]
            mx, my = min(x for x, _ in bits), min(y for _, y in bits)
            decoded[sid] = tuple(sorted(((x - mx, y - my) for x, y in bits), key=lambda c: (c[1], c[0])))
        p.shapes = decoded
        if all(not check_path(p, s).solved for s in stored_paths(r)):
            failing.append(r["id"])
            assert "69904" in r["polyshapes"]
    assert len(failing) == 2


# ---- mutations of stored solutions ---------------------------------------------------------
def _inst(r):
    return TASK.load(r)


def test_mutations_give_the_expected_diagnostic(ref_records):
    rng = np.random.default_rng(0)
    for r in ref_records[:25]:
        inst = _inst(r)
        path = stored_paths(r)[0]
        # drop an interior step -> disconnected
        i = int(rng.integers(1, len(path) - 1))
        v = TASK.verify(inst, path[:i] + path[i + 1:])
        assert v.status == "illegal_move" and v.details["path_errors"]["disconnected"] and v.first_error == i
        # revisit: step back onto the previous position -> intersecting
        v = TASK.verify(inst, path[:i + 1] + [path[i - 1]] + path[i + 1:])
        assert v.status == "illegal_move" and v.details["path_errors"]["intersecting"]
        # wrong start
        v = TASK.verify(inst, path[1:])
        assert v.status == "illegal_move" and v.details["path_errors"]["incorrect_start_end"] and v.first_error == 0
        # stop before the end -> incomplete
        v = TASK.verify(inst, path[:-1])
        assert v.status == "incomplete" and v.score < 1
        # step onto a rule cell next to an edge midpoint of the path
        for j in range(1, len(path) - 1):
            x, y = path[j]
            cells = [(x + dx, y + dy) for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))
                     if 0 <= x + dx < 2 * inst.data["grid_size"]["width"] + 1
                     and 0 <= y + dy < 2 * inst.data["grid_size"]["height"] + 1 and is_cell(x + dx, y + dy)]
            if cells:
                v = TASK.verify(inst, path[:j + 1] + [cells[0], path[j]] + path[j + 1:])
                assert v.details["path_errors"]["rule_cell_crossing"]
                break
        # the line ends at E: positions written right after it are not dropped (the official
        # scoring drops them), prose after the path is not judged
        v = TASK.score(inst, TASK.format_answer(path) + ", (0, 0), (0, 1)")
        assert v.status == "illegal_move" and v.details["reason"] == "move_after_end"
        assert TASK.score(inst, TASK.format_answer(path) + "\nThat is the whole line, ending at E.").solved


def _small(grid, shapes=None):
    p = SparcPuzzle.from_grid(grid, shapes or {})
    rec = p.make_record()
    return p, Instance(family="sparc", data=rec, params={"source": "generated"})


# 2 x 2 puzzle, S bottom-left, E top-right; the "around" path goes up the left and along the top,
# leaving all four cells in one region; the "middle" path splits the grid into left and right.
AROUND = [(0, 4), (0, 3), (0, 2), (0, 1), (0, 0), (1, 0), (2, 0), (3, 0), (4, 0)]
MIDDLE = [(0, 4), (1, 4), (2, 4), (2, 3), (2, 2), (2, 1), (2, 0), (3, 0), (4, 0)]


def _grid(**cells):
    g = [["+"] * 5 for _ in range(5)]
    for y in (1, 3):
        for x in (1, 3):
            g[y][x] = "N"
    g[4][0], g[0][4] = "S", "E"
    for key, tok in cells.items():
        x, y = int(key[1]), int(key[2])
        g[y][x] = tok
    return g


@pytest.mark.parametrize("cells,shapes,path,rule", [
    ({"c11": "o-R", "c33": "o-B"}, None, AROUND, "square"),
    ({"c11": "*-R", "c33": "*-R"}, None, MIDDLE, "star"),
    ({"c11": "*-R", "c13": "o-R", "c33": "o-R"}, None, AROUND, "star"),  # three red symbols in one region
    ({"c11": "B-Y"}, None, MIDDLE, "triangle"),
    ({"c24": "."}, None, AROUND, "dot"),
    ({"c21": "P-R-1"}, {"1": [[1, 0, 0, 0]] + [[0] * 4] * 3}, AROUND, "poly"),
])
def test_rule_violations_are_reported(cells, shapes, path, rule):
    grid = _grid(**cells)
    if "c21" in cells:  # the poly cell key names a cell, fix up: put the poly on cell (1, 1)
        grid[1][2] = "+"
        grid[1][1] = cells["c21"]
    _p, inst = _small(grid, shapes)
    v = TASK.verify(inst, path)
    assert v.status == "wrong" and v.details["rule_violations"][rule], v.details
    assert v.rules == [rule] and 0 <= v.score < 1  # partial credit follows solutions, not cheap lines
    assert not any(v.details["path_errors"].values())
    with TASK.rules_disabled(rule):  # the check is load-bearing: without it the line passes
        assert TASK.verify(inst, path).solved


def test_gap_on_the_path_is_a_rule_violation_and_interactive_illegal():
    _p, inst = _small(_grid(c03="G"))
    v = TASK.verify(inst, AROUND)
    assert v.status == "wrong" and v.details["rule_violations"]["gap"] == [[0, 3]]
    assert TASK.check_move(inst, TASK.initial_state(inst), 1) == "gap"


def test_poly_and_ylop_region_rule():
    shapes = {"1": [[1, 0, 0, 0]] + [[0] * 4] * 3, "3": [[1, 0, 0, 0], [1, 0, 0, 0]] + [[0] * 4] * 2,
              "5": [[1, 1, 0, 0]] + [[0] * 4] * 3}
    # MIDDLE leaves the left column (cells (1,1), (1,3)) as one region of two cells
    _, inst = _small(_grid(c11="P-R-3"), shapes)
    assert TASK.verify(inst, MIDDLE).solved  # vertical domino tiles the column
    _, inst = _small(_grid(c11="P-R-5"), shapes)
    assert TASK.verify(inst, MIDDLE).details["rule_violations"]["poly"]  # horizontal one does not (no rotation)
    _, inst = _small(_grid(c11="P-R-5", c13="P-G-1", c33="N"), shapes)
    assert TASK.verify(inst, MIDDLE).details["rule_violations"]["poly"]  # area 3 != 2
    _, inst = _small(_grid(c11="P-R-3", c13="Y-B-1"), shapes)
    assert TASK.verify(inst, MIDDLE).details["rule_violations"]["poly"]  # 2 - 1 = 1 != 2 cells
    # a ylop absorbs an overlap: 2x2 square + monomino - monomino tiles the 4-cell region
    shapes["9"] = [[1, 1, 0, 0], [1, 1, 0, 0]] + [[0] * 4] * 2
    _, inst = _small(_grid(c11="P-R-9", c13="P-G-1", c33="Y-B-1"), shapes)
    assert TASK.verify(inst, AROUND).solved
    _, inst = _small(_grid(c11="P-R-9", c13="P-G-1"), shapes)
    assert TASK.verify(inst, AROUND).details["rule_violations"]["poly"]
    _, inst = _small(_grid(c11="Y-B-1"), shapes)
    assert TASK.verify(inst, MIDDLE).details["rule_violations"]["poly"]  # only a ylop: never valid
    # net 0: a monomino and a monomino ylop cancel anywhere; the region's shape is free
    _, inst = _small(_grid(c11="P-R-1", c13="Y-B-1"), shapes)
    assert TASK.verify(inst, MIDDLE).solved


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.integers(-3, 20), st.integers(-3, 20)), max_size=40))
def test_arbitrary_paths_never_raise(path):
    _p, inst = _small(_grid(c11="o-R", c33="*-R", c13="B-Y"))
    v = TASK.verify(inst, path)
    assert v.status in ("solved", "wrong", "illegal_move", "incomplete", "parse_error")
    assert 0 <= v.score <= 1


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.text(alphabet="()#, 0123456789\n[]-><ES", max_size=400))
def test_answer_shaped_text_never_raises(text):
    _p, inst = _small(_grid(c11="o-R"))
    assert TASK.score(inst, text).status in ("solved", "wrong", "illegal_move", "incomplete", "parse_error")


def test_rules_of_names_only_the_rules_a_line_can_break():
    """The line rules always; a symbol's rule where the symbol is shown; the square rule only
    with squares of two colours (one colour can never disagree)."""
    line_rules = ["start_end", "connected", "no_revisit", "no_rule_cell", "in_bounds"]
    _, bare = _small(_grid())
    assert TASK.rules_of(bare) == line_rules
    _, one_colour = _small(_grid(c11="o-R", c33="o-R", c24="."))
    assert TASK.rules_of(one_colour) == line_rules + ["dot"]
    _, two = _small(_grid(c11="o-R", c33="o-B", c13="*-R", c03="G"))
    assert set(TASK.rules_of(two)) == set(line_rules) | {"gap", "square", "star"}
    _, tri = _small(_grid(c11="B-Y"))
    assert TASK.rules_of(tri) == line_rules + ["triangle"]


def test_a_rule_no_line_breaks_alone_gets_its_near_miss_on_a_variant():
    """Two squares that a dot keeps apart (every line through the dot separates them, and only
    such lines do): no line breaks the square rule or the dot alone on this puzzle, so their
    near misses come on variants keeping only that rule's symbols, where the verdict names that
    rule alone."""
    grid = [["S", "+", "+", "+", "+"], ["+", "o-R", ".", "o-B", "+"], ["+", "+", "+", "+", "+"],
            ["+", "N", "+", "N", "+"], ["+", "+", "+", "+", "E"]]
    p = SparcPuzzle.from_grid(grid, {})
    inst = TASK.load(p.make_record(enumerate_solutions(p, cap=None).solutions))
    assert set(TASK.rules_of(inst)) >= {"square", "dot"}
    misses = {}
    for nm in TASK.near_misses(inst, np.random.default_rng(0)):
        misses.setdefault(nm.rule, nm)
    for rule in ("square", "dot"):
        nm = misses[rule]
        assert nm.instance is not None
        v = TASK.verify(nm.instance, nm.answer)
        assert v.rules == [rule] and not v.solved
        assert not TASK.verify(inst, nm.answer).solved
