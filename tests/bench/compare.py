#!/usr/bin/env python3
"""Side-by-side table of sortbench and cub_sort CSV results (same columns:
device,n,algo,key_bits,dist,median_ms,min_ms,max_ms,mpairs_per_s,verified), with the ratio of
each of our algorithms' median time to CUB's. Only the "uniform" distribution is compared.

usage: compare.py RESULTS.csv [MORE.csv ...] [--ref cub]
"""
import argparse
import csv
import sys


def load(paths):
    rows = []
    for path in paths:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                if r.get("n") is None or r.get("median_ms") in (None, ""):
                    continue
                try:
                    r["n"] = int(r["n"])
                    r["key_bits"] = int(r["key_bits"])
                    r["median_ms"] = float(r["median_ms"])
                    r["min_ms"] = float(r["min_ms"])
                except ValueError:
                    sys.exit(f"compare.py: {path}: bad row {r}")
                rows.append(r)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", nargs="+", metavar="RESULTS.csv")
    ap.add_argument("--ref", default="cub", help="the algorithm the ratios are taken against (default cub)")
    args = ap.parse_args()
    ref = args.ref
    rows = [r for r in load(args.results) if r.get("dist", "uniform") == "uniform"]
    algos = []
    for r in rows:
        if r["algo"] not in algos:
            algos.append(r["algo"])
    ours = [a for a in algos if not a.startswith("cub")]
    cubs = [a for a in algos if a.startswith("cub")]
    table = {}
    for r in rows:
        table[(r["n"], r["key_bits"], r["algo"])] = r
    keys = sorted({(r["n"], r["key_bits"]) for r in rows}, key=lambda k: (-k[1], k[0]))
    head = f"{'N':>10} {'bits':>4}" + "".join(f" {a + ' ms':>15}" for a in cubs + ours)
    head += "".join(f" {a + '/' + ref:>16}" for a in ours)
    print(head)
    bad = False
    for n, bits in keys:
        line = f"{n:>10} {bits:>4}"
        for a in cubs + ours:
            r = table.get((n, bits, a))
            if r is None:
                line += f" {'-':>15}"
            else:
                mark = "" if r["verified"] in ("yes", "true", "True") else "!"
                bad |= mark != ""
                line += f" {r['median_ms']:>14.4f}{mark or ' '}"
        base = table.get((n, bits, ref))
        for a in ours:
            r = table.get((n, bits, a))
            if r is None or base is None or base["median_ms"] <= 0:
                line += f" {'-':>16}"
            else:
                line += f" {r['median_ms'] / base['median_ms']:>15.2f}x"
        print(line)
    if bad:
        print("! = result NOT verified against the CPU reference")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
