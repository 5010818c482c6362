"""Runs gmmu-sim on the pichai14 machines with the issue/commit SM and writes
docs/results/warp_sched.{md,png}.

Fixed before the first run (docs/warp_sched.md gives the mechanisms):
  machines: pichai14 (augmented MMU), pichai14-naive, and pichai14 with
  mmu.bypass=true (no TLB), each with sm.model=issue;
  kernels: the six ISA kernels of pichai's benchmarks with their default
  grid (256 blocks of 8 warps) and trip counts, seed 1;
  scheduler parameters: the documented defaults (CCWS: 16-entry 8-way VTAs,
  base 100, hit 100, decay 1; TA-CCWS: cache weight 1; TCWS: EPW 8,
  LRU(1,2,4,8));
  sweeps: TA-CCWS tlb_weight 1 (= CCWS), 2, 4, 8; TCWS EPW 1, 2, 4, 8, 16;
  TCWS depth weights (0,0,0,0), (1,1,1,1), (1,2,4,8) at EPW 8.
Performance is 1 / simulated time; every figure is relative to CCWS without
TLBs (the paper's normalisation for figures 13-18).
"""
import os
import sys

from common import AUG, KERNELS, NAIVE, NOTLB, SEEDS, geomean, run_seeded, seed_text, write_atomic

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import realkernels  # noqa: E402
import seedstats  # noqa: E402

sim, out_dir = sys.argv[1], sys.argv[2]
os.makedirs(out_dir, exist_ok=True)
jobs = int(os.environ.get("JOBS", "2"))

TA_WEIGHTS = [1, 2, 4, 8]
EPWS = [1, 2, 4, 8, 16]
DEPTHS = [(0, 0, 0, 0), (1, 1, 1, 1), (1, 2, 4, 8)]


def sched(name, *extra):
    return (f"sm.warp_scheduler={name}",) + tuple(extra)


def ta(wt):
    return sched("ta-ccws", f"sm.ccws.tlb_weight={wt}") if wt != 1 else sched("ccws")


def tcws(epw=8, d=(1, 2, 4, 8)):
    e = () if epw == 8 else (f"sm.tcws.epw={epw}",)
    w = () if d == (1, 2, 4, 8) else tuple(f"sm.tcws.weight_d{i}={v}" for i, v in enumerate(d))
    return sched("tcws", *e, *w)


plan = []
for k in KERNELS:
    for m in (NOTLB, NAIVE, AUG):
        for s in ("lrr", "gto", "ccws"):
            plan.append((m, k, sched(s)))
    for wt in TA_WEIGHTS:
        plan.append((AUG, k, ta(wt)))
    for epw in EPWS:
        plan.append((AUG, k, tcws(epw)))
    for d in DEPTHS:
        plan.append((AUG, k, tcws(8, d)))
plan = list(dict.fromkeys(plan))


# The headline runs (the figures of experiments/claims.json), once per seed:
# CCWS without, with naive and with augmented TLBs, and TCWS at its
# documented default (EPW 8, LRU(1,2,4,8)) with augmented TLBs.
HEAD = [(m, k, sched("ccws")) for k in KERNELS for m in (NOTLB, NAIVE, AUG)] + \
    [(AUG, k, tcws()) for k in KERNELS]
res, by_seed = run_seeded(sim, plan, HEAD, jobs, "warp_sched")


def g_seed(m, s):
    """Per seed: geomean over the kernels of CCWS-without-TLBs time / time."""
    return [geomean([by_seed[(NOTLB, k, sched("ccws"))][i]["sim_time_ns"] / by_seed[(m, k, s)][i]["sim_time_ns"]
                     for k in KERNELS]) for i in range(len(SEEDS))]


ccws_naive, ccws_aug, tcws_aug = g_seed(NAIVE, sched("ccws")), g_seed(AUG, sched("ccws")), g_seed(AUG, tcws())
figures = {
    "ccws_naive_loss_pct": [100 * (1 - x) for x in ccws_naive],
    "ccws_augmented_loss_pct": [100 * (1 - x) for x in ccws_aug],
    "tcws_augmented_rel": tcws_aug,
    # The share of CCWS's loss with augmented TLBs that TCWS wins back.
    "tcws_recovered_pct_of_loss": [100 * (t - c) / (1 - c) for t, c in zip(tcws_aug, ccws_aug)],
}
# The real kernels (experiments/realkernels.py): every run at every seed.
real = realkernels.results(sim, jobs)
RK, RSEEDS = realkernels.KERNELS, realkernels.SEEDS
REAL_COLS = ["naive, CCWS", "augmented, CCWS", "augmented, TCWS"]


def rrel(i, m, k):
    """Real kernel k: performance of m relative to CCWS without TLBs at the i-th seed."""
    return real[("none, CCWS", k)][i]["sim_time_ns"] / real[(m, k)][i]["sim_time_ns"]


def rg(m):
    return [geomean([rrel(i, m, k) for k in RK]) for i in range(len(RSEEDS))]


r_naive, r_aug, r_tcws = rg("naive, CCWS"), rg("augmented, CCWS"), rg("augmented, TCWS")
real_figures = {
    "ccws_naive_loss_pct_real": [100 * (1 - x) for x in r_naive],
    "ccws_augmented_loss_pct_real": [100 * (1 - x) for x in r_aug],
    "tcws_augmented_rel_real": r_tcws,
    "tcws_recovered_pct_of_loss_real": [100 * (t - c) / (1 - c) for t, c in zip(r_tcws, r_aug)],
}
seedstats.write_figures(out_dir, "warp_sched", figures, SEEDS,
                        note="geomeans over the six ISA kernels, relative to CCWS without TLBs; *_real: "
                             "over the six real kernels (experiments/realkernels.py)")
realkernels.add_figures(out_dir, "warp_sched", real_figures)


def t(m, k, s):
    return res[(m, k, s)]["sim_time_ns"]


def rel(m, k, s):
    """Performance relative to CCWS without TLBs (1 = as fast)."""
    return t(NOTLB, k, sched("ccws")) / t(m, k, s)


def smsum(m, k, s, field):
    return sum(v[field] for n, v in res[(m, k, s)]["gpu"].items()
               if n.startswith("sm") and isinstance(v, dict) and field in v)


def bits(m, k, s):
    return res[(m, k, s)]["gpu"]["sm0"]["throttle_state_bits"]


lines = []
w = lines.append
w("# pichai-asplos14: TLB-aware warp scheduling (CCWS, TA-CCWS, TCWS)\n")
w("Generated by `experiments/warp_sched/run.sh` (`make reproduce`) from the platform's own runs: "
  "the `pichai14` machines (30 cores x 48 warps) with the issue/commit SM (`sm.model=issue`) "
  "running the six ISA kernels (docs/simt.md) with their default grids and trip counts; "
  "no TLB = `pichai14` with `mmu.bypass=true`, naive = `pichai14-naive`, augmented = `pichai14`. "
  "Every figure is performance relative to CCWS without TLBs (its simulated time divided by the "
  "run's): below 1 is slower. Scheduler parameters are the documented defaults "
  "(docs/warp_sched.md), fixed before any run; the paper's claims are in their own column.\n")

w("## The real kernels: CCWS and TCWS\n")
w("The six benchmarks as their real algorithms over real-shaped inputs (docs/kernels.md; "
  "[kernels.md](kernels.md)), performance relative to CCWS without TLBs. " + realkernels.seed_text() +
  " The synthetic kernels' tables follow.\n")
w("| kernel | " + " | ".join(REAL_COLS) + " |")
w("|---|" + "---|" * len(REAL_COLS))
for k in RK:
    w(f"| {k} | " + " | ".join(f"{sum(rrel(i, m, k) for i in range(len(RSEEDS))) / len(RSEEDS):.3f}"
                               for m in REAL_COLS) + " |")
w("")
realkernels.figure_table(w, real_figures, [
    ("CCWS with naive TLBs: loss against CCWS without (%, geomean)", "ccws_naive_loss_pct_real", "%", "30-50%"),
    ("CCWS with augmented TLBs: loss against CCWS without (%, geomean)", "ccws_augmented_loss_pct_real", "%",
     "still loses"),
    ("TCWS with augmented TLBs, relative to CCWS without (geomean)", "tcws_augmented_rel_real", "", ""),
    ("share of CCWS's augmented-TLB loss that TCWS wins back (%)", "tcws_recovered_pct_of_loss_real", "%",
     "over half")])
w("TA-CCWS's weights, TCWS's entries per warp and depth weights (figures 16-18) are not rerun on "
  "the real kernels (`make reproduce`'s time); they stay on the synthetic kernels below.\n")

w("## Headline figures over seeds (synthetic kernels)\n")
w(seed_text(len(KERNELS), 4) + "\n")
w("| figure | mean ± 95% | " + " | ".join(f"seed {sd}" for sd in SEEDS) + " |")
w("|---|---|" + "---|" * len(SEEDS))
for label, name, unit in [
        ("CCWS with naive TLBs: loss against CCWS without (%, geomean)", "ccws_naive_loss_pct", "%"),
        ("CCWS with augmented TLBs: loss against CCWS without (%, geomean)", "ccws_augmented_loss_pct", "%"),
        ("TCWS (EPW 8, LRU(1,2,4,8)) with augmented TLBs, relative to CCWS without (geomean)",
         "tcws_augmented_rel", ""),
        ("share of CCWS's augmented-TLB loss that TCWS wins back (%): (TCWS - CCWS) / (1 - CCWS)",
         "tcws_recovered_pct_of_loss", "%")]:
    sm = seedstats.summary(figures[name])
    w(f"| {label} | {seedstats.fmt(sm, 3)}{unit} | " + " | ".join(f"{x:.3f}{unit}" for x in figures[name]) + " |")
w("")
w("Every table below is seed 1.\n")

w("## Kernels as run\n")
w("| kernel | page divergence | CCWS gain over GTO without TLBs | VTA hits (CCWS, no TLB) | "
  "warp-cycles throttled (CCWS, no TLB) |")
w("|---|---|---|---|---|")
for k in KERNELS:
    w(f"| {k} | {res[(NOTLB, k, sched('ccws'))]['gpu']['sm0']['page_divergence_avg']:.2f} | "
      f"{t(NOTLB, k, sched('gto')) / t(NOTLB, k, sched('ccws')):.3f} | "
      f"{smsum(NOTLB, k, sched('ccws'), 'vta_hits'):,} | "
      f"{smsum(NOTLB, k, sched('ccws'), 'stall_throttled'):,} |")
w("")

w("## Figure 13: schedulers with and without TLBs\n")
cols13 = [("LRR, no TLB", NOTLB, sched("lrr")), ("GTO, no TLB", NOTLB, sched("gto")),
          ("GTO, naive", NAIVE, sched("gto")), ("CCWS, naive", NAIVE, sched("ccws")),
          ("GTO, augmented", AUG, sched("gto")), ("CCWS, augmented", AUG, sched("ccws"))]
w("| kernel | " + " | ".join(c for c, _, _ in cols13) + " |")
w("|---|" + "---|" * len(cols13))
g13 = {}
for c, m, s in cols13:
    g13[c] = geomean([rel(m, k, s) for k in KERNELS])
for k in KERNELS:
    w(f"| {k} | " + " | ".join(f"{rel(m, k, s):.3f}" for _, m, s in cols13) + " |")
w("| **geomean** | " + " | ".join(f"**{g13[c]:.3f}**" for c, _, _ in cols13) + " |")
w("")

w("## Figure 16: TA-CCWS, TLB-miss weight x:1 (augmented)\n")
w("| kernel | " + " | ".join(f"{x}:1" for x in TA_WEIGHTS) + " |")
w("|---|" + "---|" * len(TA_WEIGHTS))
g16 = {x: geomean([rel(AUG, k, ta(x)) for k in KERNELS]) for x in TA_WEIGHTS}
for k in KERNELS:
    w(f"| {k} | " + " | ".join(f"{rel(AUG, k, ta(x)):.3f}" for x in TA_WEIGHTS) + " |")
w("| **geomean** | " + " | ".join(f"**{g16[x]:.3f}**" for x in TA_WEIGHTS) + " |")
w("")

w("## Figure 17: TCWS, VTA entries per warp (augmented, LRU(1,2,4,8))\n")
w("| kernel | " + " | ".join(f"EPW {e}" for e in EPWS) + " |")
w("|---|" + "---|" * len(EPWS))
g17 = {e: geomean([rel(AUG, k, tcws(e)) for k in KERNELS]) for e in EPWS}
for k in KERNELS:
    w(f"| {k} | " + " | ".join(f"{rel(AUG, k, tcws(e)):.3f}" for e in EPWS) + " |")
w("| **geomean** | " + " | ".join(f"**{g17[e]:.3f}**" for e in EPWS) + " |")
w("| state per SM (bits) | " + " | ".join(f"{bits(AUG, KERNELS[0], tcws(e)):,}" for e in EPWS) + " |")
w("")

w("## Figure 18: TCWS, weights of a TLB hit by LRU depth (augmented, EPW 8)\n")
w("| kernel | " + " | ".join("LRU(" + ",".join(map(str, d)) + ")" for d in DEPTHS) + " |")
w("|---|" + "---|" * len(DEPTHS))
g18 = {d: geomean([rel(AUG, k, tcws(8, d)) for k in KERNELS]) for d in DEPTHS}
for k in KERNELS:
    w(f"| {k} | " + " | ".join(f"{rel(AUG, k, tcws(8, d)):.3f}" for d in DEPTHS) + " |")
w("| **geomean** | " + " | ".join(f"**{g18[d]:.3f}**" for d in DEPTHS) + " |")
w("")

ccws_bits = bits(AUG, KERNELS[0], sched("ccws"))
best_ta = max(TA_WEIGHTS, key=lambda x: g16[x])
best_epw = max(EPWS, key=lambda e: g17[e])
w("## Claims\n")
w("| claim | paper (pichai-asplos14) | measured here |")
w("|---|---|---|")
w(f"| CCWS with naive TLBs vs CCWS without | loses heavily (30-50%) | loses "
  f"{100 * (1 - g13['CCWS, naive']):.1f}% (geomean) |")
w(f"| CCWS with augmented TLBs vs CCWS without | still loses | loses "
  f"{100 * (1 - g13['CCWS, augmented']):.1f}% (geomean) |")
w(f"| TA-CCWS as the TLB weight grows | improves; 4:1 within 5-10% of CCWS without TLBs on four "
  f"benchmarks | geomean " + ", ".join(f"{x}:1 {g16[x]:.3f}" for x in TA_WEIGHTS) +
  f"; at 4:1 within 10% on {sum(rel(AUG, k, ta(4)) >= 0.9 for k in KERNELS)} of 6 kernels |")
w(f"| TCWS at its best EPW vs CCWS without TLBs | within 1-15% (geomean within 15%) | EPW {best_epw}: "
  f"{100 * (1 - g17[best_epw]):.1f}% behind (geomean) |")
w(f"| TCWS vs TA-CCWS | TCWS better | TCWS EPW {best_epw} {g17[best_epw]:.3f} vs TA-CCWS "
  f"{best_ta}:1 {g16[best_ta]:.3f} (geomean) |")
w(f"| TCWS state vs CCWS | about half | {bits(AUG, KERNELS[0], tcws(8)):,} vs {ccws_bits:,} bits per SM "
  f"at EPW 8 ({bits(AUG, KERNELS[0], tcws(8)) / ccws_bits:.2f}x) |")
w(f"| LRU-depth weights | LRU(1,2,4,8) best | " +
  ", ".join("(" + ",".join(map(str, d)) + f") {g18[d]:.3f}" for d in DEPTHS) + " |")
w("")

md = "\n".join(lines) + "\n"
write_atomic(os.path.join(out_dir, "warp_sched.md"), md)

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(1, 3, figsize=(15, 4))
    x = range(len(KERNELS))
    wd = 0.8 / len(cols13)
    for i, (c, m, s) in enumerate(cols13):
        ax[0].bar([j + (i - len(cols13) / 2 + 0.5) * wd for j in x], [rel(m, k, s) for k in KERNELS],
                  wd, label=c)
    ax[0].set_xticks(list(x))
    ax[0].set_xticklabels(KERNELS, rotation=25, fontsize=7)
    ax[0].axhline(1.0, color="k", lw=0.5)
    ax[0].set_ylabel("performance vs CCWS without TLBs")
    ax[0].set_title("figure 13")
    ax[0].legend(fontsize=6)
    ax[1].plot(TA_WEIGHTS, [g16[x] for x in TA_WEIGHTS], marker="o")
    ax[1].set_xscale("log", base=2)
    ax[1].set_xlabel("TA-CCWS TLB-miss weight (x:1)")
    ax[1].set_title("figure 16 (geomean)")
    ax[2].plot(EPWS, [g17[e] for e in EPWS], marker="o")
    ax[2].set_xscale("log", base=2)
    ax[2].set_xlabel("TCWS entries per warp")
    ax[2].set_title("figure 17 (geomean)")
    fig.tight_layout()
    tmp_png = os.path.join(out_dir, ".warp_sched.png.tmp.png")
    fig.savefig(tmp_png, dpi=90)
    os.replace(tmp_png, os.path.join(out_dir, "warp_sched.png"))
except ImportError:
    print("warp_sched: matplotlib is missing: the PNG was not updated", file=sys.stderr)
print(md)
