"""Reward integrity for grid puzzles, the same for every puzzle.

Mixed into :class:`~.base.GridTask`, so a puzzle gets all of this by declaring its rules
(``rule_checks``), its SAT encoding (with constraints tagged by rule code) and its presets:

* **Partial credit** (:meth:`RewardIntegrity.progress`): with ``f`` the fraction of non-given
  cells that hold the certified-unique solution's value, minus one cell for every given the
  answer changes, and ``b`` the best fraction a blind grid reaches on the same cells (one symbol
  everywhere, a checkerboard of two symbols, a cyclic Latin square) or, if larger, what a random
  fill gets right by luck plus two standard deviations (:meth:`RewardIntegrity.luck_floor`), the
  partial score is ``max(0, (f - b) / (1 - b))``. Blind and random answers therefore earn
  nothing, and every cell solved beyond that floor earns credit.
* **Cheap answers** (:meth:`RewardIntegrity.cheap_answers`): the empty grid, the givens alone,
  every constant grid (with and without the givens), checkerboards, cyclic Latin squares, a
  random grid, each as a completion and as interactive moves ending in a submit.
* **Near misses** (:meth:`RewardIntegrity.near_misses`): from the puzzle's own encoding. For rule
  R, one instance of R (the first, the last, the middle and random ones: a tagged constraint or a
  clue) is negated while every other constraint stays (:func:`~kumo_gym.solvers.engine.break_rule`);
  the model is an answer that breaks exactly that instance. It is kept only when the Python
  verifier reports exactly R, so an encoding and a verifier that disagree show up as a rule with
  no near miss. Rules the encoding does not state (the answer copying given symbols) fall back
  to single and double cell changes of the solution, again kept only when exactly R breaks.
* **Instance validation** (:meth:`RewardIntegrity.validate_instance`): sizes within the caps of
  the puzzle's ``Params``, the state written as a Tatham description and read back unchanged,
  the stored game ID matching it, the stored solution of the right shape and valid.
"""
from __future__ import annotations

import json
from itertools import chain, repeat

import numpy as np

from ...core.capabilities import CheapAnswer, NearMiss
from ...core.errors import ConfigError
from ...core.instance import Instance, canonical_json
from ...solvers.engine import breaches, break_rule, random_phases
from .answer import SymbolGrid, format_grid
from .play import CellMoves
from .tatham import NotExportable, codec

#: rule instances tried per rule when looking for a near miss that breaks that rule alone
NEAR_MISS_TRIES = 40


def _value_index(vals: tuple) -> dict:
    """``{value: its index in vals}``, kept for the last few value lists (every grid read into
    value indices needs one)."""
    index = _VALUE_INDEX.get(vals)
    if index is None:
        if len(_VALUE_INDEX) >= 64:
            _VALUE_INDEX.clear()
        index = _VALUE_INDEX[vals] = {v: i for i, v in enumerate(vals)}
    return index


_VALUE_INDEX: dict[tuple, dict] = {}


def _movable_table(vals: tuple, moves: tuple) -> np.ndarray:
    """Whether a move may write each value of ``vals``, by value index, with a last entry (index
    -1: a value outside ``vals``) that never is: a lookup table, as np.isin costs far more on
    these small arrays. Read-only, kept for the last few value lists."""
    key = (vals, moves)
    table = _MOVABLE.get(key)
    if table is None:
        if len(_MOVABLE) >= 64:
            _MOVABLE.clear()
        allowed = set(moves)
        table = _MOVABLE[key] = np.asarray([v in allowed for v in vals] + [False], bool)
        table.flags.writeable = False
    return table


_MOVABLE: dict[tuple, np.ndarray] = {}


def _movable_grids(targets: np.ndarray, vals: tuple, moves: tuple) -> np.ndarray:
    """Per cell of each target grid, whether a move may write its value (:func:`_movable_table`).
    For a read-only targets array (the blind grids, asked for at every drawn puzzle) the result
    is kept, keyed by the array itself, and read-only; else a fresh array."""
    if targets.flags.writeable:
        return _movable_table(vals, moves)[np.where(targets >= 0, targets, len(vals))]
    key = (id(targets), vals, moves)
    held = _MOVABLE_GRIDS.get(key)
    if held is None or held[0] is not targets:
        if len(_MOVABLE_GRIDS) >= 64:
            _MOVABLE_GRIDS.clear()
        out = _movable_table(vals, moves)[np.where(targets >= 0, targets, len(vals))]
        out.flags.writeable = False
        held = _MOVABLE_GRIDS[key] = (targets, out)  # the array held, so its id is not reused meanwhile
    return held[1]


_MOVABLE_GRIDS: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}


class RewardIntegrity:
    """Partial credit, cheap answers, near misses and instance validation (module docstring)."""

    #: add the cyclic Latin squares to the blind grids (Latin-square puzzles set this)
    blind_latin: bool = False

    # ---- partial credit -----------------------------------------------------------------------
    def _blind(self, H: int, W: int, n: int) -> tuple[list[str], np.ndarray]:
        """Names and value indices ``(K, H, W)`` of the blind grids over ``n`` symbols."""
        key = (H, W, n, self.blind_latin)
        cache = type(self).__dict__.get("_blind_cache")
        if cache is None:
            cache = {}
            type(self)._blind_cache = cache
        if key not in cache:
            r, c = np.mgrid[0:H, 0:W]
            names = []
            for i in range(n):
                names.append(f"constant #{i}")
                names += [f"checkerboard #{i}/#{j}" for j in range(n) if j != i]
            # the same grids in the same order, built at once (puzzles with many symbols, such as
            # Galaxies' dot labels, have thousands of them): constant i, then i/j for every j != i
            first = np.repeat(np.arange(n), n)
            second = np.asarray([j for i in range(n) for j in [i, *range(i), *range(i + 1, n)]], np.int64)
            grids = np.where(((r + c) % 2 == 0)[None], first[:, None, None], second[:, None, None]).astype(np.int16)
            if self.blind_latin:
                for k in range(n):
                    names += [f"cyclic Latin square +{k}", f"cyclic Latin square -{k}"]
                extra = [g for k in range(n) for g in ((r + c + k) % n, (r - c + k) % n)]
                grids = np.concatenate([grids, np.asarray(extra, np.int16).reshape(-1, H, W)])
            grids.flags.writeable = False  # shared by every instance of the size (and keyed by identity below)
            cache[key] = (names, grids)
        return cache[key]

    def blind_grids(self, instance: Instance) -> dict[str, list[list]]:
        """Answers written without looking at the clues: one symbol everywhere, the checkerboards
        of every pair of symbols (Latin puzzles add cyclic squares)."""
        H, W = self.dims(instance)
        vals = list(self.cell_values(instance))
        names, codes = self._blind(H, W, len(vals))
        out = {}
        for name, g in zip(names, codes):
            for i, v in enumerate(vals):
                name = name.replace(f"#{i}", str(v))
            out[name] = [[vals[k] for k in row] for row in g.tolist()]
        return out

    def _solution_codes(self, instance: Instance) -> np.ndarray:
        """``_coded`` of the instance's solution (solved when not stored), kept per instance:
        generation asks for it twice per drawn puzzle. Read-only."""
        cached = getattr(self, "_codes_cache", None)
        if cached is not None and cached[0] is instance:
            return cached[1]
        sol = self._coded(instance, instance.data.get("solution") or self.solve(instance))
        sol.flags.writeable = False
        self._codes_cache = (instance, sol)
        return sol

    def _coded(self, instance: Instance, grid: list[list], vals: tuple | None = None) -> np.ndarray:
        """Value indices of ``grid`` (``cell_values`` order, or ``vals`` when the caller has them;
        -1 for anything else, booleans included)."""
        get = _value_index(tuple(self.cell_values(instance)) if vals is None else vals).get
        if len(grid) and len(set(map(len, grid))) == 1:  # rows of one length: one C-level pass over the cells
            flat = list(chain.from_iterable(grid))
            if bool not in set(map(type, flat)):
                return np.fromiter(map(get, flat, repeat(-1)), np.int16, len(flat)).reshape(len(grid), -1)
        return np.asarray([[-1 if type(v) is bool else get(v, -1) for v in row] for row in grid], np.int16)

    @staticmethod
    def _given_mask(shape: tuple[int, int], fixed) -> np.ndarray:
        mask = np.zeros(shape, bool)
        if fixed:
            rows, cols = zip(*fixed)
            mask[list(rows), list(cols)] = True
        return mask

    def _blind_scores(self, instance: Instance) -> tuple[np.ndarray, np.ndarray, int]:
        """(solution codes, given mask, non-given count) and each blind grid's right cells."""
        sol = self._solution_codes(instance)
        H, W = sol.shape
        mask = self._given_mask((H, W), self.givens(instance))
        _, blind = self._blind(H, W, len(self.cell_values(instance)))
        right = ((blind == sol) & ~mask).sum(axis=(1, 2))
        return sol, mask, right

    def progress(self, instance: Instance, grid: list[list]) -> float:
        """The partial score of ``grid`` (module docstring; the formula of ``partial_credit``)."""
        sol, mask, _ = self._blind_scores(instance)
        n = int((~mask).sum())
        if n == 0:
            return 0.0
        g = self._coded(instance, grid)
        f = (int(((g == sol) & ~mask).sum()) - int(((g != sol) & mask).sum())) / n
        b = self.luck_floor(instance)
        return 0.0 if b >= 1.0 else max(0.0, (f - b) / (1.0 - b))

    def luck_floor(self, instance: Instance) -> float:
        """``b`` of the partial credit: the larger of the best blind grid's fraction of right
        non-given cells and what a uniformly random fill gets right by luck plus two standard
        deviations (``p + 2 sqrt(p (1 - p) / n)``, ``p`` one over the number of values a free cell
        can take), so
        that neither a blind nor a random grid earns partial credit, on small grids too."""
        _, mask, blind_right = self._blind_scores(instance)
        n = int((~mask).sum())
        if n == 0:
            return 1.0
        # the values a free cell can take (Tents: no tree where none grows; moves place no tree)
        p = 1.0 / max(1, min(len(self.cell_values(instance)), len(self.move_values(instance))))
        return max(float(blind_right.max()) / n, p + 2.0 * (p * (1.0 - p) / n) ** 0.5)

    def blind_solves(self, instance: Instance) -> bool:
        """Whether a blind grid with the givens copied is the solution, or played as interactive
        moves from the starting grid passes through it (the generator redraws such puzzles, so
        blind answers never pay). Generation asks this of every drawn puzzle, so the givens and
        the value list are read once here."""
        sol = self._solution_codes(instance)
        vals = tuple(self.cell_values(instance))
        fixed = self.givens(instance)
        mask = self._given_mask(sol.shape, fixed)
        blind = self._blind(*sol.shape, len(vals))[1]
        # some blind grid right on every non-given cell (and there is one)
        if not mask.all() and bool(((blind == sol) | mask).all(axis=(1, 2)).any()):
            return True
        if self.dims(instance) != sol.shape:
            return bool(self._walks(instance, self._blind(*self.dims(instance), len(vals))[1], vals, fixed).any())
        return bool(self._walks(instance, blind, vals, fixed, mask).any())

    def canonical_codes(self, instance: Instance, codes: np.ndarray) -> np.ndarray:
        """Value indices (``cell_values`` order, shape ``(..., H, W)``) mapped so that values the
        rules read as the same answer at a cell (:meth:`equivalent_values`) get the same code;
        by default every value is its own."""
        return codes

    def _walks_solve(self, instance: Instance, targets: np.ndarray) -> np.ndarray:
        """For each target grid (value indices ``(K, H, W)``), whether writing it into the
        starting grid one cell at a time in row-major order (:meth:`moves_to`, the interactive
        form of a cheap answer) passes through the solution. With B the cells the starting grid
        gets wrong and A those the walk's final grid gets wrong, some state of the walk is solved
        exactly when every cell of B comes before every cell of A."""
        return self._walks(instance, targets, tuple(self.cell_values(instance)), self.givens(instance))

    def _walks(self, instance: Instance, targets: np.ndarray, vals: tuple, fixed, mask=None) -> np.ndarray:
        """:meth:`_walks_solve` with the instance's ``cell_values`` and ``givens`` (and the mask
        of the given cells, shaped as the targets) already read."""
        if not instance.data.get("solution"):
            return np.zeros(len(targets), bool)
        if type(self).initial_grid is CellMoves.initial_grid:  # that grid, read without asking for the givens again
            get = _value_index(vals).get
            start = np.full(self.dims(instance), -1 if type(self.empty) is bool else get(self.empty, -1), np.int16)
            for (r, c), v in fixed.items():
                start[r, c] = -1 if type(v) is bool else get(v, -1)
        else:
            start = self._coded(instance, self.initial_grid(instance), vals)
        movable = _movable_grids(targets, vals, tuple(self.move_values(instance)))
        if mask is not None:
            if fixed:  # (no given cell: nothing to mask)
                movable = movable & ~mask
        elif fixed:
            movable = movable.copy()
            rows, cols = zip(*fixed)
            movable[:, list(rows), list(cols)] = False
        final = np.where(movable, targets, start)
        # canonical_codes maps each cell on its own, so the walks' final grids, the starting grid
        # and the solution go through it in one call
        codes = self.canonical_codes(instance, np.concatenate(
            [final, start[None], self._solution_codes(instance)[None]]))
        codes = codes.reshape(len(codes), -1)
        truth = codes[-1]
        wrong_at_start = np.flatnonzero(codes[-2] != truth)
        if not len(wrong_at_start):
            return np.ones(len(targets), bool)
        # solved on the way exactly when the walk's final grid is right up to the start's last wrong cell
        return ~(codes[:-2, :int(wrong_at_start[-1]) + 1] != truth[:int(wrong_at_start[-1]) + 1]).any(axis=1)

    # ---- cheap strategies ----------------------------------------------------------
    def cheap_answers(self, instance: Instance, rng: np.random.Generator) -> list[CheapAnswer]:
        start = self.initial_grid(instance)
        fixed = self.givens(instance)
        grids = {"empty grid": start}
        for name, g in self.blind_grids(instance).items():
            grids[name] = g
            grids[f"givens + {name}"] = [[fixed.get((r, c), v) for c, v in enumerate(row)] for r, row in enumerate(g)]
        grids["random grid"] = self.random_answer(instance, rng)
        out = []
        for name, g in grids.items():
            placed = self.moves_to(instance, g)
            moves = tuple(self.format_move(m) for m in placed) + ('{"op": "submit"}',)
            state = self.initial_state(instance)  # what the moves leave: given cells cannot change
            for m in placed:
                state = self.apply(instance, state, m)
            reached = self.state_answer(instance, state)
            # chance is 0 except on a degenerate preset where the blind grid is the only puzzle's answer
            # (or its moves pass through the solution from the starting grid)
            solved = self.verify(instance, g).solved or bool(self._walks_solve(instance, self._coded(instance, g)[None])[0])
            chance = 1.0 if solved else 0.0
            chance_moves = 1.0 if self.verify(instance, reached).solved else 0.0
            text = f"My answer:\n{format_grid(g)}"
            if chance == chance_moves:
                out.append(CheapAnswer(name, completion=text, moves=moves, chance=chance))
            else:  # played cell by cell the grid becomes another one (givens cannot be overwritten)
                out += [CheapAnswer(name, completion=text, chance=chance),
                        CheapAnswer(f"{name} (played)", moves=moves, chance=chance_moves)]
        return out

    def random_answer(self, instance: Instance, rng: np.random.Generator) -> list[list]:
        """A random grid of answer symbols with the givens copied (the random agent's answer)."""
        H, W = self.dims(instance)
        vals = list(self.cell_values(instance))
        fixed = self.givens(instance)
        pick = rng.integers(len(vals), size=(H, W))
        return [[fixed.get((r, c), vals[int(pick[r, c])]) for c in range(W)] for r in range(H)]

    # ---- near misses ---------------------------------------------------------------
    def rules_of(self, instance: Instance) -> list[str]:
        """The rule codes that apply to ``instance``: those with at least one check on it (a
        Towers puzzle without givens has no "givens kept" check, an Unruly one without 'unique'
        no "rows distinct" check), so only those can be broken there."""
        checks = self.rule_checks(instance, self.solve(instance))
        return [code for code in self.rule_codes if code in {self.rule_code(ch.rule) for ch in checks}]

    def near_misses(self, instance: Instance, rng: np.random.Generator, per_rule: int = 6) -> list[NearMiss]:
        """Answers that each break exactly one rule (module docstring), up to ``per_rule`` per rule."""
        enc = self.encoding(instance)
        out: list[NearMiss] = []
        for code in self.rules_of(instance):
            short = code.rsplit(".", 1)[-1]
            found: list[list[list]] = []
            cands = breaches(enc, short)
            order = self._breach_order(instance, enc, cands, rng)
            # one instance broken with every other instance of the rule kept, where possible;
            # only then with the rule's other instances free (they may break too)
            for siblings in (False, True):
                for i in order[:NEAR_MISS_TRIES] if cands and len(found) < per_rule else []:
                    value = break_rule(enc, cands[i], siblings=siblings,
                                       phases=random_phases(rng, range(1, enc.formula.n_vars + 1)))
                    if value is None:
                        continue
                    grid = enc.decode(value)
                    if self._breaks_only(instance, grid, code) and grid not in found:
                        found.append(grid)
                        if len(found) >= per_rule:
                            break
                if found:
                    break
            if not found:
                found = self._substitution_misses(instance, code, rng, per_rule)
            out += [NearMiss(code, g) for g in found]
            if not found:
                out += self._entangled_misses(instance, enc, code, cands, rng)
        return out

    def _breach_order(self, instance: Instance, enc, cands: list, rng) -> list[int]:
        """Where to break a rule first: the first, last and middle instance, then one touching
        each edge of the grid (an off-by-one loop drops the first or last window of every line,
        and those touch an edge), then the rest in random order."""
        n = len(cands)
        order = [0, n - 1, n // 2]
        H, W = self.dims(instance)
        where = {int(v): divmod(i, W) for i, v in enumerate(enc.answer.ravel()) if v}
        edges = (lambda r, c: c == W - 1, lambda r, c: r == H - 1, lambda r, c: c == 0, lambda r, c: r == 0)
        shuffled = [int(i) for i in rng.permutation(n)]
        for on_edge in edges:
            for i in shuffled:
                b = cands[i]
                if b.index is None:
                    continue
                cells = [where[abs(lit)] for lit in enc.formula.constraints[b.index].lits if abs(lit) in where]
                if cells and any(on_edge(r, c) for r, c in cells):
                    order.append(i)
                    break
        return list(dict.fromkeys(order + shuffled))

    def _entangled_misses(self, instance: Instance, enc, code: str, cands: list, rng) -> list[NearMiss]:
        """Where no answer breaks ``code`` alone on this instance (Tents: tents that touch while
        every count and pairing still holds rarely exist), the negated instance with everything
        else relaxed, solved near the solution: it breaks ``code`` and some others."""
        sol_values = enc.engine.models(enc.assumptions(), 1)
        if not sol_values or not cands:
            return []
        phases = [v if sol_values[0][v] > 0 else -v for v in range(1, enc.formula.n_vars + 1)]
        tries = [(i, False) for i in dict.fromkeys([0, len(cands) - 1, int(rng.integers(len(cands)))])]
        # last resort for a rule enforced by cuts: drop every other constraint as well
        tries += [(i, True) for i, b in enumerate(cands) if b.index is None and b.clue is None]
        for i, bare in tries:
            value = break_rule(enc, cands[i], alone=True, bare=bare, phases=phases)
            if value is not None:
                grid = enc.decode(value)
                v = self.verify(instance, grid)
                if code in v.rules:
                    return [NearMiss(code, grid, exclusive=False,
                                     note=f"{code} cannot be broken alone on this instance (checked at "
                                          f"{min(len(cands), NEAR_MISS_TRIES)} places)")]
        return []

    def _breaks_only(self, instance: Instance, grid: list[list], code: str) -> bool:
        v = self.verify(instance, grid)
        return v.status == "wrong" and v.rules == [code]

    def _substitution_misses(self, instance: Instance, code: str, rng, limit: int) -> list[list[list]]:
        """Single then double cell changes of the solution that break exactly ``code``, first and
        last cells first."""
        sol = self.solve(instance)
        H, W = self.dims(instance)
        vals = list(self.cell_values(instance))
        order = [0, H * W - 1] + [int(i) for i in rng.permutation(H * W)]
        found: list[list[list]] = []
        for idx in dict.fromkeys(order):
            r, c = divmod(idx, W)
            for v in vals:
                if v == sol[r][c]:
                    continue
                g = [list(row) for row in sol]
                g[r][c] = v
                if self._breaks_only(instance, g, code):
                    found.append(g)
                    break
            if len(found) >= limit:
                return found
        for _ in range(200 if not found else 0):
            (r1, c1), (r2, c2) = (divmod(int(i), W) for i in rng.choice(H * W, 2, replace=False))
            g = [list(row) for row in sol]
            g[r1][c1], g[r2][c2] = g[r2][c2], g[r1][c1]
            if g != sol and self._breaks_only(instance, g, code):
                found.append(g)
                if len(found) >= limit:
                    break
        return found

    def corrupt_answer(self, instance: Instance, answer: list[list], rng: np.random.Generator) -> list[list]:
        """A single-cell change of ``answer`` that breaks a rule (contract hook)."""
        H, W = self.dims(instance)
        for idx in rng.permutation(H * W):
            r, c = divmod(int(idx), W)
            others = [v for v in self.cell_values(instance) if v != answer[r][c]]
            for j in rng.permutation(len(others)):
                bad = [list(row) for row in answer]
                bad[r][c] = others[int(j)]
                if not self.verify(instance, bad).solved:
                    return bad
        raise ConfigError("no single-cell change makes this answer invalid")

    def equivalent_values(self, instance: Instance, r: int, c: int, a, b) -> bool:
        """Whether the rules read values ``a`` and ``b`` at cell (r, c) as the same answer (Net: two
        orientations of a symmetric tile); by default only equal values are."""
        return a == b

    def single_cell_corruptions(self, instance: Instance, answer: list[list]):
        """Every grid that differs from ``answer`` in exactly one cell (tests), except other ways of
        writing a cell that the rules accept (Light Up takes any non-light symbol on a black cell,
        Net any orientation of a symmetric tile that gives the same connections): those are the
        same answer."""
        H, W = self.dims(instance)
        fixed = self.givens(instance)
        for r in range(H):
            for c in range(W):
                for v in self.cell_values(instance):
                    if v != answer[r][c]:
                        bad = [list(row) for row in answer]
                        bad[r][c] = v
                        same = (r, c) in fixed or self.equivalent_values(instance, r, c, v, answer[r][c])
                        if same and self.verify(instance, bad).solved:
                            continue
                        yield (r, c), v, bad

    # ---- instance validation --------------------------------------------
    @property
    def max_cells(self) -> int:
        """The largest grid the parameter ranges allow (instances beyond it are refused)."""
        hi = {s.name: int(s.hi) for s in self.Params.specs() if s.hi is not None}
        if "W" in hi and "H" in hi:
            return hi["W"] * hi["H"]
        if "n" in hi:
            return hi["n"] ** 2
        if "box_w" in hi and "box_h" in hi:
            return (hi["box_w"] * hi["box_h"]) ** 2
        raise NotImplementedError(f"{type(self).__name__} must define max_cells")

    def validate_instance(self, instance: Instance) -> None:
        data = instance.data
        if not isinstance(data, dict):
            raise ConfigError(f"a {self.title} instance's data must be a dict")
        for key in ("W", "H"):
            v = data.get(key)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ConfigError(f"{self.title} instance field {key!r} must be a positive integer, got {str(v)[:20]!r}")
        if data["W"] * data["H"] > self.max_cells:
            raise ConfigError(f"{self.title} instance of {data['W']}x{data['H']} cells is larger than the "
                              f"{self.max_cells}-cell limit of this puzzle")
        state = data.get("state")
        if not isinstance(state, dict):
            raise ConfigError(f"{self.title} instance field 'state' must be a dict")
        if self.shape(state) != (data["H"], data["W"]):
            raise ConfigError(f"{self.title} instance 'state' is {self.shape(state)} but H, W say "
                              f"{(data['H'], data['W'])}")
        self._check_state_round_trip(instance)
        sol = data.get("solution")
        if sol is not None:
            bad = self.answer_grid_error(instance, sol)
            if bad is not None:
                raise ConfigError(f"{self.title} instance 'solution' is malformed: {bad.message}")
            # read as a SymbolGrid, the checked solution is remembered (GridTask.verify): the first
            # golden answer scored on a loaded instance needs no second round of rule checks
            if not self.verify(instance, SymbolGrid([list(r) for r in sol])).solved:
                raise ConfigError(f"{self.title} instance 'solution' breaks the rules of its own puzzle")

    def _check_state_round_trip(self, instance: Instance) -> None:
        cod = codec(self.family)
        gid = instance.data.get("game_id")
        try:
            if isinstance(gid, str) and ":" in gid:
                pstr = gid.split(":", 1)[0]
            else:
                pstr = cod.PARAMS.encode(self.resolve_params(**self.generation_params(instance.params)), full=False)
            desc = cod.encode(instance.data["state"])
        except NotExportable:
            return
        except (TypeError, ValueError, IndexError, KeyError, AttributeError) as e:
            raise ConfigError(f"{self.title} instance 'state' cannot be written as a game description "
                              f"({type(e).__name__}: {str(e)[:80]}){self._state_vs_game_id(instance)}") from None
        written = cod.PARAMS.decode(pstr)
        for key in cod.PARAMS.size:  # the parameters recorded with the instance name its size too
            if key in written and key in (instance.params or {}) and instance.params[key] != written[key]:
                raise ConfigError(f"{self.title} instance parameter {key}={str(instance.params[key])[:20]} does not "
                                  f"match the {key}={written[key]} of its game ID {pstr!r}")
        params = self.resolve_params(**written)
        try:
            again = cod.decode(params, desc)
        except ConfigError as e:  # the state wrote a description that does not read back
            raise ConfigError(f"{self.title} instance 'state' is not a well-formed puzzle state ({str(e)[:120]})"
                              f"{self._state_vs_game_id(instance)}") from None
        if canonical_json(again) != canonical_json(instance.data["state"]):
            raise ConfigError(f"{self.title} instance 'state' is not a well-formed puzzle state "
                              f"(it reads back as {json.dumps(again)[:120]}...){self._state_vs_game_id(instance)}")
        if isinstance(gid, str) and gid != f"{pstr}:{desc}":
            raise ConfigError(f"{self.title} instance 'game_id' {gid[:60]!r} does not describe its 'state'"
                              f"{self._state_vs_game_id(instance)}")

    def _state_vs_game_id(self, instance: Instance) -> str:
        """For an error message about a bad 'state' (an instance edited by hand, say): where it first
        differs from the state its 'game_id' describes, naming both values; '' when there is no
        readable game ID to compare with."""
        gid = instance.data.get("game_id")
        if not isinstance(gid, str) or ":" not in gid:
            return ""
        try:
            pstr, desc = gid.split(":", 1)
            cod = codec(self.family)
            want = cod.decode(self.resolve_params(**cod.PARAMS.decode(pstr)), desc)
        except (ConfigError, TypeError, ValueError, IndexError, KeyError, AttributeError):
            return ""
        where = first_difference(instance.data.get("state"), want)
        if where is None:
            return ""
        path, got, expected = where
        return f"; state{path} is {got!r} where its game_id {gid[:40]!r} gives {expected!r}"


def first_difference(got, want) -> tuple[str, object, object] | None:
    """The first place (``['grid'][0][3]``) where two JSON-like values differ, with the two values
    there (abbreviated); None when they are equal. Recursive: a puzzle state is a few levels deep."""
    if isinstance(got, dict) and isinstance(want, dict):
        for k in sorted(set(got) | set(want), key=str):
            if k not in got or k not in want:
                return f"[{k!r}]", _short(got.get(k, "(missing)")), _short(want.get(k, "(missing)"))
            d = first_difference(got[k], want[k])
            if d is not None:
                return f"[{k!r}]{d[0]}", d[1], d[2]
        return None
    if isinstance(got, (list, tuple)) and isinstance(want, (list, tuple)):
        for i, (a, b) in enumerate(zip(got, want)):
            d = first_difference(a, b)
            if d is not None:
                return f"[{i}]{d[0]}", d[1], d[2]
        return None if len(got) == len(want) else (" (length)", len(got), len(want))
    if type(got) is not type(want) or got != want:
        return "", _short(got), _short(want)
    return None


def _short(v):
    text = json.dumps(v, default=str)
    return v if len(text) <= 40 else text[:37] + "..."
