#!/usr/bin/env python3
"""Golden-stats regression for gmmu-sim.

  golden.py check NAME --bin GMMU_SIM --work DIR   run NAME, compare with stats/NAME.json
  golden.py check NAME ... --set KEY=VALUE         the same with KEY=VALUE added: for keys that
                                                   must not change a result (l1_tlb.hit_fast_path)
  golden.py update [NAME...] --bin GMMU_SIM --work DIR   rewrite stats/NAME.json (all if none)
  golden.py list [--labels L]                      names in runs.tsv
  golden.py named CONFIG --bin GMMU_SIM --work DIR  run a named config briefly (exit 0 required)

runs.tsv names each run, its labels, its arguments and why it is in the set.
Only the fields that measure the host (wall time, host rates) are dropped
before comparing; every simulated counter and time must be identical.
"""
import json
import os
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
# Keys (last path component) that measure the host, not the model.
HOST_KEYS = {"wall_s", "warp_accesses_per_wall_s"}


def runs():
    out = {}
    with open(os.path.join(HERE, "runs.tsv"), encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip() or line.startswith("#"):
                continue
            cols = line.rstrip("\n").split("\t")
            if len(cols) != 4:
                sys.exit(f"runs.tsv:{n}: expected 4 tab-separated columns, got {len(cols)}")
            name, labels, args, why = cols
            out[name] = {"labels": labels.split(";"), "args": args.replace("@GOLDEN@", HERE),
                         "why": why}
    return out


def strip_host(j):
    if isinstance(j, dict):
        return {k: strip_host(v) for k, v in j.items() if k not in HOST_KEYS}
    if isinstance(j, list):
        return [strip_host(v) for v in j]
    return j


def flatten(j, prefix=""):
    if isinstance(j, dict):
        for k, v in j.items():
            yield from flatten(v, f"{prefix}.{k}" if prefix else k)
    elif isinstance(j, list):
        for i, v in enumerate(j):
            yield from flatten(v, f"{prefix}[{i}]")
    else:
        yield prefix, j


def run_one(name, spec, binary, work, sets=()):
    out = os.path.join(work, name + "".join("+" + kv.replace("=", "-") for kv in sets))
    os.makedirs(out, exist_ok=True)
    extra = [a for kv in sets for a in ("--set", kv)]
    cmd = [binary] + shlex.split(spec["args"]) + extra + ["--quiet", "--out", out]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        sys.exit(f"golden {name}: gmmu-sim exited {p.returncode}: {' '.join(cmd)}\n{p.stdout[-2000:]}")
    with open(os.path.join(out, "stats.json"), encoding="utf-8") as f:
        return strip_host(json.load(f))


def run_named(names, binary, work):
    """Every named config loads and runs a short run of its natural workload:
    the kernel workload for the issue SM model, random sampling otherwise."""
    cfgdir = os.path.join(HERE, "..", "..", "platforms", "configs")
    for name in names:
        with open(os.path.join(cfgdir, name + ".json"), encoding="utf-8") as f:
            cfg = json.load(f)
        if cfg.get("sm", {}).get("model") == "issue":
            args = ["--workload", "kernel", "--set", "workload.kernel=tiny"]
        else:
            args = ["--workload", "random-sample", "--set", "workload.accesses=2",
                    "--set", "workload.region_bytes=67108864"]
        out = os.path.join(work, "named-" + name)
        cmd = [binary, "--config", name] + args + ["--quiet", "--out", out]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if p.returncode != 0:
            print(f"named config {name}: exit {p.returncode}: {' '.join(cmd)}\n{p.stdout[-2000:]}")
            return 1
        with open(os.path.join(out, "stats.json"), encoding="utf-8") as f:
            stats = json.load(f)
        print(f"named config {name}: ran, {sum(1 for _ in flatten(stats))} stats")
    return 0


def canonical(j):
    return json.dumps(j, indent=1, sort_keys=True) + "\n"


def main(argv):
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("cmd", choices=["check", "update", "list", "named"])
    ap.add_argument("names", nargs="*")
    ap.add_argument("--bin")
    ap.add_argument("--work", default=None)
    ap.add_argument("--labels", default=None)
    ap.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE",
                    help="check: add this setting to every run (a key that must not change results)")
    a = ap.parse_args(argv)
    if a.sets and a.cmd != "check":
        sys.exit("golden: --set is only for check (golden files come from the runs as listed)")
    for kv in a.sets:
        if "=" not in kv or kv.startswith("="):
            sys.exit(f"golden: --set {kv}: expected KEY=VALUE")
    table = runs()
    if a.cmd == "list":
        for n, s in table.items():
            if a.labels is None or a.labels in s["labels"]:
                print(n)
        return 0
    if not a.bin:
        sys.exit("--bin GMMU_SIM is required")
    work = a.work or tempfile.mkdtemp(prefix="gmmu-golden-")
    if a.cmd == "named":
        return run_named(a.names, a.bin, work)
    names = a.names or list(table)
    for n in names:
        if n not in table:
            sys.exit(f"golden: unknown run '{n}' (runs.tsv)")
    bad = 0
    for n in names:
        got = run_one(n, table[n], a.bin, work, a.sets)
        path = os.path.join(HERE, "stats", n + ".json")
        if a.cmd == "update":
            tmp = path + ".tmp"
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(canonical(got))
            os.replace(tmp, path)
            print(f"golden {n}: written")
            continue
        if not os.path.exists(path):
            print(f"golden {n}: no stats/{n}.json (run `golden.py update {n}`)")
            bad += 1
            continue
        with open(path, encoding="utf-8") as f:
            want = json.load(f)
        if canonical(got) == canonical(want):
            print(f"golden {n}: identical" + "".join(f" with {kv}" for kv in a.sets))
            continue
        bad += 1
        fw, fg = dict(flatten(want)), dict(flatten(got))
        diffs = [k for k in sorted(set(fw) | set(fg)) if fw.get(k, "<absent>") != fg.get(k, "<absent>")]
        print(f"golden {n}: {len(diffs)} field(s) differ ({table[n]['why']}):")
        for k in diffs[:25]:
            print(f"  {k}: golden {fw.get(k, '<absent>')}  now {fg.get(k, '<absent>')}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
