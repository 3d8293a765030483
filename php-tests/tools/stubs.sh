#!/usr/bin/env bash
# `make stubs` writes stubs/rediskit.stubs.php from the built extension
# (cargo-php 0.2.x); with --check, fails if the committed file differs.
set -u
cd "$(dirname "$0")/../.."
# cargo as the build stage runs it (same PATH, PHP and PHP_CONFIG): its
# debug build is reused, not made again
source php-tests/tools/lib.sh
raw=$(cargo php stubs --stdout 2>/dev/null) || { echo "cargo php stubs failed (run: php-tests/tools/deps.sh --stubs)"; exit 1; }
fixed=$(echo "$raw" | php -n -d extension="${CARGO_TARGET_DIR:-$PWD/target}/debug/librediskit.so" php-tests/tools/fix-stubs.php) || exit 1
# the same file twice: in stubs/ and in the composer package rediskit/stubs
files="stubs/rediskit.stubs.php packages/stubs/rediskit.stubs.php"
if [ "${1:-}" = "--check" ]; then
  bad=0
  for f in $files; do
    if ! diff -u "$f" <(echo "$fixed"); then
      echo "$f is out of date: run 'make stubs' and commit it"
      bad=1
    fi
  done
  [ $bad = 0 ] && echo "stubs up to date ($files)"
  exit $bad
else
  for f in $files; do
    mkdir -p "$(dirname "$f")"
    echo "$fixed" > "$f"
    echo "wrote $f"
  done
fi
