"""Runs gmmu-sim on the pichai14 configs with the synthetic workloads (the six
pichai-bench workloads on the simple SM, the six ISA "-like" kernels on the
issue/commit SM) and writes docs/results/pichai_synthetic.{md,png}. The real
kernels' page is pichai.md (pichai.py).

Fixed before the first run (docs/pichai_mmu.md gives the reasons):
  footprint 1 GiB (the paper's benchmarks are above 1 GB), 96 memory
  instructions per warp, each benchmark's documented non-memory cycles
  (workload.compute_percent=100), seed 1, latency_step_cycles 1.
Issue/commit SM section: the ISA kernels of the six benchmarks with their
  default grid (256 blocks of 8 warps) and trip counts, seed 1; run-length
  row: 1,024 blocks.
Sensitivity rows: compute_percent 0 and 200; latency_step_cycles 0 and 2.
Non-memory work on the pipeline (sm.compute_on_pipeline, added 2026-11-28
  after the sections above were published, fixed before its first run): the
  same four machines and no TLB with each warp's non-memory cycles occupying
  its SM's one issue pipeline, at compute_percent 100 (one cycle per
  non-memory instruction, the counts documented per benchmark) and 400 (the
  paper's pipeline width of 8 lanes: a 32-lane warp instruction takes 4
  cycles). Nothing else changes; the headline sections keep their settings.
  On the issue/commit SM the same pipeline width is sm.issue_cycles=4 (each
  warp instruction, memory ones included, holds the issue stage 4 cycles),
  run for the four machines and no TLB at the default grid; fixed before
  its first run, after the simple SM's rows above had been seen. Its
  run-length row (augmented, ideal, no TLB at 1,024 blocks) was added after
  the first run showed the ideal TLB faster than no TLB on kmeans-like (the
  SMs' shares of the 256 blocks differ by a block between the runs).
  Sensitivity of the pipeline width (added with it, before its run): the
  geomeans at 2 cycles per warp instruction on both SMs (a 16-lane
  pipeline: compute_percent 200 on the pipeline, sm.issue_cycles=2).
Performance is 1 / simulated time; speedups are against mmu.bypass (no TLB).
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import seedstats  # noqa: E402
import sweeplib  # noqa: E402

sim, out_dir = sys.argv[1], sys.argv[2]
os.makedirs(out_dir, exist_ok=True)
jobs = int(os.environ.get("JOBS", "2"))

BENCHES = ["bfs", "kmeans", "mummergpu", "streamcluster", "pathfinder", "memcached"]
COMMON = ["workload.region_bytes=1073741824", "workload.accesses=96"]


# The same machines with the issue/commit SM running the ISA kernels of the
# six benchmarks (docs/simt.md): each kernel's default grid and trip count.
KERNELS = ["bfs-like", "kmeans-like", "mummer-like", "streamcluster-like", "pathfinder-like",
           "memcached-like"]
ISSUE = ["sm.model=issue"]


MACHINES = ["pichai14-naive", "pichai14-8ptw", "pichai14", "pichai14-ideal"]
ISSUE4 = ("sm.issue_cycles=4",)
PIPE = [("sm.compute_on_pipeline=true",),
        ("sm.compute_on_pipeline=true", "workload.compute_percent=400")]
PIPE2 = ("sm.compute_on_pipeline=true", "workload.compute_percent=200")
ISSUE2 = ("sm.issue_cycles=2",)


def key(cfg, bench, extra):
    return (cfg, bench, tuple(extra))


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


# The runs: (config, bench, extra --set args).
plan = []


def machines_and_no_tlb(b, extra, cfgs=MACHINES):
    """Runs of b on each of cfgs and on no TLB, all with the extra settings."""
    for cfg in cfgs:
        plan.append((cfg, b, list(extra)))
    plan.append(("pichai14", b, ["mmu.bypass=true"] + list(extra)))


for b in BENCHES:
    for cfg in ["pichai14-naive", "pichai14-8ptw", "pichai14", "pichai14-ideal"]:
        plan.append((cfg, b, []))
    plan.append(("pichai14", b, ["mmu.bypass=true"]))
    # Figure 7: a 4-port naive TLB, then hits under miss, then overlap; serial walker.
    plan.append(("pichai14-naive", b, ["l1_tlb.ports=4"]))
    plan.append(("pichai14-naive", b, ["l1_tlb.ports=4", "l1_tlb.hits_under_miss=true"]))
    plan.append(("pichai14-naive", b, ["l1_tlb.ports=4", "l1_tlb.hits_under_miss=true",
                                        "sm.overlap_cache_access=true"]))
    # Figure 6: size x ports on the naive MMU, access time from the scaled model.
    for e in [64, 128, 256, 512]:
        for p in [3, 4, 8, 32]:
            plan.append(("pichai14-naive", b, [f"l1_tlb.entries={e}", f"l1_tlb.ports={p}"]))
    # Sensitivity.
    for cp in [0, 200]:
        for cfg in ["pichai14-naive", "pichai14"]:
            plan.append((cfg, b, [f"workload.compute_percent={cp}"]))
        plan.append(("pichai14", b, ["mmu.bypass=true", f"workload.compute_percent={cp}"]))
    for st in [0, 2]:
        plan.append(("pichai14-naive", b, ["l1_tlb.entries=512", "l1_tlb.ports=32",
                                            f"l1_tlb.latency_step_cycles={st}"]))
    # Non-memory work on the SM's pipeline.
    for pe in PIPE + [PIPE2]:
        machines_and_no_tlb(b, pe)
for k in KERNELS:
    for cfg in ["pichai14-naive", "pichai14-8ptw", "pichai14", "pichai14-ideal"]:
        plan.append((cfg, k, []))
    plan.append(("pichai14", k, ["mmu.bypass=true"]))
    # The paper's 8-lane pipeline: 4 cycles per warp instruction (2: sensitivity).
    machines_and_no_tlb(k, ISSUE4)
    machines_and_no_tlb(k, ISSUE2)
    machines_and_no_tlb(k, ISSUE4 + ("workload.grid_blocks=1024",), ["pichai14", "pichai14-ideal"])
    # Run length: 4 times the default grid (1,024 blocks), augmented and no TLB.
    plan.append(("pichai14", k, ["workload.grid_blocks=1024"]))
    plan.append(("pichai14", k, ["mmu.bypass=true", "workload.grid_blocks=1024"]))
plan = list(dict.fromkeys((c, b, tuple(e)) for c, b, e in plan))

# Every run goes through gmmu-sweep (experiments/sweeplib.py), seed 1.
points = {}
for c, b, e in plan:
    if b in KERNELS:
        points[(c, b, e)] = (c, "kernel", [f"workload.kernel={b}"] + ISSUE + list(e))
    else:
        points[(c, b, e)] = (c, "pichai-bench", [f"workload.bench={b}"] + COMMON + list(e))
res = {k: sweeplib.stats(d) for k, d in sweeplib.run_points(sim, "pichai", points, jobs).items()}

# Seeds of the headline figures (PICHAI_SEEDS, default 1-3, fixed before any
# run as on every page; `--seed` sets pichai-bench's random indices and an
# ISA kernel's inputs and block placement). Seed 1 is the run above; only
# the runs the headline figures need (HEAD: figures 2, 10 and 11 on both
# SMs at the headline settings, and figure 7's two streamcluster steps) are
# repeated over the other seeds, in the sweep pichai-seeds, to keep make
# reproduce-synthetic short (docs/results_integrity.md).
SEEDS = [int(x) for x in os.environ.get("PICHAI_SEEDS", "1,2,3").split(",")]
if SEEDS[0] != 1 or len(set(SEEDS)) != len(SEEDS):
    sys.exit(f"PICHAI_SEEDS={','.join(map(str, SEEDS))}: must start with seed 1 (the runs of every "
             "table) and name each seed once")
HUM = ("l1_tlb.ports=4", "l1_tlb.hits_under_miss=true")
OVERLAP = HUM + ("sm.overlap_cache_access=true",)
HEAD = [(c, b, ()) for b in BENCHES + KERNELS for c in MACHINES] + \
    [("pichai14", b, ("mmu.bypass=true",)) for b in BENCHES + KERNELS] + \
    [("pichai14-naive", "streamcluster", HUM), ("pichai14-naive", "streamcluster", OVERLAP)]
by_seed = {k: [res[k]] for k in HEAD}
if len(SEEDS) > 1:
    for k, ds in sweeplib.run_points(sim, "pichai-seeds", {k: points[k] for k in HEAD}, jobs,
                                     seeds=SEEDS[1:]).items():
        by_seed[k] += [sweeplib.stats(d) for d in ds]


def t(c, b, *e):
    return res[(c, b, tuple(e))]["sim_time_ns"]


def sp(c, b, *e, base=("mmu.bypass=true",)):
    """Speedup against no TLB (values below 1 are slowdowns)."""
    return t("pichai14", b, *base) / t(c, b, *e)


def columns(names, extra):
    """Speedup of every machine on each of names, all runs with the extra
    settings, against no TLB with the same settings: {config: [speedups]}."""
    base = ("mmu.bypass=true",) + tuple(extra)
    return {c: [sp(c, b, *extra, base=base) for b in names] for c in MACHINES}


def l1(c, b, *e):
    return res[(c, b, tuple(e))]["gpu"]["l1_tlb0"]


for (c, b, e), st in res.items():
    if st["data_check"]["mismatches"]:
        sys.exit(f"data check failed: {c} {b} {e}")
for (c, b, e), sts in by_seed.items():
    for sd, st in zip(SEEDS, sts):
        if st["data_check"]["mismatches"]:
            sys.exit(f"data check failed: {c} {b} {e}, seed {sd}")


def sp_seed(i, c, b, *e):
    """Speedup against no TLB at the i-th seed of SEEDS (headline runs only)."""
    return by_seed[("pichai14", b, ("mmu.bypass=true",))][i]["sim_time_ns"] / by_seed[(c, b, e)][i]["sim_time_ns"]


def over_seeds(f):
    return [f(i) for i in range(len(SEEDS))]


# The headline figures, one sample per seed (experiments/claims.json names
# the ones its pichai-* rules judge).
figures = {}
SM_NAMES = {"simple": BENCHES, "issue": KERNELS}
for tag, names in SM_NAMES.items():
    def gm(i, c, names=names):
        return geomean([sp_seed(i, c, b) for b in names])
    for c, short in zip(MACHINES, ["naive", "8naive", "augmented", "ideal"]):
        figures[f"speedup_geomean_{short}_{tag}"] = over_seeds(lambda i, c=c: gm(i, c))
    figures[f"naive_loss_pct_geomean_{tag}"] = over_seeds(lambda i: 100 * (1 - gm(i, "pichai14-naive")))
    figures[f"augmented_overhead_pct_geomean_{tag}"] = over_seeds(lambda i: 100 * (1 - gm(i, "pichai14")))
    figures[f"augmented_overhead_pct_max_{tag}"] = over_seeds(
        lambda i, names=names: 100 * max(1 - sp_seed(i, "pichai14", b) for b in names))
    figures[f"augmented_behind_ideal_pct_geomean_{tag}"] = over_seeds(
        lambda i: 100 * (gm(i, "pichai14-ideal") / gm(i, "pichai14") - 1))
    figures[f"augmented_faster_than_8naive_pct_geomean_{tag}"] = over_seeds(
        lambda i: 100 * (gm(i, "pichai14") / gm(i, "pichai14-8ptw") - 1))
figures["overlap_gain_pct_streamcluster"] = over_seeds(
    lambda i: 100 * (sp_seed(i, "pichai14-naive", "streamcluster", *OVERLAP) /
                     sp_seed(i, "pichai14-naive", "streamcluster", *HUM) - 1))
seedstats.write_figures(out_dir, "pichai_synthetic", figures, SEEDS,
                        note="speedup = no-TLB time / time; simple SM: geomean over the six pichai-bench "
                             "workloads; issue SM: over the six ISA kernels at their default grid")

lines = []
w = lines.append
w("# pichai-asplos14 on synthetic workloads: naive, augmented and ideal GPU MMUs\n")
w("Generated by `experiments/pichai/synthetic.sh` (`make reproduce-synthetic`, part of `make "
  "reproduce-all`) from the platform's own runs: "
  "30 cores x 48 warps, the `pichai14*` configs (docs/configs.md, docs/pichai_mmu.md), the six "
  "`pichai-bench` workloads over a 1 GiB footprint, 96 memory instructions per warp, each "
  "benchmark's documented non-memory cycles, seed 1 in every table; only the headline figures "
  f"(the next section) are means over seeds {', '.join(map(str, SEEDS))}, and only their own "
  f"{len(HEAD)} of the {len(plan)} runs are repeated over the seeds after the first, to keep "
  "`make reproduce-synthetic` within its time. Speedup = simulated time without "
  "translation (`mmu.bypass`) / simulated time with it: below 1 is a slowdown. The paper's "
  "claims are in their own column; they are not inputs. The six benchmarks as their real "
  "algorithms are on [pichai.md](pichai.md) (`make reproduce`).\n")

w("## Headline figures over seeds (synthetic workloads)\n")
w(f"Seeds {', '.join(map(str, SEEDS))} (`--seed`: pichai-bench's random indices; an ISA kernel's "
  "inputs and block placement, docs/faults_platform.md). Repeated over the seeds: figures 2, 10 "
  f"and 11 at the headline settings on both SMs ({len(BENCHES)} benchmarks and {len(KERNELS)} "
  "kernels x the four machines and no TLB) and figure 7's last two streamcluster steps (hits "
  "under miss, + overlap). Each figure is the mean over the seeds ± the 95% interval of the mean "
  "(`experiments/seedstats.py`); the claims are judged by their rules in `experiments/claims.json` "
  "([README.md](README.md)). Every other figure on this page is seed 1.\n")
w("| figure | SM | mean ± 95% | paper (pichai-asplos14) | " + " | ".join(f"seed {sd}" for sd in SEEDS) + " |")
w("|---|---|---|---|" + "---|" * len(SEEDS))
HEADLINE = [("geomean speedup, naive", "speedup_geomean_naive", "", "", 3),
            ("geomean speedup, naive with 8 walkers", "speedup_geomean_8naive", "", "", 3),
            ("geomean speedup, augmented", "speedup_geomean_augmented", "", "", 3),
            ("geomean speedup, ideal TLB", "speedup_geomean_ideal", "", "", 3),
            ("figure 2: naive MMU's loss against no TLB (%, geomean)", "naive_loss_pct_geomean",
             "%", "20-50%", 1),
            ("figure 10: augmented MMU's overhead against no TLB (%, geomean)",
             "augmented_overhead_pct_geomean", "%", "", 1),
            ("figure 10: augmented MMU's overhead, worst benchmark (%)", "augmented_overhead_pct_max",
             "%", "under 10%", 1),
            ("figure 10: augmented behind the ideal TLB (%, geomean)", "augmented_behind_ideal_pct_geomean",
             "%", "within 1%", 1),
            ("figure 11: 1 augmented walker faster than 8 naive ones (%, geomean)",
             "augmented_faster_than_8naive_pct_geomean", "%", "about 10%", 1)]
for label, name, unit, paper, dg in HEADLINE:
    for tag in SM_NAMES:
        f = figures[f"{name}_{tag}"]
        w(f"| {label} | {tag} | {seedstats.fmt(seedstats.summary(f), dg)}{unit} | {paper} | " +
          " | ".join(f"{x:.{dg}f}{unit}" for x in f) + " |")
f = figures["overlap_gain_pct_streamcluster"]
w(f"| figure 7: overlap alone on streamcluster (naive, 4 ports, hits under miss; %) | simple | "
  f"{seedstats.fmt(seedstats.summary(f), 1)}% | +8% | " + " | ".join(f"{x:+.1f}%" for x in f) + " |")
w("")
w("Every table below is seed 1.\n")

w("## Benchmarks as run\n")
w("| benchmark | page divergence (avg unique pages per warp access) | naive L1 TLB hit rate | "
  "no-TLB time (us) |")
w("|---|---|---|---|")
for b in BENCHES:
    w(f"| {b} | {l1('pichai14-naive', b)['page_divergence_avg']:.2f} | "
      f"{l1('pichai14-naive', b)['hit_rate']:.3f} | {t('pichai14', b, 'mmu.bypass=true') / 1000:.1f} |")
w("")

w("## Figures 2, 10 and 11: naive, augmented, 8 naive walkers, ideal\n")
w("| benchmark | naive | naive, 8 walkers | augmented | ideal TLB |")
w("|---|---|---|---|---|")
cols = {c: [] for c in ["pichai14-naive", "pichai14-8ptw", "pichai14", "pichai14-ideal"]}
for b in BENCHES:
    row = []
    for c in cols:
        v = sp(c, b)
        cols[c].append(v)
        row.append(f"{v:.3f}")
    w(f"| {b} | " + " | ".join(row) + " |")
g = {c: geomean(v) for c, v in cols.items()}
w("| **geomean** | " + " | ".join(f"**{g[c]:.3f}**" for c in cols) + " |")
w("")
w("| claim | paper (pichai-asplos14) | measured here (seed 1) |")
w("|---|---|---|")
w(f"| naive MMU vs no TLB | loses 20-50% | loses {100 * (1 - g['pichai14-naive']):.1f}% (geomean); "
  f"per benchmark {', '.join(f'{100 * (1 - v):.0f}%' for v in cols['pichai14-naive'])} |")
worst = max(1 - v for v in cols["pichai14"])
w(f"| augmented MMU vs no TLB | under 10% on every benchmark | worst {100 * worst:.1f}% "
  f"({BENCHES[max(range(6), key=lambda i: 1 - cols['pichai14'][i])]}) |")
w(f"| augmented vs ideal TLB | within 1% (geomean) | {100 * (g['pichai14-ideal'] / g['pichai14'] - 1):.1f}% "
  f"slower than ideal |")
w(f"| 1 augmented walker vs 8 naive walkers | about 10% better | "
  f"{100 * (g['pichai14'] / g['pichai14-8ptw'] - 1):.1f}% better (geomean) |")
w("")

w("## Figures 2, 10 and 11 on the issue/commit SM (ISA kernels)\n")
w("The same machines with `--set sm.model=issue` running the ISA kernels of the six benchmarks "
  "(docs/simt.md: real control flow, divergence and reconvergence, several memory instructions "
  "of a warp in flight, one request per 128-B line), each kernel's default grid (256 blocks of 8 "
  "warps) and trip count, seed 1. Speedup as above.\n")
w("| kernel | page divergence (sm0) | augmented L1 TLB hit rate (per 128-B line) | no-TLB time (us) | naive | "
  "naive, 8 walkers | augmented | ideal TLB |")
w("|---|---|---|---|---|---|---|---|")
kcols = {c: [] for c in cols}
for k in KERNELS:
    for c in kcols:
        kcols[c].append(sp(c, k))
    # The issue SM sends one request per 128-B line: page divergence is the
    # SM's count per memory instruction, not the TLB's per request.
    w(f"| {k} | {res[('pichai14', k, ())]['gpu']['sm0']['page_divergence_avg']:.2f} | "
      f"{l1('pichai14', k)['hit_rate']:.3f} | "
      f"{t('pichai14', k, 'mmu.bypass=true') / 1000:.1f} | " +
      " | ".join(f"{kcols[c][-1]:.3f}" for c in kcols) + " |")
kg = {c: geomean(v) for c, v in kcols.items()}
w("| **geomean** | | | | " + " | ".join(f"**{kg[c]:.3f}**" for c in kcols) + " |")
w("")
kworst = max(range(6), key=lambda i: 1 - kcols["pichai14"][i])
w("Run length: the augmented MMU with 4 times the default grid (1,024 blocks), against no TLB "
  "at the same grid: " + ", ".join(
      f"{k} {sp('pichai14', k, 'workload.grid_blocks=1024', base=('mmu.bypass=true', 'workload.grid_blocks=1024')):.3f}"
      for k in KERNELS) + " (default grid: " +
  ", ".join(f"{kcols['pichai14'][i]:.3f}" for i in range(6)) + ").\n")
w("| claim | paper (pichai-asplos14) | measured here (issue SM, seed 1) |")
w("|---|---|---|")
w(f"| naive MMU vs no TLB | loses 20-50% | loses {100 * (1 - kg['pichai14-naive']):.1f}% (geomean) |")
w(f"| augmented MMU vs no TLB | under 10% on every benchmark | worst {100 * (1 - kcols['pichai14'][kworst]):.1f}% "
  f"({KERNELS[kworst]}), geomean {100 * (1 - kg['pichai14']):.1f}% |")
w(f"| augmented vs ideal TLB | within 1% (geomean) | {100 * (kg['pichai14-ideal'] / kg['pichai14'] - 1):.1f}% "
  f"slower than ideal |")
w(f"| 1 augmented walker vs 8 naive walkers | about 10% better | "
  f"{100 * (kg['pichai14'] / kg['pichai14-8ptw'] - 1):.1f}% better (geomean) |")
w("")

w("## Figure 7: non-blocking steps on a 4-port TLB (serial walker)\n")
steps = [("blocking", ("l1_tlb.ports=4",)),
         ("+ hits under miss", ("l1_tlb.ports=4", "l1_tlb.hits_under_miss=true")),
         ("+ overlap", ("l1_tlb.ports=4", "l1_tlb.hits_under_miss=true",
                        "sm.overlap_cache_access=true"))]
w("| benchmark | " + " | ".join(s for s, _ in steps) + " | ideal TLB |")
w("|---|---|---|---|---|")
for b in BENCHES:
    w(f"| {b} | " + " | ".join(f"{sp('pichai14-naive', b, *e):.3f}" for _, e in steps) +
      f" | {sp('pichai14-ideal', b):.3f} |")
ov = sp("pichai14-naive", "streamcluster", *steps[2][1]) / sp("pichai14-naive", "streamcluster", *steps[1][1]) - 1
w(f"\nOverlap alone on streamcluster: {100 * ov:+.1f}% (paper: +8%).\n")

w("## Figure 6: TLB entries x ports, naive MMU, access time from the scaled model\n")
w("Geomean speedup over the six benchmarks; the access time is `1 + (doublings above 128 entries "
  "+ doublings above 4 ports)` cycles (`l1_tlb.latency_model=scaled`).\n")
w("| entries \\ ports | 3 | 4 | 8 | 32 |")
w("|---|---|---|---|---|")
grid = {}
for e in [64, 128, 256, 512]:
    row = []
    for p in [3, 4, 8, 32]:
        v = geomean([sp("pichai14-naive", b, f"l1_tlb.entries={e}", f"l1_tlb.ports={p}") for b in BENCHES])
        grid[(e, p)] = v
        row.append(f"{v:.3f}")
    w(f"| {e} | " + " | ".join(row) + " |")
w("")

w("## Sensitivity\n")
w("| parameter | value | naive geomean speedup | augmented geomean speedup |")
w("|---|---|---|---|")
for cp in [0, 100, 200]:
    e = () if cp == 100 else (f"workload.compute_percent={cp}",)
    base = ("mmu.bypass=true",) + e
    n = geomean([sp("pichai14-naive", b, *e, base=base) for b in BENCHES])
    a = geomean([sp("pichai14", b, *e, base=base) for b in BENCHES])
    w(f"| non-memory cycles (`workload.compute_percent`) | {cp}% | {n:.3f} | {a:.3f} |")
for stp in [0, 1, 2]:
    e = ("l1_tlb.entries=512", "l1_tlb.ports=32") + (() if stp == 1 else (f"l1_tlb.latency_step_cycles={stp}",))
    v = geomean([sp("pichai14-naive", b, *e) for b in BENCHES])
    w(f"| `l1_tlb.latency_step_cycles` at 512 entries, 32 ports (naive) | {stp} | {v:.3f} | |")
w("")

w("## Non-memory work on the SM's pipeline (`sm.compute_on_pipeline`)\n")
w("Above, a warp's non-memory cycles delay only that warp, so the 48 warps of a core compute "
  "at once and the no-TLB run is bound by memory latency alone. Here they occupy the core's "
  "one issue pipeline, as on the paper's cores (no other warp issues meanwhile), at 1 cycle "
  "per non-memory instruction (100%) and at the paper's pipeline width of 8 lanes, 4 cycles "
  "per 32-lane warp instruction (400%). Both settings were fixed before their first run. "
  "Speedup against no TLB with the same setting.\n")
w("| non-memory work | benchmark | no-TLB time (us) | naive | naive, 8 walkers | augmented | "
  "ideal TLB |")
w("|---|---|---|---|---|---|---|")
pg = {}
for pe in PIPE:
    label = "400% on the pipeline" if len(pe) > 1 else "100% on the pipeline"
    pcols = columns(BENCHES, pe)
    for i, b in enumerate(BENCHES):
        w(f"| {label} | {b} | {t('pichai14', b, 'mmu.bypass=true', *pe) / 1000:.1f} | " +
          " | ".join(f"{pcols[c][i]:.3f}" for c in MACHINES) + " |")
    pg[pe] = ({c: geomean(v) for c, v in pcols.items()}, pcols)
    w(f"| {label} | **geomean** | | " + " | ".join(f"**{pg[pe][0][c]:.3f}**" for c in MACHINES) + " |")
w("")
w("| claim | paper (pichai-asplos14) | " + " | ".join(
    "measured, " + ("400%" if len(pe) > 1 else "100%") + " on the pipeline" for pe in PIPE) + " |")
w("|---|---|---|---|")
cells = [[], [], [], []]
for pe in PIPE:
    gg, pc = pg[pe]
    wi = max(range(6), key=lambda i: 1 - pc["pichai14"][i])
    cells[0].append(f"loses {100 * (1 - gg['pichai14-naive']):.1f}% (geomean)")
    cells[1].append(f"worst {100 * (1 - pc['pichai14'][wi]):.1f}% ({BENCHES[wi]}), geomean "
                    f"{100 * (1 - gg['pichai14']):.1f}%")
    cells[2].append(f"{100 * (gg['pichai14-ideal'] / gg['pichai14'] - 1):.1f}% slower than ideal")
    cells[3].append(f"{100 * (gg['pichai14'] / gg['pichai14-8ptw'] - 1):.1f}% better (geomean)")
for name, paper, cl in zip(["naive MMU vs no TLB", "augmented MMU vs no TLB", "augmented vs ideal TLB",
                            "1 augmented walker vs 8 naive walkers"],
                           ["loses 20-50%", "under 10% on every benchmark", "within 1% (geomean)",
                            "about 10% better"], cells):
    w(f"| {name} | {paper} | " + " | ".join(cl) + " |")
w("")

w("On the issue/commit SM the ISA kernels issue their non-memory instructions themselves; the "
  "paper's 8-lane pipeline is `sm.issue_cycles=4`: every warp instruction, memory ones "
  "included, holds the issue stage 4 cycles (fixed before its first run). Default grid, "
  "speedup against no TLB with the same setting.\n")
w("| kernel | no-TLB time (us) | naive | naive, 8 walkers | augmented | ideal TLB |")
w("|---|---|---|---|---|---|")
icols = columns(KERNELS, ISSUE4)
for i, k in enumerate(KERNELS):
    w(f"| {k} | {t('pichai14', k, 'mmu.bypass=true', *ISSUE4) / 1000:.1f} | " +
      " | ".join(f"{icols[c][i]:.3f}" for c in MACHINES) + " |")
ig = {c: geomean(v) for c, v in icols.items()}
w("| **geomean** | | " + " | ".join(f"**{ig[c]:.3f}**" for c in MACHINES) + " |")
iw = max(range(6), key=lambda i: 1 - icols["pichai14"][i])
w("")
L4 = ISSUE4 + ("workload.grid_blocks=1024",)
blk = {k: [res[("pichai14", k, ("mmu.bypass=true",) + ISSUE4)]["gpu"][f"sm{i}"]["blocks_done"]
           for i in range(30)] for k in KERNELS}
w("The grid's 256 blocks go to the 30 SMs as they free up, and the last SM to finish sets the "
  "time: a block more or less on it moves a speedup by several percent (blocks per SM without "
  "a TLB: " + ", ".join(f"{k} {min(blk[k])}-{max(blk[k])}" for k in KERNELS) +
  "). Run length: 4 times the grid (1,024 blocks), against no TLB at the same grid: augmented " +
  ", ".join(f"{k} {sp('pichai14', k, *L4, base=('mmu.bypass=true',) + L4):.3f}" for k in KERNELS) +
  "; ideal TLB " +
  ", ".join(f"{k} {sp('pichai14-ideal', k, *L4, base=('mmu.bypass=true',) + L4):.3f}" for k in KERNELS) +
  ".\n")
w("| claim | paper (pichai-asplos14) | measured here (issue SM, 4 cycles per instruction) |")
w("|---|---|---|")
w(f"| naive MMU vs no TLB | loses 20-50% | loses {100 * (1 - ig['pichai14-naive']):.1f}% (geomean) |")
w(f"| augmented MMU vs no TLB | under 10% on every benchmark | worst {100 * (1 - icols['pichai14'][iw]):.1f}% "
  f"({KERNELS[iw]}), geomean {100 * (1 - ig['pichai14']):.1f}% |")
w(f"| augmented vs ideal TLB | within 1% (geomean) | {100 * (ig['pichai14-ideal'] / ig['pichai14'] - 1):.1f}% "
  f"slower than ideal |")
w(f"| 1 augmented walker vs 8 naive walkers | about 10% better | "
  f"{100 * (ig['pichai14'] / ig['pichai14-8ptw'] - 1):.1f}% better (geomean) |")
w("")

w("Sensitivity to the pipeline width: geomean speedups against no TLB with the same setting.\n")
w("| SM | cycles per warp instruction | naive | naive, 8 walkers | augmented | ideal TLB |")
w("|---|---|---|---|---|---|")
for label, names, sets in [("simple", BENCHES, [(), PIPE[0], PIPE2, PIPE[1]]),
                           ("issue", KERNELS, [(), ISSUE2, ISSUE4])]:
    for e in sets:
        n = "1" if not e or e == PIPE[0] else "2" if e in (PIPE2, ISSUE2) else "4"
        if label == "simple":
            cyc = "headline: 1, beside the other warps" if not e else n + ", on the pipeline"
        else:
            cyc = n + (" (headline)" if not e else "")
        vals = [geomean(v) for v in columns(names, e).values()]
        w(f"| {label} | {cyc} | " + " | ".join(f"{v:.3f}" for v in vals) + " |")
w("")

md = "\n".join(lines) + "\n"
tmp_md = os.path.join(out_dir, ".pichai_synthetic.md.tmp")
with open(tmp_md, "w") as f:
    f.write(md)
os.replace(tmp_md, os.path.join(out_dir, "pichai_synthetic.md"))

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(1, 2, figsize=(12, 4))
    x = range(len(BENCHES))
    wd = 0.2
    for i, c in enumerate(cols):
        ax[0].bar([k + (i - 1.5) * wd for k in x], cols[c], wd, label=c)
    ax[0].set_xticks(list(x))
    ax[0].set_xticklabels(BENCHES, rotation=20)
    ax[0].axhline(1.0, color="k", lw=0.5)
    ax[0].set_ylabel("speedup vs no TLB")
    ax[0].set_title("figures 2, 10, 11")
    ax[0].legend(fontsize=7)
    for e in [64, 128, 256, 512]:
        ax[1].plot([3, 4, 8, 32], [grid[(e, p)] for p in [3, 4, 8, 32]], marker="o", label=f"{e} entries")
    ax[1].set_xscale("log", base=2)
    ax[1].set_xlabel("ports")
    ax[1].set_ylabel("geomean speedup vs no TLB")
    ax[1].set_title("figure 6 (naive, scaled access time)")
    ax[1].legend(fontsize=7)
    fig.tight_layout()
    tmp_png = os.path.join(out_dir, ".pichai_synthetic.png.tmp.png")
    fig.savefig(tmp_png, dpi=90)
    os.replace(tmp_png, os.path.join(out_dir, "pichai_synthetic.png"))
except ImportError:
    print("pichai_synthetic: matplotlib is missing: the PNG was not updated", file=sys.stderr)
print(md)
