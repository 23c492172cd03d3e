#!/usr/bin/env bash
# vectors-check.sh [MKEYSIM_BIN]: the golden vectors' proof. Generates a few
# thousand vectors per unit into a temp dir, replays them under Icarus
# Verilog and Verilator against the example DUTs of vectors/hdl/, and
# asserts that:
#   - every good DUT passes under both simulators ("N passed, 0 failed",
#     exit 0);
#   - every broken DUT (-DMKEYSIM_BREAK) fails: non-zero exit and at least
#     one "vector K field F: ..." line (protcheck and mttwalk under both
#     simulators, the others under Icarus);
#   - the top harness passes with its echo DUT and fails with a broken one;
#   - the harness refuses a missing, short, long or malformed vector file.
# Prints "N passed, M failed" for every run, then a summary; exits 1 if any
# run did not do what it should. Environment: VECTORS_COUNT (default 3000),
# VECTORS_SEED (default 1), VECTORS_KEEP=1 keeps the temp dir.
set -uo pipefail
bin=${1:-}
if [ -n "$bin" ]; then bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin"); fi
cd "$(dirname "$0")/.."
root=$PWD
for tool in iverilog vvp verilator; do
  command -v $tool >/dev/null || { echo "vectors-check: $tool not found (scripts/install-tools.sh installs it)"; exit 1; }
done
tmp=$(mktemp -d)
if [ "${VECTORS_KEEP:-0}" = 1 ]; then echo "vectors-check: keeping $tmp"; else trap 'rm -rf "$tmp"' EXIT; fi
if [ -z "$bin" ]; then
  go build -o "$tmp/mkeysim" ./cmd/mkeysim || exit 1
  bin=$tmp/mkeysim
fi
count=${VECTORS_COUNT:-3000}
seed=${VECTORS_SEED:-1}
vec=$tmp/vec
start=$(date +%s)
"$bin" vectors --unit all --count "$count" --seed "$seed" --out "$vec" >/dev/null || { echo "vectors-check: generation failed"; exit 1; }
hdl=$root/vectors/hdl
ok=0; bad=0

# check NAME EXPECT LOG RC: EXPECT is pass or fail.
check() {
  local name=$1 expect=$2 log=$3 rc=$4 summary
  summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -1)
  printf '%-44s %s\n' "$name:" "${summary:-no summary line} (exit $rc)"
  if [ "$expect" = pass ]; then
    if [ "$rc" -eq 0 ] && [ "$summary" = "$count passed, 0 failed" ]; then ok=$((ok+1)); return; fi
  else
    if [ "$rc" -ne 0 ] && grep -qE '^vector [0-9]+ field [a-z0-9_]+' "$log"; then ok=$((ok+1)); return; fi
  fi
  echo "  UNEXPECTED: wanted $expect; log $log:"; head -5 "$log" | sed 's/^/    /'
  bad=$((bad+1))
}

# icarus NAME EXPECT UNIT DUTFILE [DEFINES...]
icarus() {
  local name=$1 expect=$2 unit=$3 dut=$4; shift 4
  local out=$tmp/$name.vvp log=$tmp/$name.log rc
  if ! iverilog -g2012 "$@" -o "$out" "$vec/${unit}_pkg.sv" "$vec/${unit}_tb.sv" "$dut" > "$log" 2>&1; then
    echo "$name: iverilog failed"; cat "$log"; bad=$((bad+1)); return
  fi
  (cd "$vec" && timeout 300 vvp -n "$out" +VEC="$vec/$unit.hex") > "$log" 2>&1; rc=$?
  check "icarus $name" "$expect" "$log" $rc
}

# verilate NAME EXPECT UNIT DUTFILE [DEFINES...]
verilate() {
  local name=$1 expect=$2 unit=$3 dut=$4; shift 4
  local dir=$tmp/obj_$name log=$tmp/$name.vlog rc
  # -O0 for the generated C++: the build is the cost, the replay takes
  # milliseconds either way.
  if ! verilator --binary -j 2 -MAKEFLAGS OPT_FAST=-O0 -MAKEFLAGS OPT_SLOW=-O0 -MAKEFLAGS OPT_GLOBAL=-O0 \
      -Mdir "$dir" --top-module "${unit}_tb" "$@" "$vec/${unit}_pkg.sv" "$vec/${unit}_tb.sv" "$dut" > "$log" 2>&1; then
    echo "$name: verilator failed"; grep -v '^-' "$log" | head -20; bad=$((bad+1)); return
  fi
  (cd "$vec" && timeout 300 "$dir/V${unit}_tb" +VEC="$vec/$unit.hex") > "$log" 2>&1; rc=$?
  check "verilator $name" "$expect" "$log" $rc
}

# Verilator builds take seconds each: run them two at a time, in the
# background, while Icarus runs.
vjobs=()
vrun() { verilate "$@" > "$tmp/vjob.$1.out" 2>&1; echo "$ok $bad" > "$tmp/vjob.$1.res"; }
for spec in "protcheck pass protcheck" "protcheck-broken fail protcheck -DMKEYSIM_BREAK" \
            "mttwalk pass mttwalk" "mttwalk-broken fail mttwalk -DMKEYSIM_BREAK" \
            "klmwalk pass klmwalk" "mptcache pass mptcache"; do
  set -- $spec
  name=$1 expect=$2 unit=$3; shift 3
  vjobs+=("$name")
  ( ok=0; bad=0; vrun "$name" "$expect" "$unit" "$hdl/mkeysim_$unit.v" "$@" ) &
  if [ $(jobs -rp | wc -l) -ge 2 ]; then wait -n; fi
done

for unit in protcheck mttwalk klmwalk mptcache; do
  icarus "$unit" pass "$unit" "$hdl/mkeysim_$unit.v"
  icarus "$unit-broken" fail "$unit" "$hdl/mkeysim_$unit.v" -DMKEYSIM_BREAK
done
icarus top-echo pass top "$vec/top_echo.sv" -DMKEYSIM_DUT=mkeysim_top_echo
icarus top-echo-broken fail top "$vec/top_echo.sv" -DMKEYSIM_DUT=mkeysim_top_echo -DMKEYSIM_BREAK

# The harness must refuse what $readmemh forgives (with the protcheck
# simulation built above).
tamper() { # NAME SED-SCRIPT-OR-rm
  local name=$1 how=$2 log=$tmp/tamper-$1.log rc f=$tmp/tamper-$1.hex
  if [ "$how" = missing ]; then f=$tmp/no-such-file.hex; else sed "$how" "$vec/protcheck.hex" > "$f"; fi
  vvp -n "$tmp/protcheck.vvp" +VEC="$f" > "$log" 2>&1; rc=$?
  if [ $rc -ne 0 ] && grep -q FATAL "$log"; then
    ok=$((ok+1)); printf '%-44s refused (exit %d): %s\n' "harness: $name file" $rc "$(grep -v '^ *Time' "$log" | grep -v '^$' | head -1)"
  else
    bad=$((bad+1)); echo "harness: $name file: NOT refused (exit $rc)"; head -3 "$log"
  fi
}
tamper missing missing
tamper short '$d'
tamper long '$p'
tamper extra-digit '10s/$/0/'
tamper 0x-prefix '10s/^/0x/'
tamper two-words '10s/^\(a5[0-9a-f]*\)$/\1 \1/'

wait
for name in "${vjobs[@]}"; do
  grep -v " Aborted " "$tmp/vjob.$name.out"
  read -r o b < "$tmp/vjob.$name.res" || { o=0; b=1; }
  ok=$((ok+o)); bad=$((bad+b))
done
echo "vectors-check: $ok runs as expected, $bad not ($count vectors per unit, seed $seed, $(( $(date +%s) - start )) s)"
[ $bad -eq 0 ]
