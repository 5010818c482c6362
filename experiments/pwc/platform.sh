#!/usr/bin/env bash
# The PWC experiment's streams through the whole platform: each headline
# stream as a trace on the gtx480-cpwc machine (L1 TLB, walker, PWC, real
# page tables), TPC vs CPWC at 5,280 bits -> docs/results/pwc_platform.md.
# The gmmu-sim runs go through gmmu-sweep (pwc_platform.py).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${BUILD_DIR:-$root/build}
traces=$build/pwc-platform-traces
rm -rf "$traces"
mkdir -p "$traces"
"$build/bin/pwc_experiment" --accesses 20000 --out "$traces" --traces "$traces" --trace-len 20000 >/dev/null
BUILD_DIR=$build /usr/bin/python3 "$here/pwc_platform.py" "$build/bin/gmmu-sim" "$traces" "$root/docs/results/pwc_platform.md"
python3 "$root/scripts/page_provenance.py" stamp pwc_platform.md
