#!/usr/bin/env python3
"""Replays a block-device write stream (an strace of pwrite64 and BLKDISCARD calls) through
FEMU's black-box FTL rules as docs/femu.md describes them, to ask what FEMU's SSD WAF would be
for that stream with the write pointer starting at a given page of a line.

The rules: LINES lines of LINE_PAGES 4 KiB pages, filled in write order from one write pointer
that host writes and GC relocations share; a free line is taken when the pointer's line fills.
Before each write request, while the free lines are at most HIGH, the line with the fewest valid
pages is collected. After each request, if the free lines are at most LOW, that line is
collected if at least an eighth of it is invalid. A discard unmaps its pages (our patch 0002).

--offset N starts from a full device: every logical page written once in order, then N more,
so the stream's first write lands N pages into a line, as after an earlier run.
Prints the WAF over the whole stream and over its last LOGICAL pages of host writes (the
store's measured window of one device capacity)."""
import argparse
import re
import sys


def parse(path, page):
    reqs = []
    write = re.compile(r'pwrite64\(\d+, .*, (\d+), (\d+)\) = \d+$')
    discard = re.compile(r'ioctl\(\d+, BLKDISCARD, \[(\d+), (\d+)\]\) = 0$')
    for line in open(path):
        line = line.strip()
        m = write.search(line)
        if m:
            reqs.append(("w", int(m.group(2)) // page, int(m.group(1)) // page))
            continue
        m = discard.search(line)
        if m:
            reqs.append(("d", int(m.group(1)) // page, int(m.group(2)) // page))
    return reqs


class Ftl:
    def __init__(self, lines, line_pages, logical, low, high):
        self.lp, self.low, self.high = line_pages, low, high
        self.map = [-1] * logical
        self.rmap = [-1] * (lines * line_pages)
        self.valid = [0] * lines
        self.closed = set()
        self.free = list(range(1, lines))
        self.cur, self.wp = 0, 0
        self.media = 0

    def unmap(self, lpn):
        p = self.map[lpn]
        if p >= 0:
            self.rmap[p] = -1
            self.valid[p // self.lp] -= 1
            self.map[lpn] = -1

    def program(self, lpn):
        p = self.cur * self.lp + self.wp
        self.rmap[p], self.map[lpn] = lpn, p
        self.valid[self.cur] += 1
        self.media += 1
        self.wp += 1
        if self.wp == self.lp:
            self.closed.add(self.cur)
            self.cur, self.wp = self.free.pop(0), 0

    def collect(self, force):
        if not self.closed:
            return False
        v = min(self.closed, key=lambda l: (self.valid[l], l))
        if not force and self.lp - self.valid[v] < self.lp // 8:
            return False
        self.closed.remove(v)
        for p in range(v * self.lp, (v + 1) * self.lp):
            lpn = self.rmap[p]
            if lpn >= 0:
                self.unmap(lpn)
                self.program(lpn)
        self.free.append(v)
        return True

    def request(self, kind, lpn0, count):
        if kind == "d":
            for lpn in range(lpn0, lpn0 + count):
                self.unmap(lpn)
        else:
            while len(self.free) <= self.high and self.collect(True):
                pass
            for lpn in range(lpn0, lpn0 + count):
                self.unmap(lpn)
                self.program(lpn)
        if len(self.free) <= self.low:
            self.collect(False)


def main():
    a = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    a.add_argument("trace")
    a.add_argument("--lines", type=int, default=160)
    a.add_argument("--line-pages", type=int, default=512)
    a.add_argument("--logical-pages", type=int, default=65536)
    a.add_argument("--low", type=int, default=16)
    a.add_argument("--high", type=int, default=8)
    a.add_argument("--offset", type=int, default=None)
    o = a.parse_args()
    reqs = parse(o.trace, 4096)
    if not reqs:
        sys.exit(f"line_replay: no pwrite64 in {o.trace}")
    f = Ftl(o.lines, o.line_pages, o.logical_pages, o.low, o.high)
    if o.offset is not None:
        for lpn in list(range(o.logical_pages)) + list(range(o.offset)):
            f.request("w", lpn, 1)
        f.media = 0
    host, marks = 0, []
    for r in reqs:
        f.request(*r)
        if r[0] == "w":
            host += r[2]
            marks.append((host, f.media))
    start = next(m for m in marks if m[0] >= host - o.logical_pages)
    last = (f.media - start[1]) / max(1, host - start[0])
    print(f"{f.media / host:.3f} {last:.3f}")


main()
