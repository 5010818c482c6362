#!/usr/bin/env python3
"""The library layers (docs/architecture.md, "Libraries"), checked from the sources.

  gmmu_models      models/          C11 only: no C++ or SystemC header
  gmmu_components  platforms/components, platforms/include/gmmu/components
                                    no gmmu/gpu/ header
  gmmu_gpu         platforms/gpu, platforms/include/gmmu/gpu

and every "gmmu/..." include of the project's sources names a real file (not a
link) under models/include or platforms/include, with no link made by CMake.
usage: check_layers.py SOURCE_DIR [BUILD_DIR]; exit 1 naming FILE:LINE on the first breach of each kind.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
SRC_EXT = (".c", ".h", ".cpp", ".hpp", ".cc")


def sources(root, rel):
    base = os.path.join(root, rel)
    for d, _, files in os.walk(base):
        for f in sorted(files):
            if f.endswith(SRC_EXT):
                yield os.path.join(d, f)


def includes(path):
    with open(path, encoding="utf-8", errors="replace") as fh:
        for n, line in enumerate(fh, 1):
            m = INCLUDE.match(line)
            if m:
                yield n, m.group(1), m.group(2)


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    root = os.path.abspath(sys.argv[1])
    build = os.path.abspath(sys.argv[2]) if len(sys.argv) == 3 else None
    errors = []

    def rel(p):
        return os.path.relpath(p, root)

    # models: C only. A header in <> must be a C header (ends in .h) and not SystemC/TLM.
    for p in sources(root, "models"):
        for n, kind, inc in includes(p):
            cxx = kind == "<" and not inc.endswith(".h")
            sysc = re.match(r"(systemc|tlm|tlm_utils|sysc)(\.h|/|$)", inc) is not None
            upper = inc.startswith(("gmmu/components/", "gmmu/gpu/"))
            if cxx or sysc or upper:
                errors.append(f"{rel(p)}:{n}: the C models include <{inc}> (C headers only, no layer above)")
    if not os.path.isfile(os.path.join(root, "models/include/gmmu/tlb.h")):
        errors.append("models/include/gmmu/tlb.h: missing (wrong SOURCE_DIR?)")

    # components: nothing of the GPU platform.
    comp = list(sources(root, "platforms/components")) + list(
        sources(root, "platforms/include/gmmu/components"))
    if not comp:
        errors.append("platforms/components: no sources found")
    for p in comp:
        for n, kind, inc in includes(p):
            if inc.startswith("gmmu/gpu/") or "/gpu/" in inc or inc.startswith("gpu/"):
                errors.append(f"{rel(p)}:{n}: a component includes {inc} (the GPU platform's layer)")

    # Every "gmmu/..." include resolves to a real file in the source tree.
    roots = [os.path.join(root, "models/include"), os.path.join(root, "platforms/include")]
    for top in ("models", "platforms", "tests", "examples", "bench", "dpi", "tools", "fuzz", "experiments", "tb"):
        for p in sources(root, top):
            for n, kind, inc in includes(p):
                if not inc.startswith("gmmu/"):
                    continue
                hits = [os.path.join(r, inc) for r in roots if os.path.exists(os.path.join(r, inc))]
                if not hits:
                    errors.append(f"{rel(p)}:{n}: {inc} is no file under models/include or platforms/include")
                for h in hits:
                    if os.path.islink(h) or os.path.realpath(h) != os.path.abspath(h):
                        errors.append(f"{rel(p)}:{n}: {inc} resolves through a link ({rel(h)})")

    # No build-time links: no CMake file makes one, and the build tree has none.
    for d, _, files in os.walk(root):
        if os.path.relpath(d, root).split(os.sep)[0].startswith(("build", ".git")):
            continue
        for f in files:
            if f == "CMakeLists.txt" or f.endswith(".cmake"):
                p = os.path.join(d, f)
                with open(p, encoding="utf-8", errors="replace") as fh:
                    for n, line in enumerate(fh, 1):
                        code = line.split("#", 1)[0]
                        if re.search(r"CREATE_LINK|create_symlink", code):
                            errors.append(f"{rel(p)}:{n}: makes a link at build time")
    if build and os.path.isdir(os.path.join(build, "include", "gmmu")):
        for e in os.scandir(os.path.join(build, "include", "gmmu")):
            if e.is_symlink():
                errors.append(f"{os.path.join(build, 'include', 'gmmu', e.name)}: a link in the build tree")

    for e in errors:
        print(e)
    if errors:
        print(f"layers: {len(errors)} breach(es)")
        return 1
    print(f"layers: models C only, {len(comp)} component files free of gmmu/gpu/, every gmmu/ include a real file, no links")
    return 0


if __name__ == "__main__":
    sys.exit(main())
