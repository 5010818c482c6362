#!/usr/bin/env python3
"""Derive platforms/configs/h200.json from the H200 measurements, or check it.

usage: derive_config.py --analyse GMMU_TLB_ANALYSE [--check CONFIG | --write CONFIG]

Every number of the config is either derived here from experiments/h200/measured/
(chase.csv through gmmu-tlb-analyse, random_reads.csv, README.md) or is a free
parameter listed in FREE with the reason the measurement cannot pin it
(docs/tlb_probe.md section 3b). --check fails (exit 1) when the config holds a
number that differs from the derivation or a key that is neither derived nor
listed as free. Prints the derivation either way.
"""
import argparse
import csv
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
MEASURED = os.path.join(HERE, "measured")
MiB = 1 << 20

# Free parameters: (value, why the measurement cannot pin it down).
FREE = {
    "name": ("h200", "the config's name"),
    "page_size": (2 * MiB, "the driver maps 2 MiB pages for a large cudaMalloc (#43); the chase "
                  "sees only TLB entries, whose coverage (16 and 32 MiB) is a multiple of any page"),
    "l1_tlb.lookup_cycles": (1, "an L1 TLB hit is part of every access; the curves show only the "
                             "sum with the data latency (the plateau), which memory.latency_cycles takes"),
    "l1_tlb.ways": (16, "fully associative: the rises are single steps at E x max(s, P) at every "
                    "stride, as for a fully associative TLB; set conflicts would need strides that "
                    "map to few sets, which power-of-two strides above the page hit only with "
                    "power-of-two set counts, and the reach doubles there as it should"),
    "l1_tlb.shared_by": (1, "one thread on one SM chased: sharing is unmeasured (a tlb-share "
                         "measurement on the GPU would pin it)"),
    "l2_tlb.enabled": (True, "the second level exists (two rises)"),
    "l2_tlb.ways": (2048, "fully associative for the same reason as the L1 (2048 entries x 32 MiB "
                    "reach 64 GiB at strides 2-32 MiB alike)"),
    "l3_tlb.enabled": (False, "no third rise up to the 127 GiB buffer"),
}

# The random-read fit (#43 item 4), its data named before the fit was written:
# random_reads.csv, both runs; the plateau = regions from 16 GiB up to the
# L2 TLB's reach, the cliff = regions past that reach.
GiB = 1 << 30
PLATEAU_FROM = 16 * GiB
# The model books the bytes a warp access requests (lanes x lane bytes, whole
# 32 B sectors per transaction: gmmu_mem_bw_warp_bytes): 8 B per 8-byte load of
# a full 32-lane warp, however scattered the lanes are.
BOOKED_BYTES_PER_LOAD = 8


def analyse(binary, run, out):
    subprocess.run([binary, os.path.join(MEASURED, "chase.csv"), "--run", run, "--out", out],
                   check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "tlb_probe.json")) as f:
        return json.load(f)


def derive(binary):
    rows = list(csv.DictReader(open(os.path.join(MEASURED, "chase.csv"))))
    reads = list(csv.DictReader(open(os.path.join(MEASURED, "random_reads.csv"))))
    readme = open(os.path.join(MEASURED, "README.md")).read()
    d, why = {}, {}

    # Clock: every row's cycles / ns (clock64 over globaltimer).
    ratio = statistics.median(float(r["cycles_per_access"]) / float(r["ns_per_access"]) for r in rows)
    d["clock_mhz"] = round(ratio * 1000)
    why["clock_mhz"] = f"median cycles/ns of {len(rows)} chase rows = {ratio:.5f} GHz"

    # SMs from the README; warps per SM from the random-read launch: loads =
    # SMs x blocks x threads x loads per thread, 32 threads a warp.
    sms = int(re.search(r"\((\d+) SMs", readme).group(1))
    m = re.search(r"(\d+) x (\d+) blocks of (\d+) threads; each thread makes (\d+)", readme)
    assert int(m.group(1)) == sms, "README: launch SMs differ from the GPU's"
    blocks, threads, per_thread = int(m.group(2)), int(m.group(3)), int(m.group(4))
    loads = {int(r["loads"]) for r in reads}
    assert loads == {sms * blocks * threads * per_thread}, f"random_reads.csv loads {loads}"
    d["sm.count"] = sms
    d["sm.warps"] = blocks * threads // 32
    why["sm.count"] = "README: the GPU's SMs"
    why["sm.warps"] = (f"{blocks} blocks x {threads} threads per SM = {blocks * threads} threads "
                       f"(random_reads.csv: {loads.pop()} loads = {sms} x {blocks} x {threads} x {per_thread})")

    # TLB levels: gmmu-tlb-analyse on both runs; geometry must agree, delays
    # are the mean of the runs (the model should sit inside their spread).
    with tempfile.TemporaryDirectory() as tmp:
        res = {run: analyse(binary, run, os.path.join(tmp, run)) for run in ("A", "B")}
    for run, j in res.items():
        assert len(j["levels"]) == 2, f"run {run}: {len(j['levels'])} levels"
    l1 = [res[r]["levels"][0] for r in ("A", "B")]
    l2 = [res[r]["levels"][1] for r in ("A", "B")]
    for lv in (l1, l2):
        for k in ("entries", "page_bytes", "reach_bytes"):
            assert lv[0][k] == lv[1][k], f"runs disagree on {k}: {lv[0][k]} {lv[1][k]}"
    d["l1_tlb.entries"] = l1[0]["entries"]
    d["l1_tlb.coverage_bytes"] = l1[0]["page_bytes"]
    d["l2_tlb.entries"] = l2[0]["entries"]
    d["l2_tlb.coverage_bytes"] = l2[0]["page_bytes"]
    why["l1_tlb.entries"] = why["l1_tlb.coverage_bytes"] = (
        f"analysis, runs A and B: L1 {l1[0]['entries']} x {l1[0]['page_bytes'] // MiB} MiB "
        f"(reach {l1[0]['reach_bytes'] // MiB} MiB)")
    why["l2_tlb.entries"] = why["l2_tlb.coverage_bytes"] = (
        f"analysis: L2 {l2[0]['entries']} x {l2[0]['page_bytes'] // MiB} MiB (reach "
        f"{l2[0]['reach_bytes'] // MiB} MiB; page bounded above by "
        f"{l2[0].get('page_bytes_max', l2[0]['page_bytes']) // MiB} MiB: the smaller is taken)")
    # Miss delay of level k = lookup of level k+1 (the L2 TLB), of the last
    # level = the walk (a fixed walk time: the chase has one walk in flight).
    m1 = statistics.mean(lv["miss_delay_cycles"] for lv in l1)
    m2 = statistics.mean(lv["miss_delay_cycles"] for lv in l2)
    d["l2_tlb.lookup_cycles"] = round(m1)
    d["ptw.fixed_walk_latency"] = round(m2)
    why["l2_tlb.lookup_cycles"] = f"L1 miss delay, mean of A {l1[0]['miss_delay_cycles']} and B {l1[1]['miss_delay_cycles']}"
    why["ptw.fixed_walk_latency"] = f"L2 miss delay, mean of A {l2[0]['miss_delay_cycles']} and B {l2[1]['miss_delay_cycles']}"

    # Data latency: the plateau (long chains within the L1's reach: every
    # access hits the L1 TLB and the L2 cache) minus the L1 TLB lookup.
    reach1 = l1[0]["reach_bytes"]
    plateaus = {}
    for run in ("A", "B"):
        plateaus[run] = statistics.median(
            float(r["cycles_per_access"]) for r in rows
            if r["run"] == run and int(r["chain_length"]) >= 1024 and int(r["distance_bytes"]) <= reach1)
    plat = statistics.mean(plateaus.values())
    d["memory.latency_cycles"] = round(plat) - FREE["l1_tlb.lookup_cycles"][0]
    why["memory.latency_cycles"] = (f"plateau (chains >= 1024 within {reach1 // MiB} MiB) A {plateaus['A']}, "
                                    f"B {plateaus['B']}: mean {plat:.2f}, minus the 1-cycle L1 lookup")

    # The two rates of the random reads. Plateau: every load hits the TLBs,
    # the throughput is the memory's (memory.bytes_per_cycle). Cliff: under
    # uniform random offsets a fraction f = 1 - reach/R of the loads misses
    # the L2 TLB; the GPU serves a fixed rate M = throughput x f of misses,
    # and in the model M = ptw.walkers / ptw.fixed_walk_latency per cycle
    # (walkers working in parallel, each walk taking the chase's miss delay).
    clock_hz = d["clock_mhz"] * 1e6
    reach2 = l2[0]["reach_bytes"]
    plat_rows = [r for r in reads if PLATEAU_FROM <= int(r["region_bytes"]) <= reach2]
    cliff_rows = [r for r in reads if int(r["region_bytes"]) > reach2]
    assert plat_rows and cliff_rows, "random_reads.csv: no plateau or no cliff region"
    t0 = statistics.mean(float(r["gloads_per_s"]) for r in plat_rows) * 1e9
    d["memory.bytes_per_cycle"] = round(t0 * BOOKED_BYTES_PER_LOAD / clock_hz)
    why["memory.bytes_per_cycle"] = (
        f"fit: mean random-read throughput over {len(plat_rows)} rows from {PLATEAU_FROM // GiB} GiB to the "
        f"L2 TLB's reach ({reach2 // GiB} GiB), runs A and B: {t0 / 1e9:.2f} G loads/s x "
        f"{BOOKED_BYTES_PER_LOAD} B booked per load / {clock_hz / 1e9:.2f} GHz")
    rates = []
    for r in cliff_rows:
        reg = int(r["region_bytes"])
        rates.append(float(r["gloads_per_s"]) * 1e9 * (1 - reach2 / reg))
    m = statistics.mean(rates)
    d["ptw.walkers"] = round(m / clock_hz * d["ptw.fixed_walk_latency"])
    why["ptw.walkers"] = (
        "fit: L2-TLB misses served per second = throughput x (1 - reach/region) past the reach, "
        + ", ".join(f"{r['run']} {int(r['region_bytes']) // GiB} GiB {x / 1e9:.2f} G/s"
                    for r, x in zip(cliff_rows, rates))
        + f"; mean {m / 1e9:.3f} G/s = {m / clock_hz:.3f} per cycle x {d['ptw.fixed_walk_latency']}-cycle walks")
    return d, why


def flatten(j, prefix=""):
    for k, v in j.items():
        if isinstance(v, dict):
            yield from flatten(v, prefix + k + ".")
        else:
            yield prefix + k, v


def nest(flat):
    out = {}
    for k, v in flat.items():
        *path, leaf = k.split(".")
        cur = out
        for p in path:
            cur = cur.setdefault(p, {})
        cur[leaf] = v
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--analyse", required=True, help="the gmmu-tlb-analyse binary")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--check", metavar="CONFIG")
    g.add_argument("--write", metavar="CONFIG")
    a = ap.parse_args()
    d, why = derive(a.analyse)
    for k in sorted(d):
        print(f"derived {k} = {d[k]}: {why[k]}")
    for k in sorted(FREE):
        print(f"free    {k} = {FREE[k][0]}: {FREE[k][1]}")
    want = dict(d)
    want.update({k: v for k, (v, _) in FREE.items()})
    if a.write:
        order = ["name", "clock_mhz", "page_size", "sm", "l1_tlb", "l2_tlb", "l3_tlb", "ptw", "memory"]
        cfg = nest(want)
        cfg = {k: cfg[k] for k in order}
        tmp = a.write + ".tmp"
        with open(tmp, "w") as f:
            json.dump(cfg, f, indent=2)
            f.write("\n")
        os.replace(tmp, a.write)
        print(f"wrote {a.write}")
    if a.check:
        with open(a.check) as f:
            have = dict(flatten(json.load(f)))
        bad = [f"{k}: config {have.get(k)!r}, derived {v!r}" for k, v in want.items() if have.get(k) != v]
        bad += [f"{k}: in the config but neither derived nor a listed free parameter"
                for k in have if k not in want]
        for b in bad:
            print(f"MISMATCH {b}")
        if bad:
            return 1
        print(f"{a.check}: every number derived or listed as free ({len(d)} derived, {len(FREE)} free)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
