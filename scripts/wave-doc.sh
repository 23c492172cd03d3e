#!/usr/bin/env bash
# wave-doc.sh [BIN]
#
# Remakes docs/wave.png, the picture of docs/waveform.md: the default run
# (what `make run` runs) traced over its first 420 cycles, where the first
# translations go through an MKC miss, the checks and an MTT fetch, shown
# by GTKWave with the save file mkeysim writes (scripts/wave-shot.sh).
# BIN defaults to bin/mkeysim; the waveform goes to out/wave.*.
set -eu -o pipefail

bin=${1:-bin/mkeysim}
cd "$(dirname "$0")/.."
[ -x "$bin" ] || { echo "wave-doc: $bin is not an executable (make build)" >&2; exit 2; }
mkdir -p out docs
"$bin" run --quiet --out out/wave.jsonl --vcd out/wave.vcd --vcd-to 420
bash scripts/wave-shot.sh out/wave.vcd out/wave.gtkw docs/wave.png
