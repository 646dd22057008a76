"""Map: docs/specs/grid_puzzles.md §5, §7; docs/specs/reasoning_graphs.md §6 "Other puzzles".

Claims: ``Colour{region,v}`` / ``NotColour{region,v}`` (solution: region ``region`` has colour
``v``, one of R, Y, G, B, or not; C* = a ``Colour`` per region), ``Given{region,v}`` (clue: the
puzzle gives the region that colour), ``Adjacent{a,b}`` (clue: regions a and b share a border),
``Contradiction``. Region numbers are the state's labels, the same in 0- and 1-based traces.

Deduction model: one variable per region, its domain the four colours; a given colour fixes its
region; two neighbouring regions differ (the ``Adjacent`` clue is the premise), and so do three
regions that all touch one another.
"""
from __future__ import annotations

import json
from typing import Any

from ...envs.grid.map.codec import COLOURS, NO_COLOUR
from ..deduce import Constraint, Model
from ..reading import Phrase
from ..schema import Pack
from .common import claim_schema, per_value

NAMES = {"R": "red", "Y": "yellow", "G": "green", "B": "blue"}
#: the words for each colour (the letter alone only right after a copula or "=")
WORDS = {v: rf"(?:{name}|{v.lower()}\b(?! ?\())" for v, name in NAMES.items()}
REGION = r"\bregion {n:region}\b"
REGIONS = r"\bregions? {each:region}\b"


def _phrases() -> tuple:
    out: list[Phrase] = []
    for v, word in WORDS.items():
        fixed = {"v": v}
        # (not "region 11, the given yellow of region 10": that colour is region 10's)
        out += Phrase.group("Given", rf"{REGION},? (?:is |has )?(?:a |the )?given (?:as |colour |color )?(?:=|:)? ?{word}"
                                     r"(?! (?:of |on |at )?region)",
                            rf"\bthe given {word} (?:of |on |at )?{REGION}",
                            rf"{REGION} (?:starts|comes) (?:as |already )?{word}", fixed=fixed)
        # negatives before positives: "region 3 cannot be red" is a NotColour claim
        out += Phrase.group("NotColour", rf"{REGIONS},? (?:{{neg}}|can no longer be) (?:be |take |get )?{word}",
                            rf"\b(?:rules? out|eliminate|remove) {word} (?:for|from) {REGIONS}",
                            rf"\b{word} is (?:ruled out|impossible|not possible) for {REGIONS}", fixed=fixed)
        out += Phrase.group("Colour", rf"{REGIONS},? (?:also |then |now |therefore )?(?:{{be}}|gets|takes|becomes) {word}",
                            rf"\b(?:colour|color|paint) {REGIONS} {word}",
                            rf"\b(?:leaves|leaving|forces|forcing|makes|making) {REGIONS} (?:as |to be )?{word}",
                            rf"\b(?:try|suppose|assume|assuming) {REGION} (?:is |as |being |were |was )?{word}", fixed=fixed)
    out += Phrase.group("Adjacent", r"\bregions? {n:a} (?:also |then |too )?(?:borders|touches|neighbours|neighbors|is next to|is adjacent to) "
                                    r"(?:region )?{n:b}\b",
                        r"\bregions {n:a} and {n:b} (?:are neighbours|are neighbors|are adjacent|touch|share a border)")
    return tuple(out)


class MapPack(Pack):
    def referents(self, kind: str, payload: dict) -> frozenset:
        """A claim is about its region(s)."""
        if kind == "Adjacent":
            return frozenset(("region", payload[k]) for k in ("a", "b") if isinstance(payload.get(k), int))
        if isinstance(payload.get("region"), int):
            return frozenset({("region", payload["region"])})
        return super().referents(kind, payload)

    def negates(self, a: tuple, b: tuple) -> bool:
        (ka, pa), (kb, pb) = (a[0], json.loads(a[1])), (b[0], json.loads(b[1]))
        if pa.get("region") is None or pa.get("region") != pb.get("region"):
            return False
        return self.opposites.get(ka) == kb and pa.get("v") == pb.get("v")

    def template_variant(self, kind: str, payload: dict) -> str:
        """Templates name the colour in words, one set per colour."""
        return str(payload.get("v", "")) if kind != "Adjacent" else ""

    def grid_claims(self, instance: Any, grid: list) -> list[tuple[str, dict]]:
        """A ``Colour`` claim per region, read from its first cell."""
        seen: dict = {}
        for row, grow in zip(instance.data["state"]["regions"], grid):
            for k, v in zip(row, grow):
                seen.setdefault(k, v)
        return [("Colour", {"region": k, "v": v}) for k, v in sorted(seen.items()) if v in NAMES]

    def clue_claims(self, instance: Any) -> list:
        st = instance.data["state"]
        given = [("Given", {"region": k, "v": g}) for k, g in enumerate(st["given"]) if g != NO_COLOUR]
        return given + [("Adjacent", {"a": a, "b": b}) for a, adj in enumerate(st["neighbours"]) for b in adj if a < b]

    def deduction_model(self, instance: Any) -> Model:
        st = instance.data["state"]
        sol = {p["region"]: p["v"] for _, p in self.grid_claims(instance, instance.data["solution"])}
        cons = [Constraint((a, b), lambda vals: vals[0] != vals[1], (("Adjacent", {"a": a, "b": b}),),
                           name="neighbours differ")
                for a, adj in enumerate(st["neighbours"]) for b in adj if a < b]
        # three regions that all touch take three colours (Tatham's pairs rule is this seen from one)
        near = [set(adj) for adj in st["neighbours"]]
        cons += [Constraint((a, b, c), lambda vals: len(set(vals)) == 3,
                            tuple(("Adjacent", {"a": x, "b": y}) for x, y in ((a, b), (a, c), (b, c))),
                            name="three neighbours differ")
                 for a, adj in enumerate(st["neighbours"]) for b in adj if a < b for c in adj if b < c and c in near[b]]
        return Model(domains={k: COLOURS for k in range(len(st["given"]))}, constraints=cons,
                     fact=lambda k, v: ("Colour", {"region": k, "v": v}), solution=sol,
                     givens={k: g for k, g in enumerate(st["given"]) if g != NO_COLOUR},
                     given_fact=lambda k, v: ("Given", {"region": k, "v": v}),
                     exclusion=lambda k, v: ("NotColour", {"region": k, "v": v}))


PACK = MAP = MapPack(
    puzzle="map",
    **claim_schema({"Colour": {"region": "count", "v": "sym"}, "NotColour": {"region": "count", "v": "sym"}},
                   {"Given": {"region": "count", "v": "sym"}, "Adjacent": {"a": "count", "b": "count"}},
                   opposite={"Colour": "NotColour"}),
    claim_notes=("Colour / NotColour: region `region` (its number in the state) has colour v, one of R (red), "
                 "Y (yellow), G (green), B (blue), or not. Given: the puzzle gives region `region` colour v. "
                 "Adjacent: regions a and b share a border."),
    phrases=_phrases(),
    templates={
        **per_value("Colour", NAMES, "region {region} is {name}", "region {region} must be {name}",
                    "region {region} has to be {name}"),
        **per_value("NotColour", NAMES, "region {region} cannot be {name}", "region {region} is not {name}",
                    "{name} is ruled out for region {region}"),
        **per_value("Given", NAMES, "region {region} is given as {name}", "the given {name} of region {region}"),
        "Adjacent": ("region {a} borders region {b}", "regions {a} and {b} are neighbours"),
    },
)
