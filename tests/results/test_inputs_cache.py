#!/usr/bin/env python3
"""The real-kernel experiments' inputs cache (experiments/realkernels.py,
docs/kernels.md "Inputs cache"): files that an older gmmu-sim binary wrote,
which no later run can read (their key holds the binary), are removed when
an experiment starts; the current binary's files, temporary files of a run
in progress and anything else in the folder stay; a missing gmmu-sim is one
line and exit 2, with nothing removed."""
import os
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "experiments"))
import realkernels  # noqa: E402


class PruneTest(unittest.TestCase):
    def test_files_older_than_the_binary_are_removed(self):
        with tempfile.TemporaryDirectory() as d:
            sim = os.path.join(d, "gmmu-sim")
            cache = os.path.join(d, "cache")
            os.mkdir(cache)
            names = {
                "inputs-aaaa.bin": True, "reference-bbbb.bin": True,
                "reference-cccc.bin.Xy12Ab": True,   # a killed run's temporary file
                "inputs-dddd.bin": False, "reference-eeee.bin.Qw34Er": False,
                "notes.txt": False, "inputs-ffff.txt": False,
            }
            for n in names:
                with open(os.path.join(cache, n), "w") as f:
                    f.write("x")
            with open(sim, "w") as f:
                f.write("binary")
            t = os.stat(sim).st_mtime
            for n, old in names.items():
                # old files before the build; the others after it, but for
                # the two odd names, which are old and must stay anyway
                when = t - 100 if (old or n in ("notes.txt", "inputs-ffff.txt")) else t + 100
                os.utime(os.path.join(cache, n), (when, when))
            realkernels.prune_inputs_cache(cache, sim)
            left = sorted(os.listdir(cache))
            self.assertEqual(left, sorted(n for n, old in names.items() if not old))

    def test_a_missing_binary_is_one_line_and_removes_nothing(self):
        with tempfile.TemporaryDirectory() as d:
            sim = os.path.join(d, "bin", "gmmu-sim")  # the cache would be d/sweeps/inputs-cache
            saved = {k: os.environ.pop(k, None) for k in ("GMMU_INPUTS_CACHE", "BUILD_DIR")}
            err = os.path.join(d, "err")
            old = sys.stderr
            try:
                with open(err, "w") as f:
                    sys.stderr = f
                    with self.assertRaises(SystemExit) as cm:
                        realkernels.use_inputs_cache(sim)
            finally:
                sys.stderr = old
                os.environ.update({k: v for k, v in saved.items() if v is not None})
            self.assertEqual(cm.exception.code, 2)
            with open(err) as f:
                lines = f.read().splitlines()
            self.assertEqual(len(lines), 1, lines)
            self.assertIn(sim, lines[0])
            self.assertFalse(os.path.exists(os.path.join(d, "sweeps")), "nothing made or pruned")

if __name__ == "__main__":
    unittest.main()
