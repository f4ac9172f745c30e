#!/usr/bin/env bash
# Wall time of `utf8check --repair` against `cat FILE` (the cost of reading the file) and
# `iconv -c -f UTF-8 -t UTF-8` (what people use to clean files) on two files in the page
# cache: valid multilingual text, and the same text with an invalid byte every ~4 KiB.
# All output goes to /dev/null. One hyperfine run per file (exit statuses ignored: 1 means
# repaired); prints the tables and ratios.
#
# Usage: cli/bench/repair.sh [SIZE_MIB] [RUNS]      (defaults: 1024 MiB, 5 runs)
# The files are written to $BENCH_DIR (default: /tmp/utf8check-bench), not into the
# repository, and kept for later runs. Installs hyperfine with apt-get if it is missing.
set -euo pipefail

size_mib=${1:-1024}
runs=${2:-5}
root=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
dir=${BENCH_DIR:-/tmp/utf8check-bench}
valid=$dir/repair-valid-${size_mib}MiB.txt
damaged=$dir/repair-damaged-${size_mib}MiB.txt
mkdir -p "$dir"

if ! command -v hyperfine >/dev/null; then
    sudo=$([ "$(id -u)" = 0 ] || echo sudo)
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq hyperfine
fi

cargo build --release --manifest-path "$root/Cargo.toml" -p utf8check-cli
bin=${CARGO_TARGET_DIR:-$root/target}/release/utf8check

if [ ! -f "$valid" ] || [ ! -f "$damaged" ]; then
    # 1 MiB of whole lines in many scripts, valid, and a copy with one byte in about every
    # 4 KiB overwritten (a Latin-1 letter, a stray continuation byte, FF, a cut lead
    # byte); each repeated to the size.
    python3 - "$dir/seed-valid" "$dir/seed-damaged" <<'EOF'
import random, sys
lines = [
    "The quick brown fox jumps over the lazy dog; 0123456789 (ASCII).\n",
    "Ça, c'est très bien — déjà vu, naïve façade, Straße, smørrebrød, żółw.\n",
    "Στο Ελληνικό αλφάβητο υπάρχουν είκοσι τέσσερα γράμματα.\n",
    "Съешь же ещё этих мягких французских булок, да выпей чаю.\n",
    "日本語のテキストと中文文本，还有한국어 문장도 있습니다。\n",
    "النص العربي يُكتب من اليمين إلى اليسار، والعبرית גם כן.\n",
    "Emoji and symbols: 😀🎉🚀👩‍💻 ∑∞≠ ₿ 𝄞 — “quotes” ‘too’ …\n",
]
rng = random.Random(42)
text = bytearray()
while len(text) < 1 << 20:
    text += rng.choice(lines).encode()
open(sys.argv[1], "wb").write(text)
i = rng.randrange(4096)
while i < len(text):
    text[i] = rng.choice([0xE9, 0x80 | rng.randrange(64), 0xFF, 0xC3])
    i += 1 + rng.randrange(8191)
open(sys.argv[2], "wb").write(text)
EOF
    for kind in valid damaged; do
        out=$dir/repair-$kind-${size_mib}MiB.txt
        for _ in $(seq "$size_mib"); do cat "$dir/seed-$kind"; done >"$out"
    done
    rm "$dir/seed-valid" "$dir/seed-damaged"
fi

echo "$(nproc) CPUs, $(uname -m); $bin"
for file in "$valid" "$damaged"; do
    cat "$file" >/dev/null # into the page cache
    name=$(basename "$file" .txt)
    echo
    echo "== $name ($(stat -c %s "$file") bytes): $("$bin" --repair "$file" | cmp -s - "$file" && echo unchanged || echo repaired)"
    hyperfine --warmup 1 --runs "$runs" --style basic --ignore-failure \
        --export-json "$dir/$name.json" \
        -n "cat" "cat $file >/dev/null" \
        -n "utf8check --repair" "$bin --repair $file >/dev/null" \
        -n "utf8check --repair=drop" "$bin --repair=drop $file >/dev/null" \
        -n "utf8check --repair -j1" "$bin --repair -j1 $file >/dev/null" \
        -n "iconv -c" "iconv -c -f UTF-8 -t UTF-8 $file >/dev/null"
    python3 - "$dir/$name.json" <<'EOF'
import json, sys
results = json.load(open(sys.argv[1]))["results"]
by = {r["command"]: r for r in results}
ours = by["utf8check --repair"]["median"]
print(f"{'command':26} {'median':>10} {'vs --repair':>12} {'CPU (u+s)':>11}")
for r in results:
    print(f"{r['command']:26} {r['median'] * 1000:7.1f} ms {r['median'] / ours:11.2f}x"
          f" {(r['user'] + r['system']) * 1000:8.1f} ms")
print(f"--repair / cat: {ours / by['cat']['median']:.2f}x; "
      f"iconv -c / --repair: {by['iconv -c']['median'] / ours:.1f}x")
EOF
done
