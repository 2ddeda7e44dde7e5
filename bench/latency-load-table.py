#!/usr/bin/env python3
"""The latency-load curves of bench/latency-load-drives.sh as one markdown table, with the
shape SSD-iq's Figure 8 describes for each drive's class checked (issue 31)."""
import json
import sys

out, profiles = sys.argv[1], sys.argv[2:]

# (profile, the paper's class letter or "-", the check's text, the check).
def at(points, load, key):
    for p in points:
        if p["series"] == "write load" and p["x"] == load:
            return p["values"].get(key)
    raise SystemExit(f"no {load}% point")

CLASS = {
    "pm9a3": "s", "pe8110": "h", "p5520": "i", "sn640": "w", "7450pro": "m",
    "7450max": "m (MAX)", "pm1733": "-", "cm7r": "-", "i4i": "-",
}

def checks(profile, pts):
    c = []
    if profile in ("pm9a3", "pe8110"):
        ok = all(at(pts, l, k) < 25 for l in (5, 10, 20, 25, 30, 40, 50)
                 for k in ("write_avg_us", "write_p99_us"))
        c.append(("write avg and P99 < 25 us up to 50%", ok))
    if profile == "7450pro":
        ok = all(at(pts, l, "write_p99999_us") >= 1000 for l in (10, 20, 25, 30, 40, 50))
        c.append(("write P99.999 >= 1 ms from 10%", ok))
    if profile in ("sn640", "p5520"):
        ok = at(pts, 10, "write_p99999_us") >= 5 * at(pts, 10, "write_avg_us")
        c.append(("write P99.999 at 10% >= 5x write avg", ok))
    r25, r75 = at(pts, 25, "read_probe_p99_us"), at(pts, 75, "read_probe_p99_us")
    c.append(("read P99 at 25% in 200-500 us", 200 <= r25 <= 500))
    c.append(("read P99 at 75% >= at 25%", r75 >= r25))
    return c

print("| profile (Fig 8 class) | write avg / P99 µs at 10, 25, 50% | write P99.999 µs at 10% | read P99 µs at 25 / 75% | Fig 8's shape |")
print("|---|---|---|---|---|")
met = total = 0
for prof in profiles:
    pts = json.load(open(f"{out}/{prof}/study.json"))["points"]
    w = " · ".join(f"{at(pts, l, 'write_avg_us'):.0f} / {at(pts, l, 'write_p99_us'):.0f}" for l in (10, 25, 50))
    c = checks(prof, pts)
    met += sum(ok for _, ok in c)
    total += len(c)
    shape = "; ".join(f"{t}: {'met' if ok else '**missed**'}" for t, ok in c)
    print(f"| {prof} ({CLASS[prof]}) | {w} | {at(pts, 10, 'write_p99999_us'):.0f} | "
          f"{at(pts, 25, 'read_probe_p99_us'):.0f} / {at(pts, 75, 'read_probe_p99_us'):.0f} | {shape} |")
print(f"\nFig 8 shapes met: {met} of {total}.")
