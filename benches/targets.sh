#!/usr/bin/env bash
# Runs the benchmarks that issue 11's targets are stated in and prints, for each target,
# the number that decides it and whether it is met (`benches/targets.py`). Run by hand on
# a quiet machine, not by CI: about 7 minutes on the Intel host of session 54.
#
#   benches/targets.sh [DIR]     # default: target/bench/targets
#   RUNS=3 benches/targets.sh    # three runs of the density sweep (default two)
#
# Instructions per byte are counted under callgrind where valgrind is installed
# (`benches/instructions.sh`; valgrind reports no AVX-512, so that is the AVX2 kernel's
# count). Needs both real-text corpora (`benches/corpus/real.sh` and `benches/corpus/real.sh
# --other`, which install Debian packages). Keeps every CSV in DIR, with `host.txt` (the
# CPU and the commit), so that a run can be read again or compared later:
# `python3 benches/targets.py DIR`, `python3 benches/density_runs.py DIR/density-*.csv`.
set -euo pipefail

cd "$(dirname "$0")/.."
out=${1:-target/bench/targets}
runs=${RUNS:-2}
tuning=target/corpus/real
held_out=target/corpus/other
for corpus in "$tuning" "$held_out"; do
  if [[ -z $(ls -A "$corpus" 2>/dev/null) ]]; then
    echo "error: no corpus in $corpus: run benches/corpus/real.sh (and --other) first" >&2
    exit 1
  fi
done
mkdir -p "$out"
# (A file left from an earlier run would be read as this run's: `instructions.md` where
# valgrind is gone, for one.)
rm -f "$out"/*.csv "$out"/*.md
{
  grep -m1 'model name' /proc/cpuinfo || true
  grep -m1 '^cpu family' /proc/cpuinfo || true
  grep -m1 '^model\s' /proc/cpuinfo || true
  echo "commit: $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ' (with changes)')"
  date -u
} >"$out/host.txt"
cat "$out/host.txt"

# bench ARGS... NAME=DEST...: runs `cargo bench ARGS` and copies target/bench/NAME to
# DIR/DEST for each pair.
bench() {
  local args=() pair
  while [[ $# -gt 0 && $1 != *=* ]]; do
    args+=("$1")
    shift
  done
  echo "--> cargo bench ${args[*]}" >&2
  cargo bench --quiet "${args[@]}" >/dev/null
  for pair in "$@"; do
    cp "target/bench/${pair%%=*}" "$out/${pair#*=}"
  done
}

for corpus in tuning held-out; do
  dir=$tuning
  [[ $corpus == held-out ]] && dir=$held_out
  UTF8CHECK_REAL_CORPUS=$dir bench --bench real -- files pieces \
    real-files.csv="real-files-$corpus.csv" real-pieces.csv="real-pieces-$corpus.csv"
done
for ((run = 1; run <= runs; run++)); do
  bench --bench density density.csv="density-$run.csv"
done
bench --bench short -- 16 64 short.csv=short.csv
if command -v valgrind >/dev/null; then
  echo "--> benches/instructions.sh 1048576 from_utf8 is_valid" >&2
  benches/instructions.sh 1048576 from_utf8 is_valid >"$out/instructions.md"
else
  echo "note: no valgrind: instructions per byte not counted" >&2
fi

python3 benches/targets.py "$out" | tee "$out/targets.md"
