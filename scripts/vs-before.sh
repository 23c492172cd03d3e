#!/usr/bin/env bash
# vs-before.sh [ROUNDS] [BASE]
#
# Issue 10's check in one command: the code before the new kernel (BASE,
# default f5dde44, the commit that added the issue's benchmarks to the
# old kernel) against this checkout, on the same inputs, side by side.
#
#  1. Results: every scenario of examples/ that both trees hold, and a
#     million accesses of the default workload (with its commands),
#     through both builds' `mkeysim run` (each also checked against its
#     own golden model): the results must match (`mkeysim compare`: every
#     field but the free-text reason and the cycle, which issue 12's
#     front-end changed on purpose).
#  2. Speed: ROUNDS rounds (default 5), the side that goes first
#     alternating from one round to the next. Each round runs, in both
#     trees, tb's BenchmarkHotWorkload, MissWorkload and DefaultWorkload
#     (translations per CPU-second), ref's BenchmarkTranslateMTT1M and
#     TranslateKLM (translations per second, one thread) and a whole
#     `mkeysim run` of the default workload with the golden check (user +
#     system CPU seconds). For each, the new/old speed-up of every round;
#     the table gives their median and their spread.
#
# Why: this project's machine moves by up to 25 % from one minute to the
# next, so a figure is only worth its ratio against the other side taken
# in the same minute (README, Speed). Takes about four minutes at 5
# rounds. Needs the history back to BASE (a shallow clone: git fetch
# --unshallow). Exit status 1 if results differ, 2 on bad arguments.
set -u -o pipefail

rounds=${1:-5}
base=${2:-f5dde44}
case $rounds in '' | *[!0-9]*) echo "vs-before: ROUNDS must be a positive number, not '$rounds'" >&2; exit 2 ;; esac
[ "$rounds" -gt 0 ] || { echo "vs-before: ROUNDS must be a positive number, not '$rounds'" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
if ! git cat-file -e "$base^{commit}" 2>/dev/null; then
	echo "vs-before: BASE '$base' is not a commit of this clone (a shallow clone? git fetch --unshallow)" >&2
	exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Both trees, built the same way: the old one from git, the new one as it
# stands in this checkout (uncommitted changes included).
echo "building $(git rev-parse --short "$base") (old) and this checkout (new)..." >&2
mkdir "$tmp/old-src"
git archive "$base" | tar -x -C "$tmp/old-src" || exit 1
build() { # build SIDE DIR
	(cd "$2" && go test -c -o "$tmp/$1-tb.test" ./tb && go test -c -o "$tmp/$1-ref.test" ./ref &&
		go build -o "$tmp/$1-mk" ./cmd/mkeysim) || { echo "vs-before: building $1 ($2) failed" >&2; exit 1; }
}
build old "$tmp/old-src"
build new "$root"

# 1. Results.
echo "comparing results..." >&2
same=0 differ=0
check() { # check NAME ARGS...: both builds' results of one run must match
	local name=$1
	shift
	if ! "$tmp/old-mk" run --out "$tmp/old.jsonl" "$@" >/dev/null 2>"$tmp/err" ||
		! "$tmp/new-mk" run --out "$tmp/new.jsonl" "$@" >/dev/null 2>>"$tmp/err"; then
		echo "$name: a run failed: $(head -c 300 "$tmp/err")"
		differ=$((differ + 1))
	elif "$tmp/new-mk" compare "$tmp/new.jsonl" "$tmp/old.jsonl" >"$tmp/cmp" 2>&1; then
		same=$((same + 1))
	else
		echo "$name: results differ:"
		head -5 "$tmp/cmp"
		differ=$((differ + 1))
	fi
}
for f in examples/*.json; do
	[ -f "$tmp/old-src/$f" ] && check "$f" "$f"
done
check "a million accesses of the default workload" --workload.accesses 1000000
echo "results: $same runs match, $differ differ (the examples both trees hold, and a million accesses of the default workload with its commands)"

# 2. Speed. One figure: bench BIN DIR NAME METRIC prints the METRIC of
# benchmark NAME; cpu BIN prints the CPU seconds of a whole run.
bench() {
	(cd "$2" && "$1" -test.run XXX -test.bench "^Benchmark$3\$" -test.count 1) 2>&1 |
		awk -v m="$4" '/^Benchmark/ { for (i = 2; i <= NF; i++) if ($i == m) v = $(i - 1) } END { if (v == "") exit 1; print v }'
}
cpu() {
	local TIMEFORMAT='%3U %3S'
	{ time "$1" run --out "$tmp/run.jsonl" >/dev/null 2>&1; } 2>&1 | awk '{ print $1 + $2 }'
}
measures=(HotWorkload MissWorkload DefaultWorkload TranslateMTT1M TranslateKLM run)
declare -A ratios
one() { # one SIDE MEASURE TREE: prints the figure of SIDE's build run in TREE, bigger is faster
	case $2 in
	*Workload) bench "$tmp/$1-tb.test" "$3/tb" "$2" translations/cpu-s ;;
	Translate*) bench "$tmp/$1-ref.test" "$3/ref" "$2" translations/s ;;
	run) awk -v s="$(cpu "$tmp/$1-mk")" 'BEGIN { print 1 / s }' ;;
	esac
}
for ((r = 1; r <= rounds; r++)); do
	echo "round $r of $rounds..." >&2
	for m in "${measures[@]}"; do
		if ((r % 2)); then
			o=$(one old "$m" "$tmp/old-src") && n=$(one new "$m" "$root")
		else
			n=$(one new "$m" "$root") && o=$(one old "$m" "$tmp/old-src")
		fi || { echo "vs-before: measuring $m failed" >&2; exit 1; }
		ratios[$m]+="$(awk -v o="$o" -v n="$n" 'BEGIN { printf "%.3f", n / o }') "
	done
done

echo
plural=s
[ "$rounds" -eq 1 ] && plural=
echo "new / old speed-up, $rounds round$plural (median, lowest-highest), $(date -u '+%Y-%m-%d %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| measure | speed-up | spread |"
echo "|---|---|---|"
label() {
	case $1 in
	HotWorkload) echo "clocked, hit-bound, translations per CPU-s" ;;
	MissWorkload) echo "clocked, miss-bound, translations per CPU-s" ;;
	DefaultWorkload) echo "clocked, default workload, translations per CPU-s" ;;
	TranslateMTT1M) echo "golden model, 1M MTT keys, one at a time" ;;
	TranslateKLM) echo "golden model, KLM over MTT" ;;
	run) echo "whole \`mkeysim run\` of the default workload, CPU" ;;
	esac
}
for m in "${measures[@]}"; do
	echo "${ratios[$m]}" | tr ' ' '\n' | grep . | sort -g |
		awk -v l="$(label "$m")" '{ v[NR] = $1 } END { med = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "| %s | %.2fx | %.2f-%.2f |\n", l, med, v[1], v[NR] }'
done
[ "$differ" -eq 0 ]
