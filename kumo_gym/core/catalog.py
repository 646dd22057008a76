"""The environment table: one row per registered environment (registration is data, docs/architecture.md §9).

Adding a puzzle is adding its row here (and writing its Task). Rows name their Task and any
environment class as ``"module:Class"`` strings, so this module imports nothing but the
:class:`EnvEntry` record, and core never imports a family (docs/architecture.md §1, layering).
"""
from __future__ import annotations

from .entry import EnvEntry

# ---- planning ("The Illusion of Thinking", docs/specs/planning.md) -------------------------------
_PLANNING = "The Illusion of Thinking (Shojaee et al., 2025)"
_PLANNING_MODES = ("answer", "interactive")
# the generic envs plus N, k, solvability and compositional depth in ``info`` (docs/specs/planning.md §9)
_PLANNING_ENVS = {"answer": "kumo_gym.envs.planning.base:PlanningAnswerEnv",
                  "interactive": "kumo_gym.envs.planning.base:PlanningInteractiveEnv"}


def _planning(name: str, task: str, summary: str) -> EnvEntry:
    return EnvEntry(name=name, task=task, family="planning", summary=summary, modes=_PLANNING_MODES,
                    env_classes=_PLANNING_ENVS, paper=_PLANNING)


# ---- grid puzzles (Simon Tatham's collection; docs/specs/grid_puzzles.md) ------------------------
_GRID = "Reasoning Structure of Large Language Models (anonymous, under review)"


def _grid(name: str, module: str, summary: str) -> EnvEntry:
    return EnvEntry(name=name, task=f"kumo_gym.envs.grid.{module}:{name}Task", family="grid", summary=summary,
                    modes=("answer", "interactive"), paper=_GRID)


# ---- games (Tatham's move-played games; docs/games.md) -------------------------------------------
_GAMES = "Simon Tatham's Portable Puzzle Collection"
# the planning envs: their info adds the optimum as the compositional depth
_GAMES_ENVS = _PLANNING_ENVS


def _game(name: str, summary: str) -> EnvEntry:
    return EnvEntry(name=name, task=f"kumo_gym.envs.games.{name.lower()}.task:{name}Task", family="games",
                    summary=summary, modes=("answer", "interactive"), env_classes=_GAMES_ENVS, paper=_GAMES)


_FINEREASON = "FineReason (DAMO-NLP-SG, 2025)"
# the generic envs plus the item's source and defects in ``info``, and env options on replays
_FINEREASON_ENVS = {"answer": "kumo_gym.envs.finereason.envs:FineReasonAnswerEnv",
                    "interactive": "kumo_gym.envs.finereason.envs:FineReasonInteractiveEnv"}

ENTRIES: list[EnvEntry] = [
    _planning("Hanoi", "kumo_gym.envs.planning.hanoi:HanoiTask",
              "Tower of Hanoi: move N disks from peg 0 to peg 2 (optimum 2^N - 1 moves)"),
    _planning("CheckerJumping", "kumo_gym.envs.planning.checkers:CheckerJumpingTask",
              "Checker Jumping: swap N red and N blue checkers by slides and jumps ((N+1)^2 - 1 moves)"),
    _planning("RiverCrossing", "kumo_gym.envs.planning.river:RiverCrossingTask",
              "River Crossing: N actor/agent pairs cross in a boat of capacity k without unsafe groups"),
    _planning("BlocksWorld", "kumo_gym.envs.planning.blocks:BlocksWorldTask",
              "Blocks World: restack N blocks into an interleaved goal tower (2N - 1 moves for even N)"),
    EnvEntry(name="KUMO", task="kumo_gym.envs.kumo.game:KumoTask", family="kumo",
             summary="Multi-turn diagnosis game: run tests whose outcomes rule truths out, then name the valid truth",
             modes=("interactive",), env_classes={"interactive": "kumo_gym.envs.kumo.game:DiagnosisGameEnv"},
             paper="KUMO (Lin et al. 2025)"),
    EnvEntry(name="SPaRC", task="kumo_gym.envs.sparc.task:SparcTask", family="sparc",
             summary="SPaRC path puzzles: draw a line from S to E satisfying dot, gap, square, star, "
                     "triangle and polyomino rules (generated or official records)",
             modes=("answer", "interactive"), paper="Kaesberg et al., SPaRC, EMNLP 2025",
             env_classes={"answer": "kumo_gym.envs.sparc.env:PathPuzzleAnswerEnv",
                          "interactive": "kumo_gym.envs.sparc.env:PathPuzzleInteractiveEnv"}),
    EnvEntry(name="FineReasonStateChecking", task="kumo_gym.envs.finereason.tasks:StateCheckingTask",
             family="finereason", paper=_FINEREASON, env_classes=_FINEREASON_ENVS,
             summary="Is this intermediate puzzle state still solvable? (A)/(B); puzzle=sudoku|coloring|game24|logicgrid"),
    EnvEntry(name="FineReasonStateTransition", task="kumo_gym.envs.finereason.tasks:StateTransitionTask",
             family="finereason", paper=_FINEREASON, env_classes=_FINEREASON_ENVS,
             summary="Make one move in a puzzle tree: a solvable child, or back to the parent when stuck"),
    EnvEntry(name="FineReasonTreeWalk", task="kumo_gym.envs.finereason.tasks:TreeWalkTask",
             family="finereason", paper=_FINEREASON, modes=("answer", "interactive"),
             env_classes=_FINEREASON_ENVS,
             summary="Walk a puzzle tree one minimal move at a time, forward or back, to a solution"),
    _grid("Solo", "solo", "Sudoku (Tatham's Solo): fill 1..n so rows, columns and boxes hold each once"),
    _grid("Tents", "tents", "Tents: pair a tent with every tree; tents never touch; row and column counts"),
    _grid("Towers", "towers", "Towers (skyscrapers): a Latin square of heights matching the visibility clues"),
    _grid("Lightup", "lightup", "Light Up: light every white cell; lights never see each other; numbered blacks count lights"),
    _grid("Mosaic", "mosaic", "Mosaic: colour cells so each clue counts the black cells in its 3x3 block"),
    _grid("Pattern", "pattern", "Pattern (nonogram): paint the picture whose row and column runs are given"),
    _grid("Signpost", "signpost", "Signpost: number the cells 1..n so every arrow points on to the next number"),
    _grid("Rect", "rect", "Rectangles: cut the grid into rectangles, each holding one number equal to its area"),
    _grid("Filling", "filling", "Filling (Fillomino): write digits so each block of equal digits has that many cells"),
    _grid("Range", "range", "Range (Kurodoko): black out cells so each number sees exactly that many cells"),
    _grid("Singles", "singles", "Singles (Hitori): black out repeats; blacks never touch; whites stay connected"),
    _grid("Unruly", "unruly", "Unruly: balanced black/white lines with no three of a colour in a row"),
    _grid("Unequal", "unequal", "Unequal (Futoshiki): a Latin square with inequality signs, or Adjacent marks, between neighbours"),
    _grid("Keen", "keen", "Keen (KenKen): a Latin square split into cages with sum, product, difference and quotient clues"),
    _grid("Dominosa", "dominosa", "Dominosa: cut a grid of numbers into dominoes, every pair of numbers exactly once"),
    _grid("Magnets", "magnets", "Magnets: fill domino slots with magnets or blanks; like poles never touch; pole counts"),
    _grid("Tracks", "tracks", "Train Tracks: one railway from the left edge to the bottom edge matching the line counts"),
    _grid("Net", "net", "Net: rotate pipe tiles so they join into one loop-free network"),
    _grid("Pearl", "pearl", "Pearl: one closed loop through every pearl; it turns at black pearls, goes straight at white ones"),
    _grid("Undead", "undead", "Undead: ghosts, vampires and zombies around mirrors; edge numbers count the monsters seen"),
    _grid("Bridges", "bridges", "Bridges (Hashiwokakero): join numbered islands with straight, uncrossed bridges into one group"),
    _grid("Galaxies", "galaxies", "Galaxies: split the grid into connected regions, each symmetric about its one dot"),
    _grid("Slant", "slant", "Slant (Gokigen Naname): a diagonal in every cell; numbered corners count their diagonals; no loops"),
    _grid("Map", "map", "Map: colour every region with one of four colours so that neighbouring regions differ"),
    _grid("Palisade", "palisade", "Palisade: divide the grid into connected regions of n cells; each number counts its cell's borders"),
    _grid("Loopy", "loopy", "Loopy (Slitherlink): one closed loop along the grid lines; each number counts the loop's sides round its face"),
    _grid("Mines", "mines", "Mines (Minesweeper): find every mine from the numbers, no guessing needed"),
    _game("Flip", "Flip (Lights Out and Tatham's random shapes): press cells to turn every light off in the fewest "
                  "presses (exact optimum over GF(2))"),
    _game("Fifteen", "Fifteen: slide tiles into the gap until they are in order (optimum by IDA* with linear "
                     "conflicts, or certified bounds on random 4x4 boards)"),
    _game("Sixteen", "Sixteen: shift rows and columns cyclically until the tiles are in order (optimum by "
                     "bidirectional search, or certified bounds on large random boards)"),
    _game("Netslide", "Netslide: shift rows and columns (not the centre ones) until every tile's wires join the "
                      "centre source (optimum by bidirectional search from every solved board, or certified bounds)"),
    _game("Twiddle", "Twiddle: turn square blocks of tiles until the numbers are in order, optionally all pointing up "
                     "(optimum by bidirectional search, or certified bounds on long shuffles)"),
    _game("Guess", "Guess (Mastermind): find the hidden code from black and white pegs, guesses counted against a "
                   "Knuth-style guesser"),
    _game("Blackbox", "Black Box: fire rays into a box and deduce where the hidden balls are, rays counted against "
                      "a most-informative-ray player"),
    _game("Samegame", "Samegame: remove groups of two or more cells of one colour until the board is empty "
                      "(soluble boards; a clearing sequence by search)"),
    _game("Pegs", "Pegs (peg solitaire on Tatham's cross, octagon and random boards): jump pegs until one is left "
                  "(a winning line by depth-first search with dead positions remembered)"),
    _game("Cube", "Cube: roll a cube, tetrahedron, octahedron or icosahedron over the grid until every face has "
                  "picked up a blue cell (fewest rolls by A*, or certified bounds past its budget)"),
    _game("Flood", "Flood: flood the board to one colour from the top-left corner within Tatham's move limit "
                   "(his lookahead player's count plus leniency; best line by beam search and A*)"),
    _game("Inertia", "Inertia: slide a ball in eight directions to pick up every gem without touching a mine "
                     "(fewest moves by breadth-first search over place and gems left, or certified bounds on large "
                     "grids)"),
    _game("Untangle", "Untangle: move the points of a planar graph onto integer spots until no two edges meet "
                      "(any crossing-free placement wins; certified by the generating drawing)"),
]
