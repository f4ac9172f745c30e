#!/usr/bin/env bash
# Vendored copy of shared/tools/setup-aarch64.sh (the project's shared tools, beside the repository
# as ../shared/tools). .ci/run prefers the shared original when it exists and uses this
# copy only where it does not (a clone checked out elsewhere). Keep the two in step.
# Installs what it takes to build this crate for 64-bit Arm and run its tests under
# user-mode emulation on an x86-64 Debian machine: Debian's rustc-web/cargo-web (which
# ship the aarch64 standard library as a multiarch package), the aarch64 GNU linker,
# and qemu-user. Idempotent; safe to run at the start of CI.
#
# Afterwards, from the crate's root:
#   ../shared/tools/test-aarch64.sh            # cargo test for aarch64, run under qemu
#   ../shared/tools/test-aarch64.sh --release  # extra cargo args are passed through
set -euo pipefail
need=()
dpkg --print-foreign-architectures | grep -qx arm64 || { dpkg --add-architecture arm64; apt_update=1; }
for p in rustc-web cargo-web libstd-rust-web-dev:arm64 gcc-aarch64-linux-gnu libc6-dev-arm64-cross libc6:arm64 qemu-user; do
  dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
done
if ((${#need[@]})); then
  apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}" >/dev/null
fi
/usr/bin/rustc --version
qemu-aarch64 --version | head -1
