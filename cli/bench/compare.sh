#!/usr/bin/env bash
# Wall time of `utf8check` against `isutf8` (moreutils), `iconv` (libc-bin) and
# `cat FILE >/dev/null` (the cost of just reading the file) on a file of multilingual text
# in the page cache, all in one hyperfine run. Prints a table and the ratios.
#
# Usage: cli/bench/compare.sh [SIZE_MIB] [RUNS]      (defaults: 1024 MiB, 10 runs)
# Run from anywhere in the repository. Installs hyperfine and moreutils with apt-get if
# they are missing (needs root or sudo on Debian/Ubuntu). The file is written to
# $BENCH_DIR (default: target/bench) and kept for later runs.
set -euo pipefail

size_mib=${1:-1024}
runs=${2:-10}
root=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
dir=${BENCH_DIR:-$root/target/bench}
file=$dir/multilingual-${size_mib}MiB.txt
mkdir -p "$dir"

need=()
command -v hyperfine >/dev/null || need+=(hyperfine)
command -v isutf8 >/dev/null || need+=(moreutils)
command -v iconv >/dev/null || need+=(libc-bin)
if ((${#need[@]})); then
    sudo=$([ "$(id -u)" = 0 ] || echo sudo)
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq "${need[@]}"
fi

cargo build --release --manifest-path "$root/Cargo.toml" -p utf8check-cli
bin=${CARGO_TARGET_DIR:-$root/target}/release/utf8check

if [ ! -f "$file" ]; then
    # About 1 MiB of whole lines in nine scripts (about half the bytes are not ASCII),
    # repeated: every copy ends at a line end, so the file is valid UTF-8.
    seed=$dir/seed.txt
    : >"$seed"
    while [ "$(stat -c %s "$seed")" -lt $((1 << 20)) ]; do
        cat >>"$seed" <<'EOF'
The quick brown fox jumps over the lazy dog; 0123456789 (ASCII).
Ça, c'est très bien — déjà vu, naïve façade, Straße, smørrebrød, żółw.
Στο Ελληνικό αλφάβητο υπάρχουν είκοσι τέσσερα γράμματα.
Съешь же ещё этих мягких французских булок, да выпей чаю.
日本語のテキストと中文文本，还有한국어 문장도 있습니다。
النص العربي يُكتب من اليمين إلى اليسار، والعبرית גם כן.
हिन्दी में लिखा गया वाक्य, และภาษาไทยก็มีเช่นกัน.
Emoji and symbols: 😀🎉🚀👩‍💻 ∑∞≠ ₿ 𝄞 — “quotes” ‘too’ …
EOF
    done
    copies=$(( (size_mib << 20) / $(stat -c %s "$seed") ))
    for _ in $(seq "$copies"); do cat "$seed"; done >"$file"
    rm "$seed"
fi
"$bin" "$file" # must be valid, or the comparison is meaningless
cat "$file" >/dev/null # into the page cache

echo "file: $file ($(stat -c %s "$file") bytes), $(nproc) CPUs, $(uname -m)"
"$bin" --stats "$file"
hyperfine --warmup 2 --runs "$runs" --style basic \
    --export-markdown "$dir/compare.md" --export-json "$dir/compare.json" \
    -n "utf8check" "$bin $file" \
    -n "utf8check -j1" "$bin --threads 1 $file" \
    -n "cat" "cat $file >/dev/null" \
    -n "isutf8" "isutf8 $file" \
    -n "iconv" "iconv -f UTF-8 -t UTF-8 -o /dev/null $file"
echo
cat "$dir/compare.md"
echo
# Medians and mean CPU time (user + system, which other load on the machine disturbs
# less than wall time), and their ratios to utf8check's.
python3 - "$dir/compare.json" <<'EOF' || true
import json, sys
results = json.load(open(sys.argv[1]))["results"]
ours = next(r for r in results if r["command"] == "utf8check")
print(f"{'command':15} {'median wall':>12} {'ratio':>7} {'CPU (u+s)':>11} {'ratio':>7}")
for r in results:
    cpu = r["user"] + r["system"]
    ours_cpu = ours["user"] + ours["system"]
    print(f"{r['command']:15} {r['median'] * 1000:9.1f} ms {r['median'] / ours['median']:6.2f}x"
          f" {cpu * 1000:8.1f} ms {cpu / ours_cpu:6.2f}x")
EOF
