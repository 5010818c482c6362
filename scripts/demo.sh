#!/usr/bin/env bash
# make demo: one run of the default GPU platform, explained for a newcomer.
set -euo pipefail
build=${1:-build}
out=$build/demo
cat <<TXT

== gmmu demo ==============================================================
The default GPU platform: 4 SMs x 32 warps, a 32-entry L1 TLB per SM, a
512-entry shared L2 TLB and one page-table walker that reads real x86-64
4-level page tables from simulated memory with TLM-2.0 reads. The workload
is karnagel-damon17's random sampling over a 64 MiB region: every warp
access scatters its 32 lanes over the region, so most lanes miss the TLBs.
Every word written is read back and checked.

TXT
"$build/bin/gmmu-sim" --config default --workload random-sample --out "$out"
cat <<TXT

What you just saw: the hit rates are low because 32 random lanes per warp
touch up to 32 different 4 KiB pages (page divergence); each miss walks the
page table (4 reads). Every counter is in $out/stats.json (docs/stats.md),
the effective config in $out/config.json (docs/configs.md).

Try next:
  $build/bin/gmmu-sim --config default --workload stream --out out/s
        streaming: neighbouring lanes share pages, so far more lookups hit
  $build/bin/gmmu-sim --config default --workload random-sample --set ptw.pwc=cpwc --out out/p
        the same run with a compressed page-walk cache (fewer page-table reads)
  $build/bin/gmmu-sim --config pichai14 --workload random-sample --out out/t
        pichai-asplos14's machine with the comparator-tree walk scheduler
  $build/bin/gmmu-sim --list-keys      every config key; docs/configs.md explains them
  make test                            every test (builds the RTL co-simulation too)
TXT
