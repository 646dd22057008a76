"""Map's claims (docs/specs/grid_puzzles.md §7).

``Colour {region, v}`` / ``NotColour {region, v}`` solution (region ``region`` has colour ``v``,
one of R, Y, G, B, or not; C* = a ``Colour`` per region); ``Given {region, v}`` clue (the
puzzle gives the region that colour), ``Adjacent {a, b}`` clue (regions a and b share a border);
state ``Contradiction``.
"""
from __future__ import annotations

from ....core.instance import Instance
from ..claims import INCORRECT, ClaimRules, choice_field, int_field, verdict
from .codec import COLOURS

KINDS = {"Colour": "solution", "NotColour": "solution", "Given": "clue", "Adjacent": "clue",
         "Contradiction": "state"}


def region_colours(instance: Instance, sol: list[list]) -> list:
    """The colour of each region in the solution grid (its first cell's)."""
    out: list = [None] * len(instance.data["state"]["given"])
    for row, srow in zip(instance.data["state"]["regions"], sol):
        for k, v in zip(row, srow):
            if out[k] is None:
                out[k] = v
    return out


def label_colour(instance: Instance, kind: str, p: dict, sol: list[list], H: int, W: int) -> str:
    k, v = int_field(p, "region"), choice_field(p, "v", COLOURS)
    colours = region_colours(instance, sol)
    if not 0 <= k < len(colours):
        return INCORRECT
    return verdict((colours[k] == v) == (kind == "Colour"))


def label_clue(instance: Instance, kind: str, p: dict, H: int, W: int) -> str:
    st = instance.data["state"]
    if kind == "Adjacent":
        a, b = int_field(p, "a"), int_field(p, "b")
        return verdict(0 <= a < len(st["neighbours"]) and b in st["neighbours"][a])
    k, v = int_field(p, "region"), choice_field(p, "v", COLOURS)
    return verdict(0 <= k < len(st["given"]) and st["given"][k] == v)


def minimal(instance: Instance, sol: list[list]) -> list[dict]:
    return [{"type": "Colour", "region": k, "v": v} for k, v in enumerate(region_colours(instance, sol))]


RULES = ClaimRules(KINDS, label_colour, minimal, clue=label_clue)
