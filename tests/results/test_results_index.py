#!/usr/bin/env python3
"""Tests of the results index (scripts/results_index.py) and of the seed
statistics it judges (experiments/seedstats.py): each rule kind on planted
figures, 'no difference' for an effect whose interval contains 0, pairing by
seed for orders, the generated README and its --check, bad rules refused; and
with --build DIR, that every test a 'test' rule names exists in that build.

  test_results_index.py [--build BUILD_DIR]
"""
import argparse
import fnmatch
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "results_index.py")
sys.path.insert(0, os.path.join(ROOT, "experiments"))
import seedstats  # noqa: E402

ARGS = None


class SeedStatsTest(unittest.TestCase):
    def test_mean_and_student_t_interval(self):
        s = seedstats.summary([1.0, 2.0, 3.0, 4.0, 5.0])
        self.assertAlmostEqual(s["mean"], 3.0)
        self.assertAlmostEqual(s["sd"], 1.5811388, places=6)
        self.assertAlmostEqual(s["ci95"], 2.776 * 1.5811388 / 5 ** 0.5, places=5)
        one = seedstats.summary([7.0])
        self.assertIsNone(one["ci95"])
        with self.assertRaises(ValueError):
            seedstats.summary([])
        with self.assertRaises(ValueError):
            seedstats.summary([float("nan")])

    def test_figures_file_needs_one_sample_per_seed(self):
        d = tempfile.mkdtemp()
        try:
            p = seedstats.write_figures(d, "x", {"a": [1, 2, 3]}, [1, 2, 3])
            with open(p) as f:
                self.assertEqual(json.load(f)["figures"]["a"]["n"], 3)
            with self.assertRaises(ValueError):
                seedstats.write_figures(d, "x", {"a": [1, 2]}, [1, 2, 3])
        finally:
            shutil.rmtree(d)


class IndexTest(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="gmmu-index-test-")
        os.makedirs(os.path.join(self.root, "docs", "results"))
        os.makedirs(os.path.join(self.root, "experiments"))
        shutil.copy(os.path.join(ROOT, "experiments", "seedstats.py"), os.path.join(self.root, "experiments"))
        self.write("docs/results/index_head.md", "# Results index\n")
        self.claims = {"policy": {"tolerance": 0.2, "text": "twenty percent"}, "claims": []}

    def tearDown(self):
        shutil.rmtree(self.root, ignore_errors=True)

    def write(self, rel, text):
        with open(os.path.join(self.root, rel), "w") as f:
            f.write(text)

    def claim(self, cid, rule, figure="p.md:f"):
        c = {"id": cid, "paper": "paper", "claim": cid, "page": "p.md", "rule": rule}
        if figure:
            c["figure"] = figure
        self.claims["claims"].append(c)

    def figures(self, figs):
        seeds = list(range(1, 1 + len(next(iter(figs.values())))))
        seedstats.write_figures(os.path.join(self.root, "docs", "results"), "p", figs, seeds)

    def run_index(self, *args):
        self.write("experiments/claims.json", json.dumps(self.claims))
        env = dict(os.environ, GMMU_RESULTS_ROOT=self.root)
        return subprocess.run([sys.executable, SCRIPT, *args], env=env, capture_output=True, text=True)

    def verdicts(self):
        r = self.run_index("--verdicts")
        self.assertEqual(r.returncode, 0, r.stderr)
        return dict(line.split("\t") for line in r.stdout.strip().splitlines())

    def test_each_rule_kind(self):
        self.figures({"near10": [9.5, 10.2, 10.4, 9.9, 10.0], "far": [30, 31, 29, 30, 30],
                      "around0": [-1, 1, -0.5, 0.6, 0.1], "neg": [-3, -2.5, -3.2, -2.8, -3.1],
                      "a": [1, 1.1, 0.9, 1.0, 1.05], "b": [2, 2.1, 1.9, 2.0, 2.0], "c": [2.01, 2.08, 1.93, 2.02, 1.99]})
        self.claim("mag", {"kind": "magnitude", "value": 10}, "p.md:near10")
        self.claim("mag-far", {"kind": "magnitude", "value": 10}, "p.md:far")
        self.claim("range", {"kind": "range", "lo": 20, "hi": 25}, "p.md:far")
        self.claim("most", {"kind": "at_most", "value": 9}, "p.md:near10")
        self.claim("least", {"kind": "at_least", "value": 40}, "p.md:far")
        self.claim("effect0", {"kind": "magnitude", "value": 0.1, "effect": True}, "p.md:around0")
        self.claim("sign", {"kind": "sign", "expect": "negative", "effect": True}, "p.md:neg")
        self.claim("sign-wrong", {"kind": "sign", "expect": "positive"}, "p.md:neg")
        self.claim("order", {"kind": "order", "figures": ["p.md:a", "p.md:b"]}, None)
        self.claim("order-tie", {"kind": "order", "figures": ["p.md:a", "p.md:b", "p.md:c"]}, None)
        self.claim("order-wrong", {"kind": "order", "figures": ["p.md:b", "p.md:a"]}, None)
        self.claim("missing", {"kind": "magnitude", "value": 1}, "q.md:nothing")
        self.claim("test", {"kind": "test", "tests": ["X.Y"]}, None)
        v = self.verdicts()
        self.assertEqual(v, {"mag": "holds", "mag-far": "does not hold", "range": "holds",
                             "most": "holds", "least": "does not hold", "effect0": "no difference",
                             "sign": "holds", "sign-wrong": "does not hold", "order": "holds",
                             "order-tie": "no difference", "order-wrong": "does not hold",
                             "missing": "not run", "test": "tested"})

    def test_one_seed_is_said(self):
        self.figures({"f": [10.0]})
        self.claim("one", {"kind": "magnitude", "value": 10})
        self.assertEqual(self.verdicts()["one"], "holds (1 seed)")

    def test_readme_is_generated_and_checked(self):
        self.figures({"f": [10.0, 10.5, 9.5]})
        self.claim("c", {"kind": "magnitude", "value": 10})
        self.write("docs/results/unjudged.md", "## Before the rules\n")
        self.assertEqual(self.run_index().returncode, 0)
        with open(os.path.join(self.root, "docs/results/README.md")) as f:
            text = f.read()
        self.assertIn("**holds**", text)
        self.assertIn("10.0 ± 1.2 (3 seeds)", text)
        self.assertIn("## Before the rules", text)
        self.assertEqual(self.run_index("--check").returncode, 0)
        with open(os.path.join(self.root, "docs/results/README.md"), "a") as f:
            f.write("| hand | written | yes |\n")
        r = self.run_index("--check")
        self.assertEqual(r.returncode, 1)
        self.assertIn("never edit it by hand", r.stderr)
        # A changed figure without a regenerated index fails too.
        self.assertEqual(self.run_index().returncode, 0)
        self.figures({"f": [20.0, 20.5, 19.5]})
        self.assertEqual(self.run_index("--check").returncode, 1)

    def test_bad_rules_are_refused_in_one_line(self):
        self.claim("bad", {"kind": "roughly"})
        r = self.run_index("--check")
        self.assertEqual(r.returncode, 2)
        self.assertIn("rule.kind 'roughly'", r.stderr)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1)
        self.claims["claims"] = [{"id": "x"}]
        r = self.run_index("--check")
        self.assertEqual(r.returncode, 2)
        self.assertIn("no 'paper'", r.stderr)


class RepositoryTest(unittest.TestCase):
    def test_rules_load_and_every_named_test_exists(self):
        with open(os.path.join(ROOT, "experiments", "claims.json")) as f:
            claims = json.load(f)["claims"]
        named = [t for c in claims if c["rule"]["kind"] == "test" for t in c["rule"]["tests"]]
        self.assertTrue(named)
        if not ARGS.build:
            self.skipTest("no --build: the test names are not checked")
        out = subprocess.run(["ctest", "-N"], cwd=ARGS.build, capture_output=True, text=True).stdout
        have = [line.split(":", 1)[1].strip() for line in out.splitlines() if line.strip().startswith("Test")
                and ":" in line]
        for pattern in named:
            self.assertTrue(any(fnmatch.fnmatch(h, pattern) for h in have),
                            f"experiments/claims.json names test {pattern}, which is not in {ARGS.build}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--build")
    ARGS, rest = ap.parse_known_args()
    unittest.main(argv=[sys.argv[0]] + rest)
