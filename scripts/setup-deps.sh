#!/usr/bin/env bash
# Install the Debian packages gmmu needs, only those missing. Idempotent.
set -euo pipefail
PKGS=(build-essential cmake pkg-config libsystemc-dev verilator yosys libgtest-dev
      libbenchmark-dev nlohmann-json3-dev libcli11-dev python3 python3-matplotlib
      qflow-tech-osu018)
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
