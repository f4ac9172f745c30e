#!/usr/bin/env bash
# Builds the real-text corpus of the benchmarks from Debian packages: HTML with prose
# (debian-reference), man pages (roff source), fortunes and word lists, in eight
# languages and four scripts. Run by hand (root, or sudo for apt-get), not by CI:
#
#   benches/corpus/real.sh [DIR]            # default: target/corpus/real
#   benches/corpus/real.sh --other [DIR]    # default: target/corpus/other
#
# `--other` builds a second corpus of the same kinds of text from other packages and
# languages, which no design decision was tuned on: a check that what the benchmarks
# show on the first carries over to text they have not seen (the issue's targets are
# checked again on held-out text). HTML from debian-handbook in 14 languages (Arabic,
# Persian, Greek, Korean, Vietnamese among them), man pages in 8 (Japanese, Chinese,
# Turkish, Dutch, Ukrainian), fortunes in 4, word lists in 7, and two JSON documents
# from iso-codes (mostly ASCII, non-ASCII names). Point the benchmarks at it with
# UTF8CHECK_REAL_CORPUS=target/corpus/other.
#
# Writes one file per source, each at most 1 MiB, cut at a line end, and all valid UTF-8
# (source files that are not UTF-8 are left out and listed). `cargo bench --bench real`
# and the other real-text benchmarks read DIR (or $UTF8CHECK_REAL_CORPUS).
set -euo pipefail

cd "$(dirname "$0")/../.."
set_name=real
if [[ ${1:-} == --other ]]; then
  set_name=other
  shift
fi
out=${1:-target/corpus/$set_name}

# Each source: a file name, the package, which of its files make the text (an extended
# regular expression on `dpkg -L`'s paths), and `regular` where only regular files count
# (not links, directories or the fortunes' .dat indexes; man pages keep their links, as
# the corpus always had them).
sources=()
source_of() { sources+=("$1|$2|$3|${4:-}"); }
if [[ $set_name == real ]]; then
  for l in fr de es it pt ja zh-cn; do
    source_of "dref-$l.html" "debian-reference-$l" '\.html$'
  done
  for l in fr de pl es it pt-br ru; do
    source_of "man-$l.txt" "manpages-$l" '/man/.*\.gz$'
  done
  for l in it es pl cs bg; do
    source_of "fortunes-$l.txt" "fortunes-$l" '/games/fortunes/' regular
  done
  for w in wfrench wngerman wspanish wpolish; do
    source_of "words-$w.txt" "$w" '^/usr/share/dict/' regular
  done
else
  for l in ar-MA cs-CZ da-DK de-DE el-GR fa-IR ja-JP ko-KR nl-NL pl-PL ru-RU tr-TR vi-VN zh-TW; do
    source_of "handbook-$l.html" debian-handbook "/html/$l/.*\.html$"
  done
  for l in ja zh tr nl uk ro cs hu; do
    source_of "man-$l.txt" "manpages-$l" '/man/.*\.gz$'
  done
  for l in de ru eo br; do
    source_of "fortunes-$l.txt" "fortunes-$l" '/games/fortunes/' regular
  done
  for w in witalian wportuguese wukrainian wdutch wdanish wcatalan wbulgarian; do
    source_of "words-$w.txt" "$w" '^/usr/share/dict/' regular
  done
  for j in iso_3166-2 iso_639-3; do
    source_of "json-$j.json" iso-codes "/json/$j\.json$"
  done
fi

packages=()
for s in "${sources[@]}"; do
  IFS='|' read -r _ package _ _ <<<"$s"
  [[ " ${packages[*]} " == *" $package "* ]] || packages+=("$package")
done

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
if not data:
    sys.exit(f"{out}: no UTF-8 source file")
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

for s in "${sources[@]}"; do
  IFS='|' read -r name package paths files <<<"$s"
  dpkg -L "$package" | grep -E "$paths" |
    if [[ $files == regular ]]; then
      grep -v '\.dat$' | while read -r f; do if [[ -f $f && ! -L $f ]]; then echo "$f"; fi; done
    else
      cat
    fi | assemble "$out/$name"
done
