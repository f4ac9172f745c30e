#!/usr/bin/env bash
# Builds the real-text corpus of the benchmarks from Debian packages: HTML with prose
# (debian-reference), man pages (roff source), fortunes and word lists, in eight
# languages and four scripts. Run by hand (root, or sudo for apt-get), not by CI:
#
#   benches/corpus/real.sh [DIR]        # default: target/corpus/real
#
# Writes one file per source, each at most 1 MiB, cut at a line end, and all valid UTF-8
# (source files that are not UTF-8 are left out and listed). `cargo bench --bench real`
# and the other real-text benchmarks read DIR (or $UTF8CHECK_REAL_CORPUS).
set -euo pipefail

cd "$(dirname "$0")/../.."
out=${1:-target/corpus/real}

langs_reference=(fr de es it pt ja zh-cn)
langs_man=(fr de pl es it pt-br ru)
langs_fortunes=(it es pl cs bg)
wordlists=(wfrench wngerman wspanish wpolish)

packages=()
for l in "${langs_reference[@]}"; do packages+=("debian-reference-$l"); done
for l in "${langs_man[@]}"; do packages+=("manpages-$l"); done
for l in "${langs_fortunes[@]}"; do packages+=("fortunes-$l"); done
packages+=("${wordlists[@]}")

missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  ((EUID == 0)) || sudo=sudo
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

mkdir -p "$out"
rm -f "$out"/*

# Concatenates the files given on standard input (one path per line, .gz decompressed)
# into $1, skipping files that are not UTF-8, up to 1 MiB cut at a line end.
assemble_py=$(cat <<'PY'
import gzip, sys
LIMIT = 1 << 20
out, parts, size, skipped = sys.argv[1], [], 0, 0
for path in sorted(line.strip() for line in sys.stdin if line.strip()):
    data = gzip.open(path).read() if path.endswith(".gz") else open(path, "rb").read()
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        skipped += 1
        continue
    parts.append(data)
    size += len(data)
    if size >= LIMIT:
        break
data = b"".join(parts)
if len(data) > LIMIT:
    data = data[: data.rindex(b"\n", 0, LIMIT) + 1]
data.decode("utf-8")
open(out, "wb").write(data)
print(f"{out}: {len(data)} bytes" + (f" ({skipped} files not UTF-8 left out)" if skipped else ""))
PY
)
assemble() {
  python3 -c "$assemble_py" "$1"
}

for l in "${langs_reference[@]}"; do
  dpkg -L "debian-reference-$l" | grep -E '\.html$' | assemble "$out/dref-$l.html"
done
for l in "${langs_man[@]}"; do
  dpkg -L "manpages-$l" | grep -E '/man/.*\.gz$' | assemble "$out/man-$l.txt"
done
for l in "${langs_fortunes[@]}"; do
  # The fortune files themselves, not their .dat indexes.
  dpkg -L "fortunes-$l" | grep '/games/fortunes/' | grep -v '\.dat$' |
    while read -r f; do if [[ -f $f && ! -L $f ]]; then echo "$f"; fi; done | assemble "$out/fortunes-$l.txt"
done
for w in "${wordlists[@]}"; do
  dpkg -L "$w" | grep '^/usr/share/dict/' | while read -r f; do if [[ -f $f && ! -L $f ]]; then echo "$f"; fi; done |
    assemble "$out/words-$w.txt"
done
