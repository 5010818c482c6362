#!/usr/bin/env python3
"""gmmu-bench's arguments and hygiene (bench/bench_main.cpp; docs/performance.md):
bad --reps and --out values are refused with one line and exit 2 before any
benchmark runs; gmmu-sim runs with no shell, so a TMPDIR with shell syntax
in it is just a folder name; a failed or interrupted bench leaves no
temporary folder and no partial --out file.

  test_bench_args.py --bench build/bin/gmmu-bench
"""
import argparse
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


class BenchArgsTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="gmmu-bench-test-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def bench(self, *args, env=None, timeout=60):
        t0 = time.time()
        p = subprocess.run([ARGS.bench] + list(args), capture_output=True, text=True, cwd=self.dir,
                           env=env, timeout=timeout)
        return p, time.time() - t0

    def refused(self, args, msg):
        p, secs = self.bench(*args)
        self.assertEqual(p.returncode, 2, (args, p.stderr))
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
        self.assertIn(msg, p.stderr)
        self.assertLess(secs, 3, "refused before any benchmark")
        return p

    def fake_sim(self, body):
        path = os.path.join(self.dir, "fake-sim")
        with open(path, "w") as f:
            f.write("#!%s\nimport json, os, sys, time\n%s\n" % (sys.executable, body))
        os.chmod(path, 0o755)
        return path

    def leftovers(self, *folders):
        return [os.path.join(d, n) for d in folders for n in os.listdir(d)
                if n.endswith(".part") or n.startswith("gmmu-bench.")]

    def test_bad_reps_are_refused(self):
        for reps in ["abc", "0", "-1", "51", "1e3", "", "99999999999999999999", "5x"]:
            self.refused(["--reps", reps, "--out", os.path.join(self.dir, "b.json")], "--reps")
        self.refused(["--frobnicate"], "usage")
        self.refused(["--reps"], "usage")

    def test_bad_out_fails_before_any_benchmark_and_leaves_nothing(self):
        self.refused(["--out", os.path.join(self.dir, "no", "such", "b.json")], "its folder does not exist")
        folder = os.path.join(self.dir, "afolder")
        os.mkdir(folder)
        self.refused(["--out", folder], "is a folder")
        fifo = os.path.join(self.dir, "fifo")
        os.mkfifo(fifo)
        self.refused(["--out", fifo], "not a regular file")
        self.assertTrue(os.path.exists(fifo) and not os.path.isfile(fifo), "the FIFO is still a FIFO")
        ro = os.path.join(self.dir, "ro")
        os.mkdir(ro)
        os.chmod(ro, 0o555)
        if not os.access(ro, os.W_OK):  # root writes anywhere
            self.refused(["--out", os.path.join(ro, "b.json")], "cannot write in its folder")
        self.refused(["--out", os.path.join(self.dir, "b.json"), "--sim", os.path.join(self.dir, "nosim")],
                     "not an executable gmmu-sim")
        self.assertEqual(self.leftovers(self.dir, folder, ro), [])

    def test_tmpdir_is_not_shell_text_and_a_failed_run_cleans_up(self):
        # A TMPDIR that would run commands through sh -c; the fake gmmu-sim
        # records its arguments and fails.
        tmpdir = os.path.join(self.dir, "t $(touch pwned1) `touch pwned2`;touch pwned3;")
        os.mkdir(tmpdir)
        log = os.path.join(self.dir, "argv.json")
        sim = self.fake_sim("open(%r, 'w').write(json.dumps(sys.argv))\nsys.exit(3)" % log)
        out = os.path.join(self.dir, "b.json")
        env = dict(os.environ, TMPDIR=tmpdir)
        p, _ = self.bench("--reps", "1", "--out", out, "--sim", sim, env=env, timeout=120)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
        self.assertIn("exit 3", p.stderr)
        self.assertEqual([n for n in os.listdir(self.dir) if n.startswith("pwned")], [], "no shell ran")
        with open(log) as f:
            argv = json.load(f)
        o = argv[argv.index("--out") + 1]
        self.assertTrue(o.startswith(os.path.join(tmpdir, "gmmu-bench.")), o)
        self.assertEqual(os.listdir(tmpdir), [], "the temporary folder is removed")
        self.assertFalse(os.path.exists(out))
        self.assertEqual(self.leftovers(self.dir), [])

    def test_sigterm_stops_the_bench_and_its_gmmu_sim_and_cleans_up(self):
        started = os.path.join(self.dir, "started")
        sim = self.fake_sim("open(%r, 'w').write(str(os.getpid()))\ntime.sleep(60)" % started)
        tmpdir = os.path.join(self.dir, "tmp")
        os.mkdir(tmpdir)
        out = os.path.join(self.dir, "b.json")
        p = subprocess.Popen([ARGS.bench, "--reps", "1", "--out", out, "--sim", sim], cwd=self.dir,
                             env=dict(os.environ, TMPDIR=tmpdir), stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 90
        while not os.path.exists(started) and time.time() < deadline and p.poll() is None:
            time.sleep(0.05)
        self.assertTrue(os.path.exists(started), "the bench reached its gmmu-sim runs")
        time.sleep(0.2)
        with open(started) as f:
            child = int(f.read())
        t0 = time.time()
        p.send_signal(signal.SIGTERM)
        _, err = p.communicate(timeout=30)
        self.assertEqual(p.returncode, 128 + signal.SIGTERM, err)
        self.assertLess(time.time() - t0, 5)
        self.assertIn("interrupted", err)
        with self.assertRaises(ProcessLookupError):
            for _ in range(50):  # the fake gmmu-sim was stopped too
                os.kill(child, 0)
                time.sleep(0.1)
        self.assertEqual(os.listdir(tmpdir), [])
        self.assertEqual(self.leftovers(self.dir), [])
        self.assertFalse(os.path.exists(out))


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", required=True)
    ARGS, rest = ap.parse_known_args()
    ARGS.bench = os.path.abspath(ARGS.bench)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
