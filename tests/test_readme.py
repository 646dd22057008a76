"""The README's catalogue is the registry's, as ``kumo-gym list --markdown`` prints it."""
from __future__ import annotations

import re

from kumo_gym.cli import catalogue_rows, format_table

from .conftest import REPO


def test_readme_catalogue_is_generated_from_the_registry():
    text = (REPO / "README.md").read_text()
    m = re.search(r"<!-- catalogue:start -->\n(.*?)<!-- catalogue:end -->", text, re.S)
    assert m, "README.md lacks the catalogue markers"
    expected = format_table(catalogue_rows(), ["id", "family", "modes", "difficulties", "summary"], markdown=True)
    assert m.group(1).strip() == expected.strip(), "run: make readme"


def test_readme_opens_with_the_two_commands():
    text = (REPO / "README.md").read_text()
    block = re.search(r"```bash\n(.*?)```", text, re.S).group(1)
    assert [line.split("#")[0].strip() for line in block.strip().splitlines()] == ["make demo", "make test"]
