"""Draw the web app's icons (the manifest's) as PNG files, with the standard library only.

A card on the site's accent blue: ``icon-192.png`` and ``icon-512.png`` (purpose
"any", the card large on a rounded square) and ``icon-maskable-512.png`` (purpose
"maskable": the blue fills the square and the card stays inside the middle 80%
circle, which every launcher's mask keeps). The files are committed; run this
again after changing the drawing:

    .venv/bin/python scripts/make_icons.py
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "web" / "static" / "web" / "icons"

BLUE = (0x24, 0x51, 0xA6)
CREAM = (0xF6, 0xED, 0xD3)
RED = (0xC0, 0x26, 0x1F)
CLEAR = (0, 0, 0, 0)

Pixel = tuple[int, int, int, int]


def _inside_rounded(
    x: float, y: float, left: float, top: float, w: float, h: float, r: float
) -> bool:
    """Whether (x, y) is inside the rectangle with rounded corners of radius ``r``."""
    if not (left <= x < left + w and top <= y < top + h):
        return False
    cx = min(max(x, left + r), left + w - r)
    cy = min(max(y, top + r), top + h - r)
    return (x - cx) ** 2 + (y - cy) ** 2 <= r * r


def draw(size: int, *, maskable: bool) -> list[list[Pixel]]:
    """The icon's pixels, rows of RGBA."""
    rows: list[list[Pixel]] = []
    # The card: portrait, centred; smaller on the maskable icon (its safe zone).
    scale = 0.42 if maskable else 0.56
    card_w, card_h = size * scale * 0.72, size * scale
    card_left, card_top = (size - card_w) / 2, (size - card_h) / 2
    ring = card_w * 0.30
    for py in range(size):
        row: list[Pixel] = []
        for px in range(size):
            x, y = px + 0.5, py + 0.5
            if not maskable and not _inside_rounded(x, y, 0, 0, size, size, size * 0.18):
                row.append(CLEAR)
                continue
            colour = BLUE
            if _inside_rounded(x, y, card_left, card_top, card_w, card_h, card_w * 0.12):
                colour = CREAM
                # An oval in the card's middle, as on a playing card's face.
                dx = (x - size / 2) / ring
                dy = (y - size / 2) / (ring * 1.45)
                if dx * dx + dy * dy <= 1:
                    colour = RED
            row.append((*colour, 255))
        rows.append(row)
    return rows


def png(rows: list[list[Pixel]]) -> bytes:
    """``rows`` as a PNG file: 8-bit RGBA, no filter, one zlib stream."""
    height, width = len(rows), len(rows[0])

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    raw = b"".join(b"\x00" + bytes(v for pixel in row for v in pixel) for row in rows)
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, size, maskable in (
        ("icon-192.png", 192, False),
        ("icon-512.png", 512, False),
        ("icon-maskable-512.png", 512, True),
    ):
        (OUT / name).write_bytes(png(draw(size, maskable=maskable)))
        print(OUT / name)


if __name__ == "__main__":
    main()
