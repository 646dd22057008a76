"""Pearl game IDs (docs/specs/grid_puzzles.md §5 "Pearl"): a CHARGRID of ``B`` (black) and ``W`` (white)
pearls; AUXINFO is the solution loop as one MASK digit per cell."""
from __future__ import annotations

from ....core.errors import ConfigError
from ..tatham.grammar import Field, ParamFormat, decode_chargrid, encode_chargrid, mask_decode

#: ``n`` (Tatham: do not insist on a solvable puzzle) is generation-only and never in an ID
PARAMS = ParamFormat(("W", "H"), (Field("tatham_difficulty", "d", choices="et"),
                                  Field("nosolve", "n", kind="flag")), title="Pearl")
BLACK, WHITE, EMPTY = "B", "W", "."


def decode(params: dict, desc: str) -> dict:
    W, H = params["W"], params["H"]
    cells = decode_chargrid(desc, W * H, "BW", empty=EMPTY)
    return {"grid": [cells[r * W:(r + 1) * W] for r in range(H)]}


def encode(state: dict) -> str:
    cells = [v for row in state["grid"] for v in row]
    bad = next((v for v in cells if v not in (BLACK, WHITE, EMPTY)), None)
    if bad is not None:
        raise ConfigError(f"Pearl grid cell {bad!r} is not {BLACK!r}, {WHITE!r} or {EMPTY!r}")
    return encode_chargrid(cells, empty=EMPTY)


def aux_solution(state: dict, aux: str) -> list[list]:
    """AUXINFO: the loop's directions per cell (MASK digits), as our answer (the loop numbered
    from its first cell in reading order, heading right)."""
    from ..geometry import number_loops
    from ..play import dirs_edges

    H, W = len(state["grid"]), len(state["grid"][0])
    if len(aux) != W * H:
        raise ConfigError(f"Pearl AUXINFO has {len(aux)} cells, expected {W * H}")
    dirs = [[mask_decode(aux[r * W + c]) for c in range(W)] for r in range(H)]
    return number_loops(H, W, dirs_edges(dirs))
