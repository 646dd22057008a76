"""The README's and docs/integrations.md's ``kumo-gym`` commands use flags that exist (parsed, not run:
they need a cluster, a server or the Hub)."""
from __future__ import annotations

import re
import shlex

import pytest

from kumo_gym.cli import build_parser

from ..conftest import REPO
from ..test_readme import readme_commands


def _doc_commands() -> list[str]:
    text = (REPO / "docs" / "integrations.md").read_text()
    cmds = []
    for block in re.findall(r"```bash\n(.*?)```", text, re.DOTALL):
        cmds += [line.split("  #")[0].strip() for line in block.splitlines() if line.startswith("kumo-gym ")]
    return cmds


COMMANDS = readme_commands("Integrations") + _doc_commands()


def test_there_are_integration_commands():
    assert any("--ray" in c for c in COMMANDS) and any("--format datasets" in c for c in COMMANDS)
    assert any(c.startswith("kumo-gym serve") for c in COMMANDS)


@pytest.mark.parametrize("cmd", COMMANDS)
def test_integration_command_parses(cmd):
    # no leftovers: a misspelt flag would otherwise pass as an environment kwarg
    _, extra = build_parser().parse_known_args(shlex.split(cmd)[1:])
    assert not extra, extra
