#!/usr/bin/env bash
# Checks that the x86 kernels' whole-input entry points save no callee-saved register.
#
# Why: LLVM saves the callee-saved registers that any path of a function needs at its
# entry, for every path. The windows of the main loop need six of them, so an entry point
# that has them inlined pushes and pops six or seven registers on every call, a 20-byte
# input's included (`entry_points!` in src/arch/mod.rs, docs/design.md "The short paths
# save no registers"). That came back twice without any test failing, from small changes
# to the shape of the code; this check makes it fail CI.
#
# What: builds the command-line program (release, as users get the library), disassembles
# it with objdump and reads `validate` and `from_utf8` of every x86 kernel in it. Each
# must exist (a renamed or inlined function fails the check rather than passing it) and
# must push none of rbx, rbp, r12 to r15. A `push %rax` (stack alignment for the call to
# the windows or to the cold error search) is allowed: it saves nothing.
#
# Usage: .ci/entry-points.sh   (from anywhere; uses CARGO_TARGET_DIR if set)
# Installs binutils (for objdump) where it is missing.
set -euo pipefail

cd "$(dirname "$0")/.."
target_dir=${CARGO_TARGET_DIR:-$PWD/target}
binary=$target_dir/release/utf8check

# objdump comes with binutils, which the C toolchain that links Rust programs depends on;
# installed here if a machine lacks it anyway.
if ! command -v objdump >/dev/null; then
  echo "objdump is missing: installing binutils"
  apt-get update -qq && apt-get install -y -qq binutils
fi

cargo build --release -p utf8check-cli
listing=$(mktemp)
trap 'rm -f "$listing"' EXIT
objdump -d --no-show-raw-insn -C "$binary" >"$listing"

# The AVX-512 kernel is built only by compilers that have its intrinsics (build.rs).
kernels=(sse41 avx2)
if grep -q '<utf8check::arch::avx512::' "$listing"; then
  kernels+=(avx512)
else
  echo "note: no AVX-512 kernel in this build (build.rs: it needs Rust 1.89 or later)"
fi

status=0
for kernel in "${kernels[@]}"; do
  for function in validate from_utf8; do
    name="utf8check::arch::$kernel::$function"
    # The function's instructions: from its label to the blank line after it.
    body=$(awk -v label="<$name>:" 'index($0, label) { inside = 1; next }
                                     inside && /^$/ { exit }
                                     inside' "$listing")
    if [[ -z $body ]]; then
      echo "FAILED: $name is not in $binary (renamed, or inlined into its caller?)"
      status=1
      continue
    fi
    saved=$(grep -E 'push +%(rbx|rbp|r12|r13|r14|r15)\b' <<<"$body" || true)
    if [[ -n $saved ]]; then
      echo "FAILED: $name saves callee-saved registers on every call:"
      echo "$saved"
      status=1
    else
      echo "ok: $name ($(wc -l <<<"$body") instructions, no callee-saved register pushed)"
    fi
  done
done
exit "$status"
