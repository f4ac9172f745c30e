#!/usr/bin/env bash
# Instructions per byte under callgrind, for each implementation and text kind.
# Usage: benches/instructions.sh [SIZE] [IMPLEMENTATIONS...]
# Prints a markdown table (rows: implementations, columns: text kinds).
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-1048576}
shift || true
impls=("$@")
if [ ${#impls[@]} -eq 0 ]; then
  impls=(std simdutf8-basic simdutf8-compat from_utf8 is_valid kernel-avx2 kernel-sse4.1 kernel-scalar)
fi
kinds=(ascii latin cyrillic cjk emoji mixed)
cargo bench --bench instructions --no-run 2>/dev/null
bin=$(ls -t target/release/deps/instructions-* | grep -v '\.d$' | head -1)
repeat=$(( (64 << 20) / size ))
[ "$repeat" -ge 1 ] || repeat=1
out=$(mktemp -d)
printf '| %s B | %s |\n' "$size" "$(IFS='|'; echo "${kinds[*]}" | sed 's/|/ | /g')"
printf '|---|%s\n' "$(printf -- '---|%.0s' "${kinds[@]}")"
for impl in "${impls[@]}"; do
  row="| $impl |"
  for kind in "${kinds[@]}"; do
    valgrind --tool=callgrind --callgrind-out-file="$out/cg" --toggle-collect='*measured*' \
      "$bin" "$impl" "$kind" "$size" "$repeat" >/dev/null 2>"$out/log"
    ir=$(grep -E '^summary:|^totals:' "$out/cg" | head -1 | awk '{print $2}')
    row="$row $(python3 -c "print(f'{$ir / ($size * $repeat):.3f}')") |"
  done
  echo "$row"
done
rm -rf "$out"
