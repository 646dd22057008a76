"""The command line under bad input and interruptions: clear errors
instead of tracebacks, nothing silently ignored, and `generate` writes politely and resumes."""
from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import pytest

from kumo_gym.cli import main

REPO = Path(__file__).resolve().parents[2]

#: a `kumo-gym` process with the test-only Reach environment, whose generation is slowed down so
#: that a run can be interrupted in the middle; Ctrl-C gets Python's own handler back, since a
#: process inherits an ignored SIGINT from a parent that ignores it (a test runner's worker may)
BOOT = ("import signal, sys, time; signal.signal(signal.SIGINT, signal.default_int_handler); "
        "from tests.training.toyenv import install; install(); "
        "from kumo_gym.core.registry import get_task; task = get_task('kumo_gym/Reach-v0'); "
        "slow = task.generate; task.generate = lambda rng, **kw: (time.sleep(0.01), slow(rng, **kw))[1]; "
        "from kumo_gym.cli import main; sys.exit(main(sys.argv[1:]))")


def kumo_gym_process(*args: str, **kw) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.Popen([sys.executable, "-c", BOOT, *args], cwd=REPO, env=env, **kw)


def _lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def _error(capsys, argv: list[str]) -> tuple[int, str]:
    """Exit code and stderr of ``kumo-gym argv`` run in this process (argparse errors exit)."""
    try:
        rc = main(argv)
    except SystemExit as e:
        rc = e.code if isinstance(e.code, int) else 1
        if not isinstance(e.code, int):
            print(e.code, file=sys.stderr)
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return rc, err


# ---- counts, seeds and paths: clear errors at once ----------------------------------------
@pytest.mark.parametrize("argv,message", [
    (["generate", "Hanoi", "--size", "0", "--out", "x.jsonl"], "argument --size: 0 is not a positive integer"),
    (["generate", "Hanoi", "--size", "-5", "--out", "x.jsonl"], "argument --size: -5 is not a positive integer"),
    (["generate", "Hanoi", "--n", "0", "--out", "x.jsonl"], "argument --n: 0 is not a positive integer"),
    (["generate", "Hanoi", "--size", "2", "--seed", "-1", "--out", "x.jsonl"], "argument --seed: -1 is not a valid seed"),
    (["show", "Hanoi", "--seed", "-1"], "argument --seed: -1 is not a valid seed"),
    (["play", "Hanoi", "--seed", "-3"], "argument --seed: -3 is not a valid seed"),
    (["eval", "Hanoi", "--agent", "oracle", "--seed", "-1"], "argument --seed: -1 is not a valid seed"),
    (["eval", "Hanoi", "--agent", "oracle", "--size", "-5"], "argument --size: -5 is not a positive integer"),
    (["eval", "Hanoi", "--agent", "oracle", "--samples", "0"], "argument --samples: 0 is not a positive integer"),
    (["eval", "Hanoi", "--base-url", "http://127.0.0.1:1/v1", "--model", "m", "--timeout", "0"],
     "argument --timeout: 0.0 is not a positive number"),
    (["train", "grpo", "--env", "Hanoi", "--size", "0"], "argument --size: 0 is not a positive integer"),
    (["train", "grpo", "--env", "Hanoi", "--seed", "-1"], "seed -1 is not a valid seed (an integer >= 0)"),
    (["train", "sft", "--env", "Hanoi", "--batch-size", "0"], "argument --batch-size: 0 is not a positive integer"),
    (["train", "sft", "--env", "Hanoi", "--heldout", "/no/such.jsonl"], "--heldout /no/such.jsonl: no such file"),
    (["eval", "Hanoi", "--model", "/no/such/model", "--size", "1"], "model '/no/such/model' does not exist"),
])
def test_bad_values_are_named_at_once(capsys, tmp_path, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    rc, err = _error(capsys, argv)
    assert rc != 0 and message in err
    assert not list(tmp_path.iterdir())  # nothing was written


def test_heldout_file_without_ids_is_refused(capsys, tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text('{"no_id": 1}\n')
    rc, err = _error(capsys, ["train", "sft", "--env", "Hanoi", "--heldout", str(empty), "--out", str(tmp_path / "o")])
    assert rc != 0 and "holds no records with an instance_id" in err
    assert not (tmp_path / "o").exists()


def test_report_only_on_an_empty_directory(capsys, tmp_path):
    rc, err = _error(capsys, ["eval", "--report-only", "--out", str(tmp_path)])
    assert rc != 0 and f"no traces*.jsonl in {tmp_path}" in err


def test_unwritable_output_is_an_error_not_a_traceback(capsys, reach):
    rc, err = _error(capsys, ["eval", "Reach", "--agent", "oracle", "--size", "1", "--out", "/proc/kumo-x", "--quiet"])
    assert rc == 2 and "/proc/kumo-x" in err
    rc, err = _error(capsys, ["generate", "Reach", "--size", "1", "--out", "/proc/kumo-x/y.jsonl", "--quiet"])
    assert rc == 2 and "/proc/kumo-x" in err


def test_a_closed_pipe_ends_quietly():
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.Popen([sys.executable, "-m", "kumo_gym.cli", "list"], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # `| head` that has already gone
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141
    assert "Traceback" not in err and "BrokenPipeError" not in err


def test_many_item_functions_refuse_bad_counts_and_seeds(reach):
    import kumo_gym
    from kumo_gym.core.errors import ConfigError
    from kumo_gym.training.agents import OracleAgent
    from kumo_gym.training.evaluate import Evaluator, make_specs

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # n= is the old spelling of size=
        for bad in ({"size": 0}, {"size": -1}, {"n": -1}):
            with pytest.raises(ConfigError, match="size -?[01] is outside"):
                kumo_gym.make_dataset(reach, **bad)
    with pytest.raises(ConfigError, match="seed -1 is not a valid seed"):
        kumo_gym.make_dataset(reach, 2, seed=-1)
    with pytest.raises(ConfigError, match="samples 0 is outside"):
        Evaluator(OracleAgent(), "unused").run(make_specs([reach]), 2, samples=0)


# ---- generate: what is at --out, and interruptions -----------------------------------------
def _generate(out, *extra, size: str = "6") -> int:
    return main(["generate", "Reach", "--size", size, "--out", str(out), "--quiet", *extra])


def test_generate_respects_the_umask_and_an_existing_mode(reach, tmp_path):
    old = os.umask(0o022)
    try:
        assert _generate(tmp_path / "new.jsonl") == 0
        assert stat.S_IMODE(os.stat(tmp_path / "new.jsonl").st_mode) == 0o644
        kept = tmp_path / "kept.jsonl"
        kept.write_text("old\n")
        os.chmod(kept, 0o640)
        assert _generate(kept) == 0
        assert stat.S_IMODE(os.stat(kept).st_mode) == 0o640 and _lines(kept) == 6
    finally:
        os.umask(old)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.jsonl", "new.jsonl"]  # no temporaries


def test_generate_writes_through_a_symlink(reach, tmp_path):
    real = tmp_path / "data" / "real.jsonl"
    real.parent.mkdir()
    real.write_text("")
    link = tmp_path / "link.jsonl"
    link.symlink_to(real)
    assert _generate(link) == 0
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert _lines(real) == 6 and not list(real.parent.glob("*.partial"))


def test_generate_writes_into_a_fifo(reach, tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(Path(fifo).read_bytes()), daemon=True)
    reader.start()
    assert _generate(fifo) == 0
    reader.join(timeout=60)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)  # still a FIFO, not replaced by a file
    rows = [json.loads(x) for x in got[0].splitlines()]
    assert len(rows) == 6 and rows[0]["env_id"] == reach


def test_generate_refuses_a_directory(capsys, reach, tmp_path):
    rc, err = _error(capsys, ["generate", "Reach", "--size", "2", "--out", str(tmp_path), "--quiet"])
    assert rc == 2 and "is a directory" in err


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGINT])
def test_an_interrupted_generate_keeps_its_records_and_resumes(reach, tmp_path, capsys, how):
    out = tmp_path / "d.jsonl"
    partial = tmp_path / "d.jsonl.partial"
    args = ["generate", "Reach", "--size", "120", "--difficulty", "hard", "--seed", "3", "--out", str(out), "--quiet"]
    proc = kumo_gym_process(*args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None and _lines(partial) < 10:
        time.sleep(0.01)
    proc.send_signal(how)
    _, err = proc.communicate(timeout=60)
    if how == signal.SIGKILL:
        assert proc.returncode == -signal.SIGKILL
    else:
        assert proc.returncode == 130 and "run the same command again" in err and "Traceback" not in err
    kept = _lines(partial)
    assert 10 <= kept < 120 and not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.jsonl.partial"]  # no hidden temporaries
    capsys.readouterr()
    assert main(args) == 0  # the same command again (in this process: the resume needs no slow-down)
    assert f"resuming: {kept} of 120" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.jsonl"]
    # the same records, in the same order, as one uninterrupted run
    whole = tmp_path / "whole" / "d.jsonl"
    assert main([*args[:-2], str(whole), "--quiet"]) == 0
    assert out.read_bytes() == whole.read_bytes()


def test_a_partial_file_of_another_command_is_refused(capsys, reach, tmp_path):
    out = tmp_path / "d.jsonl"
    assert _generate(out, "--seed", "1", size="4") == 0
    os.replace(out, tmp_path / "d.jsonl.partial")
    with open(tmp_path / "d.jsonl.partial", "ab") as f:
        f.write(b'{"torn": ')  # a torn last line is dropped, not an error
    assert _generate(out, "--seed", "1", size="6") == 0  # same command, larger size: continues
    assert _lines(out) == 6 and not (tmp_path / "d.jsonl.partial").exists()
    os.replace(out, tmp_path / "d.jsonl.partial")
    rc, err = _error(capsys, ["generate", "Reach", "--size", "8", "--seed", "2", "--out", str(out), "--quiet"])
    assert rc == 2 and "holds 6 records of another command" in err
    assert _lines(tmp_path / "d.jsonl.partial") == 6  # left alone
