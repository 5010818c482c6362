"""What warp_sched.py and tbc.py share: the machines, the kernels, running a
plan of gmmu-sim points through gmmu-sweep (every run must pass its data
check), the geometric mean and atomic output."""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import sweeplib  # noqa: E402

KERNELS = ["bfs-like", "kmeans-like", "mummer-like", "streamcluster-like", "pathfinder-like",
           "memcached-like"]
NOTLB = ("pichai14", ("mmu.bypass=true",))
NAIVE = ("pichai14-naive", ())
AUG = ("pichai14", ())


def run_plan(sim, plan, jobs, name):
    """{(machine, kernel, settings): stats.json} for every point of plan, run
    through gmmu-sweep as the sweep NAME (experiments/sweeplib.py)."""
    points = {(m, k, s): (m[0], "kernel", [f"workload.kernel={k}", "sm.model=issue"] + list(m[1]) + list(s))
              for m, k, s in plan}
    dirs = sweeplib.run_points(sim, name, points, jobs)
    res = {key: sweeplib.stats(d) for key, d in dirs.items()}
    for key, st in res.items():
        if st["data_check"]["mismatches"]:
            sys.exit(f"data check failed: {key}")
    return res


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def write_atomic(path, text):
    tmp = os.path.join(os.path.dirname(path), "." + os.path.basename(path) + ".tmp")
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)
