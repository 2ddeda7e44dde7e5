#!/usr/bin/env python3
"""The protocol's seq_write step in two phases: while the drive programs host data only (its
free pool after the sanitize and the sequential init), and after, when GC copies.

usage: bench/seq-write-phases.py DIR   (DIR/<profile>/run.json of bench/drives.sh's runs)

For the first seq_write step of each run (pass 1, before the workload, right after the init)
it prints: the step's length; its free-pool phase (`steps[].free_pool`: the leading rounds
with WAF <= 1.5, what the flash programmed per second over them, and their share of the
step); the protocol's value of the step (60-99% of it); and, from the paper's own figures,
the share of its 150 s step the same free pool would last on the real drive: estimated OP x
capacity / (sequential write x 150 s) (SSD-iq Tables 2 and 3).
"""
import json
import os
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
STEP_S = 150.0


def first_step(run):
    for st in run["steps"]:
        if st["name"] == "seq_write" and st.get("stage") == "before" and st.get("pass") == 1:
            return st
    return None


def main():
    root = sys.argv[1]
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "crates", "report", "data", "ssd-iq-paper.toml"), "rb") as f:
        paper = {d["name"]: d for d in tomllib.load(f)["drive"]}
    print("| drive | step (virtual s) | free-pool phase MB/s / paper's seq. write | its share of the step | "
          "60-99% of the step MB/s | the paper's drive: its free pool's share of 150 s |")
    print("|---|---|---|---|---|---|")
    for key, name in PROFILES:
        path = os.path.join(root, key, "run.json")
        if not os.path.exists(path):
            continue
        with open(path) as f:
            st = first_step(json.load(f))
        if st is None:
            continue
        p = paper[name]
        seq = p["seq_write_mb_s"]
        pool = st.get("free_pool")
        free = (f"{pool['mb_s']:.0f} / {seq:.0f} ({(pool['mb_s'] / seq - 1) * 100:+.1f}%) | "
                f"{pool['share'] * 100:.0f}%" if pool else f"- / {seq:.0f} | -")
        op, cap = p.get("op_estimate_pct"), p.get("capacity_gb")
        predicted = f"{op / 100 * cap * 1e3 / (seq * STEP_S) * 100:.0f}%" if op and cap else "-"
        print(f"| {name} | {st['elapsed_s']:.2f} | {free} | {st['value']['mb_s']:.0f} | {predicted} |")


if __name__ == "__main__":
    main()
