#!/usr/bin/env bash
# A real Slurm run of a dpx job array (called by `scripts/test.sh --slurm`; needs root):
#   1. starts a single-node cluster on this machine: munged, slurmctld and slurmd with a
#      generated slurm.conf, all in a temporary directory on their own ports;
#   2. writes the job-array script with `dpx emit-slurm` (3 shards) and submits it with sbatch;
#   3. kills one array task with SIGKILL (scancel) once it has finished a block but not its
#      shard, then resubmits that task (sbatch --array=<id>, as the script's header says);
#   4. collects and checks that tidy.csv is byte-identical to a single-process `dpx run`, and
#      that the resubmitted task reused the blocks the killed one had finished.
# Usage: scripts/slurm_test.sh DPX_EXECUTABLE. Prints the wall time; exits 1 on any failure.
set -euo pipefail
dpx=$(readlink -f "${1:?usage: scripts/slurm_test.sh DPX_EXECUTABLE}")
[ "$(id -u)" -eq 0 ] || { echo "slurm_test: needs root (slurmd runs jobs as root here)" >&2; exit 1; }
start=$(date +%s)
t=$(mktemp -d /tmp/dpx-slurm.XXXXXX)
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  if [ "${keep:-0}" = 1 ]; then echo "slurm_test: logs kept in $t" >&2; else rm -rf "$t"; fi
}
trap cleanup EXIT
fail() { keep=1; echo "slurm_test: FAILED: $*" >&2; exit 1; }
host=$(hostname -s)
cpus=$(nproc)

# --- munge: its own key, socket and files ----------------------------------------------------
mkdir -p "$t/munge" "$t/state" "$t/spool" "$t/work"
dd if=/dev/urandom of="$t/munge/munge.key" bs=1024 count=1 status=none
chmod 0400 "$t/munge/munge.key"
chmod 0700 "$t/munge"
munged --force --foreground --key-file="$t/munge/munge.key" --socket="$t/munge/munge.sock" \
  --pid-file="$t/munge/munged.pid" --log-file="$t/munge/munged.log" \
  --seed-file="$t/munge/munged.seed" > "$t/munge/munged.out" 2>&1 &
pids+=($!)

# --- slurm.conf: one node (this machine), one partition, no accounting, no cgroups -----------
export SLURM_CONF="$t/slurm.conf"
cat > "$SLURM_CONF" <<EOF
ClusterName=dpxtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$t/munge/munge.sock
CredType=cred/munge
StateSaveLocation=$t/state
SlurmdSpoolDir=$t/spool
SlurmctldPidFile=$t/slurmctld.pid
SlurmdPidFile=$t/slurmd.pid
SlurmctldLogFile=$t/slurmctld.log
SlurmdLogFile=$t/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
SchedulerType=sched/backfill
SlurmdParameters=config_overrides
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=dpx Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
for _ in $(seq 50); do [ -S "$t/munge/munge.sock" ] && break; sleep 0.1; done
slurmctld -D -i -f "$SLURM_CONF" > "$t/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" > "$t/slurmd.out" 2>&1 &
pids+=($!)
ready=0
for _ in $(seq 150); do
  if sinfo -h -o '%t' 2>/dev/null | grep -qE '^(idle|mix|alloc)'; then ready=1; break; fi
  sleep 0.2
done
[ "$ready" = 1 ] || fail "the node did not come up (see $t/slurmctld.log, $t/slurmd.log)"
echo "slurm_test: cluster up after $(($(date +%s) - start)) s ($(sinfo -h -o '%N %c CPUs %t'))" >&2

# --- the experiment: 4 cells x 40 replications in blocks of 5 = 32 blocks of 5 x 40 ms -------
cat > "$t/work/demo.toml" <<'EOF'
[experiment]
name = "slurm_demo"
description = "synthetic power law, 40 ms per replication (Slurm test)"
driver = "synthetic_power_law"
base_seed = 17
replications = 40
replication_block = 5

[grid]
n = [10, 20, 40, 80]

[fixed]
work_us = 40000
EOF
cd "$t/work"
"$dpx" run demo.toml --threads 2 --out "$t/work/single" --quiet --no-figures \
  || fail "single-process run"
"$dpx" emit-slurm demo.toml --shards 3 --results "$t/work/results" --out "$t/work/job.sh" \
  || fail "emit-slurm"
jid=$(sbatch --parsable "$t/work/job.sh") || fail "sbatch"
jid=${jid%%;*}
echo "slurm_test: submitted array job $jid" >&2

# Kill task 1 once it has finished at least one block but not its whole shard.
victim=1
done_blocks() {
  "$dpx" status demo.toml --out "$t/work/results" --shards 3 --json 2>/dev/null |
    python3 -c "import json,sys; s=json.load(sys.stdin)['shards'][$victim]; print(s['blocks_done'], s['blocks'])"
}
killed=0
for _ in $(seq 600); do
  read -r d n < <(done_blocks || echo "0 1")
  if [ "$d" -ge 1 ] && [ "$d" -lt "$n" ]; then
    scancel --signal=KILL "${jid}_${victim}" && killed=1
    break
  fi
  [ "$d" -ge "$n" ] && break
  sleep 0.05
done
[ "$killed" = 1 ] || fail "task $victim finished before it could be killed (make the demo slower)"
echo "slurm_test: sent SIGKILL to task ${jid}_${victim} when $d of its $n blocks were done" >&2
wait_jobs() {
  for _ in $(seq 1200); do
    [ -z "$(squeue -h -j "$1" 2>/dev/null)" ] && return 0
    sleep 0.1
  done
  fail "job $1 did not finish"
}
wait_jobs "$jid"
read -r saved n < <(done_blocks)
[ "$saved" -lt "$n" ] || fail "the killed task's shard is complete ($saved/$n)"
[ "$saved" -ge "$d" ] || fail "blocks finished before the kill were lost ($saved < $d)"

# Resubmit the killed task, as the script's header says, and wait for it.
rid=$(sbatch --parsable --array="$victim" "$t/work/job.sh") || fail "resubmission"
rid=${rid%%;*}
wait_jobs "$rid"
manifest="$t/work/results/shards/${victim}-of-3/manifest.json"
read -r cached computed status < <(python3 -c "import json; m=json.load(open('$manifest')); c=m['counts']; print(c['cached'], c['computed'], m['status'])")
[ "$status" = completed ] || fail "resubmitted task status $status"
[ "$cached" = "$saved" ] || fail "resubmitted task reused $cached blocks, $saved were on disk"
[ "$((cached + computed))" = "$n" ] || fail "resubmitted task did $cached + $computed of $n blocks"

# Collect under Slurm (what `job.sh --submit` chains with afterok) and compare.
cid=$(sbatch --parsable --wrap "bash $t/work/job.sh --collect") || fail "collect job"
wait_jobs "$cid"
cmp -s "$t/work/results/tidy.csv" "$t/work/single/tidy.csv" ||
  fail "collected tidy.csv differs from the single-process run"
echo "slurm_test: OK: 3-task array, task $victim killed with $saved of $n blocks on disk and resubmitted" \
  "(reused $cached, computed $computed); collected tidy.csv byte-identical to the" \
  "single-process run; $(($(date +%s) - start)) s" >&2
