"""The README is a front door of at most 215 lines besides its catalogue (one generated line per
environment): its catalogue is the registry's, as
``kumo-gym list --markdown`` prints it, its Quickstart, Command line and Training snippets run as
written, and its performance figures (like the tables of docs/performance.md) are written from the
benchmark results by ``benchmarks/readme_tables.py``."""
from __future__ import annotations

import json
import os
import re
import shlex

import pytest

from kumo_gym.core.registry import catalogue_rows
from kumo_gym.core.tables import format_table

from .conftest import REPO


def test_readme_catalogue_is_generated_from_the_registry():
    text = (REPO / "README.md").read_text()
    m = re.search(r"<!-- catalogue:start -->\n(.*?)<!-- catalogue:end -->", text, re.DOTALL)
    assert m, "README.md lacks the catalogue markers"
    # the training tests' test-only Reach env may be registered in this process (pytest-xdist order)
    rows = [r for r in catalogue_rows() if not r["summary"].startswith("test-only")]
    expected = format_table(rows, ["id", "family", "modes", "difficulties", "summary"], markdown=True)
    assert m.group(1).strip() == expected.strip(), "run: make readme"


def test_readme_opens_with_the_two_commands():
    text = (REPO / "README.md").read_text()
    block = re.search(r"```bash\n(.*?)```", text, re.DOTALL).group(1)
    assert [line.split("#")[0].strip() for line in block.strip().splitlines()] == ["make demo", "make test"]


# ---- the Quickstart, Command line and Training sections run as written --------------------------
def _section(text: str, title: str) -> str:
    start = text.index(f"## {title}")
    end = text.find("\n## ", start + 4)
    return text[start:end if end >= 0 else None]


def readme_blocks(lang: str, *sections: str) -> list[tuple[str, str]]:
    """``(where, code)`` of the README's ```lang blocks in the named sections."""
    text = (REPO / "README.md").read_text()
    out = []
    for title in sections:
        for i, m in enumerate(re.finditer(rf"```{lang}\n(.*?)```", _section(text, title), re.DOTALL)):
            out.append((f"{title} #{i + 1}", m.group(1)))
    return out


def readme_commands(*sections: str) -> list[str]:
    """The ``kumo-gym ...`` lines of the README's bash blocks in the named sections (comments cut)."""
    cmds = []
    for _, block in readme_blocks("bash", *sections):
        for line in block.splitlines():
            line = line.split("  #")[0].strip()
            if line.startswith("kumo-gym "):
                cmds.append(line)
    return cmds


PYTHON = readme_blocks("python", "Quickstart")
#: commands that cannot run here as written, and how the test covers them instead
NOT_HERE = {
    "kumo-gym demo": "the demo has its own test (tests/training/test_demo_baselines.py)",
    "examples/grpo_qwen.yaml": "downloads a 0.5B model: test_readme_grpo_config_file_resolves_and_runs",
    "runs/grpo-qwen0.5b/model": "the model of the run above",
}


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    """A scratch working directory that has the repository's examples/ (the snippets write runs/ there)."""
    (tmp_path / "examples").symlink_to(REPO / "examples")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_readme_has_snippets_to_run():
    assert len(PYTHON) >= 4
    assert any("make_dataset" in code and "env_kwargs" in code for _, code in PYTHON)
    assert any("serve_openai" in code for _, code in PYTHON)
    cmds = readme_commands("Command line", "Training and evaluation")
    assert any(c.startswith("kumo-gym train grpo --curriculum") for c in cmds)
    assert any("--config examples/grpo_qwen.yaml" in c for c in cmds)


@pytest.mark.slow
@pytest.mark.parametrize("where,code", PYTHON, ids=[w for w, _ in PYTHON])
def test_readme_python_snippet_runs(where, code, in_tmp, capsys):
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    namespace = {"__name__": "__readme__"}
    exec(compile(code, f"README.md ({where})", "exec"), namespace)  # noqa: S102 - our own documentation, not model output
    out = capsys.readouterr().out
    if "kumo_gym.score(" in code:
        assert "[1.0]" in out and "solved" in out
    if "gym.make(\"kumo_gym/Hanoi-v0\", n=4)" in code:
        assert out.count(" 1.0 solved ") == 3


@pytest.mark.slow
def test_readme_commands_run(in_tmp, monkeypatch, capsys):
    from kumo_gym.cli import main

    monkeypatch.setattr("builtins.input", lambda prompt="": "quit")  # `play` reads moves from the terminal
    ran = 0
    for cmd in readme_commands("Command line", "Training and evaluation"):
        if any(key in cmd for key in NOT_HERE):
            continue
        argv = shlex.split(cmd)[1:]
        rc = main(argv)
        assert rc == 0 or (argv[0] == "play" and rc == 1), (cmd, rc)
        ran += 1
    assert ran >= 9
    assert (in_tmp / "runs" / "sft-tiny" / "model" / "config.json").exists()
    assert (in_tmp / "runs" / "eval" / "sft-tiny" / "results.md").exists()
    log = json.loads((in_tmp / "runs" / "cur-tiny" / "log_history.json").read_text())
    assert any("curriculum/Hanoi/level" in h for h in log)


@pytest.mark.slow
def test_readme_grpo_config_file_resolves_and_runs(in_tmp):
    """examples/grpo_qwen.yaml builds its GRPOConfig as written, and runs end to end when only the
    model and the sizes are swapped for the tiny ones (the command line overrides the file)."""
    from kumo_gym.cli import build_parser
    from kumo_gym.cli.train import train_setup
    from kumo_gym.training.config import make_config
    from kumo_gym.training.grpo import grpo_trainer_args
    from kumo_gym.training.run import run_training

    def setup(extra):
        args, rest = build_parser().parse_known_args(["train", "grpo", "--config", "examples/grpo_qwen.yaml", *extra])
        return train_setup(args, rest)

    s = setup([])
    assert s.kumo["model"] == "Qwen/Qwen2.5-0.5B-Instruct" and s.kumo["output_dir"] == "runs/grpo-qwen0.5b"
    config = make_config("grpo", grpo_trainer_args(dict(s.trainer), num_generations=4,
                                                   prompts_per_step=s.kumo["prompts_per_step"]))
    assert config.gradient_accumulation_steps == 4 and config.num_generations == 8
    assert config.per_device_train_batch_size == 32
    lora = setup(["--use_peft", "--lora_r", "16"])
    assert lora.model == {"use_peft": True, "lora_r": 16}
    tiny = setup(["--model", "tiny", "--max_steps", "1", "--size", "8", "--max_completion_length", "16",
                  "--num_generations", "2", "--prompts-per-step", "1", "--gradient_accumulation_steps", "1",
                  "--callback-every", "0", "--report_to", "none", "--out", "runs/qwen-config-on-tiny"])
    trainer = run_training(tiny)
    assert trainer.state.global_step == 1
    assert (in_tmp / "runs" / "qwen-config-on-tiny" / "model" / "config.json").exists()


# ---- a front door, and performance figures generated from the benchmark results -----------------
def test_readme_is_a_front_door():
    """At most 215 lines besides the catalogue's one line per environment: the tables live in
    docs/performance.md, a few headline figures stay."""
    text = (REPO / "README.md").read_text()
    start, end = text.index("<!-- catalogue:start -->"), text.index("<!-- catalogue:end -->")
    prose = text[:start] + text[end:]
    assert len(prose.splitlines()) <= 215
    assert "<!-- perf:headline:start -->" in text and "(docs/performance.md)" in text


def _readme_tables():
    import importlib.util

    spec = importlib.util.spec_from_file_location("readme_tables", REPO / "benchmarks" / "readme_tables.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_performance_tables_match_the_benchmark_results():
    """Every ``perf:`` table of the files it rewrites (README.md, docs/performance.md, docs/grid.md ...) is what
    ``benchmarks/readme_tables.py`` writes from ``benchmarks/results/*.json``."""
    tables = _readme_tables()
    assert tables.main(["--check"]) == 0, "run: python benchmarks/readme_tables.py"
    for name in tables.FILES:
        text = (REPO / name).read_text()
        assert re.search(r"<!-- perf:[\w-]+:start -->", text), f"{name} has no generated table"


def test_readme_tables_check_finds_a_stale_table(tmp_path, monkeypatch, capsys):
    tables = _readme_tables()
    for name in tables.FILES:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text((REPO / name).read_text())
    fresh = (tmp_path / "docs" / "performance.md").read_text()
    stale = re.sub(r"(<!-- perf:coldstart:start -->\n).*?(<!-- perf:coldstart:end -->)", r"\1| old |\n\2", fresh,
                   flags=re.DOTALL)
    assert stale != fresh
    (tmp_path / "docs" / "performance.md").write_text(stale)
    monkeypatch.setattr(tables, "ROOT", tmp_path)
    assert tables.main(["--check"]) == 1 and "docs/performance.md" in capsys.readouterr().out
    assert (tmp_path / "docs" / "performance.md").read_text() == stale  # --check writes nothing
    assert tables.main([]) == 0 and tables.main(["--check"]) == 0
    assert (tmp_path / "docs" / "performance.md").read_text() == (REPO / "docs" / "performance.md").read_text()
