#!/usr/bin/env python3
"""Tests of scripts/page_provenance.py on a small tree of its own: a stamped
page passes; changing its config, its experiment script or a golden stats file
makes it stale and names the file; a page without a stamp fails unless its
declaration gives the reason; an undeclared page fails; bad input exits 2.

  test_provenance.py
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "page_provenance.py")


class ProvenanceTest(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="gmmu-provenance-test-")
        self.write("experiments/demo/run.sh", "echo run\n")
        self.write("platforms/configs/demo.json", '{"name": "demo"}\n')
        self.write("tests/golden/stats/demo-run.json", '{"x": 1}\n')
        self.write("docs/results/demo.md", "# demo\n\n| a | 1 |\n")
        self.pages = {"demo.md": {"generator": "make reproduce",
                                  "inputs": ["experiments/demo/", "platforms/configs/demo.json"],
                                  "golden": ["demo-run"]}}
        self.save_pages()

    def tearDown(self):
        shutil.rmtree(self.root, ignore_errors=True)

    def write(self, rel, text):
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)

    def save_pages(self):
        self.write("experiments/pages.json", json.dumps({"pages": self.pages}))

    def run_script(self, *args):
        env = dict(os.environ, GMMU_PROVENANCE_ROOT=self.root)
        return subprocess.run([sys.executable, SCRIPT, *args], env=env, capture_output=True, text=True)

    def test_stamped_page_is_fresh_and_a_second_stamp_replaces_the_first(self):
        self.assertEqual(self.run_script("stamp", "demo.md").returncode, 0)
        self.assertEqual(self.run_script("check").returncode, 0)
        self.assertEqual(self.run_script("stamp", "demo.md").returncode, 0)
        with open(os.path.join(self.root, "docs/results/demo.md")) as f:
            text = f.read()
        self.assertEqual(text.count("<!-- provenance"), 1)
        self.assertTrue(text.startswith("# demo\n\n| a | 1 |\n"))

    def test_each_kind_of_input_makes_the_page_stale_and_is_named(self):
        for rel in ("platforms/configs/demo.json", "experiments/demo/run.sh",
                    "tests/golden/stats/demo-run.json"):
            with self.subTest(rel=rel):
                self.assertEqual(self.run_script("stamp", "demo.md").returncode, 0)
                with open(os.path.join(self.root, rel), "a") as f:
                    f.write(" ")
                r = self.run_script("check")
                self.assertEqual(r.returncode, 1)
                self.assertIn("docs/results/demo.md: stale", r.stderr)
                self.assertIn(rel, r.stderr)

    def test_a_new_file_in_an_input_folder_makes_the_page_stale(self):
        self.run_script("stamp", "demo.md")
        self.write("experiments/demo/extra.py", "print(1)\n")
        r = self.run_script("check")
        self.assertEqual(r.returncode, 1)
        self.assertIn("experiments/demo/extra.py", r.stderr)

    def test_unstamped_page_fails_unless_a_reason_is_declared(self):
        r = self.run_script("check")
        self.assertEqual(r.returncode, 1)
        self.assertIn("no provenance stamp", r.stderr)
        self.pages["demo.md"]["unstamped"] = "takes hours"
        self.save_pages()
        r = self.run_script("check")
        self.assertEqual(r.returncode, 0)
        self.assertIn("not checked: takes hours", r.stdout)
        self.run_script("stamp", "demo.md")
        r = self.run_script("check")
        self.assertEqual(r.returncode, 1)
        self.assertIn("'unstamped' reason must go", r.stderr)

    def test_undeclared_page_and_bad_input(self):
        self.run_script("stamp", "demo.md")
        self.write("docs/results/other.md", "# other\n")
        r = self.run_script("check")
        self.assertEqual(r.returncode, 1)
        self.assertIn("other.md: not declared", r.stderr)
        self.assertEqual(self.run_script("stamp", "nope.md").returncode, 2)
        self.pages["demo.md"]["golden"] = ["no-such-run"]
        self.save_pages()
        r = self.run_script("check")
        self.assertEqual(r.returncode, 2)
        self.assertIn("golden run 'no-such-run'", r.stderr)
        self.write("experiments/pages.json", "{")
        r = self.run_script("check")
        self.assertEqual(r.returncode, 2)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1)


if __name__ == "__main__":
    unittest.main()
