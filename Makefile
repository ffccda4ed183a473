# nocmsg: the two commands of the README, and the rest.
#   make demo   build everything; run hello.c on the 16 cores of a simulated chip and the network deadlock demo;
#               short versions of the experiments noc-load (latency vs load), micro-pimp (libnocmsg micro-benchmarks
#               on pimp-8x8) and bcast-algorithms (every bcast algorithm vs size and root), each into
#               results/NAME/ (data, plots, README); then a summary of the collectives' acceptance checks and the plots
#   make test   the whole test suite (Rust unit, property and integration tests with real C programs on the
#               simulator and natively; Python experiment tests)
#   make bench  simulator speed: results/bench/noc_speed.csv (network), results/bench/core_speed.csv (cores, integer
#               kernel on pimp-8x8) and results/bench/core_speed_fp.csv (double kernel bench/kernels/fp.c on
#               pimp-8x8 with rv64gc cores);
#               ping-pong: results/bench/pingpong_sim.csv (cycles on pimp-4x4) and pingpong_native.csv (libnocmsg
#               vs Open MPI on this machine, same run); every way of calling point-to-point (constant or variable
#               count, datatype and communicator, through libnocmsg and MPI): results/bench/p2p_paths.csv (cycles on
#               pimp-4x4 and pimp-8x8); collectives, every algorithm: results/bench/coll_*.csv
#               (bench/micro/coll.py: cycles on pimp-8x8 and ns natively)

PYTHON ?= python3
CARGO ?= cargo
NOCMSG := target/release/nocmsg

.PHONY: all demo test bench build setup clean

all: build

setup:
	@bash tools/setup.sh

build: setup
	$(CARGO) build --release --locked --workspace

DEMO := target/demo

demo: build
	mkdir -p $(DEMO)
	bin/nocmsg-cc -O2 -Wall tests/programs/hello.c -o $(DEMO)/hello.elf
	$(NOCMSG) run --chip chips/pimp-4x4.toml $(DEMO)/hello.elf
	$(NOCMSG) deadlock-demo || test $$? -eq 3
	$(PYTHON) -m experiments noc-load --quick
	$(PYTHON) -m experiments micro-pimp --quick
	$(PYTHON) -m experiments bcast-algorithms --quick
	$(PYTHON) -m experiments.summary results

test: build
	$(CARGO) test --locked --workspace
	NOCMSG=$(NOCMSG) $(PYTHON) -m pytest -q experiments/tests

bench: build
	mkdir -p target/bench
	bin/nocmsg-cc -O2 bench/kernels/compute.c -o target/bench/compute.elf
	$(NOCMSG) bench cores --program target/bench/compute.elf --chip chips/pimp-8x8.toml --csv results/bench/core_speed.csv
	sed -e 's/^\[core\]$$/[core]\nisa = "rv64gc"/' -e 's/^name = "pimp-8x8"/name = "pimp-8x8-rv64gc"/' chips/pimp-8x8.toml > target/bench/pimp-8x8-rv64gc.toml
	bin/nocmsg-cc --chip target/bench/pimp-8x8-rv64gc.toml -O2 bench/kernels/fp.c -o target/bench/fp.elf
	$(NOCMSG) bench cores --program target/bench/fp.elf --chip target/bench/pimp-8x8-rv64gc.toml --csv results/bench/core_speed_fp.csv
	bin/nocmsg-cc --chip chips/tilepro-64.toml -O2 bench/kernels/shmem.c -o target/bench/shmem.elf
	$(NOCMSG) bench cores --program target/bench/shmem.elf --chip chips/tilepro-64.toml --threads none --rounds 200 --csv results/bench/core_speed_shmem.csv
	$(NOCMSG) bench noc --csv results/bench/noc_speed.csv
	bash tools/setup.sh --bench
	NOCMSG=$(NOCMSG) $(PYTHON) bench/micro/pingpong.py --out results/bench
	NOCMSG=$(NOCMSG) $(PYTHON) bench/micro/p2p_paths.py --out results/bench
	NOCMSG=$(NOCMSG) $(PYTHON) bench/micro/coll.py --out results/bench

clean:
	$(CARGO) clean
	rm -rf results
