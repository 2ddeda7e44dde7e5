#!/usr/bin/env bash
# Trace parsing speed: records per second of CPU time (user + sys, one core: the parser is
# single-threaded) for each format (blkparse and ftrace-blk with five events per request,
# Q G I D C, as real traces have them: records/s counts requests, lines/s every event), measured with `ssdiq trace check` (which parses every
# line and nothing else) on generated traces of N records, next to `wc -l` on the same file
# as the baseline (a pass over the bytes that parses nothing).
#
# Usage: bench/trace-parse.sh [N]   (default 5000000 records per format)
# Needs: awk, gzip, /usr/bin/time. Writes its traces to a temporary directory (~1.5 GB).
set -euo pipefail
shopt -s inherit_errexit
cd "$(dirname "$0")/.."
n=${1:-5000000}
cargo build --release -q -p ssdiq
bin=target/release/ssdiq
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# gen FORMAT FILE: N records, 70% writes, 4-32 KiB, offsets over 4 GiB, 0.5 ms apart.
# (%.0f, not %d, for numbers beyond 2^31: some awks clamp %d there.)
gen() {
    awk -v n="$n" -v f="$1" 'BEGIN {
        srand(7);
        for (i = 0; i < n; i++) {
            page = int(rand() * 1048576); w = (rand() < 0.7); len = 4096 * (1 + int(rand() * 8));
            us = i * 500;
            if (f == "msr")
                printf "1281663%011.0f,hm,%d,%s,%.0f,%d,%d\n", i * 5000, i % 2, w ? "Write" : "Read", page * 4096, len, 1000 + i % 997;
            else if (f == "alibaba")
                printf "%d,%s,%.0f,%d,%.0f\n", i % 100, w ? "W" : "R", page * 4096, len, 1577808000000000 + us;
            else if (f == "spc")
                printf "%d,%d,%d,%s,%d.%06d\n", i % 3, page * 8, len, w ? "w" : "r", us / 1000000, us % 1000000;
            else if (f == "fiu")
                printf "%.0f %d nfsd %d %d %s 8 %d 8b5b6e2f9a9e3e6c0123456789abcdef\n", 89966527251845 + us * 1000, 3000 + i % 50, page * 8, len / 512, w ? "W" : "R", i % 2 * 16;
            else if (f == "blkparse")
                # The queue, get-request, insert, issue and completion events of a request, as
                # blkparse prints them: five lines per record.
                for (e = 0; e < 5; e++)
                    printf "  8,0    %d %8d %5d.%09d %5d  %s %3s %d + %d [fio]\n", i % 2, 5 * i + e + 1, us / 1000000, us % 1000000 * 1000 + e * 1000, 697, substr("QGIDC", e + 1, 1), w ? "WS" : "RS", page * 8, len / 512;
            else if (f == "ftrace-blk")
                for (e = 0; e < 5; e++)
                    printf "             fio-697     [00%d] d..1.  %d.%06d:   8,0    %s %3s %d + %d [fio]\n", i % 2, 100 + us / 1000000, us % 1000000 + e, substr("QGIDC", e + 1, 1), w ? "WS" : "RS", page * 8, len / 512;
        }
    }' >"$2"
}

# cpu CMD...: user+sys seconds of CMD.
cpu() {
    /usr/bin/time -f "%U %S" -o "$dir/time" "$@" >/dev/null
    awk '{ print $1 + $2 }' "$dir/time"
}

printf "%-12s %10s %10s %12s %13s %11s %12s\n" format records lines "parse cpu s" "M records/s" "M lines/s" "x wc -l cpu"
worst=""
for f in msr alibaba spc fiu blkparse ftrace-blk; do
    gen "$f" "$dir/t"
    cat "$dir/t" >/dev/null # into the page cache
    base=$(cpu wc -l "$dir/t")
    lines=$(wc -l <"$dir/t")
    best=""
    for _ in 1 2 3; do
        c=$(cpu "$bin" trace check "$dir/t" --format "$f")
        best=$(awk -v a="$c" -v b="$best" 'BEGIN { print (b == "" || a < b) ? a : b }')
    done
    rate=$(awk -v n="$n" -v c="$best" 'BEGIN { printf "%.2f", n / (c > 0 ? c : 0.001) / 1e6 }')
    ratio=$(awk -v c="$best" -v b="$base" 'BEGIN { printf "%.1f", c / (b > 0 ? b : 0.001) }')
    lrate=$(awk -v n="$lines" -v c="$best" 'BEGIN { printf "%.2f", n / (c > 0 ? c : 0.001) / 1e6 }')
    printf "%-12s %10d %10d %12.2f %13s %11s %12s\n" "$f" "$n" "$lines" "$best" "$rate" "$lrate" "$ratio"
    worst=$(awk -v a="$rate" -v b="$worst" 'BEGIN { print (b == "" || a < b) ? a : b }')
    worst_lines=$(awk -v a="$lrate" -v b="${worst_lines:-}" 'BEGIN { print (b == "" || a < b) ? a : b }')
    if [ "$f" = msr ]; then
        gzip -1 -c "$dir/t" >"$dir/t.gz"
        c=$(cpu "$bin" trace check "$dir/t.gz" --format msr)
        r=$(awk -v n="$n" -v c="$c" 'BEGIN { printf "%.2f", n / (c > 0 ? c : 0.001) / 1e6 }')
        printf "%-12s %10d %10d %12.2f %13s %11s %12s\n" "msr.gz" "$n" "$n" "$c" "$r" "$r" "-"
        rm -f "$dir/t.gz"
    fi
done
echo "slowest format: $worst M records (requests) and $worst_lines M lines per CPU second (target: >= 5)"
