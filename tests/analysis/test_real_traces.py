"""The analysis on real model output: SmolLM2-135M-Instruct's replies to trivial grid puzzles.

``fixtures/real_smollm2.jsonl`` holds seven episodes exactly as ``benchmarks/analysis_real.py``
recorded them through the evaluation harness (greedy, 256 new tokens): a Python function
instead of an answer (Tents, Light Up), the puzzle state echoed as JSON then a repetition loop
(Sudoku, Singles), the answer format repeated until the token limit (Pattern), an echoed
one-row grid that scores as a wrong answer (Rectangles), and a grid inside a code block that
scores as a wrong answer (Range). None is a model's careful reasoning, which is the point: this
is what a small model writes, and the pipeline, the report and the browser must take it.
"""
import json
from pathlib import Path

import pytest

FIXTURE = Path(__file__).parent / "fixtures" / "real_smollm2.jsonl"


@pytest.fixture(scope="module")
def records():
    return [json.loads(line) for line in FIXTURE.read_text().splitlines() if line.strip()]


@pytest.fixture(scope="module")
def analysed(records):
    from kumo_gym.analysis.report import analyse_records

    docs, skipped = analyse_records(records, force=True)
    return docs, skipped


def by_env(docs, env_id):
    return next(d for d in docs if d["env_id"] == env_id)


def test_every_real_trace_gets_a_graph(records, analysed):
    docs, skipped = analysed
    assert skipped == [] and len(docs) == len(records) == 7
    for d in docs:
        json.dumps(d)  # a document is plain JSON
        m = d["metrics"]
        assert m["eta_status"] in ("empty_graph", "unsolved", "v_le_cstar", "empty_cstar")
        assert d["solved"] is False
        assert len(d["sentences"]) >= 3


def test_code_and_echoed_json_state_no_claims(analysed):
    """Python code (``(row, col)``, ``grid[i][j] == "T"``), the puzzle state echoed as JSON and the
    format sentence repeated are not claims about cells: their graphs are empty, eta and H_str
    undefined (status empty_graph), not invented."""
    docs, _ = analysed
    for env in ("kumo_gym/Tents-v0", "kumo_gym/Lightup-v0", "kumo_gym/Solo-v0", "kumo_gym/Pattern-v0",
                "kumo_gym/Singles-v0"):
        d = by_env(docs, env)
        assert d["claims"] == [] and d["metrics"]["eta_status"] == "empty_graph", env
        assert d["metrics"]["H_str"] is None and d["metrics"].get("eta_unconditional") is None


def test_answer_grid_without_black_cells_states_nothing(analysed):
    """Range's answer is its black cells; the grid the model wrote in its code block (the clues
    and zeros) parses as a wrong answer with no black cell, so no claim."""
    docs, _ = analysed
    d = by_env(docs, "kumo_gym/Range-v0")
    assert d["claims"] == [] and d["metrics"]["eta_status"] == "empty_graph"


def test_pretty_printed_answer_grid_is_placed_where_it_opens(analysed):
    """The wrong answer grid (written one row per line, as JSON echoes are) states its claims in
    the sentence where the grid opens, not on the trace's last line (the closing brace)."""
    docs, _ = analysed
    d = by_env(docs, "kumo_gym/Rect-v0")
    at = {c["source_sents"][0] for c in d["claims"]}
    assert len(at) == 1
    sentence = d["sentences"][at.pop() - 1]
    assert sentence["text"] == '"grid": ['
    assert sentence["index"] < len(d["sentences"])
    # every claim of the answer is refuted by the instance; the graph has eta and H_str
    assert len(d["claims"]) == 2 and {c["label"] for c in d["claims"]} == {"incorrect"}
    m = d["metrics"]
    assert m["eta_status"] == "unsolved" and m["eta"] is None
    assert m["H_str"] is not None and m["eta_unconditional"] is not None


def test_rect_echo_metrics(analysed):
    """The echoed 1 x 2 grid [[0, 2]] reads as two 1 x 1 rectangles, both wrong: two isolated nodes,
    H_str = ln 2 and eta 0 (no flow converges)."""
    import math

    docs, _ = analysed
    m = by_env(docs, "kumo_gym/Rect-v0")["metrics"]
    assert m["V"] == 2 and m["E"] == 0
    assert m["H_str"] == pytest.approx(math.log(2))
    assert m["eta_unconditional"] == pytest.approx(0.0)
    assert m["claim_accuracy"] == 0.0


def test_an_at_sign_in_model_text_is_not_a_cell_token(records):
    """Models write "@" (decorators, "@1@" in a repetition loop); the reader's own cell tokens are
    ``@k@``, so a literal one used to raise KeyError and drop the episode."""
    from kumo_gym.analysis.pipeline import analyse_trace
    from kumo_gym.analysis.text import normalise

    norm = normalise("Cell @0@ is @1@ and (0, 0) is black; @7@ too.")
    assert norm.coords == [(0, 0)] and norm.text.count("@0@") == 1 and "@1@" not in norm.text
    rec = dict(next(r for r in records if r["env_id"] == "kumo_gym/Lightup-v0"))
    rec["completion"] = "@1@ @2@\n(0, 0) is a light.\n" + rec["completion"]
    doc = analyse_trace(rec, force=True)
    assert [(c["kind"], c["payload"]) for c in doc["claims"]] == [("Light", {"r": 0, "c": 0})]


@pytest.fixture(scope="module")
def real_site(records, tmp_path_factory):
    from kumo_gym.analysis.site import build_report

    run = tmp_path_factory.mktemp("real-run")
    (run / "traces.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    index = build_report([run], run / "report")  # no analysis directory: the report extracts itself
    return index


def test_report_shows_eta_and_H_str_of_unsolved_real_runs(real_site):
    """Every real run is unsolved, so no eta enters the statistics; the report still shows each
    graph's H_str and its eta (outside the statistics) per episode and per environment."""
    index = real_site.read_text()
    assert "eta_all_mean" in index and "H_str_mean" in index
    rect = next(p for p in (real_site.parent / "episodes").glob("*.html") if "kumo_gym/Rect-v0" in p.read_text())
    text = rect.read_text()
    assert "H_str = 0.693" in text and 'eta of this graph <span class="eta-any">0.000</span>' in text
    assert text.count('class="kg-node') == 2
    # the Python a model wrote keeps its indentation in the trace view
    tents = next(p for p in (real_site.parent / "episodes").glob("*.html") if "kumo_gym/Tents-v0" in p.read_text())
    assert '<span class="ind">    </span>rows = len(grid[0])' in tents.read_text()


def test_real_report_in_headless_chromium(real_site, tmp_path):
    from selenium.webdriver.common.by import By

    from .test_site import _driver, _errors

    driver = _driver(tmp_path)
    try:
        driver.get(real_site.resolve().as_uri())
        assert _errors(driver) == []
        header = [th.text for th in driver.find_elements(By.CSS_SELECTOR, "#eta thead th")]
        rows = {tr.find_elements(By.TAG_NAME, "td")[header.index("env")].text:
                [td.text for td in tr.find_elements(By.TAG_NAME, "td")]
                for tr in driver.find_elements(By.CSS_SELECTOR, "#eta tbody tr")}
        assert len(rows) == 7
        rect = rows["kumo_gym/Rect-v0"]
        assert rect[header.index("H_str_mean")] == "0.693" and rect[header.index("eta_all_mean")] == "0.000"
        assert rows["kumo_gym/Tents-v0"][header.index("H_str_mean")] == "-"
        link = next(a for a in driver.find_elements(By.CSS_SELECTOR, "#episodes a")
                    if "Rect-v0" in a.find_element(By.XPATH, "../..").text)
        driver.get(link.get_attribute("href"))
        assert _errors(driver) == []
        nodes = driver.find_elements(By.CSS_SELECTOR, ".kg-node")
        assert len(nodes) == 2 and all(n.is_displayed() for n in nodes)
        assert "H_str = 0.693" in driver.find_element(By.TAG_NAME, "body").text
        driver.save_screenshot(str(tmp_path / "rect.png"))
    finally:
        driver.quit()


def test_analyze_cli_with_a_relative_output_directory(tmp_path, monkeypatch):
    """``kumo-gym analyze traces.jsonl --out analysis/`` (a relative directory, as the quickstart
    writes it) with its plots: the figure paths of report.md used to raise ValueError there."""
    from kumo_gym.cli import main

    monkeypatch.chdir(tmp_path)
    lines = [line for line in FIXTURE.read_text().splitlines() if '"kumo_gym/Rect-v0"' in line]
    Path("traces.jsonl").write_text(lines[0] + "\n")
    assert main(["analyze", "traces.jsonl", "--out", "analysis", "--no-progress", "--max-graph-plots", "1"]) == 0
    report = Path("analysis/report.md").read_text()
    assert "plots/graph_1_" in report and Path("analysis/plots").is_dir()
