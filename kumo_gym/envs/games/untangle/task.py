"""Untangle (Tatham's Untangle): move the points of a planar graph until no two edges cross."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ....core.capabilities import CheapAnswer, NearMiss
from ....core.errors import ConfigError
from ....core.instance import Instance
from ....core.params import param
from ....core.task import scoring_error
from ....core.verdict import Verdict
from ...interactive import DEFAULT_MAX_INVALID
from ...planning.base import GOAL_RULE, GOAL_RULE_TEXT, moves_details
from ..base import DARK, GRID_INK, LIGHT, GameParams, GameTask, IntMoves
from . import codec
from .generate import circle, grid_side, planar_placement, tangle
from .geometry import RULES, crossings, fault_index, first_fault, untangled

UNTANGLE_PARTIAL_CREDIT = (
    "1 when the final placement has no two edges meeting except at a shared end; 0 otherwise. A count of "
    "crossings removed would pay placements that pile points together or line them up (no proper crossing "
    "is left, yet nothing is untangled) and the fewest points to move is not known exactly, so no partial "
    "credit is given; the efficiency measure is the number of moves against the reference solution's "
    "(optimal_length: the points the certified placement moves, a reference, not a proven optimum)")
#: edge, point and label colours of the pictures
EDGE_INK, POINT_INK = (70, 90, 160), (214, 39, 40)


@dataclass(frozen=True)
class UntangleParams(GameParams):
    n: int = param(10, lo=codec.MIN_POINTS, hi=codec.MAX_POINTS, doc="number of points (Tatham's only parameter)")


class UntangleTask(IntMoves, GameTask):
    """Untangle: move the points of a drawn planar graph until no two edges cross.

    ## Description
    ``n`` points, numbered 0..n-1, sit at integer coordinates ``(x, y)`` on a square grid of side
    ``2n`` (``0 <= x, y < 2n``; x to the right, y downwards); straight edges join some pairs of
    them. The graph is planar. At the start the points lie on a circle in number order and some
    edges meet. A move puts one point on another spot of the grid; the edges follow it. The goal
    is a placement in which no two edges meet except at an end they share, checked exactly with
    integer arithmetic in this order: no two points on one spot, no two edges on one line sharing a
    stretch, no edge through a point other than its ends, no two edges crossing. Every such
    placement is right, whatever the certified one.

    ## Answer (``mode="answer"``, default)
    ``moves = [[point, x, y], ...]``: the points moved, in order, each to a new spot. The final
    placement is judged; a move that leaves its point where it is, names no point, or leaves the
    grid is refused (so nothing can be written after a solved placement that it ignores).

    ## Generation
    A random planar graph built as Tatham builds it (points on distinct cells of an
    ``isqrt(3n)``-wide grid, edges added greedily to the lowest-degree point towards its nearest
    point, never touching another edge or point, degree at most 4), renumbered until the circle
    start is tangled; the placement it was drawn on is the certified solution. Imported Tatham IDs
    (which carry no placement) are solved by a straight-line planar grid drawing (networkx).
    """

    partial_credit: ClassVar[str] = UNTANGLE_PARTIAL_CREDIT
    move_fields = "[point, x, y]"
    move_example = "[3, 4, 7]"
    move_arity = 3
    example_game_id = "6:0-1,0-2,0-4,1-2,1-4,1-5,2-3,2-5,3-5"
    thinking_prompt = ("Points are numbered from 0. While you think, write down the coordinates you intend for every "
                       "point and check each pair of edges against them before you answer.")
    stepwise_prompt = "Work step by step: after each move, write every point's coordinates, then the next move."
    rule_codes = """
        no_such_point: the moved point is one of the puzzle's points (0 <= point < n)
        off_grid: the point is moved onto the grid (0 <= x < 2n and 0 <= y < 2n)
        point_not_moved: a move puts its point on a spot other than the one it is on
        points_coincide: no two points are on the same spot in the final placement
        edges_overlap: no two edges lie on one line sharing a stretch of positive length
        edge_through_point: no edge passes through a point other than its two ends
        edges_cross: no two edges cross (meet at a point inside both)
    """
    tatham_presets: ClassVar[dict[str, str]] = {f"tatham_{n}": str(n) for n in (6, 10, 15, 20, 25)}
    difficulties: ClassVar[dict[str, dict]] = {
        "trivial": {"n": 6}, "easy": {"n": 10}, "normal": {"n": 15}, "hard": {"n": 20},
        **{name: codec.decode_params(p) for name, p in tatham_presets.items()},
    }
    default_difficulty = "easy"

    # ---- instance ----------------------------------------------------------------------------------
    def build(self, params: dict, rng: np.random.Generator) -> dict:
        n = params["n"]
        edges, solution = tangle(n, rng)
        data = {"n": n, "size": grid_side(n), "edges": edges, "start": [list(p) for p in circle(n)],
                "solution": solution}
        data["game_id"] = f"{codec.encode_params(data)}:{codec.encode_desc(data)}"
        return data

    def validate_instance(self, instance: Instance) -> None:
        super().validate_instance(instance)
        d = instance.data
        sol = d.get("solution")
        if sol is not None:
            size = d["size"]
            if (not isinstance(sol, list) or len(sol) != d["n"]
                    or not all(isinstance(p, list) and len(p) == 2 and all(type(v) is int and 0 <= v < size for v in p)
                               for p in sol)):
                raise ConfigError(f"Untangle solution must list {d['n']} points [x, y] on the grid 0..{size - 1}")
            broken = fault_index(sol, d["edges"])
            if broken:
                raise ConfigError(f"the stored Untangle solution is not crossing-free: {RULES[broken - 1]}")
        elif self._target(instance) is None:
            raise ConfigError(f"the Untangle graph {d['game_id'][:60]!r} is not planar: no placement untangles it")
        if fault_index(d["start"], d["edges"]) == 0:
            raise ConfigError(f"the Untangle graph {d['game_id'][:60]!r} is already untangled at the start")

    def load(self, obj: Any) -> Instance:
        """:meth:`GameTask.load`, and ``{"game_id": ..., "auxinfo": ...}`` (a save file's two fields)."""
        if isinstance(obj, dict) and "family" not in obj and "auxinfo" in obj and "game_id" in obj:
            return self.load_with_aux(obj["game_id"], obj["auxinfo"])
        return super().load(obj)

    def load_with_aux(self, game_id: str, auxinfo: str) -> Instance:
        """A Tatham game ID with its save file's AUXINFO: the instance with Tatham's solution as
        its certified placement (moved onto our grid)."""
        inst = self.load(game_id)
        data = dict(inst.data, solution=codec.aux_solution(inst.data["n"], auxinfo))
        out = Instance(self.family, data, params=dict(inst.params))
        self.validate_instance(out)
        return out

    def _target(self, instance: Instance) -> list | None:
        """The certified placement, or the planar grid drawing of an imported graph."""
        d = instance.data
        if d.get("solution") is not None:
            return d["solution"]
        return self.cached(instance, "drawing", lambda: planar_placement(d["n"], d["edges"]))

    # ---- rules ----------------------------------------------------------------------------------------
    def initial_state(self, instance: Instance) -> tuple:
        return tuple(tuple(p) for p in instance.data["start"])

    def goal_state(self, instance: Instance) -> tuple:
        """One goal: the target placement (any crossing-free placement is a goal, :meth:`is_goal`)."""
        return tuple(tuple(p) for p in self._target(instance))

    def fault(self, instance: Instance, state: tuple) -> dict | None:
        """The first fault of ``state`` among the rules switched on (None: untangled)."""
        return first_fault(state, instance.data["edges"], skip=self._disabled_rules)

    def is_goal(self, instance: Instance, state: Any) -> bool:
        if not self._disabled_rules:
            return untangled(state, instance.data["edges"])
        return self.fault(instance, state) is None

    def check_move(self, instance: Instance, state: tuple, move: list) -> str | None:
        p, x, y = move
        d = instance.data
        off = self._disabled_rules
        if "no_such_point" not in off and not 0 <= p < d["n"]:
            return "no_such_point"
        if "off_grid" not in off and not (0 <= x < d["size"] and 0 <= y < d["size"]):
            return "off_grid"
        if "point_not_moved" not in off and tuple(state[p]) == (x, y):
            return "point_not_moved"
        return None

    def apply(self, instance: Instance, state: tuple, move: list) -> tuple:
        p, x, y = move
        out = list(state)
        out[p] = (x, y)
        return tuple(out)

    def simulate(self, instance: Instance, moves: list) -> dict:
        """Play ``moves``; stop at the first illegal one (the placement is judged once, at the end)."""
        state = self.initial_state(instance)
        for i, move in enumerate(moves):
            reason = self.check_move(instance, state, move)
            if reason is not None:
                return {"n_legal_prefix": i, "reason": reason, "state": state, "goal_first_reached_at": None}
            state = self.apply(instance, state, move)
        return {"n_legal_prefix": len(moves), "reason": None, "state": state, "goal_first_reached_at": None}

    def verify_moves(self, instance: Instance, moves: list) -> Verdict:
        """Every move legal, then the final placement's first fault (docs/games.md, Untangle)."""
        try:
            sim = self.simulate(instance, moves)
        except (IndexError, KeyError, TypeError, ValueError) as e:
            return scoring_error(self, "verify", e)  # only with a move rule switched off
        k = sim["n_legal_prefix"]
        ref = self.optimal_steps(instance)
        details: dict = {"n_moves": len(moves), "n_legal_prefix": k, "optimal_length": ref, **moves_details(moves)}
        if sim["reason"] is not None:
            details.update(reason=sim["reason"], rule=sim["reason"], outcome="illegal_move", is_optimal=False)
            return Verdict("illegal_move", f"Move {k + 1} {self.format_move(moves[k])} is illegal: "
                           f"{sim['reason'].replace('_', ' ')}.", 0.0, first_error=k + 1, details=details)
        fault = self.fault(instance, sim["state"])
        if fault is None:
            details.update(outcome="solved", is_optimal=False, excess_moves=None if ref is None else k - ref)
            return Verdict("solved", f"Untangled in {k} moves (reference: {ref}).", 1.0, details=details)
        details.update(reason=fault["rule"], rule=fault["rule"], outcome="wrong", is_optimal=False,
                       fault_points=fault["points"], fault_edges=fault["edges"],
                       crossings=crossings(sim["state"], instance.data["edges"]))
        return Verdict("wrong", f"After {k} legal moves the placement is not untangled: "
                       f"{describe_fault(fault, sim['state'])}.", 0.0, details=details)

    def progress(self, instance: Instance, k: int, state: Any, goal_reached_at: int | None) -> tuple[float, bool]:
        return 0.0, True

    # ---- the reference solution -------------------------------------------------------------------------
    def _moves_to(self, instance: Instance, state: tuple, target) -> list:
        """Moves from ``state`` to ``target`` for the points not yet there, then dropped one by one
        while the placement stays untangled without them, so that every kept move is needed."""
        from .kernel import prune

        s, t = np.asarray(state, np.int64).reshape(-1, 2), np.asarray(target, np.int64).reshape(-1, 2)
        e = np.asarray(instance.data["edges"], np.int64).reshape(-1, 2)
        moved = (s != t).any(axis=1).astype(np.int8)
        sx, sy, tx, ty = (np.ascontiguousarray(a) for a in (s[:, 0], s[:, 1], t[:, 0], t[:, 1]))
        prune(sx, sy, tx, ty, np.ascontiguousarray(e[:, 0]), np.ascontiguousarray(e[:, 1]), len(e), moved,
              np.zeros(len(s), np.int64), np.zeros(len(s), np.int64))
        return [[p, int(t[p, 0]), int(t[p, 1])] for p in np.flatnonzero(moved).tolist()]

    def solve(self, instance: Instance) -> list:
        sol = self.cached(instance, "solution_moves",
                          lambda: self._moves_to(instance, self.initial_state(instance), self.goal(instance)))
        return [list(m) for m in sol]

    def optimal_length(self, instance: Instance) -> int | None:
        return len(self.solve(instance))

    def distance(self, instance: Instance, state: tuple) -> int | None:
        return None

    def distance_exact(self, instance: Instance) -> bool:
        return False

    def path_from(self, instance: Instance, state: tuple) -> list | None:
        if state == self.initial_state(instance):
            return self.solve(instance)
        return self._moves_to(instance, state, self.goal(instance))

    # ---- moves --------------------------------------------------------------------------------------------
    def move_catalog(self, instance: Instance) -> list:
        d = instance.data
        return self.cached(instance, "catalog", lambda: [[p, x, y] for p in range(d["n"])
                                                         for y in range(d["size"]) for x in range(d["size"])])

    def legal_moves(self, instance: Instance, state: tuple) -> list:
        here = {(p, x, y) for p, (x, y) in enumerate(state)}
        return [m for m in self.move_catalog(instance) if (m[0], m[1], m[2]) not in here]

    def candidate_moves(self, instance: Instance, state: Any) -> list:
        """Every move, then moves naming no point and moves off each edge of the grid."""
        d = instance.data
        n, size = d["n"], d["size"]
        return self.move_catalog(instance) + [[-1, 0, 0], [n, 0, 0], [0, -1, 0], [0, 0, -1], [0, size, 0],
                                              [0, 0, size]]

    def encode_state(self, instance: Instance, state: tuple) -> np.ndarray:
        """Every point's x and y divided by the grid's last coordinate."""
        return np.asarray(state, np.float32).reshape(-1) / (instance.data["size"] - 1)

    def catalog_illegal_move(self, instance: Instance) -> list:
        return [instance.data["n"], 0, 0]

    def corrupt_answer(self, instance: Instance, answer: Any, rng: np.random.Generator) -> list:
        """The answer with one more move: a point put on another's spot, or off the grid."""
        answer = [list(m) for m in answer]
        state = self.final_state(instance, answer) or self.initial_state(instance)
        n = instance.data["n"]
        p = int(rng.integers(n))
        if rng.random() < 0.5:
            q = (p + 1 + int(rng.integers(n - 1))) % n
            return answer + [[p, *state[q]]]
        return answer + [[p, instance.data["size"], int(rng.integers(instance.data["size"]))]]

    # ---- reward integrity -------------------------------------------------------------------------------
    def near_misses(self, instance: Instance, rng: np.random.Generator) -> list[NearMiss]:
        """For every rule, answers whose first broken rule it is: the reference answer, then one
        move that breaks the rule (a move rule: then the move that undoes it; a placement rule: the
        placement it leaves). With the rule's check off, the move-rule answers solve the puzzle and
        the placement answers name the next rule in the order or none."""
        gold = self.solve(instance)
        d = instance.data
        n, size = d["n"], d["size"]
        final = [tuple(p) for p in self.final_state(instance, gold)]
        out: list[NearMiss] = []
        p = int(rng.integers(n))
        px, py = final[p]
        out.append(NearMiss("no_such_point", gold + [[-1, *final[n - 1]]]))
        out.append(NearMiss("no_such_point", gold + [[n, 0, 0]]))
        out.append(NearMiss("off_grid", gold + [[p, size, py], [p, px, py]]))
        out.append(NearMiss("off_grid", gold + [[p, px, -1], [p, px, py]]))
        out.append(NearMiss("point_not_moved", gold + [[p, px, py]]))
        if gold:
            out.append(NearMiss("point_not_moved", gold + [list(gold[0])]))
        for rule in RULES:
            for spot in self._breaking_spots(instance, final, rule, rng)[:3]:
                q, x, y = spot
                out.append(NearMiss(rule, gold + [[q, x, y]]))
        return out

    def _breaking_spots(self, instance: Instance, final: list, rule: str, rng: np.random.Generator) -> list:
        """Moves of one point from the untangled ``final`` whose placement's first fault is ``rule``."""
        d = instance.data
        n, size, edges = d["n"], d["size"], d["edges"]
        nbrs: list[list[int]] = [[] for _ in range(n)]
        for a, b in edges:
            nbrs[a].append(b)
            nbrs[b].append(a)
        cands: list[tuple[int, int, int]] = []
        order = rng.permutation(n).tolist()
        if rule == "points_coincide":
            cands = [(p, *final[q]) for p in order for q in order if p != q]
        elif rule == "edges_overlap":
            # p beyond y on the line from x through y, where x is p's neighbour and x-y an edge
            for p in order:
                for x in nbrs[p]:
                    for y in nbrs[x]:
                        if y != p:
                            cands.append((p, 2 * final[y][0] - final[x][0], 2 * final[y][1] - final[x][1]))
        elif rule == "edge_through_point":
            # an end of an edge moved so that the edge passes through another point q
            for p in order:
                for x in nbrs[p]:
                    for q in order:
                        if q not in (p, x):
                            cands.append((p, 2 * final[q][0] - final[x][0], 2 * final[q][1] - final[x][1]))
        else:
            cands = [(int(rng.integers(n)), int(rng.integers(size)), int(rng.integers(size))) for _ in range(300)]
        found = []
        for p, x, y in cands:
            if not (0 <= x < size and 0 <= y < size) or (x, y) == final[p]:
                continue
            trial = list(final)
            trial[p] = (x, y)
            fault = first_fault(trial, edges)
            if fault is not None and fault["rule"] == rule:
                found.append((p, x, y))
                if len(found) >= 3:
                    break
        return found

    def cheap_answers(self, instance: Instance, rng: np.random.Generator) -> list[CheapAnswer]:
        """Empty; one move repeated; every point piled on one spot; every point on one line (a row,
        a column, a diagonal); a point moved and moved back, repeated; random moves; and, in
        interactive play, stepping on after the episode ended. ``chance`` is 1 only where the
        strategy happens to untangle this instance."""
        d = instance.data
        n, size = d["n"], d["size"]
        s0 = self.initial_state(instance)
        out = [CheapAnswer("empty", completion="", moves=("",) * DEFAULT_MAX_INVALID)]
        first = [0, 0, 0] if s0[0] != (0, 0) else [0, 1, 1]
        out.append(self._cheap(instance, "constant", [first] * 4))
        for name, spot in (("pile_corner", lambda i: (0, 0)), ("pile_centre", lambda i: (size // 2, size // 2)),
                           ("row", lambda i: (i, 0)), ("column", lambda i: (0, i)), ("diagonal", lambda i: (i, i)),
                           ("middle_row", lambda i: (i * (size - 1) // max(1, n - 1), size // 2))):
            moves = [[i, *spot(i)] for i in range(n) if tuple(spot(i)) != s0[i]]
            out.append(self._cheap(instance, name, moves))
        back = [[0, *((0, 0) if s0[0] != (0, 0) else (1, 1))], [0, *s0[0]]]
        out.append(self._cheap(instance, "back_and_forth", back * max(2, n // 2)))
        walk, state = [], list(s0)
        for _ in range(2 * max(1, self.optimal_steps(instance) or n)):
            p, x, y = int(rng.integers(n)), int(rng.integers(size)), int(rng.integers(size))
            if state[p] != (x, y):
                walk.append([p, x, y])
                state[p] = (x, y)
        out.append(self._cheap(instance, "random_walk", walk))
        gold = self.solve(instance)
        if gold:
            after = ("",) * DEFAULT_MAX_INVALID + tuple(self.format_move(m) for m in gold)
            out.append(CheapAnswer("steps_after_the_end", moves=after, chance=0.0))
        return out

    # ---- text -------------------------------------------------------------------------------------------
    def rules(self, instance: Instance) -> str:
        size = instance.data["size"]
        return (f"You are playing Untangle. The puzzle is a graph: points numbered from 0, each at whole-number "
                f"coordinates (x, y) on a square grid with 0 <= x <= {size - 1} and 0 <= y <= {size - 1} (x grows to "
                "the right, y grows downwards), and edges, each a straight line segment joining two points. A move "
                "takes one point to another spot of the grid, written [point, x, y]; the edges attached to it "
                "follow it, and the spot must differ from the point's current one. The goal is a placement in "
                "which no two edges meet anywhere except at a point they both end at: no two points on one spot, "
                "no two edges along one line sharing a piece, no edge running through a point that is not one of "
                "its two ends, and no two edges crossing. Any such placement wins; only the final placement counts.")

    def example(self) -> tuple[str, list]:
        return (("4 points on a grid with 0 <= x, y <= 7: point 0 at (4, 0), 1 at (7, 4), 2 at (4, 7), 3 at (0, 4); "
                 "edges 0-1, 0-2, 1-3. Edges 0-2 and 1-3 cross at (4, 4). Moving point 2 to (6, 1) leaves edge 0-2 "
                 "short and clear of 1-3, and nothing else meets."), [[2, 6, 1]])

    def other_examples(self) -> list[tuple[str, list]]:
        return [(("4 points on a grid with 0 <= x, y <= 7: point 0 at (0, 0), 1 at (6, 6), 2 at (6, 0), 3 at (0, 6); "
                  "edges 0-1, 2-3, 0-2. Edges 0-1 and 2-3 cross at (3, 3). Moving point 1 to (3, 1) and then "
                  "point 3 to (1, 5) clears every crossing."), [[1, 3, 1], [3, 1, 5]])]

    def render_state(self, instance: Instance, state: tuple) -> str:
        pts = "; ".join(f"{i} ({x}, {y})" for i, (x, y) in enumerate(state))
        return f"Points: {pts}\nPairs of edges that meet: {crossings(state, instance.data['edges'])}"

    def describe(self, instance: Instance) -> str:
        d = instance.data
        edges = ", ".join(f"{a}-{b}" for a, b in d["edges"])
        return (f"This puzzle has {d['n']} points on a grid with 0 <= x, y <= {d['size'] - 1} and "
                f"{len(d['edges'])} edges.\nEdges: {edges}\n"
                f"Start:\n{self.render_state(instance, self.initial_state(instance))}\n"
                "Move points until no two edges meet except at a shared end.")

    def observation(self, instance: Instance, state: Any, feedback: str = "", step: int = 0) -> str:
        head = f"{feedback}\n\n" if feedback else ""
        fault = self.fault(instance, state) if isinstance(state, tuple) else None
        why = f"\nFirst problem: {describe_fault(fault, state)}." if fault is not None else ""
        return f"{head}Moves made: {step}\n{self.render_state(instance, state)}{why}"

    def template_fields(self, instance: Instance) -> dict:
        out = super().template_fields(instance)
        out["goal_state"] = "any placement in which no two edges meet except at a shared end"
        return out

    def picture(self, instance: Instance, state: tuple) -> tuple[np.ndarray, dict]:
        from ... import raster

        d = instance.data
        size = d["size"]
        cell = max(8, 360 // size)
        pad = 16
        side = (size - 1) * cell + 2 * pad
        img = np.full((side, side, 3), LIGHT, np.uint8)
        img[pad:side - pad + 1:cell, pad:side - pad] = (235, 235, 235)
        img[pad:side - pad, pad:side - pad + 1:cell] = (235, 235, 235)
        raster.frame(img, (pad - 1, pad - 1, side - pad + 2, side - pad + 2), 1, GRID_INK)

        def at(p):
            return pad + p[0] * cell, pad + p[1] * cell

        for a, b in d["edges"]:
            (x0, y0), (x1, y1) = at(state[a]), at(state[b])
            steps = max(abs(x1 - x0), abs(y1 - y0), 1) + 1
            xs = np.clip(np.rint(np.linspace(x0, x1, steps)).astype(int), 0, side - 1)
            ys = np.clip(np.rint(np.linspace(y0, y1, steps)).astype(int), 0, side - 1)
            img[ys, xs] = EDGE_INK
            img[np.clip(ys + 1, 0, side - 1), xs] = EDGE_INK
        places = {}
        r = max(3, cell // 3)
        for i, p in enumerate(state):
            cx, cy = at(p)
            raster.disc(img, cx, cy, r, POINT_INK)
            raster.draw_text(img, str(i), cy - r - 6, cx, 1, DARK)
            places[("point", str(i))] = (max(0, cx - r - 2), max(0, cy - r - 2), min(side, cx + r + 3),
                                         min(side, cy + r + 3))
        return img, places

    def move_places(self, instance: Instance, move: Any) -> list:
        if isinstance(move, (list, tuple)) and len(move) == 3 and type(move[0]) is int:
            return [("point", str(move[0]))]
        return []


# the final placement is judged by its own rules (points_coincide ... edges_cross), so the planning
# base's generic goal rule is never the one named: it is left out of the codes and the manual
UntangleTask.rule_codes = {c: t for c, t in UntangleTask.rule_codes.items() if c != GOAL_RULE}
UntangleTask.__doc__ = (UntangleTask.__doc__ or "").replace(f"    | ``{GOAL_RULE}`` | {GOAL_RULE_TEXT} |\n", "")


def describe_fault(fault: dict, state) -> str:
    """One phrase naming a fault and what it involves."""
    rule = fault["rule"]
    if rule == "points_coincide":
        p, q = fault["points"]
        return f"points {p} and {q} are both at {tuple(state[p])} (points_coincide)"
    if rule == "edge_through_point":
        (a, b), p = fault["edges"][0], fault["points"][0]
        return f"edge {a}-{b} passes through point {p} at {tuple(state[p])} (edge_through_point)"
    (a, b), (c, e) = fault["edges"]
    if rule == "edges_overlap":
        return f"edges {a}-{b} and {c}-{e} lie along one line and overlap (edges_overlap)"
    return f"edges {a}-{b} and {c}-{e} cross (edges_cross)"


