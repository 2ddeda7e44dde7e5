#!/usr/bin/env python3
"""Markdown table of `ssdiq run emu:NAME` results beside the SSD-iq paper's rows.

usage: bench/drives-table.py DIR   (DIR/<profile>/run.json for each profile run)

The paper's figures come from crates/report/data/ssd-iq-paper.toml (the report's own copy,
Tables 2 and 3). Throughput and WA cells show ssdiq / paper and the relative difference;
latency cells show the colour class of both (the paper's rule, crates/report/src/colour.rs).
Sequential read is the "before" samples' median (right after the sequential init). Sequential
write is the protocol's seq_write step (512 KiB at random offsets, 10 x QD32) while the drive's
free pool lasted (`figures.seq_write_free_pool_mb_s`, every sample's median): the phase the
paper's sequential writes ran in (docs/drives.md, "The sequential write step"). The step's
value over 60-99% of its time, GC-bound, and the sequential init are shown in the last columns.
A last table splits the first seq_write step (pass 1, right after the init) into its
free-pool phase and the rest, beside the share of its 150 s step the paper's drive's own free
pool would last: estimated OP x capacity / (sequential write x 150 s) (Tables 2 and 3).
"""
import json
import os
import statistics
import sys
import tomllib

PROFILES = [
    ("pm9a3", "Samsung PM9A3"),
    ("pe8110", "SK Hynix PE8110"),
    ("p5520", "Intel D7-P5520"),
    ("sn640", "WD Ultra. DC SN640"),
    ("7450pro", "Micron 7450 PRO"),
    ("7450max", "Micron 7450 MAX"),
    ("pm1733", "Samsung PM1733"),
    ("cm7r", "Kioxia CM7-R"),
    ("i4i", "AWS EC2 i4i.4xlarge"),
]


def colour(kind, us):
    """The paper's latency colours (SSD-iq Table 2 legend)."""
    if kind == "read_avg":
        return "green" if us < 100 else "red"
    if kind == "read_p999":
        return "green" if us < 500 else "yellow" if us < 1000 else "red"
    if kind == "write_avg":
        return "green" if us < 20 else "yellow"
    return "green" if us < 20 else "yellow" if us < 100 else "red"


def before(run, name):
    v = [s["value"]["mb_s"] for s in run["steps"]
         if s["name"] == name and s.get("stage") == "before" and "mb_s" in s.get("value", {})]
    return statistics.median(v) if v else None


def precondition(run):
    """The sequential init's bandwidth: 512 KiB sequential writes at QD1 over the drive."""
    r = run.get("run", {})
    if r.get("precondition_s"):
        return r["precondition_bytes"] / r["precondition_s"] / 1e6
    return None


def fig(run, key):
    f = run["figures"].get(key)
    return f["median"] if isinstance(f, dict) else None


def wa_as_paper(run, p, workload):
    """WA measured the way the paper measured this drive's: the media counters for an OCP
    drive, else implied from throughput (§4.1): the spec sequential write (or, without one,
    the measured sequential write) over the workload's random write bandwidth."""
    if p["ocp"]:
        return fig(run, f"waf_measured.{workload}")
    seq = p["spec"].get("seq_write_mb_s") or precondition(run)
    return seq / (fig(run, f"rand_write_kiops.{workload}") * 4.096)


def num(x):
    """Whole numbers from 1000 on, else four significant digits."""
    return f"{x:.0f}" if abs(x) >= 1000 else f"{x:.4g}"


def cell(ours, paper, tol):
    if ours is None or paper is None:
        return "-", None
    d = ours / paper - 1
    mark = "" if abs(d) <= tol else " **x**"
    return f"{num(ours)} / {num(paper)} ({d:+.1%}){mark}", abs(d) <= tol


def direction(ours, ours_u, paper, paper_u):
    """Whether skewed WA moves the same way from uniform as in the paper."""
    sign = lambda x: "up" if x > 0 else "down" if x < 0 else "equal"
    o, p = sign(ours - ours_u), sign(round(paper - paper_u, 2))
    return f"{ours:.2f} {o} / {paper:.2f} {p}" + ("" if o == p else " **x**"), o == p


STEP_S = 150.0


def first_seq_write(run):
    for st in run["steps"]:
        if st["name"] == "seq_write" and st.get("stage") == "before" and st.get("pass") == 1:
            return st
    return None


def seq_write_row(pname, run, p):
    """The first seq_write step: its free-pool phase (`steps[].free_pool`), its 60-99%
    value, and how long the paper's drive's free pool would last."""
    st = first_seq_write(run)
    if st is None:
        return None
    seq = p["seq_write_mb_s"]
    pool = st.get("free_pool")
    free = (f"{pool['mb_s']:.0f} / {seq:.0f} ({(pool['mb_s'] / seq - 1) * 100:+.1f}%) | "
            f"{pool['share'] * 100:.0f}%" if pool else f"- / {seq:.0f} | -")
    op, cap = p.get("op_estimate_pct"), p.get("capacity_gb")
    predicted = f"{op / 100 * cap * 1e3 / (seq * STEP_S) * 100:.0f}%" if op and cap else "-"
    return f"| {pname} | {st['elapsed_s']:.2f} | {free} | {st['value']['mb_s']:.0f} | {predicted} |"


def main():
    root = sys.argv[1]
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "crates", "report", "data", "ssd-iq-paper.toml"), "rb") as f:
        paper = {d["name"]: d for d in tomllib.load(f)["drive"]}
    rows, wa_rows, lat_rows, seq_rows, met, total = [], [], [], [], 0, 0
    for key, pname in PROFILES:
        path = os.path.join(root, key, "run.json")
        if not os.path.exists(path):
            continue
        with open(path) as f:
            run = json.load(f)
        p = paper[pname]
        kiops = {w: fig(run, f"rand_write_kiops.{w}") for w in ("uniform", "twozone", "zipf")}
        cells = [
            cell(before(run, "seq_read"), p["seq_read_mb_s"], 0.10),
            cell(fig(run, "seq_write_free_pool_mb_s"), p["seq_write_mb_s"], 0.10),
            cell(fig(run, "rand_read_kiops"), p["rand_read_kiops"], 0.10),
            cell(kiops["uniform"], p["rand_write_kiops"]["unif"], 0.10),
            cell(kiops["twozone"], p["rand_write_kiops"]["twoz"], 0.10),
            cell(kiops["zipf"], p["rand_write_kiops"]["zipf"], 0.10),
        ]
        wa = {w: wa_as_paper(run, p, w) for w in ("uniform", "twozone", "zipf")}
        wa_cells = [
            cell(wa["uniform"], p["wa"]["unif"], 0.10),
            cell(wa["twozone"], p["wa"]["twoz"], 0.10),
            cell(wa["zipf"], p["wa"]["zipf"], 0.10),
            direction(wa["twozone"], wa["uniform"], p["wa"]["twoz"], p["wa"]["unif"]),
            direction(wa["zipf"], wa["uniform"], p["wa"]["zipf"], p["wa"]["unif"]),
            # §4.6: OP estimated as 1 / (2 WA) from the uniform WA, as the paper's row.
            cell(100 / (2 * wa["uniform"]), p["op_estimate_pct"], 0.10),
        ]
        lat = []
        for kind, fk, pk in [("read_avg", "read_lat_load_avg_us", ("read_lat_us", "avg")),
                             ("read_p999", "read_lat_load_p99.9_us", ("read_lat_us", "p999")),
                             ("write_avg", "write_lat_load_avg_us", ("write_lat_us", "avg")),
                             ("write_p999", "write_lat_load_p99.9_us", ("write_lat_us", "p999"))]:
            o, pv = fig(run, fk), p[pk[0]][pk[1]]
            same = colour(kind, o) == colour(kind, pv)
            lat.append((f"{o:.0f} {colour(kind, o)} / {pv:.0f} {colour(kind, pv)}"
                        + ("" if same else " **x**"), same))
        for _, ok in cells + wa_cells + lat:
            if ok is not None:
                total += 1
                met += ok
        step = fig(run, "seq_write_mb_s")
        init = precondition(run)
        rows.append(f"| {pname} | " + " | ".join(c for c, _ in cells)
                    + (f" | {step:.0f}" if step else " | -")
                    + (f" | {init:.0f} |" if init else " | - |"))
        wa_rows.append(f"| {pname} | " + " | ".join(c for c, _ in wa_cells) + " |")
        lat_rows.append(f"| {pname} | " + " | ".join(c for c, _ in lat) + " |")
        seq_rows.append(seq_write_row(pname, run, p))
    print("| drive | seq. read MB/s | seq. write MB/s (free pool) | rand. read kIOPS "
          "| rand. write kIOPS unif | TwoZ | Zipf "
          "| seq_write step, 60-99% MB/s | sequential init MB/s |")
    print("|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    print()
    print("| drive | WA unif (OCP drives: measured; others: implied) | WA TwoZ | WA Zipf "
          "| TwoZ vs unif | Zipf vs unif | estimated OP % |")
    print("|---|---|---|---|---|---|---|")
    print("\n".join(wa_rows))
    print()
    print("| drive | read avg µs | read P99.9 µs | write avg µs | write P99.9 µs |")
    print("|---|---|---|---|---|")
    print("\n".join(lat_rows))
    print()
    print(f"Cells within their goal: {met} of {total} (throughput, WA and estimated OP within 10%, "
          f"skew direction as the paper's, latency in the paper's colour class; **x** marks a miss).")
    print()
    print("| drive | step (virtual s) | free-pool phase MB/s / paper's seq. write | its share of the step | "
          "60-99% of the step MB/s | the paper's drive: its free pool's share of 150 s |")
    print("|---|---|---|---|---|---|")
    print("\n".join(r for r in seq_rows if r))


if __name__ == "__main__":
    main()
