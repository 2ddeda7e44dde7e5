#!/usr/bin/env python3
"""Fails unless a PNG screenshot shows a whole rendered page: enough non-white pixels, the
table and chart colours, and nothing cut: the bottom rows and the right edge are blank (a
page taller than the screenshot, or content wider than the window, touches them).
Uses Pillow when installed, else decodes the PNG itself (zlib), slowly.

usage: png_check.py SHOT.png"""
import struct
import sys
import zlib


def decode(path):
    """(width, height, bytes per pixel, rows): with Pillow when installed (fast), else here."""
    try:
        from PIL import Image
    except ImportError:
        return decode_zlib(path)
    img = Image.open(path).convert("RGB")
    w, h = img.size
    data = img.tobytes()
    return w, h, 3, [data[y * w * 3:(y + 1) * w * 3] for y in range(h)]


def decode_zlib(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"{path}: not a PNG")
    pos, idat, width = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                sys.exit(f"{path}: unsupported PNG (depth {depth}, colour type {ctype})")
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def blank(pixels):
    return all(r >= 235 and g >= 235 and b >= 235 for r, g, b in pixels)


def main():
    path = sys.argv[1]
    w, h, bpp, rows = decode(path)
    bottom = [(row[x], row[x + 1], row[x + 2]) for row in rows[-24:] for x in range(0, w * bpp, bpp)]
    if not blank(bottom):
        sys.exit(f"{path}: content reaches the bottom edge: the page is cut (taller than the screenshot)")
    right = [(row[x], row[x + 1], row[x + 2]) for row in rows for x in range((w - 4) * bpp, w * bpp, bpp)]
    if not blank(right):
        sys.exit(f"{path}: content reaches the right edge: the page is wider than the window")
    # The share of ink is taken over the page's content, down to its last non-blank row.
    last = h - 1
    while last > 0 and blank((rows[last][x], rows[last][x + 1], rows[last][x + 2])
                             for x in range(0, w * bpp, bpp * 4)):
        last -= 1
    total, ink, colours = 0, 0, set()
    for row in rows[:last + 1:2]:
        for x in range(0, w * bpp, bpp * 2):
            r, g, b = row[x], row[x + 1], row[x + 2]
            total += 1
            if r < 235 or g < 235 or b < 235:
                ink += 1
            colours.add((r >> 4, g >> 4, b >> 4))
    share = ink / total
    print(f"{path}: {w}x{h}, page {last + 1} px tall, {share:.1%} non-white, {len(colours)} colour classes")
    if share < 0.03:
        sys.exit("page looks blank")
    # Table cells (green/yellow/red/grey) and chart lines give many distinct colours.
    if len(colours) < 12:
        sys.exit("too few colours: tables or charts did not render")


main()
