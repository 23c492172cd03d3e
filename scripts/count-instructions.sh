#!/usr/bin/env bash
# count-instructions.sh BIN [ARGS...]
#
# Prints the number of instructions `BIN ARGS...` executes, counted under
# cachegrind with the collector off (GOGC=off), one thread running Go code
# (GOMAXPROCS=1) and no preemption by signal (asyncpreemptoff): then the
# count repeats to about 0.1 % (what is left is the runtime's monitor
# thread, whose work grows with the wall time: a short run on a busy
# machine may differ by a few tenths). The program's output is dropped; a
# run that fails (non-zero exit) is an error, its count measures nothing.
# RDTSCP is turned off (cpu.rdtscp=off): valgrind 3.19 cannot execute it,
# and the runtime reads the time stamp counter with it when one of its
# threads sleeps on a contended lock, which happens at random under
# valgrind's scheduler and killed one run in two of the default workload
# with SIGILL.
# instr-count.sh and instr-bench.sh count with it. With CG_OUT set,
# cachegrind's per-function counts are kept in that file (instr-bench.sh
# splits them by layer with scripts/cglayers). Needs valgrind.
set -u -o pipefail

if [ $# -lt 1 ]; then
	echo "usage: count-instructions.sh BIN [ARGS...]" >&2
	exit 2
fi
bin=$1
shift
[ -x "$bin" ] || { echo "count-instructions: $bin is not an executable (make build)" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "count-instructions: valgrind not found: sudo apt-get install valgrind" >&2; exit 2; }
err=$(mktemp)
trap 'rm -f "$err"' EXIT

GOGC=off GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off valgrind --tool=cachegrind --cache-sim=no \
	--cachegrind-out-file="${CG_OUT:-/dev/null}" "$bin" "$@" >/dev/null 2>"$err"
code=$?
n=$(sed -n 's/^==[0-9]*== I *refs: *\([0-9,]*\).*/\1/p' "$err" | tr -d ,)
if [ "$code" -ne 0 ] || [ -z "$n" ]; then
	echo "count-instructions: $bin $* failed (exit $code):" >&2
	grep -v '^==\|^--[0-9]' "$err" | head -5 >&2
	exit 1
fi
echo "$n"
