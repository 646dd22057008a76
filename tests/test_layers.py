"""Where code lives (docs/architecture.md §1): the layers, independent puzzle families, search code
placed by one rule.

import-linter (``make lint``) checks the imports; what it cannot see is a module named as a string
(an ``importlib`` call, a path). These tests check the strings, and that the family-independence
contract of ``pyproject.toml`` lists every family package there is.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "kumo_gym"
LAYERS = ["core", "solvers", "envs", "wrappers", "analysis", "training", "integrations", "cli"]
#: the one kind of string allowed to name a higher layer: the registration table's Gymnasium entry
#: points (``"module:Name"``, or the start of one in an f-string, imported by Gymnasium when an id is made),
#: in core/catalog.py and core/registry.py
ENTRY_POINT_FILES = {"core/catalog.py", "core/registry.py"}
_NAMED = re.compile(r"kumo_gym[./](\w+)(?:[./](\w+))?")


def _families() -> set[str]:
    return {p.name for p in (PKG / "envs").iterdir() if (p / "__init__.py").is_file()}


def _strings(source: str):
    """Every string constant of a module but its docstrings (they may cite any module)."""
    tree = ast.parse(source)
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    for n in ast.walk(tree):
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs:
            yield n.lineno, n.value


def problems(rel: str, source: str, families: set[str]) -> list[str]:
    """The strings of module ``rel`` (path under kumo_gym/) that name a module of a higher layer or,
    from a family's package, of another family."""
    parts = rel.split("/")
    if parts[0] not in LAYERS:
        return []
    own = LAYERS.index(parts[0])
    family = parts[1] if parts[0] == "envs" and len(parts) > 2 else None
    out = []
    for line, text in _strings(source):
        for m in _NAMED.finditer(text):
            layer, sub = m.group(1), m.group(2)
            if layer not in LAYERS:
                continue
            entry_point = rel in ENTRY_POINT_FILES and re.fullmatch(r"kumo_gym(\.\w+)+(:\w+|\.)", text)
            if LAYERS.index(layer) > own and not entry_point:
                out.append(f"{rel}:{line}: names {m.group(0)!r} (layer {layer} is above {parts[0]})")
            elif family and layer == "envs" and sub in families and sub != family:
                out.append(f"{rel}:{line}: names {m.group(0)!r} (family {sub}, from family {family})")
    return out


def test_no_module_names_a_higher_layer_or_another_family_as_a_string():
    families = _families()
    found = []
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG).as_posix()
        found += problems(rel, path.read_text(encoding="utf-8"), families)
    assert found == []


@pytest.mark.parametrize("rel, source, n", [
    ("solvers/native.py", 'MOD = "kumo_gym.envs.grid.range.kernel"\n', 1),
    ("solvers/native.py", 'P = "kumo_gym/envs/kumo/kernel.py"\n', 1),
    ("solvers/native.py", '"""Docstrings may cite kumo_gym.envs.kumo.kernel."""\nX = "kumo_gym.core.errors"\n', 0),
    ("envs/sparc/task.py", 'M = "kumo_gym.envs.kumo.search"\n', 1),
    ("envs/sparc/task.py", 'M = "kumo_gym.envs.sparc.search"\n', 0),
    ("core/catalog.py", 'T = "kumo_gym.envs.kumo.game:KumoTask"\n', 0),
    ("core/seeding.py", 'T = "kumo_gym.envs.kumo.game:KumoTask"\n', 1),
])
def test_the_string_check_bites(rel, source, n):
    assert len(problems(rel, source, {"sparc", "kumo", "grid"})) == n


def test_the_independence_contract_lists_every_family():
    """A new family package (envs/<family>/) joins the contract that keeps families from importing
    each other; its own search lives in it, shared engines in kumo_gym.solvers."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = [c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "independence"]
    assert len(contracts) == 1
    assert set(contracts[0]["modules"]) == {f"kumo_gym.envs.{f}" for f in _families()}


def test_solvers_hold_no_family_search():
    """kumo_gym.solvers holds generic engines only: no module or package there is named after a
    puzzle family (a family's search moved into envs/<family>/)."""
    names = {p.stem.strip("_").split("_")[0] for p in (PKG / "solvers").iterdir()
             if p.suffix == ".py" or (p / "__init__.py").is_file()}
    assert names & (_families() | {"kumo", "sparc", "planning", "finereason"}) == set()
