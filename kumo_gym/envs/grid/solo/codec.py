"""Solo game IDs (docs/specs/grid_puzzles.md §5 "Solo"): ``CxR`` parameters, a NUMGRID of givens."""
from __future__ import annotations

from ....core.errors import ConfigError
from ..tatham.grammar import Field, ParamFormat, Unsupported, decode_numgrid, encode_numgrid, read_size

SYMMETRIES = ("r2", "r4", "m2", "md2", "m4", "md4", "m8", "a")


class _SoloParams(ParamFormat):
    """``CxR`` means boxes R wide and C tall (docs/specs/grid_puzzles.md §5 "Boxes"); X, killer and jigsaw are
    refused."""

    def decode(self, s: str) -> dict:
        s = s.strip()
        _, _, rest = read_size(s)
        if "x" not in s[:len(s) - len(rest)]:
            raise Unsupported(f"Solo parameters {s!r} (no boxes) are not supported; use CxR")
        if rest[:1] in ("x", "k", "j"):
            raise Unsupported(f"the Solo variant {rest[0]!r} in {s!r} (X / killer / jigsaw) is not supported")
        out = super().decode(s)
        out.pop("symmetry", None)  # generation-only (docs/specs/grid_puzzles.md §4)
        if out["box_w"] * out["box_h"] > 31:
            raise ConfigError(f"Solo boxes {out['box_w']}x{out['box_h']} give more than 31 symbols")
        return out


PARAMS = _SoloParams(("box_h", "box_w"), (Field("symmetry", "", kind="token", choices=SYMMETRIES),
                                          Field("tatham_difficulty", "d", choices="tbiaeu", omit="t")), title="Solo")


def decode(params: dict, desc: str) -> dict:
    bw, bh = params["box_w"], params["box_h"]
    n = bw * bh
    cells = decode_numgrid(desc, n * n, max_value=n)
    return {"n": n, "box_w": bw, "box_h": bh, "grid": [cells[r * n:(r + 1) * n] for r in range(n)]}


def encode(state: dict) -> str:
    return encode_numgrid([int(v) for row in state["grid"] for v in row])


def aux_solution(state: dict, aux: str) -> list[list]:
    """AUXINFO ``S`` plus n*n comma-separated digits."""
    n = state["n"]
    vals = [int(x) for x in aux[1:].split(",")]
    return [vals[r * n:(r + 1) * n] for r in range(n)]
