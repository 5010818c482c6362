#!/usr/bin/env python3
"""Tests of experiments/sweeplib.py, the way every experiment under
experiments/ runs gmmu-sim through gmmu-sweep (docs/sweeps.md): points
become one spec of explicit points, two keys that run the same thing share
a run, a second call resumes, another point list or fresh=True starts over,
a failing point stops the experiment; and the picle experiment end to end.

  test_experiments.py --sim build/bin/gmmu-sim
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "experiments"))
import sweeplib  # noqa: E402

ARGS = None
SMALL = ["sm.count=1", "sm.warps=2", "workload.region_bytes=65536", "workload.accesses=2"]


class SweeplibTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="gmmu-sweeplib-test-")
        os.environ["BUILD_DIR"] = self.dir
        os.environ["JOBS"] = "2"

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def test_points_run_through_gmmu_sweep_and_resume(self):
        points = {"a": ("default", "stream", SMALL),
                  "same-as-a": ("default", "stream", list(reversed(SMALL))),
                  ("b", 64): ("default", "stream", SMALL + ["l1_tlb.entries=64"])}
        dirs = sweeplib.run_points(ARGS.sim, "t", points)
        self.assertEqual(dirs["a"], dirs["same-as-a"], "one run for two keys that run the same thing")
        self.assertNotEqual(dirs["a"], dirs[("b", 64)])
        wd = os.path.join(self.dir, "sweeps", "t")
        with open(os.path.join(wd, "spec.json")) as f:
            spec = json.load(f)
        self.assertEqual([p["label"] for p in spec["points"]], ["a", "b/64"])
        for key, d in dirs.items():
            self.assertTrue(d.startswith(os.path.join(wd, "out", "points")))
            with open(os.path.join(d, "point.json")) as f:
                pt = json.load(f)
            self.assertEqual(pt["workload"], "stream")
            with open(os.path.join(d, "config.json")) as f:
                cfg = json.load(f)
            self.assertEqual(cfg["l1_tlb"]["entries"], 64 if key == ("b", 64) else
                             json.load(open(os.path.join(dirs["a"], "config.json")))["l1_tlb"]["entries"])
        self.assertEqual(sweeplib.stats(dirs["a"])["data_check"]["mismatches"], 0)
        self.assertGreater(sweeplib.run_seconds(dirs.values()), 0)
        # Again: every point is complete and none reruns.
        stamp = {d: os.stat(os.path.join(d, "done")).st_mtime_ns for d in dirs.values()}
        self.assertEqual(sweeplib.run_points(ARGS.sim, "t", points), dirs)
        for d in dirs.values():
            self.assertEqual(os.stat(os.path.join(d, "done")).st_mtime_ns, stamp[d])
        # fresh=True reruns them.
        sweeplib.run_points(ARGS.sim, "t", points, fresh=True)
        for d in set(dirs.values()):
            self.assertNotEqual(os.stat(os.path.join(d, "done")).st_mtime_ns, stamp[d])
        # Another point list under the same name starts over instead of being refused.
        other = {"c": ("default", "stream", SMALL + ["l1_tlb.entries=128"])}
        d2 = sweeplib.run_points(ARGS.sim, "t", other)
        self.assertEqual(os.listdir(os.path.join(wd, "out", "points")), [os.path.basename(d2["c"])])

    def test_points_run_once_per_seed_in_the_order_of_the_seeds(self):
        points = {"a": ("default", "random-sample", SMALL), "b": ("default", "stream", SMALL)}
        dirs = sweeplib.run_points(ARGS.sim, "s", points, seeds=[7, 3])
        for key in points:
            self.assertEqual(len(dirs[key]), 2)
            for d, seed in zip(dirs[key], [7, 3]):
                with open(os.path.join(d, "point.json")) as f:
                    pt = json.load(f)
                self.assertEqual(pt["seed"], seed)
                self.assertEqual(pt["workload"], points[key][1])
        self.assertNotEqual(dirs["a"][0], dirs["a"][1])
        with self.assertRaises(ValueError):
            sweeplib.run_points(ARGS.sim, "s", points, seeds=[1, 1])
        with self.assertRaises(ValueError):
            sweeplib.run_points(ARGS.sim, "s", points, seeds=[])

    def test_a_spec_path_that_is_not_a_regular_file_is_refused(self):
        # A FIFO (or a symlink) where the experiment's spec.json goes: refused
        # at once, never read (a FIFO would block) nor renamed over.
        wd = os.path.join(self.dir, "sweeps", "n")
        os.makedirs(wd)
        os.mkfifo(os.path.join(wd, "spec.json"))
        with self.assertRaises(SystemExit) as e:
            sweeplib.run_points(ARGS.sim, "n", {"a": ("default", "stream", SMALL)})
        self.assertIn("not a regular file", str(e.exception.code))
        self.assertFalse(os.path.isfile(os.path.join(wd, "spec.json")))

    def test_a_failing_point_stops_the_experiment(self):
        points = {"ok": ("default", "stream", SMALL), "bad": ("default", "stream", SMALL + ["l1_tlb.ways=4096"])}
        with self.assertRaises(SystemExit) as e:
            sweeplib.run_points(ARGS.sim, "f", points)
        self.assertIn("gmmu-sweep run failed", str(e.exception.code))

    def test_no_experiment_file_shadows_a_standard_module(self):
        # A script's folder comes first on sys.path: experiments/pwc/platform.py
        # once replaced Python's platform module for plot_pwc.py.
        for d, _, files in os.walk(os.path.join(ROOT, "experiments")):
            for f in files:
                if f.endswith(".py"):
                    self.assertNotIn(f[:-3], sys.stdlib_module_names, os.path.join(d, f))

    def test_the_picle_experiment_end_to_end(self):
        out = os.path.join(self.dir, "results")
        p = subprocess.run([sys.executable, os.path.join(ROOT, "experiments", "picle", "picle.py"),
                            ARGS.sim, out], capture_output=True, text=True,
                           env=dict(os.environ, PICLE_SEEDS="3,4", PICLE_REAL="0"))
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(self.dir, "sweeps", "picle", "out", "sweep.json")) as f:
            sw = json.load(f)
        self.assertEqual(len(sw["points"]), 18)
        self.assertTrue(all(pt["config"] == "picle" for pt in sw["points"]))
        self.assertEqual(sorted({pt["seed"] for pt in sw["points"]}), [3, 4])
        with open(os.path.join(out, "picle.md")) as f:
            md = f.read()
        self.assertIn("2 seeds (3, 4)", md)
        self.assertIn("The real kernels' section is left out (PICLE_REAL=0)", md)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "sweeps", "real-kernels")))
        # Every point's own simulated time is in the by-seed table.
        for pt in sw["points"]:
            with open(os.path.join(self.dir, "sweeps", "picle", "out", "points", pt["id"], "stats.json")) as f:
                ns = json.load(f)["sim_time_ns"]
            self.assertIn(", %.1f " % (ns / 1000.0), md, pt["label"])
        # The figures file the index judges: one sample per seed.
        with open(os.path.join(out, "picle.figures.json")) as f:
            figs = json.load(f)
        self.assertEqual(figs["seeds"], [3, 4])
        self.assertEqual(figs["figures"]["shared_hot_miss_change_pts"]["n"], 2)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--sim", required=True)
    ARGS, rest = ap.parse_known_args()
    ARGS.sim = os.path.abspath(ARGS.sim)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
