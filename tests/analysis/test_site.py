"""``kumo-gym report``: the static HTML site, checked as files and in a real headless browser.

The run directory is laid out as ``kumo-gym demo`` writes it (``RUN/eval/traces.jsonl`` from the
oracle and random agents through the evaluation harness), plus one hand-written model episode
with a reasoning trace so that the claim graph has edges. The browser test uses Debian's
chromium and chromedriver (installed by ``.ci/run``); it is skipped, with the reason, where they
or selenium are missing. The screenshots stay in the test's tmp directory as artefacts.
"""
import json
import re
import shutil
import tempfile
import time
from pathlib import Path

import pytest

from .conftest import TENTS_TRACE

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
ENVS = ["kumo_gym/Tents-v0", "kumo_gym/Lightup-v0", "kumo_gym/KUMO-v0", "kumo_gym/SPaRC-v0", "kumo_gym/Hanoi-v0"]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    import kumo_gym
    from kumo_gym.training.agents import OracleAgent, RandomAgent
    from kumo_gym.training.evaluate import Evaluator, make_specs, report

    from .conftest import TENTS_ID

    root = tmp_path_factory.mktemp("demo-run")
    ev = root / "eval"
    specs = make_specs(ENVS) + make_specs(["kumo_gym/Tents-v0"], mode="interactive")
    for agent in (OracleAgent(), RandomAgent(seed=0)):
        Evaluator(agent, ev, model_name=agent.name, split="test", progress=False).run(specs, 1)
    # one model episode with a reasoning trace (the spec's E8 puzzle)
    task = kumo_gym.get_task("kumo_gym/Tents-v0")
    inst = task.load(TENTS_ID)
    verdict = task.score(inst, TENTS_TRACE)
    rec = {"env_id": "kumo_gym/Tents-v0", "instance": inst.to_dict(), "instance_id": inst.instance_id,
           "family": "tents", "difficulty": "trivial", "mode": "answer", "model": "hand-model", "spec": "Tents",
           "key": "hand-e8", "completion": TENTS_TRACE, "completion_tokens": 180, "verdict": verdict.to_dict(),
           "reward": verdict.reward, "prompt": "<b>not html</b> & a prompt", "steps": [], "n_steps": 1}
    with open(ev / "traces.jsonl", "a") as f:
        f.write(json.dumps(rec) + "\n")
    summary = report(ev, plots=False, quiet=True)
    return root, summary


@pytest.fixture(scope="module")
def site(run_dir):
    from kumo_gym.cli import main

    root, summary = run_dir
    assert main(["report", str(root)]) == 0
    return root / "report", summary


def test_site_is_static_and_self_contained(site):
    out, summary = site
    index = (out / "index.html").read_text()
    pages = sorted((out / "episodes").glob("*.html"))
    assert len(pages) == summary["episodes"] == 13
    for page in [out / "index.html", *pages]:
        text = page.read_text()
        # no asset from anywhere: no external src/href/url(), no @import, no <link rel=stylesheet>
        assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", text), page
        assert "url(http" not in text and "@import" not in text and 'rel="stylesheet"' not in text
    # every episode link resolves
    links = re.findall(r'href="(episodes/[^"]+)"', index)
    assert len(links) == 13 and all((out / link).exists() for link in links)
    # the tables hold the run's numbers (the same as kumo-gym eval's results)
    for row in summary["by_env"]:
        assert f"<td class=\"t\">{row['group']}</td>" in index
    hand = next(p for p in pages if "hand-model" in p.read_text())
    text = hand.read_text()
    assert text.count("<mark ") >= 10 and 'data-claim="C' in text  # claim spans highlighted
    assert text.count('class="kg-node') >= 10 and "data-sentence=" in text and "kg-ver" in text and "kg-sol" in text
    assert "&lt;b&gt;not html&lt;/b&gt; &amp; a prompt" in text  # trace data is escaped, never markup


def _driver(tmp_path):
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install selenium)")
    for path in (CHROMIUM, CHROMEDRIVER):
        if not Path(path).exists() and not shutil.which(Path(path).name):
            pytest.skip(f"{path} is missing (Debian: apt-get install chromium chromium-driver)")
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    opts = Options()
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 f"--user-data-dir={tempfile.mkdtemp(dir=tmp_path)}", "--window-size=1400,1000"):
        opts.add_argument(flag)
    opts.binary_location = CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(CHROMEDRIVER if Path(CHROMEDRIVER).exists() else shutil.which("chromedriver"))
    try:
        return webdriver.Chrome(service=service, options=opts)
    except Exception as e:  # noqa: BLE001 - a browser that cannot start here is an environment problem
        pytest.skip(f"headless chromium could not start: {type(e).__name__}: {str(e)[:200]}")


def _errors(driver):
    return [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]


def test_report_in_headless_chromium(site, tmp_path):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    out, summary = site
    driver = _driver(tmp_path)
    try:
        driver.get((out / "index.html").resolve().as_uri())
        assert driver.title == "kumo_gym report"
        assert _errors(driver) == []
        # the results table shows the run's numbers: success of every (model, env) row
        cells = [[td.text for td in tr.find_elements(By.TAG_NAME, "td")]
                 for tr in driver.find_elements(By.CSS_SELECTOR, "#results tbody tr")]
        assert len(cells) == len(summary["by_env"])
        header = [th.text for th in driver.find_elements(By.CSS_SELECTOR, "#results thead th")]
        got = {(c[header.index("model")], c[header.index("group")]): c[header.index("success")] for c in cells}
        for row in summary["by_env"]:
            assert got[(row["model"], row["group"])] == f"{row['success']:.3f}"
        assert driver.find_elements(By.CSS_SELECTOR, "#eta tbody tr")
        driver.save_screenshot(str(tmp_path / "index.png"))
        # the filter box narrows the episode browser
        driver.find_element(By.ID, "episode-filter").send_keys("hand-model")
        visible = [tr for tr in driver.find_elements(By.CSS_SELECTOR, "#episodes tbody tr") if tr.is_displayed()]
        assert len(visible) == 1
        visible[0].find_element(By.TAG_NAME, "a").click()
        time.sleep(0.3)
        assert "hand-model" in driver.title and _errors(driver) == []
        node = next(n for n in driver.find_elements(By.CSS_SELECTOR, ".kg-node")
                    if "needs a tent" in n.get_attribute("data-sentence"))
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", node)
        ActionChains(driver).move_to_element(node).perform()
        tip = driver.find_element(By.ID, "kg-tip")
        assert tip.is_displayed() and "needs a tent" in tip.text
        assert driver.find_elements(By.CSS_SELECTOR, "mark.kg-active")  # its claim span lights up in the trace
        driver.save_screenshot(str(tmp_path / "episode.png"))
        assert (tmp_path / "episode.png").stat().st_size > 10_000
        print(f"screenshots: {tmp_path / 'index.png'} {tmp_path / 'episode.png'}")
    finally:
        driver.quit()


def test_report_rejects_a_directory_without_runs(tmp_path, capsys):
    from kumo_gym.cli import main

    assert main(["report", str(tmp_path)]) == 2
    assert "no evaluation run" in capsys.readouterr().err


def test_report_from_an_analysis_directory(run_dir, tmp_path):
    """An analysis directory alone (kumo-gym analyze output) also makes a site."""
    from kumo_gym.analysis.report import analyse_file
    from kumo_gym.analysis.site import build_report

    root, _ = run_dir
    analyse_file(root / "eval" / "traces.jsonl", tmp_path / "analysis", plots=False)
    index = build_report([tmp_path / "analysis"], tmp_path / "site")
    text = index.read_text()
    assert "Reasoning structure by environment and difficulty" in text
    assert len(list((tmp_path / "site" / "episodes").glob("*.html"))) == 5  # the grid answer episodes
