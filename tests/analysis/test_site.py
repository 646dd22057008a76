"""``kumo-gym report``: the static HTML site, checked as files and in a real headless browser.

The run directory is laid out as ``kumo-gym demo`` writes it (``RUN/eval/traces.jsonl`` from the
oracle and random agents through the evaluation harness), plus hand-written episodes: a model
episode with a reasoning trace so that the claim graph has edges, a wrong Tents grid and a Hanoi
answer with an illegal move (their pages must draw the final state beside the puzzle and frame
what the verdict names, checked pixel by pixel), and an interactive Hanoi play with unreadable
and illegal moves. The browser tests use Debian's chromium and chromedriver (installed by
``.ci/run``); they are skipped, with the reason, where they or selenium are missing. The
screenshots stay in the test's tmp directory as artefacts.
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
    # and three wrong ones whose final state the episode pages must draw and mark
    extra = [_hand_record("kumo_gym/Tents-v0", inst, "hand-wrong-tents", _tents_answer_text()),
             _hand_record("kumo_gym/Hanoi-v0", _hanoi_instance(), "hand-illegal-hanoi",
                          "moves = " + json.dumps(HANOI_MOVES)),
             _hand_interactive_hanoi()]
    with open(ev / "traces.jsonl", "a") as f:
        f.writelines(json.dumps(r) + "\n" for r in [rec, *extra])
    summary = report(ev, plots=False, quiet=True)
    return root, summary


# ---- two wrong answers whose final state the episode page must draw and mark ----------------------
#: the E8 solution with one tent too many, at (3, 3): the verdict's first failing cell is (0, 3)
#: (column 3's count), and (3, 0) (row 3's count) is named too, so a row/column swap shows
TENTS_EXTRA_TENT = (3, 3)
#: a Hanoi n=3 answer whose 5th move [2, 1, 0] is illegal (disk 1 lies on disk 2 on peg 1)
HANOI_MOVES = [[1, 0, 2], [2, 0, 1], [1, 2, 1], [3, 0, 2], [2, 1, 0], [1, 1, 0]]
HANOI_STATE_BEFORE = ((), (2, 1), (3,))  # after the four legal moves


def _tents_answer():
    from .conftest import TENTS_SOLUTION

    grid = [row[:] for row in TENTS_SOLUTION]
    r, c = TENTS_EXTRA_TENT
    grid[r][c] = "A"
    return grid


def _tents_answer_text() -> str:
    return "Here is my grid.\n" + json.dumps(_tents_answer())


def _hanoi_instance():
    from kumo_gym.training.data import generate_instances

    return next(iter(generate_instances("kumo_gym/Hanoi-v0", 1, split="test", env_kwargs={"n": 3})))


#: interactive Hanoi n=3 play: legal, unreadable, illegal, legal, legal, then an illegal last move
HANOI_PLAY = ["[1, 0, 2]", "no move here", "[3, 0, 1]", "[2, 0, 1]", "[1, 2, 1]", "[3, 1, 0]"]


def _hand_interactive_hanoi() -> dict:
    """An interactive episode played through a real environment, recorded as the harness does."""
    import gymnasium as gym

    inst = _hanoi_instance()
    env = gym.make("kumo_gym/Hanoi-v0", mode="interactive")
    env.reset(options={"instance": inst})
    steps = []
    for action in HANOI_PLAY:
        _, reward, _, _, info = env.step(action)
        steps.append({"action": action, "status": info["status"], "reward": reward})
    return {"env_id": "kumo_gym/Hanoi-v0", "instance": inst.to_dict(), "instance_id": inst.instance_id,
            "family": inst.family, "difficulty": "hand", "mode": "interactive", "model": "hand-play-hanoi",
            "spec": "Hanoi", "key": "hand-play-hanoi", "completion": None, "completion_tokens": 30,
            "verdict": info["verdict"], "reward": 0.0, "prompt": "a prompt", "steps": steps,
            "n_steps": len(steps), "final_state": [list(p) for p in env.unwrapped.state]}


def _hand_record(env_id: str, inst, key: str, completion: str) -> dict:
    import kumo_gym

    verdict = kumo_gym.get_task(env_id).score(inst, completion)
    return {"env_id": env_id, "instance": inst.to_dict(), "instance_id": inst.instance_id, "family": inst.family,
            "difficulty": "hand", "mode": "answer", "model": key, "spec": env_id, "key": key,
            "completion": completion, "completion_tokens": 40, "verdict": verdict.to_dict(),
            "reward": verdict.reward, "prompt": "a prompt", "steps": [], "n_steps": 1}


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
    assert len(pages) == summary["episodes"] == 16
    for page in [out / "index.html", *pages]:
        text = page.read_text()
        # no asset from anywhere: no external src/href/url(), no @import, no <link rel=stylesheet>
        assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", text), page
        assert "url(http" not in text and "@import" not in text and 'rel="stylesheet"' not in text
    # every episode link resolves
    links = re.findall(r'href="(episodes/[^"]+)"', index)
    assert len(links) == 16 and all((out / link).exists() for link in links)
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
    assert len(list((tmp_path / "site" / "episodes").glob("*.html"))) == 6  # the grid answer episodes


# ---- the final state beside the puzzle --------------------------------------------------------------
def _png_pixels(src: str):
    """The RGB array of a ``data:image/png;base64,...`` image."""
    import base64
    import io

    import numpy as np
    from PIL import Image

    assert src.startswith("data:image/png;base64,")
    return np.asarray(Image.open(io.BytesIO(base64.b64decode(src.split(",", 1)[1]))).convert("RGB"))


def _ring(box):
    """The outermost pixels of ``box = (x0, y0, x1, y1)`` (ends exclusive), as (ys, xs)."""
    import numpy as np

    x0, y0, x1, y1 = box
    xs = list(range(x0, x1)) * 2 + [x0] * (y1 - y0) + [x1 - 1] * (y1 - y0)
    ys = [y0] * (x1 - x0) + [y1 - 1] * (x1 - x0) + list(range(y0, y1)) * 2
    return np.array(ys), np.array(xs)


def _open_final_state(driver, out, model: str):
    """Open the episode page of ``model``; return (final-state figure, its pixels, its marks)."""
    from selenium.webdriver.common.by import By

    page = next(p for p in (out / "episodes").glob("*.html") if f">{model}<" in p.read_text())
    driver.get(page.resolve().as_uri())
    assert _errors(driver) == []
    puzzle = driver.find_element(By.CSS_SELECTOR, "figure.pic.puzzle")
    final = driver.find_element(By.CSS_SELECTOR, "figure.pic.final-state")
    img = final.find_element(By.TAG_NAME, "img")
    assert img.is_displayed() and driver.execute_script("return arguments[0].complete", img)
    size = driver.execute_script("return [arguments[0].naturalWidth, arguments[0].naturalHeight]", img)
    # beside the puzzle: on the same row, to its right
    assert abs(final.location["y"] - puzzle.location["y"]) <= 2
    assert final.location["x"] >= puzzle.location["x"] + puzzle.size["width"]
    pixels = _png_pixels(img.get_attribute("src"))
    assert [pixels.shape[1], pixels.shape[0]] == size
    return final, pixels, json.loads(final.get_attribute("data-marks"))


def test_episode_page_draws_the_answer_and_marks_the_first_failing_cell(site, tmp_path):
    """A wrong Tents answer: the page shows the answer grid (not the puzzle) beside the puzzle,
    with the verdict's first failing cell framed in red and the other named cells in purple."""
    import numpy as np

    import kumo_gym
    from kumo_gym.envs.grid import render
    from kumo_gym.envs.raster import MARK, MARK_ALSO

    from .conftest import TENTS_ID

    out, _ = site
    task = kumo_gym.get_task("kumo_gym/Tents-v0")
    inst = task.load(TENTS_ID)
    answer = _tents_answer()
    verdict = task.verify(inst, answer)
    first = tuple(verdict.details["first_error_cell"])
    assert not verdict.solved and first == (0, 3)
    named = {tuple(c) for v in verdict.details["violations"] for c in v["cells"]} - {first}
    assert (3, 0) in named
    sketch = task.sketch(inst, answer)
    expected = render.render_rgb(sketch)  # the answer grid, unmarked
    driver = _driver(tmp_path)
    try:
        final, pixels, marks = _open_final_state(driver, out, "hand-wrong-tents")
        driver.save_screenshot(str(tmp_path / "final-state-tents.png"))
        assert pixels.shape == expected.shape
        ys, xs = _ring(render.cell_box(sketch, *first))
        assert (pixels[ys, xs] == MARK).all(), "the first failing cell is not framed in red"
        for cell in named:  # the other named cells: framed in purple, never in red
            box = render.cell_box(sketch, *cell)
            region = pixels[box[1]:box[3], box[0]:box[2]]
            assert (region == MARK_ALSO).all(axis=-1).any() and not (region == MARK).all(axis=-1).any()
        # everywhere else the page shows exactly the answer grid (not the puzzle)
        outside = np.ones(pixels.shape[:2], bool)
        for cell in named | {first}:
            x0, y0, x1, y1 = render.cell_box(sketch, *cell)
            outside[y0:y1, x0:x1] = False
        assert (pixels[outside] == expected[outside]).all()
        assert not np.array_equal(expected, task.render_rgb(inst))
        assert marks[0]["at"] == list(first) and marks[0]["first"] and {tuple(m["at"]) for m in marks[1:]} == named
        assert "(0, 3)" in final.text
        print(f"screenshot: {tmp_path / 'final-state-tents.png'}")
    finally:
        driver.quit()


def test_episode_page_draws_the_state_before_an_illegal_move_and_marks_its_pegs(site, tmp_path):
    """A Hanoi answer with an illegal 5th move: the page shows the pegs after the 4 legal moves,
    with the two pegs of the refused move framed in red."""
    import numpy as np

    import kumo_gym
    from kumo_gym.envs.raster import MARK

    out, _ = site
    task = kumo_gym.get_task("kumo_gym/Hanoi-v0")
    inst = _hanoi_instance()
    verdict = task.verify(inst, HANOI_MOVES)
    assert verdict.status == "illegal_move" and verdict.first_error == 5
    expected, places = task.picture(inst, HANOI_STATE_BEFORE)
    driver = _driver(tmp_path)
    try:
        final, pixels, marks = _open_final_state(driver, out, "hand-illegal-hanoi")
        driver.save_screenshot(str(tmp_path / "final-state-hanoi.png"))
        assert pixels.shape == expected.shape and pixels.shape[0] >= 100  # a readable size
        named = [("peg", 1), ("peg", 0)]  # the refused move [2, 1, 0] takes from peg 1 to peg 0
        assert [tuple(m["place"]) for m in marks] == named
        outside = np.ones(pixels.shape[:2], bool)
        for place in named:
            ys, xs = _ring(places[place])
            assert (pixels[ys, xs] == MARK).all(), f"{place} is not framed in red"
            x0, y0, x1, y1 = places[place]
            outside[y0:y1, x0:x1] = False
        ys, xs = _ring(places[("peg", 2)])
        assert not (pixels[ys, xs] == MARK).all(axis=-1).any()
        # the pegs after the legal moves (peg 2 holds disk 3 alone), not the start
        assert (pixels[outside] == expected[outside]).all()
        assert not np.array_equal(expected, task.render_rgb(inst))
        assert "[2, 1, 0]" in final.text
    finally:
        driver.quit()


def test_interactive_replay_reaches_the_environments_final_state(run_dir):
    """The report replays interactive episodes by the task's rules: the state it draws is the
    state the environment ended in (checked against a real environment for every interactive
    episode of the run, and a hand-played one with unreadable and illegal moves), and the refused
    last move's pegs are marked."""
    import gymnasium as gym

    import kumo_gym
    from kumo_gym.analysis.site import _replay, final_picture
    from kumo_gym.core.instance import Instance
    from kumo_gym.wrappers.trace import read_traces

    root, _ = run_dir
    interactive = [r for r in read_traces(root / "eval" / "traces.jsonl") if r.get("mode") == "interactive"]
    assert len(interactive) >= 4
    for rec in interactive:
        task = kumo_gym.get_task(rec["env_id"])
        inst = Instance.from_dict(rec["instance"])
        env = gym.make(rec["env_id"], mode="interactive", max_steps=10_000, max_invalid=10_000)
        env.reset(options={"instance": inst})
        for step in rec["steps"]:
            env.step(step["action"])
        state, _ = _replay(task, inst, rec["steps"])
        assert state == env.unwrapped.state, rec["env_id"]
    hand = next(r for r in interactive if r["model"] == "hand-play-hanoi")
    state, refused = _replay(kumo_gym.get_task(hand["env_id"]), Instance.from_dict(hand["instance"]), hand["steps"])
    assert [list(p) for p in state] == hand["final_state"] == [[3], [2, 1], []] and refused == [3, 1, 0]
    pic, _ = final_picture(hand)
    assert [tuple(m["place"]) for m in pic.marks] == [("peg", 1), ("peg", 0)]
