#!/usr/bin/env bash
# One platform of the matrix, on this machine or inside a chroot of
# platform.sh: a build against this PHP, cargo test, the PHPT suite (against
# Redis, again against Valkey where both are installed, then against a local
# cluster and a sentinel group), the stubs check, the PHP-FPM check, the PIE
# source build and the pre-packaged binary. Ends with
# "platform NAME: N passed, N failed".
#
# PHPT=files runs only those PHPT files (and skips the other stages unless
# STAGES says otherwise). STAGES="build cargo phpt valkey cluster sentinel
# stubs laravel symfony psr docs install fpm pie dist fault failover fuzz apache embed" picks stages. The fault stage (network faults
# between PHP and Redis, php-tests/tools/fault.sh) and the failover slice
# (php-tests/tools/failover.sh, one round of each fault) run on the host only. On a
# thread-safe PHP (the trixie-zts platform) the default stages are the build,
# the PHPT suite, the pre-packaged binary, the threaded Apache load test
# (php-tests/tools/apache-zts.sh) and the threaded embed SAPI test
# (php-tests/tools/embed-zts.sh): the rest is the same code as trixie's.
# RK_FUZZ_SECONDS (default 60 on this machine, 30 in a chroot, where it
# runs the same code on another PHP) bounds the fuzz stage's PHP randomized test,
# RK_FUZZ_RUST_SECONDS (default 60) its cargo-fuzz targets (in all, split
# between them; those run on the host only).
set -u
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
platform=${RK_PLATFORM:-host}
passed=0
failed=0
count() { passed=$((passed + $1)); failed=$((failed + $2)); }
# count_from FILE WHAT: counts the "WHAT: N passed, N failed" line a stage's
# tool printed into FILE; no such line (the tool died) counts as 1 failed
count_from() {
  local line
  line=$(grep -E "^$2: [0-9]+ passed, [0-9]+ failed$" "$1" | tail -1)
  if [ -n "$line" ]; then
    set -- $(echo "${line#*: }" | grep -oE "[0-9]+")
    count "$1" "$2"
  else
    echo "   the $2 stage did not finish (counted as 1 failed)"
    count 0 1
  fi
}
if [ -n "${STAGES:-}" ]; then :
# an arm64 platform: built on the host (cross-compiled), tested here under
# qemu: the pre-packaged binary, and the PHPT files platform.sh names
elif [ "$(uname -m)" = aarch64 ]; then STAGES="dist${PHPT:+ phpt}"
elif [ -n "${PHPT:-}" ]; then STAGES="build phpt ${TOPOLOGY:+cluster sentinel}"
elif [ "$("$PHP" -n -r 'echo PHP_ZTS;')" = 1 ]; then STAGES="build phpt dist apache embed"
else STAGES="build cargo phpt valkey cluster sentinel stubs laravel symfony psr dashboard docs install fpm pie dist fault failover fuzz"
fi
want() { [[ " $STAGES " == *" $1 "* ]]; }
t_stage=$SECONDS
stage() {
  [ -n "${stage_name:-}" ] && echo "   ($stage_name: $((SECONDS - t_stage)) s)"
  stage_name=$1; t_stage=$SECONDS
  [ -n "$1" ] && echo "== [$platform] $1"
}
finish() {
  stage ""
  echo "platform $platform: $passed passed, $failed failed"
  exit $([ "$failed" -eq 0 ] && echo 0 || echo 1)
}

PHPBIN=$(command -v "$PHP")
PHPVER=$("$PHPBIN" -n -r 'echo PHP_MAJOR_VERSION, ".", PHP_MINOR_VERSION;')
echo "== [$platform] PHP $("$PHPBIN" -n -r 'echo PHP_VERSION;'), $(server_version)$(command -v valkey-server >/dev/null && [ "$(command -v valkey-server)" != "$REDIS_SERVER" ] && echo ", $(valkey-server --version | grep -oE 'v=[0-9.]+' | sed 's/v=/Valkey /')")"

if want build; then
  stage "build against PHP $PHPVER"
  if cargo build --release --locked --quiet && cargo build --locked --quiet; then count 1 0; else count 0 1; finish; fi
fi

port=$(start_redis main) || { count 0 1; finish; }
export REDIS_URL="redis://127.0.0.1:$port"

if want cargo; then
  stage "cargo test ($(server_version))"
  out=$(cargo test --locked --quiet 2>&1); rc=$?
  echo "$out" | grep -E "^test .* (FAILED|ok)$|panicked|test result|error" | grep -v " ok$" || true
  p=$(echo "$out" | grep -oE "test result: [a-zA-Z]+\. [0-9]+ passed; [0-9]+ failed" | awk '{s+=$4} END {print s+0}')
  f=$(echo "$out" | grep -oE "[0-9]+ failed" | awk '{s+=$1} END {print s+0}')
  [ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && { echo "$out" | tail -30; f=1; }
  count "$p" "$f"
fi

RUNTESTS="$("${PHPBIN}-config" --extension-dir 2>/dev/null || php-config --extension-dir)/build/run-tests.php"
[ -f "$RUNTESTS" ] || RUNTESTS="$(dirname "$PHPBIN")/../lib/php/build/run-tests.php"
[ -f "$RUNTESTS" ] || RUNTESTS=$(find /usr/lib/php /usr/local/lib/php -name run-tests.php 2>/dev/null | head -1)
# run-tests.php retries a failed test once when its code calls usleep() or
# microtime() (most of ours) and keeps nothing of the first attempt; a copy
# without that retry shows a flake as the failure it is, with its diff.
if grep -q 'error_may_be_retried($test, $output)' "$RUNTESTS"; then
  sed 's/error_may_be_retried(\$test, \$output)/false/' "$RUNTESTS" >"$RK_RUN_DIR/run-tests.php"
  RUNTESTS="$RK_RUN_DIR/run-tests.php"
fi
# run_phpt FILES...: PHP's own run-tests.php on the release build. Its
# automatic retry of "flaky" tests is off: a flake is a failure. Four tests
# at a time (RK_PHPT_JOBS): they mostly wait (on servers, timeouts, other
# processes), a third of one core busy at two, and each starts what it needs
# on ports of its own.
run_phpt() {
  local out p f s b w
  out=$(TEST_PHP_EXECUTABLE="$PHPBIN" NO_INTERACTION=1 SKIP_ONLINE_TESTS=1 "$PHPBIN" -n "$RUNTESTS" -q -n -p "$PHPBIN" \
    -d extension="$EXT" -d extension=posix ${RK_PHPT_ARGS:-} --show-diff --no-progress -j"${RK_PHPT_JOBS:-4}" ${RK_PHPT_TIMEOUT:+--set-timeout "$RK_PHPT_TIMEOUT"} "$@" 2>&1)
  echo "$out" | tr '\r' '\n' | sed 's/\x1b\[[0-9;]*m//g' | grep -E "^(FAIL|BORK|LEAK|SKIP|WARN) |^[0-9]{3}[+-] |^Tests (passed|failed|skipped|warned)" | head -200
  num() { echo "$out" | grep -E "^$1" | head -1 | grep -oE "[0-9]+" | head -1; }
  p=$(num "Tests passed"); f=$(num "Tests failed"); s=$(num "Tests skipped"); b=$(num "Tests borked"); w=$(num "Tests warned")
  [ -z "$p" ] && { echo "$out" | tail -20; p=0; f=1; }
  # a skipped test did not prove anything: it counts as failed
  count "${p:-0}" "$(( ${f:-0} + ${s:-0} + ${b:-0} + ${w:-0} ))"
}
phpt_files=${PHPT:-php-tests/*.phpt}
topo_tests=$(grep -vE '^\s*(#|$)' php-tests/topology.list | sed 's#^#php-tests/#')
with_valkey=
if want valkey && command -v valkey-server >/dev/null && [ "$(command -v valkey-server)" != "$REDIS_SERVER" ]; then
  with_valkey=1
fi

if want phpt; then
  # The matrix runs the whole suite once per PHP and once per server: sid's
  # Redis is 8.0, as trixie's, whose PHPT pass already runs the whole suite
  # on it, so sid's PHP 8.5 runs the whole suite on Valkey 9.1 and, on
  # Redis, the core cases (the cluster and Sentinel stages run them too).
  redis_files=$phpt_files
  if [ -n "$with_valkey" ] && [ -z "${PHPT:-}" ] && [ "$platform" = sid-php8.5 ]; then
    redis_files=$topo_tests
    stage "PHPT core cases, single server ($(server_version); the whole suite runs on Valkey below)"
  else
    stage "PHPT suite, single server ($(server_version))"
  fi
  run_phpt $redis_files
fi

if [ -n "$with_valkey" ]; then
  saved_server=$REDIS_SERVER saved_cli=$REDIS_CLI
  use_server "$(command -v valkey-server)" "$(command -v valkey-cli)"
  stage "PHPT suite, single server ($(server_version))"
  if vport=$(start_redis valkey); then
    REDIS_URL="redis://127.0.0.1:$vport" run_phpt $phpt_files
  else
    count 0 1
  fi
  use_server "$saved_server" "$saved_cli"
fi

if want cluster; then
  stage "core PHPT cases against a 6-node cluster ($(server_version))"
  if cports=$(start_cluster); then
    set -- $cports
    # two tests at a time: the six nodes share the cores with them
    RK_CONNECTION="{\"cluster\":[\"redis://127.0.0.1:$1\",\"redis://127.0.0.1:$2\",\"redis://127.0.0.1:$3\"]}" \
      REDIS_URL="redis://127.0.0.1:$1" RK_PHPT_JOBS=${RK_PHPT_JOBS:-2} run_phpt $topo_tests
  else
    count 0 1
  fi
fi
if want sentinel; then
  stage "core PHPT cases behind Sentinel ($(server_version))"
  if sports=$(start_sentinel_group); then
    set -- $sports
    RK_CONNECTION="{\"sentinel\":[\"redis://127.0.0.1:$3\",\"redis://127.0.0.1:$4\",\"redis://127.0.0.1:$5\"],\"service\":\"rkmaster\"}" \
      REDIS_URL="redis://127.0.0.1:$1" RK_PHPT_JOBS=${RK_PHPT_JOBS:-2} run_phpt $topo_tests
  else
    count 0 1
  fi
fi

if want stubs; then
  stage "stubs match the built extension"
  if php-tests/tools/stubs.sh --check; then count 1 0; else count 0 1; fi
fi

if want laravel; then
  # packages/laravel's tests, against this platform's Debian Laravel
  # (deps.sh / platform.sh install php-laravel-framework and php-predis)
  lv=$(grep -oE "const VERSION = '[^']+'" /usr/share/php/Illuminate/Foundation/Application.php 2>/dev/null | cut -d"'" -f2)
  stage "Laravel adapter (packages/laravel) on Laravel ${lv:-?} ($(server_version))"
  if [ -n "$lv" ]; then
    run_phpt ${LARAVEL_PHPT:-packages/laravel/tests/*.phpt}
  else
    echo "   Laravel is not installed (/usr/share/php/Illuminate): counted as 1 failed"
    count 0 1
  fi
fi

if want symfony; then
  # packages/symfony's tests, against this platform's Debian Symfony
  # (deps.sh / platform.sh install the php-symfony-* components)
  sv=$(grep -oE "const VERSION = '[^']+'" /usr/share/php/Symfony/Component/HttpKernel/Kernel.php 2>/dev/null | cut -d"'" -f2)
  stage "Symfony adapter (packages/symfony) on Symfony ${sv:-?} ($(server_version))"
  if [ -n "$sv" ] && [ -f /usr/share/php/Symfony/Component/Messenger/autoload.php ]; then
    run_phpt ${SYMFONY_PHPT:-packages/symfony/tests/*.phpt}
  else
    echo "   Symfony is not installed (/usr/share/php/Symfony): counted as 1 failed"
    count 0 1
  fi
fi

if want psr; then
  # packages/psr's tests, against this platform's Debian psr/simple-cache
  stage "PSR-16 adapter (packages/psr) ($(server_version))"
  if [ -f /usr/share/php/Psr/SimpleCache/CacheInterface.php ]; then
    run_phpt ${PSR_PHPT:-packages/psr/tests/*.phpt}
  else
    echo "   psr/simple-cache is not installed (/usr/share/php/Psr/SimpleCache): counted as 1 failed"
    count 0 1
  fi
fi

if want dashboard; then
  # packages/dashboard's tests: its pages in Debian's headless Chromium, on
  # every platform with the framework packages (the host's PHP 8.2, trixie's
  # 8.4, sid's 8.5: their roots have the browser)
  stage "dashboard (packages/dashboard) in headless Chromium ($(server_version))"
  if command -v chromium >/dev/null && "$PHPBIN" -n -d extension=gd -r 'exit(function_exists("imagecreatefrompng") ? 0 : 1);' 2>/dev/null; then
    RK_PHPT_ARGS="-d extension=gd" run_phpt ${DASHBOARD_PHPT:-packages/dashboard/tests/*.phpt}
  else
    echo "   chromium or php-gd is not installed (make deps installs them): counted as 1 failed"
    count 0 1
  fi
fi

if want docs; then
  # every PHP block of README.md and docs/*.md, run alone against an empty
  # server (php-tests/tools/doctest.php); one count per block and per broken link
  stage "documentation: the PHP blocks of README.md and docs/ ($(server_version))"
  dport=$(start_redis doctest) || { count 0 1; dport=; }
  if [ -n "$dport" ]; then
    REDIS_URL="redis://127.0.0.1:$dport" RK_EXT="$EXT" PHP="$PHPBIN" "$PHPBIN" -n php-tests/tools/doctest.php \
      | tee "$RK_RUN_DIR/doctest.out" | grep -vE '^ok   '
    count_from "$RK_RUN_DIR/doctest.out" docs
  fi
fi

if want install; then
  stage "make install / make uninstall for PHP $PHPVER (into a staging root)"
  if php-tests/tools/install-check.sh; then count 1 0; else count 0 1; fi
fi

if want fpm; then
  stage "PHP-FPM $PHPVER: persistent connections across requests"
  if php-tests/tools/fpm-check.sh; then count 1 0; else count 0 1; fi
fi

if want pie; then
  stage "PIE source build (phpize, configure, make, make install) on PHP $PHPVER"
  if php-tests/tools/pie-build.sh; then count 1 0; else count 0 1; fi
fi

if want dist; then
  stage "pre-packaged binary for PHP $PHPVER"
  if php-tests/tools/dist.sh --check; then count 1 0; else count 0 1; fi
fi

if want apache; then
  stage "Apache httpd mpm_event with the thread-safe PHP module: every class at once from concurrent threads ($(server_version))"
  php-tests/tools/apache-zts.sh 2>&1 | tee "$RK_RUN_DIR/apache.out"
  count_from "$RK_RUN_DIR/apache.out" apache
fi
if want embed; then
  stage "the embed SAPI (what FrankenPHP builds on) in a threaded program: every class at once from 16 threads ($(server_version))"
  php-tests/tools/embed-zts.sh 2>&1 | tee "$RK_RUN_DIR/embed.out"
  count_from "$RK_RUN_DIR/embed.out" embed
fi

if want fault; then
  stage "network faults between PHP and Redis: latency, loss, partitions ($(server_version))"
  if [ "$platform" != host ]; then
    # network namespaces, veths and iptables belong to the host's kernel:
    # a chroot of platform.sh shares them, and its packages lack the tools
    echo "   skipped on $platform: the fault stage runs on the host only (its result is in the host's count)"
  else
    php-tests/tools/fault.sh 2>&1 | tee "$RK_RUN_DIR/fault.out"
    count_from "$RK_RUN_DIR/fault.out" fault
  fi
fi

if want failover; then
  stage "failovers under load: Sentinel and Cluster, each fault once ($(server_version))"
  if [ "$platform" != host ]; then
    # a network namespace and iptables, as the fault stage
    echo "   skipped on $platform: the failover slice runs on the host only (its result is in the host's count)"
  else
    # the console gets each round's line and what failed; the figures stay in
    # target/failover-logs (the workers' logs) and the stage's output file
    RKFO_ROUNDS=1 php-tests/tools/failover.sh 2>&1 | tee "$RK_RUN_DIR/failover.out" \
      | grep -vE '^   (lock|queue|limiter|cache) +[a-z0-9]+ +ok |^(sentinel|cluster) '
    count_from "$RK_RUN_DIR/failover.out" failover
  fi
fi

if want fuzz; then
  stage "fuzz: cargo-fuzz targets (DSNs, options, replies), PHP randomized test"
  # libFuzzer needs an ASan build of every dependency: the host only (the
  # chroots run the PHP test, which exercises their PHP)
  if [ "$platform" = host ]; then
    rust_secs=${RK_FUZZ_RUST_SECONDS:-60}
    for t in dsn options reply; do
      if php-tests/fuzz/run.sh target "$t" $((rust_secs / 3)); then count 1 0; else count 0 1; fi
    done
  else
    echo "   (cargo-fuzz targets: on the host only; here the PHP randomized test)"
  fi
  if RK_EXT="$EXT" php-tests/fuzz/run.sh php "${RK_FUZZ_SECONDS:-$([ "$platform" = host ] && echo 60 || echo 30)}"; then count 1 0; else count 0 1; fi
fi

finish
