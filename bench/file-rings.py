#!/usr/bin/env python3
"""Rings of files that import each other within a crate (issue 32: there should be none).

Reads every crates/*/src/**/*.rs (unit-test modules and comment lines left out), takes each
path through `crate::` or `super::` (groups `{a, b::C}` and `super::super::` included) as an
edge to the file that defines it, and prints every strongly connected component of more than
one file with its edges. Exit status 1 if any ring.

Not counted: a parent module's own children (`mod x;` and `x::Y` inside the parent), since a
module and the files it declares are one module split over files.
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


def brace_items(text, i):
    """The comma-separated items of the `{...}` group opening at text[i], nested groups
    flattened into their paths (`a::{b, c}` gives `a::b`, `a::c`), and the index after it."""
    depth, start, items, j = 0, i + 1, [], i
    while j < len(text):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                break
        j += 1
    inner = text[i + 1:j]
    # Split at top-level commas.
    parts, d, cur = [], 0, ""
    for ch in inner:
        if ch == "{":
            d += 1
        elif ch == "}":
            d -= 1
        if ch == "," and d == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    for part in (x.strip() for x in parts):
        if not part or part == "self":
            continue
        if "{" in part:
            head = part[:part.index("{")].rstrip(":")
            for sub in brace_items(part, part.index("{"))[0]:
                items.append(head + "::" + sub)
        else:
            items.append(part.split(" as ")[0])
    return items, j + 1


def edges_of(crate, f):
    text = open(f).read()
    # Unit-test modules are the file's own; they do not make it depend on anything.
    cut = re.search(r"#\[cfg\(test\)\]\s*(pub(\([^)]*\))?\s+)?mod\s+\w+\s*\{", text)
    if cut:
        text = text[:cut.start()]
    text = "\n".join(l for l in text.split("\n") if not l.strip().startswith("//"))
    me = module_path(crate, f)
    # The module `super` names from this file (mod.rs files are their directory's module).
    out = set()
    for m in re.finditer(r"\b(crate|super)((?:::super)*)((?:::\w+)*)(::\{)?", text):
        head, supers = m.group(1), m.group(2).count("super")
        path = [x for x in m.group(3).split("::") if x]
        paths = [path]
        if m.group(4):
            items, _ = brace_items(text, m.end() - 1)
            paths = [path + [x for x in it.split("::") if x and x != "self"] for it in items]
        if head == "crate":
            base = []
        else:
            base = me[: len(me) - 1 - supers] if len(me) > supers else []
        for p in paths:
            t = module_file(crate, base + p)
            if t and t != f:
                out.add(t)
    return out


def main():
    if len(sys.argv) > 1:
        print(__doc__.strip())
        return 0 if sys.argv[1] in ("-h", "--help") else 2
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
