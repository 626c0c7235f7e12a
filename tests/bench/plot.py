#!/usr/bin/env python3
"""Plots sort throughput (million pairs per second) against N from sortbench / cub_sort CSV
files (columns device,n,algo,key_bits,dist,median_ms,...,mpairs_per_s,verified) into an SVG:
one line per algorithm, uniform keys, one key width.

usage: plot.py RESULTS.csv [MORE.csv ...] [--bits 32] [-o throughput.svg]
"""
import argparse
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

STYLE = {
    "onesweep": dict(color="tab:blue", marker="o"),
    "quaternary": dict(color="tab:orange", marker="s"),
    "cub": dict(color="tab:green", marker="^"),
    "cub_const": dict(color="tab:green", marker="v", linestyle="--"),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", nargs="+", metavar="RESULTS.csv")
    ap.add_argument("--bits", type=int, default=32, help="key width to plot (default 32)")
    ap.add_argument("-o", dest="out", default="throughput.svg", help="output file (default throughput.svg)")
    args = ap.parse_args()
    bits, out = args.bits, args.out
    series, device = {}, None
    for path in args.results:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                if r.get("dist", "uniform") != "uniform" or int(r["key_bits"]) != bits:
                    continue
                n, ms = int(r["n"]), float(r["median_ms"])
                if ms <= 0:
                    continue
                series.setdefault(r["algo"], []).append((n, n / (ms * 1e3)))
                device = device or r.get("device")
    if not series:
        sys.exit(f"plot.py: no uniform rows with key_bits={bits} in {', '.join(args.results)}")
    fig, ax = plt.subplots(figsize=(8, 5))
    for algo, pts in sorted(series.items()):
        pts.sort()
        ax.plot([p[0] for p in pts], [p[1] for p in pts], label=algo, **STYLE.get(algo, {}))
    ax.set_xscale("log", base=2)
    ax.set_xlabel("N (key-value pairs)")
    ax.set_ylabel("throughput (Mpairs/s, median)")
    ax.set_title(f"{bits}-bit keys + 32-bit payloads, uniform random" + (f" — {device}" if device else ""))
    ax.grid(True, which="both", alpha=0.3)
    ax.set_ylim(bottom=0)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out)  # format from the extension (.svg, .png)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
