#!/usr/bin/env bash
# slurm-single-node.sh start DIR | stop DIR
#
# Brings up (start) or down (stop) a Slurm cluster of one node, this
# machine, entirely inside DIR: its own munge daemon and key (socket
# DIR/munge.sock), slurmctld and slurmd on free ports, state, spool and
# logs under DIR. Nothing outside DIR is read or written, so it runs
# beside a real cluster. 'start' prints the line to export
# (SLURM_CONF=DIR/slurm.conf) once the node is idle; 'stop' kills the
# daemons. It needs root (slurmd starts job steps as their user) and the
# Debian packages slurmctld, slurmd, slurm-client and munge
# (scripts/install-tools.sh). The tests of 'mkeysim sweep --emit-slurm'
# use it; so can anyone trying the job array on a workstation.
set -euo pipefail

cmd=${1:-}
d=${2:-}
[ -n "$cmd" ] && [ -n "$d" ] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }

stop() {
  local pids=()
  for p in slurmd slurmctld munged; do
    if [ -f "$d/run/$p.pid" ]; then
      pid=$(cat "$d/run/$p.pid")
      kill "$pid" 2>/dev/null && pids+=("$pid")
    fi
  done
  # Wait until they are gone (they write their state as they stop), at
  # most 10 s, so that DIR can be removed after.
  for _ in $(seq 100); do
    alive=0
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && return 0
    sleep 0.1
  done
}

case $cmd in
stop) stop; exit 0 ;;
start) ;;
*) echo "usage: $0 start|stop DIR" >&2; exit 2 ;;
esac

[ "$(id -u)" -eq 0 ] || { echo "slurm-single-node: needs root (slurmd)" >&2; exit 1; }
for t in munged slurmctld slurmd sinfo sbatch; do
  command -v "$t" >/dev/null || { echo "slurm-single-node: $t not on PATH (scripts/install-tools.sh installs it)" >&2; exit 1; }
done
mkdir -p "$d"/{state,spool,log,run,munge}
d=$(cd "$d" && pwd)

# free TCP ports for slurmctld and slurmd
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
p1=$(port); p2=$(port)
while [ "$p2" = "$p1" ]; do p2=$(port); done

dd if=/dev/urandom bs=1 count=1024 of="$d/munge/munge.key" 2>/dev/null
chmod 400 "$d/munge/munge.key"
chmod 700 "$d/munge"
munged --force --socket="$d/munge.sock" --key-file="$d/munge/munge.key" --pid-file="$d/run/munged.pid" \
  --log-file="$d/log/munged.log" --seed-file="$d/munge/munge.seed"

host=$(hostname -s)
mem=$(awk '/MemTotal/ {print int($2/1024) - 256}' /proc/meminfo)
cat >"$d/slurm.conf" <<CONF
ClusterName=mkeysim
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$d/munge.sock
CredType=cred/munge
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/run/slurmctld.pid
SlurmdPidFile=$d/run/slurmd.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd.log
SlurmctldPort=$p1
SlurmdPort=$p2
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
NodeName=$host CPUs=$(nproc) RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$d/slurm.conf
trap 'stop' ERR
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 60); do
  if sinfo -h -o %T 2>/dev/null | grep -q idle; then
    echo "SLURM_CONF=$SLURM_CONF"
    exit 0
  fi
  sleep 0.5
done
echo "slurm-single-node: the node did not come up in 30 s (logs in $d/log)" >&2
stop
exit 1
