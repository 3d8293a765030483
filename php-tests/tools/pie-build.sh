#!/usr/bin/env bash
# What `pie install` does with our source archive, step by step: unpack it,
# then in its build-path (pie/) phpize, ./configure --with-php-config=...,
# make, make install (into a staging root here, not the live extension dir).
# The installed module is then loaded into this PHP and runs the demo.
set -eu
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
ver=$("$PHP" -n -r 'echo PHP_MAJOR_VERSION, ".", PHP_MINOR_VERSION;')
phpize=$(command -v "phpize$ver" || command -v phpize)
phpconfig=$(command -v "php-config$ver" || command -v php-config)
arc=$ROOT/target/rediskit-src.tar
# composer.json's "php" constraint (what PIE admits) names this PHP: every
# admits the PHP of this platform of the matrix
"$PHP" -n -r '$c = json_decode(file_get_contents("composer.json"), true)["require"]["php"];
  $want = "~" . PHP_MAJOR_VERSION . "." . PHP_MINOR_VERSION . ".0";
  if (!in_array($want, array_map("trim", explode("||", $c)), true)) { fwrite(STDERR, "composer.json admits php $c, not $want (this platform)\n"); exit(1); }' || exit 1
[ -f "$arc" ] || php-tests/tools/archive.sh
# a fixed path, so that cargo reuses what it built last time
src=$TARGET/pie-src
# PIE leaves the cargo target dir to the environment: share ours, so only the
# rediskit crate itself is compiled again
export CARGO_TARGET_DIR=$TARGET
rm -rf "$src"; mkdir -p "$src"
tar -xf "$arc" -C "$src" --strip-components=1
cd "$src/pie"
echo "-- $phpize"; "$phpize" >"$RK_RUN_DIR/pie.log" 2>&1 || { cat "$RK_RUN_DIR/pie.log"; exit 1; }
echo "-- ./configure --with-php-config=$phpconfig"
./configure --with-php-config="$phpconfig" >>"$RK_RUN_DIR/pie.log" 2>&1 || { tail -30 "$RK_RUN_DIR/pie.log"; exit 1; }
echo "-- make"; PATH=$(build_path) make >>"$RK_RUN_DIR/pie.log" 2>&1 || { tail -30 "$RK_RUN_DIR/pie.log"; exit 1; }
[ -f modules/rediskit.so ] || { echo "make left no modules/rediskit.so"; exit 1; }
staging=$RK_RUN_DIR/pie-root
echo "-- make install INSTALL_ROOT=$staging"
PATH=$(build_path) make install INSTALL_ROOT="$staging" >>"$RK_RUN_DIR/pie.log" 2>&1 || { tail -30 "$RK_RUN_DIR/pie.log"; exit 1; }
so="$staging$("$phpconfig" --extension-dir)/rediskit.so"
[ -f "$so" ] || { echo "make install did not install $so"; exit 1; }
loaded=$("$PHP" -n -d extension="$so" -r 'echo phpversion("rediskit");')
echo "-- installed $so (rediskit $loaded) runs the demo"
rport=$(start_redis pie)
out=$(REDIS_URL="redis://127.0.0.1:$rport" "$PHP" -n -d extension="$so" -d extension=posix "$ROOT/examples/demo.php" 2>&1) \
  || { echo "$out" | tail -20; exit 1; }
echo "$out" | grep -qx "demo done" || { echo "$out" | tail -20; exit 1; }
echo "PIE source build OK on PHP $ver"
