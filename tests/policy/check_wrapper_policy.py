#!/usr/bin/env python3
"""The wrapper-policy check (issue 42 item 4, docs/architecture.md).

Decisions (replacement, eviction, ordering, bandwidth, merging, fault and
permission policy) live in C functions in models/ with unit tests; the C++
under platforms/ owns sockets, time, DMI, debug transport, statistics,
configuration and wiring. This check reads every C++ source and header
under platforms/, removes comments and string literals, and looks for the
patterns a policy is written with (PATTERNS below). Every hit must be
covered by a row of the table tests/policy/wrapper_policy.allow, which says
which wrapper responsibility the line is and why it is not a decision:

    FILE | PATTERN | FRAGMENT | RESPONSIBILITY: reason

FILE is relative to the source root, PATTERN one of PATTERNS' names, and
FRAGMENT a piece of the line (comments and strings removed, whitespace
collapsed) the row covers; RESPONSIBILITY is one of RESPONSIBILITIES. The
check fails on a hit no row covers, on a row that covers nothing any more (so
the table cannot keep excuses for code that is gone), and on a malformed
row. A new policy in platforms/ therefore fails the check until it moves to
models/ (or a reviewer adds a row saying why it is not a policy).

    check_wrapper_policy.py [--root DIR] [--table FILE]
    check_wrapper_policy.py --self-test   (the check must catch old decisions)
"""
import argparse
import os
import re
import shutil
import sys
import tempfile

PATTERNS = {
    # replacement / eviction: victim choice, recency or arrival order of entries
    "replacement": re.compile(r"(?i)lru|fifo|evict|victim|replac|GMMU_\w*_REPL_"),
    # ordering of requests: sorting, priority queues, ordered containers, issue orders
    "ordering": re.compile(r"std::(stable_sort|sort|partial_sort|nth_element|min_element|"
                           r"max_element|priority_queue|deque|list|set|multiset|multimap)\b|"
                           r"\bqsort\b|GMMU_ORDER_\w+"),
    # min/max over times or counts (time windows, the latest of several)
    "minmax": re.compile(r"std::(min|max)\b"),
    # bandwidth: bytes per time, booking windows, sector rounding, lookups per port
    "bandwidth": re.compile(r"(?i)bandwidth|bytes_per_cycle|\bbw_\w+|window_shift|"
                            r"\+\s*(31|63|0x1f|0x3f)u?\)\s*&\s*~|/\s*(p\.)?ports\b"),
    # merging of requests into one
    "merging": re.compile(r"(?i)merg|coalesc"),
    # permission bits tested or granted
    "permission": re.compile(r"GMMU_PTE_(P|W|U|NX|A|D|PS)\b|perms\s*&|GMMU_ACC_"),
    # fault kinds chosen (not just passed on)
    "fault": re.compile(r"GMMU_FAULT_(?!NONE\b)\w+"),
}

RESPONSIBILITIES = {
    "model-call",   # passes arguments to / results from a C model's decision
    "time",         # converts or combines times the models computed (sc_time, cycles)
    "sockets",      # TLM protocol: payloads, responses, extensions
    "dmi",          # DMI regions
    "debug",        # debug transport
    "stats",        # counters and their names
    "config",       # keys, validation, building a model's config
    "wiring",       # topology, which component talks to which
    "host",         # the simulator's own data structures (host memory, files, CLI)
    "workload",     # a workload generating traffic or measuring results
    "name",         # an identifier or type name that merely contains the word
}

EXTS = (".cpp", ".h", ".hpp", ".cc")


def strip_code(text):
    """Comments and string/char literals blanked, newlines kept."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif c == 'R' and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == '_')):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = ")" + m.group(1) + '"'
            j = text.find(end, i + m.end())
            j = n if j < 0 else j + len(end)
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j
        elif c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isdigit():  # digit separator 1'000
                out.append(c)
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def hits_in(root):
    base = os.path.join(root, "platforms")
    for d, _, files in sorted(os.walk(base)):
        for f in sorted(files):
            if not f.endswith(EXTS):
                continue
            path = os.path.join(d, f)
            rel = os.path.relpath(path, root)
            with open(path, encoding="utf-8", errors="replace") as fh:
                code = strip_code(fh.read())
            for ln, line in enumerate(code.split("\n"), 1):
                flat = " ".join(line.split())
                for name, rx in PATTERNS.items():
                    if rx.search(flat):
                        yield rel, ln, name, flat


def read_table(path):
    rows, errors = [], []
    with open(path, encoding="utf-8") as fh:
        for ln, raw in enumerate(fh, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            parts = [p.strip() for p in line.split(" | ")]
            if len(parts) < 4:
                errors.append(f"{path}:{ln}: want FILE | PATTERN | FRAGMENT | RESPONSIBILITY: reason")
                continue
            # the fragment may itself contain " | " (a C++ bitwise or)
            f, pat, frag, why = parts[0], parts[1], " | ".join(parts[2:-1]), parts[-1]
            resp, _, reason = why.partition(":")
            if pat not in PATTERNS:
                errors.append(f"{path}:{ln}: unknown pattern '{pat}' (one of {', '.join(PATTERNS)})")
            elif resp.strip() not in RESPONSIBILITIES:
                errors.append(f"{path}:{ln}: '{resp.strip()}' is not a wrapper responsibility "
                              f"({', '.join(sorted(RESPONSIBILITIES))})")
            elif len(reason.strip()) < 10:
                errors.append(f"{path}:{ln}: the reason is missing or too short")
            elif not frag:
                errors.append(f"{path}:{ln}: empty fragment")
            else:
                rows.append({"file": f, "pattern": pat, "frag": " ".join(frag.split()),
                             "where": f"{path}:{ln}", "used": 0})
    return rows, errors


def check(root, table):
    rows, errors = read_table(table)
    uncovered = []
    for rel, ln, name, flat in hits_in(root):
        covered = False
        for r in rows:
            if r["file"] == rel and r["pattern"] == name and r["frag"] in flat:
                r["used"] += 1
                covered = True
        if not covered:
            uncovered.append(f"{rel}:{ln}: {name} policy in a wrapper: {flat}")
    for r in rows:
        if not r["used"]:
            errors.append(f"{r['where']}: stale row, covers nothing in {r['file']}: "
                          f"{r['pattern']} '{r['frag']}'")
    return uncovered, errors


def report(uncovered, errors):
    for u in uncovered:
        print(u)
    for e in errors:
        print(e)
    if uncovered:
        print(f"{len(uncovered)} line(s) of platforms/ look like a replacement, ordering, "
              "bandwidth, merging, fault or permission policy: move the decision into a C "
              "function in models/ with a unit test, or add a row to the table saying which "
              "wrapper responsibility the line is")
    return 1 if uncovered or errors else 0


# Decisions the wrappers used to make (before issue 42 item 4), pasted back
# into copies of their files by --self-test: the check must catch each.
OLD_DECISIONS = {
    "platforms/components/memory.cpp": """
uint64_t memory_old_book(uint64_t cycle, uint64_t bytes, std::vector<uint64_t> &bw_used,
                         std::vector<uint64_t> &bw_window, uint64_t bw_capacity)
{
    uint64_t w = cycle >> 6;
    for (size_t tries = 0; tries < 16384; tries++, w++) {
        const size_t i = size_t(w % 16384);
        if (bw_window[i] != w) { bw_window[i] = w; bw_used[i] = 0; }
        if (bw_used[i] == 0 || bw_used[i] + bytes <= bw_capacity) { bw_used[i] += bytes; return 0; }
    }
    return 1;
}
""",
    "platforms/components/tlb_front.cpp": """
static void old_page_order(std::vector<unsigned> &page_order, const std::vector<uint64_t> &page_at)
{
    std::stable_sort(page_order.begin(), page_order.end(),
                     [&](unsigned a, unsigned b) { return page_at[a] < page_at[b]; });
}
""",
    "platforms/components/tlb_front.cpp ": """
void tlb::old_note_owners(const xlate_req &filled, unsigned shift)
{
    for (uint32_t v = 0; v < fill_out.nvictims; v++) {
        const gmmu_tlb_entry &e = fill_out.victims[v];
        auto it = entry_owner.find(key(e.asid, e.vpn));
        if (it == entry_owner.end())
            continue;
        entry_owner.erase(it);
    }
    if (entry_owner.size() > 4u * p.model.entries)
        entry_owner.clear();
}
""",
    "platforms/components/tlb_translate.cpp": """
static unsigned old_port_cycles(size_t n, unsigned ports) { return n ? unsigned((n - 1) / ports) : 0u; }
""",
    "platforms/gpu/sm_core_config.cpp": """
static gmmu_warp_order old_order(gmmu_throttle t)
{
    return t != GMMU_THROTTLE_NONE ? GMMU_ORDER_GTO : GMMU_ORDER_OLDEST;
}
""",
    "platforms/components/smmu.cpp": """
static uint8_t old_class(gmmu_fault f) { return f == GMMU_FAULT_BUS_ERROR ? GMMU_SMMU_CLASS_TT : GMMU_SMMU_CLASS_IN; }
""",
    "platforms/components/tlb.cpp": """
static bool old_dmi_writable(uint64_t perms) { return (perms & GMMU_PTE_W) != 0; }
""",
}


def self_test(root, table):
    uncovered, errors = check(root, table)
    if uncovered or errors:
        print("self-test: the tree itself does not pass; run the check without --self-test")
        return 1
    failed = 0
    for rel, snippet in OLD_DECISIONS.items():
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copytree(os.path.join(root, "platforms"), os.path.join(tmp, "platforms"))
            rel = rel.strip()  # (a trailing space keys a second snippet for one file)
            with open(os.path.join(tmp, rel), "a", encoding="utf-8") as fh:
                fh.write(snippet)
            got, _ = check(tmp, table)
            if got:
                print(f"self-test: {rel} with an old decision pasted back: caught "
                      f"({len(got)} line(s), first: {got[0].split(': ', 1)[1]})")
            else:
                print(f"self-test: {rel} with an old decision pasted back: NOT caught")
                failed += 1
    return 1 if failed else 0


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.normpath(os.path.join(here, "..", "..")))
    ap.add_argument("--table", default=os.path.join(here, "wrapper_policy.allow"))
    ap.add_argument("--self-test", action="store_true")
    ap.add_argument("--list", action="store_true", help="print every hit, covered or not")
    a = ap.parse_args()
    if a.list:
        for rel, ln, name, flat in hits_in(a.root):
            print(f"{rel}:{ln}: {name}: {flat}")
        return 0
    if a.self_test:
        return self_test(a.root, a.table)
    uncovered, errors = check(a.root, a.table)
    rc = report(uncovered, errors)
    if rc == 0:
        print("wrapper-policy check: every policy-like line of platforms/ is a listed wrapper "
              "responsibility")
    return rc


if __name__ == "__main__":
    sys.exit(main())
