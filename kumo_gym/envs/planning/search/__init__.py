"""Optimal solvers of the planning puzzles (docs/specs/planning.md §2, §10), one module per puzzle.

Closed forms where they exist (Tower of Hanoi between any two states, Checker Jumping, the
interleaved Blocks World family) and search where they do not: River Crossing by breadth-first
search over pair-type counts, Checker Jumping from arbitrary boards by a pruned depth-first
search, Blocks World with any start and goal by A* over packed states. Besides solutions, each
module gives exact distances to the goal from arbitrary states, which the partial reward of the
planning environments uses. Their numba kernels are declared with :func:`kumo_gym.solvers.native.kernel`
(``python=True``: small searches run them as Python) and compiled on first use only (:func:`kumo_gym.solvers.native.compiled`).

Everything here is pure functions over plain data and numpy arrays; nothing imports Gymnasium.
"""
from .blocks import (
    SEARCH_LIMIT,
    SearchBudgetExceeded,
    block_names,
    blocks_interleaved,
    blocks_interleaved_moves,
    blocks_interleaved_optimal_length,
    blocks_pack,
    blocks_random_state,
    blocks_search,
)
from .checkers import (
    checker_backward_moves,
    checker_board,
    checker_distance,
    checker_forward_moves,
    checker_goal,
    checker_moves,
    checker_optimal_length,
    checker_path,
    checker_remaining,
    checker_scrambled,
)
from .hanoi import (
    gather_distance,
    gather_moves,
    hanoi_distance,
    hanoi_moves,
    hanoi_optimal_length,
    hanoi_path,
    hanoi_pegs,
    hanoi_positions,
    hanoi_run,
)
from .river import (
    bank_unsafe_counts,
    river_count_moves,
    river_counts,
    river_distance,
    river_distances,
    river_explicit_bfs,
    river_moves,
    river_optimal_length,
    river_solvable,
    river_successors,
)

__all__ = [
    "SEARCH_LIMIT", "SearchBudgetExceeded", "bank_unsafe_counts", "block_names", "blocks_interleaved",
    "blocks_interleaved_moves", "blocks_interleaved_optimal_length", "blocks_pack", "blocks_random_state",
    "blocks_search", "checker_backward_moves", "checker_board", "checker_distance", "checker_forward_moves", "checker_goal", "checker_moves",
    "checker_optimal_length", "checker_path", "checker_remaining", "checker_scrambled", "gather_distance", "gather_moves",
    "hanoi_distance", "hanoi_moves", "hanoi_optimal_length", "hanoi_path", "hanoi_pegs", "hanoi_positions", "hanoi_run",
    "river_count_moves", "river_counts", "river_distance", "river_distances", "river_explicit_bfs", "river_moves",
    "river_optimal_length", "river_solvable", "river_successors",
]
