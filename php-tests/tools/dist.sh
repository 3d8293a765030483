#!/usr/bin/env bash
# The PIE pre-packaged binary of the release build for this PHP:
# dist/php_rediskit-<version>_php<X.Y>-<arch>-linux-glibc.zip with rediskit.so
# at its root (PIE's naming; NTS: no -zts suffix). Then unzips it, loads it
# into this PHP and runs the demo with it.
set -eu
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
ver=$("$PHP" -n -r 'echo PHP_MAJOR_VERSION, ".", PHP_MINOR_VERSION;')
zts=$("$PHP" -n -r 'echo PHP_ZTS ? "-zts" : "";')
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
arch=$(uname -m); [ "$arch" = aarch64 ] && arch=arm64
libc=glibc; ldd --version 2>&1 | grep -qi musl && libc=musl
name="php_rediskit-${version}_php${ver}-${arch}-linux-${libc}${zts}.zip"
[ -f "$EXT" ] || { echo "no release build at $EXT (make build)"; exit 1; }
mkdir -p dist
work=$RK_RUN_DIR/dist; rm -rf "$work"; mkdir -p "$work/in" "$work/out"
cp "$EXT" "$work/in/rediskit.so"
strip --strip-debug "$work/in/rediskit.so" 2>/dev/null || true
rm -f "dist/$name"
(cd "$work/in" && zip -q -X "$ROOT/dist/$name" rediskit.so)
echo "wrote dist/$name ($(du -k "dist/$name" | cut -f1) KiB)"
# the check: what PIE would unpack, loaded into this PHP
(cd "$work/out" && unzip -q "$ROOT/dist/$name")
[ "$(cd "$work/out" && ls)" = rediskit.so ] || { echo "the archive must hold rediskit.so alone, at its root"; exit 1; }
loaded=$("$PHP" -n -d extension="$work/out/rediskit.so" -r 'echo phpversion("rediskit");')
[ "$loaded" = "$version" ] || { echo "PHP $ver loaded rediskit '$loaded', expected $version"; exit 1; }
rport=$(start_redis dist)
out=$(REDIS_URL="redis://127.0.0.1:$rport" "$PHP" -n -d extension="$work/out/rediskit.so" -d extension=posix examples/demo.php 2>&1) \
  || { echo "$out" | tail -20; exit 1; }
echo "$out" | grep -qx "demo done" || { echo "$out" | tail -20; exit 1; }
echo "dist/$name loads into PHP $ver and runs the demo"
