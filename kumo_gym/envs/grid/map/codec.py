"""Map game IDs (docs/specs/grid_puzzles.md §5 "Map"): ``<edges>,<colours>``.

``<edges>`` walks the W(H-1) horizontal cell edges (the edge under cell (y, x), row by row),
then the (W-1)H vertical ones (the edge right of cell (y, x), column by column), and writes the
lengths of alternating runs of open edges (same region) and walls (a region border), starting
with an open run that holds one notional edge before the first: ``a``..``y`` end a run of 1..25
and switch, ``z`` adds 25 without switching. Regions are numbered in the order their first
cell appears, row by row. ``<colours>`` is a CHARGRID over the regions: ``0``-``3`` a given
colour (R, Y, G, B), a letter a run of uncoloured regions. AUXINFO: ``S;c:i;...``, region i has
colour c.
"""
from __future__ import annotations

import functools

import numpy as np

from ....core.errors import ConfigError
from ..tatham.grammar import Field, ParamFormat, decode_chargrid, encode_chargrid

PARAMS = ParamFormat(("W", "H"), (Field("n", "n", kind="number", in_id=True),
                                  Field("tatham_difficulty", "d", choices="enhu")), title="Map")
#: the four colours, in Tatham's order (digits 0-3 of the description)
COLOURS = ("R", "Y", "G", "B")
NO_COLOUR = "."


def edge_cells(W: int, H: int):
    """The cell pairs of every internal edge, in the description's order."""
    for y in range(H - 1):
        for x in range(W):
            yield (y, x), (y + 1, x)
    for x in range(W - 1):
        for y in range(H):
            yield (y, x), (y, x + 1)


def _walls(desc: str, n_edges: int) -> list[bool]:
    out: list[bool] = []
    wall, first = False, True
    for ch in desc:
        if not "a" <= ch <= "z":
            raise ConfigError(f"Map edge list: {ch!r} is not a letter a-z")
        k = 25 if ch == "z" else ord(ch) - ord("a") + 1
        if first:  # the notional open edge before the first one
            k, first = k - 1, False
        out.extend([wall] * k)
        if len(out) > n_edges:
            raise ConfigError(f"the Map edge list covers more than the {n_edges} edges of the grid")
        if ch != "z":
            wall = not wall
    if len(out) != n_edges:
        raise ConfigError(f"the Map edge list covers {len(out)} edges, expected {n_edges}")
    return out


def regions_of(W: int, H: int, walls: list[bool]) -> list[list[int]]:
    """The region label of every cell: cells joined by open edges share a region, numbered in
    order of first appearance."""
    parent = list(range(W * H))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for ((y1, x1), (y2, x2)), wall in zip(edge_cells(W, H), walls):
        if not wall:
            a, b = root(y1 * W + x1), root(y2 * W + x2)
            if a != b:
                parent[max(a, b)] = min(a, b)
    label: dict[int, int] = {}
    flat = [label.setdefault(root(i), len(label)) for i in range(W * H)]
    return [flat[r * W:(r + 1) * W] for r in range(H)]


def neighbours_of(regions: list[list[int]]) -> list[list[int]]:
    """Each region's neighbours (regions sharing a cell edge with it), sorted."""
    R = np.asarray(regions)
    a = np.concatenate([R[:-1, :].ravel(), R[:, :-1].ravel()])
    b = np.concatenate([R[1:, :].ravel(), R[:, 1:].ravel()])
    edge = a != b
    both = np.concatenate([np.stack([a[edge], b[edge]], 1), np.stack([b[edge], a[edge]], 1)])
    out: list[list[int]] = [[] for _ in range(int(R.max()) + 1)]
    for x, y in np.unique(both, axis=0).tolist():
        out[x].append(y)
    return out


def decode(params: dict, desc: str) -> dict:
    W, H, n = params["W"], params["H"], params["n"]
    edges, comma, colours = desc.partition(",")
    if not comma:
        raise ConfigError("a Map description is '<edge list>,<colour list>'; the comma is missing")
    walls = _walls(edges, W * (H - 1) + (W - 1) * H)
    regions = regions_of(W, H, walls)
    for ((y1, x1), (y2, x2)), wall in zip(edge_cells(W, H), walls):
        if wall and regions[y1][x1] == regions[y2][x2]:
            raise ConfigError(f"the Map edge list draws a wall between cells ({y1}, {x1}) and ({y2}, {x2}) "
                              "inside one region")
    count = 1 + max(max(row) for row in regions)
    if count != n:
        raise ConfigError(f"the Map edge list makes {count} regions, but the parameters say n={n}")
    given = [NO_COLOUR if ch == NO_COLOUR else COLOURS[int(ch)]
             for ch in decode_chargrid(colours, n, "0123", NO_COLOUR)]
    return {"regions": regions, "neighbours": neighbours_of(regions), "given": given}


def wall_list(regions) -> np.ndarray:
    """Whether each internal edge, in the description's order, is a region border."""
    R = np.asarray(regions)
    return np.concatenate([(R[:-1, :] != R[1:, :]).ravel(), (R[:, :-1] != R[:, 1:]).T.ravel()])


@functools.lru_cache(maxsize=16)
def _run_text(most: int) -> tuple[str, ...]:
    """The text of a run of L edges for L up to ``most``: 'z' per 25 beyond the last letter's."""
    out = [""]
    for run in range(1, most + 1):
        z = (run - 1) // 25
        out.append("z" * z + chr(ord("a") - 1 + run - 25 * z))
    return tuple(out)


def encode(state: dict) -> str:
    seq = np.concatenate([[False], wall_list(state["regions"])])  # the notional open edge first
    bounds = np.concatenate([[0], np.flatnonzero(seq[1:] != seq[:-1]) + 1, [len(seq)]])
    out = map(_run_text(len(seq)).__getitem__, np.diff(bounds).tolist())
    given = [NO_COLOUR if g == NO_COLOUR else str(COLOURS.index(g)) for g in state["given"]]
    return "".join(out) + "," + encode_chargrid(given, NO_COLOUR)


def aux_solution(state: dict, aux: str) -> list[list]:
    """AUXINFO ``S;c:i;...`` (region i has colour c) as the answer grid."""
    n = len(state["given"])
    colour: dict[int, str] = {}
    parts = aux.split(";")
    if parts[0] != "S":
        raise ConfigError(f"a Map AUXINFO starts with 'S;', got {aux[:20]!r}")
    for part in parts[1:]:
        c, _, i = part.partition(":")
        if not (c.isdigit() and i.isdigit() and int(c) < 4 and int(i) < n):
            raise ConfigError(f"Map AUXINFO entry {part[:20]!r} is not 'colour:region' (colour 0-3, region < {n})")
        colour[int(i)] = COLOURS[int(c)]
    if len(colour) != n:
        raise ConfigError(f"Map AUXINFO colours {len(colour)} of the {n} regions")
    return [[colour[k] for k in row] for row in state["regions"]]
