#!/usr/bin/env python3
"""plot.py TABLE.tsv [...] OUT.svg: PSNR against splats drawn from compare.sh's tables, one panel per
scene and view, one curve per method (splat-transform's decimation, our cut, our cut without the
fade). Plain SVG, no plotting library (none is a build or test dependency)."""
import csv
import math
import sys

COLOURS = {"dec": "#d62728", "cut": "#1f77b4", "cutb": "#2ca02c"}
NAMES = {"dec": "splat-transform --decimate", "cut": "our cut", "cutb": "our cut, blend 0"}
W, H, PAD_L, PAD_B, PAD_T, PAD_R = 300, 220, 44, 34, 24, 10


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: plot.py TABLE.tsv [...] OUT.svg")
    panels = {}  # (scene, view) -> method -> [(drawn %, psnr)]
    for path in sys.argv[1:-1]:
        with open(path, newline="") as f:
            for row in csv.DictReader(f, delimiter="\t"):
                key = (row["scene"], row["view"])
                panels.setdefault(key, {}).setdefault(row["method"], []).append(
                    (float(row["drawn_pct"]), float(row["psnr_db"])))
    keys = sorted(panels)
    cols = 3
    rows = math.ceil(len(keys) / cols)
    ys = [p for k in keys for m in panels[k].values() for _, p in m]
    y0, y1 = math.floor(min(ys) / 5) * 5, math.ceil(max(ys) / 5) * 5
    x0, x1 = math.log10(1.0), math.log10(100.0)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{cols * W}" height="{rows * H + 30}" '
           'font-family="sans-serif" font-size="10">', '<rect width="100%" height="100%" fill="white"/>']
    for i, key in enumerate(keys):
        ox, oy = (i % cols) * W, (i // cols) * H
        pw, ph = W - PAD_L - PAD_R, H - PAD_T - PAD_B

        def px(x):
            return ox + PAD_L + (math.log10(max(x, 1.0)) - x0) / (x1 - x0) * pw

        def py(y):
            return oy + PAD_T + (1 - (y - y0) / (y1 - y0)) * ph

        out.append(f'<text x="{ox + PAD_L}" y="{oy + 14}" font-weight="bold">{key[0]}, {key[1]}</text>')
        out.append(f'<rect x="{ox + PAD_L}" y="{oy + PAD_T}" width="{pw}" height="{ph}" fill="none" stroke="#888"/>')
        for y in range(int(y0), int(y1) + 1, 5):
            out.append(f'<line x1="{ox + PAD_L}" x2="{ox + PAD_L + pw}" y1="{py(y):.1f}" y2="{py(y):.1f}" stroke="#eee"/>')
            out.append(f'<text x="{ox + PAD_L - 4}" y="{py(y) + 3:.1f}" text-anchor="end">{y}</text>')
        for x in (1, 2, 5, 10, 20, 50, 100):
            out.append(f'<text x="{px(x):.1f}" y="{oy + PAD_T + ph + 12}" text-anchor="middle">{x}%</text>')
        out.append(f'<text x="{ox + PAD_L + pw / 2}" y="{oy + H - 6}" text-anchor="middle">splats drawn '
                   '(% of every visible splat)</text>')
        for method, pts in sorted(panels[key].items()):
            pts.sort()
            d = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in pts)
            out.append(f'<polyline points="{d}" fill="none" stroke="{COLOURS.get(method, "#000")}" stroke-width="1.5"/>')
            for x, y in pts:
                out.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="2" fill="{COLOURS.get(method, "#000")}"/>')
    lx = 10
    for method, name in NAMES.items():
        out.append(f'<rect x="{lx}" y="{rows * H + 10}" width="12" height="4" fill="{COLOURS[method]}"/>')
        out.append(f'<text x="{lx + 16}" y="{rows * H + 16}">{name}</text>')
        lx += 190
    out.append(f'<text x="{lx}" y="{rows * H + 16}">y: PSNR (dB) against every splat</text>')
    out.append("</svg>")
    with open(sys.argv[-1], "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
