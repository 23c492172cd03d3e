#!/usr/bin/env bash
# instr-bench.sh [BIN] [N]
#
# Instructions executed per access by `BIN run` (default bin/mkeysim) on
# the benchmarks' workloads (tb's BenchmarkHotWorkload, MissWorkload and
# DefaultWorkload, the last also traced to a VCD file), counted under
# cachegrind. Each figure is marginal: the count of a run of 2N accesses
# (default N 20000) minus that of a run of N, divided by N, so the
# start-up and the creation of the keys drop out; what stays is the
# clocked model, the workload's generation and the result line of each
# access (the golden check is off). A second table splits the same
# counts by the program's layer (scripts/cglayers): the kernel (engine
# and channels), the units, the top, the PCIe model, the testbench.
#
# Why: timings on this project's shared machines move by up to +-20 % from
# one minute to the next; these counts repeat to about 0.1 % (collector
# off, one Go thread, no preemption by signal: count-instructions.sh), so
# they say where the code stands, and what a change did to its work,
# whatever the machine's load. They do not see caches or the TLB: make
# bench's timings do.
#
# Needs valgrind: sudo apt-get install valgrind. Takes about a minute.
set -u -o pipefail

bin=${1:-bin/mkeysim}
n=${2:-20000}
[ -x "$bin" ] || { echo "instr-bench: $bin is not an executable (make build)" >&2; exit 2; }
case $n in '' | *[!0-9]*) echo "instr-bench: N must be a positive number of accesses, not '$n'" >&2; exit 2 ;; esac
[ "$n" -gt 0 ] || { echo "instr-bench: N must be a positive number of accesses, not '$n'" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The benchmarks' workloads (tb/bench_bench_test.go), as run flags.
cmds="--workload.umr-per-mille 0 --workload.inval-per-mille 0 --workload.query-per-mille 0 --workload.resume-per-mille 0"
hot="$cmds --workload.hot-per-mille 1000"
miss="$cmds --workload.keys 65536 --workload.hot-per-mille 0"

# count KEY ACCESSES FLAGS...: the instructions of one run; cachegrind's
# per-function counts go to $tmp/cg.KEY.ACCESSES.
count() {
	local key=$1 accesses=$2
	shift 2
	CG_OUT="$tmp/cg.$key.$accesses" bash "$(dirname "$0")/count-instructions.sh" "$bin" run --check=false --no-summary --quiet \
		--out "$tmp/out.jsonl" --workload.accesses "$accesses" "$@"
}

# per KEY NAME FLAGS...: prints the marginal instructions per access; sets
# last to it and adds the workload to the layers' table.
layers=()
per() {
	local key=$1 name=$2
	shift 2
	local a b
	a=$(count "$key" "$n" "$@") || exit 1
	b=$(count "$key" $((2 * n)) "$@") || exit 1
	last=$(((b - a) / n))
	printf '| %s | %d |\n' "$name" "$last"
	layers+=("$key=$tmp/cg.$key.$n,$tmp/cg.$key.$((2 * n))")
}

echo "instructions per access, marginal over $n accesses (scripts/instr-bench.sh, cachegrind)"
echo
echo "| workload | instructions per access |"
echo "|---|---|"
per hit-bound "hit-bound (HotWorkload)" $hot
per miss-bound "miss-bound (MissWorkload)" $miss
per default "default workload"
plain=$last
per traced "default workload, traced (--vcd)" --vcd "$tmp/trace.vcd"
awk -v a="$plain" -v b="$last" 'BEGIN { printf "\ntraced / untraced: %.2fx the instructions\n", b / a }'

# Where they go: the same counts split by the program's layers. The
# engine and the channels are what a faster kernel can save; the units,
# the top and the PCIe model are the modelled hardware's own work.
echo
echo "by layer (scripts/cglayers: the same marginal counts, by the function that executes them)"
echo
(cd "$(dirname "$0")/.." && go run ./scripts/cglayers -n "$n" "${layers[@]}")
