#!/usr/bin/env bash
# Issue 53 on FEMU's black-box SSD, two boots. At FEMU_OP: `ssdiq run` and `study gc-unit` in
# the guest (bench/femu/guest/twin.sh), then workloads the fit never saw, each run steadily the
# way the fit's predictions run theirs (fill, two drive writes of 4 KiB random writes of the
# pattern at QD 32, four more measured). At OP2: `ssdiq run` and uniform writes again. On the
# host: `ssdiq fit` from the first boot's run and gc-unit study, and the same workloads on the
# twin (`ssdiq fit --check --steady`; at OP2 the twin's physical space scaled by FEMU's
# (1 + OP2) / (1 + OP)). Prints three tables: uniform WA through `ssdiq run` and the steady
# rounds beside the greedy model (bench/femu/model.sh) at both OPs; the GC unit found beside
# FEMU's line; each unseen workload's WAF and write IOPS, FEMU beside the twin. Keeps
# everything in OUT (default target/femu-twin): the guests' logs, run.json and gc-unit.json
# (op2/ for the second boot), twin.toml, fit.txt and check.txt.
# REUSE=1 keeps the guests' logs OUT already holds and runs only the host's part (the fit, the
# twin's workloads and the tables), e.g. after a change to the fit.
# Usage: FEMU_SRC=femu-<commit>.tar.xz sudo bench/femu/twin.sh [OUT]
#        (FEMU_MB=256, FEMU_OP=0.25, OP2=0.5 or none, RUN_ARGS=--quick, UNSEEN="uniform twozone:90/10
#        zipf:0.9 readonly:0.5", TIMEOUT=7200 per boot)
set -euo pipefail
cd "$(dirname "$0")/../.."
export FEMU_MB=${FEMU_MB:-256} FEMU_OP=${FEMU_OP:-0.25}
export RUN_ARGS=${RUN_ARGS:---quick}
export UNSEEN=${UNSEEN:-uniform twozone:90/10 zipf:0.9 readonly:0.5}
OP2=${OP2:-0.5}
out=${1:-target/femu-twin}
mkdir -p "$out"
cargo build --release -q -p ssdiq
ssdiq=target/release/ssdiq

take() { # LOG DIR: each file the guest printed between BEGIN-FILE and END-FILE, into DIR
    python3 bench/femu/take-files.py "$1" "$2"
}
boot() { # LOG [VAR=VALUE...]: the guest script on FEMU
    local log=$1
    shift
    if ! env "$@" FEMU_GUEST_VARS="RUN_ARGS UNSEEN" TIMEOUT="${TIMEOUT:-7200}" \
        bash bench/femu/run-guest.sh bench/femu/guest/twin.sh > "$log" 2>&1; then
        tail -20 "$log" >&2
        echo "femu twin: the guest failed (its log: $log)" >&2
        exit 1
    fi
}

if [ "${REUSE:-}" = 1 ] && [ -f "$out/guest.log" ] && { [ "$OP2" = none ] || [ -f "$out/op2/guest.log" ]; }; then
    echo "femu twin: reusing the guests' logs in $out" >&2
else
    echo "femu twin: ssdiq run $RUN_ARGS, study gc-unit and $UNSEEN on FEMU (OP $FEMU_OP)" >&2
    boot "$out/guest.log"
    if [ "$OP2" != none ]; then
        echo "femu twin: ssdiq run $RUN_ARGS and uniform at OP $OP2" >&2
        mkdir -p "$out/op2"
        boot "$out/op2/guest.log" UNSEEN=uniform FEMU_OP="$OP2"
    fi
fi
take "$out/guest.log" "$out"
[ "$OP2" = none ] || take "$out/op2/guest.log" "$out/op2"

echo "femu twin: fitting" >&2
rm -f "$out/twin.toml" "$out/twin-op2.toml" "$out/fit.json"
"$ssdiq" fit "$out/run.json" "$out/gc-unit.json" --capacity "${FEMU_MB}MiB" \
    --out "$out/twin.toml" > "$out/fit.txt"
# The second OP on the twin: its physical space times FEMU's (1 + OP2) / (1 + OP).
[ "$OP2" = none ] || python3 - "$out/twin.toml" "$out/twin-op2.toml" "$FEMU_OP" "$OP2" <<'PY'
import re, sys
src, dst, op1, op2 = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
text = open(src).read()
m = re.search(r'(?m)^op = ([0-9.]+)', text)
op = (1 + float(m.group(1))) * (1 + op2) / (1 + op1) - 1
open(dst, 'w').write(text[:m.start()] + f'op = {op:.4f}' + text[m.end():])
PY
"$ssdiq" fit --check "$out/twin.toml" "$out/run.json" "$out/gc-unit.json" --no-range \
    --steady "$(echo "$UNSEEN" | tr ' ' ',')" > "$out/check.txt"
model2=0
if [ "$OP2" != none ]; then
    "$ssdiq" fit --check "$out/twin-op2.toml" "$out/run.json" "$out/gc-unit.json" --no-range \
        --steady uniform > "$out/check-op2.txt"
    read -r model2 _ < <(bash bench/femu/model.sh "$OP2")
fi
read -r model1 _ < <(bash bench/femu/model.sh "$FEMU_OP")

python3 - "$out" "$FEMU_OP" "$OP2" "$model1" "$model2" <<'PY'
import json, re, sys
out, op1, op2, model1, model2 = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5])
def femu(log):
    t = open(log, 'rb').read().decode('latin-1')
    return {m[0]: (float(m[1]), float(m[2])) for m in re.findall(r'unseen (\S+) WAF ([0-9.]+) IOPS ([0-9.]+)', t)}
def twin(txt):
    t = open(txt).read()
    return {m[0]: (float(m[1]), float(m[2]) * 1000) for m in re.findall(r'twin, steady (\S+): WA ([0-9.]+), write ([0-9.]+) kIOPS', t)}
def run_wa(path):
    try:
        steps = json.load(open(path))['steps']
    except (OSError, KeyError, ValueError):
        return None
    return next((s.get('waf_measured') for s in steps if s['name'] == 'rand_write_uniform'), None)
def pct(a, b):
    return f'{100 * (a - b) / b:+.1f}%' if a is not None and b else '-'
def num(v, f='.3f'):
    return format(v, f) if v is not None else '-'
print('Uniform random writes on FEMU beside the greedy model:')
print('| FEMU OP | `ssdiq run` measured WA (uniform step) | steady rounds (fill + 2 + 4 measured drive writes) | model | run vs model | steady vs model |')
print('|---:|---:|---:|---:|---:|---:|')
ops = [(op1, out, model1)] + ([(op2, f'{out}/op2', model2)] if op2 != 'none' else [])
for op, d, model in ops:
    r = run_wa(f'{d}/run.json')
    u = femu(f'{d}/guest.log').get('uniform')
    u = u[0] if u else None
    print(f'| {op} | {num(r)} | {num(u)} | {model:.3f} | {pct(r, model)} | {pct(u, model)} |')
try:
    unit = json.load(open(f'{out}/gc-unit.json'))
    found = re.search(r'"gc_unit_bytes": ?([0-9]+)', json.dumps(unit))
    print(f"\n`study gc-unit`: found {found.group(1) if found else 'none'} bytes")
except OSError:
    print('\n`study gc-unit`: no result')
print('\nWorkloads the fit did not see, FEMU beside its twin:')
rows = [(p, op1, f, twin(f'{out}/check.txt').get(p)) for p, f in femu(f'{out}/guest.log').items()]
if op2 != 'none':
    rows += [('uniform', op2, femu(f'{out}/op2/guest.log').get('uniform'), twin(f'{out}/check-op2.txt').get('uniform'))]
print('| workload | FEMU OP | FEMU WAF | twin WAF | WAF diff | FEMU write IOPS | twin write IOPS | IOPS diff |')
print('|---|---:|---:|---:|---:|---:|---:|---:|')
for p, op, f, t in rows:
    if not f or not t:
        print(f'| {p} | {op} | {num(f and f[0])} | {num(t and t[0])} | - | - | - | - |')
        continue
    print(f'| {p} | {op} | {f[0]:.3f} | {t[0]:.3f} | {pct(t[0], f[0])} | {f[1]:.0f} | {t[1]:.0f} | {pct(t[1], f[1])} |')
PY
