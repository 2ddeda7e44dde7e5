#!/usr/bin/env python3
"""Markdown tables of the studies bench/studies.sh wrote: one table per study, one column per
drive, one row per point (the study's main value), then each drive's findings.
Usage: bench/studies-table.py OUT_DIR"""
import json
import pathlib
import sys

MAIN = {
    "skew": ("waf", "WAF"),
    "readonly": ("waf", "WAF"),
    "gc-unit": ("waf", "WAF"),
    "latency-load": ("write_p99999_us", "write P99.999 [us] / read probe P99.999 [us]"),
    "block-size": ("mb_s", "MB/s"),
    "queue-depth": ("kiops", "kIOPS"),
    "streams": ("waf", "WAF"),
    "concurrency": ("mb_s", "MB/s"),
    "io-scheduler": ("mb_s", "MB/s"),
    "empty-full": ("mb_s", "MB/s"),
    "variance": ("kiops", "kIOPS"),
    "parallelism": ("kiops", "kIOPS"),
    "locality": ("mb_s", "MB/s"),
    "permuted": ("kiops", "kIOPS"),
    "alignment": ("mb_s", "MB/s"),
    "random-fill": ("mb_s", "MB/s"),
    "write-over-time": ("mb_s", "MB/s"),
    "data-dependence": ("mb_s", "MB/s"),
    "controller-reset": ("seconds", "seconds"),
    "pts-iops": ("iops", "IOPS (steady-state window)"),
    "pts-throughput": ("mb_s", "MB/s (steady-state window)"),
    "pts-latency": ("avg_us", "average response time [us] (steady-state window)"),
    "pts-wsat": ("iops", "IOPS"),
    "pts-hir": ("iops", "IOPS"),
    "pts-xsr": ("mb_s", "MB/s"),
    "pts-dirth": ("iops", "IOPS"),
}

# Studies whose points are time series: their findings only.
FINDINGS_ONLY = {"random-fill", "write-over-time", "pts-wsat", "pts-hir", "pts-xsr"}


def cell(study, p):
    v = p["values"]
    if study == "latency-load":
        if "write_p99999_us" not in v:
            return f"{v.get('waf', float('nan')):.2f} (WAF)"
        return f"{v['write_p99999_us']:.0f} / {v.get('read_probe_p99999_us', float('nan')):.0f}"
    key = MAIN[study][0]
    return f"{v[key]:.2f}" if key in v and v[key] < 100 else f"{v.get(key, float('nan')):.0f}"


def main(root):
    root = pathlib.Path(root)
    drives = sorted(d for d in root.iterdir() if d.is_dir())
    for study in MAIN:
        docs = {}
        for d in drives:
            f = d / study / "study.json"
            if f.exists():
                docs[json.loads(f.read_text())["target"]["name"]] = json.loads(f.read_text())
        if not docs:
            continue
        names = list(docs)
        print(f"### {study}: {MAIN[study][1]}\n")
        if study in FINDINGS_ONLY:
            for n in names:
                d = docs[n]
                print(f"`{n}` ({d['wall_s']:.0f} s wall, {len(d['points'])} points):")
                for f in d["findings"]:
                    print(f"- {f}")
                print()
            continue
        print("| series | point | " + " | ".join(f"`{n}`" for n in names) + " |")
        print("|---|---|" + "---:|" * len(names))
        rows = []
        for n in names:
            for p in docs[n]["points"]:
                if p["series"] == "tracking":
                    continue
                k = (p["series"], p["x_label"])
                if k not in rows:
                    rows.append(k)
        for series, label in rows:
            cells = []
            for n in names:
                ps = [p for p in docs[n]["points"] if p["series"] == series and p["x_label"] == label]
                cells.append(cell(study, ps[0]) if ps else "")
            print(f"| {series} | {label} | " + " | ".join(cells) + " |")
        print()
        for n in names:
            d = docs[n]
            print(f"`{n}` ({d['wall_s']:.0f} s wall):")
            for f in d["findings"]:
                print(f"- {f}")
            print()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "target/studies")
