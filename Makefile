# nocmsg: the two commands of the README, and the rest.
#   make demo   build everything, run a short latency-vs-load sweep, write results/noc-load/ (plot, data, README)
#   make test   the whole test suite (Rust unit, property and integration tests; Python experiment tests)
#   make bench  simulator speed benchmarks -> results/bench/noc_speed.csv

PYTHON ?= python3
CARGO ?= cargo
NOCMSG := target/release/nocmsg

.PHONY: all demo test bench build setup clean

all: build

setup:
	@bash tools/setup.sh

build: setup
	$(CARGO) build --release --locked --workspace

demo: build
	$(NOCMSG) deadlock-demo || test $$? -eq 3
	$(PYTHON) -m experiments noc-load --quick

test: build
	$(CARGO) test --locked --workspace
	NOCMSG=$(NOCMSG) $(PYTHON) -m pytest -q experiments/tests

bench: build
	$(NOCMSG) bench noc --csv results/bench/noc_speed.csv

clean:
	$(CARGO) clean
	rm -rf results
