#!/usr/bin/env python3
"""Provenance stamps of the results pages (docs/results/*.md).

Each page declared in experiments/pages.json is produced from a known set of
inputs: its experiment scripts and programs, the configs its runs read, the
RTL files of an RTL flow, and the golden stats (tests/golden/stats/NAME.json)
of the runs that stand for the model behaviour it depends on. The page's
generator stamps the page with a digest of those inputs; `check` recomputes
the digest from the tree and fails when a page's inputs changed after it was
generated (the page is stale), naming the inputs that changed.

Usage:
  page_provenance.py stamp PAGE.md...   (called by the page's generator)
  page_provenance.py check [PAGE.md...] (exit 1 when a page is stale)
  page_provenance.py list               (pages, generators, stamp state)

The stamp is an HTML comment at the end of the page (invisible when the page
is rendered): one line with the digest, then one line per input file with a
prefix of its own digest, so that `check` can say which input changed.
"""
import hashlib
import json
import os
import sys
import tempfile

# GMMU_PROVENANCE_ROOT: another tree to work on (the script's own test).
ROOT = os.path.abspath(os.environ.get("GMMU_PROVENANCE_ROOT") or
                       os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
MANIFEST = os.path.join(ROOT, "experiments", "pages.json")
RESULTS = os.path.join(ROOT, "docs", "results")
BEGIN = "<!-- provenance (scripts/page_provenance.py stamp; checked by make test)"
END = "-->"


class ProvenanceError(Exception):
    pass


def load_manifest():
    try:
        with open(MANIFEST) as f:
            manifest = json.load(f)
    except (OSError, ValueError) as e:
        raise ProvenanceError(f"{os.path.relpath(MANIFEST, ROOT)}: {e}")
    pages = manifest.get("pages")
    if not isinstance(pages, dict) or not pages:
        raise ProvenanceError(f"{os.path.relpath(MANIFEST, ROOT)}: no 'pages' object")
    return pages


def _files_under(rel):
    path = os.path.join(ROOT, rel)
    if os.path.isfile(path):
        return [rel]
    if not os.path.isdir(path):
        raise ProvenanceError(f"experiments/pages.json: input '{rel}' does not exist")
    out = []
    for d, dirs, files in os.walk(path):
        dirs[:] = sorted(x for x in dirs if x != "__pycache__" and not x.startswith("."))
        for name in sorted(files):
            if name.endswith((".pyc", ".swp")) or name.startswith("."):
                continue
            out.append(os.path.relpath(os.path.join(d, name), ROOT))
    return out


def inputs_of(page, spec):
    """The sorted list of repository-relative files that the page depends on."""
    files = set()
    for rel in spec.get("inputs", []):
        files.update(_files_under(rel.rstrip("/")))
    for prefix in spec.get("rtl", []):
        hits = [f for f in os.listdir(os.path.join(ROOT, "rtl"))
                if f.startswith(prefix) and f.endswith((".sv", ".svh", ".v"))]
        if not hits:
            raise ProvenanceError(f"experiments/pages.json: {page}: no rtl/{prefix}* file")
        files.update(os.path.join("rtl", f) for f in hits)
    for name in spec.get("golden", []):
        rel = os.path.join("tests", "golden", "stats", name + ".json")
        if not os.path.isfile(os.path.join(ROOT, rel)):
            raise ProvenanceError(f"experiments/pages.json: {page}: golden run '{name}' has no {rel}")
        files.add(rel)
    return sorted(files)


def file_digest(rel):
    with open(os.path.join(ROOT, rel), "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def digests(page, spec):
    per_file = [(rel, file_digest(rel)) for rel in inputs_of(page, spec)]
    total = hashlib.sha256()
    for rel, d in per_file:
        total.update(f"{rel}\0{d}\n".encode())
    return total.hexdigest(), per_file


def split_stamp(text):
    """(body without the stamp, {'digest': ..., 'files': {rel: prefix}}) or (text, None)."""
    at = text.rfind(BEGIN)
    if at < 0:
        return text, None
    block = text[at:].splitlines()
    stamp = {"digest": None, "files": {}}
    for line in block[1:]:
        line = line.strip()
        if line == END:
            break
        key, _, val = line.partition(" ")
        if key == "sha256":
            stamp["digest"] = val.strip()
        elif key and val:
            stamp["files"][val.strip()] = key
    return text[:at].rstrip("\n") + "\n", stamp


def page_path(page):
    return os.path.join(RESULTS, page)


def stamp(pages, names):
    for name in names:
        name = os.path.basename(name)
        if name not in pages:
            raise ProvenanceError(f"{name}: not declared in experiments/pages.json")
        path = page_path(name)
        try:
            with open(path) as f:
                body, _ = split_stamp(f.read())
        except OSError as e:
            raise ProvenanceError(f"{path}: {e}")
        total, per_file = digests(name, pages[name])
        lines = [BEGIN, f"sha256 {total}"] + [f"{d[:16]} {rel}" for rel, d in per_file] + [END]
        fd, tmp = tempfile.mkstemp(dir=RESULTS, prefix="." + name + ".")
        with os.fdopen(fd, "w") as f:
            f.write(body + "\n" + "\n".join(lines) + "\n")
        os.replace(tmp, path)
        print(f"stamped docs/results/{name} ({len(per_file)} inputs)")


def check(pages, names):
    problems, unchecked = [], []
    declared = set(pages)
    # the index and its two hand-written parts (scripts/results_index.py) are not pages
    index_parts = {"README.md", "index_head.md", "unjudged.md"}
    on_disk = {f for f in os.listdir(RESULTS) if f.endswith(".md") and f not in index_parts}
    for extra in sorted(on_disk - declared):
        problems.append(f"docs/results/{extra}: not declared in experiments/pages.json")
    for name in names or sorted(declared):
        spec = pages[name]
        path = page_path(name)
        if not os.path.isfile(path):
            problems.append(f"docs/results/{name}: declared but missing; run {spec.get('generator')}")
            continue
        with open(path) as f:
            _, st = split_stamp(f.read())
        if st is None or not st["digest"]:
            if spec.get("unstamped"):
                unchecked.append(f"docs/results/{name}: not checked: {spec['unstamped']}")
            else:
                problems.append(f"docs/results/{name}: no provenance stamp; regenerate it with "
                                f"{spec.get('generator')}")
            continue
        if spec.get("unstamped"):
            problems.append(f"experiments/pages.json: {name}: stamped, so its 'unstamped' reason must go")
        total, per_file = digests(name, spec)
        if total == st["digest"]:
            continue
        now = {rel: d[:16] for rel, d in per_file}
        changed = sorted(rel for rel in now if st["files"].get(rel) != now[rel])
        gone = sorted(rel for rel in st["files"] if rel not in now)
        what = ", ".join(changed + [f"{g} (no longer an input)" for g in gone]) or "the input list"
        problems.append(f"docs/results/{name}: stale: changed since it was generated: {what}; "
                        f"regenerate it with {spec.get('generator')}")
    for line in unchecked:
        print(line)
    for line in problems:
        print(line, file=sys.stderr)
    return 1 if problems else 0


def main(argv):
    if len(argv) < 2 or argv[1] not in ("stamp", "check", "list"):
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    try:
        pages = load_manifest()
        if argv[1] == "stamp":
            if len(argv) < 3:
                raise ProvenanceError("stamp: name at least one page")
            stamp(pages, argv[2:])
            return 0
        if argv[1] == "list":
            for name, spec in sorted(pages.items()):
                with open(page_path(name)) as f:
                    _, st = split_stamp(f.read())
                state = "stamped" if st else "unstamped"
                print(f"{name}\t{state}\t{spec.get('generator')}")
            return 0
        names = [os.path.basename(n) for n in argv[2:]]
        for n in names:
            if n not in pages:
                raise ProvenanceError(f"{n}: not declared in experiments/pages.json")
        return check(pages, names)
    except ProvenanceError as e:
        print(f"page_provenance: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
