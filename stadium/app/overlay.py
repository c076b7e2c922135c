"""Text over the window (the key list, a status line), drawn with pygame's font into an
RGBA image once per change rather than every frame."""
from __future__ import annotations

import numpy as np

PANEL = (16, 20, 36, 200)
INK = (236, 240, 220)
KEY_INK = (255, 214, 110)


def text_image(rows: list[tuple[str, ...]], size: int) -> np.ndarray:
    """`rows` of cells on a translucent panel, the cells of each column left-aligned
    (the first column picked out as keys), as (h, w, 4) uint8 RGBA with row 0 at the
    bottom, ready to be a texture drawn with GL's origin."""
    import pygame

    if not pygame.font.get_init():
        pygame.font.init()
    font = pygame.font.Font(None, size)
    rendered = [[font.render(cell, True, KEY_INK if i == 0 and len(row) > 1 else INK)
                 for i, cell in enumerate(row)] for row in rows]
    pad, gap = size // 3, size
    columns = max(len(row) for row in rendered)
    widths = [max((row[i].get_width() for row in rendered if len(row) > i and len(row) > 1),
                  default=0) for i in range(columns)]
    line = font.get_linesize()
    width = max(max(sum(widths[:len(row) - 1]) + gap * (len(row) - 1) + row[-1].get_width()
                    for row in rendered), 1) + 2 * pad
    height = line * len(rendered) + 2 * pad
    panel = pygame.Surface((width, height), pygame.SRCALPHA)
    panel.fill(PANEL)
    for r, row in enumerate(rendered):
        x = pad
        for i, cell in enumerate(row):
            panel.blit(cell, (x, pad + r * line))
            x += widths[i] + gap
    rgba = np.frombuffer(pygame.image.tobytes(panel, "RGBA", True), np.uint8)
    return rgba.reshape(height, width, 4).copy()
