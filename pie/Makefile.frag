# Appended to the Makefile that phpize/configure write: `make` builds the
# extension with cargo against the PHP configure was pointed at, and leaves
# modules/rediskit.so where PIE and `make install` expect it.
RK_TARGET_DIR = $(if $(CARGO_TARGET_DIR),$(CARGO_TARGET_DIR),$(RK_SRCDIR)/target)

all: modules/rediskit.so
build-modules: modules/rediskit.so

modules/rediskit.so: FORCE
	cd "$(RK_SRCDIR)" && PHP_CONFIG="$(RK_PHP_CONFIG)" PHP="$$("$(RK_PHP_CONFIG)" --php-binary)" CARGO_TARGET_DIR="$(RK_TARGET_DIR)" "$(CARGO)" build --release --locked
	@mkdir -p modules
	cp "$(RK_TARGET_DIR)/release/librediskit.so" modules/rediskit.so

clean: rediskit-clean
rediskit-clean:
	rm -f modules/rediskit.so

FORCE:
.PHONY: FORCE rediskit-clean
