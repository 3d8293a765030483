#!/usr/bin/env bash
# Installs what building and testing rediskit needs on Debian/Ubuntu (as
# root, via apt-get). Prints what is missing otherwise. Idempotent and quick
# when everything is there.
set -eu
need=()
command -v php-config >/dev/null || need+=(php-dev)
command -v php >/dev/null || need+=(php-cli)
command -v clang >/dev/null || need+=(clang)
ls /usr/lib/llvm-*/lib/libclang*.so* >/dev/null 2>&1 || ls /usr/lib/*/libclang*.so* >/dev/null 2>&1 || need+=(libclang-dev)
command -v redis-server >/dev/null || need+=(redis-server)
command -v redis-cli >/dev/null || need+=(redis-tools)
command -v cgi-fcgi >/dev/null || need+=(libfcgi-bin)
ls /usr/sbin/php-fpm* >/dev/null 2>&1 || need+=(php-fpm)
php -n -d extension=igbinary -d extension=redis -r 'exit(class_exists("Redis") ? 0 : 1);' >/dev/null 2>&1 \
  || php -r 'exit(class_exists("Redis") ? 0 : 1);' >/dev/null 2>&1 || need+=(php-redis)
command -v cc >/dev/null || need+=(gcc)
command -v openssl >/dev/null || need+=(openssl)
command -v zip >/dev/null || need+=(zip)
command -v unzip >/dev/null || need+=(unzip)
command -v debootstrap >/dev/null || need+=(debootstrap) # the chroots of the test matrix
command -v ip >/dev/null || need+=(iproute2)             # the fault stage: network namespaces,
command -v iptables >/dev/null || need+=(iptables)       # packet loss and partitions,
[ -f /usr/include/libnetfilter_queue/libnetfilter_queue.h ] || need+=(libnetfilter-queue-dev) # its latency helper
command -v promtool >/dev/null || need+=(prometheus)   # promtool checks the metrics exposition
command -v chromium >/dev/null || need+=(chromium)     # the dashboard's tests, in a real browser,
command -v chromedriver >/dev/null || need+=(chromium-driver) # driven through WebDriver,
dpkg -s php-gd >/dev/null 2>&1 || need+=(php-gd)       # whose screenshots they read

# the framework adapters' tests (packages/*): Laravel, with predis as its Redis
# client; Symfony's components (and intl, which its console needs); the PSR-16
# and Symfony cache contracts of the RedisCache adapters
for p in php-mbstring php-intl php-laravel-framework php-predis php-symfony-lock php-symfony-rate-limiter \
  php-symfony-messenger php-symfony-http-foundation php-symfony-console php-symfony-event-dispatcher \
  php-symfony-dependency-injection php-symfony-http-kernel php-symfony-config php-symfony-framework-bundle composer \
  php-psr-simple-cache php-psr-cache php-psr-log php-symfony-cache-contracts php-symfony-yaml php-symfony-security-core \
  php-symfony-web-profiler-bundle; do
  dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
done

# make bench / bench-cpu: the framework peers, and callgrind
if [ "${1:-}" = "--bench" ]; then
  command -v valgrind >/dev/null || need+=(valgrind)
  for p in php-mbstring php-illuminate-cache php-illuminate-redis php-symfony-lock php-symfony-rate-limiter php-symfony-cache php-symfony-redis-messenger; do
    dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
  done
fi

if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "deps: installing ${need[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq "${need[@]}" >/dev/null
    # Debian starts the packaged services; we run our own on private ports.
    (service redis-server stop || true) >/dev/null 2>&1
    (service prometheus stop || true) >/dev/null 2>&1
  else
    echo "deps: missing ${need[*]}; install them (e.g. sudo apt-get install ${need[*]})" >&2
    exit 1
  fi
fi

if ! command -v cargo >/dev/null; then
  echo "deps: cargo not found: install Rust with rustup (https://rustup.rs), then re-run" >&2
  exit 1
fi

if [ "${1:-}" = "--stubs" ] && ! cargo php --version 2>/dev/null | grep -q " 0\.2\."; then
  echo "deps: installing cargo-php 0.2.2 (stub generator, about 2 minutes)"
  cargo install cargo-php --version 0.2.2 --locked -q
fi
# the fuzz stage of make test (and make fuzz) builds its libFuzzer targets with cargo-fuzz
if { [ "${1:-}" = "--stubs" ] || [ "${1:-}" = "--fuzz" ]; } && ! cargo fuzz --version 2>/dev/null | grep -q " 0\.13\.2"; then
  echo "deps: installing cargo-fuzz 0.13.2 (libFuzzer targets, about 1 minute)"
  cargo install cargo-fuzz --version 0.13.2 --locked -q
fi
exit 0
