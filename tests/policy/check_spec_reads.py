#!/usr/bin/env python3
"""Keys are read through their specs, not by name (issue 42).

Every workload reads a parsed struct: its own spec's (a descriptor beside
it in platforms/gpu/workloads/), the common workload spec's
(gpu/workload_spec.h: workload_config_from) and the other components' facts
it is built for (workload_machine_from: the SMs', the platform's and the
driver's parsed specs). The component specs' rules that depend on another
component's key read it through that component's spec (cache_enabled,
tlb_level_enabled, sm_config_from, ...). So none of the files below may
read a config key by its name: a call like c.i("workload.hot_pages"),
cfg.s("sm.model"), c.b(std::string(k) + ".enabled"), u32(c, "sm.warps") or
config_key_spec("workload.x").

A read that must stay is a row of tests/policy/spec_reads.allow:

    FILE | FRAGMENT | reason

FRAGMENT is a piece of the line (comments removed, whitespace collapsed).
The check fails on a read no row covers, on a row that covers nothing (no
excuse kept for code that is gone) and on a malformed row.

    check_spec_reads.py [--root DIR] [--table FILE]
    check_spec_reads.py --self-test   (the check must catch a planted read)
"""
import argparse
import glob
import os
import re
import shutil
import sys
import tempfile

# The files that must read parsed structs only.
FILES = [
    "platforms/gpu/workload.cpp",
    "platforms/gpu/workloads/*.cpp",
    "platforms/include/gmmu/gpu/workload_spec.h",
    "platforms/include/gmmu/gpu/workloads/*.h",
    "platforms/include/gmmu/gpu/*_spec.h",
    "platforms/include/gmmu/components/*_spec.h",
]

# A config read whose key is written out: a member call (c.i, cfg.s, c.b,
# c.d, c.value, c.has) or a helper taking the config first (u32(c, "..."))
# with a string literal or a std::string built from one, and schema look-ups
# by name. A spec's own entry points take the config and a prefix and read
# through the spec (descriptor apply and flag, X_from, X_enabled): not reads
# by name.
READ = re.compile(
    r"\.\s*(i|s|b|d|value|has)\s*\([^()\";]*(\([^()]*\)[^()\";]*)*\""
    r"|\b(?!apply\b|flag\b)\w+(?<!_from)(?<!_enabled)\s*\(\s*(c|cfg|config)\s*,\s*\""
    r"|\bconfig_key_spec\s*\(\s*\"")


def strip_comments(text):
    """The text with // and /* */ comments blanked (string literals kept),
    line breaks kept so line numbers stay."""
    out, i, n = [], 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"' or ch == "'":
            j = i + 1
            while j < n and text[j] != ch:
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def files(root):
    seen = []
    for pat in FILES:
        for p in sorted(glob.glob(os.path.join(root, pat))):
            rel = os.path.relpath(p, root)
            if rel not in seen:
                seen.append(rel)
    return seen


def reads(root):
    """(file, line number, collapsed line) of every read by name."""
    hits = []
    for rel in files(root):
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            text = strip_comments(f.read())
        for no, line in enumerate(text.split("\n"), 1):
            if READ.search(line):
                hits.append((rel, no, " ".join(line.split())))
    return hits


def load_table(path):
    rows, errors = [], []
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = [p.strip() for p in line.split(" | ")]
            if len(parts) != 3 or not all(parts):
                errors.append(f"{path}:{no}: expected 'FILE | FRAGMENT | reason'")
                continue
            rows.append((no, parts[0], parts[1], parts[2]))
    return rows, errors


def check(root, table):
    rows, errors = load_table(table)
    used = set()
    for rel, no, line in reads(root):
        covered = [r for r in rows if r[1] == rel and r[2] in line]
        if not covered:
            errors.append(f"{rel}:{no}: a config key read by name (read the spec's parsed struct): {line}")
        used.update(r[0] for r in covered)
    for r in rows:
        if r[0] not in used:
            errors.append(f"{table}:{r[0]}: covers no read any more ({r[1]} | {r[2]}): remove the row")
    return errors


def self_test(root, table):
    """The check passes on the tree, and fails on a copy with one planted
    read (a workload key, another component's fact, a spec's cross read)
    and on a copy where an allowed read is gone."""
    ok = True
    if check(root, table):
        print("self-test: the tree itself fails the check", file=sys.stderr)
        return False
    plants = [
        ("platforms/gpu/workloads/shared_hot.cpp", "{\n        st.resize(total);",
         "{\n        hot = uint64_t(c_.i(\"workload.hot_pages\"));\n        st.resize(total);"),
        ("platforms/gpu/workloads/tlb_probe.cpp", "        if (smin > smax)",
         "        (void)cfg.s(\"sm.model\");\n        if (smin > smax)"),
        ("platforms/gpu/workload.cpp", "        sms(m.sms), warps(m.warps),",
         "        sms(unsigned(c.i(\"sm.count\"))), warps(m.warps),"),
        ("platforms/include/gmmu/components/ptw_spec.h", "!cache_enabled(c, \"l2_cache\")",
         "!c.b(std::string(\"l2_cache\") + \".enabled\")"),
        ("platforms/include/gmmu/components/sm_core_spec.h", "s.model.overlap_lines = sm.overlap_cache_access;",
         "s.model.overlap_lines = c.b(\"sm.overlap_cache_access\");"),
    ]
    for rel, old, new in plants:
        with tempfile.TemporaryDirectory() as tmp:
            for f in files(root):
                os.makedirs(os.path.join(tmp, os.path.dirname(f)), exist_ok=True)
                shutil.copy(os.path.join(root, f), os.path.join(tmp, f))
            p = os.path.join(tmp, rel)
            text = open(p, encoding="utf-8").read()
            if old not in text:
                print(f"self-test: {rel}: the text to plant at is gone: {old!r}", file=sys.stderr)
                ok = False
                continue
            open(p, "w", encoding="utf-8").write(text.replace(old, new, 1))
            if not check(tmp, table):
                print(f"self-test: a read planted in {rel} was not caught: {new!r}", file=sys.stderr)
                ok = False
    # A row whose read is gone fails too.
    rows, _ = load_table(table)
    if rows:
        _, rel, frag, _ = rows[0]
        with tempfile.TemporaryDirectory() as tmp:
            for f in files(root):
                os.makedirs(os.path.join(tmp, os.path.dirname(f)), exist_ok=True)
                shutil.copy(os.path.join(root, f), os.path.join(tmp, f))
            p = os.path.join(tmp, rel)
            lines = open(p, encoding="utf-8").read().split("\n")
            kept = [l for l in lines if frag not in " ".join(l.split())]
            open(p, "w", encoding="utf-8").write("\n".join(kept))
            if not any("covers no read" in e for e in check(tmp, table)):
                print(f"self-test: a stale row ({rel} | {frag}) was not reported", file=sys.stderr)
                ok = False
    return ok


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=os.path.normpath(os.path.join(here, "..", "..")))
    ap.add_argument("--table", default=os.path.join(here, "spec_reads.allow"))
    ap.add_argument("--self-test", action="store_true")
    a = ap.parse_args()
    if not files(a.root):
        print(f"check_spec_reads: no files under {a.root}", file=sys.stderr)
        return 1
    if a.self_test:
        ok = self_test(a.root, a.table)
        print("check_spec_reads self-test: " + ("ok" if ok else "FAILED"))
        return 0 if ok else 1
    errors = check(a.root, a.table)
    for e in errors:
        print(e, file=sys.stderr)
    print(f"check_spec_reads: {len(files(a.root))} files, {len(reads(a.root))} reads by name, "
          f"{len(errors)} errors")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
