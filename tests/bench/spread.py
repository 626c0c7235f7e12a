#!/usr/bin/env python3
"""Spread over processes of `sortbench --processes K --csv` output: for each configuration
(n, algorithm, key bits, distribution, allocation) the per-process sort medians, the copy
medians beside them (a copy that slows with the sort means the memory is slow, not the
kernels), the lookback steps, best/worst and the worst p99/median.

usage: spread.py RESULTS.csv [MORE.csv ...]
"""
import csv
import sys


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    groups = {}
    for path in sys.argv[1:]:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                if not r.get("median_ms"):
                    continue
                key = (int(r["n"]), r["algo"], int(r["key_bits"]), r["dist"], r.get("alloc", ""))
                groups.setdefault(key, []).append(r)
    print(f"{'n':>9} {'algo':<10} {'bits':>4} {'alloc':<9} {'best':>7} {'worst':>7} {'w/b':>6} {'p99/p50':>7}"
          "  per process: sort ms [copy ms, lookback steps]")
    for key in sorted(groups, key=lambda k: (k[1], k[4], -k[0], -k[2])):
        rows = groups[key]
        med = [float(r["median_ms"]) for r in rows]
        tail = max(float(r["p99_ms"]) / float(r["median_ms"]) for r in rows if float(r["median_ms"]) > 0)
        cells = []
        for r in rows:
            c = f"{float(r['median_ms']):.3f}"
            extra = []
            if r.get("copy_median_ms"):
                extra.append(f"{float(r['copy_median_ms']):.3f}")
            if r.get("lookback_steps"):
                extra.append(r["lookback_steps"])
            if r.get("verified") == "NO":
                extra.append("NOT VERIFIED")
            cells.append(c + (f" [{', '.join(extra)}]" if extra else ""))
        n, algo, bits, dist, alloc = key
        print(f"{n:>9} {algo:<10} {bits:>4} {alloc:<9} {min(med):>7.3f} {max(med):>7.3f} "
              f"{max(med) / min(med):>5.2f}x {tail:>6.2f}x  " + "  ".join(cells))


if __name__ == "__main__":
    main()
