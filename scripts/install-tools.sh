#!/usr/bin/env bash
# Installs the Debian packages that make test needs beyond Go, once: a
# second run finds them and does nothing. As root it installs them; as
# another user it uses sudo when sudo works without a password prompt
# (sudo -n); otherwise it prints the one command to run and exits 1.
#
# What each package is for (plain 'go test ./...' needs none of them:
# the tests that use one skip, naming it, unless MKEYSIM_REQUIRE_TOOLS=1):
#   gtkwave      opens the produced waveforms headless and checks they load
#   xvfb         a display for gtkwave without a screen (xvfb-run)
#   iverilog     replays the golden vectors under Icarus Verilog
#   verilator    replays them under Verilator
#   imagemagick  takes the waveform picture of docs/ (import)
#   python3      runs the shared conformance comparator
#   gcc, g++, make
#                build the golden model as a C library (cgo), its C test
#                and VPI module, and Verilator's C++ models
#   jq           reads the vectors' manifests as JSON tools do
#   tshark       decodes the RoCEv2 and PCIe TLP captures a run writes
#   python3-scapy computes the RoCEv2 ICRC independently of the model
#   slurmctld, slurmd, slurm-client, munge
#                a Slurm cluster of one node, to run a sweep's job array
#                (mkeysim sweep --emit-slurm; scripts/slurm-single-node.sh)
set -euo pipefail

need=()
why=()
want() { # command package reason
  command -v "$1" >/dev/null 2>&1 && return 0
  need+=("$2")
  why+=("  $2: $3")
}
want gtkwave   gtkwave     "opens the produced waveforms and checks they load"
want xvfb-run  xvfb        "a display for gtkwave without a screen"
want iverilog  iverilog    "replays the golden vectors under Icarus Verilog"
want verilator verilator   "replays the golden vectors under Verilator"
want import    imagemagick "takes the waveform picture of docs/"
want python3   python3     "runs the shared conformance comparator"
want gcc       gcc         "builds the golden model as a C library (cgo) and the VPI module"
want g++       g++         "compiles Verilator's C++ models"
want make      make        "runs Verilator's generated build"
want jq        jq          "reads the vectors' manifests as JSON tools do (64-bit values exact)"
want tshark    tshark      "decodes the RoCEv2 and PCIe TLP captures a run writes"
# Debian's scapy is seen by Debian's python3 (a pyenv shim on PATH may not
# see it); MKEYSIM_SCAPY_PYTHON names another interpreter.
"${MKEYSIM_SCAPY_PYTHON:-/usr/bin/python3}" -c 'import scapy' >/dev/null 2>&1 || { need+=(python3-scapy); why+=("  python3-scapy: computes the RoCEv2 ICRC independently of the model"); }
want slurmctld slurmctld   "the controller of a one-node Slurm cluster (the job-array test)"
want slurmd    slurmd      "the node daemon of that cluster"
want sbatch    slurm-client "submits the job array"
want munged    munge       "authentication between the Slurm daemons"
[ ${#need[@]} -eq 0 ] && exit 0

line="apt-get install -y ${need[*]}"
explain() {
  echo "install-tools: make test needs these Debian packages:" >&2
  printf '%s\n' "${why[@]}" >&2
}
if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then
  sudo=(sudo -n)
else
  explain
  echo "install-tools: not root and sudo needs a password (or is missing): run, as root," >&2
  echo "  $line" >&2
  echo "then make test again. (Plain 'go test ./...' runs without them; the tests that need one skip.)" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
  explain
  echo "install-tools: no apt-get here: install the packages above with this system's package manager." >&2
  exit 1
fi
echo "install-tools: installing ${need[*]}" >&2
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${need[@]}" >/dev/null
