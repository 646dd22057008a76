"""The KUMO contamination protocol (examples/contamination.py) runs end to end on the tiny model."""
from __future__ import annotations

import importlib.util
import json

import pytest

from ..conftest import REPO


@pytest.mark.slow
def test_contamination_example_end_to_end(tmp_path, capsys):
    spec = importlib.util.spec_from_file_location("contamination", REPO / "examples" / "contamination.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.main(["--out", str(tmp_path), "--n-train", "4", "--n-eval", "2", "--max-steps", "2"]) in (0, None)
    out = capsys.readouterr().out
    assert "held-out guard: refused" in out and "split_domain halves" in out
    report = (tmp_path / "report.md").read_text()
    for label in ("seen (trained on)", "fresh IND", "OOD", "held-out domain"):
        assert label in report
    ind = json.loads((tmp_path / "car_faults-ind.json").read_text())
    ood = json.loads((tmp_path / "car_faults-ood.json").read_text())
    assert not set(ind["truths"]) & set(ood["truths"])
