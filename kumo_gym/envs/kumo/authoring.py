"""How our built-in domains are written: a compact source format compiled to domain JSON.

The sources in ``envs/kumo/domains/src/*.txt`` state *positive* knowledge, the way a field guide
does: for each test, which outcome each truth typically shows. A truth listed under one state of
a test is ruled out by every other state of that test (an outcome it does not show excludes it);
a truth listed under several states of a test is ruled out by none of them, and a truth not
listed under a test is unaffected by it. This yields the rule-out semantics of
``docs/specs/kumo.md`` §2 from knowledge that is easy to check by reading.

Format::

    name: Minerals
    goal: identify the mineral of a hand specimen
    truth_noun: mineral
    action_noun: test
    label: train
    truths:
    Quartz -- optional description
    actions:
    * Streak test | str | colour of the powder on unglazed porcelain
      white: Calcite, Quartz
      red-brown: Hematite
    * Specific gravity | float | weighed in air and water | g/cm3
      2.5..2.8: Quartz, Calcite
      4.9..5.3: Hematite

``python -m kumo_gym.envs.kumo.authoring`` rebuilds ``domains/*.json`` from the sources.
"""
from __future__ import annotations

import json

from ...core.errors import ConfigError
from .domain import BUILTIN_DIR, SCHEMA

SOURCE_DIR = BUILTIN_DIR / "src"
_HEADER_KEYS = ("name", "goal", "truth_noun", "action_noun", "label")


def compile_source(text: str, stem: str = "domain") -> dict:
    """The domain JSON (schema ``kumo_gym.domain/v1``) of one source text."""
    head: dict[str, str] = {}
    truths: list[dict] = []
    actions: list[dict] = []
    listings: dict[str, list[tuple[object, list[str]]]] = {}
    types: dict[str, str] = {}
    section = "head"
    current = None
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip()
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        where = f"{stem}:{lineno}"
        if line in ("truths:", "actions:"):
            section = line[:-1]
            continue
        if section == "head":
            key, _, value = line.partition(":")
            if key.strip() not in _HEADER_KEYS:
                raise ConfigError(f"{where}: header key {key.strip()!r} is not one of: {', '.join(_HEADER_KEYS)}")
            head[key.strip()] = value.strip()
        elif section == "truths":
            name, _, desc = line.partition(" -- ")
            truths.append({"name": name.strip(), "description": desc.strip()} if desc.strip() else name.strip())
        elif line.startswith("* "):
            parts = [p.strip() for p in line[2:].split("|")]
            if len(parts) < 2 or parts[1] not in ("str", "float"):
                raise ConfigError(f"{where}: an action line is '* name | str|float | description | unit'")
            current = parts[0]
            types[current] = parts[1]
            entry = {"name": current}
            if len(parts) > 2 and parts[2]:
                entry["description"] = parts[2]
            if len(parts) > 3 and parts[3]:
                entry["unit"] = parts[3]
            actions.append(entry if len(entry) > 1 else current)
            listings[current] = []
        else:
            if current is None:
                raise ConfigError(f"{where}: a state line before any action")
            state, sep, members = line.strip().rpartition(":")
            if not sep:
                raise ConfigError(f"{where}: a state line is 'state: truth, truth'")
            if types[current] == "float":
                lo, _, hi = state.partition("..")
                try:
                    value: object = [float(lo), float(hi)]
                except ValueError:
                    raise ConfigError(f"{where}: float state {state!r} is not 'lo..hi'") from None
            else:
                value = state.strip()
            listings[current].append((value, [m.strip() for m in members.split(",") if m.strip()]))
    names = {t if isinstance(t, str) else t["name"] for t in truths}
    outcomes = {}
    for a, states in listings.items():
        for _, members in states:
            for m in members:
                if m not in names:
                    raise ConfigError(f"{stem}: action {a!r} lists unknown truth {m!r}")
        out = []
        for k, (value, members) in enumerate(states):
            shows = set(members)
            excluded = []
            for j, (_, others) in enumerate(states):
                if j != k:
                    excluded.extend(t for t in others if t not in shows and t not in excluded)
            order = [t if isinstance(t, str) else t["name"] for t in truths]
            out.append({"state": value, "rules_out": sorted(excluded, key=order.index)})
        outcomes[a] = {"type": types[a], "states": out}
    return {"schema": SCHEMA, "name": head.get("name", stem), "goal": head.get("goal", ""),
            "truth_noun": head.get("truth_noun", "truth"), "action_noun": head.get("action_noun", "action"),
            "truths": truths, "actions": actions, "outcomes": outcomes,
            "provenance": {"source": "builtin", "seed": None, "params": {}, "label": head.get("label", "train"),
                           "author": "kumo_gym", "compiled_from": f"src/{stem}.txt"}}


def build_all(write: bool = True) -> dict[str, dict]:
    """Compile every source; with ``write`` also (re)write ``domains/<stem>.json``."""
    out = {}
    for src in sorted(SOURCE_DIR.glob("*.txt")):
        obj = compile_source(src.read_text(encoding="utf-8"), src.stem)
        out[src.stem] = obj
        if write:
            (BUILTIN_DIR / f"{src.stem}.json").write_text(json.dumps(obj, indent=1, ensure_ascii=True) + "\n",
                                                         encoding="utf-8")
    return out


if __name__ == "__main__":
    from .domain import import_kumo_domain

    for stem, obj in build_all().items():
        domain, issues = import_kumo_domain(obj)
        print(f"{stem}: {len(domain.truths)} truths, {len(domain.actions)} actions, {len(issues)} issues")
        for i in issues:
            print("   ", i)
