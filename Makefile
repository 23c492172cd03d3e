# mkeysim: `make run` runs the clocked model on the default workload,
# `make test` runs every test (installing the tools it needs first).

GO      ?= go
BIN     := bin/mkeysim
OUT     := out
SHARED  ?= ../shared
export GOFLAGS ?= -mod=mod

.PHONY: all build run test tools vet lint unit conformance wave bench vectors vectors-check cosim cosim-check clean soak vs-before same-as

all: build

# The binary reports its module version and commit from the build
# information Go records (mkeysim --version); -buildvcs=auto records the
# commit whenever the tree is a checkout, whatever GOFLAGS says.
build:
	$(GO) build -buildvcs=auto -o $(BIN) ./cmd/mkeysim

# The main job: the default workload (1024 keys, 100k accesses, UMR and
# invalidation traffic) through the clocked model, checked against the
# golden model, with its results, statistics and waveform in out/.
run: build
	@mkdir -p $(OUT)
	$(BIN) run --out $(OUT)/default.jsonl --stats $(OUT)/stats.json --vcd $(OUT)/default.vcd
	@echo "results: $(OUT)/default.jsonl  statistics: $(OUT)/stats.json  waveform: $(OUT)/default.vcd (make wave)"

# Every test: tools, vet, unit and property tests, both models on the
# shared conformance scenarios and the examples, the Verilog replays of
# the golden vectors and the live co-simulation. The last two are Go tests
# too (go test ./vectors ./live run them); here they run as their own
# steps so that their reports (each replay's verdict, a broken DUT's
# first mismatch) show in make test's output.
test: tools lint unit conformance vectors-check cosim-check
	@echo "make test: all passed"

# The guard of every test step: no file any test writes may pass
# FSIZE_LIMIT_KB (ulimit -f, KiB; 8 GiB), so that a test gone wrong (a
# model writing without end) dies of SIGXFSZ instead of filling the disk.
# The largest file the tests legitimately write is far smaller (README,
# Tests). .ci/run sets the same limit for the whole of make test.
FSIZE_LIMIT_KB ?= 8388608
GUARD := ulimit -f $(FSIZE_LIMIT_KB) 2>/dev/null || true;

tools:
	@bash scripts/install-tools.sh

vet:
	$(GO) vet ./...

lint: vet
	@unformatted=$$("$$($(GO) env GOROOT)/bin/gofmt" -l .); if [ -n "$$unformatted" ]; then echo "gofmt -w these files:"; echo "$$unformatted"; exit 1; fi
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.6.1 ./...

unit:
	$(GUARD) MKEYSIM_REQUIRE_TOOLS=1 $(GO) test -count=1 -timeout 15m -skip '^(TestVerilogReplay|TestCosimCheck)$$' ./...

# Both models on every shared conformance scenario and every hazard
# (inputs that made an earlier build run away), through the command line,
# each with a deadline and a cap on its output, compared with the shared
# comparator.
conformance: build
	@$(GUARD) SHARED=$(SHARED) bash scripts/conformance.sh $(BIN) $(SHARED)/conformance $(SHARED)/hazards examples

# Golden vectors for every unit into out/vectors (vectors/README.md).
vectors: build
	$(BIN) vectors --unit all --count 4096 --seed 1 --out $(OUT)/vectors

# Replays them under Icarus Verilog and Verilator against vectors/hdl/.
vectors-check: build tools
	@$(GUARD) bash scripts/vectors-check.sh $(BIN)

# The golden model as a C library for live co-simulation (cosim/README.md):
# out/cosim/libmkeysim.so with its header mkeysim.h (cgo's own generated
# header is removed: mkeysim.h is the documented one, checked against the
# exports when the library builds), and, where Icarus Verilog is
# installed, its VPI module out/cosim/mkeysim.vpi.
cosim:
	@mkdir -p $(OUT)/cosim
	$(GO) build -buildmode=c-shared -o $(OUT)/cosim/libmkeysim.so ./cosim/libmkeysim
	@rm -f $(OUT)/cosim/libmkeysim.h
	cp cosim/mkeysim.h $(OUT)/cosim/mkeysim.h
	@if command -v iverilog-vpi >/dev/null; then \
	  cd $(OUT)/cosim && LD_RUN_PATH=$(CURDIR)/$(OUT)/cosim iverilog-vpi --name=mkeysim -I$(CURDIR)/cosim \
	    $(CURDIR)/cosim/vpi/mkeysim_vpi.c -L$(CURDIR)/$(OUT)/cosim -lmkeysim >/dev/null && rm -f mkeysim_vpi.o && echo "$(OUT)/cosim/mkeysim.vpi"; \
	else echo "no iverilog-vpi: $(OUT)/cosim/mkeysim.vpi not built (make tools installs Icarus Verilog)"; fi

# The live scoreboard under Verilator (DPI-C) and Icarus (VPI), good and
# broken DUTs, and the C test (make test runs it through go test ./live).
cosim-check: tools
	@$(GUARD) bash scripts/cosim-check.sh

wave:
	@if [ -n "$$DISPLAY" ]; then gtkwave $(OUT)/default.vcd $(OUT)/default.gtkw; \
	else echo "no display: open $(OUT)/default.vcd with $(OUT)/default.gtkw in GTKWave"; fi

# The speed table of the README: the golden model (1K and 1M keys, KLM),
# the clocked model on a hit-bound, a miss-bound and the default workload,
# the default workload with the data path on and with the host IOMMU on
# (sweep's BenchmarkDataWorkload, BenchmarkIOMMUWorkload), an idle cycle
# and the cost of tracing, each the median of BENCH_COUNT
# runs with its spread, in one run of the machine; then, where valgrind
# is installed, the instructions per access of the same workloads, which
# do not move with the machine's load, and their split by layer
# (scripts/instr-bench.sh, scripts/cglayers).
BENCH_COUNT ?= 5
bench: build
	@mkdir -p $(OUT)
	@$(GO) test -run XXX -bench 'Translate|Workload$$|Idle|TraceCost' -count $(BENCH_COUNT) ./ref/ ./tb/ ./tb/wave/ | tee $(OUT)/bench.txt | $(GO) run ./scripts/benchtable
	@echo
	@if command -v valgrind >/dev/null; then echo "counting instructions under cachegrind (half a minute)..." && \
		bash scripts/instr-bench.sh $(BIN) >$(OUT)/instr.txt && cat $(OUT)/instr.txt; \
	else echo "instructions per access: skipped, valgrind is not installed (sudo apt-get install valgrind)"; fi

# Outside CI: a change's check against the code before it. With BASE (a
# commit), a refactoring's: this checkout's results with their cycles,
# statistics and VCDs byte for byte against BASE's (scripts/same-as.sh,
# about a minute), then the speed-ups of the same workloads side by side
# (scripts/vs-before.sh). Without BASE, issue 10's: the code before the
# new kernel (f5dde44) against this checkout, results identical and the
# speed-ups of the README's table (5 rounds, about four minutes; ROUNDS=9
# for more).
ROUNDS ?= 5
vs-before:
ifeq ($(origin BASE),command line)
	bash scripts/same-as.sh $(BASE)
	bash scripts/vs-before.sh $(ROUNDS) $(BASE)
else
	bash scripts/vs-before.sh $(ROUNDS)
endif

# A refactoring's check alone (scripts/same-as.sh): this checkout against
# BASE (default HEAD), byte for byte: results with their cycles,
# statistics and VCDs of every example, a million random operations, and
# a VCD of 20,000 (about half a minute).
BASE ?= HEAD
same-as:
	bash scripts/same-as.sh $(BASE)

clean:
	rm -rf bin $(OUT)

# Outside CI: ten million random operations over 100,000 keys with every
# channel stalled at random in 10% of the cycles, each result checked
# against the golden model (CI runs a million: go test ./tb -run TestSoak).
soak:
	$(GO) test ./tb -run 'TestSoak$$' -v -count=1 -timeout 0 -soak.ops 10000000 -soak.keys 100000

# A small parameter sweep (docs/sweep.md): MKC cache sets x ways on a
# shorter default workload; tables and plots in out/sweep.
.PHONY: sweep
sweep: build
	$(BIN) sweep --vary mkc_cache.sets=32..256*2 --vary mkc_cache.ways=1,2,4,8 --workload.accesses 20000 --out $(OUT)/sweep
