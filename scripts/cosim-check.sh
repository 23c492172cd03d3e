#!/usr/bin/env bash
# cosim-check.sh: the live co-simulation's proof. Builds the golden model as
# a C library (out/cosim/libmkeysim.so), the C ABI test, the VPI module and
# the Verilated scoreboard, then asserts that:
#   - cosim/test/abi_test.c builds with -Wall -Werror and exits 0;
#   - the DPI-C glue compiles as C11 and as C++ with no warning, and its
#     definitions match the prototypes Verilator generates from the package;
#   - the VPI module builds with no warning, refuses a malformed call at
#     compile time (vvp exit != 0, message naming the function, the argument
#     and the reason) and an X input at run time (-2, message);
#   - cosim/tb/api_tb.sv (every call once, known answers; live_tb runs it
#     first) passes under both simulators;
#   - the live scoreboard (cosim/tb/live_tb.sv) passes against the example
#     DUTs of vectors/hdl under Icarus Verilog (VPI) and Verilator (DPI-C):
#     exit 0 and "N passed, 0 failed" for 4 x COSIM_N transactions;
#   - both simulators print the same counts for the same seed;
#   - with -DMKEYSIM_BREAK (every example DUT broken) each simulator fails:
#     non-zero exit, a "MISMATCH txn K unit U: ..." line, and failures in
#     protcheck, mttwalk and the LRU mptcache (each broken DUT caught).
# Prints each run's "N passed, M failed", then a summary; exits 1 if any
# step did not do what it should. Environment: COSIM_N (transactions per
# DUT, default 3000), COSIM_SEED (default 1), COSIM_KEEP=1 keeps the temp dir.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
for tool in go gcc g++ iverilog iverilog-vpi vvp verilator; do
  command -v $tool >/dev/null || { echo "cosim-check: $tool not found (scripts/install-tools.sh installs it)"; exit 1; }
done
tmp=$(mktemp -d)
if [ "${COSIM_KEEP:-0}" = 1 ]; then echo "cosim-check: keeping $tmp"; else trap 'rm -rf "$tmp"' EXIT; fi
n=${COSIM_N:-3000}
seed=${COSIM_SEED:-1}
lib=$root/out/cosim
start=$(date +%s)
ok=0; bad=0
# secs T0: seconds since T0 (date +%s%N), one decimal.
secs() { local ms=$(( ($(date +%s%N) - $1) / 1000000 )); printf '%d.%d' $((ms / 1000)) $((ms % 1000 / 100)); }
pass() { ok=$((ok+1)); printf '%-46s %s\n' "$1:" "$2"; }
fail() { bad=$((bad+1)); printf '%-46s %s\n' "$1:" "FAILED: $2"; [ -n "${3:-}" ] && [ -f "$3" ] && head -20 "$3" | sed 's/^/    /'; }

# 1. The library (as make cosim builds it).
mkdir -p "$lib"
if ! go build -buildmode=c-shared -o "$lib/libmkeysim.so" ./cosim/libmkeysim > "$tmp/lib.log" 2>&1; then
  fail "libmkeysim.so" "go build failed" "$tmp/lib.log"; echo "cosim-check: cannot go on without the library"; exit 1
fi
rm -f "$lib/libmkeysim.h"
cp cosim/mkeysim.h "$lib/mkeysim.h"
pass "libmkeysim.so" "built ($(( $(stat -c %s "$lib/libmkeysim.so") / 1024 )) KiB)"

# 2. The C ABI test.
if gcc -std=c11 -Wall -Werror -Icosim cosim/test/abi_test.c -L"$lib" -lmkeysim -Wl,-rpath,"$lib" \
     -o "$tmp/abi_test" > "$tmp/abi.log" 2>&1 && "$tmp/abi_test" >> "$tmp/abi.log" 2>&1; then
  pass "C ABI test (cosim/test/abi_test.c)" "exit 0; $(grep -m1 '^abi_test: 1000 instances' "$tmp/abi.log" | sed 's/^abi_test: //')"
else
  fail "C ABI test (cosim/test/abi_test.c)" "build or run failed" "$tmp/abi.log"
fi

# 3. The DPI-C glue: C11 and C++, no warning.
if gcc -std=c11 -Wall -Wextra -Werror -fsyntax-only -Icosim -I"$(verilator --getenv VERILATOR_ROOT)/include/vltstd" \
     cosim/dpi/mkeysim_dpi.c > "$tmp/dpic.log" 2>&1 &&
   g++ -x c++ -Wall -Wextra -Werror -fsyntax-only -Icosim -I"$(verilator --getenv VERILATOR_ROOT)/include/vltstd" \
     cosim/dpi/mkeysim_dpi.c >> "$tmp/dpic.log" 2>&1; then
  pass "DPI-C glue (C11, C++)" "no warning"
else
  fail "DPI-C glue (C11, C++)" "warnings or errors" "$tmp/dpic.log"
fi

# 4. Verilator builds (scoreboard good and broken, API test) in the
# background at -j 1 each while Icarus runs. -O0: the build is the cost.
duts=("$root/vectors/hdl/mkeysim_protcheck.v" "$root/vectors/hdl/mkeysim_mttwalk.v" "$root/vectors/hdl/mkeysim_mptcache.v")
verilate() { # NAME TOP [DEFINES...] -- SOURCES...
  local name=$1 top=$2; shift 2
  local defs=()
  while [ "$1" != -- ]; do defs+=("$1"); shift; done
  shift
  verilator --binary -j 1 -MAKEFLAGS OPT_FAST=-O0 -MAKEFLAGS OPT_SLOW=-O0 -MAKEFLAGS OPT_GLOBAL=-O0 \
    -Wwarn-UNDRIVEN -Mdir "$tmp/obj_$name" --top-module "$top" -I"$root/cosim/tb" -CFLAGS "-I$root/cosim" \
    -LDFLAGS "-L$lib -lmkeysim -Wl,-rpath,$lib" "${defs[@]}" "$root/cosim/dpi/mkeysim_dpi.sv" "$@" \
    "$root/cosim/dpi/mkeysim_dpi.c" > "$tmp/vbuild_$name.log" 2>&1
  echo $? > "$tmp/vbuild_$name.rc"
}
vstart=$(date +%s)
verilate good live_tb -- "$root/cosim/tb/live_tb.sv" "$root/cosim/tb/api_tb.sv" "${duts[@]}" & vgood=$!
verilate broken live_tb -DMKEYSIM_BREAK -- "$root/cosim/tb/live_tb.sv" "$root/cosim/tb/api_tb.sv" "${duts[@]}" & vbroken=$!

# 5. The VPI module: no warning (iverilog-vpi compiles with -Wall -Wextra).
mkdir -p "$tmp/vpi"
if (cd "$tmp/vpi" && LD_RUN_PATH="$lib" iverilog-vpi --name=mkeysim -I"$root/cosim" "$root/cosim/vpi/mkeysim_vpi.c" \
      -L"$lib" -lmkeysim) > "$tmp/vpi.log" 2>&1 && [ -f "$tmp/vpi/mkeysim.vpi" ] && ! grep -qi 'warning' "$tmp/vpi.log"; then
  pass "VPI module (iverilog-vpi)" "built, no warning, run path $(readelf -d "$tmp/vpi/mkeysim.vpi" | sed -n 's/.*RUNPATH.*\[\(.*\)\]/\1/p')"
  # out/cosim then holds what make cosim leaves there (the same command),
  # which the README recipe (step 10) uses.
  cp "$tmp/vpi/mkeysim.vpi" "$lib/mkeysim.vpi"
else
  fail "VPI module (iverilog-vpi)" "build failed or warned" "$tmp/vpi.log"
fi

# 6. The VPI module's checks: a malformed call is refused before time 0;
# an X input at run time returns -2 with a message.
cat > "$tmp/vpi_bad.sv" <<'EOF'
module vpi_bad;
  bit [255:0] half; int odp, st; longint h;
  initial begin
    h = $mkeysim_new(-1);
    st = $mkeysim_query(h, 1, half, odp);
    $display("ran");
  end
endmodule
EOF
cat > "$tmp/vpi_x.sv" <<'EOF'
module vpi_x;
  logic [31:0] key; int st; longint h;
  initial begin
    h = $mkeysim_new(-1);
    st = $mkeysim_check(h, key, 0, 64'h0, 1, 1, 1, 0);
    $display("status %0d", st);
  end
endmodule
EOF
iverilog -g2012 -o "$tmp/vpi_bad.vvp" "$tmp/vpi_bad.sv" && vvp -n -M "$tmp/vpi" -m mkeysim "$tmp/vpi_bad.vvp" > "$tmp/vpi_bad.log" 2>&1; rc=$?
if [ $rc -ne 0 ] && grep -q 'mkeysim_query: argument 3 (mkc): must be exactly 512 bits' "$tmp/vpi_bad.log" && ! grep -q '^ran' "$tmp/vpi_bad.log"; then
  pass "VPI: malformed call refused" "exit $rc: $(grep -m1 ERROR "$tmp/vpi_bad.log" | sed 's/^.*vpi_bad.sv:/vpi_bad.sv:/')"
else
  fail "VPI: malformed call refused" "exit $rc" "$tmp/vpi_bad.log"
fi
iverilog -g2012 -o "$tmp/vpi_x.vvp" "$tmp/vpi_x.sv" && vvp -n -M "$tmp/vpi" -m mkeysim "$tmp/vpi_x.vvp" > "$tmp/vpi_x.log" 2>&1; rc=$?
if [ $rc -eq 0 ] && grep -q '^status -2$' "$tmp/vpi_x.log" && grep -q 'argument 2 (key): has X or Z bits' "$tmp/vpi_x.log"; then
  pass "VPI: X input refused at run time" "returns -2: $(grep -m1 ERROR "$tmp/vpi_x.log" | sed 's/^.*vpi_x.sv:/vpi_x.sv:/')"
else
  fail "VPI: X input refused at run time" "exit $rc" "$tmp/vpi_x.log"
fi

# check NAME EXPECT LOG RC: the scoreboard's verdict (EXPECT pass or fail).
total=$((4 * n))
check() {
  local name=$1 expect=$2 log=$3 rc=$4 summary units u
  summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -1)
  if [ "$expect" = pass ]; then
    if [ "$rc" -eq 0 ] && [ "$summary" = "$total passed, 0 failed" ] && grep -qE '^api_tb: [0-9]+ checks passed$' "$log"; then
      pass "$name" "$summary (exit $rc); $(grep -E '^api_tb: ' "$log")"; return
    fi
  else
    units=0
    for u in protcheck mttwalk mptcache_lru; do
      grep -qE "^unit $u: [0-9]+ passed, [1-9][0-9]* failed$" "$log" && units=$((units+1))
    done
    if [ "$rc" -ne 0 ] && grep -qE '^MISMATCH txn [0-9]+ unit [a-z_]+' "$log" && [ $units -eq 3 ]; then
      pass "$name" "${summary:-no summary} (exit $rc); caught in protcheck, mttwalk, mptcache_lru"
      grep -E '^MISMATCH txn' "$log" | head -3 | cut -c1-400 | sed 's/^/    /'
      return
    fi
  fi
  fail "$name" "wanted $expect; ${summary:-no summary line} (exit $rc)" "$log"
}

# 7. Icarus Verilog (VPI): the scoreboard (with the API checks) good and
# broken. iverilog loads the module too (-L -m), so that it compiles the
# functions as the signed ints they return.
icarus() { # NAME EXPECT [DEFINES...]
  local name=$1 expect=$2; shift 2
  local log=$tmp/icarus_$name.log rc t0
  if ! iverilog -g2012 "$@" -L "$tmp/vpi" -m mkeysim -I"$root/cosim/tb" -o "$tmp/live_$name.vvp" \
       "$root/cosim/tb/live_tb.sv" "$root/cosim/tb/api_tb.sv" "${duts[@]}" > "$log" 2>&1; then
    fail "icarus $name" "iverilog failed" "$log"; return
  fi
  t0=$(date +%s%N)
  timeout 120 vvp -n -M "$tmp/vpi" -m mkeysim "$tmp/live_$name.vvp" +SEED="$seed" +N="$n" +mkeysim_quiet > "$log" 2>&1; rc=$?
  check "icarus $name ($(secs "$t0") s)" "$expect" "$log" $rc
}
icarus good pass
icarus broken fail -DMKEYSIM_BREAK

# 8. Verilator (DPI-C): wait for the builds, check the DPI prototypes, run.
wait $vgood $vbroken
vbuild=$(( $(date +%s) - vstart ))
for name in good broken; do
  if [ "$(cat "$tmp/vbuild_$name.rc")" != 0 ] || grep -q '%Warning' "$tmp/vbuild_$name.log"; then
    fail "verilator build $name" "failed or warned" "$tmp/vbuild_$name.log"
  fi
done
if g++ -fsyntax-only -Icosim -I"$(verilator --getenv VERILATOR_ROOT)/include/vltstd" \
     -include "$tmp/obj_good/Vlive_tb__Dpi.h" cosim/dpi/mkeysim_dpi.c > "$tmp/proto.log" 2>&1; then
  pass "DPI-C glue matches Vlive_tb__Dpi.h" "same prototypes"
else
  fail "DPI-C glue matches Vlive_tb__Dpi.h" "conflicting prototypes" "$tmp/proto.log"
fi
verilated() { # NAME EXPECT
  local name=$1 expect=$2 log=$tmp/verilator_$1.log rc t0
  [ -x "$tmp/obj_$name/Vlive_tb" ] || { fail "verilator $name" "no binary"; return; }
  t0=$(date +%s%N)
  # $fatal aborts a Verilated binary (SIGABRT, exit 134): the inner shell's
  # "Aborted" notice goes to /dev/null.
  (cd "$tmp" && timeout 120 "$tmp/obj_$name/Vlive_tb" +SEED="$seed" +N="$n" +verilator+rand+reset+2 > "$log" 2>&1) 2>/dev/null; rc=$?
  check "verilator $name ($(secs "$t0") s)" "$expect" "$log" $rc
}
verilated good pass
verilated broken fail
echo "(the two Verilator builds, in parallel: $vbuild s)"

# 9. The same counts in both simulators (same seed, same draws).
counts() { grep -E '^(protcheck|mttwalk|mptcache|model|unit)' "$1"; }
if [ -s "$tmp/icarus_good.log" ] && [ -s "$tmp/verilator_good.log" ] &&
   diff <(counts "$tmp/icarus_good.log") <(counts "$tmp/verilator_good.log") > "$tmp/counts.diff"; then
  pass "same counts under Icarus and Verilator" "$(counts "$tmp/icarus_good.log" | wc -l) lines identical"
else
  fail "same counts under Icarus and Verilator" "they differ" "$tmp/counts.diff"
fi
echo "counts (seed $seed, $n transactions per DUT):"
counts "$tmp/icarus_good.log" | grep -v '^unit' | sed 's/^/    /'

# 10. The README's recipe, as a reader follows it: its seven lines and its
# object-creating example pasted into an existing testbench
# (cosim/test/recipe_tb.sv.tmpl), built with
# the README's commands under both simulators, must check every
# transaction and find no mismatch.
recipe() { # the README's line N ("// N:")
  awk '/^```systemverilog/{f=1;next} /^```/{f=0} f' cosim/README.md | grep -E "// $1: "
}
# The second systemverilog block: the README's object-creating example.
awk '/^```systemverilog/{k++; if (k==2) {f=1; next}} /^```/{f=0} f' cosim/README.md > "$tmp/recipe_create.sv"
awk -v r1="$(recipe 1)" -v r2="$(recipe 2)" -v r3="$(recipe 3)" -v r4="$(recipe 4)" -v r5="$(recipe 5)" \
    -v r6="$(recipe 6)" -v r7="$(recipe 7)" '
  /^\/\/@[1-7]$/ { k = substr($0, 4); print (k==1?r1:k==2?r2:k==3?r3:k==4?r4:k==5?r5:k==6?r6:r7); next }
  /^\/\/@create$/ { while ((getline l < create) > 0) print l; next }
  { print }' create="$tmp/recipe_create.sv" cosim/test/recipe_tb.sv.tmpl > "$tmp/recipe_tb.sv"
if [ "$(grep -c '// [1-7]: ' "$tmp/recipe_tb.sv")" -ne 7 ] || ! grep -q 'MKEYSIM_CREATE' "$tmp/recipe_create.sv"; then
  fail "README recipe" "cosim/README.md has not the seven numbered lines and the creating example" "$tmp/recipe_tb.sv"
else
  rdut=$root/vectors/hdl/mkeysim_protcheck.v
  (cd "$tmp" && verilator --binary -j 2 -Wwarn-UNDRIVEN --top-module recipe_tb -Mdir obj_recipe -I"$root/cosim/tb" \
     -CFLAGS "-I$root/cosim" -LDFLAGS "-L$lib -lmkeysim -Wl,-rpath,$lib" \
     "$root/cosim/dpi/mkeysim_dpi.sv" "$root/cosim/tb/mkeysim_formats.sv" recipe_tb.sv "$rdut" "$root/cosim/dpi/mkeysim_dpi.c" > recipe_vl.log 2>&1 &&
   obj_recipe/Vrecipe_tb +verilator+rand+reset+2 >> recipe_vl.log 2>&1); rcv=$?
  (cd "$tmp" && iverilog -g2012 -L "$lib" -m mkeysim -I"$root/cosim/tb" -o recipe.vvp "$root/cosim/tb/mkeysim_formats.sv" recipe_tb.sv "$rdut" > recipe_iv.log 2>&1 &&
   vvp -n -M "$lib" -m mkeysim recipe.vvp >> recipe_iv.log 2>&1); rci=$?
  want='recipe_tb: 300 transactions, 0 failed'
  if [ $rcv -eq 0 ] && [ $rci -eq 0 ] && grep -qx "$want" "$tmp/recipe_vl.log" && grep -qx "$want" "$tmp/recipe_iv.log"; then
    pass "README recipe (7 lines, both simulators)" "$want"
  else
    fail "README recipe (7 lines, both simulators)" "verilator exit $rcv, icarus exit $rci" "$tmp/recipe_vl.log"
    head -20 "$tmp/recipe_iv.log" | sed 's/^/    /'
  fi
fi

echo "cosim-check: $ok steps as expected, $bad not ($n transactions per DUT, seed $seed, $(( $(date +%s) - start )) s)"
[ $bad -eq 0 ]
