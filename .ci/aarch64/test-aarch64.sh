#!/usr/bin/env bash
# Vendored copy of shared/tools/test-aarch64.sh (the project's shared tools, beside the repository
# as ../shared/tools). .ci/run prefers the shared original when it exists and uses this
# copy only where it does not (a clone checked out elsewhere). Keep the two in step.
# Runs `cargo test` for aarch64-unknown-linux-gnu under qemu-aarch64, with Debian's
# rustc-web toolchain (see setup-aarch64.sh). Run it from the crate's root.
# Extra arguments go to `cargo test` (e.g. --release, --lib, a test name).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
"$here/setup-aarch64.sh" >/dev/null
export RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
# "-L /": the guest uses the multiarch libc6:arm64 with its own loader. The cross package's
# loader (/usr/aarch64-linux-gnu) paired with the multiarch libc hangs in pthread_create.
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L /"
# A separate target dir keeps these artifacts (built by another rustc) apart from the host's.
exec /usr/bin/cargo test --target aarch64-unknown-linux-gnu --target-dir target/aarch64-debian "$@"
