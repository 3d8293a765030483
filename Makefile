# rediskit: `make demo` and `make test` are the two commands of the README.
SHELL := /bin/bash
EXT := target/release/librediskit.so
TOOLS := php-tests/tools

.PHONY: all deps build demo test test-quick dist bench bench-cpu stubs fuzz install clean valgrind soak

all: build

deps:
	@$(TOOLS)/deps.sh

build: deps
	cargo build --release
	cargo build --quiet   # the debug build cargo-php reads stubs from

demo: build
	@$(TOOLS)/with-redis.sh php -n -d extension=$(CURDIR)/$(EXT) -d extension=posix examples/demo.php

# the whole matrix: this machine, then the Debian chroots of platform.sh
test: deps
	@$(TOOLS)/deps.sh --stubs
	@$(TOOLS)/test.sh

# this machine only, for development (PHPT=php-tests/lock_*.phpt for a subset)
test-quick: deps
	@$(TOOLS)/deps.sh --stubs
	@RK_PLATFORMS=host $(TOOLS)/test.sh

# PIE pre-packaged binaries, one per PHP of the matrix, in dist/
dist: build
	@$(TOOLS)/dist.sh
	@for p in $$($(TOOLS)/platform.sh list); do \
	  $(TOOLS)/platform.sh run $$p bash -c 'cargo build --release --locked --quiet && php-tests/tools/dist.sh' || exit 1; \
	done

# side by side with phpredis, Laravel and Symfony (installed by deps --bench),
# then bench-cpu's table; writes bench/results.md
bench: build
	@$(TOOLS)/deps.sh --bench
	@$(TOOLS)/with-redis.sh bench/run.sh

# client instructions per call (valgrind callgrind), rediskit vs its peers;
# ROWS="setScore top10" for a subset
bench-cpu: build
	@$(TOOLS)/deps.sh --bench
	@$(TOOLS)/with-redis.sh bench/cpu.sh

# the PHPT suite under valgrind memcheck (PHPT=php-tests/lb_*.phpt for a subset):
# memcheck errors and the extension's definite leaks must be 0
valgrind: deps
	@$(TOOLS)/valgrind.sh

# 1,000,000 mixed calls in one php-fpm worker: its RSS may grow < 1 MB after warm-up
soak: build
	@$(TOOLS)/soak.sh

stubs: build
	@$(TOOLS)/deps.sh --stubs
	@$(TOOLS)/stubs.sh

# longer fuzzing than make test's: each cargo-fuzz target and the PHP
# randomized test for FUZZ_SECONDS (default 300); RK_FUZZ_SEED=n replays a seed
fuzz: build
	@$(TOOLS)/deps.sh --fuzz
	@php-tests/fuzz/run.sh all $${FUZZ_SECONDS:-300}

install: build
	install -m 0755 $(EXT) "$$(php-config --extension-dir)/rediskit.so"
	@for d in /etc/php/*/mods-available; do \
	  [ -d "$$d" ] && echo "extension=rediskit.so" > "$$d/rediskit.ini" && echo "wrote $$d/rediskit.ini"; \
	done; \
	if command -v phpenmod >/dev/null; then phpenmod rediskit; \
	else echo "add 'extension=rediskit.so' to your php.ini"; fi

clean:
	cargo clean
