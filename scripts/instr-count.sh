#!/usr/bin/env bash
# instr-count.sh OLD NEW [ARGS...]
#
# Counts the instructions two builds of mkeysim execute on the same
# command (default: `run --no-summary --quiet`, the default workload,
# results to a temporary file) and prints both and their ratio, NEW/OLD.
#
# Why: this project's machines are shared, and a run's time moves by up to
# +-20 % from one minute to the next, so a change of a few percent cannot
# be told from noise by timing, even over ten alternating pairs. The count
# of instructions executed (count-instructions.sh) repeats to about 0.1 %:
# it measures the work a change saves, not its effect on caches or the
# TLB, which only timing sees. Use it beside timing in alternating pairs, not instead.
#
# Needs valgrind (cachegrind): sudo apt-get install valgrind. Runs about 30
# times slower than the program itself.
#
# Examples:
#   scripts/instr-count.sh /tmp/mkeysim.old bin/mkeysim
#   scripts/instr-count.sh /tmp/mkeysim.old bin/mkeysim run --workload.accesses 20000 --vcd /tmp/x.vcd --no-summary
set -u -o pipefail

if [ $# -lt 2 ]; then
	echo "usage: instr-count.sh OLD NEW [ARGS...] (default ARGS: run --no-summary --quiet)" >&2
	exit 2
fi
old=$1 new=$2
shift 2
for b in "$old" "$new"; do
	[ -x "$b" ] || { echo "instr-count: $b is not an executable (make build)" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ $# -gt 0 ] || set -- run --no-summary --quiet --out "$tmp/out.jsonl"
here=$(dirname "$0")

a=$(bash "$here/count-instructions.sh" "$old" "$@") || exit 1
b=$(bash "$here/count-instructions.sh" "$new" "$@") || exit 1
echo "old $a"
echo "new $b"
awk -v a="$a" -v b="$b" 'BEGIN { printf "new/old %.4f\n", b / a }'
