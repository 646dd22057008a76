"""The repository explains itself: every document it cites is in it, every section mark it cites
exists, and nothing refers to a tracker a reader cannot see.

A citation names a markdown file and, optionally, sections: ``docs/specs/grid_puzzles.md §8``,
``docs/specs/sparc.md §5, §9`` or ``docs/architecture.md §3-§4``. A file name resolves from the
repository root or from the citing file's folder (the relative links of ``docs/``); a section mark
``§N`` (or ``§N.M``) is a numbered heading of that file (``## 8. ...``, ``### 2.1 ...``). In a
markdown file a bare ``§N`` is a section of that same file; in code it must name its file. The
papers' own sections are cited as ``paper §3.2`` and are not checked here.
"""
from __future__ import annotations

import functools
import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

#: where citations are checked (the package, its tests, benchmarks, examples and documentation)
CITING = ("kumo_gym", "tests", "benchmarks", "examples", "docs", "README.md", "CONTRIBUTING.md")
#: folders that never hold project text (build output, caches, environments)
SKIPPED_DIRS = {".git", ".venv", "venv", "__pycache__", "build", "dist", "runs", ".hypothesis", ".ruff_cache",
                ".mypy_cache", ".pytest_cache", ".import_linter_cache", "node_modules"}


def repository_files() -> list[Path]:
    """Every file of the working tree that is part of the project: git's tracked and untracked
    files less the ignored ones, or, outside a git checkout, a walk that skips build output."""
    try:
        out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                             capture_output=True, check=True, timeout=60).stdout
        paths = [REPO / p for p in out.decode().split("\0") if p]
    except (OSError, subprocess.SubprocessError):
        paths = [p for p in REPO.rglob("*") if not SKIPPED_DIRS.intersection(p.relative_to(REPO).parts)]
    return sorted(p for p in paths if p.is_file() and ".git" not in p.relative_to(REPO).parts)


@functools.cache
def read_text(path: Path) -> str | None:
    """The file's text, or None for a binary file."""
    data = path.read_bytes()
    if b"\0" in data[:8192]:
        return None
    return data.decode("utf-8", errors="replace")


def text_files(*roots: str) -> list[Path]:
    wanted = [REPO / r for r in roots]
    return [p for p in repository_files()
            if (not roots or any(p == w or w in p.parents for w in wanted)) and read_text(p) is not None]


# ---- section marks ------------------------------------------------------------------------------
_HEADING = re.compile(r"^#{1,6}\s+(\d+(?:\.\d+)*)\.?\s", re.MULTILINE)


@functools.cache
def sections(path: Path) -> frozenset[str]:
    """The numbered headings of a markdown file: ``## 8. Our own generators`` gives ``8``."""
    return frozenset(m.group(1) for m in _HEADING.finditer(path.read_text(encoding="utf-8")))


_NUM = r"\d+(?:\.\d+)*"
_MARK = rf"§\s?(?:{_NUM})(?:\s?[-–]\s?§?\s?{_NUM})?"
#: what may stand between two marks of one citation: a separator, or a short quoted or bracketed label
_GLUE = r"""(?:\s*(?:"[^"\n]{0,60}"|\([^()\n]{0,60}\)))?\s*(?:,|\band\b|\bor\b|&|/)?\s*"""
_MARKS = rf"(?:\s*{_MARK}(?:{_GLUE}{_MARK})*)"
#: a markdown file named in text (a path or a bare name), outside URLs
_FILE = r"(?<![\w/.:-])((?:\.\./|\./)?(?:[\w.-]+/)*[\w-]+\.md)\b"
_FILE_CITATION = re.compile(rf"{_FILE}(?:#[\w-]+)?[`'\")\]]*(?P<marks>{_MARKS})?")
_PAPER_CITATION = re.compile(rf"\bpaper(?:'s)?(?:\s+\w+){{0,2}}?\s*{_MARKS}", re.IGNORECASE)
_ANY_MARK = re.compile(_MARK)
_MARK_NUMBERS = re.compile(_NUM)


def _numbers(marks: str) -> list[str]:
    return [m.group(0) for m in _MARK_NUMBERS.finditer(marks)]


@functools.lru_cache(maxsize=1)
def _document_names() -> frozenset[str]:
    """The names of the repository's documents, and of design documents that a citation might still
    give by their old names."""
    names = {p.name for p in (REPO / "docs").rglob("*.md")} - {"README.md"}  # too common a name to tell
    return frozenset(names | {"ARCHITECTURE.md", "STYLE.md", "CONTRIBUTING.md"})


def _names_a_document(name: str, text: str, start: int) -> bool:
    """Whether a markdown name is a citation of a document: a link target, a path into ``docs/``
    or ``specs/``, or the name of one of the repository's documents."""
    if text[start - 1:start] in "\"'" and text[start + len(name):start + len(name) + 1] == text[start - 1]:
        return False  # a string literal of code that builds a path, not a citation
    head = name.removeprefix("../").removeprefix("./").split("/")[0]
    return (text[start - 2:start] == "](" or head in {"docs", "specs", "shared"}
            or name.rsplit("/", 1)[-1] in _document_names())


def _resolve(name: str, citing: Path) -> Path | None:
    for base in (REPO, citing.parent):
        path = (base / name).resolve()
        if path.is_file() and (path == REPO or REPO in path.parents):
            return path
    return None


def citation_problems(path: Path, text: str | None = None) -> list[str]:
    """Every citation of ``path`` (or of ``text`` read as that file) that does not resolve, as
    ``"file:line: what"``."""
    text = read_text(path) or "" if text is None else text
    rel = path.relative_to(REPO)
    problems = []
    covered: list[tuple[int, int]] = []

    def where(pos: int) -> str:
        return f"{rel}:{text.count(chr(10), 0, pos) + 1}"

    for m in _FILE_CITATION.finditer(text):
        target = _resolve(m.group(1), path)
        if target is None and not (m.group("marks") or _names_a_document(m.group(1), text, m.start())):
            continue  # a file the code writes (report.md, a dataset card's README.md), not a citation
        if m.group("marks"):
            covered.append(m.span("marks"))
        if target is None:
            problems.append(f"{where(m.start())}: {m.group(1)} is not a file of the repository")
            continue
        if m.group("marks"):
            missing = [n for n in _numbers(m.group("marks")) if n not in sections(target)]
            if missing:
                problems.append(f"{where(m.start())}: {target.relative_to(REPO)} has no section "
                                + ", ".join(f"§{n}" for n in missing))
    covered += [m.span() for m in _PAPER_CITATION.finditer(text)]
    own = sections(path) if path.suffix == ".md" else None
    for m in _ANY_MARK.finditer(text):
        if any(a <= m.start() < b for a, b in covered):
            continue
        if own is None:
            problems.append(f"{where(m.start())}: {m.group(0)!r} names no file (cite it as docs/specs/<name>.md "
                            f"{m.group(0)}, or as paper {m.group(0)})")
        else:
            missing = [n for n in _numbers(m.group(0)) if n not in own]
            if missing:
                problems.append(f"{where(m.start())}: {rel} has no section " + ", ".join(f"§{n}" for n in missing))
    return problems


def test_citations_resolve_inside_the_repository():
    problems = [p for path in text_files(*CITING) for p in citation_problems(path)]
    assert not problems, f"{len(problems)} citations point outside the repository:\n" + "\n".join(problems[:200])


def test_the_specs_the_code_cites_are_in_the_repository():
    specs = {p.name for p in (REPO / "docs" / "specs").glob("*.md")} - {"README.md"}
    assert {"grid_puzzles.md", "reasoning_graphs.md", "finereason.md", "sparc.md", "kumo.md",
            "planning.md"} <= specs
    for name in specs:
        assert sections(REPO / "docs" / "specs" / name), f"docs/specs/{name} has no numbered sections"


# ---- tracker references -------------------------------------------------------------------------
#: an issue or pull-request number in any of its spellings (the probes below): a reference to a tracker
#: that a reader of the repository cannot see
_TRACKER = re.compile(r"(?<![A-Za-z])(?:issues?|PR|pull request)[\s_#:-]*(?:no\.?\s*)?\d", re.IGNORECASE)


def tracker_references(text: str) -> list[int]:
    return [text.count("\n", 0, m.start()) + 1 for m in _TRACKER.finditer(text)]


def test_no_tracker_issue_numbers_anywhere_in_the_repository():
    found = [f"{p.relative_to(REPO)}:{line}" for p in text_files() for line in tracker_references(read_text(p))]
    assert not found, ("say what and why instead of citing a tracker's numbers: "
                       + ", ".join(found[:100]) + (f" ... ({len(found)} in all)" if len(found) > 100 else ""))


I = "issue"  # the probes are built from pieces, so that this file holds no tracker reference itself


@pytest.mark.parametrize("text,lines", [
    (f"fast ({I} 14)", [1]), (f"see {I}s 12, 13", [1]), (f"ok\ndef test_{I}_12_partial():", [2]),
    (f"{I.title()} #7 item 2", [1]), (f"{I}\n14", [1]), ("P" + "R 3", [1]), (f"an {I} with the reply", []),
    (f"domain_{I}s(name)", []), (f"len({I}s)}} {I}(s)", []),
])
def test_the_tracker_pattern_bites(text, lines):
    assert tracker_references(text) == lines


#: the section sign, written as an escape so that these probes are not citations of this file
S = "\u00a7"


@pytest.mark.parametrize("text,n_problems", [
    (f"see docs/specs/grid_puzzles.md {S}8", 0),
    (f"see docs/specs/grid_puzzles.md {S}5 \"Tents\", {S}8 and {S}9", 0),
    (f"(docs/specs/planning.md {S}2.1, {S}6.1; docs/specs/sparc.md {S}5)", 0),
    (f"``docs/specs/sparc.md`` {S}8", 0),
    (f"docs/architecture.md {S}3-{S}4", 0),
    (f"the paper {S}3.2 says", 0),
    (f"see docs/specs/grid_puzzles.md {S}99", 1),
    (f"see docs/specs/grid_puzzles.md {S}8, {S}99", 1),
    (f"see grid_puzzles{'.md'} {S}8", 1),  # a spec named without its folder
    (f"see {S}8", 1),  # a section of no file
    (f"see docs/nowhere{'.md'}", 1),
    ("builds REPO / 'docs' / 'guide" + ".md'", 0),  # a path the code builds is not a citation
])
def test_the_citation_parser_bites(text, n_problems):
    problems = citation_problems(REPO / "tests" / "probe.py", f"# {text}\n")
    assert len(problems) == n_problems, problems


# ---- names that cannot mislead ------------------------------------------------------------------
@functools.cache
def _package_modules() -> tuple[tuple[str, object], ...]:
    """``(path relative to the repository, ast module)`` of every module of the package."""
    import ast

    return tuple((str(p.relative_to(REPO)), ast.parse(p.read_text(encoding="utf-8")))
                 for p in sorted((REPO / "kumo_gym").rglob("*.py")))


def _public_class_names() -> dict[str, set[str]]:
    """Every public module-level class of the package (read with ast) and every id's documented
    class (``TentsEnv``, ``KUMOEnv`` ...), with where each name is defined."""
    import ast

    from kumo_gym.core.registry import entries
    from kumo_gym.envs.classes import class_name

    names: dict[str, set[str]] = {}
    for path, tree in _package_modules():
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                names.setdefault(node.name, set()).add(path)
    for e in entries():
        for mode in e.modes:
            names.setdefault(class_name(e, mode), set()).add(f"the documented class of {e.id}")
    return names


def test_no_two_class_names_differ_only_in_case():
    """``KUMOEnv`` (what ``gym.make("kumo_gym/KUMO-v0").unwrapped`` is) beside a ``KumoEnv`` reads as one
    class; names that differ only in case must not exist."""
    by_folded: dict[str, set[str]] = {}
    for name in _public_class_names():
        by_folded.setdefault(name.casefold(), set()).add(name)
    clashes = sorted(sorted(v) for v in by_folded.values() if len(v) > 1)
    assert not clashes, f"class names that differ only in case: {clashes}"


def _renamed_tables() -> list[tuple[str, dict[str, str], set[str]]]:
    """``(module path, {old: new}, names the module defines)`` for every module that keeps old names
    through ``__getattr__ = renamed(__name__, {...})``, read with ast (no import of optional extras)."""
    import ast

    out = []
    for path, tree in _package_modules():
        defined = {n.name for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
        defined |= {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
        for n in tree.body:
            if (isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__getattr__" for t in n.targets)
                    and isinstance(n.value, ast.Call) and getattr(n.value.func, "id", "") == "renamed"):
                out.append((path, ast.literal_eval(n.value.args[1]), defined))
    return out


def test_every_old_name_leads_to_a_class_of_its_module():
    tables = _renamed_tables()
    assert {"KumoEnv", "SparcInteractiveEnv", "KumoEvalCallback", "KumoEnvClient"} <= {
        old for _, names, _ in tables for old in names}
    for path, names, defined in tables:
        for old, new in names.items():
            assert new in defined, f"{path}: {old} is renamed {new}, which the module does not define"
            assert old not in defined, f"{path}: {old} is both defined and served as a deprecated name"


@pytest.mark.parametrize("module,old,new", [
    ("kumo_gym.envs.kumo.game", "KumoEnv", "DiagnosisGameEnv"),
    ("kumo_gym.envs.sparc.env", "SparcInteractiveEnv", "PathPuzzleInteractiveEnv"),
    ("kumo_gym.envs.sparc.env", "SparcAnswerEnv", "PathPuzzleAnswerEnv"),
])
def test_renamed_classes_keep_their_old_names_with_a_warning(module, old, new):
    import importlib

    mod = importlib.import_module(module)
    with pytest.warns(DeprecationWarning, match=f"{old} is deprecated; it was renamed {new}"):
        assert getattr(mod, old) is getattr(mod, new)
    assert old not in getattr(mod, "__all__", ()) and old not in vars(mod)
    with pytest.raises(AttributeError):
        getattr(mod, old + "Typo")


def test_reward_functions_do_not_read_as_the_kumo_family():
    """TRL logs a reward function under its ``__name__``: ``rewards/puzzle_binary/mean`` whatever the
    environment (a Hanoi run once logged ``kumo_binary``, which reads as the KUMO family)."""
    from kumo_gym.training.rewards import KINDS, make_reward_function

    assert [make_reward_function("kumo_gym/Hanoi-v0", k).__name__ for k in KINDS] == [f"puzzle_{k}" for k in KINDS]
