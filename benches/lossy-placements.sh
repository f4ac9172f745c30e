#!/usr/bin/env bash
# Runs `cargo bench --bench lossy` with std's code at each of its four placements mod 64
# (UTF8CHECK_BENCH_SHIFT = 0, 16, 32, 48 bytes of padding before it: see benches/lossy.rs)
# and prints each run's placement and summary rows. std's byte loops run up to 1.5 times
# faster at some placements than at others, so a single build's ratios are a draw.
#
# Usage: benches/lossy-placements.sh [SECTIONS...]   (default: every section)
set -euo pipefail
cd "$(dirname "$0")/.."
for shift in 0 16 32 48; do
    echo "== UTF8CHECK_BENCH_SHIFT=$shift"
    UTF8CHECK_BENCH_SHIFT=$shift cargo bench --bench lossy -- "$@" 2>/dev/null |
        grep -E 'mod 64|geomean|random bytes|^\| [0-9]+ \| [0-9.]+ \|'
done
