#!/usr/bin/env python3
"""Rings of files that import each other within a crate (issue 32: there should be none).

Reads every crates/*/src/**/*.rs (test modules and comments left out), takes each
`crate::...` and `super::...` path as an edge to the file that defines it, and prints every
strongly connected component of more than one file with its edges. Exit status 1 if any.
    bench/file-rings.py
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "crates")


def module_file(crate, parts):
    """The file defining the longest prefix of module path `parts` in `crate`."""
    base = os.path.join(ROOT, crate, "src")
    for k in range(len(parts), 0, -1):
        p = os.path.join(base, *parts[:k])
        for cand in (p + ".rs", os.path.join(p, "mod.rs")):
            if os.path.exists(cand):
                return cand
    return None


def module_path(crate, f):
    rel = os.path.relpath(f, os.path.join(ROOT, crate, "src"))[:-3].split(os.sep)
    if rel[-1] == "mod":
        rel = rel[:-1]
    return [] if rel in (["lib"], ["main"]) else rel


def edges_of(crate, f):
    text = open(f).read()
    cut = text.find("#[cfg(test)]")
    if cut >= 0:
        text = text[:cut]
    text = "\n".join(l for l in text.split("\n") if not l.strip().startswith("//"))
    me = module_path(crate, f)
    out = set()
    for m in re.finditer(r"\b(crate|super)((?:::\w+)+)(::\{([^}]*)\})?", text):
        path = [x for x in m.group(2).split("::") if x]
        paths = [path]
        if m.group(4):
            paths += [path + [g.strip().split("::")[0]] for g in m.group(4).split(",")
                      if g.strip() and g.strip() != "self"]
        for p in paths:
            full = p if m.group(1) == "crate" else me[:-1] + p
            t = module_file(crate, full)
            if t and t != f:
                out.add(t)
    return out


def main():
    edges = {}
    for crate in sorted(os.listdir(ROOT)):
        for dp, _, fs in os.walk(os.path.join(ROOT, crate, "src")):
            for fn in fs:
                if fn.endswith(".rs"):
                    f = os.path.join(dp, fn)
                    edges[f] = edges_of(crate, f)
    # Tarjan's strongly connected components.
    sys.setrecursionlimit(100000)
    index, low, stack, on, rings, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                rings.append(sorted(comp))

    for v in list(edges):
        if v not in index:
            visit(v)
    rel = lambda p: os.path.relpath(p, os.path.join(ROOT, ".."))
    for comp in rings:
        print(f"ring of {len(comp)} files:")
        for a in comp:
            for b in sorted(edges[a]):
                if b in comp:
                    print(f"  {rel(a)} -> {rel(b)}")
    print(f"{len(rings)} rings among {len(edges)} files")
    return 1 if rings else 0


if __name__ == "__main__":
    sys.exit(main())
