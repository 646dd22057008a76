"""One documented Gymnasium class per environment id (docs/architecture.md §9: "the class docstring is the manual").

``gym.make("kumo_gym/Tents-v0").unwrapped`` is a ``TentsEnv`` (``TentsInteractiveEnv`` with
``mode="interactive"``): a thin subclass of the mode's generic environment whose docstring is the
puzzle's manual, in the sections of Gymnasium's toy-text environments. The manual is assembled
from what the code already declares, so it cannot drift from it: the Task's docstring (the
description and the rules in the puzzle's words), its rule codes, its partial-credit formula, its
parameter dataclass and presets, and the mode's episode mechanics. ``help(env.unwrapped)`` and
``kumo-gym show --manual`` print it.

The classes are made on first use and cached; they live in this module's namespace, so they
pickle by name like any other class.
"""
from __future__ import annotations

import inspect
import re
import sys
from functools import cache

from ..core.capabilities import ImageRendering
from ..core.errors import check_choice
from ..core.registry import EnvEntry, entries, entry, get_task, import_object

GENERIC = {"answer": "kumo_gym.envs.answer:AnswerEnv", "interactive": "kumo_gym.envs.interactive:InteractiveEnv"}
_SECTION = re.compile(r"^##\s+(.+?)\s*$", re.MULTILINE)


def class_name(e: EnvEntry, mode: str) -> str:
    return f"{e.name}Env" if mode == e.modes[0] else f"{e.name}{mode.capitalize()}Env"


def make_env(env_id: str, mode: str | None = None, **kwargs):
    """Build the environment ``env_id`` in ``mode`` (the entry's first mode by default).

    This is the entry point every ``kumo_gym/*`` id is registered with.
    """
    e = entry(env_id)
    mode = mode or e.modes[0]
    check_choice("mode", mode, e.modes)
    return env_class(e.id, mode)(get_task(e.id), e.id, **kwargs)


@cache
def env_class(env_id: str, mode: str) -> type:
    """The documented class of ``env_id`` in ``mode`` (created once)."""
    e = entry(env_id)
    check_choice("mode", mode, e.modes)
    base = import_object(e.env_classes.get(mode) or GENERIC[mode])
    name = class_name(e, mode)
    cls = type(name, (base,), {"__doc__": manual(e, mode, base), "__module__": __name__, "__qualname__": name})
    setattr(sys.modules[__name__], name, cls)
    return cls


def __getattr__(name: str):
    """``kumo_gym.envs.classes.TentsEnv`` (for pickling and imports by name)."""
    for e in entries():
        for mode in e.modes:
            if class_name(e, mode) == name:
                return env_class(e.id, mode)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ---- the manual -------------------------------------------------------------------------------
def _sections(doc: str | None) -> tuple[str, dict[str, str]]:
    """A docstring split into its lead text and its ``## Heading`` sections."""
    doc = inspect.cleandoc(doc or "")
    parts = _SECTION.split(doc)
    lead = parts[0].strip()
    return lead, {parts[i].strip(): parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}


def _table(header: tuple[str, ...], rows: list[tuple]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _arguments(task, mode: str, base_sections: dict[str, str]) -> str:
    rows = []
    if task.difficulties:
        rows.append(("difficulty", "one of " + ", ".join(map(repr, task.difficulties)) +
                     f", default {task.default_difficulty!r}", ("a named preset (see Presets); explicit "
                     "parameters override its values")))
    if task.Params is not None:
        rows += task.Params.help_rows()
    else:
        prompt_only = set(task.prompt_options)
        rows += [(p, "prompt only" if p in prompt_only else "", "") for p in task.param_names]
    rows += [("split", "'train', 'validation' or 'test', default 'train'",
              "disjoint seed key-spaces; evaluation-only data is refused for 'train'"),
             ("reward", "'binary' (default) or 'partial'", "see Rewards"),
             ("render_mode", "None, 'ansi'" + (" or 'rgb_array'" if isinstance(task, ImageRendering) else ""), ""),
             ("prompt_template", "None or a str.format template",
              "plain fields only: {prompt} and the parameter names")]
    if mode == "interactive":
        rows += [("max_steps", "int >= 1 or None", "moves before truncation (default: the family's budget)"),
                 ("max_invalid", "int >= 1, default 3", "consecutive unreadable or illegal moves that truncate")]
    text = _table(("argument", "accepted values", "meaning"), rows)
    extra = base_sections.get("Arguments")
    return text + (f"\n\nMode-specific arguments: {extra}" if extra else "")


def manual(e: EnvEntry, mode: str, base: type) -> str:
    """The manual of ``e`` in ``mode`` (see the module docstring)."""
    task = get_task(e.id)
    t_lead, t_sec = _sections(type(task).__doc__)
    _b_lead, b_sec = _sections(base.__doc__)
    out = [f"{e.summary}.", "", f"``gym.make({e.id!r}" + ("" if mode == e.modes[0] else f", mode={mode!r}") +
           f")`` -- family ``{e.family}``, modes {', '.join(e.modes)}" + (f"; after {e.paper}" if e.paper else "") + ".",
           ""]
    if t_lead:
        out += [t_lead, ""]
    # the task's own sections (description, answer format, rule codes ...) come first
    for head, body in t_sec.items():
        if head in ("Version history", "Version History"):
            continue
        out += [f"## {head}", body, ""]
    if task.rule_codes and not any("rule" in h.lower() for h in t_sec):
        out += ["## Rules", _table(("code", "rule"), sorted(task.rule_codes.items())), ""]
    for head in ("Description", "Observation space", "Action space", "Episode end", "Info"):
        if head in b_sec and head not in t_sec:
            out += [f"## {head} ({mode} mode)", b_sec[head], ""]
    out += ["## Rewards", (f"``reward='binary'`` (default): 1 exactly when the rules are met, else 0. "
            f"``reward='partial'``: {task.partial_credit}. Cheap strategies (empty, constant, "
            "checkerboard, back-and-forth moves, listing every option ...) earn at most 0.1."), ""]
    if b_sec.get("Rewards") and base.__module__ not in (GENERIC["answer"].split(":")[0],
                                                        GENERIC["interactive"].split(":")[0]):
        out += [b_sec["Rewards"], ""]
    out += ["## Arguments", _arguments(task, mode, b_sec), ""]
    if task.difficulties:
        out += ["## Presets", _table(("preset", "parameters"),
                                     [(k, ", ".join(f"{a}={b!r}" for a, b in v.items()) or "(defaults)")
                                      for k, v in task.difficulties.items()]), ""]
    history = t_sec.get("Version history") or t_sec.get("Version History") or "v0: initial version."
    out += ["## Version history", history]
    return "\n".join(out).rstrip() + "\n"
