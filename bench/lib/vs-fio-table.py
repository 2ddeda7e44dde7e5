"""The table of bench/vs-fio.sh and bench/vs-fio-guest.sh: per config and workload, the median
IOPS of fio and of ssdiq over the repetitions, their ratio, and the median p50 latencies.

Usage: vs-fio-table.py WORK REPS CONFIG...  (WORK holds fio-CONFIG-RW:QD-REP.json and
ssdiq-CONFIG-RW:QD-REP.json)
"""
import json, statistics, sys
work, reps, configs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
def fio(c, w, rep):
    op = "read" if w.startswith("randread") else "write"
    r = json.load(open(f"{work}/fio-{c}-{w}-{rep}.json"))["jobs"][0][op]
    return r["iops"], r["lat_ns"]["percentile"]["50.000000"]
def ssdiq(c, w, rep):
    op = "read" if w.startswith("randread") else "write"
    r = json.load(open(f"{work}/ssdiq-{c}-{w}-{rep}.json"))["ops"][op]
    return r["iops"], r["lat_ns"]["p50"]
med = statistics.median
print("| config | workload | fio IOPS | ssdiq IOPS | ssdiq/fio | fio p50 | ssdiq p50 |")
print("|---|---|---:|---:|---:|---:|---:|")
for c in configs:
    ws = ["randread:1", "randwrite:1"] if c == "psync" else ["randread:1", "randread:32", "randwrite:32"]
    for w in ws:
        f = [fio(c, w, i) for i in range(1, reps + 1)]
        s = [ssdiq(c, w, i) for i in range(1, reps + 1)]
        fi, si = med([x[0] for x in f]), med([x[0] for x in s])
        fl, sl = med([x[1] for x in f]) / 1e3, med([x[1] for x in s]) / 1e3
        rw, qd = w.split(":")
        print(f"| {c} | {rw} QD{qd} | {fi:,.0f} | {si:,.0f} | {si / fi:.3f} | {fl:.2f} us | {sl:.2f} us |")
