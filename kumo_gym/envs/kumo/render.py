"""A picture of a KUMO game for ``render_mode="rgb_array"`` (Pillow, imported when drawing).

Rows are the instance's truths, columns its tests. A shaded cell means some outcome of the test
can rule the truth out (the knowledge book's relation). Tests already run get their observed
outcome above the column; a truth ruled out by an observed outcome is struck through in red, the
cells of the outcome that ruled it out are red, and truths still possible are green.
"""
from __future__ import annotations

import numpy as np

from .search import ruled_out_by

CELL = 22
NAME_CHARS = 22
_BG, _GRID, _TEXT = (255, 255, 255), (200, 200, 200), (20, 20, 20)
_RELATED, _RULING, _TAKEN = (215, 222, 235), (235, 120, 110), (255, 244, 200)
_ALIVE, _DEAD = (40, 140, 60), (190, 40, 40)


def _short(text, n: int = NAME_CHARS) -> str:
    text = str(text)
    return text if len(text) <= n else text[: n - 1] + "~"


def draw_game(data: dict, taken: list[str]) -> np.ndarray:
    """An RGB ``uint8`` array (H x W x 3) of the instance ``data`` after the tests ``taken``."""
    from PIL import Image, ImageDraw

    truths, actions = list(data["truths"]), list(data["actions"])
    ruled = {a: ruled_out_by(data, a) for a in dict.fromkeys(taken)}
    dead = set().union(*ruled.values()) if ruled else set()
    label_w = 7 * NAME_CHARS + 12
    head_h = 7 * NAME_CHARS + 12  # rotated test names and observed values above the grid
    width = label_w + CELL * max(len(actions), 1) + 10
    height = head_h + CELL * len(truths) + 34
    img = Image.new("RGB", (width, height), _BG)
    draw = ImageDraw.Draw(img)
    for j, a in enumerate(actions):
        x = label_w + j * CELL
        if a in ruled:
            draw.rectangle([x, 0, x + CELL - 1, height - 34], fill=_TAKEN)
        label = _short(a, 12) + (f" = {_short(data['observations'][a], 9)}" if a in ruled else "")
        # vertical text: draw horizontally on a strip, rotate, paste
        strip = Image.new("RGB", (head_h - 6, CELL), _TAKEN if a in ruled else _BG)
        ImageDraw.Draw(strip).text((2, 5), label, fill=_TEXT)
        img.paste(strip.rotate(90, expand=True), (x, 2))
    for i, t in enumerate(truths):
        y = head_h + i * CELL
        colour = _DEAD if t in dead else _ALIVE
        draw.text((6, y + 5), _short(t), fill=colour)
        if t in dead:
            draw.line([6, y + CELL // 2, 6 + 6 * len(_short(t)), y + CELL // 2], fill=_DEAD, width=2)
        for j, a in enumerate(actions):
            x = label_w + j * CELL
            states = data["outcomes"][a]["states"]
            if t in ruled.get(a, ()):
                fill = _RULING
            elif any(t in s["rules_out"] for s in states):
                fill = _RELATED
            else:
                fill = None
            draw.rectangle([x + 2, y + 2, x + CELL - 3, y + CELL - 3], fill=fill, outline=_GRID)
    alive = [t for t in truths if t not in dead]
    draw.text((6, height - 26), _short(f"tests run: {len(taken)}   still possible: {len(alive)} of {len(truths)}",
                                       120), fill=_TEXT)
    return np.asarray(img, dtype=np.uint8)
