"""The MMU studies on the real kernels (docs/kernels.md): one sweep that the
pichai, warp-scheduling, TBC and PICLE pages share (experiments/pichai,
experiments/warp_sched, experiments/picle). The first page that asks runs
it; the others find its runs done (gmmu-sweep skips a finished point).

Fixed before the first run (commit order shows it; the claims these runs
judge are in experiments/claims.json, ids ending in -real):
  kernels: kmeans, streamcluster, pathfinder, memcached, mummergpu
  (examples/kernels/*.gk, 1.1-1.5 GiB each) and bfs on a 128 Ki-node graph
  (examples/kernels/bfs-128k.gk, 14 MiB): the six pichai benchmarks;
  window: the first 120 blocks of each grid (4 a core on the 30 cores of
  pichai14), mummergpu's first 30 (one a core: its blocks run about 30
  times longer than the others'), bfs whole (a window of blocks ends a
  breadth-first search at its first level; the 12 Mi-node graph takes
  about 30 minutes a run whole);
  machines (sm.model=issue): pichai14 (augmented), pichai14-naive,
  pichai14-ideal, pichai14-8ptw and pichai14 with mmu.bypass=true (no
  TLB), at the SM's default scheduler (lrr) for figures 2, 10 and 11;
  CCWS without, with naive and with augmented TLBs and TCWS (EPW 8,
  LRU(1,2,4,8)) with augmented TLBs for section 7; the oldest-first order
  with augmented TLBs, TBC without and with augmented TLBs and TLB-aware
  TBC (3-bit counters) with augmented TLBs for section 8; every scheduler
  parameter at its documented default;
  PICLE: hotspot and backprop (PICLE's benchmarks; LUD is not ported) on
  the picle machine, prefetch off and on, the first 256 blocks (4 a CU);
  seeds: REAL_SEEDS, default 1, 2, 3 (each kernel's inputs and the block
  placement): every run at every seed.
"""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import seedstats  # noqa: E402
import sweeplib  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KERNELS = ["bfs", "kmeans", "mummergpu", "streamcluster", "pathfinder", "memcached"]
FILE_OF = {k: k for k in KERNELS}
FILE_OF["bfs"] = "bfs-128k"
WINDOW_OF = {"bfs": None, "mummergpu": 30}
WINDOW = 120
PICLE_KERNELS = ["hotspot", "backprop"]
PICLE_WINDOW = 256

# Machines: label -> (config, settings).
NOTLB = ("pichai14", ("mmu.bypass=true",))
MACHINES = {
    "none": NOTLB,
    "naive": ("pichai14-naive", ()),
    "augmented": ("pichai14", ()),
    "ideal": ("pichai14-ideal", ()),
    "8 naive walkers": ("pichai14-8ptw", ()),
    "none, CCWS": ("pichai14", ("mmu.bypass=true", "sm.warp_scheduler=ccws")),
    "naive, CCWS": ("pichai14-naive", ("sm.warp_scheduler=ccws",)),
    "augmented, CCWS": ("pichai14", ("sm.warp_scheduler=ccws",)),
    "augmented, TCWS": ("pichai14", ("sm.warp_scheduler=tcws",)),
    "augmented, oldest": ("pichai14", ("sm.warp_scheduler=oldest",)),
    "none, TBC": ("pichai14", ("mmu.bypass=true", "sm.warp_scheduler=tbc")),
    "augmented, TBC": ("pichai14", ("sm.warp_scheduler=tbc",)),
    "augmented, TLB-aware TBC": ("pichai14", ("sm.warp_scheduler=tlb-tbc", "sm.tbc.cpm_bits=3")),
}
PICLE_MODES = {"no prefetch": ("picle.enabled=false",), "PICLE": ("picle.enabled=true",)}

SEEDS = [int(x) for x in os.environ.get("REAL_SEEDS", "1,2,3").split(",")]
if len(SEEDS) < 2 or len(set(SEEDS)) != len(SEEDS):
    sys.exit(f"REAL_SEEDS={','.join(map(str, SEEDS))}: at least two seeds, no repeats")


def kernel_file(k):
    return os.path.join(ROOT, "examples", "kernels", FILE_OF.get(k, k) + ".gk")


def _points():
    pts = {}
    for m, (cfg, sets) in MACHINES.items():
        for k in KERNELS:
            w = WINDOW_OF.get(k, WINDOW)
            pts[(m, k)] = (cfg, "kernel", ["sm.model=issue", "workload.kernel_file=" + kernel_file(k)] +
                           ([f"workload.grid_blocks={w}"] if w else []) + list(sets))
    for m, sets in PICLE_MODES.items():
        for k in PICLE_KERNELS:
            pts[("picle " + m, k)] = ("picle", "kernel", ["sm.model=issue", "workload.kernel_file=" + kernel_file(k),
                                                           f"workload.grid_blocks={PICLE_WINDOW}"] + list(sets))
    return pts


def use_inputs_cache(sim):
    """Slow generators' inputs (mummergpu's suffix tree, streamcluster's
    and memcached's) and every reference run are built once per kernel,
    window and seed and read back by every later run of this build, and
    gmmu-sweep's check of a point whose reference run is recorded builds
    neither (GMMU_INPUTS_CACHE, docs/kernels.md); the outputs do not change.
    A missing gmmu-sim is one line and exit 2, before anything is run or
    removed."""
    if not (os.path.isfile(sim) and os.access(sim, os.X_OK)):
        print(f"{sim}: no gmmu-sim there (build it first: make build)", file=sys.stderr)
        sys.exit(2)
    if not os.environ.get("GMMU_INPUTS_CACHE"):
        d = os.path.join(os.path.dirname(sweeplib.work_dir(sim, "real-kernels")), "inputs-cache")
        os.makedirs(d, exist_ok=True)
        prune_inputs_cache(d, sim)
        os.environ["GMMU_INPUTS_CACHE"] = d


def prune_inputs_cache(d, sim):
    """A cache file's key holds the gmmu-sim binary that wrote it, so a
    file written before the binary was last built can never be read again:
    remove those (they are 0.25 MB to 1.2 GiB each). A file of the current
    binary is newer than it and stays, and so does a temporary file that a
    run of the current binary is writing."""
    built = os.stat(sim).st_mtime
    for name in os.listdir(d):
        # FILE.bin, or FILE.bin.XXXXXX: a temporary file that a killed run left
        if not (name.startswith(("inputs-", "reference-")) and
                (name.endswith(".bin") or ".bin." in name)):
            continue
        path = os.path.join(d, name)
        try:
            if os.stat(path).st_mtime < built:
                os.unlink(path)
        except FileNotFoundError:
            pass


def results(sim, jobs=None):
    """{(machine label, kernel): [stats.json per seed of SEEDS]}; every run
    must pass its data check. The sweep `real-kernels` (sweeplib)."""
    use_inputs_cache(sim)
    out = {}
    for key, ds in sweeplib.run_points(sim, "real-kernels", _points(), jobs, seeds=SEEDS).items():
        out[key] = [sweeplib.stats(d) for d in ds]
        for sd, st in zip(SEEDS, out[key]):
            if st["data_check"]["mismatches"]:
                sys.exit(f"data check failed: {key}, seed {sd}")
    return out


def add_figures(out_dir, page, figures, seeds=None):
    """Add figures ({name: [sample per seed of SEEDS, or of seeds]}) to
    OUT_DIR/PAGE.figures.json, which seedstats.write_figures has just written
    over the page's own seeds: each summary names its seeds. Atomic, as
    write_figures."""
    seeds = SEEDS if seeds is None else seeds
    path = os.path.join(out_dir, page + ".figures.json")
    with open(path) as f:
        doc = json.load(f)
    for name, v in figures.items():
        if len(v) != len(seeds):
            raise ValueError(f"{page}: figure {name} has {len(v)} samples for {len(seeds)} seeds")
        doc["figures"][name] = dict(seedstats.summary(v), seeds=list(seeds))
    doc["figures"] = dict(sorted(doc["figures"].items()))
    fd, tmp = tempfile.mkstemp(dir=out_dir, prefix="." + page + ".")
    with os.fdopen(fd, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)


def figure_table(w, figures, rows, digits=3):
    """A page's table of its real-kernel figures: rows (label, figure name,
    unit, the paper's number), each the mean ± 95% interval and every seed."""
    w("| figure (real kernels) | mean ± 95% | paper (pichai-asplos14) | " +
      " | ".join(f"seed {sd}" for sd in SEEDS) + " |")
    w("|---|---|---|" + "---|" * len(SEEDS))
    for label, name, unit, paper in rows:
        f = figures[name]
        w(f"| {label} | {seedstats.fmt(seedstats.summary(f), digits)}{unit} | {paper} | " +
          " | ".join(f"{x:.{digits}f}{unit}" for x in f) + " |")
    w("")


# lud was ported after the sweep above was fixed (and its claims written):
# its PICLE runs are their own sweep, the same machine, window and seeds;
# reported beside hotspot and backprop, judged by no rule.
PICLE_LATE = ["lud"]


def _late_points():
    return {("picle " + m, k): ("picle", "kernel", ["sm.model=issue", "workload.kernel_file=" + kernel_file(k),
                                                    f"workload.grid_blocks={PICLE_WINDOW}"] + list(sets))
            for m, sets in PICLE_MODES.items() for k in PICLE_LATE}


def late_results(sim, jobs=None):
    """As results(), for the kernels of PICLE_LATE (the sweep `real-kernels-late`)."""
    use_inputs_cache(sim)
    out = {}
    for key, ds in sweeplib.run_points(sim, "real-kernels-late", _late_points(), jobs, seeds=SEEDS).items():
        out[key] = [sweeplib.stats(d) for d in ds]
        for sd, st in zip(SEEDS, out[key]):
            if st["data_check"]["mismatches"]:
                sys.exit(f"data check failed: {key}, seed {sd}")
    return out


def folders(sim, jobs=None):
    """The runs' folders (for sweeplib.run_seconds)."""
    return [d for ds in sweeplib.run_points(sim, "real-kernels", _points(), jobs, seeds=SEEDS).values() for d in ds]


def l1_miss_rate(st):
    tl = [v for n, v in st["gpu"].items() if n.startswith("l1_tlb") and n[6:].isdigit() and isinstance(v, dict)]
    acc = sum(v["accesses"] for v in tl)
    return sum(v["misses"] for v in tl) / acc if acc else 0.0


def seed_text(windows=True):
    text = (f"Real kernels: seeds {', '.join(map(str, SEEDS))} (`--seed`: each kernel's inputs and block "
            "placement), every run at every seed; each figure is the mean over the seeds ± the 95% "
            "interval of the mean (`experiments/seedstats.py`), and a table cell is the mean.")
    if windows:
        text += (f" Windows: the first {WINDOW} blocks of kmeans, streamcluster, pathfinder and memcached, "
                 f"the first {WINDOW_OF['mummergpu']} of mummergpu, bfs whole on a 128 Ki-node graph "
                 "(`experiments/realkernels.py` gives the reasons; `docs/kernels.md` the kernels).")
    return text
