#!/usr/bin/env python3
"""Draws the charts of docs/benchmarks.md from the benchmarks' CSV output (SVG, no
dependencies beyond Python 3):

    cargo bench --bench density && cargo bench --bench real
    python3 benches/chart.py            # reads target/bench/*.csv, writes docs/charts/*.svg

* docs/charts/density.svg: GB/s against the spacing of non-ASCII characters (log scale),
  utf8check (is_valid, from_utf8) and simdutf8 (basic, compat), one panel per placement
  (regular, jittered), for one size and one insert (default 256 KiB, `é`).
* docs/charts/real-text.svg: GB/s per file of the real-text corpus, grouped by class,
  utf8check is_valid beside simdutf8 basic.
"""

import csv
import math
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
IN = os.path.join(ROOT, "target", "bench")
OUT = os.path.join(ROOT, "docs", "charts")

COLORS = {"is_valid": "#1f77b4", "from_utf8": "#6baed6", "simdutf8_basic": "#d62728",
          "simdutf8_compat": "#fc9272"}
LABELS = {"is_valid": "utf8check is_valid", "from_utf8": "utf8check from_utf8",
          "simdutf8_basic": "simdutf8 basic", "simdutf8_compat": "simdutf8 compat"}


def text(x, y, s, size=11, anchor="middle", rotate=None, weight="normal"):
    transform = f' transform="rotate({rotate} {x} {y})"' if rotate else ""
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" '
            f'font-family="sans-serif" font-weight="{weight}"{transform}>{s}</text>')


def density(size=262144, insert="é"):
    rows = [r for r in csv.DictReader(open(os.path.join(IN, "density.csv")))
            if int(r["size"]) == size and r["insert"] == insert]
    if not rows:
        sys.exit(f"no density rows for size {size} and insert {insert}")
    series = ["is_valid", "from_utf8", "simdutf8_basic", "simdutf8_compat"]
    ymax = max(float(r[s]) for r in rows for s in series) * 1.08
    spacings = sorted({int(r["spacing"]) for r in rows})
    w, h, left, top, pw, ph, gap = 980, 420, 60, 50, 400, 280, 80
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}">',
           '<rect width="100%" height="100%" fill="white"/>',
           text(w / 2, 22, f"Density sweep: ASCII with “{insert}” every k bytes, "
                f"{size >> 10} KiB, GB/s (higher is better)", 14, weight="bold")]
    lx0, lx1 = math.log2(spacings[0]), math.log2(spacings[-1])
    for panel, placement in enumerate(["regular", "jittered"]):
        x0 = left + panel * (pw + gap)
        px = lambda k: x0 + (math.log2(k) - lx0) / (lx1 - lx0) * pw
        py = lambda v: top + ph - v / ymax * ph
        out.append(f'<rect x="{x0}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#999"/>')
        out.append(text(x0 + pw / 2, top - 8, placement + " placement", 12))
        step = 10 if ymax > 40 else 5
        for v in range(0, int(ymax) + 1, step):
            out.append(f'<line x1="{x0}" x2="{x0 + pw}" y1="{py(v):.1f}" y2="{py(v):.1f}" stroke="#eee"/>')
            out.append(text(x0 - 6, py(v) + 4, str(v), 10, "end"))
        for k in spacings:
            if k & (k - 1) == 0:  # powers of two only: the others would overlap
                out.append(text(px(k), top + ph + 16, str(k), 9))
        out.append(text(x0 + pw / 2, top + ph + 34, "k (bytes between non-ASCII characters)", 11))
        for s in series:
            pts = sorted((int(r["spacing"]), float(r[s])) for r in rows if r["placement"] == placement)
            path = " ".join(f"{px(k):.1f},{py(v):.1f}" for k, v in pts)
            dash = ' stroke-dasharray="5,3"' if s in ("from_utf8", "simdutf8_compat") else ""
            out.append(f'<polyline points="{path}" fill="none" stroke="{COLORS[s]}" stroke-width="2"{dash}/>')
    for i, s in enumerate(series):
        x = left + i * 220
        out.append(f'<line x1="{x}" x2="{x + 24}" y1="{h - 22}" y2="{h - 22}" stroke="{COLORS[s]}" stroke-width="3"/>')
        out.append(text(x + 30, h - 18, LABELS[s], 11, "start"))
    out.append("</svg>")
    return "\n".join(out)


def real_text():
    rows = list(csv.DictReader(open(os.path.join(IN, "real-files.csv"))))
    order = {"dense": 0, "mixed": 1, "mostly-ascii": 2}
    rows.sort(key=lambda r: (order[r["class"]], r["file"]))
    series = ["is_valid", "simdutf8_basic"]
    ymax = max(float(r[s]) for r in rows for s in series) * 1.08
    left, top, ph, bar, group_gap, class_gap = 60, 50, 300, 9, 8, 24
    width = left + 20 + len(rows) * (2 * bar + group_gap) + 3 * class_gap
    h = top + ph + 150
    py = lambda v: top + ph - v / ymax * ph
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{h}">',
           '<rect width="100%" height="100%" fill="white"/>',
           text(width / 2, 22, "Real text (Debian packages), GB/s per file, by class "
                "(higher is better)", 14, weight="bold")]
    step = 10 if ymax > 40 else 5
    for v in range(0, int(ymax) + 1, step):
        out.append(f'<line x1="{left}" x2="{width - 10}" y1="{py(v):.1f}" y2="{py(v):.1f}" stroke="#eee"/>')
        out.append(text(left - 6, py(v) + 4, str(v), 10, "end"))
    x, current = left + 10, None
    for r in rows:
        if r["class"] != current:
            if current is not None:
                x += class_gap
            current = r["class"]
            out.append(text(x, top + ph + 130, current, 12, "start", weight="bold"))
        for i, s in enumerate(series):
            v = float(r[s])
            out.append(f'<rect x="{x + i * bar:.1f}" y="{py(v):.1f}" width="{bar - 1}" '
                       f'height="{top + ph - py(v):.1f}" fill="{COLORS[s]}"/>')
        name = r["file"].rsplit(".", 1)[0]
        out.append(text(x + bar, top + ph + 8, name, 9, "end", rotate=-60))
        x += 2 * bar + group_gap
    for i, s in enumerate(series):
        lx = left + 300 + i * 200
        out.append(f'<rect x="{lx}" y="{top - 22}" width="14" height="10" fill="{COLORS[s]}"/>')
        out.append(text(lx + 20, top - 13, LABELS[s], 11, "start"))
    out.append("</svg>")
    return "\n".join(out)


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, draw in [("density.svg", density), ("real-text.svg", real_text)]:
        with open(os.path.join(OUT, name), "w") as f:
            f.write(draw())
        print("wrote", os.path.join("docs", "charts", name))


if __name__ == "__main__":
    main()
