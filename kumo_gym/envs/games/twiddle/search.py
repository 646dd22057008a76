"""Search for Twiddle (k x k blocks of a W x H grid rotated a quarter turn).

A board is a tuple of cell codes in reading order, ``4 * number + orientation`` as in Tatham's own
grid (orientation 0 up, 1 left, 2 down, 3 right; always 0 when orientation does not count). A move
``(row, col, turn)`` rotates the ``n`` x ``n`` block whose top-left cell is ``(row, col)`` a quarter
turn clockwise (``turn`` 1) or anticlockwise (``turn`` -1); with orientation, every tile of the
block turns with it. The goal is the numbers in non-decreasing reading order, all pointing up
(Tatham's completion rule), which for a given multiset of numbers is one board.

* :func:`bidirectional` finds a shortest move list by breadth-first search from both ends, up to a
  number of states per side; when it gives up, the levels it completed prove a lower bound.
* :func:`heuristic` is admissible: a move turns ``n*n`` tiles, each of which it brings at most one
  move closer to the nearest goal cell of its number (by a per-tile breadth-first table over
  position and orientation), so the summed per-tile distances divided by ``n*n``, and the largest
  one, are lower bounds.
* :func:`constructive` solves any reachable board, not optimally: tiles are given distinct goal
  cells (equal numbers matched in the class their invariants allow), a first move fixes the
  permutation parity where a move can, every cell but the last two of its colour class is filled
  by a 3-cycle (a commutator of block rotations, carried onto the three cells by a setup found by
  breadth-first search over the cells' positions and undone after), then orientations are fixed by
  pure twists (two realisations of one 3-cycle, one undone by the other) carried the same way.
  Its length is the upper bound of the certified pair.
"""
from __future__ import annotations

import itertools
from collections import deque
from functools import lru_cache

from ..tiles import bidirectional_search, merge_runs, permutation_parity

Move = tuple[int, int, int]
#: rounds of commutators of commutators searched for 3-cycles, and the smallest elements kept per round
POOL_ROUNDS = 3
POOL_SIZE = 80


# ---- the board and its moves ------------------------------------------------------------------------
@lru_cache(maxsize=64)
def geometry(w: int, h: int, n: int, orientable: bool) -> tuple[list[Move], list[tuple]]:
    """``(moves, effects)``: every move, and its effect ``e`` (``e[p] = 4 * src + turn``: the cell
    ``p`` receives the tile of ``src`` turned by ``turn`` quarter turns anticlockwise)."""
    moves = [(r, c, d) for r in range(h - n + 1) for c in range(w - n + 1) for d in (1, -1)]
    return moves, [move_effect(w, n, m, orientable, w * h) for m in moves]


def move_effect(w: int, n: int, move: Move, orientable: bool, size: int) -> tuple:
    r, c, d = move
    e = [4 * p for p in range(size)]
    turn = (-d) % 4 if orientable else 0  # clockwise turns an up-pointing tile to the right (3)
    for i in range(n):
        for j in range(n):
            ti, tj = (j, n - 1 - i) if d == 1 else (n - 1 - j, i)
            e[(r + ti) * w + c + tj] = 4 * ((r + i) * w + c + j) + turn
    return tuple(e)


def apply_effect(e: tuple, board: tuple) -> tuple:
    return tuple((board[x >> 2] & ~3) | ((board[x >> 2] + x) & 3) for x in e)


def apply_move(board: tuple, w: int, h: int, n: int, orientable: bool, move: Move) -> tuple:
    r, c, d = move
    out = list(board)
    turn = (-d) % 4 if orientable else 0
    for i in range(n):
        for j in range(n):
            ti, tj = (j, n - 1 - i) if d == 1 else (n - 1 - j, i)
            v = board[(r + i) * w + c + j]
            out[(r + ti) * w + c + tj] = (v & ~3) | ((v + turn) & 3)
    return tuple(out)


def inverse(move: Move) -> Move:
    return (move[0], move[1], -move[2])


def goal_of(board) -> tuple:
    """Tatham's completion: the numbers in non-decreasing order, every tile pointing up."""
    return tuple(sorted(v & ~3 for v in board))


def _identity(size: int) -> tuple:
    return tuple(4 * p for p in range(size))


def word_effect(word: list[Move], effects: dict, size: int) -> tuple:
    s = _identity(size)
    for m in word:
        s = apply_effect(effects[m], s)
    return s


def invert_effect(e: tuple) -> tuple:
    out = [0] * len(e)
    for p, x in enumerate(e):
        out[x >> 2] = 4 * p + ((-x) & 3)
    return tuple(out)


# ---- the admissible bound ------------------------------------------------------------------------------
@lru_cache(maxsize=64)
def tile_distances(w: int, h: int, n: int, orientable: bool) -> tuple:
    """``dist[goal][4 * cell + orientation]``: moves a lone tile needs from there to goal cell ``goal``."""
    effects = geometry(w, h, n, orientable)[1]
    size = w * h
    step = []  # for every move, where (cell, orientation) goes
    for e in effects:
        to = list(range(4 * size))
        for dst, x in enumerate(e):
            for o in range(4):
                to[4 * (x >> 2) + o] = 4 * dst + ((o + x) & 3)
        step.append(to)
    out = []
    for g in range(size):
        dist = [-1] * (4 * size)
        dist[4 * g] = 0
        queue = deque([4 * g])
        while queue:
            u = queue.popleft()
            for to in step:  # moves are invertible and the move set is closed under inverses
                v = to[u]
                if dist[v] < 0:
                    dist[v] = dist[u] + 1
                    queue.append(v)
        out.append(tuple(dist))
    return tuple(out)


def heuristic(board: tuple, w: int, h: int, n: int, orientable: bool) -> int:
    dist = tile_distances(w, h, n, orientable)
    goal = goal_of(board)
    cells: dict[int, list[int]] = {}
    for g, v in enumerate(goal):
        cells.setdefault(v, []).append(g)
    total = worst = 0
    for p, v in enumerate(board):
        key = 4 * p + (v & 3)
        best = min((dist[g][key] for g in cells[v & ~3] if dist[g][key] >= 0), default=-1)
        if best < 0:
            return 1 << 30  # a tile that can reach no goal cell of its number: unsolvable
        total += best
        worst = max(worst, best)
    return max(worst, -(-total // (n * n)))


# ---- exact search ---------------------------------------------------------------------------------------
def bidirectional(start: tuple, w: int, h: int, n: int, orientable: bool,
                  max_states: int = 200_000) -> tuple[list[Move] | None, int]:
    """``(moves, lower)``: a shortest move list (None past ``max_states`` per side, then ``lower`` is a
    proven lower bound; ``lower`` is the length when a list is found)."""
    return bidirectional_search(start, goal_of(start), geometry(w, h, n, orientable)[0],
                                lambda s, m: apply_move(s, w, h, n, orientable, m), inverse, max_states,
                                lambda: heuristic(start, w, h, n, orientable))


# ---- the constructive solver -------------------------------------------------------------------------
def _colour_classes(w: int, h: int, n: int) -> list[int]:
    """The class of every cell: an odd block keeps every tile on its checkerboard colour."""
    return [((p // w + p % w) & 1) if n % 2 else 0 for p in range(w * h)]


def _commutator(a: list[Move], b: list[Move]) -> list[Move]:
    return a + b + [inverse(m) for m in reversed(a)] + [inverse(m) for m in reversed(b)]


def _moved(e: tuple) -> list[int]:
    return [p for p, x in enumerate(e) if x != 4 * p]


@lru_cache(maxsize=32)
def _toolkit(w: int, h: int, n: int, orientable: bool):
    """3-cycles and twists of this geometry: ``(cycles, setups, twists)`` or None when the board has
    no 3-cycle (one block, or blocks overlapping too much to isolate three cells)."""
    moves, effs = geometry(w, h, n, orientable)
    effects = dict(zip(moves, effs, strict=True))
    classes = _colour_classes(w, h, n)
    pool: dict[tuple, list[Move]] = {e: [m] for m, e in effects.items()}
    cycles: dict[tuple, tuple[tuple, list[Move]]] = {}  # (x, y, z) -> (effect, word); x's tile goes to y
    for _ in range(POOL_ROUNDS):
        items = sorted(pool.items(), key=lambda kv: (len(_moved(kv[0])), len(kv[1])))[:POOL_SIZE]
        supports = [set(_moved(e)) for e, _ in items]
        new: dict[tuple, list[Move]] = {}
        for (i, (ea, wa)), (j, (eb, wb)) in itertools.product(enumerate(items), repeat=2):
            if i >= j or not supports[i] & supports[j]:
                continue
            e = _compose(_compose(_compose(ea, eb), invert_effect(ea)), invert_effect(eb))
            if e not in pool and e not in new and _moved(e):
                new[e] = _commutator(wa, wb)
                _note_cycle(e, new[e], cycles)
        pool.update(new)
        if len({classes[k[0]] for k in cycles}) == len(set(classes)):
            break
    if not cycles:
        return None
    setups = _setup_table(w, h, n, orientable, set(cycles))
    twists = {}
    if orientable:
        for k in set(_colour_classes(w, h, n)):
            mine = {key: v for key, v in cycles.items() if _colour_classes(w, h, n)[key[0]] == k}
            if mine:
                t, span = _twists(w, h, n, orientable, mine, setups, effects)
                orders = {tuple(t[i] for i in o): o for o in itertools.permutations(range(3))}
                twists[k] = (t, span, orders, _setup_table(w, h, n, orientable, set(orders)))
    return cycles, setups, twists


def _compose(first: tuple, then: tuple) -> tuple:
    """The effect of ``first`` followed by ``then``."""
    return apply_effect(then, first)


def _note_cycle(e: tuple, word: list[Move], cycles: dict) -> None:
    """Keep ``word`` if its effect ``e`` is a 3-cycle of positions (turning nothing else)."""
    moved = _moved(e)
    if len(moved) != 3 or any(e[p] >> 2 == p for p in moved):
        return
    x = moved[0]
    y = next(p for p in moved if e[p] >> 2 == x)
    z = next(p for p in moved if e[p] >> 2 == y)
    for key in ((x, y, z), (y, z, x), (z, x, y)):
        if key not in cycles or len(word) < len(cycles[key][1]):
            cycles[key] = (e, word)


def _setup_table(w: int, h: int, n: int, orientable: bool, targets: set) -> dict:
    """For every ordered triple of cells that can reach a 3-cycle's cells: the first move of a
    shortest setup carrying it there (breadth-first search backwards from all of them at once)."""
    moves, effs = geometry(w, h, n, orientable)
    size = w * h
    dest = []  # where the tile of each cell goes under each move
    for e in effs:
        to = [0] * size
        for p, x in enumerate(e):
            to[x >> 2] = p
        dest.append(to)
    back = []  # the same for each move's inverse
    for to in dest:
        fr = [0] * size
        for p, q in enumerate(to):
            fr[q] = p
        back.append(fr)
    table: dict[tuple, int | None] = {t: None for t in targets}
    queue = deque(targets)
    while queue:
        t = queue.popleft()
        for k, fr in enumerate(back):
            u = (fr[t[0]], fr[t[1]], fr[t[2]])
            if u not in table:
                table[u] = k  # move k carries u to t, one step closer
                queue.append(u)
    return {"first": table, "dest": dest, "moves": moves, "index": {m: k for k, m in enumerate(moves)}}


def _setup_word(triple: tuple, setups: dict) -> list[Move] | None:
    first, dest, moves = setups["first"], setups["dest"], setups["moves"]
    if triple not in first:
        return None
    word = []
    while first[triple] is not None:
        k = first[triple]
        word.append(moves[k])
        triple = (dest[k][triple[0]], dest[k][triple[1]], dest[k][triple[2]])
    return word


def _cycle_on(triple: tuple, cycles: dict, setups: dict) -> list[Move] | None:
    """A move list whose effect cycles the tiles of ``triple`` = (x, y, z): x's to y, y's to z, z's to x."""
    setup = _setup_word(triple, setups)
    if setup is None:
        return None
    t = _carry(triple, setup, setups)
    return setup + cycles[t][1] + [inverse(m) for m in reversed(setup)]


def _invert_word(word: list[Move]) -> list[Move]:
    return [inverse(m) for m in reversed(word)]


def _carry(triple: tuple, word: list[Move], setups: dict) -> tuple:
    dest, index = setups["dest"], setups["index"]
    for m in word:
        d = dest[index[m]]
        triple = (d[triple[0]], d[triple[1]], d[triple[2]])
    return triple


def _twists(w, h, n, orientable, cycles, setups, effects) -> tuple[tuple, dict] | None:
    """Pure twists on one triple of cells ``T`` (every tile stays, some turn): ``(T, span)`` with
    ``span[(t0, t1, t2)]`` a move list turning the tiles of ``T`` by those quarter turns
    (anticlockwise), for every vector the twists found combine to. A twist is one realisation of
    a 3-cycle on ``T`` followed by another one undone; realisations differ by a short word moved
    in front of the shortest setup."""
    size = w * h
    moves = setups["moves"]
    key = min(cycles, key=lambda k: len(cycles[k][1]))
    base = cycles[key][1]
    vectors: dict[tuple, list[Move]] = {}
    for k in range(1, 3):
        for pre in itertools.product(moves, repeat=k):
            pre = list(pre)
            moved = _carry(key, pre, setups)
            rest = _cycle_on(moved, cycles, setups)
            if rest is None:
                continue
            real = pre + rest + _invert_word(pre)
            word = base + _invert_word(real)
            e = word_effect(word, effects, size)
            if any(x >> 2 != p for p, x in enumerate(e)) or e == _identity(size):
                continue
            vec = tuple(e[p] & 3 for p in key)
            if any(e[p] & 3 for p in range(size) if p not in key) or vec in vectors:
                continue
            vectors[vec] = word
    span: dict[tuple, list[Move]] = {(0, 0, 0): []}
    queue = deque(span)
    while queue:
        v = queue.popleft()
        for u, word in vectors.items():
            s = tuple((a + b) & 3 for a, b in zip(v, u, strict=True))
            if s not in span:
                span[s] = span[v] + word
                queue.append(s)
    return key, span


def _labels(start: tuple, w: int, h: int, n: int, orientable: bool) -> list[int] | None:
    """A distinct goal cell for every tile (codes ``4 * goal cell + orientation``): equal numbers
    are matched within the class their invariants keep them in; None when the counts disagree."""
    size = w * h
    goal = goal_of(start)
    colour = [(p // w + p % w) & 1 for p in range(size)]

    def key(p: int, code: int) -> tuple:
        if n % 2:
            return code & ~3, colour[p]
        return code & ~3, ((code + colour[p]) & 1) if orientable else 0

    free: dict[tuple, list[int]] = {}
    for g in range(size):
        free.setdefault(key(g, goal[g]), []).append(g)
    out = []
    for p, v in enumerate(start):
        cells = free.get(key(p, v))
        if not cells:
            return None
        out.append(4 * cells.pop(0) + (v & 3))
    return out


def _class_parities(board, classes: list[int]) -> dict[int, int]:
    out = {}
    for k in set(classes):
        cells = [p for p in range(len(board)) if classes[p] == k]
        pos = {c: i for i, c in enumerate(cells)}
        if any(board[p] >> 2 not in pos for p in cells):
            return {k: -1}
        out[k] = permutation_parity([pos[board[p] >> 2] for p in cells])
    return out


@lru_cache(maxsize=256)
def solve_constructive(start: tuple, w: int, h: int, n: int, orientable: bool) -> tuple[Move, ...] | None:
    """:func:`constructive`, remembered (the codec asks it whether a board is solvable)."""
    out = constructive(start, w, h, n, orientable)
    return None if out is None else tuple(out)


def constructive(start: tuple, w: int, h: int, n: int, orientable: bool) -> list[Move] | None:
    """A (not necessarily short) solution of any reachable board; None when it finds none."""
    size = w * h
    goal = goal_of(start)
    if tuple(start) == goal:
        return []
    labels = _labels(start, w, h, n, orientable)
    kit = _toolkit(w, h, n, orientable)
    if labels is None or kit is None:
        return _small(start, w, h, n, orientable)
    cycles, setups, twists = kit
    classes = _colour_classes(w, h, n)
    goal_values = [v >> 2 for v in goal]
    # equal numbers swapped between goal cells make any class parity even where they exist
    par = _class_parities(labels, classes)
    for k, odd in par.items():
        if odd:
            for a, b in itertools.combinations(range(size), 2):
                la, lb = labels[a] >> 2, labels[b] >> 2
                if classes[a] == k and classes[la] == classes[lb] == k and goal_values[la] == goal_values[lb] \
                        and (not orientable or n % 2 or ((labels[a] ^ labels[b]) & 1) == 0):
                    labels[a], labels[b] = 4 * lb + (labels[a] & 3), 4 * la + (labels[b] & 3)
                    break
    board, out = tuple(labels), []
    if any(_class_parities(board, classes).values()):
        moves = setups["moves"]
        for m in moves:
            after = apply_move(board, w, h, n, orientable, m)
            if not any(_class_parities(after, classes).values()):
                board, out = after, [m]
                break
        else:
            return None
    for k in sorted(set(classes)):
        cells = [p for p in range(size) if classes[p] == k]
        for i, p in enumerate(cells[:-2]):
            if board[p] >> 2 == p:
                continue
            q = next(c for c in range(size) if board[c] >> 2 == p)
            word = None
            for r in reversed(cells[i + 1:]):
                if r != q:
                    word = _cycle_on((q, p, r), cycles, setups)
                    if word is not None:
                        break
            if word is None:
                return None
            for m in word:
                board = apply_move(board, w, h, n, orientable, m)
            out += word
    if any(board[p] >> 2 != p for p in range(size)):
        return None
    if orientable:
        for k in sorted(set(classes)):
            cells = [p for p in range(size) if classes[p] == k]
            if k not in twists:
                if any(board[p] & 3 for p in cells):
                    return None
                continue
            t, span, orders, tsetups = twists[k]
            steps = [(a, cells[-2], cells[-1]) for a in cells[:-2]] + [(cells[0], cells[-2], cells[-1])]
            for i, (a, b, c) in enumerate(steps):
                final = i == len(steps) - 1
                need = [(-board[x]) & 3 for x in (a, b, c)]
                if not (need[0] or final and any(need)):
                    continue
                word = _twist_on((a, b, c), need, t, span, orders, tsetups, final=final)
                if word is None:
                    return None
                for m in word:
                    board = apply_move(board, w, h, n, orientable, m)
                out += word
    if board != _identity(size):
        return None
    return simplify(out, n)


def _twist_on(triple, need, t, span, orders, tsetups, final: bool) -> list[Move] | None:
    """A move list turning the tiles of ``triple`` (the first by ``need[0]``; when ``final``, all
    three exactly by ``need``) and nothing else."""
    setup = _setup_word(triple, tsetups)
    if setup is None:
        return None
    landed = _carry(triple, setup, tsetups)
    slot = orders[landed]  # triple[i] lands on t[slot[i]]
    best = None
    for vec, word in span.items():
        if vec[slot[0]] != need[0] or (final and any(vec[slot[i]] != need[i] for i in range(3))):
            continue
        if best is None or len(word) < len(best):
            best = word
    if best is None:
        return None
    return setup + best + _invert_word(setup)


def _small(start, w, h, n, orientable) -> list[Move] | None:
    """Boards without 3-cycles (one block, or two heavily overlapping ones): exhaustive search."""
    path, _ = bidirectional(tuple(start), w, h, n, orientable, max_states=2_000_000)
    return path


def simplify(moves: list[Move], n: int) -> list[Move]:
    """Merge consecutive turns of one block (mod 4) and drop those that cancel."""
    return merge_runs(moves, lambda row: 4)
