#!/usr/bin/env bash
# Regenerate the tables of docs/stats.md from the components' stat tables
# (gmmu-sim --list-stats); the text above them is kept.
set -euo pipefail
cd "$(dirname "$0")/.."
sim=${1:-build/bin/gmmu-sim}
head=$(sed -n '1,/^test checks that they agree\.$/p' docs/stats.md)
{ printf '%s\n\n' "$head"; "$sim" --list-stats 2>/dev/null; } > docs/stats.md.new
mv docs/stats.md.new docs/stats.md
