# Convenience targets. Plain `cargo build --release` is always enough; these
# add the native-CPU build and the long-running checks.
CARGO ?= cargo
BIN := target/release/chuhe

.PHONY: build native tune stats test bench perft clippy fmt

.DEFAULT_GOAL := build

build:
	$(CARGO) build --release

# Uses the build machine's instruction set (BMI2, AVX2, ...): fastest, not portable.
native:
	RUSTFLAGS="-C target-cpu=native" $(CARGO) build --release

# An engine whose search parameters are options, for `chuhe tune` (SPSA):
# target/tune/release/chuhe. Slower than the real build; never for play.
tune:
	$(CARGO) build --release --features tune --target-dir target/tune

# A build that counts the search tree by node type (cut-offs, reductions,
# pruning, extensions) and prints the counts after `chuhe bench`:
# target/stats/release/chuhe. For diagnosis; the counting slows it.
stats:
	$(CARGO) build --release --features stats --target-dir target/stats

test:
	$(CARGO) test

bench:
	$(CARGO) bench

perft: build
	$(BIN) perft --depth 6

clippy:
	$(CARGO) clippy --release --all-targets -- -D warnings

fmt:
	$(CARGO) fmt --all
