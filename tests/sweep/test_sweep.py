#!/usr/bin/env python3
"""Tests of gmmu-sweep's local backend (tools/gmmu-sweep; docs/sweeps.md):
expansion and stable ids, the merged table against the points' own
stats.json, resuming (complete points skipped, partial and failed ones
rerun), a failing point recorded without stopping the rest, bad specs
refused before anything runs, and a 1,000-point sweep.

  test_sweep.py --sweep tools/gmmu-sweep --sim build/bin/gmmu-sim
"""
import argparse
import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

ARGS = None
SMALL = {"sm.count": 1, "sm.warps": 2, "workload.region_bytes": 65536, "workload.accesses": 2}


def sweep(*args, check=True):
    p = subprocess.run([sys.executable, ARGS.sweep] + list(args), capture_output=True, text=True)
    if check and p.returncode != 0:
        raise AssertionError("gmmu-sweep %s: exit %d\n%s" % (" ".join(args), p.returncode, p.stderr))
    return p


class SweepTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="gmmu-sweep-test-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def spec(self, d, name="spec.json"):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            json.dump(d, f)
        return path

    def table(self, out):
        with open(os.path.join(out, "merged.csv")) as f:
            return list(csv.DictReader(f))

    def test_grid_zip_seeds_expand_and_merge_the_points_own_stats(self):
        spec = self.spec({"workloads": ["random-sample", "stream"], "set": SMALL,
                          "grid": {"ptw.pwc": ["none", "tpc"]},
                          "zip": {"l1_tlb.entries": [8, 16], "l1_tlb.ways": [8, 16]},
                          "seeds": [3, 4], "stats": ["gpu.ptw.walks", "data_check.mismatches"]})
        out = os.path.join(self.dir, "out")
        sweep("run", spec, "--out", out, "--sim", ARGS.sim, "-j", "2", "--quiet")
        sweep("merge", out)
        rows = self.table(out)
        self.assertEqual(len(rows), 2 * 2 * 2 * 2)
        self.assertEqual(len(set(r["id"] for r in rows)), len(rows))
        # Every row is its own run's stats.json, and its config has the point's values.
        for r in rows:
            self.assertEqual(r["status"], "ok")
            d = os.path.join(out, "points", r["id"])
            with open(os.path.join(d, "stats.json")) as f:
                st = json.load(f)
            self.assertEqual(int(r["gpu.ptw.walks"]), st["gpu"]["ptw"]["walks"])
            self.assertEqual(r["data_check.mismatches"], "0")
            with open(os.path.join(d, "config.json")) as f:
                cfg = json.load(f)
            self.assertEqual(cfg["ptw"]["pwc"], r["ptw.pwc"])
            self.assertEqual(str(cfg["l1_tlb"]["entries"]), r["l1_tlb.entries"])
            self.assertEqual(cfg["l1_tlb"]["entries"], cfg["l1_tlb"]["ways"], "zipped, not crossed")
        # Ids are stable: the same spec expands to the same ids in a new folder.
        out2 = os.path.join(self.dir, "out2")
        p = sweep("run", spec, "--out", out2, "--sim", ARGS.sim, "--dry-run")
        self.assertEqual(sorted(r["id"] for r in rows),
                         sorted(line.split("/points/")[1].split()[0] for line in p.stdout.splitlines()))
        with open(os.path.join(out, "merged.jsonl")) as f:
            self.assertEqual(len(f.read().splitlines()), len(rows))
        with open(os.path.join(out, "configs.json")) as f:
            self.assertEqual(len(json.load(f)), len(rows))

    def test_a_rerun_skips_complete_points_and_reruns_partial_and_failed_ones(self):
        spec = self.spec({"set": SMALL, "grid": {"l1_tlb.entries": [32, 64, 128]}, "seeds": [1]})
        out = os.path.join(self.dir, "out")
        sweep("run", spec, "--out", out, "--sim", ARGS.sim, "--quiet")
        ids = sorted(os.listdir(os.path.join(out, "points")))
        stamp = {i: os.stat(os.path.join(out, "points", i, "stats.json")).st_mtime_ns for i in ids}
        # An interrupted point: outputs written but never marked done.
        os.unlink(os.path.join(out, "points", ids[0], "done"))
        p = sweep("run", spec, "--out", out, "--sim", ARGS.sim)
        self.assertIn("2 already complete, 1 to run", p.stderr)
        for i in ids[1:]:
            self.assertEqual(os.stat(os.path.join(out, "points", i, "stats.json")).st_mtime_ns, stamp[i])
        self.assertTrue(os.path.exists(os.path.join(out, "points", ids[0], "done")))
        # A different spec cannot reuse the folder.
        other = self.spec({"set": SMALL, "grid": {"l1_tlb.entries": [64]}}, "other.json")
        p = sweep("run", other, "--out", out, "--sim", ARGS.sim, check=False)
        self.assertEqual(p.returncode, 2)
        self.assertIn("another sweep", p.stderr)

    def test_an_interrupted_sweep_stops_at_once_and_a_rerun_runs_only_the_rest(self):
        spec = self.spec({"workloads": ["stream"], "set": SMALL, "repetitions": 400})
        out = os.path.join(self.dir, "out")
        pts = os.path.join(out, "points")

        def done():
            if not os.path.isdir(pts):
                return {}
            return {i: os.stat(os.path.join(pts, i, "done")).st_mtime_ns for i in os.listdir(pts)
                    if os.path.exists(os.path.join(pts, i, "done"))}
        # Ctrl-C on a terminal: SIGINT to gmmu-sweep and the gmmu-sim runs it started.
        p = subprocess.Popen([sys.executable, ARGS.sweep, "run", spec, "--out", out, "--sim", ARGS.sim,
                              "-j", "2"], start_new_session=True, stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 60
        while len(done()) < 20 and time.time() < deadline and p.poll() is None:
            time.sleep(0.02)
        os.killpg(p.pid, signal.SIGINT)
        t0 = time.time()
        _, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 130, err)
        self.assertLess(time.time() - t0, 5, "stopped at once, not after the queued points")
        self.assertIn("interrupted", err)
        before = done()
        self.assertGreaterEqual(len(before), 20)
        self.assertLess(len(before), 400, "the sweep stopped early")
        self.assertFalse(any(os.path.exists(os.path.join(pts, i, "failed.json")) for i in os.listdir(pts)),
                         "an interrupted point is not a failure")
        r = sweep("run", spec, "--out", out, "--sim", ARGS.sim, "-j", "2")
        self.assertIn("%d already complete, %d to run" % (len(before), 400 - len(before)), r.stderr)
        after = done()
        self.assertEqual(len(after), 400)
        for i, t in before.items():
            self.assertEqual(after[i], t, "a complete point is not run again")

    def test_a_failing_point_is_recorded_and_the_rest_run(self):
        # A point gmmu-sim accepts (gmmu-sim --check) but that fails when it
        # runs: 100,000 passes of the stream workload, killed at timeout_s.
        spec = self.spec({"workloads": ["stream"], "set": SMALL, "grid": {"workload.passes": [1, 100000]},
                          "timeout_s": 1, "stats": ["gpu.l1_tlb0.hits"]})
        out = os.path.join(self.dir, "out")
        p = sweep("run", spec, "--out", out, "--sim", ARGS.sim, "--quiet", check=False)
        self.assertEqual(p.returncode, 1)
        sweep("merge", out)
        rows = {r["workload.passes"]: r for r in self.table(out)}
        self.assertEqual(rows["1"]["status"], "ok")
        self.assertEqual(rows["100000"]["status"], "failed")
        with open(os.path.join(out, "points", rows["100000"]["id"], "failed.json")) as f:
            fj = json.load(f)
        self.assertEqual(fj["exit_code"], -9)
        self.assertIn("killed after 1 s (timeout_s)", fj["stderr_tail"])
        st = sweep("status", out).stdout
        self.assertIn("1 complete, 1 failed", st)

    def test_bad_specs_are_refused_before_anything_runs(self):
        cases = [({"bogus": 1}, "unknown spec key 'bogus'"),
                 ({"grid": {"ptw.nope": [1]}}, "'grid.ptw.nope'"),
                 ({"set": {"sm.nope": 1}}, "'set.sm.nope'"),
                 ({"grid": {"ptw.pwc": []}}, "'grid.ptw.pwc': a non-empty list"),
                 ({"zip": {"sm.count": [1, 2], "sm.warps": [1]}}, "'zip': lists of different lengths"),
                 ({"seeds": [1], "repetitions": 2}, "'repetitions'"),
                 ({"grid": {"sm.count": [1]}, "set": {"sm.count": 2}}, "'sm.count' is swept and set")]
        for spec, msg in cases:
            path = self.spec(spec, "bad.json")
            out = os.path.join(self.dir, "bad")
            p = sweep("run", path, "--out", out, "--sim", ARGS.sim, check=False)
            self.assertEqual(p.returncode, 2, spec)
            self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
            self.assertIn(path, p.stderr)
            self.assertIn(msg, p.stderr)
            self.assertFalse(os.path.exists(out), "nothing ran")
        path = os.path.join(self.dir, "broken.json")
        with open(path, "w") as f:
            f.write('{"grid": {\n  "ptw.pwc": ["none",]\n}}')
        p = sweep("run", path, "--out", os.path.join(self.dir, "x"), "--sim", ARGS.sim, check=False)
        self.assertEqual(p.returncode, 2)
        self.assertIn("line 2", p.stderr)

    def test_explicit_points_carry_their_own_config_workload_and_values(self):
        fixed = {k: v for k, v in SMALL.items() if k != "sm.warps"}
        spec = self.spec({"set": fixed, "stats": ["gpu.ptw.walks"], "seeds": [2],
                          "points": [{"label": "base", "workload": "stream"},
                                     {"label": "no-mmu", "workload": "stream", "set": {"mmu.bypass": True}},
                                     {"label": "big", "config": "pichai14", "workload": "random-sample",
                                      "set": {"l1_tlb.entries": 64}}],
                          "grid": {"sm.warps": [1, 2]}})
        out = os.path.join(self.dir, "out")
        sweep("run", spec, "--out", out, "--sim", ARGS.sim, "-j", "2", "--quiet")
        sweep("merge", out)
        rows = self.table(out)
        self.assertEqual([(r["label"], r["sm.warps"]) for r in rows],
                         [("base", "1"), ("base", "2"), ("no-mmu", "1"), ("no-mmu", "2"),
                          ("big", "1"), ("big", "2")])
        self.assertEqual(list(rows[0])[:6], ["id", "index", "label", "config", "workload", "seed"])
        for r in rows:
            self.assertEqual(r["status"], "ok")
            self.assertEqual(r["seed"], "2")
            with open(os.path.join(out, "points", r["id"], "config.json")) as f:
                cfg = json.load(f)
            with open(os.path.join(out, "points", r["id"], "point.json")) as f:
                pt = json.load(f)
            self.assertEqual(pt["config"], r["config"])
            self.assertEqual(pt["workload"], r["workload"])
            self.assertEqual(cfg["mmu"]["bypass"], r["label"] == "no-mmu")
            self.assertEqual(r["mmu.bypass"], "True" if r["label"] == "no-mmu" else "")
            if r["label"] == "big":
                self.assertEqual(r["config"], "pichai14")
                self.assertEqual(cfg["l1_tlb"]["entries"], 64)
            else:
                self.assertEqual(r["config"], "default")
        cases = [({"workloads": ["stream"], "points": [{}]}, "give workloads or points"),
                 ({"points": []}, "'points': a non-empty list"),
                 ({"points": [{"sets": {}}]}, "'points[0].sets': unknown"),
                 ({"points": [{"label": "a"}, {"label": "a", "workload": "stream"}]}, "'a' names two points"),
                 ({"points": [{"set": {"sm.nope": 1}}]}, "'points[0].set.sm.nope'"),
                 ({"points": [{"set": {"sm.count": 1}}], "grid": {"sm.count": [2]}}, "'sm.count' is swept and set"),
                 ({"points": [{"workload": 3}]}, "'points[0].workload': a non-empty string")]
        for bad, msg in cases:
            path = self.spec(bad, "bad.json")
            p = sweep("run", path, "--out", os.path.join(self.dir, "bad"), "--sim", ARGS.sim, check=False)
            self.assertEqual(p.returncode, 2, bad)
            self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
            self.assertIn(msg, p.stderr)

    def test_another_gmmu_sim_build_reruns_every_point(self):
        sim = os.path.join(self.dir, "gmmu-sim")
        shutil.copy(ARGS.sim, sim)
        spec = self.spec({"set": SMALL, "grid": {"l1_tlb.entries": [32, 64]}})
        out = os.path.join(self.dir, "out")
        sweep("run", spec, "--out", out, "--sim", sim, "--quiet")
        p = sweep("run", spec, "--out", out, "--sim", sim)
        self.assertIn("2 already complete, 0 to run", p.stderr)
        with open(sim, "ab") as f:  # another build: the same program with one more byte
            f.write(b"\0")
        p = sweep("run", spec, "--out", out, "--sim", sim)
        self.assertIn("another gmmu-sim build", p.stderr)
        self.assertIn("0 already complete, 2 to run", p.stderr)

    def test_toml_specs_and_repetitions(self):
        path = os.path.join(self.dir, "spec.toml")
        with open(path, "w") as f:
            f.write('workloads = ["stream"]\nrepetitions = 3\nstats = ["warp_accesses"]\n'
                    '[set]\n"sm.count" = 1\n"sm.warps" = 2\n"workload.region_bytes" = 65536\n')
        out = os.path.join(self.dir, "out")
        sweep("run", path, "--out", out, "--sim", ARGS.sim, "--quiet")
        sweep("merge", out)
        rows = self.table(out)
        self.assertEqual([r["seed"] for r in rows], ["1", "2", "3"])

    def test_a_thousand_point_sweep(self):
        spec = self.spec({"workloads": ["stream"], "set": dict(SMALL, **{"workload.region_bytes": 8192}),
                          "grid": {"l1_tlb.entries": [32, 64, 128, 256, 512], "ptw.walkers": [1, 2, 4, 8]},
                          "repetitions": 50, "stats": ["gpu.l1_tlb0.hits"]})
        out = os.path.join(self.dir, "out")
        p = sweep("run", spec, "--out", out, "--sim", ARGS.sim, "-j", "2")
        self.assertIn("1000/1000 points, 0 failed", p.stderr)
        sweep("merge", out)
        rows = self.table(out)
        self.assertEqual(len(rows), 1000)
        self.assertTrue(all(r["status"] == "ok" for r in rows))


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--sweep", required=True)
    ap.add_argument("--sim", required=True)
    ARGS, rest = ap.parse_known_args()
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
