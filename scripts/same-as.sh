#!/usr/bin/env bash
# same-as.sh [BASE]
#
# A refactoring's check (issue 35): the model built from BASE (a commit,
# default HEAD) and the model of this checkout (uncommitted changes
# included) must give byte-identical outputs on the same inputs:
#
#  - every scenario of examples/ that both trees hold: the result lines
#    (cycles included), the statistics (but for the wall-clock figures)
#    and the VCD;
#  - a million random operations of the default workload (with its
#    commands): the result lines and the statistics;
#  - the first 20,000 of them with a VCD of every signal.
#
# Prints one line per difference and a summary; exit 1 if anything
# differs, 2 on bad arguments. Two VCDs that differ are compared signal
# by signal too (scripts/vcddiff): the same signals and changes declared
# in another order, or how many signals differ (SAME_AS_VCD_DETAIL=1
# lists them). Each run is bounded (timeout, ulimit -f).
set -u -o pipefail

base=${1:-HEAD}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
if ! git cat-file -e "$base^{commit}" 2>/dev/null; then
	echo "same-as: BASE '$base' is not a commit of this clone" >&2
	exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ulimit -f 4194304 2>/dev/null || true # 4 GiB: no file of these runs is near it

echo "building $(git rev-parse --short "$base") (before) and this checkout (after)..." >&2
mkdir "$tmp/src"
git archive "$base" | tar -x -C "$tmp/src" || exit 1
(cd "$tmp/src" && go build -o "$tmp/before" ./cmd/mkeysim) || { echo "same-as: building $base failed" >&2; exit 1; }
go build -o "$tmp/after" ./cmd/mkeysim || { echo "same-as: building this checkout failed" >&2; exit 1; }
go build -o "$tmp/vcddiff" ./scripts/vcddiff || { echo "same-as: building scripts/vcddiff failed" >&2; exit 1; }

# strip FILE: the statistics without the figures of the wall clock.
strip() { grep -v -E '"(wall_seconds|cycles_per_second)"' "$1"; }

same=0 differ=0
check() { # check NAME VCD(yes|no) ARGS...
	local name=$1 vcd=$2
	shift 2
	local side ok=1
	for side in before after; do
		local extra=()
		[ "$vcd" = yes ] && extra=(--vcd "$tmp/$side.vcd")
		if ! timeout -k 5 600 "$tmp/$side" run --quiet --no-summary --out "$tmp/$side.jsonl" --stats "$tmp/$side.json" "${extra[@]}" "$@" >/dev/null 2>"$tmp/$side.err"; then
			# A run that fails must fail the same way on both sides.
			echo "failed" >>"$tmp/$side.jsonl"
			: >"$tmp/$side.failed"
		fi
	done
	if [ -f "$tmp/before.failed" ] && [ -f "$tmp/after.failed" ]; then
		# Both refused the run (a scenario only the golden model runs):
		# the same if they said the same.
		if cmp -s "$tmp/before.err" "$tmp/after.err"; then same=$((same + 1)); else
			echo "$name: both runs failed, differently: $(head -c 200 "$tmp/after.err")"
			differ=$((differ + 1))
		fi
		rm -rf "$tmp"/before.* "$tmp"/after.*
		return
	fi
	if ! cmp -s "$tmp/before.jsonl" "$tmp/after.jsonl"; then
		echo "$name: result lines differ: $(cmp "$tmp/before.jsonl" "$tmp/after.jsonl" 2>&1 | head -1)"
		ok=0
	fi
	if ! cmp -s <(strip "$tmp/before.json") <(strip "$tmp/after.json"); then
		echo "$name: statistics differ:"
		diff <(strip "$tmp/before.json") <(strip "$tmp/after.json") | head -6
		ok=0
	fi
	if [ "$vcd" = yes ] && ! cmp -s "$tmp/before.vcd" "$tmp/after.vcd"; then
		# Say whether only the declarations moved, or which signals.
		echo "$name: VCDs differ: $(cmp "$tmp/before.vcd" "$tmp/after.vcd" 2>&1 | head -1); by signal: $("$tmp/vcddiff" "$tmp/before.vcd" "$tmp/after.vcd" 2>&1 | tail -1)"
		[ -n "${SAME_AS_VCD_DETAIL:-}" ] && "$tmp/vcddiff" "$tmp/before.vcd" "$tmp/after.vcd" | head -20
		ok=0
	fi
	if [ $ok = 1 ]; then same=$((same + 1)); else differ=$((differ + 1)); fi
	rm -rf "$tmp"/before.* "$tmp"/after.*
}
for f in examples/*.json; do
	[ -f "$tmp/src/$f" ] && check "$f" yes "$f"
done
check "a million operations of the default workload" no --workload.accesses 1000000
check "20,000 operations of the default workload, with a VCD" yes --workload.accesses 20000
echo "same-as $(git rev-parse --short "$base"): $same runs identical, $differ differ (results with cycles, statistics, VCDs)"
[ $differ = 0 ]
