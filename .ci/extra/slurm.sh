#!/usr/bin/env bash
# A single-node Slurm cluster on this machine (Debian's slurm-wlm and munge; munged, slurmctld
# and slurmd started here with a configuration generated in a temporary directory), then:
# `ssdiq sim ... --slurm DIR --slurm-tasks 4` writes a job array and a dependent merge job,
# submit.sh submits them, and the merged JSON/CSV/HTML must equal the same sweep run on one
# machine (JSON apart from each run's "seconds"). Every wait is bounded; on failure the
# daemons' logs are printed. Needs root (daemons, munge key ownership).
set -euo pipefail
cd "$(dirname "$0")/../.."

fail() {
    echo "slurm CI: $*" >&2
    for f in "${T:-/nonexistent}"/*.log "${T:-/nonexistent}"/sweep/logs/*; do
        [ -f "$f" ] && { echo "--- $f" >&2; tail -n 40 "$f" >&2; }
    done
    exit 1
}

if [ "$(id -u)" != 0 ]; then
    echo "slurm CI: skipped (needs root to run munged, slurmctld and slurmd)"
    exit 0
fi
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null \
    || ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null
fi
cargo build --release -q -p ssdiq
bin=$(pwd)/target/release/ssdiq

T=$(mktemp -d /tmp/ssdiq-slurm.XXXXXX)
chmod 755 "$T"
pids=()
cleanup() {
    # Only the daemons this script started, by their pids.
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${pids[@]}"; do
        for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$p" 2>/dev/null || true
    done
    rm -rf "$T"
}
trap cleanup EXIT

# wait_for SECONDS WHAT COMMAND...: polls COMMAND every half second.
wait_for() {
    local limit=$1 what=$2
    shift 2
    for _ in $(seq $((limit * 2))); do
        if "$@" >/dev/null 2>&1; then return 0; fi
        sleep 0.5
    done
    fail "timed out after ${limit}s waiting for $what"
}

# munge with its own key and socket, so a system munged (if any) is left alone.
mkdir -p "$T/munge"
dd if=/dev/urandom of="$T/munge/munge.key" bs=1024 count=1 status=none
chown -R munge:munge "$T/munge"
chmod 700 "$T/munge"
chmod 400 "$T/munge/munge.key"
sock=$T/munge/munge.socket
runuser -u munge -- munged --foreground --force --socket="$sock" \
    --key-file="$T/munge/munge.key" --pid-file="$T/munge/munged.pid" \
    --log-file="$T/munge/munged.log" --seed-file="$T/munge/munged.seed" \
    >"$T/munged.log" 2>&1 &
pids+=($!)
wait_for 15 "munged" sh -c "munge -n -S '$sock' | unmunge -S '$sock'"

# Slurm: one node (this machine, as slurmd -C describes it), one partition, no cgroups
# (proctrack/linuxproc, task/none) so it runs in a VM or container as root.
host=$(hostname -s)
node=$(slurmd -C | head -1)
[ "${node%% *}" = "NodeName=$host" ] || fail "slurmd -C describes \"${node%% *}\", not NodeName=$host"
port=$((20000 + RANDOM % 20000))
mkdir -p "$T/state" "$T/spool"
cat >"$T/slurm.conf" <<EOF
ClusterName=ssdiqci
SlurmctldHost=$host
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
SlurmdTimeout=60
MinJobAge=600
$node State=UNKNOWN
PartitionName=ci Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$T/slurm.conf
slurmctld -D -i -f "$SLURM_CONF" >"$T/slurmctld.log" 2>&1 &
pids+=($!)
wait_for 30 "slurmctld to answer" scontrol ping
slurmd -D -f "$SLURM_CONF" >"$T/slurmd.log" 2>&1 &
pids+=($!)
wait_for 60 "node $host to be idle" sh -c "sinfo -h -n '$host' -o %T | grep -qx idle"
echo "slurm CI: single-node cluster up (node $host)"

# The sweep: 2 policies x 2 patterns x 3 OPs = 12 points in a 4-task array.
sweep=(sim --capacity 32MiB --block 64KiB --writes 2x --gc greedy,2r-fifo
       --pattern uniform,zones:80@20,20@80 --op 7%,15%,28%)
"$bin" "${sweep[@]}" --slurm "$T/sweep" --slurm-tasks 4 \
    --json "$T/merged.json" --csv "$T/merged.csv" --html "$T/merged.html" >/dev/null
out=$(SSDIQ=$bin bash "$T/sweep/submit.sh") || fail "submit.sh failed: $out"
echo "slurm CI: $out"
array=$(sed -n 's/^submitted job array \([0-9]*\) .*/\1/p' <<<"$out")
[ -n "$array" ] || fail "no job array id in: $out"
wait_for 150 "the array and the merge to finish" sh -c '[ -z "$(squeue -h)" ]'

# Every task ran and succeeded, then the merge.
states=$(scontrol show job "$array" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | sort | uniq -c)
[ "$(ls "$T"/sweep/shards/*.json 2>/dev/null | wc -l)" = 4 ] || fail "expected 4 shard files; job states: $states"
[ -f "$T/merged.json" ] || fail "the merge job wrote no merged.json; job states: $states"

"$bin" "${sweep[@]}" --quiet --json "$T/one.json" --csv "$T/one.csv" --html "$T/one.html" >/dev/null
cmp -s "$T/merged.csv" "$T/one.csv" || fail "merged CSV differs from the single-machine sweep"
cmp -s "$T/merged.html" "$T/one.html" || fail "merged HTML differs from the single-machine sweep"
python3 - "$T/merged.json" "$T/one.json" <<'EOF' || fail "merged JSON differs from the single-machine sweep"
import json, sys
def load(p):
    d = json.load(open(p))
    for r in d["runs"]:
        r.pop("seconds")
    return d
a, b = load(sys.argv[1]), load(sys.argv[2])
assert a == b, "documents differ"
assert len(a["runs"]) == 12, len(a["runs"])
EOF
echo "slurm CI: ok (4-task array + dependent merge = single-machine sweep, 12 runs)"
