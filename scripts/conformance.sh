#!/usr/bin/env bash
# conformance.sh BIN DIR... : runs every DIR/NAME.json that has a
# NAME.expected.jsonl through both models (mkeysim ref and mkeysim run) and
# compares the lines with the shared comparator. Prints "N passed, M failed,
# K skipped (ref-only)".
# Each model runs with a deadline (60 s, then SIGKILL) and a cap on the
# size of its output file (64 MiB, ulimit -f), so that a scenario that
# makes a broken build write without end (../shared/hazards) fails here
# in seconds instead of filling the disk. A scenario only the golden model
# runs (one with an iommu section: the clocked model does not model the
# IOMMU yet, issue 36) is one that mkeysim run refuses, with exit status 2
# and the reason scenario.RefOnly gives; its run is counted as skipped,
# not failed, and its ref run is compared as any other.
set -uo pipefail
bin=$1; shift
# The shared comparator when it is there, else mkeysim's own.
cmp=${SHARED:-../shared}/conformance/compare.py
# Expected lines that list other legal outcomes (also_legal: a WQE that a
# fence lets overtake a UMR, issue 37) are compared by mkeysim compare,
# which accepts them; the shared comparator predates them.
compare() {
  if [ -f "$cmp" ] && ! grep -q '"also_legal"' "$2"; then python3 "$cmp" "$1" "$2"; else "$bin" compare "$1" "$2"; fi
}
pass=0; fail=0; skip=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for dir in "$@"; do
  [ -d "$dir" ] || continue
  for f in "$dir"/*.json; do
    exp=${f%.json}.expected.jsonl
    [ -f "$exp" ] || continue
    for mode in ref run; do
      flags=""; [ $mode = run ] && flags=--quiet
      ( ulimit -f $((64 * 1024)); exec timeout -k 5 60 "$bin" $mode $flags "$f" > "$tmp/got" 2> "$tmp/err" </dev/null ); rc=$?
      if [ $mode = run ] && [ $rc -eq 2 ] && grep -q 'does not model the IOMMU yet' "$tmp/err"; then
        echo "SKIP run $f: the golden model's only (iommu section)"; skip=$((skip+1)); continue
      fi
      if [ $rc -ne 0 ]; then
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
echo "conformance: $pass passed, $fail failed, $skip skipped (ref-only)"
[ $fail -eq 0 ] && [ $pass -gt 0 ]
