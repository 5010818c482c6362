#!/usr/bin/python3
"""Plot OUT/tlb_probe.csv of `gmmu-sim --workload tlb-probe` like figures 3 and 4
of karnagel-damon17: cycles per access against distance, one line per stride,
with the discovered levels (OUT/tlb_probe.json) marked at their reach.

usage: plot_tlb_probe.py OUT_DIR PNG [TITLE] [--strides S1,S2,...]
"""
import csv
import json
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt


def human(b):
    for unit, n in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= n:
            v = b / n
            return f"{v:g} {unit}" if v == int(v) else f"{v:.3g} {unit}"
    return f"{b} B"


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    opts = [a for a in sys.argv[1:] if a.startswith("--")]
    out, png = args[0], args[1]
    title = args[2] if len(args) > 2 else "tlb-probe"
    only = None
    for o in opts:
        if o.startswith("--strides="):
            only = {int(x) for x in o.split("=", 1)[1].split(",")}
    curves = {}
    with open(f"{out}/tlb_probe.csv") as f:
        for row in csv.DictReader(f):
            s = int(row["stride"])
            curves.setdefault(s, []).append((int(row["distance"]), float(row["cycles_per_access"])))
    levels = json.load(open(f"{out}/tlb_probe.json"))["levels"]
    # Panel 0: every stride; then one panel per level with the paper's pattern
    # (strides page/2, page, 2 x page around the level's reach).
    n = 1 + len(levels)
    fig, axes = plt.subplots(1, n, figsize=(5.2 * n, 4.6), squeeze=False)
    axes = axes[0]

    def draw(ax, strides, lo=None, hi=None):
        for s in strides:
            pts = sorted(p for p in curves.get(s, []) if (lo is None or p[0] >= lo) and (hi is None or p[0] <= hi))
            if pts:
                ax.plot([d / (1 << 20) for d, _ in pts], [c for _, c in pts], marker=".", ms=3,
                        lw=1, label=f"stride {human(s)}")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("distance (MiB)")
        ax.grid(alpha=0.3)

    draw(axes[0], [s for s in sorted(curves) if not only or s in only])
    axes[0].set_ylabel("cycles per access (second pass)")
    axes[0].set_title(f"{title}: all strides", fontsize=10)
    axes[0].legend(fontsize=6, ncol=2, loc="upper left")
    for i, l in enumerate(levels):
        ax = axes[i + 1]
        p, r = l["page_bytes"], l["reach_bytes"]
        draw(ax, [p // 2, p, 2 * p], r / 8, r * 8)
        ax.axvline(r / (1 << 20), color="grey", ls=":", lw=1)
        ax.set_title(f"L{i + 1}: {l['entries']} entries x {human(p)} = {human(r)}, "
                     f"miss +{l['miss_delay_cycles']:g} cyc", fontsize=9)
        ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    fig.savefig(png, dpi=100)


if __name__ == "__main__":
    main()
