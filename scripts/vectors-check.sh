#!/usr/bin/env bash
# vectors-check.sh [MKEYSIM_BIN]: the golden vectors' proof. Generates a few
# thousand vectors per unit into a temp dir, replays them under Icarus
# Verilog and Verilator against the example DUTs of vectors/hdl/, and
# asserts that:
#   - every good DUT passes under both simulators ("N passed, 0 failed",
#     exit 0), Verilator built and run as vectors/README.md says
#     (-Wwarn-UNDRIVEN, +verilator+rand+reset+2);
#   - the mptcache DUT, and mkeysim_mptcache_age.v (written to the rules
#     of docs/vectors-mptcache.md, LRU as age counters), pass six more
#     geometries under Icarus (1x1 to 2x64, LRU and random) and one random
#     geometry each under Verilator;
#   - every broken DUT (-DMKEYSIM_BREAK) fails: non-zero exit and at least
#     one "vector K field F: ..." line (protcheck and mttwalk under both
#     simulators, the others under Icarus);
#   - the top harness passes with its echo DUT and fails with a broken one;
#     so does the atc harness (the 'ats' handshake: Translation Requests
#     served, Invalidate Completions collected), under both simulators,
#     and the example ATC (vectors/hdl/mkeysim_atc.v) passes under both
#     and fails broken under Icarus;
#   - a DUT output with undriven bits is caught: Icarus prints "got z..
#     (X or Z ...)", Verilator's build stops on UNDRIVEN, and a Verilator
#     run with random initial values mismatches; without either Verilator
#     passes it (the two-state limit README.md documents, measured here);
#   - the harness refuses, with the same message under both simulators, a
#     missing, short or long vector file, a line with an extra digit, a 0x
#     prefix or two words, a line with a pad bit set and a file whose last
#     line lacks its newline; and a table line with a pad bit set;
#   - jq reads every manifest number exactly and the 64-bit values (hex
#     strings) equal the package's.
# Prints "N passed, M failed" for every run, then a summary; exits 1 if any
# run did not do what it should. Environment: VECTORS_COUNT (default 3000),
# VECTORS_SEED (default 1), VECTORS_KEEP=1 keeps the temp dir.
set -uo pipefail
bin=${1:-}
if [ -n "$bin" ]; then bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin"); fi
cd "$(dirname "$0")/.."
root=$PWD
for tool in iverilog vvp verilator jq; do
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
# The cache in more geometries and both policies (docs/vectors-mptcache.md):
# DIR names them SETSxWAYS-POLICY.
geos="1x1-lru 4x3-random 8x8-lru 16x4-random 64x4-random 2x64-lru"
for g in $geos; do
  sw=${g%-*}
  "$bin" vectors --unit mptcache --count "$count" --seed "$seed" --mkc-cache.sets "${sw%x*}" --mkc-cache.ways "${sw#*x}" \
    --mkc-cache.replacement "${g#*-}" --mkc-cache.seed 7 --out "$tmp/geo-$g" >/dev/null 2>&1 || { echo "vectors-check: generation of mptcache $g failed"; exit 1; }
done

# check NAME EXPECT LOG RC: EXPECT is pass, fail (a mismatch line), or
# fail:REGEX (non-zero exit and a line matching REGEX: the clear message).
check() {
  local name=$1 expect=$2 log=$3 rc=$4 summary
  summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -1)
  printf '%-44s %s\n' "$name:" "${summary:-no summary line} (exit $rc)"
  case $expect in
    pass) if [ "$rc" -eq 0 ] && [ "$summary" = "$count passed, 0 failed" ]; then ok=$((ok+1)); return; fi ;;
    fail) if [ "$rc" -ne 0 ] && grep -qE '^vector [0-9]+ field [a-z0-9_]+' "$log"; then ok=$((ok+1)); return; fi ;;
    fail:*) if [ "$rc" -ne 0 ] && grep -qE "${expect#fail:}" "$log"; then
              ok=$((ok+1)); printf '%-44s   says: %s\n' "" "$(grep -E "${expect#fail:}" "$log" | head -1 | cut -c1-150)"; return; fi ;;
  esac
  echo "  UNEXPECTED: wanted $expect; log $log:"; head -5 "$log" | sed 's/^/    /'
  bad=$((bad+1))
}

# icarus NAME EXPECT UNIT DUTFILES [DEFINES...]
icarus() {
  local name=$1 expect=$2 unit=$3 dut=$4; shift 4
  local out=$tmp/$name.vvp log=$tmp/$name.log rc
  if ! iverilog -g2012 "$@" -o "$out" "$vec/${unit}_pkg.sv" "$vec/${unit}_tb.sv" $dut > "$log" 2>&1; then
    echo "$name: iverilog failed"; cat "$log"; bad=$((bad+1)); return
  fi
  (cd "$vec" && timeout 300 vvp -n "$out" +VEC="$vec/$unit.hex") > "$log" 2>&1; rc=$?
  check "icarus $name" "$expect" "$log" $rc
}

# verilate NAME EXPECT UNIT DUTFILES [FLAGS...]: builds and runs as
# vectors/README.md tells a DUT author to: -Wwarn-UNDRIVEN (a DUT output
# bit with no driver stops the build: Verilator is two-state and would
# read it as 0) and +verilator+rand+reset+2 (variables and undriven bits
# start random, not 0). VL_LINT and VL_RUN replace the two, for the
# measurements of what Verilator does without them. EXPECT may also be
# build-fail:REGEX: the build must stop with a message matching REGEX.
verilate() {
  local name=$1 expect=$2 unit=$3 dut=$4; shift 4
  local dir=$tmp/obj_$name log=$tmp/$name.vlog rc
  # -O0 for the generated C++: the build is the cost, the replay takes
  # milliseconds either way.
  if ! verilator --binary -j 2 -MAKEFLAGS OPT_FAST=-O0 -MAKEFLAGS OPT_SLOW=-O0 -MAKEFLAGS OPT_GLOBAL=-O0 \
      ${VL_LINT--Wwarn-UNDRIVEN} -Mdir "$dir" --top-module "${unit}_tb" "$@" "$vec/${unit}_pkg.sv" "$vec/${unit}_tb.sv" $dut > "$log" 2>&1; then
    case $expect in
      build-fail:*) if grep -qE "${expect#build-fail:}" "$log"; then
          ok=$((ok+1)); printf '%-44s build refused: %s\n' "verilator $name:" "$(grep -E "${expect#build-fail:}" "$log" | head -1 | cut -c1-120)"; return; fi ;;
    esac
    echo "$name: verilator failed"; grep -v '^-' "$log" | head -20; bad=$((bad+1)); return
  fi
  case $expect in build-fail:*) echo "verilator $name: built, but should have stopped with ${expect#build-fail:}"; bad=$((bad+1)); return ;; esac
  (cd "$vec" && timeout 300 "$dir/V${unit}_tb" +VEC="$vec/$unit.hex" ${VL_RUN-+verilator+rand+reset+2 +verilator+seed+1}) > "$log" 2>&1; rc=$?
  check "verilator $name" "$expect" "$log" $rc
}

# A protcheck DUT whose status[7:4] has no driver (the good DUT inside
# drives the rest): status codes are below 16, so the expected top bits
# are always 0, and a simulator that reads undriven bits as 0 passes it.
undriven=$tmp/undriven.v
cat > "$undriven" <<'UNDRIVEN'
`timescale 1ns/1ps
module protcheck_undriven (
  input  wire [511:0] mkc, input wire created, input wire [31:0] key, input wire [2:0] level,
  input  wire [63:0] va, input wire [31:0] len, input wire [23:0] qpn, input wire [23:0] pd,
  input  wire [2:0] access_type, output wire [7:0] status);
  wire [7:0] s;
  mkeysim_protcheck inner (.mkc(mkc), .created(created), .key(key), .level(level), .va(va), .len(len),
    .qpn(qpn), .pd(pd), .access_type(access_type), .status(s));
  assign status[3:0] = s[3:0];
endmodule
UNDRIVEN

# Verilator builds take seconds each: run them two at a time, in the
# background, while Icarus runs. A spec line: NAME|EXPECT|UNIT|DUT
# FILES|LINT|RUN|VECDIR|FLAGS; LINT or RUN "-" drops -Wwarn-UNDRIVEN or
# +verilator+rand+reset+2; VECDIR (default the main one) holds the files.
vjobs=()
vrun() { verilate "$@" > "$tmp/vjob.$1.out" 2>&1; echo "$ok $bad" > "$tmp/vjob.$1.res"; }
pc="$hdl/mkeysim_protcheck.v"
while IFS='|' read -r name expect unit dut lint run vecdir flags; do
  [ -n "$name" ] || continue
  vjobs+=("$name")
  ( ok=0; bad=0; if [ "$lint" = - ]; then VL_LINT=; fi; if [ "$run" = - ]; then VL_RUN=; fi
    if [ -n "$vecdir" ]; then vec=$vecdir; fi
    vrun "$name" "$expect" "$unit" "$dut" $flags ) &
  if [ $(jobs -rp | wc -l) -ge 2 ]; then wait -n; fi
done <<SPECS
protcheck|pass|protcheck|$pc||||
protcheck-broken|fail|protcheck|$pc||||-DMKEYSIM_BREAK
mttwalk|pass|mttwalk|$hdl/mkeysim_mttwalk.v||||
mttwalk-broken|fail|mttwalk|$hdl/mkeysim_mttwalk.v||||-DMKEYSIM_BREAK
klmwalk|pass|klmwalk|$hdl/mkeysim_klmwalk.v||||
mptcache|pass|mptcache|$hdl/mkeysim_mptcache.v||||
mptcache-4x3-random|pass|mptcache|$hdl/mkeysim_mptcache.v|||$tmp/geo-4x3-random|
mptcache-age-16x4-random|pass|mptcache|$hdl/mkeysim_mptcache_age.v|||$tmp/geo-16x4-random|-DMKEYSIM_DUT=mkeysim_mptcache_age
protcheck-undriven|build-fail:UNDRIVEN.*'status'\[7:4\]|protcheck|$pc $undriven||||-DMKEYSIM_DUT=protcheck_undriven
protcheck-undriven-random|fail:field status: got [1-9a-f][0-9a-f], expected 0|protcheck|$pc $undriven|-|||-DMKEYSIM_DUT=protcheck_undriven
protcheck-undriven-2state|pass|protcheck|$pc $undriven|-|-||-DMKEYSIM_DUT=protcheck_undriven
atc-echo|pass|atc|$vec/atc_echo.sv||||-DMKEYSIM_DUT=mkeysim_atc_echo
atc|pass|atc|$hdl/mkeysim_atc.v||||
SPECS

for unit in protcheck mttwalk klmwalk mptcache; do
  icarus "$unit" pass "$unit" "$hdl/mkeysim_$unit.v"
  icarus "$unit-broken" fail "$unit" "$hdl/mkeysim_$unit.v" -DMKEYSIM_BREAK
done
for g in $geos; do
  vec=$tmp/geo-$g icarus "mptcache-$g" pass mptcache "$hdl/mkeysim_mptcache.v"
  vec=$tmp/geo-$g icarus "mptcache-age-$g" pass mptcache "$hdl/mkeysim_mptcache_age.v" -DMKEYSIM_DUT=mkeysim_mptcache_age
done
icarus protcheck-undriven 'fail:field status: got z[0-9a-f], expected 0[0-9a-f] \(X or Z: the output is not driven\)' protcheck "$pc $undriven" -DMKEYSIM_DUT=protcheck_undriven
icarus top-echo pass top "$vec/top_echo.sv" -DMKEYSIM_DUT=mkeysim_top_echo
icarus top-echo-broken fail top "$vec/top_echo.sv" -DMKEYSIM_DUT=mkeysim_top_echo -DMKEYSIM_BREAK
icarus atc-echo pass atc "$vec/atc_echo.sv" -DMKEYSIM_DUT=mkeysim_atc_echo
icarus atc-echo-broken fail atc "$vec/atc_echo.sv" -DMKEYSIM_DUT=mkeysim_atc_echo -DMKEYSIM_BREAK
icarus atc pass atc "$hdl/mkeysim_atc.v"
icarus atc-broken fail atc "$hdl/mkeysim_atc.v" -DMKEYSIM_BREAK

wait
for name in "${vjobs[@]}"; do
  grep -v " Aborted " "$tmp/vjob.$name.out"
  read -r o b < "$tmp/vjob.$name.res" || { o=0; b=1; }
  ok=$((ok+o)); bad=$((bad+b))
done

# The harness must refuse what $readmemh forgives, with the same clear
# message under both simulators (the protcheck simulations built above).
# setbit K: sets the high bit of the K-th character of every word line
# (protcheck's pad is one bit, line bit 703: the high bit of digit 11).
setbit() { awk -v k="$1" '/^\/\//{print;next}{d=substr($0,k,1); printf "%s%s%s\n", substr($0,1,k-1), substr("89abcdef89abcdef", index("0123456789abcdef",d),1), substr($0,k+1)}'; }
tamper() { # NAME REGEX HOW: REGEX must be in the output; HOW a sed script, missing, pad or nonl
  local name=$1 want=$2 how=$3 f=$tmp/tamper-$1.hex sim log rc
  case $how in
    missing) f=$tmp/no-such-file.hex ;;
    pad) setbit 11 < "$vec/protcheck.hex" > "$f" ;;
    nonl) head -c -1 "$vec/protcheck.hex" > "$f" ;;
    *) sed "$how" "$vec/protcheck.hex" > "$f" ;;
  esac
  for sim in icarus verilator; do
    log=$tmp/tamper-$name-$sim.log
    if [ $sim = icarus ]; then vvp -n "$tmp/protcheck.vvp" +VEC="$f" > "$log" 2>&1; rc=$?
    else bash -c '"$0" "$1"' "$tmp/obj_protcheck/Vprotcheck_tb" +VEC="$f" > "$log" 2>&1; rc=$?; fi  # the inner bash reports the abort into the log
    if [ $rc -ne 0 ] && grep -qE "$want" "$log"; then
      ok=$((ok+1)); printf '%-44s refused (exit %d): %s\n' "harness $sim: $name file" $rc "$(grep -E "$want" "$log" | head -1 | cut -c1-150)"
    else
      bad=$((bad+1)); echo "harness $sim: $name file: NOT refused with /$want/ (exit $rc)"; head -3 "$log"
    fi
  done
}
tamper missing 'cannot open the vector file' missing
tamper short 'has [0-9]+ vector lines, the manifest says COUNT' '$d'
tamper long 'has [0-9]+ vector lines, the manifest says COUNT' '$p'
tamper extra-digit 'line [0-9]+ has [0-9]+ characters' '10s/$/0/'
tamper 0x-prefix 'line [0-9]+ has [0-9]+ characters' '10s/^/0x/'
tamper two-words 'line [0-9]+ has [0-9]+ characters' '10s/^\(a5[0-9a-f]*\)$/\1 \1/'
tamper pad-bit-set 'field pad: pad bits are 1, must be 0' pad
tamper no-final-newline 'line [0-9]+, the last, does not end with a line feed' nonl

# A table line with its pad bits set: top.mkc.hex's pad (bits 555:553)
# ends its 11th digit, as in every line of the framing (marker, seq, pad).
setbit 11 < "$vec/top.mkc.hex" > "$tmp/tamper-mkc.hex"
(cd "$vec" && vvp -n "$tmp/top-echo.vvp" +VEC="$vec/top.hex" +MKC="$tmp/tamper-mkc.hex") > "$tmp/tamper-mkc.log" 2>&1; rc=$?
if [ $rc -ne 0 ] && grep -q "line 0 missing, malformed, out of order or with pad bits set" "$tmp/tamper-mkc.log"; then
  ok=$((ok+1)); printf '%-44s refused (exit %d)\n' "harness icarus: top.mkc.hex pad bit set" $rc
else
  bad=$((bad+1)); echo "harness icarus: top.mkc.hex pad bit set: NOT refused (exit $rc)"; head -3 "$tmp/tamper-mkc.log"
fi

# The manifests as jq (float64 numbers) reads them: no number above 2^53,
# and the 64-bit values (hex strings) equal the package's.
for unit in protcheck mttwalk klmwalk mptcache top atc; do
  m=$vec/$unit.manifest.json
  if ! jq -e '[.. | numbers | select(. > 9007199254740992)] | length == 0' "$m" >/dev/null; then
    bad=$((bad+1)); echo "jq $unit: a number above 2^53 in the manifest"; continue
  fi
  while read -r pname hex; do
    dec=$(python3 -c "print(int('$hex', 16))")
    if ! grep -qE "localparam (int $pname = $dec|logic \[63:0\] $pname = 64'h0*${hex#0x});" "$vec/${unit}_pkg.sv"; then
      bad=$((bad+1)); echo "jq $unit: parameter $pname = $hex is not the package's"; continue 2
    fi
  done < <(jq -r '.parameters[] | "\(.name) \(.value)"' "$m")
  mseed=$(jq -r .seed "$m")
  if ! grep -q "SEED = 64'd$(python3 -c "print(int('$mseed', 16))");" "$vec/${unit}_pkg.sv"; then
    bad=$((bad+1)); echo "jq $unit: seed $mseed is not the package's"; continue
  fi
  ok=$((ok+1)); printf '%-44s %s\n' "jq $unit manifest:" "exact (seed $mseed$(jq -r '[.parameters[] | " \(.name) \(.value)"] | join(",")' "$m"))"
done

echo "vectors-check: $ok runs as expected, $bad not ($count vectors per unit, seed $seed, $(( $(date +%s) - start )) s)"
[ $bad -eq 0 ]
