#!/usr/bin/env bash
# Regenerate the generated tables of docs/configs.md (gmmu-sim --list-keys)
# and docs/stats.md (gmmu-sim --list-stats); the text above each table is kept
# (up to its marker line).
set -euo pipefail
cd "$(dirname "$0")/.."
sim=${1:-build/bin/gmmu-sim}
regen() { # FILE MARKER-LINE FLAG
  local head
  head=$(sed -n "1,/^$2\$/p" "$1")
  { printf '%s\n\n' "$head"; "$sim" "$3" 2>/dev/null; } > "$1.new"
  mv "$1.new" "$1"
}
regen docs/configs.md 'the code disagree\.' --list-keys
regen docs/stats.md 'test checks that they agree\.' --list-stats
