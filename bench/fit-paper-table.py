#!/usr/bin/env python3
"""Each paper twin's fitted values beside the hand-set library profile's.

usage: bench/fit-paper-table.py DIR PROFILE...   (DIR/<profile>.fit.json of `ssdiq fit
--paper ssd-iq:<profile> --json`; the library's profiles in crates/emu/profiles/)

One row per drive: every parameter the fit set (fitted, not kept or input), as twin / library,
with the relative difference where both are numbers.
"""
import json
import os
import sys
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
PROFILES = os.path.join(HERE, "..", "crates", "emu", "profiles")


def library_value(profile, key):
    section, name = key.split(".", 1)
    return profile.get(section, {}).get(name)


def cell(twin, lib):
    try:
        t, l = float(str(twin).strip('"')), float(lib)
    except (TypeError, ValueError):
        return f"{twin} / {lib}"
    diff = f" ({(t / l - 1) * 100:+.1f}%)" if l else ""
    return f"{t:g} / {l:g}{diff}"


def main():
    root, names = sys.argv[1], sys.argv[2:]
    rows = []
    keys = []
    for n in names:
        with open(os.path.join(root, f"{n}.fit.json")) as f:
            fit = json.load(f)
        with open(os.path.join(PROFILES, f"{n}.toml"), "rb") as f:
            lib = tomllib.load(f)
        fitted = {p["key"]: p["value"] for p in fit["params"] if p["how"] == "fitted"}
        for k in fitted:
            if k not in keys:
                keys.append(k)
        rows.append((n, fitted, lib))
    print("| drive | " + " | ".join(keys) + " |")
    print("|---" * (len(keys) + 1) + "|")
    for n, fitted, lib in rows:
        cells = [
            cell(fitted[k], library_value(lib, k)) if k in fitted else "-" for k in keys
        ]
        print(f"| {n} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
