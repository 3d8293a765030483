#!/usr/bin/env bash
# `make tsan`: the connection layer's and the lock's cargo tests (the
# watchdog thread and the 8-thread test included) under ThreadSanitizer,
# against a throwaway redis-server. ThreadSanitizer needs a nightly toolchain
# with rust-src (std is rebuilt instrumented): installed with rustup when
# missing. Fails on any test failure or any ThreadSanitizer report.
set -u
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
if ! cargo +nightly --version >/dev/null 2>&1 || ! rustup component list --toolchain nightly --installed 2>/dev/null | grep -q '^rust-src'; then
  echo "tsan: installing a nightly toolchain with rust-src (rustup)"
  rustup toolchain install nightly --profile minimal --component rust-src >/dev/null || { echo "tsan: no nightly toolchain could be installed"; exit 1; }
fi
port=$(start_redis tsan) || exit 1
log="$RK_RUN_DIR/tsan.log"
host=$(rustc -vV | sed -n 's/^host: //p')
REDIS_URL="redis://127.0.0.1:$port" RUSTFLAGS="-Zsanitizer=thread" TSAN_OPTIONS="halt_on_error=0" \
  CARGO_TARGET_DIR="$TARGET/tsan" cargo +nightly test -Zbuild-std --target "$host" --lib -- lock:: conn:: >"$log" 2>&1
rc=$?
grep -E "^test result|FAILED|panicked" "$log"
reports=$(grep -c "WARNING: ThreadSanitizer" "$log")
[ "$reports" -gt 0 ] && grep -A30 "WARNING: ThreadSanitizer" "$log" | head -120
echo "tsan: $(grep -oE '[0-9]+ passed' "$log" | tail -1), exit $rc, $reports ThreadSanitizer report(s)"
[ $rc -eq 0 ] && [ "$reports" -eq 0 ]
