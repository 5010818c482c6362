#!/usr/bin/env bash
# Install the Debian packages gmmu needs, only those missing. Idempotent.
# usage: setup-deps.sh [demo|fuzz]   (demo: only what building and running gmmu-sim needs;
#                                    fuzz: everything, and clang for make fuzz)
set -euo pipefail
PKGS=(build-essential cmake pkg-config libsystemc-dev libgtest-dev nlohmann-json3-dev
      libcli11-dev python3
      ccache)  # the compiler cache every build tree uses where installed (CMakeLists.txt)
if [ "${1:-all}" != demo ]; then
  PKGS+=(verilator yosys libbenchmark-dev python3-matplotlib qflow-tech-osu018
         slurmctld slurmd slurm-client munge)  # the Slurm backend's test (tests/slurm)
fi
if [ "${1:-all}" = fuzz ]; then
  PKGS+=(clang libclang-rt-14-dev)  # clang and its libFuzzer/sanitizer runtimes (make fuzz;
                                    # the runtimes are only "recommended" by clang)
fi
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "setup-deps: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
