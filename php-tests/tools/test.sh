#!/usr/bin/env bash
# `make test`: cargo tests, the PHPT suite, the stubs check and the PHP-FPM
# check, each against redis-servers started here; ends with "N passed, N failed".
set -u
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
passed=0
failed=0
count() { passed=$((passed + $1)); failed=$((failed + $2)); }

port=$(start_redis main) || { echo "0 passed, 1 failed"; exit 1; }
export REDIS_URL="redis://127.0.0.1:$port"
echo "== redis-server for tests: $REDIS_URL"

echo "== cargo test"
out=$(cargo test --quiet 2>&1); rc=$?
echo "$out" | grep -E "^test .* (FAILED|ok)$|panicked|test result|error" | grep -v " ok$" || true
p=$(echo "$out" | grep -oE "test result: [a-zA-Z]+\. [0-9]+ passed; [0-9]+ failed" | awk '{s+=$4} END {print s+0}')
f=$(echo "$out" | grep -oE "[0-9]+ failed" | awk '{s+=$1} END {print s+0}')
[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && { echo "$out" | tail -30; f=1; }
count "$p" "$f"

RUNTESTS="$(php-config --extension-dir)/build/run-tests.php"
[ -f "$RUNTESTS" ] || RUNTESTS=$(find /usr/lib/php /usr/local/lib/php -name run-tests.php 2>/dev/null | head -1)
PHPBIN=$(command -v "$PHP")
# run_phpt FILES...: PHP's own run-tests.php on the release build
run_phpt() {
  local out p f s b w
  out=$(TEST_PHP_EXECUTABLE="$PHPBIN" NO_INTERACTION=1 "$PHPBIN" -n "$RUNTESTS" -q -n -p "$PHPBIN" \
    -d extension="$EXT" -d extension=posix --show-diff -j2 "$@" 2>&1)
  echo "$out" | tr '\r' '\n' | sed 's/\x1b\[[0-9;]*m//g' | grep -E "^(FAIL|BORK|LEAK|SKIP|WARN) |^[0-9]{3}[+-] |^Tests (passed|failed|skipped|warned)" | head -200
  num() { echo "$out" | grep -E "^$1" | head -1 | grep -oE "[0-9]+" | head -1; }
  p=$(num "Tests passed"); f=$(num "Tests failed"); s=$(num "Tests skipped"); b=$(num "Tests borked"); w=$(num "Tests warned")
  [ -z "$p" ] && { echo "$out" | tail -20; p=0; f=1; }
  # a skipped test did not prove anything: it counts as failed
  count "${p:-0}" "$(( ${f:-0} + ${s:-0} + ${b:-0} + ${w:-0} ))"
}

echo "== PHPT suite (single redis-server)"
run_phpt ${PHPT:-php-tests/*.phpt}

if [ -z "${PHPT:-}" ] || [ -n "${TOPOLOGY:-}" ]; then
  topo_tests=$(grep -vE '^\s*(#|$)' php-tests/topology.list | sed 's#^#php-tests/#')
  echo "== core PHPT cases against a 6-node Redis Cluster"
  if cports=$(start_cluster); then
    set -- $cports
    RK_CONNECTION="{\"cluster\":[\"redis://127.0.0.1:$1\",\"redis://127.0.0.1:$2\",\"redis://127.0.0.1:$3\"]}" \
      REDIS_URL="redis://127.0.0.1:$1" run_phpt $topo_tests
  else
    count 0 1
  fi
  echo "== core PHPT cases behind Redis Sentinel"
  if sports=$(start_sentinel_group); then
    set -- $sports
    RK_CONNECTION="{\"sentinel\":[\"redis://127.0.0.1:$3\",\"redis://127.0.0.1:$4\",\"redis://127.0.0.1:$5\"],\"service\":\"rkmaster\"}" \
      REDIS_URL="redis://127.0.0.1:$1" run_phpt $topo_tests
  else
    count 0 1
  fi
fi

echo "== stubs match the built extension"
if php-tests/tools/stubs.sh --check; then count 1 0; else count 0 1; fi

echo "== PHP-FPM: persistent connections across requests"
if php-tests/tools/fpm-check.sh; then count 1 0; else count 0 1; fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
