#!/usr/bin/env python3
"""Draws the installed app's icons (public/icons/*.png) from the same shapes as public/favicon.svg:
a dark tile, a green prompt chevron and a blue cursor. Plain Python (zlib for PNG), so nothing
needs installing; the PNGs are committed, rerun this only when the design changes:

    python3 scripts/make_icons.py

`maskable` icons fill the whole square (the platform cuts its own shape) and keep the drawing
inside the middle 80%, the safe zone that every mask shape leaves visible."""
import math
import os
import struct
import zlib

TILE = (0x14, 0x16, 0x1A)
CHEVRON = (0x4A, 0xDE, 0x80)
CURSOR = (0x86, 0xA8, 0xFF)
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "public", "icons")
SUPERSAMPLE = 3


def segment_distance(px, py, ax, ay, bx, by):
    dx, dy = bx - ax, by - ay
    t = max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)))
    return math.hypot(px - ax - t * dx, py - ay - t * dy)


def in_rounded_rect(x, y, left, top, width, height, radius):
    cx = min(max(x, left + radius), left + width - radius)
    cy = min(max(y, top + radius), top + height - radius)
    return left <= x <= left + width and top <= y <= top + height and math.hypot(x - cx, y - cy) <= radius


def colour_at(x, y, maskable):
    """The colour at (x, y) in the favicon's 32-unit square, or None outside the tile."""
    if maskable:
        # The drawing shrunk about the centre into the safe zone; the tile is the whole square.
        x, y = 16 + (x - 16) / 0.8, 16 + (y - 16) / 0.8
    elif not in_rounded_rect(x, y, 0, 0, 32, 32, 7):
        return None
    if min(segment_distance(x, y, 8, 10, 15, 16), segment_distance(x, y, 15, 16, 8, 22)) <= 1.5:
        return CHEVRON
    if in_rounded_rect(x, y, 17, 20, 8, 3, 1.5):
        return CURSOR
    return TILE


def draw(size, maskable):
    rows = []
    step = 32 / size / SUPERSAMPLE
    for j in range(size):
        row = bytearray([0])  # PNG filter: none
        for i in range(size):
            r = g = b = a = 0.0
            for sj in range(SUPERSAMPLE):
                for si in range(SUPERSAMPLE):
                    colour = colour_at((i * SUPERSAMPLE + si + 0.5) * step, (j * SUPERSAMPLE + sj + 0.5) * step, maskable)
                    if colour:
                        r, g, b, a = r + colour[0], g + colour[1], b + colour[2], a + 1
            n = SUPERSAMPLE * SUPERSAMPLE
            row += bytes([round(r / a) if a else 0, round(g / a) if a else 0, round(b / a) if a else 0, round(255 * a / n)])
        rows.append(bytes(row))
    return png(size, b"".join(rows))


def png(size, raw):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, size, maskable in [("icon-192.png", 192, False), ("icon-512.png", 512, False), ("maskable-512.png", 512, True)]:
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(draw(size, maskable))
        print(f"wrote public/icons/{name}")


if __name__ == "__main__":
    main()
