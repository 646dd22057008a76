"""Tatham game-ID interop (docs/specs/grid_puzzles.md §3-§4): the shared grammar and the game-ID machinery.

* :func:`parse_game_id` -- a Tatham game ID ``params:desc`` into our Instance; :func:`to_game_id`
  the inverse. ``GridTask.load`` calls this, so ``env.reset(options={"instance": "4x4:adag,..."})``
  replays a Tatham puzzle.
* :func:`codec` -- the codec module of a puzzle, ``kumo_gym/envs/grid/<family>/codec.py``. A
  codec module defines ``PARAMS`` (a :class:`~.grammar.ParamFormat`: the parameter string),
  ``decode(params, desc) -> state`` and ``encode(state) -> desc`` (the description after the
  colon, exact inverses on generator-produced IDs), and where Tatham's save files carry a
  reference solution ``aux_solution(state, aux) -> answer grid``.
* :mod:`.grammar` -- the shared sub-grammars of docs/specs/grid_puzzles.md §4 (RUN, NUMGRID, CHARGRID, SKIPS, B62, MASK
  and the parameter-string format), re-exported here.
* Save files (``KEY:LEN:VALUE`` lines) and AUXINFO de-obfuscation (docs/specs/grid_puzzles.md §4).
* The optional generation backend: ``sgt-<name> --generate N PARAMS[#seed]`` when the Debian
  package ``sgt-puzzles`` is installed (binaries in ``/usr/games``). ``params#seed`` is
  deterministic for a given build, so ``backend="tatham"`` keeps seeding reproducible.
"""
from __future__ import annotations

import hashlib
import importlib
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from types import ModuleType

from ....core.errors import ConfigError, check_ascii
from ....core.instance import Instance
from .grammar import (  # noqa: F401
    B62,
    Field,
    NotExportable,
    ParamFormat,
    Unsupported,
    b62_decode,
    b62_encode,
    decode_chargrid,
    decode_numgrid,
    decode_skips,
    encode_chargrid,
    encode_numgrid,
    encode_skips,
    mask_decode,
    mask_encode,
    read_size,
    run_letters,
)

SGT_DIRS = ("/usr/games", "/usr/local/games", "/usr/bin")


# ---- game IDs ------------------------------------------------------------------------------
def split_game_id(game_id: str) -> tuple[str, str]:
    """``params:desc`` into its two parts; ``params#seed`` and bare params are refused (docs/specs/grid_puzzles.md
    §4)."""
    s = game_id.strip()
    if len(s) > 200_000:
        raise ConfigError("game ID is too long")
    check_ascii("game ID", s)
    if ":" not in s:
        if "#" in s:
            raise ConfigError(f"{s[:60]!r} is a random-seed ID; only Tatham's generator can expand it "
                              "(sgt-<name> --generate 1 'params#seed'), pass the params:desc it prints")
        raise ConfigError(f"{s[:60]!r} is not a game ID of the form params:desc")
    params, desc = s.split(":", 1)
    return params, desc


def grid_task(family: str):
    """The Task of a grid puzzle by family name (``tents``), through the catalogue."""
    from ....core.registry import entries, get_task

    ENTRIES = [e for e in entries() if e.family == "grid"]
    for e in ENTRIES:
        if e.name.lower() == family.lower():
            return get_task(e.id)
    raise ConfigError(f"grid puzzle {family!r} is not one of: {', '.join(e.name.lower() for e in ENTRIES)}")


def codec(family: str) -> ModuleType:
    """The codec module of a grid puzzle: ``codec`` in the puzzle's package
    (``kumo_gym.envs.grid.<family>.codec``)."""
    mod = _CODECS.get(family)  # asked several times per generated instance
    if mod is not None:
        return mod
    name = family.lower()
    if not name.isidentifier() or name in ("tatham",):
        raise ConfigError(f"no Tatham codec for {family!r}")
    package = __name__.rsplit(".", 1)[0]
    try:
        mod = importlib.import_module(f"{package}.{name}.codec")
    except ModuleNotFoundError:
        raise ConfigError(f"no Tatham codec for {family!r}: expected kumo_gym/envs/grid/{name}/codec.py") from None
    _CODECS[family] = mod
    return mod


#: codec modules found so far, by family name as asked
_CODECS: dict[str, ModuleType] = {}


def parse_game_id(game_id: str, task, tatham_params: str | None = None, params: dict | None = None,
                  source: str = "tatham", solve: bool = True) -> Instance:
    """An Instance from a Tatham game ID (docs/specs/grid_puzzles.md §4). ``task`` is a GridTask or a family name.

    The ID's params carry only the rule-changing fields; pass ``tatham_params`` (a save file's
    CPARAMS) to record the full string. The solution is found by SAT and stored (docs/specs/grid_puzzles.md §1
    "Uniqueness": it is used for claims, partial credit and metrics, never to decide whether an answer is solved).
    """
    if isinstance(task, str):
        task = grid_task(task)
    if not isinstance(game_id, str):
        raise ConfigError(f"a game ID must be a string, not {type(game_id).__name__}")
    pstr, desc = split_game_id(game_id)
    cod = codec(task.family)
    gen = task.resolve_params(**cod.PARAMS.decode(pstr))
    state = cod.decode(gen, desc)
    full = task.resolve_params(**cod.PARAMS.decode(tatham_params)) if tatham_params else gen
    p = dict(params or {})
    if tatham_params and "difficulty" not in p:
        # a full parameter string that is one of our presets names its difficulty (docs/specs/grid_puzzles.md §4)
        p["difficulty"] = next((d for d in task.difficulties if task.tatham_preset(d) == tatham_params), None)
    p.setdefault("difficulty", None)
    for k, v in task.generation_params(full).items():
        p.setdefault(k, v)
    gid = f"{pstr}:{desc}"
    probe = task.make_instance(p, state, None, source=source, game_id=gid, tatham_params=tatham_params)
    if not solve:
        return probe
    found = task.solutions(probe, 1)
    if not found:
        raise ConfigError(f"the {task.title} game ID {game_id[:60]!r} has no solution under our rules")
    return task.make_instance(p, state, found[0], source=source, game_id=gid, tatham_params=tatham_params)


def to_game_id(instance: Instance, task=None) -> str:
    """The Tatham game ID of an instance: ``params(short form):desc`` (docs/specs/grid_puzzles.md §4)."""
    task = task or grid_task(instance.family)
    pstr = instance.data["game_id"].split(":", 1)[0] if instance.data.get("game_id") else \
        task.encode_params(task.generation_params(instance.params), full=False)
    return f"{pstr}:{codec(task.family).encode(instance.data['state'])}"


def decode_params(family: str, s: str) -> dict:
    """A Tatham parameter string (full or short form) as our generation parameters."""
    return codec(family).PARAMS.decode(s)


def encode_params(family: str, params: dict, full: bool = True) -> str:
    """Our generation parameters as Tatham's canonical parameter string (full or ID form)."""
    task = grid_task(family)
    return task.encode_params(task.resolve_params(**params), full=full)


# ---- save files and AUXINFO ----------------------------------------------------------------
def read_save(text: str) -> dict[str, str]:
    """A Tatham save file (``KEY:LEN:VALUE`` lines, key padded to 8) as a dict of the first values."""
    out: dict[str, str] = {}
    i = 0
    while i < len(text):
        colon = text.find(":", i)
        if colon < 0:
            break
        key = text[i:colon].strip()
        colon2 = text.find(":", colon + 1)
        length = int(text[colon + 1:colon2])
        value = text[colon2 + 1:colon2 + 1 + length]
        out.setdefault(key, value)
        i = colon2 + 1 + length
        while i < len(text) and text[i] in "\r\n":
            i += 1
    return out


def _mask(seed: bytes, n: int) -> bytes:
    out = b""
    counter = 0
    while len(out) < n:
        out += hashlib.sha1(seed + str(counter).encode()).digest()
        counter += 1
    return out[:n]


def decode_auxinfo(hexstr: str) -> str:
    """De-obfuscate AUXINFO (docs/specs/grid_puzzles.md §4): split in halves A|B, B ^= mask(A), then A ^= mask(B)."""
    b = bytearray(bytes.fromhex(hexstr))
    half = len(b) // 2
    a, bb = b[:half], b[half:]
    bb = bytearray(x ^ y for x, y in zip(bb, _mask(bytes(a), len(bb))))
    a = bytearray(x ^ y for x, y in zip(a, _mask(bytes(bb), len(a))))
    return (bytes(a) + bytes(bb)).decode("ascii")


# ---- Tatham's generator --------------------------------------------------------------------
def sgt_binary(name: str) -> str | None:
    """Path of ``sgt-<name>`` (PATH, then /usr/games), or None when sgt-puzzles is absent."""
    found = shutil.which(f"sgt-{name}")
    if found:
        return found
    for d in SGT_DIRS:
        p = Path(d) / f"sgt-{name}"
        if p.is_file() and os.access(p, os.X_OK):
            return str(p)
    return None


def sgt_version(name: str) -> str | None:
    exe = sgt_binary(name)
    if exe is None:
        return None
    res = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30, check=False)
    m = re.search(r"Version (\S+)", res.stdout)
    return m.group(1) if m else res.stdout.strip().splitlines()[-1]


def _need(name: str) -> str:
    exe = sgt_binary(name)
    if exe is None:
        raise ConfigError(f"sgt-{name} was not found (install the sgt-puzzles package; it puts the "
                          "binaries in /usr/games)")
    return exe


def sgt_generate(name: str, params: str, n: int = 1, seed: int | str | None = None, timeout: float = 600) -> list[str]:
    """Game IDs from ``sgt-<name> --generate n params[#seed]`` (fresh random seeds when seed is None)."""
    exe = _need(name)
    arg = params if seed is None else f"{params}#{seed}"
    res = subprocess.run([exe, "--generate", str(int(n)), arg], capture_output=True, text=True, timeout=timeout,
                         check=False)
    if res.returncode != 0:
        raise ConfigError(f"sgt-{name} --generate failed for {arg!r}: {res.stderr.strip()[:200]}")
    return [line.strip() for line in res.stdout.splitlines() if line.strip()]


def sgt_generate_saves(name: str, params: str, n: int = 1, seed: int | str | None = None,
                       timeout: float = 600) -> list[dict[str, str]]:
    """Save files of ``--generate n params --save PREFIX``: dicts with GAME, CPARAMS, DESC, AUXINFO..."""
    exe = _need(name)
    arg = params if seed is None else f"{params}#{seed}"
    with tempfile.TemporaryDirectory() as tmp:
        prefix = os.path.join(tmp, "g")
        res = subprocess.run([exe, "--generate", str(int(n)), arg, "--save", prefix], capture_output=True,
                             text=True, timeout=timeout, check=False)
        if res.returncode != 0:
            raise ConfigError(f"sgt-{name} --generate failed for {arg!r}: {res.stderr.strip()[:200]}")
        return [read_save(Path(f"{prefix}{i}").read_text()) for i in range(int(n))]


def generate_with_tatham(task, params: dict, seed: int) -> Instance:
    """The ``backend="tatham"`` generator: Tatham's own puzzle for ``params#seed``, imported."""
    cp = task.encode_params(params, full=True)
    (game_id,) = sgt_generate(task.family, cp, 1, seed)
    version = sgt_version(task.family) or "unknown"
    return parse_game_id(game_id, task, tatham_params=cp, params=params, source=f"tatham-{version}")


def sgt_accepts(name: str, game_id: str, timeout: float = 60) -> tuple[bool, str]:
    """Whether Tatham's own parser accepts ``game_id`` (``--generate 1 ID --save`` validates it)."""
    exe = _need(name)
    with tempfile.TemporaryDirectory() as tmp:
        res = subprocess.run([exe, "--generate", "1", game_id, "--save", os.path.join(tmp, "v")],
                             capture_output=True, text=True, timeout=timeout, check=False)
    return res.returncode == 0, res.stderr.strip()[-300:]
