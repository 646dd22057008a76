"""What the benchmark scripts share: the repository root and how a result file is written."""
from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def write_result(path: str | Path, result: dict, indent: int = 1) -> Path:
    """Write ``result`` as JSON to ``path`` (folders made as needed) and say where."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=indent) + "\n")
    print(f"\nwrote {path.relative_to(ROOT) if path.is_absolute() and path.is_relative_to(ROOT) else path}")
    return path
