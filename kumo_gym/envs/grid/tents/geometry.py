"""Tents' geometry: a bipartite matching (trees to tents, Kuhn's augmenting paths)."""
from __future__ import annotations

from collections.abc import Callable, Iterable


def matching(left: Iterable, options: Callable[[object], Iterable]) -> dict:
    """A maximum bipartite matching ``{left item: right item}`` (augmenting paths, Kuhn)."""
    owner: dict = {}

    def augment(item, seen) -> bool:
        for other in options(item):
            if other not in seen:
                seen.add(other)
                if other not in owner or augment(owner[other], seen):
                    owner[other] = item
                    return True
        return False

    for item in left:
        augment(item, set())
    return {item: other for other, item in owner.items()}
