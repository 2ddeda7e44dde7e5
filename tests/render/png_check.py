#!/usr/bin/env python3
"""Fails unless a PNG screenshot shows a rendered page: enough non-white pixels and the
table and chart colours. Pure Python (zlib) so CI needs no imaging library."""
import struct
import sys
import zlib


def decode(path):
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


def main():
    path = sys.argv[1]
    w, h, bpp, rows = decode(path)
    total, ink, colours = 0, 0, set()
    for row in rows[::2]:
        for x in range(0, w * bpp, bpp * 2):
            r, g, b = row[x], row[x + 1], row[x + 2]
            total += 1
            if r < 235 or g < 235 or b < 235:
                ink += 1
            colours.add((r >> 4, g >> 4, b >> 4))
    share = ink / total
    print(f"{path}: {w}x{h}, {share:.1%} non-white, {len(colours)} colour classes")
    if share < 0.03:
        sys.exit("page looks blank")
    # Table cells (green/yellow/red/grey) and chart lines give many distinct colours.
    if len(colours) < 12:
        sys.exit("too few colours: tables or charts did not render")


main()
