# rediskit: `make demo` and `make test` are the two commands of the README.
SHELL := /bin/bash
EXT := target/release/librediskit.so
TOOLS := php-tests/tools

.PHONY: all deps build demo test test-quick test-arm64 dist bench bench-cpu stubs fuzz install uninstall docs clean valgrind soak tsan failover

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

# the whole PHPT suite on arm64 (trixie's PHP 8.4 and redis-server, under
# qemu-user); make test runs the subset in php-tests/arm64.list
test-arm64: deps
	@RK_ARM64_FULL=1 $(TOOLS)/platform.sh run trixie-arm64 php-tests/tools/suite.sh

# this machine only, for development (PHPT=php-tests/lock_*.phpt for a subset)
test-quick: deps
	@$(TOOLS)/deps.sh --stubs
	@RK_PLATFORMS=host $(TOOLS)/test.sh

# PIE pre-packaged binaries, one per PHP of the matrix (x86_64, the ZTS
# PHP 8.4, and arm64 cross-compiled), in dist/; each is loaded and runs the demo
dist: build
	@$(TOOLS)/dist.sh
	@for p in $$($(TOOLS)/platform.sh list); do \
	  case $$p in \
	    *-arm64) $(TOOLS)/platform.sh run $$p php-tests/tools/dist.sh || exit 1 ;; \
	    *) $(TOOLS)/platform.sh run $$p bash -c 'cargo build --release --locked --quiet && php-tests/tools/dist.sh' || exit 1 ;; \
	  esac; \
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

# 1,000,000 mixed calls in one php-fpm worker, then in one long-running CLI worker
# (1,000 object names, 100 reconnects): RSS may grow < 1 MB after warm-up
soak: build
	@$(TOOLS)/soak.sh

# the failover campaign: Sentinel and Cluster, 10 rounds of each fault
# (primary killed, paused, forced failover, partitioned from its peers) under
# load, checked from the full history (make test runs 1 round of each);
# RKFO_ROUNDS=n, RKFO_FAULTS="kill partition", RKFO_TOPOLOGIES=cluster for a part
failover: build
	@RKFO_ROUNDS=$${RKFO_ROUNDS:-10} RKFO_JSON=$${RKFO_JSON:-$(CURDIR)/target/failover.json} $(TOOLS)/failover.sh

# the connection layer's and the lock's cargo tests (threads, the watchdog)
# under ThreadSanitizer (a nightly toolchain with rust-src, installed if missing)
tsan: deps
	@$(TOOLS)/tsan.sh

# the PHP blocks of README.md and docs/ against a throwaway server (also in make test)
docs: build
	@$(TOOLS)/doctest.sh

stubs: build
	@$(TOOLS)/deps.sh --stubs
	@$(TOOLS)/stubs.sh

# longer fuzzing than make test's: each cargo-fuzz target and the PHP
# randomized test for FUZZ_SECONDS (default 300); RK_FUZZ_SEED=n replays a seed
fuzz: build
	@$(TOOLS)/deps.sh --fuzz
	@php-tests/fuzz/run.sh all $${FUZZ_SECONDS:-300}

# for one PHP: the php-config on PATH, or PHP_CONFIG=/usr/bin/php-config8.4
# (built for that PHP); the ini is written and enabled for that PHP only.
# DESTDIR=/staging installs below /staging.
install: deps
	$(if $(PHP_CONFIG),PHP_CONFIG="$(PHP_CONFIG)" PHP="$$("$(PHP_CONFIG)" --php-binary)") cargo build --release
	@PHP_CONFIG="$(PHP_CONFIG)" DESTDIR="$(DESTDIR)" $(TOOLS)/install.sh install $(EXT)

# removes what `make install` wrote for that PHP (PHP_CONFIG=, DESTDIR= as there)
uninstall:
	@PHP_CONFIG="$(PHP_CONFIG)" DESTDIR="$(DESTDIR)" $(TOOLS)/install.sh uninstall

clean:
	cargo clean
