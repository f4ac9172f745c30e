#!/usr/bin/env python3
"""Turns criterion's results (target/criterion) for `benches/validate.rs` into the
markdown tables of docs/benchmarks.md: median throughput per implementation in GB/s
(10^9 bytes per second), and the ratios the targets are stated in.

Usage: python3 benches/report.py [TARGET_DIR]
"""
import json
import pathlib
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "target") / "criterion"
results = {}  # (kind, size) -> {implementation: GB/s}
for bench in root.glob("*/*/new/benchmark.json"):
    meta = json.loads(bench.read_text())
    group = meta["group_id"]
    if "/" not in group or not meta.get("throughput"):
        continue
    kind, size = group.split("/", 1)
    estimates = json.loads((bench.parent / "estimates.json").read_text())
    median_ns = estimates["median"]["point_estimate"]
    gbps = meta["throughput"]["Bytes"] / median_ns
    name = meta["function_id"] or meta["value_str"]
    results.setdefault((kind, size), {})[name] = gbps

kinds = ["ascii", "latin", "cyrillic", "cjk", "emoji", "mixed"]
sizes = ["16B", "64B", "256B", "1KiB", "4KiB", "64KiB", "1MiB", "64MiB"]
SIZE_BYTES = {"16B": 16, "64B": 64, "256B": 256, "1KiB": 1 << 10, "4KiB": 4 << 10,
              "64KiB": 64 << 10, "1MiB": 1 << 20, "64MiB": 64 << 20}
columns = ["baseline", "std", "simdutf8-basic", "simdutf8-compat", "from_utf8", "is_valid",
           "kernel-avx2", "kernel-sse4.1", "kernel-scalar"]

print("Median throughput in GB/s; the last three columns are ratios of medians from the")
print("same run: `from_utf8` / `simdutf8::compat`, `is_valid` / `simdutf8::basic`, and")
print("`from_utf8` / the best of std and simdutf8. `baseline` is the benchmark loop alone")
print("(it reads each slice's length and nothing else), in nanoseconds per slice: what every")
print("other column pays besides the validation.\n")
for size in sizes:
    rows = [(k, results.get((k, size))) for k in kinds if (k, size) in results]
    if not rows:
        continue
    present = [c for c in columns if any(c in r for _, r in rows)]
    print(f"**{size}**\n")
    print("| text | " + " | ".join(present) + " | from_utf8 / compat | is_valid / basic | from_utf8 / best peer |")
    print("|---" * (len(present) + 4) + "|")
    for kind, r in rows:
        cells = [(f"{SIZE_BYTES[size] / r[c]:.2f} ns" if c == "baseline" else f"{r[c]:.2f}")
                 if c in r else "" for c in present]
        best_peer = max(r.get(c, 0) for c in ("std", "simdutf8-basic", "simdutf8-compat"))
        ratio = lambda a, b: f"{r[a] / r[b]:.2f}x" if a in r and b in r else ""
        best = f"{r['from_utf8'] / best_peer:.2f}x" if "from_utf8" in r and best_peer else ""
        print(f"| {kind} | " + " | ".join(cells)
              + f" | {ratio('from_utf8', 'simdutf8-compat')} | {ratio('is_valid', 'simdutf8-basic')} | {best} |")
    print()
