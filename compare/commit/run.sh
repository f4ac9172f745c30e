#!/usr/bin/env bash
# The working tree's kernels against those of an earlier commit, in one process: both
# copies of the library are linked into one binary, so the machine's drift (1.5-2x for
# seconds at a time on the development VM) hits both alike, which comparing two benchmark
# binaries run one after the other does not.
#
# Usage: compare/commit/run.sh REV [INPUT...]
#   REV    the commit to compare against (e.g. HEAD, HEAD~3, a hash)
#   INPUT  a file, validated whole, or density:INSERT:SPACING:SIZE[:jittered], the density
#          sweep's text (benches/density.rs: ASCII with INSERT every SPACING bytes, its
#          four slices of SIZE bytes), e.g. density:é:192:65536 or
#          density:日本語:3000:65536:jittered (default: the real-text corpus of
#          benches/corpus/real.sh, target/corpus/real/*)
# Environment:
#   ROUNDS  interleaved rounds per input (default 31)
#   PIECES  n: files in slices of exactly n bytes at character boundaries, one call each
#           (as the real-text benchmark's 64-byte slices), instead of whole
#   LINES   lo-hi: the files' lines of lo to hi-1 bytes, one call each (as the real-text
#           benchmark's lines by length, e.g. LINES=400-800), instead of whole
#   JOIN    1: every input's pieces as one input, one row (as the real-text benchmark's
#           rows, whose pieces from all files together outgrow L2; one file's pieces
#           may not)
#   UTF8CHECK_SCRUB  what runs before each timed pass, as for the benchmarks
#           (benches/common/measure.rs): full (default), predictor (the input stays in
#           L2), cache (the input leaves L2), none
#   SWAP    1 (default): a second build with the two versions' places in the binary
#           exchanged; 0: one build
#   SHIFTS  code shifts in bytes, one build each (default "0"; "0 32" for two)
#
# Where a function lands in the binary moves its speed: the same code linked twice read
# 0.82x to 1.24x against itself in single runs on the Zen 4 host of session 35, and
# 0.94x to 1.06x as the geometric mean of both builds at two shifts. So each build prints
# its table (per input, GB/s of each copy, new / base and new / simdutf8 for the public
# `is_valid` and `from_utf8` and each kernel the CPU has), and the last table is the geometric mean and
# the median of the ratios over all builds.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
rev=${1:?usage: compare/commit/run.sh REV [INPUT...]}
shift
inputs=()
for input in "$@"; do
  case $input in
    density:*) inputs+=("$input") ;;
    *) inputs+=("$(realpath "$input")") ;;
  esac
done
if [ ${#inputs[@]} -eq 0 ]; then
  inputs=("$root"/target/corpus/real/*)
fi

# copy SOURCE DIR NAME: the library at SOURCE (a commit, or `worktree`: the working tree's
# files that git tracks or would track) in DIR as the package NAME, a library only.
copy() {
  local source=$1 dir=$2 name=$3
  rm -rf "$dir"
  mkdir -p "$dir"
  if [ "$source" = worktree ]; then
    # (Tracked files deleted in the working tree are listed too, and fail to copy: the
    # copy is of what is there.)
    (cd "$root" && git ls-files -z --cached --others --exclude-standard |
      xargs -0 cp --parents -t "$dir" 2>/dev/null || true)
  else
    # `-m`: the files get the time of extraction, not of the commit. With the commit's
    # time, an older commit than the last one compared looked older than its build, and
    # cargo reused the last commit's build.
    git -C "$root" archive "$source" | tar -x -m -C "$dir"
  fi
  # Drop the [workspace] and [profile.*] tables and every [[bench]]: the copy is a
  # library only, built with this crate's profile.
  python3 - "$dir/Cargo.toml" "$name" <<'PY'
import sys
path, name = sys.argv[1], sys.argv[2]
text = open(path).read()
text = text.replace('name = "utf8check"', f'name = "{name}"', 1)
out, skip = [], False
for line in text.split("\n"):
    if line.startswith("["):
        skip = line.startswith(("[workspace", "[profile", "[[bench]]"))
    if not skip:
        out.append(line)
open(path, "w").write("\n".join(out))
PY
  rm -rf "$dir/benches" "$dir/cli" "$dir/compare" "$dir/fuzz"
}

ratios=$(mktemp)
trap 'rm -f "$ratios"' EXIT
cd "$here"
orders=(plain)
if [ "${SWAP:-1}" = 1 ]; then
  orders+=(swapped)
fi
for order in "${orders[@]}"; do
  if [ "$order" = plain ]; then
    copy worktree "$here/new" utf8check
    copy "$rev" "$here/base" utf8check_base
    unset UTF8CHECK_COMPARE_SWAPPED
  else
    copy "$rev" "$here/new" utf8check
    copy worktree "$here/base" utf8check_base
    export UTF8CHECK_COMPARE_SWAPPED=1
  fi
  for shift_bytes in ${SHIFTS:-0}; do
    UTF8CHECK_BENCH_SHIFT=$shift_bytes cargo build --release --quiet
    COMPARE_RATIOS=$ratios "$here/target/release/utf8check-compare-commit" "${inputs[@]}"
    echo
  done
done
python3 - "$ratios" <<'PY'
import math, sys
rows = {}
for line in open(sys.argv[1]):
    name, group, new_base, new_peer = line.rstrip("\n").split("\t")
    rows.setdefault((name, group), []).append((float(new_base), float(new_peer)))
if not rows:
    sys.exit("No input had such pieces in any build.")
def geomean(values):
    return math.exp(sum(map(math.log, values)) / len(values))
def median(values):
    values = sorted(values)
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else math.sqrt(values[mid - 1] * values[mid])
builds = max(len(r) for r in rows.values())
# The median of the builds as well: on a host whose speed drifts, one build of four can
# read 0.65x or 1.45x, which moves the geometric mean by 10% and the median hardly.
print(f"Over all {builds} builds: geometric means and medians of new / base (each build's), and new / peer\n")
print("| input | kernel | new / base | median | each build | new / peer |")
print("|---|---|---:|---:|---|---:|")
by_group = {}
for (name, group), values in rows.items():
    each = " ".join(f"{v[0]:.2f}" for v in values)
    ratios = [v[0] for v in values]
    mean, mid = geomean(ratios), median(ratios)
    by_group.setdefault(group, []).append((mean, mid))
    print(f"| {name} | {group} | {mean:.3f}x | {mid:.3f}x | {each} | {geomean([v[1] for v in values]):.3f}x |")
print()
for group, pairs in by_group.items():
    means = geomean([p[0] for p in pairs])
    mids = geomean([p[1] for p in pairs])
    print(f"{group}: geometric mean new / base over the inputs {means:.3f}x (of the medians {mids:.3f}x)")
PY
