"""What warp_sched.py and tbc.py share: the machines, the kernels, running a
plan of gmmu-sim points in a thread pool (every run must pass its data
check), the geometric mean and atomic output."""
import concurrent.futures as cf
import json
import math
import os
import subprocess
import sys
import tempfile

KERNELS = ["bfs-like", "kmeans-like", "mummer-like", "streamcluster-like", "pathfinder-like",
           "memcached-like"]
COMMON = ["--set", "sm.model=issue", "--workload", "kernel", "--seed", "1"]
NOTLB = ("pichai14", ("mmu.bypass=true",))
NAIVE = ("pichai14-naive", ())
AUG = ("pichai14", ())


def _run(sim, m, k, s, tmp):
    out = tempfile.mkdtemp(dir=tmp)
    args = [sim, "--quiet", "--out", out, "--config", m[0], "--set", f"workload.kernel={k}"] + COMMON
    for x in m[1] + s:
        args += ["--set", x]
    subprocess.run(args, check=True)
    with open(os.path.join(out, "stats.json")) as f:
        return json.load(f)


def run_plan(sim, plan, jobs):
    """{(machine, kernel, settings): stats.json} for every point of plan."""
    res = {}
    with tempfile.TemporaryDirectory() as tmp, cf.ThreadPoolExecutor(jobs) as ex:
        futs = {ex.submit(_run, sim, m, k, s, tmp): (m, k, s) for m, k, s in plan}
        for f in cf.as_completed(futs):
            res[futs[f]] = f.result()
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
