"""Runs an experiment's gmmu-sim points through gmmu-sweep (docs/sweeps.md).

Every experiment under experiments/ that runs gmmu-sim hands its points to
run_points(): they become one gmmu-sweep spec of explicit points, run by
gmmu-sweep's local backend into $BUILD_DIR/sweeps/NAME/ (so an interrupted
`make reproduce` resumes where it stopped, and a rebuilt gmmu-sim reruns
everything), and the experiment reads each point's own outputs from its
folder. The same spec (NAME/spec.json) runs on a cluster with
`gmmu-sweep run SPEC --out DIR --backend slurm`.
"""
import json
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SWEEP = os.path.join(ROOT, "tools", "gmmu-sweep")


def work_dir(sim, name):
    build = os.environ.get("BUILD_DIR") or os.path.dirname(os.path.dirname(os.path.abspath(sim)))
    return os.path.join(build, "sweeps", name)


def run_points(sim, name, points, jobs=None, seed=1, fresh=False, seeds=None):
    """Run points, a dict {key: (config, workload, ["k=v", ...])}, as the
    gmmu-sweep NAME with one seed. Returns {key: the point's output folder}.
    With seeds (a list), every point runs once per seed, and the result is
    {key: [the point's folder for each seed, in the order of seeds]}.
    Two keys that run the same thing share one run. Exits with gmmu-sweep's
    status lines if a point failed. fresh: start over (for points that read
    files the caller has just written, which a point's id does not cover)."""
    if seeds is not None and (not seeds or len(set(seeds)) != len(seeds)):
        raise ValueError("%s: seeds must be a non-empty list without repeats" % name)
    jobs = jobs or int(os.environ.get("JOBS", "2"))
    entries, index, of_key = [], {}, {}
    for key, (config, workload, sets) in points.items():
        kv = {}
        for s in sets:
            k, _, v = s.partition("=")
            if k in kv:
                raise ValueError("%s: %s sets %s twice" % (name, key, k))
            kv[k] = v
        what = json.dumps([config, workload, sorted(kv.items())])
        if what not in index:
            index[what] = len(entries)
            entries.append({"label": "/".join(str(x) for x in key) if isinstance(key, tuple) else str(key),
                            "config": config, "workload": workload, "set": kv})
        of_key[key] = index[what]
    spec = {"name": name, "seeds": list(seeds) if seeds is not None else [seed], "points": entries}
    text = json.dumps(spec, indent=1, sort_keys=True) + "\n"
    wd = work_dir(sim, name)
    if fresh and os.path.isdir(wd):
        shutil.rmtree(wd)
    spec_path = os.path.join(wd, "spec.json")
    if os.path.lexists(spec_path) and (os.path.islink(spec_path) or not os.path.isfile(spec_path)):
        # Never renamed over (nor read through) anything but a regular file.
        sys.exit("%s: %s is not a regular file; remove it" % (name, spec_path))
    # The folder belongs to this experiment: another point list starts it over.
    if os.path.exists(spec_path):
        with open(spec_path) as f:
            if f.read() != text:
                shutil.rmtree(wd)
    os.makedirs(wd, exist_ok=True)
    if not os.path.exists(spec_path):
        tmp = spec_path + ".tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, spec_path)
    out = os.path.join(wd, "out")
    p = subprocess.run([sys.executable, SWEEP, "run", spec_path, "--out", out, "--sim", sim,
                        "-j", str(jobs)])
    if p.returncode != 0:
        subprocess.run([sys.executable, SWEEP, "status", out])
        sys.exit("%s: gmmu-sweep run failed (exit %d); see %s" % (name, p.returncode, out))
    with open(os.path.join(out, "sweep.json")) as f:
        swept = json.load(f)["points"]
    if seeds is None:
        ids = [pt["id"] for pt in swept]
        return {key: os.path.join(out, "points", ids[i]) for key, i in of_key.items()}
    # Explicit points x seeds: find each (entry, seed) by what it runs.
    by_what = {}
    for pt in swept:
        what = json.dumps([pt["config"], pt["workload"], sorted(pt.get("set", {}).items())])
        by_what[(index[what], pt["seed"])] = pt["id"]
    return {key: [os.path.join(out, "points", by_what[(i, sd)]) for sd in seeds]
            for key, i in of_key.items()}


def stats(folder):
    with open(os.path.join(folder, "stats.json")) as f:
        return json.load(f)


def run_seconds(folders):
    """gmmu-sim's wall time summed over points (each point's `done` file), the
    same whether this invocation ran them or an earlier, interrupted one did."""
    total = 0.0
    for d in set(folders):
        with open(os.path.join(d, "done")) as f:
            total += float(f.read().split()[0])
    return total
