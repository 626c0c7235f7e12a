#!/usr/bin/env python3
"""The share of an image's 16x16 tiles that hold any pixel other than the background (black):
every (tile, splat) pair of a frame lies in such a tile, so a crowded view puts all of its
pairs in that share. Usage: tile_share.py IMAGE.png [TILE]. Prints "covered C of T tiles (P%)".
Reads 8-bit RGB/RGBA PNGs (what splatview --out writes), without any library beyond zlib."""
import struct
import sys
import zlib


def read_png(path):
    data = open(path, 'rb').read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        sys.exit(f'{path}: not a PNG')
    pos, idat, w = 8, b'', 0
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b'IHDR':
            w, h, depth, colour = struct.unpack('>IIBB', body[:10])
            if depth != 8 or colour not in (2, 6):
                sys.exit(f'{path}: only 8-bit RGB or RGBA')
            bpp = 3 if colour == 2 else 4
        elif kind == b'IDAT':
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
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
        rows.append(line)
        prev = line
    return w, h, bpp, rows


def main():
    w, h, bpp, rows = read_png(sys.argv[1])
    tile = int(sys.argv[2]) if len(sys.argv) > 2 else 16
    tw, th = (w + tile - 1) // tile, (h + tile - 1) // tile
    covered = set()
    for y, line in enumerate(rows):
        for x in range(w):
            if any(line[x * bpp + c] for c in range(3)):
                covered.add((y // tile) * tw + x // tile)
    n = tw * th
    print(f'covered {len(covered)} of {n} tiles ({100.0 * len(covered) / n:.1f}%)')


main()
