"""Every regex of the package is free of super-linear shapes (see ``regex_audit``)."""
from __future__ import annotations

from pathlib import Path

import pytest

from .regex_audit import audit, findings

ROOT = Path(__file__).resolve().parents[2] / "kumo_gym"


@pytest.mark.parametrize("pattern", [r"(a+)+$", r"(\s*x?)*y", r"answer\s*[:=]?\s*(.*)", r"\s*\s*$", r"(?:\w+\s?)+$",
                                     r"moves\s*[=:]\s*\**\s*x", r"has\s+(?:a|the)?\s*(\d)"])
def test_the_audit_flags_known_bad_shapes(pattern):
    assert findings(pattern), pattern


@pytest.mark.parametrize("pattern", [r"\d+", r"[a-z]+\s*=\s*\d+", r"\[(\d+),\s*(\d+)\]", r"(?:ab)+", r"x*y*"])
def test_the_audit_passes_linear_shapes(pattern):
    assert not [f for f in findings(pattern) if "nested" in f], pattern


def test_no_super_linear_regex_in_the_package():
    bad = audit(ROOT)
    assert not bad, "\n".join(f"{f}:{n}: {p!r}: {w}" for f, n, p, w in bad)
