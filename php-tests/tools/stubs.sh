#!/usr/bin/env bash
# `make stubs` writes stubs/rediskit.stubs.php from the built extension
# (cargo-php 0.2.x); with --check, fails if the committed file differs.
set -u
cd "$(dirname "$0")/../.."
raw=$(cargo php stubs --stdout 2>/dev/null) || { echo "cargo php stubs failed (run: php-tests/tools/deps.sh --stubs)"; exit 1; }
fixed=$(echo "$raw" | php -n -d extension="$PWD/target/debug/librediskit.so" php-tests/tools/fix-stubs.php) || exit 1
if [ "${1:-}" = "--check" ]; then
  if ! diff -u stubs/rediskit.stubs.php <(echo "$fixed"); then
    echo "stubs/rediskit.stubs.php is out of date: run 'make stubs' and commit it"
    exit 1
  fi
  echo "stubs up to date"
else
  mkdir -p stubs
  echo "$fixed" > stubs/rediskit.stubs.php
  echo "wrote stubs/rediskit.stubs.php"
fi
