"""What the benchmark scripts share: the repository root, how a result file is written and
how a table is printed."""
from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def write_result(path: str | Path, result: dict, indent: int = 1) -> Path:
    """Write ``result`` as JSON to ``path`` (folders made as needed) and say where."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=indent) + "\n")
    print(f"\nwrote {path.relative_to(ROOT) if path.is_absolute() and path.is_relative_to(ROOT) else path}")
    return path


def print_table(columns: list[tuple[str, str]], rows: list[tuple], sep: str = " ") -> None:
    """Print ``rows`` under ``columns``: (title, format spec starting with alignment and width,
    ``">12,.0f"``); a title takes its column's alignment and width."""
    heads = []
    for title, spec in columns:
        align_width = re.match(r"[<>^]\d+", spec)
        if align_width is None:
            raise ValueError(f"column {title!r}: spec {spec!r} must start with an alignment and a width")
        heads.append(f"{title:{align_width.group()}}")
    print(sep.join(heads))
    for row in rows:
        print(sep.join(f"{value:{spec}}" for value, (_, spec) in zip(row, columns)))
