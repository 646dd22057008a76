"""Claims about grid puzzles and their verification labels (docs/specs/grid_puzzles.md §7;
docs/specs/reasoning_graphs.md §2, §6).

Public API (used by ``kumo_gym.analysis``):

* ``label_claim(instance, claim, solution=None, profile="default") -> "correct" | "incorrect" | "unverifiable"``
* ``claim_types(family) -> list[str]`` -- the claim kinds a puzzle knows.
* ``solution_claims(instance) -> list[dict]`` -- C*, the minimal statement of the solution.
* ``claim_class(family, kind) -> "solution" | "clue" | "state"`` -- static (solution/clue) or not.

A claim is a dict ``{"type": KIND, ...payload}`` (``"kind"`` is accepted for ``"type"``, and the
payload may also sit under ``"payload"``). Coordinates are 0-based ``(r, c)``, row from the top
(docs/specs/grid_puzzles.md §1). Solution claims are checked against the unique solution (``instance.data["solution"]``,
or ``solution=``), clue claims against the instance, state-dependent claims are
``unverifiable`` (with ``profile="consistency"`` some of them can be found ``incorrect``,
docs/specs/reasoning_graphs.md §2). A claim about a cell outside the grid is ``incorrect``; a claim whose
kind the puzzle does not know, or whose payload lacks a field, raises ``ClaimError``.

Every puzzle knows ``cell {row, col, value, negated}``: the solution holds ``value`` at (row, col)
(or not). Its own kinds, their payloads and their labels are the puzzle's hook: a
:class:`ClaimRules` in ``<puzzle>/claims.py``, declared on its task as ``claim_rules`` (the
schema of each puzzle is that module's docstring). This module holds what every puzzle shares:
the dispatch, the payload readers, the generic ``cell`` claim and ``Cand`` consistency check, and
the edges of a line through cell centres (Tracks and Pearl).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ...core.errors import ConfigError
from ...core.instance import Instance
from .answer import normalize_cell

CORRECT, INCORRECT, UNVERIFIABLE = "correct", "incorrect", "unverifiable"
PROFILES = ("default", "consistency")


class ClaimError(ConfigError):
    """A claim that does not follow the schema (unknown kind, missing or malformed field)."""


#: ``(instance, kind, payload, solution, H, W) -> label`` of a solution or state claim
Labeller = Callable[[Instance, str, dict, list, int, int], str]


@dataclass(frozen=True)
class ClaimRules:
    """A puzzle's claims (docs/specs/grid_puzzles.md §7), the hook its task declares as ``claim_rules``.

    ``kinds``: each claim kind and its class (``solution``, ``clue`` or ``state``; ``cell`` is
    implied). ``solution(instance, kind, payload, solution, H, W)`` labels a solution claim (the
    generic ``cell`` claim too when ``cells`` is true, for puzzles whose answer values need
    reading, as Net's orientations); ``clue(instance, kind, payload, H, W)`` a clue claim;
    ``consistency(instance, kind, payload, solution, H, W)`` the optional sound checks of state
    claims under ``profile="consistency"`` (``Cand`` is checked for every puzzle);
    ``minimal(instance, solution)`` is C*.
    """

    kinds: Mapping[str, str]
    solution: Labeller
    minimal: Callable[[Instance, list], list[dict]]
    clue: Callable[[Instance, str, dict, int, int], str] | None = None
    consistency: Labeller | None = None
    cells: bool = False


def rules_of(family: str) -> ClaimRules | None:
    """The claim hook of a grid puzzle (None for a puzzle without claims of its own)."""
    return getattr(_task(family), "claim_rules", None)


def claim_types(family: str) -> list[str]:
    """The claim kinds of ``family`` (always including the generic ``cell``)."""
    rules = rules_of(family)
    return ["cell"] + list(rules.kinds if rules is not None else ())


def claim_class(family: str, kind: str) -> str:
    if kind == "cell":
        return "solution"
    rules = rules_of(family)
    try:
        return rules.kinds[kind] if rules is not None else {}[kind]
    except KeyError:
        raise ClaimError(f"claim kind {kind!r} is not one of: {', '.join(claim_types(family))}") from None


def _task(family: str):
    from .tatham import grid_task

    return grid_task(family)


def solved(instance: Instance) -> list[list]:
    """The instance's unique solution (stored, or found)."""
    return instance.data.get("solution") or _task(instance.family).solve(instance)


def _payload(claim: dict) -> tuple[str, dict]:
    if not isinstance(claim, dict):
        raise ClaimError(f"a claim must be a dict, got {type(claim).__name__}")
    kind = claim.get("type", claim.get("kind"))
    if not isinstance(kind, str):
        raise ClaimError("a claim needs a 'type' (or 'kind') string")
    payload = claim.get("payload") if isinstance(claim.get("payload"), dict) else claim
    return kind, payload


# ---- payload readers (for the puzzles' claim modules) -------------------------------------------
def int_field(p: dict, key: str) -> int:
    v = p.get(key)
    if isinstance(v, bool) or not isinstance(v, int):
        raise ClaimError(f"claim field {key!r} must be an integer, got {v!r}")
    return v


def ints_field(p: dict, key: str) -> list[int]:
    v = p.get(key)
    if isinstance(v, int) and not isinstance(v, bool):
        return [v]
    if not isinstance(v, (list, tuple)) or not all(isinstance(x, int) and not isinstance(x, bool) for x in v):
        raise ClaimError(f"claim field {key!r} must be a list of integers, got {v!r}")
    return list(v)


def choice_field(p: dict, key: str, choices: tuple[str, ...]) -> str:
    v = str(p.get(key, "")).upper()
    if v not in choices:
        raise ClaimError(f"claim field {key} {p.get(key)!r} is not one of: {', '.join(choices)}")
    return v


def inside(H: int, W: int, r: int, c: int) -> bool:
    return 0 <= r < H and 0 <= c < W


def verdict(ok: bool) -> str:
    return CORRECT if ok else INCORRECT


def printed_number(key: str) -> Callable[[Instance, str, dict, int, int], str]:
    """The clue labeller of ``{r, c, <key>}``: the state grid prints the positive number ``p[key]``
    in the cell (r, c)."""
    def label(instance: Instance, kind: str, p: dict, H: int, W: int) -> str:
        r, c = int_field(p, "r"), int_field(p, "c")
        n = int_field(p, key)
        return verdict(inside(H, W, r, c) and instance.data["state"]["grid"][r][c] == n and n > 0)
    return label


def pair_field(p: dict) -> tuple[tuple[int, int], tuple[int, int]]:
    """The two ``[row, column]`` pairs of a ``cells`` field (a domino, a slot)."""
    cells = p.get("cells")
    if not (isinstance(cells, (list, tuple)) and len(cells) == 2):
        raise ClaimError(f"claim field 'cells' must be two [row, column] pairs, got {str(cells)[:60]}")
    a, b = (tuple(ints_field({"x": x}, "x")) for x in cells)
    if len(a) != 2 or len(b) != 2:
        raise ClaimError(f"claim field 'cells' must be two [row, column] pairs, got {str(cells)[:60]}")
    return a, b


def cell_field(p: dict, key: str) -> tuple[int, int]:
    v = p.get(key)
    if not (isinstance(v, (list, tuple)) and len(v) == 2 and all(isinstance(x, int) and not isinstance(x, bool) for x in v)):
        raise ClaimError(f"claim field {key!r} must be a [row, column] pair of integers, got {v!r}")
    return int(v[0]), int(v[1])


def cells_field(p: dict, key: str, one: bool = False) -> list[tuple[int, int]]:
    """A list of [r, c] pairs (``one``: a single [r, c]) from a claim field."""
    v = p.get(key)
    items = [v] if one else v
    ok = isinstance(items, (list, tuple)) and all(
        isinstance(x, (list, tuple)) and len(x) == 2 and all(isinstance(i, int) and not isinstance(i, bool) for i in x)
        for x in items)
    if not ok or not items:
        raise ClaimError(f"claim field {key!r} must be {'a cell [r, c]' if one else 'a list of cells [r, c]'}, got {v!r}")
    return [(int(x[0]), int(x[1])) for x in items]


def zipped_cells(p: dict, rk: str = "cell_r", ck: str = "cell_c") -> list[tuple[int, int]]:
    rs, cs = ints_field(p, rk), ints_field(p, ck)
    if len(rs) != len(cs):
        raise ClaimError(f"{rk} and {ck} must have the same length")
    return list(zip(rs, cs))


#: what :func:`solution_at` gives for a cell outside the grid
OUTSIDE = object()


def solution_at(p: dict, sol: list[list], H: int, W: int) -> Any:
    """The solution's value at the claim's ``(r, c)``, or :data:`OUTSIDE`."""
    r, c = int_field(p, "r"), int_field(p, "c")
    return sol[r][c] if inside(H, W, r, c) else OUTSIDE


def cell_claims(kind: str, sol: list[list], value: Callable[[Any], Any] = lambda v: v,
                keep: Callable[[Any], bool] = lambda v: True, key: str = "v") -> list[dict]:
    """``{"type": kind, "r": r, "c": c, key: value(v)}`` for every solution cell ``keep`` accepts (C*)."""
    return [{"type": kind, "r": r, "c": c, key: value(v)} for r, row in enumerate(sol) for c, v in enumerate(row)
            if keep(v)]


# ---- labellers several puzzles share ------------------------------------------------------------
def label_number(instance: Instance, kind: str, p: dict, sol: list[list], H: int, W: int) -> str:
    """``Cell`` / ``NotCell {r, c, v}``: the solution holds the number ``v`` at (r, c), or not."""
    v = solution_at(p, sol, H, W)
    return INCORRECT if v is OUTSIDE else verdict((v == int_field(p, "v")) == (kind == "Cell"))


def number_claims(instance: Instance, sol: list[list]) -> list[dict]:
    """C* of a puzzle whose answer is a number in every cell: a ``Cell`` claim per cell."""
    return cell_claims("Cell", sol)


def two_colours(black: Any, white: Any) -> Labeller:
    """``Black`` / ``White {r, c}`` of an answer that writes ``black`` and ``white``."""
    def label(instance: Instance, kind: str, p: dict, sol: list[list], H: int, W: int) -> str:
        v = solution_at(p, sol, H, W)
        return INCORRECT if v is OUTSIDE else verdict(v == (black if kind == "Black" else white))
    return label


def marked(symbol: Any, kind: str) -> Labeller:
    """``kind`` / its opposite ``{r, c}`` of an answer that writes ``symbol`` in the cells of ``kind``
    (``marked("A", "Tent")``: ``Tent`` holds where the answer has a tent, ``NotTent`` elsewhere)."""
    def label(instance: Instance, claim: str, p: dict, sol: list[list], H: int, W: int) -> str:
        v = solution_at(p, sol, H, W)
        return INCORRECT if v is OUTSIDE else verdict((v == symbol) == (claim == kind))
    return label


def minus_black(instance: Instance, kind: str, p: dict, sol: list[list], H: int, W: int) -> str:
    """``Black`` / ``White {r, c}`` of an answer that writes -1 for black and anything else for white."""
    v = solution_at(p, sol, H, W)
    return INCORRECT if v is OUTSIDE else verdict((v == -1) == (kind == "Black"))


def black_claims(black: Any) -> Callable[[Instance, list], list[dict]]:
    """C* of a black-and-white answer: a ``Black`` claim per cell holding ``black``."""
    return lambda instance, sol: [{"type": "Black", "r": r, "c": c} for r, row in enumerate(sol)
                                  for c, v in enumerate(row) if v == black]


# ---- lines through cell centres (Tracks, Pearl) ---------------------------------------------------
def line_edges(sol: list[list]) -> set[tuple[tuple[int, int], tuple[int, int]]]:
    """The edges (cell pairs, sorted) of a Tracks answer (direction strings; the border ends join
    an off-grid cell) or a Pearl answer (loop numbers: k joins k + 1, and L joins 1)."""
    steps = {"U": (-1, 0), "R": (0, 1), "D": (1, 0), "L": (0, -1)}
    out = set()
    if any(isinstance(v, str) for row in sol for v in row):
        for r, row in enumerate(sol):
            for c, v in enumerate(row):
                for d in str(v):
                    if d in steps:
                        out.add(tuple(sorted(((r, c), (r + steps[d][0], c + steps[d][1])))))
        return out
    where = {v: (r, c) for r, row in enumerate(sol) for c, v in enumerate(row) if isinstance(v, int) and v > 0}
    n = len(where)
    for k, a in where.items():
        b = where.get(k % n + 1)
        if b is not None and abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1:
            out.add(tuple(sorted((a, b))))
    return out


def label_line(instance: Instance, kind: str, p: dict, sol: list[list], H: int, W: int) -> str:
    """``Edge``, ``OnPath`` and ``OffPath`` claims of a line through cell centres."""
    edges = line_edges(sol)
    if kind == "Edge":
        a, b = cell_field(p, "a"), cell_field(p, "b")
        on = p.get("on", True)
        if not isinstance(on, bool):
            raise ClaimError(f"claim field 'on' must be true or false, got {on!r}")
        if abs(a[0] - b[0]) + abs(a[1] - b[1]) != 1 or not (inside(H, W, *a) or inside(H, W, *b)):
            return INCORRECT
        return verdict((tuple(sorted((a, b))) in edges) == on)
    v = solution_at(p, sol, H, W)
    if v is OUTSIDE:
        return INCORRECT
    return verdict((v not in ("", -1)) == (kind == "OnPath"))


def line_claims(instance: Instance, sol: list[list]) -> list[dict]:
    """C* of a line: every edge of it, with on=true."""
    return [{"type": "Edge", "a": list(a), "b": list(b), "on": True} for a, b in sorted(line_edges(sol))]


# ---- the dispatch ---------------------------------------------------------------------------------
def label_claim(instance: Instance | dict | str, claim: dict, solution: list[list] | None = None,
                profile: str = "default") -> str:
    """Label one claim ``correct``, ``incorrect`` or ``unverifiable`` (docs/specs/reasoning_graphs.md §2 rules 2-5)."""
    if profile not in PROFILES:
        raise ClaimError(f"profile {profile!r} is not one of: {', '.join(PROFILES)}")
    if not isinstance(instance, Instance):
        raise ClaimError("label_claim needs an Instance (load IDs with the puzzle's task.load first)")
    family = instance.family
    kind, p = _payload(claim)
    cls = claim_class(family, kind)
    rules = rules_of(family)
    H, W = int(instance.data["H"]), int(instance.data["W"])
    if cls == "solution":
        sol = solution or instance.data.get("solution") or _task(family).solve(instance)
        if kind == "cell" and (rules is None or not rules.cells):
            return _label_cell(p, sol, H, W)
        return rules.solution(instance, kind, p, sol, H, W)
    if cls == "clue":
        if rules.clue is None:
            raise ClaimError(f"no clue claims are defined for {family!r}")
        return rules.clue(instance, kind, p, H, W)
    if kind == "Contradiction" or profile == "default":
        return UNVERIFIABLE
    sol = solution or instance.data.get("solution") or _task(family).solve(instance)
    if kind == "Cand":
        return _label_candidates(p, sol, H, W)
    if rules.consistency is not None:
        return rules.consistency(instance, kind, p, sol, H, W)
    return UNVERIFIABLE


def _label_cell(p: dict, sol: list[list], H: int, W: int) -> str:
    r, c = int_field(p, "row"), int_field(p, "col")
    if not inside(H, W, r, c):
        return INCORRECT
    same = sol[r][c] == normalize_cell(p.get("value"))
    return verdict(same != bool(p.get("negated", False)))


def _label_candidates(p: dict, sol: list[list], H: int, W: int) -> str:
    """``Cand {r, c, d[], polarity}`` under the consistency profile (docs/specs/reasoning_graphs.md §2)."""
    r, c = int_field(p, "r"), int_field(p, "c")
    if not inside(H, W, r, c):
        return INCORRECT
    vals = ints_field(p, "d" if "d" in p else "vals")
    polarity = choice_field(p, "polarity", ("IN", "OUT"))
    hit = sol[r][c] in vals
    return INCORRECT if (polarity == "OUT" and hit) or (polarity == "IN" and not hit) else UNVERIFIABLE


def solution_claims(instance: Instance, solution: list[list] | None = None) -> list[dict]:
    """C*: the minimal statement of the solution (docs/specs/grid_puzzles.md §7 table, column C*)."""
    family = instance.family
    sol = solution or instance.data.get("solution") or _task(family).solve(instance)
    rules = rules_of(family)
    if rules is not None:
        return rules.minimal(instance, sol)
    return [{"type": "cell", "row": r, "col": c, "value": v, "negated": False}
            for r, row in enumerate(sol) for c, v in enumerate(row)]


def describe(claim: dict) -> str:
    """A short label for plots (``T(1,0)``, ``¬T(1,3)``, ``Q(R1)=2``) -- ASCII except the negation."""
    kind, p = _payload(claim)
    rc = f"({p.get('r', p.get('row'))},{p.get('c', p.get('col'))})"
    short: dict[str, Any] = {"Tent": f"T{rc}", "NotTent": f"\u00acT{rc}", "Tree": f"Tree{rc}",
                             "Assign": f"{rc}={p.get('d')}", "Cell": f"{rc}={p.get('v')}",
                             "NotCell": f"{rc}\u2260{p.get('v')}"}
    if kind == "Quota":
        return f"Q({str(p.get('axis', '?'))[:1]}{p.get('index')})={p.get('tents')}"
    if kind == "cell":
        return f"{'not ' if p.get('negated') else ''}{rc}={p.get('value')}"
    if kind == "Edge":
        return f"{'' if p.get('on', True) else chr(0xac)}E({p.get('a')}-{p.get('b')})".replace(" ", "")
    return short.get(kind, kind + rc)
