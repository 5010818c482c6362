#!/usr/bin/env bash
# A single-node Slurm cluster on this machine, for tests: Debian's munge,
# slurmctld and slurmd as root, with private ports, state and log folders
# under DIR, proctrack/linuxproc and task/none (no cgroups), stopped by PID.
#
#   slurm_cluster.sh start DIR   # prints the SLURM_CONF to export
#   slurm_cluster.sh stop DIR
set -euo pipefail
cmd=${1:?start|stop}
dir=$(realpath -m "${2:?DIR}")

stop() {
  for pf in "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munge/munged.pid"; do
    if [ -f "$pf" ]; then
      pid=$(cat "$pf")
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -9 "$pid" 2>/dev/null || true
      rm -f "$pf"
    fi
  done
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

case $cmd in
stop)
  stop
  ;;
start)
  for t in munged slurmctld slurmd sbatch sinfo; do
    command -v "$t" >/dev/null || [ -x "/usr/sbin/$t" ] || {
      echo "slurm_cluster: $t not found (scripts/setup-deps.sh slurm installs it)" >&2; exit 1; }
  done
  export PATH=$PATH:/usr/sbin
  stop
  rm -rf "$dir"
  mkdir -p "$dir/state" "$dir/spool" "$dir/log" "$dir/munge"
  chmod 700 "$dir/munge"
  dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 2>/dev/null
  chmod 400 "$dir/munge/munge.key"
  munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
    --pid-file="$dir/munge/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/seed"
  host=$(hostname -s)
  cpus=$(nproc)
  cat > "$dir/slurm.conf" <<CONF
ClusterName=gmmutest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
  export SLURM_CONF=$dir/slurm.conf
  slurmctld -f "$SLURM_CONF"
  slurmd -f "$SLURM_CONF"
  for _ in $(seq 100); do
    state=$(sinfo -h -o %T 2>/dev/null | head -1 || true)
    case $state in idle*|mix*|alloc*) echo "$SLURM_CONF"; exit 0 ;; esac
    sleep 0.3
  done
  echo "slurm_cluster: the node did not come up (state '${state:-none}'); logs in $dir/log" >&2
  tail -5 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" >&2 || true
  stop
  exit 1
  ;;
*)
  echo "usage: slurm_cluster.sh start|stop DIR" >&2
  exit 2
  ;;
esac
