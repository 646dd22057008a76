"""Games of Simon Tatham's collection played by moves (docs/games.md): one package per game.

Each package holds the game's rules, generator, Tatham game-ID codec, solver hooks and texts;
the shared machinery (move lists, first failures, interactive and answer modes, Tatham IDs) is
:mod:`kumo_gym.envs.games.base`. Each puzzle keeps its own search (``<puzzle>/search.py``); GF(2) elimination is the generic engine :mod:`kumo_gym.solvers.gf2`.
"""
