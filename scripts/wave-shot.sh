#!/usr/bin/env bash
# wave-shot.sh FILE.vcd FILE.gtkw OUT.png
#
# Headless screenshot of GTKWave showing FILE.vcd with the save file
# FILE.gtkw, zoomed to the whole run: GTKWave runs under xvfb-run on a
# 1280x800 screen with a Tcl script that zooms, lets the window draw, grabs
# the screen with ImageMagick's `import` and quits. (GTKWave runs from the
# save file's directory; it need not, as the save file's paths are
# relative to itself.)
set -u -o pipefail

[ $# -eq 3 ] || { echo "usage: $0 FILE.vcd FILE.gtkw OUT.png" >&2; exit 2; }
for tool in gtkwave xvfb-run import timeout; do
	command -v "$tool" >/dev/null || { echo "wave-shot: $tool not found" >&2; exit 2; }
done
abs() { (cd "$(dirname "$1")" && printf '%s/%s\n' "$(pwd)" "$(basename "$1")"); }
vcd=$(abs "$1") || exit 2
gtkw=$(abs "$2") || exit 2
out=$(abs "$3") || exit 2
[ -r "$vcd" ] && [ -r "$gtkw" ] || { echo "wave-shot: cannot read $1 or $2" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rm -f "$out"
cat >"$tmp/shot.tcl" <<TCL
gtkwave::/Time/Zoom/Zoom_Full
update
after 300
update
exec import -window root {$out}
gtkwave::/File/Quit
TCL
(cd "$(dirname "$gtkw")" &&
	timeout 60 xvfb-run -a -s "-screen 0 1280x800x24" gtkwave -S "$tmp/shot.tcl" "$vcd" "$gtkw") >"$tmp/log" 2>&1
rc=$?
if [ $rc -ne 0 ] || [ ! -s "$out" ]; then
	echo "wave-shot: no picture (exit $rc):" >&2
	sed 's/^/  /' "$tmp/log" >&2
	exit 1
fi
echo "$out"
