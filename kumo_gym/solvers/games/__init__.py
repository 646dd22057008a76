"""Generic engines of the move-played games (docs/games.md): linear algebra over GF(2) for Flip,
IDA* for sliding-tile puzzles. Pure functions over ints, tuples and numpy arrays."""
