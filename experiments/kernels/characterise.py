#!/usr/bin/env python3
"""Characterisation of the real kernels (docs/kernels.md): properties of the
algorithms and their inputs, not of the MMU, measured by the issue SM with
sm.access_shape on, on the pichai14 machine (30 SMs, 128-entry 4-way L1
TLBs), at 4 KiB and at 2 MiB pages.

Fixed before the first run (and not changed after it):
- each kernel runs its first GRID_BLOCKS thread blocks (GRID_BLOCKS_OF for
  mummergpu; the whole grids are 512-466,489 blocks; the regions, and so
  every address, are the full footprint's);
- SEEDS: three data sets per kernel (the seed draws the input and the
  order in which blocks are handed out);
- the L1 TLB miss rate is misses / (hits + misses) of the L1 TLBs, summed
  over the SMs: per page lookup, as the paper's TLB sees them.

Usage: characterise.py GMMU_SIM OUT_DIR
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
import realkernels  # noqa: E402
import seedstats  # noqa: E402
import sweeplib  # noqa: E402

# bfs's frontier crosses the whole graph, so it cannot run a window of
# blocks, and one whole run at 12 Mi nodes takes about 30 minutes: it runs
# whole on the 128 Ki-node graph of the MMU sweeps (bfs-128k.gk; added
# with lud on 2026-11-29, before their first run here).
KERNELS = ["kmeans", "streamcluster", "pathfinder", "memcached", "mummergpu", "bfs", "hotspot", "backprop",
           "lud"]
FILE_OF = {"bfs": "bfs-128k"}
PAGES = {"4k": 4096, "2m": 2097152}
SEEDS = [1, 2, 3]
GRID_BLOCKS = 240
# mummergpu's 240 blocks take about 9 minutes a run (each thread walks the
# tree from all 81 start positions of its read): it runs 60 (set before its
# first run here), and 30 since 2026-11-30, the window of the MMU sweep
# (experiments/realkernels.py), for make reproduce's time
# (docs/results_integrity.md, the decision's step 4).
GRID_BLOCKS_OF = {"mummergpu": 30, "bfs": None}

# The six pichai benchmarks (the paper's figure 3) and its 4 KiB miss-rate
# range, for the gap sentence.
PICHAI_SIX = ["bfs", "kmeans", "mummergpu", "streamcluster", "pathfinder", "memcached"]
PAPER_MISS_RANGE = (22, 70)
# A miss rate is "at its first-touch floor" when at least this share of its
# misses are first touches (set with the column, before its first run).
FLOOR_SHARE_PCT = 75
# pichai-asplos14, section 3 and figure 3 (the text's numbers; the figure's
# bars per benchmark are not given as numbers), and its 2 MiB remarks.
PAPER = {
    "mem_share": "under 25% for every benchmark",
    "miss_rate": "22-70% over the six benchmarks",
    "div_avg": {"bfs": "> 4", "mummergpu": "> 8", "other": "<= 4 (only bfs and mummergpu above 4)"},
    "div_max": "consistently high (32 for mummergpu)",
    "div_2m": {"mummergpu": "6", "bfs": "3"},
    "span_2m": {"mummergpu": "~12 MB", "bfs": "~6 MB"},
}


def points():
    pts = {}
    for k in KERNELS:
        gk = os.path.join(ROOT, "examples", "kernels", FILE_OF.get(k, k) + ".gk")
        w = GRID_BLOCKS_OF.get(k, GRID_BLOCKS)
        for p, size in PAGES.items():
            pts[(k, p)] = ("pichai14", "kernel",
                           ["sm.model=issue", "sm.access_shape=true", "page_size=%d" % size,
                            "workload.kernel_file=" + gk] + (["workload.grid_blocks=%d" % w] if w else []))
    return pts


def measure(st, page):
    g = st["gpu"]
    sms = [v for k, v in g.items() if k.startswith("sm") and k[2:].isdigit()]
    tlbs = [v for k, v in g.items() if k.startswith("l1_tlb") and k[6:].isdigit()]
    if st["data_check"]["mismatches"] != 0:
        raise SystemExit("characterise: a run failed its data check")
    committed = sum(s["committed"] for s in sms)
    insns = sum(s["mem_insns"] for s in sms)
    hits = sum(t["hits"] for t in tlbs)
    misses = sum(t["misses"] for t in tlbs)
    # Pages each SM touched, at the run's page size: every one is a miss of
    # the SM's own L1 TLB at least once (a first touch), whatever its size.
    touched = sum(s["pages_touched" if page == "4k" else "pages_touched_2m"] for s in sms)
    return {
        "first_touch_pct": 100.0 * touched / (hits + misses),
        "first_touch_of_misses_pct": 100.0 * touched / misses if misses else 0.0,
        "lookups_per_page": (hits + misses) / touched,
        "mem_share_pct": 100.0 * insns / committed,
        "l1_miss_pct": 100.0 * misses / (hits + misses),
        "div_avg": sum(s["page_divergence_avg"] * s["mem_insns"] for s in sms) / insns,
        "div_max": max(s["page_divergence_max"] for s in sms),
        "div2m_avg": sum(s["page_divergence_2m_avg"] * s["mem_insns"] for s in sms) / insns,
        "div2m_max": max(s["page_divergence_2m_max"] for s in sms),
        "span_avg_mib": sum(s["span_avg_bytes"] * s["mem_insns"] for s in sms) / insns / 2**20,
        "span_max_mib": max(s["span_max_bytes"] for s in sms) / 2**20,
    }


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sim, out_dir = sys.argv[1], sys.argv[2]
    realkernels.use_inputs_cache(sim)
    runs = sweeplib.run_points(sim, "kernels", points(), seeds=SEEDS)
    figs = {}
    for (k, p), folders in runs.items():
        per_seed = [measure(sweeplib.stats(f), p) for f in folders]
        for name in per_seed[0]:
            figs["%s_%s_%s" % (name, k, p)] = [m[name] for m in per_seed]
    seedstats.write_figures(out_dir, "kernels", figs, SEEDS,
                            note="characterise.py: first %d blocks of each kernel (mummergpu %d, bfs whole on "
                                 "128 Ki nodes), pichai14"
                            % (GRID_BLOCKS, GRID_BLOCKS_OF["mummergpu"]))
    S = {n: seedstats.summary(v) for n, v in figs.items()}

    def f(name, digits=1):
        return seedstats.fmt(S[name], digits)

    def rows(cols):
        """A table's rows: kernel, page size, then each (figure, digits) of cols."""
        return ["| " + " | ".join([k, {"4k": "4 KiB", "2m": "2 MiB"}[p]] +
                                  [f("%s_%s_%s" % (n, k, p), d) for n, d in cols]) + " |"
                for k in KERNELS for p in PAGES]

    lines = [
        "# The real kernels, characterised",
        "",
        "Generated by `experiments/kernels/run.sh` (`make reproduce`); the kernels",
        "and their inputs are described in `docs/kernels.md`. Each kernel runs its",
        "first %d thread blocks (mummergpu %d; bfs runs whole on a 128 Ki-node graph) on the pichai14 machine (30 SMs," % (GRID_BLOCKS, GRID_BLOCKS_OF["mummergpu"]),
        "128-entry 4-way L1 TLBs, issue SM, round-robin warps), with",
        "`sm.access_shape=true`, at 4 KiB and at 2 MiB pages, seeds %s (mean ± 95%% interval over the seeds)." % ", ".join(map(str, SEEDS)),
        "These are properties of the algorithms and their inputs, not of the MMU",
        "(but for the TLB miss rate, which is the 128-entry TLB's).",
        "",
        "| kernel | pages | memory refs / instructions (%) | L1 TLB miss rate (%) | page divergence avg | max | 2 MiB divergence avg | max | span of a warp access avg (MiB) | max (MiB) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    lines += rows([("mem_share_pct", 1), ("l1_miss_pct", 1), ("div_avg", 2), ("div_max", 0), ("div2m_avg", 2),
                   ("div2m_max", 0), ("span_avg_mib", 2), ("span_max_mib", 0)])
    lines += [
        "",
        "Page divergence and span do not depend on the page size the run maps:",
        "the 4 KiB and 2 MiB rows of a kernel differ only where the page size",
        "changes the timing and so which blocks run when (the 2 MiB divergence",
        "column counts 2 MiB pages in both). The miss rate is the one that moves.",
        "",
        "## Beside pichai-asplos14",
        "",
        "The paper's figure 3 gives, for its six benchmarks at 4 KiB pages:",
        "memory references %s (as a share of instructions); 128-entry TLB miss" % PAPER["mem_share"],
        "rates %s;" % PAPER["miss_rate"],
        "average page divergence above 4 only for bfs and above 8 for mummergpu;",
        "maximum divergence %s. At 2 MiB pages mummer still diverges over 6" % PAPER["div_max"],
        "pages and bfs over 3, their warps spanning about 12 MB and 6 MB (six and",
        "three 2 MB pages: the paper's span reads as pages times the page size; the",
        "span column here is the distance between a warp's lowest and highest",
        "address; the comparable figure here is the 2 MiB divergence).",
        "bfs runs whole on a 128 Ki-node graph (14 MiB, not the paper's footprint",
        "over 1 GiB: a whole run at 12 Mi nodes takes about 30 minutes; docs/kernels.md);",
        "hotspot, backprop and lud are PICLE's (garg-picle), not in the paper's figure 3.",
        "",
        "## Where the misses come from",
        "",
        "Each SM counts the distinct pages its memory instructions touch",
        "(`gpu.smN.pages_touched`, `pages_touched_2m`, `gmmu/footprint.h`). The",
        "SM's L1 TLB is its own, so it misses at least once on every one of them:",
        "touched pages / lookups is the miss rate of a TLB that never evicts (the",
        "first-touch floor), and lookups / touched pages is how often the kernel",
        "comes back to a page. A miss rate near its floor is set by the kernel's",
        "data layout and input size, not by the TLB's capacity.",
        "",
        "| kernel | pages | L1 TLB miss rate (%) | first-touch floor (%) | misses that are first touches (%) | lookups per page touched |",
        "|---|---|---|---|---|---|",
    ]
    lines += rows([("l1_miss_pct", 1), ("first_touch_pct", 1), ("first_touch_of_misses_pct", 1),
                   ("lookups_per_page", 0)])
    # The gaps over 2x against the paper's 4 KiB miss-rate range, each with
    # what the table above measures for it.
    lo, hi = PAPER_MISS_RANGE
    gaps = []
    for k in PICHAI_SIX:
        m = S["l1_miss_pct_%s_4k" % k]["mean"]
        if not (m * 2 < lo or m > 2 * hi):
            continue
        share = S["first_touch_of_misses_pct_%s_4k" % k]["mean"]
        per_page = S["lookups_per_page_%s_4k" % k]["mean"]
        if share >= FLOOR_SHARE_PCT:
            why = ("at its first-touch floor: it reaches a new page once per %.0f lookups, as its "
                   "layout and input dictate, and no TLB would miss less" % per_page)
        else:
            why = ("%.0f%% of its misses are first touches (a new page once per %.0f lookups), the "
                   "rest pages the 128-entry 4-way TLB evicted and the kernel came back to" % (share, per_page))
        gaps.append("- **%s**: %.1f%% (floor %.1f%%), %s." % (k, m, S["first_touch_pct_%s_4k" % k]["mean"], why))
    lines += [
        "",
        "Against the paper's %d-%d%% at 4 KiB pages, the miss rates more than 2x apart:" % (lo, hi),
        "",
    ] + (gaps or ["- none"]) + [
        "",
        "The paper's %d%% needs, even if every miss were a first touch, a new page" % lo,
        "once per %.1f lookups. Where a kernel here sits at its floor, the gap is how" % (100.0 / lo),
        "often the port reaches new pages (its data layout and input size against the",
        "paper's), not the TLB model; where it does not, the 128-entry TLB's",
        "capacity and associativity add misses above the floor, and the table gives",
        "both parts. (\"At its floor\": at least %d%% of the misses are first touches.)" % FLOOR_SHARE_PCT,
        "",
    ]
    text = "\n".join(lines) + "\n"
    tmp = os.path.join(out_dir, "kernels.md.tmp")
    with open(tmp, "w") as fh:
        fh.write(text)
    os.replace(tmp, os.path.join(out_dir, "kernels.md"))
    print("kernels: wrote %s (%.0f s of gmmu-sim)" % (os.path.join(out_dir, "kernels.md"),
                                                   sweeplib.run_seconds([d for v in runs.values() for d in v])))


if __name__ == "__main__":
    main()
