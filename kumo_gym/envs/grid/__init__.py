"""Simon Tatham's grid puzzles (docs/specs/grid_puzzles.md): a shared engine and one package per puzzle.

Each puzzle is a package ``kumo_gym/envs/grid/<family>/`` that holds everything particular to it:
the task (``__init__.py``: parameters, presets, rules, generator, drawing, manual), the Tatham
codec (``codec.py``), and where it needs them its own deduction solver (``deduce.py``), numba
kernel (``kernel.py``) and geometry (``geometry.py``). The shared engine sits beside the packages:
``base.py`` (the GridTask), ``integrity.py``, ``play.py``, ``render.py``, ``answer.py``,
``regions.py``, ``latin.py``, ``geometry.py`` (what two or more puzzles use), ``claims.py`` and
``tatham/`` (the game-ID grammar, save files and Tatham's generator as a backend).

Adding a grid puzzle
====================
Five things, each small; ``tents/`` (a layout-per-instance puzzle) and ``towers/`` (a
Latin square whose rules formula is shared by every instance of a size) are the models.

1. ``kumo_gym/envs/grid/<family>/codec.py`` -- the game-ID codec (docs/specs/grid_puzzles.md §3-§4)::

       PARAMS = ParamFormat(("W", "H"), (Field("tatham_difficulty", "d", choices="et"),), title="Tents")
       def decode(params: dict, desc: str) -> dict: ...      # the description after ':' -> state
       def encode(state: dict) -> str: ...                   # the exact inverse on generated IDs
       def aux_solution(state: dict, aux: str) -> list[list]: ...   # only if save files carry AUXINFO

   Build them from the shared sub-grammars in ``tatham/grammar.py`` (RUN, NUMGRID, CHARGRID,
   SKIPS, B62, MASK). ``Field(in_id=True)`` marks rule-changing fields that IDs carry (Unruly
   ``u``); ``omit=`` a value Tatham's full form leaves out. Raise ``ConfigError`` on bad input.

2. ``kumo_gym/envs/grid/<family>/__init__.py`` -- the puzzle: a ``Params`` dataclass (subclass
   :class:`~.base.GridParams`, or ``GridParams.with_size(8, 4, 30)`` for a ``W`` x ``H`` grid
   of 4..30 cells a side, ``W`` 8 by default and ``H`` defaulting to ``W``; ``H``/``box_h``
   declared ``param(None, kind=int)`` default to ``W``/``box_w``;
   ``tatham_difficulty = tatham_level("e", {"e": "easy", "t": "tricky"})``; ``min_cells`` when a
   grid needs more than one cell) and a :class:`~.base.GridTask` subclass named after the module
   (``TentsTask``: its ``family`` is the package name, the sgt binary name, and its ``title`` the
   class name, unless it sets ``title``) that says only what is particular:

   * class attributes ``Params``, ``difficulties``
     (the four docs/specs/grid_puzzles.md §3 presets as a table: ``presets("W H", (4, 4), (6, 6), (8, 8), (15, 15))``),
     ``rule_codes`` (a text block: a line per rule, ``R2 no two tents touch ...``, read by
     :func:`~kumo_gym.core.task.rule_table` with the family's prefix),
     ``rules_prompt`` and ``answer_prompt`` (the prompt, in our own words, as text blocks; ``{n}``
     is the state's ``n``), ``symbols``, ``state_keys``, ``empty``;
   * ``rule_checks(instance, grid) -> [Check("R2", cells, ok), ...]`` -- every rule, with the
     short code; the base skips checks of switched-off rules and builds the verdict;
   * ``encode(state) -> Encoding`` -- the SAT model (:mod:`kumo_gym.solvers.engine`): rule
     constraints tagged ``rule="R2"`` (``f.add``, ``f.exactly``, ``f.at_most``...), clues as
     assumption literals ``clues[key] = ("R3", lits)``, ``decode(values) -> grid``. Rules that
     depend only on the layout go through ``self.layout(key, build)`` so the formula and its
     solver are built once; clue values then fix counters (``f.count(lits).eq(k)``) by assumption.
     Global rules (connectivity, one loop) are a ``cuts`` callback (``geometry.connected_cuts``
     for one region of cells; Filling's ``filling/geometry.py`` keeps blocks as big as their
     label, Net's ``net/geometry.py`` keeps links a spanning tree);
   * ``sample(rng, params) -> (state, solution)`` -- the docs/specs/grid_puzzles.md §8 sampler: draw a solution, encode
     the full clue set, ``reduce_clues(enc.engine, groups, rng, truth, grade_limit=...)``; where SAT is
     too slow, the puzzle's own deduction solver (Tatham's way: what deduction solves is unique,
     SAT only as the fallback certificate) goes in ``<family>/deduce.py``, with a numba kernel in
     ``<family>/kernel.py`` if it needs one (one entry point, small, so the first compile stays
     well under a second; entry points decorated with ``kumo_gym.solvers.native.kernel``, which is
     all the ahead-of-time build needs to find them); geometry only
     this puzzle uses goes in ``<family>/geometry.py``;
   * ``rules_text``, ``answer_text`` -- only where the prompt's wording depends on more than the
     state's fields; ``sketch(instance, grid)``
     -- what the board shows (text and image come from it); the class docstring with
     ``## Description``, ``## Answer``, ``## Generation``, ``## Interactive mode`` is the manual;
   * optional: ``givens``, ``cell_values``, ``shape`` (when the state has no ``grid``),
     ``clue_count`` (calibration), ``clue_features`` (structured view), ``move_values``,
     ``equivalent_values`` (two values the rules read as the same answer at a cell: Net's
     symmetric tiles); other move kinds (edges, rotations) override the :class:`~.play.CellMoves`
     methods.

3. One row in ``kumo_gym/core/catalog.py``: ``_grid("Tents", "tents", "one-line summary")``
   (its instances are then pinned: ``python -m tests.pinned_instances --update kumo_gym/Tents-v0``,
   docs/versioning.md).
4. Claims (docs/specs/grid_puzzles.md §7): ``<family>/claims.py`` defines ``RULES``, a
   :class:`~.claims.ClaimRules` (the kinds and their class, the labellers of solution, clue and
   state claims, C*), which the task declares as ``claim_rules``; the shared ``claims.py`` reads
   payloads and dispatches, the analysis packs (``kumo_gym/analysis/schema.py``) use them.
5. Tests: ``tests/grid/test_<family>.py`` with the docs/specs/grid_puzzles.md §5 example (parses, solves, verifies, ID
   round trip), grammar errors, one test per rule code on a hand-made wrong answer, and anything
   puzzle-specific. Registering the puzzle already runs it through ``tests/grid/test_framework.py``
   (uniqueness, determinism, corruption, near misses, cheap answers, partial credit, validation,
   images, interactive play, the manual) and ``tests/conformance/test_tatham.py`` (Tatham's own
   IDs at all four presets import, are unique under our rules, verify, match AUXINFO; our IDs are
   accepted by ``sgt-<family>``).

What comes for free (:mod:`.integrity`): near misses from the tagged encoding, the cheap-answer
catalogue, partial credit ``max(0, (f - b) / (1 - b))`` against the unique solution, a random
answer, instance validation (size caps from ``Params``, state read back through the codec),
``rgb_array`` rendering and the Tatham backend (``backend="tatham"``).
"""
