#!/usr/bin/env bash
# Regenerate the key table of docs/configs.md from the schema (gmmu-sim --list-keys).
set -euo pipefail
cd "$(dirname "$0")/.."
sim=${1:-build/bin/gmmu-sim}
head=$(sed -n '1,/^the code disagree\.$/p' docs/configs.md)
{ printf '%s\n\n' "$head"; "$sim" --list-keys 2>/dev/null; } > docs/configs.md.new
mv docs/configs.md.new docs/configs.md
