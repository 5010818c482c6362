"""The TLB experiment's gmmu-sim runs (karnagel-damon17), through gmmu-sweep.

  tlb.py SIM WORK: runs the points into $BUILD_DIR/sweeps/tlb-*/ (resumable,
  experiments/sweeplib.py) and links each point's folder into WORK under the
  name report.py reads: probe_GPU, share_GPU, WORKLOAD_GPU_SCOPE_MIB.
  Prints the gmmu-sim seconds summed over the points.

Stage 1 runs tlb-probe on each GPU; stage 2 runs tlb-share with the levels
stage 1 found (workload.share_from names the probe's tlb_probe.json) and the
random-sample / hash-group sweeps over region sizes, plain and TLB-conscious
(workload.tlb_scope 128 MiB and 2 GiB; a scope as large as the region is the
plain run and is left out). Environment: SIZES_MIB, K80_WARPS, K80_ACCESSES,
P100_WARPS, P100_ACCESSES (docs/tlb_probe.md), JOBS.

Stage 3 runs the headline points once per seed (TLB_SEEDS, default 1-3;
`--seed` sets the random indices of random-sample and hash-group): on the K80
at 64 MiB and 16 GiB, plain and with both scopes at 16 GiB, and plain with
the walkers' PTE reads through a 2 MiB L2 (`l2_cache.enabled=true`,
`ptw.via=l2_cache`). They are linked as seeds/NAME/SEED.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import sweeplib  # noqa: E402

GPUS = ["k80", "p100"]
SCOPES = [0, 134217728, 2147483648]
SIZES = "64 96 128 192 256 512 1024 1536 2048 3072 4096 8192 16384"
SEEDS = [int(x) for x in os.environ.get("TLB_SEEDS", "1,2,3").split(",")]
VIA_L2 = ["l2_cache.enabled=true", "ptw.via=l2_cache"]


def main():
    sim, work = sys.argv[1], sys.argv[2]
    env = os.environ
    sizes = [int(x) for x in env.get("SIZES_MIB", SIZES).split()]
    probe = sweeplib.run_points(sim, "tlb-probe", {"probe_" + g: (g, "tlb-probe", []) for g in GPUS})
    points = {}
    for g in GPUS:
        points["share_" + g] = (g, "tlb-share",
                                ["workload.share_from=" + os.path.join(probe["probe_" + g], "tlb_probe.json")])
    for g in GPUS:
        if g == "k80":
            warps, acc = env.get("K80_WARPS", "16"), env.get("K80_ACCESSES", "16")
        else:
            warps, acc = env.get("P100_WARPS", "8"), env.get("P100_ACCESSES", "8")
        for wl in ["random-sample", "hash-group"]:
            for mib in sizes:
                b = mib << 20
                for scope in SCOPES:
                    if scope and scope >= b:
                        continue
                    points["%s_%s_%d_%d" % (wl, g, scope, mib)] = (
                        g, wl, ["sm.warps=" + warps, "workload.accesses=" + acc,
                                "workload.region_bytes=%d" % b, "workload.tlb_scope=%d" % scope])
    rest = sweeplib.run_points(sim, "tlb-sweep", points)
    # The headline points, once per seed (the K80's settings above).
    k80 = ["sm.warps=" + env.get("K80_WARPS", "16"), "workload.accesses=" + env.get("K80_ACCESSES", "16")]
    heads = {}
    for wl in ["random-sample", "hash-group"]:
        for mib, scope, via in [(64, 0, False), (16384, 0, False), (16384, 134217728, False),
                                (16384, 2147483648, False), (64, 0, True), (16384, 0, True)]:
            heads["%s_k80_%d_%d%s" % (wl, scope, mib, "_via_l2" if via else "")] = (
                "k80", wl, k80 + ["workload.region_bytes=%d" % (mib << 20), "workload.tlb_scope=%d" % scope]
                + (VIA_L2 if via else []))
    seeded = sweeplib.run_points(sim, "tlb-seeds", heads, seeds=SEEDS)
    os.makedirs(work, exist_ok=True)
    for name, folder in list(probe.items()) + list(rest.items()):
        os.symlink(folder, os.path.join(work, name))
    for name, folders in seeded.items():
        os.makedirs(os.path.join(work, "seeds", name))
        for sd, folder in zip(SEEDS, folders):
            os.symlink(folder, os.path.join(work, "seeds", name, str(sd)))
    allf = list(probe.values()) + list(rest.values()) + [f for fs in seeded.values() for f in fs]
    print("%.0f" % sweeplib.run_seconds(allf))


if __name__ == "__main__":
    main()
