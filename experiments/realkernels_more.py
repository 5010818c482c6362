"""Real-kernel sweeps at two seeds (docs/results_integrity.md: `make
reproduce`'s 45 minutes hold the sweep `real-kernels` at three seeds and
little more). Each is a set of machine settings run over the six pichai
kernels with realkernels.py's windows and inputs; the runs without TLBs and
at the defaults that they are compared with are the sweep `real-kernels`'
at the same seeds.

  real-kernels-more (pichai.md, `make reproduce`): figure 6's two lines
  through the 128-entry 4-port TLB and figure 7's non-blocking steps, on
  the naive MMU (MORE below);
  real-kernels-sensitivity (real_sensitivity.md, `make reproduce-all`): the
  rest (experiments/real_sensitivity/).

Fixed, with the rules that judge them (experiments/claims.json), before
their first run.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import realkernels  # noqa: E402
import sweeplib  # noqa: E402


def seeds_from(var, default="1,2"):
    """The seeds of a two-seed sweep: VAR (default 1,2), each one of REAL_SEEDS."""
    seeds = [int(x) for x in os.environ.get(var, default).split(",")]
    rs = realkernels.SEEDS
    if len(seeds) < 2 or len(set(seeds)) != len(seeds) or not set(seeds) <= set(rs):
        sys.exit(f"{var}={','.join(map(str, seeds))}: at least two seeds, no repeats, "
                 f"each one of REAL_SEEDS ({','.join(map(str, rs))})")
    return seeds


def points(machines):
    """machines: {label: (config, settings)} -> gmmu-sweep points over the six kernels."""
    pts = {}
    for m, (cfg, sets) in machines.items():
        for k in realkernels.KERNELS:
            w = realkernels.WINDOW_OF.get(k, realkernels.WINDOW)
            pts[(m, k)] = (cfg, "kernel",
                           ["sm.model=issue", "workload.kernel_file=" + realkernels.kernel_file(k)] +
                           ([f"workload.grid_blocks={w}"] if w else []) + list(sets))
    return pts


def run(sim, name, machines, seeds, real, borrow, jobs=None):
    """Runs the sweep NAME; returns {(label, kernel): [stats.json per seed of seeds]}, with the
    labels of borrow (machines of the sweep real-kernels, whose results are real) added from
    real at the same seeds. Every run must pass its data check."""
    realkernels.use_inputs_cache(sim)
    out = {}
    for key, ds in sweeplib.run_points(sim, name, points(machines), jobs, seeds=seeds).items():
        out[key] = [sweeplib.stats(d) for d in ds]
        for sd, st in zip(seeds, out[key]):
            if st["data_check"]["mismatches"]:
                sys.exit(f"data check failed: {key}, seed {sd}")
    for m in borrow:
        for k in realkernels.KERNELS:
            out[(m, k)] = [real[(m, k)][realkernels.SEEDS.index(sd)] for sd in seeds]
    return out


# Figures 6 and 7 (pichai.md): the naive MMU with the L1 TLB's access time
# from the scaled model (the config's), as on pichai_synthetic.md. Figure 6
# as its two lines through the 128-entry 4-port TLB (entries at 4 ports,
# ports at 128 entries; 128 entries at 3 ports is the sweep real-kernels'
# `naive`); figure 7 adds hits under misses, then the intra-warp overlap, to
# the 128-entry 4-port TLB. Rules: pichai-fig6-*-real, pichai-fig7-hum-real,
# pichai-overlap-streamcluster-real.
NAIVE4 = ("l1_tlb.ports=4",)
HUM4 = NAIVE4 + ("l1_tlb.hits_under_miss=true",)
MORE = {
    "128 entries, 4 ports": ("pichai14-naive", NAIVE4),
    "512 entries, 4 ports": ("pichai14-naive", ("l1_tlb.entries=512",) + NAIVE4),
    "256 entries, 4 ports": ("pichai14-naive", ("l1_tlb.entries=256",) + NAIVE4),
    "64 entries, 4 ports": ("pichai14-naive", ("l1_tlb.entries=64",) + NAIVE4),
    "128 entries, 32 ports": ("pichai14-naive", ("l1_tlb.ports=32",)),
    "4 ports, hits under misses": ("pichai14-naive", HUM4),
    "4 ports, hits under misses, overlap": ("pichai14-naive", HUM4 + ("sm.overlap_cache_access=true",)),
}


def more_results(sim, real, jobs=None):
    """(MORE_SEEDS, results of MORE at them, with real-kernels' `none` and `naive`)."""
    seeds = seeds_from("REAL_MORE_SEEDS")
    return seeds, run(sim, "real-kernels-more", MORE, seeds, real, ["none", "naive"], jobs)
