# Thin front end over CMake. The first two targets are the README's commands.
BUILD      ?= build
BUILD_ASAN ?= build-asan
JOBS       ?= $(shell nproc)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=RelWithDebInfo

.PHONY: all deps configure build demo test test-unit test-asan bench reproduce reproduce-synthetic reproduce-real-sensitivity reproduce-all lint area cosim-long mutate install example fuzz fuzz-ci soak soak-sigint clean

all: build

deps:
	@bash scripts/setup-deps.sh

$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

configure: deps $(BUILD)/CMakeCache.txt

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# The demo builds only gmmu-sim (no RTL, tests or experiments) and installs
# only the packages that needs; `make build` / `make test` build the rest.
demo:
	@bash scripts/setup-deps.sh demo
	@[ -f $(BUILD)/CMakeCache.txt ] || cmake -S . -B $(BUILD) $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS) --target gmmu-sim
	@bash scripts/demo.sh $(BUILD)

test-unit: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) --timeout 600

$(BUILD_ASAN)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD_ASAN) -DCMAKE_BUILD_TYPE=Debug -DGMMU_SANITIZE=ON \
	  -DGMMU_BUILD_EXPERIMENTS=OFF -DGMMU_BUILD_RTL=OFF

test-asan: deps $(BUILD_ASAN)/CMakeCache.txt
	cmake --build $(BUILD_ASAN) -j $(JOBS)
	cd $(BUILD_ASAN) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j $(JOBS) --timeout 900 -LE 'slow|cosim'

# make test = the normal build's tests (RTL co-simulation included), then the
# model and platform tests again under ASan+UBSan (the Verilated benches are
# left out of the sanitizer build: they check the RTL, not our C/C++).
test: test-unit test-asan

# libFuzzer harnesses (clang): each runs FUZZ_SECONDS on its corpus in
# build-fuzz/corpus/NAME, seeded from fuzz/seeds/NAME; a crash or mismatch
# stops it with the input saved as build-fuzz/crash-*.
BUILD_FUZZ   ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZERS      := fuzz_tlb fuzz_walk_merge fuzz_coalescer fuzz_pwc fuzz_walk_sched fuzz_kernel_text fuzz_config fuzz_trace
fuzz:
	@bash scripts/setup-deps.sh fuzz
	@[ -f $(BUILD_FUZZ)/CMakeCache.txt ] || cmake -S . -B $(BUILD_FUZZ) -DGMMU_FUZZ=ON \
	  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DGMMU_BUILD_RTL=OFF -DGMMU_BUILD_EXPERIMENTS=OFF
	cmake --build $(BUILD_FUZZ) -j $(JOBS) --target $(FUZZERS)
	@set -e; for f in $(FUZZERS); do \
	  mkdir -p $(BUILD_FUZZ)/corpus/$$f; \
	  echo "== $$f ($(FUZZ_SECONDS) s)"; \
	  if ( cd $(BUILD_FUZZ) && ./bin/$$f -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
	       -artifact_prefix=$$f- corpus/$$f $(abspath fuzz/seeds)/$$f > $$f.log 2>&1 ); then \
	    grep -E 'stat::(number_of_executed_units|new_units_added)' $(BUILD_FUZZ)/$$f.log; \
	  else \
	    tail -n 40 $(BUILD_FUZZ)/$$f.log; echo "fuzz: $$f failed (input saved in $(BUILD_FUZZ))"; exit 1; \
	  fi; \
	done

fuzz-ci:
	$(MAKE) fuzz FUZZ_SECONDS=30

# Soak (not CI): the platform over many configurations and seeds until
# SOAK_LANES (10^8) lanes are checked, 0 wrong (scripts/soak.sh).
soak: build
	bash scripts/soak.sh $(BUILD)

# Stop soak (not CI): SOAK_SECONDS (600) of random gmmu-sim runs, each sent
# SIGINT at a random time: every one exits 130 within 1 s, its outputs marked
# incomplete and never mixed (scripts/soak_sigint.sh).
soak-sigint: build
	bash scripts/soak_sigint.sh $(BUILD)

bench: build
	$(BUILD)/bin/gmmu-bench --out $(BUILD)/bench.json
	$(BUILD)/bin/gmmu-bench-stages --out $(BUILD)/bench_stages.json

# Every experiments/*/run.sh, as two chains side by side (experiments/reproduce.sh;
# each page's output in $(BUILD)/reproduce/PAGE.log).
reproduce: build
	BUILD_DIR=$(abspath $(BUILD)) bash experiments/reproduce.sh

# The synthetic workloads' pages (experiments/*/synthetic.sh: pichai_synthetic.md,
# warp_sched_synthetic.md, tbc_synthetic.md), one after another; each sweeps
# with JOBS jobs.
reproduce-synthetic: build
	@set -e; for f in experiments/*/synthetic.sh; do BUILD_DIR=$(abspath $(BUILD)) bash $$f; done

# The real kernels' sensitivity figures at two seeds (docs/results/real_sensitivity.md,
# about 35 minutes on two cores): what make reproduce's 45 minutes cannot hold. It reads
# (and runs, if they are not done) make reproduce's real-kernel sweeps.
reproduce-real-sensitivity: build
	BUILD_DIR=$(abspath $(BUILD)) bash experiments/real_sensitivity/reproduce_all.sh

# Every page of docs/results/: the experiments, the real kernels' sensitivity
# figures, the synthetic workloads' pages, then the RTL flows (hours on two
# cores: the 32-MSHR scheduler's generic synthesis alone takes ~85 minutes
# and ~15 GB of memory).
reproduce-all: reproduce
	$(MAKE) reproduce-real-sensitivity
	$(MAKE) reproduce-synthetic
	$(MAKE) area
	$(MAKE) mutate
	$(MAKE) cosim-long

# RTL flows: each tb/<block>/ may provide area.sh, mutate.sh, cosim_long.sh.
area: build
	@set -e; for f in tb/*/area.sh; do [ -f $$f ] || continue; BUILD_DIR=$(abspath $(BUILD)) bash $$f; done

# tb/dpi first: the C++ benches' pages (tb/pwc, tb/sched) carry its verdicts
# in their "DPI bench" column. Every flow runs; a failing one fails the target.
mutate: build
	@rc=0; for f in tb/dpi/mutate.sh tb/pwc/mutate.sh tb/sched/mutate.sh; do \
	  BUILD_DIR=$(abspath $(BUILD)) OBJCACHE=$${OBJCACHE-$$(command -v ccache)} bash $$f || rc=1; done; exit $$rc

cosim-long: build
	@rc=0; for f in tb/*/cosim_long.sh; do [ -f $$f ] || continue; BUILD_DIR=$(abspath $(BUILD)) bash $$f || rc=1; done; \
	python3 scripts/cosim_long_report.py $(abspath $(BUILD)) docs/results/cosim_long.md || rc=1; exit $$rc

lint:
	@set -e; for f in rtl/*.sv rtl/*.v; do [ -f $$f ] || continue; \
	  verilator --lint-only -Wall -Irtl $$f; done; echo "lint: clean"

# Install into a scratch prefix and build + run an example against the package.
# Every example, with CMake's find_package; the IOMMU SoC one also with pkg-config.
example: build
	rm -rf $(BUILD)/_install $(BUILD)/_example $(BUILD)/_soc $(BUILD)/_soc_smmu $(BUILD)/_soc_pc $(BUILD)/_sv
	cmake --install $(BUILD) --prefix $(abspath $(BUILD))/_install
	cmake -S examples/standalone -B $(BUILD)/_example -DCMAKE_PREFIX_PATH=$(abspath $(BUILD))/_install
	cmake --build $(BUILD)/_example -j $(JOBS)
	$(BUILD)/_example/smmu_demo
	cmake -S examples/soc_iommu -B $(BUILD)/_soc -DCMAKE_PREFIX_PATH=$(abspath $(BUILD))/_install
	cmake --build $(BUILD)/_soc -j $(JOBS)
	$(BUILD)/_soc/soc_iommu
	cmake -S examples/sv_scoreboard -B $(BUILD)/_sv -DCMAKE_PREFIX_PATH=$(abspath $(BUILD))/_install
	cmake --build $(BUILD)/_sv
	$(BUILD)/_sv/sv_scoreboard/sv_scoreboard
	cmake -S examples/soc_smmu -B $(BUILD)/_soc_smmu -DCMAKE_PREFIX_PATH=$(abspath $(BUILD))/_install
	cmake --build $(BUILD)/_soc_smmu -j $(JOBS)
	$(BUILD)/_soc_smmu/soc_smmu
	mkdir -p $(BUILD)/_soc_pc
	PKG_CONFIG_PATH=$(abspath $(BUILD))/_install/lib/pkgconfig; export PKG_CONFIG_PATH; \
	  $(CXX) -std=c++17 -o $(BUILD)/_soc_pc/soc_iommu examples/soc_iommu/main.cpp \
	  $$(pkg-config --cflags --libs gmmu)
	$(BUILD)/_soc_pc/soc_iommu

install: build
	cmake --install $(BUILD) --prefix $(or $(PREFIX),/usr/local)

clean:
	rm -rf $(BUILD) $(BUILD_ASAN)
