#!/usr/bin/env bash
# wave-cost.sh [BIN] [RUNS]
#
# Measures what the waveform costs on the default run: runs
# `BIN run --out OUT/default.jsonl --stats OUT/stats.json` (what `make run`
# does) RUNS times (default 5) without and with `--vcd OUT/default.vcd`,
# alternating, and prints for each the best and the median of: the
# process's wall time, its CPU time (user + system) and the simulation's
# own wall time (wall_seconds of the statistics, which ends before the
# waveform is closed). OUT is a temporary directory. BIN defaults to
# bin/mkeysim.
set -u -o pipefail

bin=${1:-bin/mkeysim}
runs=${2:-5}
[ -x "$bin" ] || { echo "wave-cost: $bin is not an executable (make build)" >&2; exit 2; }
command -v /usr/bin/time >/dev/null || { echo "wave-cost: /usr/bin/time not found" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# one NAME ARGS...: one run, appending "wall cpu sim" to $out/NAME.
one() {
	local name=$1
	shift
	/usr/bin/time -f "%e %U %S" -o "$out/time" "$bin" run --quiet --no-summary --out "$out/default.jsonl" --stats "$out/stats.json" "$@" ||
		{ echo "wave-cost: $bin run $* failed" >&2; exit 1; }
	read -r wall user sys <"$out/time"
	sim=$(sed -n 's/.*"wall_seconds": *\([0-9.]*\).*/\1/p' "$out/stats.json")
	echo "$wall $(echo "$user + $sys" | bc -l) $sim" >>"$out/$name"
}

for _ in $(seq "$runs"); do
	one plain
	one vcd --vcd "$out/default.vcd"
done
size=$(stat -c %s "$out/default.vcd")

# summary NAME: best and median of each column.
summary() {
	for col in 1 2 3; do
		sort -g -k$col,$col "$out/$1" | awk -v c=$col '{v[NR]=$c} END {printf " %6.2f %6.2f", v[1], v[int((NR+1)/2)]}'
	done
}
echo "default run, $runs runs each; seconds, best and median"
echo "             process wall   process CPU    simulation wall"
printf "without --vcd%s\n" "$(summary plain)"
printf "with --vcd   %s\n" "$(summary vcd)"
echo "VCD: $((size / 1000000)) MB"
