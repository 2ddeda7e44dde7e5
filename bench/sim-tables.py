#!/usr/bin/env python3
"""Markdown tables from the JSON that bench/sim-figures.sh writes."""
import json, sys, collections
out = sys.argv[1]

def runs(name):
    rs = json.load(open(f"{out}/{name}.json"))["runs"]
    try:
        rs += json.load(open(f"{out}/{name}-batched.json"))["runs"]
    except FileNotFoundError:
        pass
    return rs

def pivot(name, key, title, normalize_by=None, buffer_split=False):
    rs = runs(name)
    cols = collections.OrderedDict()
    rows = collections.OrderedDict()
    for r in rs:
        p = r["params"]
        col = p["gc"] + (" batched" if p.get("gc_mode") == "batched" else "")
        col += " buf" if buffer_split and p["write_buffer_pages"] else ""
        cols[col] = True
        rows.setdefault(p["pattern"], {})[col] = r["waf"]
    base = None
    if normalize_by:
        base = rows[normalize_by]
    print(f"**{title}**\n")
    print("| pattern | " + " | ".join(cols) + " |")
    print("|---|" + "---|" * len(cols))
    for pat, v in rows.items():
        cells = []
        for c in cols:
            w = v.get(c)
            if w is None:
                cells.append("-")
            elif base:
                cells.append(f"{w / base[c]:.3f} ({w:.2f})")
            else:
                cells.append(f"{w:.3f}")
        print(f"| {pat} | " + " | ".join(cells) + " |")
    print()

pivot("fig3b", "pattern", "Fig. 3b: WAF / WAF(50/50) (absolute WAF in brackets)", normalize_by="twozone:50/50")
pivot("fig4b", "pattern", "Fig. 4b: WAF, Zipf (buf = 0.02% LRU write buffer)", buffer_split=True)
pivot("fig5", "pattern", "Fig. 5: WAF vs read-only fraction")
pivot("fig6a", "pattern", "Fig. 6a: one ZNS-like write front, 64 MiB superblocks")
print("**Fig. 7a: greedy WAF vs OP, uniform**\n")
print("| OP | fill | simulated | greedy mean field (b=256, effective fill) | 1/(2 OP) |")
print("|---|---|---|---|---|")
for r in runs("fig7a"):
    p = r["params"]
    print(f"| {p['op']*100:.1f}% | {p['fill']:.4f} | {r['waf']:.3f} | {r['greedy_model_waf']:.3f} | {1/(2*p['op']):.3f} |")
