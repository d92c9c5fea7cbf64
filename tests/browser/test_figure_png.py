"""Offline PNG export of the figures (``explorer.ui.png``, drawn by Debian's chromium): the pixels show the
applied green, decoded here from the PNG itself."""

from __future__ import annotations


import pytest

from explorer.iceberg import figures as F


# ----------------------------------------------------------------------------------- offline screenshots


def _png_pixels(path):
    """Decode an 8-bit RGB/RGBA PNG (what Chromium writes) into (width, height, rows of RGB tuples)."""
    import struct
    import zlib

    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", chunk[:10])
            assert depth == 8 and color in (2, 6)
            bpp = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[i:i + 3]) for i in range(0, stride, bpp)])
        prev = line
    return width, height, rows


@pytest.mark.browser
def test_offline_png_of_the_seed_figures_shows_the_applied_green(seed_capture, tmp_path):
    from explorer.ui.png import save_png

    green = tuple(int(F.APPLIES_COLOR[i:i + 2], 16) for i in (1, 3, 5))
    for fig, name in ((F.timeline_figure(seed_capture), "t.png"), (F.decision_matrix_figure(seed_capture), "m.png")):
        path = save_png(fig, tmp_path / name, width=800, height=420)
        width, height, rows = _png_pixels(path)
        assert (width, height) == (800, 420)
        greens = sum(1 for row in rows for px in row if all(abs(p - q) < 12 for p, q in zip(px, green)))
        assert greens > 500, f"{name}: plotly did not draw (only {greens} green pixels)"
