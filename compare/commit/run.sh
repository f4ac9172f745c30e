#!/usr/bin/env bash
# The working tree's kernels against those of an earlier commit, in one process: both
# copies of the library are linked into one binary, so the machine's drift (1.5-2x for
# seconds at a time on the development VM) hits both alike, which comparing two benchmark
# binaries run one after the other does not.
#
# Usage: compare/commit/run.sh REV [FILE...]
#   REV    the commit to compare against (e.g. HEAD, HEAD~3, a hash)
#   FILE   inputs, each validated whole (default: the real-text corpus of
#          benches/corpus/real.sh, target/corpus/real/*)
# Environment: ROUNDS (default 31) interleaved rounds per file; PIECES=n to validate
# slices of exactly n bytes at character boundaries, one call each (as the real-text
# benchmark's 64-byte slices), instead of whole files.
#
# Prints, per file, GB/s of each copy and the ratio new / base for the public `is_valid`
# and each kernel the CPU has (AVX2, SSE4.1), with simdutf8's matching function for
# reference, then the geometric means. Ratios within 3 to 5% of 1.0 per file are noise; the geometric mean over the
# corpus moves by about 2% between runs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
rev=${1:?usage: compare/commit/run.sh REV [FILE...]}
shift
files=()
for file in "$@"; do
  files+=("$(realpath "$file")")
done
if [ ${#files[@]} -eq 0 ]; then
  files=("$root"/target/corpus/real/*)
fi
base="$here/base"
rm -rf "$base"
mkdir -p "$base"
# `-m`: the files get the time of extraction, not of the commit. With the commit's time, an
# older commit than the last one compared looked older than its build, and cargo reused
# the last commit's build.
git -C "$root" archive "$rev" | tar -x -m -C "$base"
# The copy becomes the package `utf8check_base`, outside any workspace.
python3 - "$base/Cargo.toml" <<'PY'
import re, sys
path = sys.argv[1]
text = open(path).read()
text = text.replace('name = "utf8check"', 'name = "utf8check_base"', 1)
# Drop the [workspace] and [profile.*] tables and every [[bench]]: the copy is a library
# only, built with this crate's profile.
out, skip = [], False
for line in text.split("\n"):
    if line.startswith("["):
        skip = line.startswith(("[workspace", "[profile", "[[bench]]"))
    if not skip:
        out.append(line)
open(path, "w").write("\n".join(out))
PY
rm -rf "$base/benches"
cd "$here"
cargo build --release --quiet
exec "$here/target/release/utf8check-compare-commit" "${files[@]}"
