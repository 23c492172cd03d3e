#!/usr/bin/env bash
# conformance.sh BIN DIR... : runs every DIR/NAME.json that has a
# NAME.expected.jsonl through both models (mkeysim ref and mkeysim run) and
# compares the lines with the shared comparator. Prints "N passed, M failed".
set -uo pipefail
bin=$1; shift
cmp=../shared/conformance/compare.py
[ -f "$cmp" ] || cmp=$(dirname "$0")/compare.py
pass=0; fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for dir in "$@"; do
  [ -d "$dir" ] || continue
  for f in "$dir"/*.json; do
    exp=${f%.json}.expected.jsonl
    [ -f "$exp" ] || continue
    for mode in ref run; do
      flags=""; [ $mode = run ] && flags=-quiet
      if ! "$bin" $mode $flags "$f" > "$tmp/got" 2> "$tmp/err" </dev/null; then
        echo "FAIL $mode $f: $(head -3 "$tmp/err")"; fail=$((fail+1)); continue
      fi
      if out=$(python3 "$cmp" "$tmp/got" "$exp"); then
        pass=$((pass+1))
      else
        echo "FAIL $mode $f:"; echo "$out" | head -6; fail=$((fail+1))
      fi
    done
  done
done
echo "conformance: $pass passed, $fail failed"
[ $fail -eq 0 ]
