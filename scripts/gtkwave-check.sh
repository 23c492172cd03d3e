#!/usr/bin/env bash
# gtkwave-check.sh FILE.vcd [FILE.gtkw]
#
# Loads a VCD file in the real tools and fails if they complain. No stock
# tool validates VCD strictly and all of them exit 0 (see
# /work/shared/notes/tools.md), so this greps their output instead:
#   1. `gtkwave -x FILE.vcd` under xvfb-run: loads the dump and exits;
#   2. `vcd2fst FILE.vcd`: converts to FST (also fails on a crash/timeout);
#   3. with FILE.gtkw: gtkwave loads the dump and the save file and a Tcl
#      script lists the traces on display; every signal the save file names
#      must be displayed (GTKWave drops unknown names silently), every
#      translate filter file (^N FILE) must be readable, and every filtered
#      signal must show a name of its filter at time 0 (GTKWave applied it).
# GTKWave is run from / and given the save file by its full path: a save
# file must find its dump and its filters from any working directory
# (relative to the [savefile] it names), so a copied folder opens the same.
#
# Exit 0 if all is clean, 1 (printing the offending lines) if a tool
# complains, 2 on a usage error or a missing tool.
set -u -o pipefail

usage() { echo "usage: $0 FILE.vcd [FILE.gtkw]" >&2; exit 2; }
[ $# -ge 1 ] && [ $# -le 2 ] || usage
vcd=$1
gtkw=${2:-}
[ -r "$vcd" ] || { echo "gtkwave-check: cannot read $vcd" >&2; exit 2; }
[ -z "$gtkw" ] || [ -r "$gtkw" ] || { echo "gtkwave-check: cannot read $gtkw" >&2; exit 2; }
for tool in gtkwave xvfb-run vcd2fst timeout; do
	command -v "$tool" >/dev/null || { echo "gtkwave-check: $tool not found" >&2; exit 2; }
done

# What GTKWave and vcd2fst print when they dislike a file.
pattern='Near byte|Time backtracking|Malformed|Unknown|ERROR|Could not open|No symbols'
limit=60

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
vcd_abs=$(cd "$(dirname "$vcd")" && pwd)/$(basename "$vcd")
fail=0

# complain NAME OUTPUT_FILE: print the lines matching the pattern.
complain() {
	if grep -E "$pattern" "$2" >"$tmp/bad"; then
		echo "gtkwave-check: $1 complains about $vcd:"
		sed 's/^/  /' "$tmp/bad"
		fail=1
	fi
}

# status NAME RC: a timeout, a crash or a non-zero exit is a failure too
# (gtkwave exits 255 on a file without variables).
status() {
	case $2 in
	0) ;;
	124) echo "gtkwave-check: $1 timed out after ${limit}s on $vcd"; fail=1 ;;
	*) echo "gtkwave-check: $1 exited $2 on $vcd"; fail=1 ;;
	esac
}

timeout "$limit" xvfb-run -a gtkwave -x "$vcd_abs" >"$tmp/gtkwave.out" 2>&1
status "gtkwave -x" $?
complain "gtkwave -x" "$tmp/gtkwave.out"

timeout "$limit" vcd2fst "$vcd_abs" "$tmp/out.fst" >"$tmp/vcd2fst.out" 2>&1
status vcd2fst $?
complain vcd2fst "$tmp/vcd2fst.out"

if [ -n "$gtkw" ]; then
	dir=$(cd "$(dirname "$gtkw")" && pwd)
	base=$(basename "$gtkw")
	cat >"$tmp/list.tcl" <<'TCL'
foreach s [gtkwave::getDisplayedSignals] { puts "DISPLAYED $s" }
gtkwave::setMarker 0
foreach s [gtkwave::getDisplayedSignals] { puts "VALUE $s [gtkwave::getTraceValueAtMarkerFromName $s]" }
gtkwave::/File/Quit
TCL
	(cd / && timeout "$limit" xvfb-run -a gtkwave -S "$tmp/list.tcl" "$dir/$base") >"$tmp/save.out" 2>&1
	status "gtkwave with $gtkw" $?
	complain "gtkwave with $gtkw" "$tmp/save.out"
	sed -n 's/^DISPLAYED //p' "$tmp/save.out" | sort -u >"$tmp/displayed"
	# Signal lines: everything that is not a [setting], @flags, -comment,
	# ^filter, *zoom, >shift or #/: vector definitions.
	grep -vE '^(\[|@|-|\^|\*|>|#|:|$)' "$gtkw" | awk '{print $1}' | sort -u >"$tmp/wanted"
	missing=$(comm -23 "$tmp/wanted" "$tmp/displayed")
	if [ -n "$missing" ]; then
		echo "gtkwave-check: ERROR: signals of $gtkw not found in $vcd:"
		echo "$missing" | sed 's/^/  /'
		fail=1
	fi
	while read -r filter; do
		case $filter in /*) f=$filter ;; *) f=$dir/$filter ;; esac
		if [ ! -r "$f" ]; then
			echo "gtkwave-check: ERROR: translate filter $filter of $gtkw not readable"
			fail=1
		fi
	done < <(sed -n 's/^\^[0-9][0-9]* //p' "$gtkw")
	# Every filtered signal must show, at time 0, a name of its filter:
	# a filter GTKWave did not find leaves the raw hex value on display.
	awk '/^\^[0-9]+ / { f = $2; next } /^(\[|@|-|\*|>|#|:|$)/ { next } f != "" { print $1, f; f = "" }' "$gtkw" >"$tmp/filtered"
	while read -r sig filter; do
		case $filter in /*) f=$filter ;; *) f=$dir/$filter ;; esac
		shown=$(sed -n "s/^VALUE $(printf '%s' "$sig" | sed 's/[][\.*^$/]/\\&/g') //p" "$tmp/save.out" | head -1)
		if [ -r "$f" ] && ! grep -v '^#' "$f" | cut -d' ' -f2- | grep -qxF -- "$shown"; then
			echo "gtkwave-check: ERROR: $sig shows '$shown', not a name of its filter $filter: GTKWave did not apply it"
			fail=1
		fi
	done <"$tmp/filtered"
fi

exit $fail
