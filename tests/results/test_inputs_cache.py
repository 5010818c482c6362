#!/usr/bin/env python3
"""The real-kernel experiments' inputs cache (experiments/realkernels.py,
docs/kernels.md "Inputs cache"): files that an older gmmu-sim binary wrote,
which no later run can read (their key holds the binary), are removed when
an experiment starts; the current binary's files, temporary files of a run
in progress and anything else in the folder stay."""
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


if __name__ == "__main__":
    unittest.main()
