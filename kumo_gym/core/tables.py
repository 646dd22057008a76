"""Plain-text and markdown tables (the CLI's listings, evaluation results, reports)."""
from __future__ import annotations


def format_table(rows: list[dict], columns: list[str], markdown: bool = False) -> str:
    """``rows`` as aligned text columns, or as a markdown table when ``markdown``."""
    if not rows:
        return "(none)"
    cells = [[str(r.get(c, "")) for c in columns] for r in rows]
    if markdown:
        out = ["| " + " | ".join(columns) + " |", "|" + "|".join("---" for _ in columns) + "|"]
        out += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in cells]
        return "\n".join(out)
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(columns)]
    line = "  ".join(c.ljust(w) for c, w in zip(columns, widths))
    out = [line, "  ".join("-" * w for w in widths)]
    out += ["  ".join(v.ljust(w) for v, w in zip(row, widths)) for row in cells]
    return "\n".join(out)
