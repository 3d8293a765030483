#!/usr/bin/env bash
# The fuzzers of rediskit, each run for a bounded time (the `fuzz` stage of
# `make test`, and `make fuzz` for longer runs):
#
#   run.sh target NAME [SECONDS]   one cargo-fuzz (libFuzzer) target: dsn, options or reply (default 20 s)
#   run.sh php [SECONDS]           the PHP randomized test surface.php (default 60 s)
#   run.sh all [SECONDS]           the three targets and the PHP test, SECONDS each (default 60)
#
# The targets build with cargo-fuzz (php-tests/tools/deps.sh --fuzz installs
# it) on a nightly toolchain when rustup has one, else on the default one with
# RUSTC_BOOTSTRAP=1. New corpus entries and crash files go to target/fuzz/
# (never into the committed seeds of php-tests/fuzz/corpus/). Each prints a
# line "fuzz NAME: ok|FAILED, ..." and, on failure, how to reproduce.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
FUZZ_TARGET_DIR=$TARGET/fuzz
PHP=${PHP:-php}
EXT=${RK_EXT:-$TARGET/release/librediskit.so}

# cargo with PATH less the test suite's shims' directory (a new one each
# run): a PATH that changes makes ext-php-rs's build script, and everything
# built on it, build again
cargo() {
  local path=":$PATH:"
  [ -n "${RK_RUN_DIR:-}" ] && path=${path//":$RK_RUN_DIR/bin:"/:}
  path=${path#:}
  PATH=${path%:} command cargo "$@"
}

# the toolchain cargo-fuzz builds with: "+nightly" if rustup has one
toolchain() {
  if cargo +nightly --version >/dev/null 2>&1; then
    echo "+nightly"
  else
    echo ""
  fi
}

run_target() {
  local name=$1 secs=${2:-20} tc log leaks execs corpus
  case "$name" in dsn | options | reply) ;; *) echo "run.sh: unknown target '$name' (dsn, options, reply)" >&2; return 2 ;; esac
  if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "fuzz $name: FAILED, cargo-fuzz is missing (php-tests/tools/deps.sh --fuzz installs it)"
    return 1
  fi
  tc=$(toolchain)
  [ -z "$tc" ] && export RUSTC_BOOTSTRAP=1
  mkdir -p "$FUZZ_TARGET_DIR/corpus/$name" "$FUZZ_TARGET_DIR/artifacts/$name" "$FUZZ_TARGET_DIR/logs"
  log=$FUZZ_TARGET_DIR/logs/$name.log
  leaks=$FUZZ_TARGET_DIR/logs/$name.leaks
  rm -f "$leaks"
  local t0=$SECONDS
  # shellcheck disable=SC2086 # $tc is empty or one word
  if ! cargo $tc fuzz build --fuzz-dir php-tests/fuzz --target-dir "$FUZZ_TARGET_DIR" "$name" >"$log" 2>&1; then
    tail -30 "$log"
    echo "fuzz $name: FAILED, the target did not build (${tc:-RUSTC_BOOTSTRAP=1}; log: $log)"
    return 1
  fi
  local built=$((SECONDS - t0))
  local rc=0
  # shellcheck disable=SC2086
  RK_FUZZ_LEAKS=$leaks cargo $tc fuzz run --fuzz-dir php-tests/fuzz --target-dir "$FUZZ_TARGET_DIR" "$name" \
    "$FUZZ_TARGET_DIR/corpus/$name" "php-tests/fuzz/corpus/$name" -- \
    -max_total_time="$secs" -rss_limit_mb=2048 -malloc_limit_mb=512 -max_len=4096 -timeout=10 \
    -artifact_prefix="$FUZZ_TARGET_DIR/artifacts/$name/" -print_final_stats=1 >>"$log" 2>&1 || rc=$?
  execs=$(grep -oE "stat::number_of_executed_units: [0-9]+" "$log" | tail -1 | grep -oE "[0-9]+$")
  [ -z "$execs" ] && execs=$(grep -oE "^#[0-9]+" "$log" | tail -1 | tr -d '#')
  corpus=$(find "$FUZZ_TARGET_DIR/corpus/$name" "php-tests/fuzz/corpus/$name" -type f | wc -l)
  local nleaks=0
  [ -s "$leaks" ] && nleaks=$(wc -l <"$leaks")
  local what="${execs:-0} execs in $((SECONDS - t0 - built)) s (build $built s), corpus $corpus inputs"
  local artifact
  artifact=$(grep -oE "Test unit written to [^ ]+" "$log" | tail -1 | sed 's/Test unit written to //')
  if [ "$rc" -eq 0 ] && [ "$nleaks" -eq 0 ]; then
    echo "fuzz $name: ok, $what, no crash, no password leak"
    return 0
  fi
  echo "fuzz $name: FAILED, $what"
  if [ "$nleaks" -gt 0 ]; then
    echo "   $nleaks kinds of password leak (one example input each; the marker is ~S3~):"
    head -12 "$leaks" | while IFS=$'\t' read -r kind input out; do
      echo "   - $kind"
      echo "       input:  $input"
      echo "       output: $out"
    done
    [ "$nleaks" -gt 12 ] && echo "   ... $((nleaks - 12)) more kinds in $leaks"
  fi
  if [ "$rc" -ne 0 ]; then
    echo "   crash (exit $rc):"
    grep -E "panicked at|^PASSWORD LEAK|ERROR: libFuzzer|ERROR: AddressSanitizer|out-of-memory|SUMMARY" "$log" | head -8 | sed 's/^/     /'
    grep -A2 "panicked at" "$log" | sed -n 2p | cut -c1-600 | sed 's/^/     /'
    grep -m1 -E "at \./src/" "$log" | sed 's/^ */     first frame of rediskit: /'
    if [ -n "$artifact" ]; then
      echo "   crash input: $artifact"
      echo "   reproduce:   cargo ${tc:+$tc }fuzz run --fuzz-dir php-tests/fuzz --target-dir $FUZZ_TARGET_DIR $name $artifact"
      echo "   minimize:    cargo ${tc:+$tc }fuzz tmin --fuzz-dir php-tests/fuzz --target-dir $FUZZ_TARGET_DIR $name $artifact"
    fi
    echo "   log: $log"
  fi
  return 1
}

run_php() {
  local secs=${1:-60}
  [ -f "$EXT" ] || { echo "fuzz php: FAILED, no extension at $EXT (cargo build --release)"; return 1; }
  local out rc=0
  out=$(RK_EXT="$EXT" RK_FUZZ_SECONDS="$secs" "$PHP" -n -d extension=posix php-tests/fuzz/surface.php 2>&1) || rc=$?
  echo "$out"
  local line
  line=$(echo "$out" | grep -E "^surface fuzz: seed [0-9]+, [0-9]+ calls" | tail -1 | sed 's/^surface fuzz: //')
  if [ "$rc" -eq 0 ]; then
    echo "fuzz php: ok, $line"
  else
    echo "fuzz php: FAILED, ${line:-exit $rc}"
  fi
  return $rc
}

case "${1:-all}" in
  target) run_target "${2:?target name}" "${3:-20}" ;;
  php) run_php "${2:-60}" ;;
  all)
    s=${2:-60} bad=0
    for t in dsn options reply; do run_target "$t" "$s" || bad=$((bad + 1)); done
    run_php "$s" || bad=$((bad + 1))
    echo "fuzz: $((4 - bad)) passed, $bad failed"
    [ "$bad" -eq 0 ]
    ;;
  *) echo "usage: run.sh target NAME [SECONDS] | php [SECONDS] | all [SECONDS]" >&2; exit 2 ;;
esac
