#!/usr/bin/env python3
"""Random-spec fuzzing of gmmu-sweep's spec checker (seeded, deterministic).

Mutates a valid spec (keys dropped, added, renamed; values of every JSON
type, nested, empty, huge, with control characters) and also feeds raw
byte strings to the loader. Every input must either expand into points
(unique ids, every --set value a string, every point's sets naming known
keys) or be refused with BadInput: one line that names the spec file.
Anything else (another exception, a multi-line message) fails.

  fuzz_spec.py --sweep tools/gmmu-sweep [--iterations N] [--seed S]
"""
import argparse
import importlib.machinery
import importlib.util
import json
import os
import random
import sys
import tempfile

KNOWN = {"sm.count", "sm.warps", "ptw.pwc", "l1_tlb.entries", "l1_tlb.ways", "workload.accesses"}
BASE = {"name": "x", "config": "default", "workloads": ["random-sample", "stream"],
        "set": {"sm.count": 2}, "grid": {"ptw.pwc": ["none", "tpc"]},
        "zip": {"l1_tlb.entries": [32, 64], "l1_tlb.ways": [32, 64]}, "seeds": [1, 2],
        "stats": ["sim_time_ns"], "timeout_s": 10}
# A spec of explicit points (instead of workloads).
BASE_POINTS = {"name": "y", "config": "default", "set": {"sm.count": 2}, "grid": {"ptw.pwc": ["none", "tpc"]},
               "points": [{"label": "a", "workload": "stream", "set": {"sm.warps": 4}},
                          {"label": "b", "config": "k80", "set": {"l1_tlb.entries": 64}},
                          {}],
               "seeds": [1]}


def load_tool(path):
    loader = importlib.machinery.SourceFileLoader("gmmu_sweep", path)
    spec = importlib.util.spec_from_loader("gmmu_sweep", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def rand_scalar(r):
    return r.choice([0, 1, -1, 2 ** 63, 3.5, float("inf") if r.random() < 0.1 else 1e300, True, False,
                     None, "", "none", "tpc", "a\nb", "\x00", "é", "x" * 300, "sm.count"])


def rand_value(r, depth=0):
    k = r.randrange(6 if depth < 2 else 2)
    if k == 0:
        return rand_scalar(r)
    if k == 1:
        return r.choice(list(KNOWN) + ["sm.nope", "", "a.b.c", "\n"])
    if k == 2:
        return [rand_value(r, depth + 1) for _ in range(r.randrange(5))]
    if k == 3:
        return {r.choice(list(KNOWN) + ["bogus", ""]): rand_value(r, depth + 1)
                for _ in range(r.randrange(4))}
    if k == 4:
        return [r.choice([1, 2, 3, "none", "tpc", True]) for _ in range(r.randrange(4))]
    return {}


def mutate(r, spec):
    s = json.loads(json.dumps(spec))
    for _ in range(1 + r.randrange(4)):
        op = r.randrange(7)
        keys = list(s)
        if op == 0 and keys:
            del s[r.choice(keys)]
        elif op == 1:
            s[r.choice(["bogus", "Grid", "seed", "sets", "stat", "points"] + list(BASE))] = rand_value(r)
        elif op == 2 and keys:
            s[r.choice(keys)] = rand_value(r)
        elif op == 3 and isinstance(s.get("grid"), dict):
            s["grid"][r.choice(list(KNOWN) + ["nope.key"])] = rand_value(r, 1)
        elif op == 4 and isinstance(s.get("zip"), dict):
            s["zip"][r.choice(list(KNOWN))] = [r.randrange(3) for _ in range(r.randrange(4))]
        elif op == 5:
            s["repetitions"] = rand_scalar(r)
        elif op == 6 and isinstance(s.get("points"), list) and s["points"]:
            i = r.randrange(len(s["points"]))
            pt = s["points"][i]
            if isinstance(pt, dict) and r.random() < 0.7:
                pt[r.choice(["label", "config", "workload", "set", "seed", "bogus"])] = rand_value(r, 1)
            else:
                s["points"][i] = rand_value(r, 1)
    return s


def check_one(tool, spec, path):
    try:
        points, meta = tool.expand(spec, path, KNOWN)
    except tool.BadInput as e:
        msg = str(e)
        if "\n" in msg or path not in msg:
            raise AssertionError("refusal not one line naming the spec: %r for %r" % (msg, spec))
        return "refused"
    ids = [p["id"] for p in points]
    if len(ids) != len(set(ids)):
        raise AssertionError("duplicate ids for %r" % (spec,))
    for p in points:
        for k, v in p["set"].items():
            if k not in KNOWN or not isinstance(v, str):
                raise AssertionError("bad point %r from %r" % (p, spec))
    return "ok"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sweep", required=True)
    ap.add_argument("--iterations", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=0x5eed)
    a = ap.parse_args()
    tool = load_tool(a.sweep)
    r = random.Random(a.seed)
    counts = {"ok": 0, "refused": 0}
    path = "fuzz-spec.json"
    for i in range(a.iterations):
        spec = mutate(r, BASE if i % 2 else BASE_POINTS)
        counts[check_one(tool, spec, path)] += 1
    # Raw files through the loader: JSON and TOML text, truncated or garbled.
    with tempfile.TemporaryDirectory() as d:
        texts = [json.dumps(BASE), json.dumps(BASE_POINTS), 'workloads = ["stream"]\nseeds = [1, 2]\n']
        for i in range(a.iterations // 20):
            t = r.choice(texts)
            cut = r.randrange(len(t) + 1)
            t = t[:cut] + "".join(chr(r.randrange(1, 0x250)) for _ in range(r.randrange(4))) + t[cut:]
            name = os.path.join(d, "s%d.%s" % (i, "toml" if t.startswith("workloads") else "json"))
            with open(name, "w", encoding="utf-8", errors="surrogatepass") as f:
                f.write(t)
            try:
                spec = tool.load_spec(name)
            except tool.BadInput as e:
                if "\n" in str(e) or name not in str(e):
                    raise AssertionError("loader refusal not one line naming the file: %r" % str(e))
                counts["refused"] += 1
                continue
            counts[check_one(tool, spec, name)] += 1
    print("fuzz_spec: %d specs expanded, %d refused, 0 crashes" % (counts["ok"], counts["refused"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
