"""The shape of the grid wing (docs/architecture.md §9, "a puzzle owns its code").

Each grid puzzle is one package ``kumo_gym/envs/grid/<family>/`` holding its task, codec and
claims (and where it has them its deduction, kernel and geometry); the shared engine beside the
packages never asks "which puzzle is this?": a puzzle supplies its part through a declared hook
(``claim_rules``, its ``codec`` module, the task's methods), and a helper that only one puzzle
uses lives in that puzzle's package.
"""
from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from kumo_gym.core.registry import entries, get_task
from kumo_gym.envs.grid import tatham

GRID = Path(importlib.import_module("kumo_gym.envs.grid").__file__).parent
PUZZLES = sorted(get_task(e.id).family for e in entries() if e.family == "grid")
NAMES = set(PUZZLES) | {get_task(e.id).title.lower() for e in entries() if e.family == "grid"}
#: what a puzzle's package must hold (it may add ``deduce.py``, ``kernel.py``, ``geometry.py`` ...)
REQUIRED = {"__init__.py", "codec.py", "claims.py"}


def shared_modules() -> list[Path]:
    """The shared engine: the grid package's own modules and the ``tatham`` package."""
    return sorted([*GRID.glob("*.py"), *(GRID / "tatham").glob("*.py")])


def _is_name(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.lower() in NAMES


def _names_in(node: ast.AST) -> list[str]:
    if _is_name(node):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [e.value for e in node.elts if _is_name(e)]
    return []


def _about_a_puzzle(node: ast.AST) -> bool:
    """An expression that reads which puzzle this is (``family``, ``self.family``, ``task.title.lower()``...)."""
    words = ("family", "puzzle", "title", "name")
    for sub in ast.walk(node):
        ident = sub.id if isinstance(sub, ast.Name) else sub.attr if isinstance(sub, ast.Attribute) else ""
        if any(w in ident.lower() for w in words):
            return True
    return False


def puzzle_switches(source: str) -> list[str]:
    """Every place in ``source`` that branches on, or tabulates by, a grid puzzle's name."""
    found = []
    for node in ast.walk(ast.parse(source)):
        where = f"line {getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            named = [n for s in sides for n in _names_in(s)]
            if named and any(_about_a_puzzle(s) for s in sides if not _names_in(s)):
                found.append(f"{where}: compares a puzzle name ({', '.join(named)})")
        elif isinstance(node, ast.Dict):
            keyed = [k.value for k in node.keys if k is not None and _is_name(k)]
            if len(keyed) >= 2:
                found.append(f"{where}: a table keyed by puzzle ({', '.join(keyed)})")
        elif isinstance(node, (ast.Tuple, ast.List, ast.Set)) and len(_names_in(node)) >= 2:
            found.append(f"{where}: a list of puzzles ({', '.join(_names_in(node))})")
        elif isinstance(node, ast.Subscript) and _is_name(node.slice):
            found.append(f"{where}: looks up the puzzle {node.slice.value!r}")
        elif isinstance(node, ast.Call) and any(_is_name(a) for a in node.args) and not (
                isinstance(node.func, ast.Attribute) and node.func.attr in ("get", "pop", "setdefault")):
            found.append(f"{where}: names the puzzle {next(a.value for a in node.args if _is_name(a))!r}")
    return found


@pytest.mark.parametrize("path", shared_modules(), ids=lambda p: p.relative_to(GRID).as_posix())
def test_shared_grid_code_never_switches_on_a_puzzle(path):
    found = puzzle_switches(path.read_text())
    assert not found, f"{path.relative_to(GRID)} names puzzles; give the puzzle a hook instead:\n" + "\n".join(found)


def test_the_switch_finder_bites():
    """The check finds the shapes it is there to forbid, and leaves moves and plain strings alone."""
    assert puzzle_switches('if family == "tents":\n    pass')
    assert puzzle_switches('if instance.family in ("tracks", "pearl"):\n    pass')
    assert puzzle_switches('KINDS = {"solo": 1, "tents": 2}')
    assert puzzle_switches('LINES = ("tracks", "pearl")')
    assert puzzle_switches('x = BLACK["mosaic"]')
    assert puzzle_switches('codec("net")')
    assert not puzzle_switches('n = payload.get("tents")')  # a field that happens to share a name
    assert not puzzle_switches('if move[0] == "rect":\n    pass')
    assert not puzzle_switches('ops = ("rect", "erase")\nmsg = "a net of pipes"')


@pytest.mark.parametrize("family", PUZZLES)
def test_every_puzzle_is_one_package_with_its_parts(family):
    pkg = GRID / family
    assert pkg.is_dir(), f"kumo_gym/envs/grid/{family}/ is missing"
    files = {p.name for p in pkg.glob("*.py")}
    assert REQUIRED <= files, f"{family}/ lacks {sorted(REQUIRED - files)}"
    # nothing of the puzzle left in the shared places
    assert not (GRID / f"{family}.py").exists()
    assert not (GRID / "tatham" / f"{family}.py").exists()
    assert not (GRID / f"_{family}_kernel.py").exists()
    assert not (GRID / "deduce").exists()
    # the hooks: the task is the package, its claims and codec are the package's
    task = get_task(next(e.id for e in entries() if e.family == "grid" and get_task(e.id).family == family))
    package = importlib.import_module(f"kumo_gym.envs.grid.{family}")
    assert type(task).__module__ == package.__name__
    assert task.claim_rules is importlib.import_module(f"{package.__name__}.claims").RULES
    assert tatham.codec(family) is importlib.import_module(f"{package.__name__}.codec")


def _geometry_users() -> dict[str, set[str]]:
    """Who imports each name of the shared ``geometry.py``: puzzle names, or ``shared``."""
    defined = {n.name for n in ast.parse((GRID / "geometry.py").read_text()).body
               if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    users: dict[str, set[str]] = {name: set() for name in defined}
    for path in GRID.rglob("*.py"):
        rel = path.relative_to(GRID)
        who = rel.parts[0] if len(rel.parts) > 1 and rel.parts[0] in PUZZLES else "shared"
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[-1] == "geometry" and \
                    not (who != "shared" and node.level == 1):
                for alias in node.names:
                    users.get(alias.name, set()).add(who)
            elif path.name == "geometry.py" and who == "shared" and isinstance(node, ast.FunctionDef):
                for sub in ast.walk(node):
                    if isinstance(sub, ast.Name) and sub.id in users and sub.id != node.name:
                        users[sub.id].add("shared")
    return users


def test_the_shared_geometry_holds_only_what_two_puzzles_use():
    single = {name: who for name, who in _geometry_users().items() if len(who) == 1 and "shared" not in who}
    assert not single, f"helpers of one puzzle in the shared geometry.py (move them to <puzzle>/geometry.py): {single}"
