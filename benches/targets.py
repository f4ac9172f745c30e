#!/usr/bin/env python3
"""Issue 11's targets against one set of benchmark runs: each target, the number that
decides it, and whether it is met.

`benches/targets.sh` runs the benchmarks and keeps their CSV files in one directory,
which this reads (a file that is missing leaves its rows out):

  real-files-tuning.csv, real-files-held-out.csv    `cargo bench --bench real -- files`
                                                    on each corpus (benches/corpus/real.sh)
  real-pieces-tuning.csv, real-pieces-held-out.csv  `cargo bench --bench real -- pieces`
  density-1.csv, density-2.csv, ...                 `cargo bench --bench density`, whole
                                                    sweeps, one file per run
  short.csv                                         `cargo bench --bench short -- 16 64`
  instructions.md                                   `benches/instructions.sh 1048576
                                                    from_utf8 is_valid` (its table)

The targets (issue 11), each for `from_utf8` against `simdutf8::compat` and `is_valid`
against `simdutf8::basic` unless said:
- real text: every class of each corpus at least 1.2x (geometric mean of its files), and
  no file under 1.0x;
- density: at least 1.2x over each size's sweep in every run, and no cell under 1.0x in
  every run (one run's cells under 1.0x are mostly noise: `benches/density_runs.py`);
- pieces of real text, one call each, against the best of std and simdutf8: lines at
  least 1.3x (every row of lines with 100 pieces or more), JSON string fields at least
  2x, 64-byte slices at least 1.2x;
- short inputs (`benches/short.rs`, every text): 16 B at least 2x, 64 B at least 1.2x
  (`from_utf8` against the best peer: the benchmark's own ratio);
- the SSE4.1 kernel against `simdutf8`'s SSE kernel: every class at least 1.2x;
- instructions per byte under callgrind (1 MiB of generated text of each kind): at most
  0.12 on ASCII and 0.65 on every other kind.
Where the host dispatches AVX-512, the benchmarks also time the AVX2 kernel, the one
Zen 3 (the targets' host) dispatches: its rows follow, held to the same thresholds.
Not covered here: the speed on generated text of 4 KiB to 1 MiB (`cargo bench --bench
validate`, `benches/report.py`).

Usage: python3 benches/targets.py DIR
"""
import csv
import math
import pathlib
import statistics
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from density_runs import ratios as density_ratios  # noqa: E402

# (label, utf8check column, peer column) of the whole-file and density CSVs.
PUBLIC = [("from_utf8 / compat", "from_utf8", "simdutf8_compat"),
          ("is_valid / basic", "is_valid", "simdutf8_basic")]
SSE = [("sse4.1 / sse42", "sse41", "simdutf8_sse42")]
AVX2 = [("avx2 from_utf8 / compat", "avx2_from_utf8", "simdutf8_compat"),
        ("avx2 / basic", "avx2", "simdutf8_basic")]
CORPORA = ["tuning", "held-out"]
# Rows of lines with fewer pieces are left out of the lines target: one call of one
# line is noise.
MIN_PIECES = 100


def geomean(values):
    return math.exp(statistics.mean(math.log(v) for v in values))


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def verdict(ok):
    return "met" if ok else "**not met**"


def measured(row, column):
    return bool(row.get(column))


def over_best_peer(row, ours):
    """The best of std and simdutf8 over `ours`, in a CSV of nanoseconds per call."""
    best = min(float(row[p]) for p in ["std", "simdutf8_basic", "simdutf8_compat"])
    return best / float(row[ours])


def real_files(rows, corpus, ratios, every_file):
    """Rows for the whole files of one corpus: each class's geometric mean (at least
    1.2x), and if `every_file`, the lowest file (at least 1.0x)."""
    out = []
    for label, ours, peer in ratios:
        files = [r for r in rows if measured(r, ours) and measured(r, peer)]
        if not files:
            continue
        ratio = {r["file"]: float(r[ours]) / float(r[peer]) for r in files}
        by_class = {}
        for r in files:
            by_class.setdefault(r["class"], []).append(ratio[r["file"]])
        classes = {c: geomean(v) for c, v in sorted(by_class.items())}
        shown = ", ".join(f"{c} {mean:.2f}x" for c, mean in classes.items())
        out.append((f"real text, {corpus} corpus, {label}: every class ≥ 1.2x",
                    shown, verdict(min(classes.values()) >= 1.2)))
        if every_file:
            lowest = min(ratio, key=ratio.get)
            out.append((f"real text, {corpus} corpus, {label}: no file < 1.0x",
                        f"lowest {lowest} {ratio[lowest]:.2f}x",
                        verdict(ratio[lowest] >= 1.0)))
    return out


def density(runs, ratios):
    """Rows for the density sweep: each size's geometric mean per run, cells under 1.0x
    in every run."""
    out = []
    keys = sorted(set.intersection(*(set(run) for run in runs)))
    for label, _, _ in ratios:
        cells = [k for k in keys if label in runs[0][k]]
        if not cells:
            continue
        means = []
        for size in sorted({k[0] for k in cells}):
            for run in runs:
                means.append((geomean([run[k][label] for k in cells if k[0] == size]), size))
        low, low_size = min(means)
        out.append((f"density, {label}: ≥ 1.2x over each size's sweep, each run",
                    f"lowest {low:.2f}x ({low_size >> 10} KiB), {len(means)} sweeps",
                    verdict(low >= 1.2)))
        under = [k for k in cells if all(run[k][label] < 1 for run in runs)]
        shown = f"{len(under)} of {len(cells)} cells under 1.0x in all {len(runs)} runs"
        if under:
            worst = min(under, key=lambda k: geomean([run[k][label] for run in runs]))
            mean = geomean([run[worst][label] for run in runs])
            shown += (f"; lowest {worst[1]} every {worst[3]} B, {worst[2]}, "
                      f"{worst[0] >> 10} KiB, {mean:.2f}x")
        out.append((f"density, {label}: no cell < 1.0x", shown, verdict(not under)))
    return out


def pieces(rows, corpus):
    """Rows for the pieces of real text: best of std and simdutf8 over ours."""
    out = []
    groups = [("lines", 1.3, lambda r: r["pieces"].startswith("lines")
               and int(r["count"]) >= MIN_PIECES),
              ("JSON string fields", 2.0, lambda r: r["pieces"] == "fields"),
              ("64-byte slices", 1.2, lambda r: r["pieces"].startswith("64 B"))]
    for name, threshold, wanted in groups:
        chosen = [r for r in rows if wanted(r)]
        if not chosen:
            continue
        for ours in ["from_utf8", "is_valid"]:
            low = min(chosen, key=lambda r: over_best_peer(r, ours))
            ratio = over_best_peer(low, ours)
            out.append((f"{name}, {corpus} corpus, {ours} / best peer: ≥ {threshold}x",
                        f"lowest '{low['pieces']}' {ratio:.2f}x", verdict(ratio >= threshold)))
    return out


def short(rows):
    """Rows for the short-input benchmark: `from_utf8` against the best peer."""
    out = []
    for size, threshold in [(16, 2.0), (64, 1.2)]:
        chosen = [r for r in rows if int(r["bytes"]) == size]
        if not chosen:
            continue
        ratios = {r["text"]: over_best_peer(r, "from_utf8") for r in chosen}
        shown = ", ".join(f"{text} {ratio:.2f}x" for text, ratio in ratios.items())
        out.append((f"{size} B (short bench, every text), from_utf8 / best peer: "
                    f"≥ {threshold}x", shown, verdict(min(ratios.values()) >= threshold)))
    return out


def instructions(lines):
    """Rows for instructions per byte, from `benches/instructions.sh`'s markdown table."""
    out = []
    header = [cell.strip() for cell in lines[0].strip().strip("|").split("|")]
    kinds = header[1:]
    for line in lines[2:]:
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        name, counts = cells[0], dict(zip(kinds, map(float, cells[1:])))
        for limit, chosen in [(0.12, ["ascii"]), (0.65, [k for k in kinds if k != "ascii"])]:
            worst = max(chosen, key=counts.get)
            out.append((f"instructions per byte, {name}, {', '.join(chosen)}: ≤ {limit}",
                        f"{worst} {counts[worst]:.3f}", verdict(counts[worst] <= limit)))
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    d = pathlib.Path(sys.argv[1])
    rows = []
    files = {c: d / f"real-files-{c}.csv" for c in CORPORA}
    for c in CORPORA:
        if files[c].exists():
            rows += real_files(read(files[c]), c, PUBLIC, True)
    runs = [density_ratios(p) for p in sorted(d.glob("density-*.csv"))]
    if runs:
        rows += density(runs, PUBLIC)
    for c in CORPORA:
        path = d / f"real-pieces-{c}.csv"
        if path.exists():
            rows += pieces(read(path), c)
    if (d / "short.csv").exists():
        rows += short(read(d / "short.csv"))
    if (d / "instructions.md").exists():
        rows += instructions((d / "instructions.md").read_text().splitlines())
    for c in CORPORA:
        if files[c].exists():
            rows += real_files(read(files[c]), c, SSE, False)
    for c in CORPORA:
        if files[c].exists():
            rows += real_files(read(files[c]), c, AVX2, True)
    if runs:
        rows += density(runs, AVX2)
    if not rows:
        sys.exit(f"no benchmark CSV in {d}")
    print("| target | measured | |")
    print("|---|---|---|")
    for target, shown, ok in rows:
        print(f"| {target} | {shown} | {ok} |")
    missed = sum(ok != "met" for _, _, ok in rows)
    print(f"\n{len(rows) - missed} of {len(rows)} met")


if __name__ == "__main__":
    main()
