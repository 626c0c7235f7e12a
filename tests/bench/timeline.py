#!/usr/bin/env python3
"""Where in time the slow runs are: reads `sortbench --timeline` CSV (n, algo, key_bits, dist,
pid, run, sort_ms, copy_ms, stage ms...; timed runs only) and prints, per process and
configuration, how many runs took over 1.3x the fastest run of that configuration anywhere in
the file, where the first and last of them were, and the sort and copy times of the runs
around them.

usage: timeline.py TIMELINE.csv
"""
import sys
from collections import OrderedDict


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    series = OrderedDict()
    fastest = {}
    with open(sys.argv[1]) as f:
        for line in f:
            p = line.strip().split(",")
            if len(p) < 8:
                continue
            cfg = (int(p[0]), p[1], int(p[2]), p[3])
            sort_ms, copy_ms = float(p[6]), float(p[7])
            series.setdefault((p[4], cfg), []).append((int(p[5]), sort_ms, copy_ms))
            fastest[cfg] = min(fastest.get(cfg, 1e30), sort_ms)
    for (pid, cfg), runs in series.items():
        fast = fastest[cfg]
        slow = [r for r, s, c in runs if s > 1.3 * fast]
        n, algo, bits, dist = cfg
        head = f"pid {pid:>6} n={n:>9} {algo:<10} runs={len(runs):>3} fastest={fast:.3f}"
        if not slow:
            print(f"{head}  no slow run")
            continue
        print(f"{head}  slow runs: {len(slow)} (first at {slow[0]}, last at {slow[-1]})")
        show = sorted({i for r in (slow[0], slow[-1]) for i in range(max(0, r - 3), min(len(runs), r + 4))})
        print("      " + "  ".join(f"#{runs[i][0]}:{runs[i][1]:.3f}/{runs[i][2]:.3f}" for i in show))


if __name__ == "__main__":
    main()
