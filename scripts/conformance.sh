#!/usr/bin/env bash
# conformance.sh BIN DIR... : runs every DIR/NAME.json that has a
# NAME.expected.jsonl through both models (mkeysim ref and mkeysim run) and
# compares the lines with the shared comparator. Prints "N passed, M failed".
# Each model runs with a deadline (60 s, then SIGKILL) and a cap on the
# size of its output file (64 MiB, ulimit -f), so that a scenario that
# makes a broken build write without end (../shared/hazards) fails here
# in seconds instead of filling the disk.
set -uo pipefail
bin=$1; shift
# The shared comparator when it is there, else mkeysim's own.
cmp=${SHARED:-../shared}/conformance/compare.py
compare() { if [ -f "$cmp" ]; then python3 "$cmp" "$1" "$2"; else "$bin" compare "$1" "$2"; fi; }
pass=0; fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for dir in "$@"; do
  [ -d "$dir" ] || continue
  for f in "$dir"/*.json; do
    exp=${f%.json}.expected.jsonl
    [ -f "$exp" ] || continue
    for mode in ref run; do
      flags=""; [ $mode = run ] && flags=--quiet
      if ! ( ulimit -f $((64 * 1024)); exec timeout -k 5 60 "$bin" $mode $flags "$f" > "$tmp/got" 2> "$tmp/err" </dev/null ); then
        echo "FAIL $mode $f: $(head -3 "$tmp/err")"; fail=$((fail+1)); continue
      fi
      if out=$(compare "$tmp/got" "$exp"); then
        pass=$((pass+1))
      else
        echo "FAIL $mode $f:"; echo "$out" | head -6; fail=$((fail+1))
      fi
    done
  done
done
[ -d "${SHARED:-../shared}/conformance" ] || echo "conformance: no ${SHARED:-../shared}/conformance beside the repository; examples only"
echo "conformance: $pass passed, $fail failed"
[ $fail -eq 0 ] && [ $pass -gt 0 ]
