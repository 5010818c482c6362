#!/usr/bin/env python3
"""Turn sched_experiment's CSV into docs/results/sched.md and sched.png.

usage: plot_sched.py SCHED.csv[,SCHED2.csv,...] OUT_DIR [SEEDS]
The first CSV (the first seed) gives the detailed tables; with several CSVs
(one per stream seed, SEEDS = their seeds, comma-separated), the headline
figures are also given over all of them as mean +- 95% interval and written
to OUT_DIR/sched.figures.json for the claim rules (experiments/claims.json).
Every number written is computed from the CSVs; nothing is copied from the
paper except the paper's own claims, which are labelled as such."""
import csv
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import seedstats  # noqa: E402

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(path):
    rows = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            key = (r["workload"], r["cache"], r["mode"], int(r["divergence"]), r["variant"])
            rows[key] = {k: (v if k in ("workload", "cache", "mode", "variant") else int(v)) for k, v in r.items()}
    return rows


def pct(x):
    return f"{100.0 * x:.1f}%"


def headline(rows):
    """The figures the claim rules judge, from one seed's runs."""
    def g(w, c, d, v):
        return rows[(w, c, "batch", d, v)]

    def hit(r):
        return r["pt_hits"] / r["pt_accesses"] if r["pt_accesses"] else 0.0

    divs = sorted({k[3] for k in rows})
    f = {}
    for w in sorted({k[0] for k in rows}):
        f[f"removed_pct_d2_{w}"] = 100.0 * (1.0 - g(w, "ptw-cache", 2, "tree")["refs_issued"] /
                                            g(w, "ptw-cache", 2, "serial-1")["refs_issued"])
        f[f"hit_rate_delta_pts_ptw_cache_{w}"] = 100.0 * sum(
            hit(g(w, "ptw-cache", d, "tree")) - hit(g(w, "ptw-cache", d, "serial-1")) for d in divs) / len(divs)
        f[f"tree_faster_than_8naive_pct_d4_{w}"] = 100.0 * (
            g(w, "ptw-cache", 4, "serial-8")["cycles"] / g(w, "ptw-cache", 4, "tree")["cycles"] - 1.0)
    return f


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: plot_sched.py SCHED.csv[,SCHED2.csv,...] OUT_DIR [SEEDS]")
    paths = sys.argv[1].split(",")
    seeds = [int(x) for x in sys.argv[3].split(",")] if len(sys.argv) == 4 else list(range(1, len(paths) + 1))
    if len(seeds) != len(paths):
        sys.exit("plot_sched.py: %d CSVs for %d seeds" % (len(paths), len(seeds)))
    every = [load(p) for p in paths]
    rows = every[0]
    out = sys.argv[2]
    per_seed = [headline(r) for r in every]
    figures = {k: [h[k] for h in per_seed] for k in per_seed[0]}
    seedstats.write_figures(out, "sched", figures, seeds,
                            note="walk reads removed (%), hit-rate change (points), speedup of 1 scheduled "
                                 "walker over 8 naive ones (%), per stream seed")
    workloads = sorted({k[0] for k in rows})
    caches = sorted({k[1] for k in rows}, key=lambda c: (c != "ptw-cache", c))
    divs = sorted({k[3] for k in rows})
    warps = next(iter(rows.values()))["warps"]

    def g(w, c, d, v, mode="batch"):
        return rows[(w, c, mode, d, v)]

    def removed(w, c, d, v="tree", mode="batch"):
        s, t = g(w, c, d, "serial-1", mode), g(w, c, d, v, mode)
        return 1.0 - t["refs_issued"] / s["refs_issued"]

    def hit_rate(r):
        return r["pt_hits"] / r["pt_accesses"] if r["pt_accesses"] else 0.0

    def dram_avoided(r):  # walk references that did not go to DRAM (merged or hit)
        return 1.0 - r["dram_reads"] / r["refs_walked"]

    def cyc_per_warp(r):
        return r["cycles"] / r["warps"]

    # ---- figure -------------------------------------------------------------
    fig, ax = plt.subplots(2, 2, figsize=(12, 9))
    styles = {"bfs": "-", "mummergpu": "--"}
    a = ax[0][0]
    for w in workloads:
        a.plot(divs, [100 * removed(w, "ptw-cache", d) for d in divs], styles[w], marker="o", ms=3,
               label=f"{w}: tree")
        a.plot(divs, [100 * removed(w, "ptw-cache", d, "pairwise") for d in divs], styles[w], lw=0.8,
               label=f"{w}: pairwise")
    for w in workloads:
        a.plot(divs, [100 * removed(w, "ptw-cache", d, mode="stream") for d in divs], styles[w], color="C3",
               lw=0.8, label=f"{w}: tree, miss-under-miss stream")
    a.axhspan(10, 20, color="grey", alpha=0.15, label="paper: 10-20% (whole runs)")
    a.set_xlabel("page divergence (distinct pages per warp)")
    a.set_ylabel("walk reads removed vs serial walker (%)")
    a.set_title("Reads removed by scheduling")
    a.legend(fontsize=8)
    a.grid(alpha=0.3)

    a = ax[0][1]
    colors = {"ptw-cache": "C0", "shared-l2": "C1", "shared-l2-busy": "C3"}
    for c in caches:
        for w in workloads:
            a.plot(divs, [100 * dram_avoided(g(w, c, d, "tree")) for d in divs], styles[w], color=colors[c],
                   label=f"{w}, {c}: tree")
            a.plot(divs, [100 * dram_avoided(g(w, c, d, "serial-1")) for d in divs], styles[w],
                   color=colors[c], alpha=0.4, lw=0.8, label=f"{w}, {c}: serial")
    a.set_xlabel("page divergence")
    a.set_ylabel("walk references served without DRAM (%)")
    a.set_title("Merged + line-cache hits, per walk reference")
    a.legend(fontsize=6, ncol=2, loc="lower right")
    a.grid(alpha=0.3)

    a = ax[1][0]
    vstyle = {"serial-1": ("C7", "1 naive walker"), "serial-8": ("C1", "8 naive walkers"),
              "tree": ("C0", "1 scheduled walker (tree)"), "pairwise": ("C2", "1 scheduled walker (pairwise)")}
    for v, (col, lab) in vstyle.items():
        for w in workloads:
            a.plot(divs, [cyc_per_warp(g(w, "ptw-cache", d, v)) for d in divs], styles[w], color=col,
                   lw=3 if v == "tree" else 1.2, alpha=0.5 if v == "tree" else 1.0, label=f"{lab}, {w}")
    a.set_yscale("log")
    a.set_xlabel("page divergence")
    a.set_ylabel("cycles per warp's walk batch (log)")
    a.set_title("Walk-batch latency, ptw-cache")
    a.legend(fontsize=6)
    a.grid(alpha=0.3, which="both")

    a = ax[1][1]
    for w in workloads:
        a.plot(divs, [cyc_per_warp(g(w, "ptw-cache", d, "serial-8")) / cyc_per_warp(g(w, "ptw-cache", d, "tree"))
                      for d in divs], styles[w], color="C1", label=f"8 naive / tree, {w}")
        a.plot(divs, [cyc_per_warp(g(w, "ptw-cache", d, "tree")) / cyc_per_warp(g(w, "ptw-cache", d, "pairwise"))
                      for d in divs], styles[w], color="C2", label=f"tree / pairwise, {w}")
    for w in workloads:
        a.plot(divs, [cyc_per_warp(g(w, "ptw-cache", d, "serial-8", "stream")) /
                      cyc_per_warp(g(w, "ptw-cache", d, "tree", "stream")) for d in divs], styles[w], color="C3",
               label=f"8 naive / tree, both miss-under-miss, {w}")
    a.axhline(1.0, color="k", lw=0.5)
    a.set_xlabel("page divergence")
    a.set_ylabel("cycle ratio")
    a.set_title("Speed: 1 scheduled vs 8 naive walkers; tree vs pairwise")
    a.legend(fontsize=8)
    a.grid(alpha=0.3)
    fig.suptitle(f"Page-walk scheduling (pichai14: 32 MSHRs), {warps} warps per point")
    fig.tight_layout()
    fig.savefig(f"{out}/sched.png", dpi=110)

    # ---- markdown -------------------------------------------------------------
    L = []
    L.append("# Page-walk scheduling: results")
    L.append("")
    L.append("Generated by `experiments/sched/run.sh` (program `experiments/sched/sched_experiment.cpp`,"
             " model `models/src/walk_sched.c`, method in `docs/walk_scheduler.md`). Do not edit by hand.")
    L.append("")
    L.append(f"{warps} warps per point; each warp misses on `D` distinct pages (page divergence) and its walks run as "
             "one batch through a 32-MSHR scheduler; the page-table-line cache (128 B lines) persists across "
             "batches. bfs: a warp's pages fall in an 8 MiB window at a random place of a 4 GiB mapped region; "
             "mummergpu: anywhere in the 4 GiB. DRAM 200 cycles; `ptw-cache` = dedicated 16 KiB 4-way line cache "
             "(hit 20, miss 20 + DRAM); `shared-l2` = 64 KiB 8-way slice (hit 40, miss 40 + DRAM) that also sees "
             "0.25 random data lines per cycle; `shared-l2-busy` the same with 1 data line per cycle.")
    L.append("")
    L.append("![sched](sched.png)")
    L.append("")

    def avg(f, w, c):
        return sum(f(w, c, d) for d in divs) / len(divs)

    L.append("## Figures over seeds")
    L.append("")
    L.append(f"Stream seeds {', '.join(str(x) for x in seeds)}: the mean over them "
             "± its 95% interval; the claims are judged by their rules in `experiments/claims.json` "
             f"(`docs/results/README.md`). The tables below are seed {seeds[0]}'s.")
    L.append("")
    L.append("| figure | bfs | mummergpu |")
    L.append("|---|---|---|")
    for label, key in (("walk reads removed at D=2 (%)", "removed_pct_d2_"),
                       ("line-cache hit rate, tree minus serial, mean over D, ptw-cache (points)",
                        "hit_rate_delta_pts_ptw_cache_"),
                       ("1 scheduled walker faster than 8 naive ones at D=4 (%)", "tree_faster_than_8naive_pct_d4_")):
        L.append(f"| {label} | " + " | ".join(seedstats.fmt(seedstats.summary(figures[key + w]), 2)
                                              for w in workloads) + " |")
    L.append("")
    L.append("## Headline numbers (computed from the runs)")
    L.append("")
    L.append("| measure | paper (section 6.3) | bfs | mummergpu |")
    L.append("|---|---|---|---|")

    def rem_at(d):
        return [pct(removed(w, "ptw-cache", d)) for w in workloads]

    L.append("| walk reads removed, D=2 | 10-20% over whole runs | " + " | ".join(rem_at(2)) + " |")
    L.append("| walk reads removed, D=4 | | " + " | ".join(rem_at(4)) + " |")
    L.append("| walk reads removed, D=32 | | " + " | ".join(rem_at(32)) + " |")
    L.append("| walk reads removed, mean over D=1..32 | | " +
             " | ".join(pct(avg(lambda w, c, d: removed(w, c, d), w, "ptw-cache")) for w in workloads) + " |")

    def hr_delta(w, c, d):
        return hit_rate(g(w, c, d, "tree")) - hit_rate(g(w, c, d, "serial-1"))

    def dram_delta(w, c, d):
        return dram_avoided(g(w, c, d, "tree")) - dram_avoided(g(w, c, d, "serial-1"))

    for c in caches:
        L.append(f"| line-cache hit rate of issued reads, tree minus serial, mean over D ({c}) | +5-8% | " +
                 " | ".join(f"{100 * avg(hr_delta, w, c):+.1f} pts" for w in workloads) + " |")
    for c in caches:
        L.append(f"| walk references kept from DRAM, tree minus serial, mean over D ({c}) | | " +
                 " | ".join(f"{100 * avg(dram_delta, w, c):+.1f} pts" for w in workloads) + " |")

    def speed(w, d, a_, b_):
        return cyc_per_warp(g(w, "ptw-cache", d, a_)) / cyc_per_warp(g(w, "ptw-cache", d, b_))

    L.append("| 8 naive walkers / 1 scheduled walker, cycles, D=4 | 1 PTW beats 8 naive by ~10% (performance) | " +
             " | ".join(f"{speed(w, 4, 'serial-8', 'tree'):.2f}x" for w in workloads) + " |")
    L.append("| ... D=16 | | " + " | ".join(f"{speed(w, 16, 'serial-8', 'tree'):.2f}x" for w in workloads) + " |")
    L.append("| ... D=32 | | " + " | ".join(f"{speed(w, 32, 'serial-8', 'tree'):.2f}x" for w in workloads) + " |")
    L.append("| tree / pairwise, cycles, max over D | tree close to pairwise | " +
             " | ".join(f"{max(speed(w, d, 'tree', 'pairwise') for d in divs):.3f}x" for w in workloads) + " |")
    L.append("| tree / pairwise, reads issued, max over D | | " +
             " | ".join(f"{max(g(w, 'ptw-cache', d, 'tree')['refs_issued'] / g(w, 'ptw-cache', d, 'pairwise')['refs_issued'] for d in divs):.4f}x" for w in workloads) + " |")
    L.append("")

    for w in workloads:
        L.append(f"## {w}, ptw-cache")
        L.append("")
        L.append("| D | reads serial | reads tree | removed | same-line b2b (tree) | hit rate serial | hit rate tree "
                 "| DRAM reads serial | DRAM reads tree | cyc/warp 1 naive | cyc/warp 8 naive | cyc/warp tree "
                 "| cyc/warp pairwise | tree passes | pairwise passes |")
        L.append("|" + "---|" * 15)
        for d in divs:
            if d not in (1, 2, 3, 4, 6, 8, 12, 16, 24, 32):
                continue
            s1, s8, t, p = (g(w, "ptw-cache", d, v) for v in ("serial-1", "serial-8", "tree", "pairwise"))
            L.append(f"| {d} | {s1['refs_issued']} | {t['refs_issued']} | {pct(removed(w, 'ptw-cache', d))} "
                     f"| {t['same_line_b2b']} | {pct(hit_rate(s1))} | {pct(hit_rate(t))} | {s1['dram_reads']} "
                     f"| {t['dram_reads']} | {cyc_per_warp(s1):.0f} | {cyc_per_warp(s8):.0f} | {cyc_per_warp(t):.0f} "
                     f"| {cyc_per_warp(p):.0f} | {t['scan_passes']} | {p['scan_passes']} |")
        L.append("")
    L.append("## Miss under miss (beyond the paper)")
    L.append("")
    L.append("The paper's TLB serves hits under misses but leaves misses under misses to future work, so the "
             "tables above run one warp's walks at a time. Here the misses of all warps instead enter the 32 MSHRs "
             "in warp order as MSHRs free up (one `gmmu_walk_sched_run` per point, ptw-cache).")
    L.append("")
    L.append("| workload | D | removed, tree | removed, pairwise | cyc/warp 8 naive | cyc/warp tree "
             "| cyc/warp pairwise | 8 naive / tree |")
    L.append("|---|---|---|---|---|---|---|---|")
    for w in workloads:
        for d in (1, 2, 4, 8, 16, 32):
            s8, t, p = (g(w, "ptw-cache", d, v, "stream") for v in ("serial-8", "tree", "pairwise"))
            L.append(f"| {w} | {d} | {pct(removed(w, 'ptw-cache', d, 'tree', 'stream'))} "
                     f"| {pct(removed(w, 'ptw-cache', d, 'pairwise', 'stream'))} | {cyc_per_warp(s8):.0f} "
                     f"| {cyc_per_warp(t):.0f} | {cyc_per_warp(p):.0f} "
                     f"| {cyc_per_warp(s8) / cyc_per_warp(t):.2f}x |")
    L.append("")
    L.append("| workload | tree / pairwise reads issued, max over D | tree / pairwise cycles, max over D |")
    L.append("|---|---|---|")
    for w in workloads:
        rr = max(g(w, "ptw-cache", d, "tree", "stream")["refs_issued"] /
                 g(w, "ptw-cache", d, "pairwise", "stream")["refs_issued"] for d in divs)
        cc = max(g(w, "ptw-cache", d, "tree", "stream")["cycles"] /
                 g(w, "ptw-cache", d, "pairwise", "stream")["cycles"] for d in divs)
        L.append(f"| {w} | {rr:.3f}x | {cc:.3f}x |")
    L.append("")
    L.append("## Shared-cache scenarios (tree vs 1 naive walker)")
    L.append("")
    L.append("| workload | cache | D | hit rate serial | hit rate tree | DRAM reads serial | DRAM reads tree |")
    L.append("|---|---|---|---|---|---|---|")
    for w in workloads:
        for c in caches:
            if c == "ptw-cache":
                continue
            for d in (2, 8, 32):
                s1, t = g(w, c, d, "serial-1"), g(w, c, d, "tree")
                L.append(f"| {w} | {c} | {d} | {pct(hit_rate(s1))} | {pct(hit_rate(t))} | {s1['dram_reads']} "
                         f"| {t['dram_reads']} |")
    L.append("")
    with open(f"{out}/sched.md", "w") as f:
        f.write("\n".join(L))
    print(f"plot_sched: wrote {out}/sched.md and {out}/sched.png")


if __name__ == "__main__":
    main()
