#!/usr/bin/env python3
"""Which density cells are below simdutf8 in every run, not just in one.

On the development VM a cell's ratio moves by about 15% from one run of the density
sweep to the next (the same binary, back to back), so one run's cells under 1.0x are
mostly noise. This compares the `density.csv` files of several runs of
`cargo bench --bench density` (each run overwrites `target/bench/density.csv`: copy it
away between runs) and prints, per size and ratio, how many cells are under 1.0x in each
run and in every run, and how much a cell's ratio moved between runs; then the cells
under 1.0x in every run.

Usage: python3 benches/density_runs.py RUN1.csv RUN2.csv [RUN3.csv ...]
"""
import csv
import math
import statistics
import sys

# (label, utf8check column, simdutf8 column): the ratios of `benches/density.rs`.
RATIOS = [
    ("is_valid / basic", "is_valid", "simdutf8_basic"),
    ("from_utf8 / compat", "from_utf8", "simdutf8_compat"),
    ("sse4.1 / sse42", "sse41", "simdutf8_sse42"),
    ("avx2 / basic", "avx2", "simdutf8_basic"),
    ("avx2 from_utf8 / compat", "avx2_from_utf8", "simdutf8_compat"),
]


def ratios(path):
    """{(size, insert, placement, spacing): {label: ratio}} of one run."""
    cells = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            key = (int(row["size"]), row["insert"], row["placement"], int(row["spacing"]))
            cells[key] = {
                label: float(row[ours]) / float(row[peer])
                for label, ours, peer in RATIOS
                if row[ours] and row[peer]
            }
    return cells


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    runs = [ratios(path) for path in sys.argv[1:]]
    keys = sorted(set.intersection(*(set(run) for run in runs)))
    print(f"{len(runs)} runs, {len(keys)} cells in all of them\n")
    print("| size | ratio | cells | under 1.0x in each run | in every run | "
          "run-to-run spread (median, largest) |")
    print("|---:|---|---:|---|---:|---|")
    always_under = []
    for size in sorted({key[0] for key in keys}):
        for label, _, _ in RATIOS:
            cells = [key for key in keys if key[0] == size and label in runs[0][key]]
            if not cells:
                continue
            per_run = [sum(run[key][label] < 1 for key in cells) for run in runs]
            every = [key for key in cells if all(run[key][label] < 1 for run in runs)]
            # A cell's spread: its largest ratio over its smallest, across the runs.
            spread = [
                max(run[key][label] for run in runs) / min(run[key][label] for run in runs)
                for key in cells
            ]
            print(f"| {size >> 10} KiB | {label} | {len(cells)} | "
                  f"{', '.join(map(str, per_run))} | {len(every)} | "
                  f"{statistics.median(spread):.2f}x, {max(spread):.2f}x |")
            always_under += [(label, key) for key in every]
    print("\nUnder 1.0x in every run (the geometric mean of the runs' ratios):\n")
    for label, (size, insert, placement, spacing) in always_under:
        mean = math.exp(statistics.mean(math.log(run[(size, insert, placement, spacing)][label])
                                        for run in runs))
        print(f"- {label}, {size >> 10} KiB, {insert} every {spacing} B, {placement}: "
              f"{mean:.2f}x")


if __name__ == "__main__":
    main()
