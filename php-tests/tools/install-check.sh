#!/usr/bin/env bash
# `make install` and `make uninstall` into a staging root (DESTDIR): the module
# goes to this PHP's extension dir and loads there, the ini is written and
# enabled for this PHP only (a decoy PHP version's directory stays untouched),
# and uninstall leaves nothing of rediskit behind.
set -eu
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
pc=$(command -v "php-config$("$PHP" -n -r 'echo PHP_MAJOR_VERSION, ".", PHP_MINOR_VERSION;')" || command -v php-config)
ver=$("$pc" --version | cut -d. -f1,2)
D=$RK_RUN_DIR/install-root
rm -rf "$D"; mkdir -p "$D/etc/php/9.9/mods-available" "$D/etc/php/9.9/cli/conf.d"
fail() { echo "install check: $*"; find "$D" | sed "s#^$D#   #"; exit 1; }

# the build is already there: install.sh is what `make install` runs after it
PHP_CONFIG="$pc" DESTDIR="$D" php-tests/tools/install.sh install "$EXT" || fail "install failed"
so="$D$("$pc" --extension-dir)/rediskit.so"
[ -f "$so" ] || fail "no $so"
v=$("$PHP" -n -d extension="$so" -r 'echo phpversion("rediskit");') || fail "$so does not load"
if [ -d "/etc/php/$ver/mods-available" ]; then
  ini="$D/etc/php/$ver/mods-available/rediskit.ini"
  grep -qx 'extension=rediskit.so' "$ini" || fail "no extension line in $ini"
  for s in /etc/php/"$ver"/*/conf.d; do
    [ -d "$s" ] || continue
    l="$D${s}/80-rediskit.ini"
    [ -L "$l" ] || fail "$l is not a link to the ini"
  done
else
  ini="$D$("$pc" --ini-dir)/80-rediskit.ini"
  grep -qx 'extension=rediskit.so' "$ini" || fail "no extension line in $ini"
fi
[ -z "$(find "$D/etc/php/9.9" -type f -o -type l)" ] || fail "wrote into another PHP's directories"
echo "install: rediskit $v for PHP $ver, ini $(realpath --relative-to="$D" "$ini")"

PHP_CONFIG="$pc" DESTDIR="$D" php-tests/tools/install.sh uninstall || fail "uninstall failed"
left=$(find "$D" -name '*rediskit*')
[ -z "$left" ] || fail "uninstall left: $left"
echo "uninstall: nothing of rediskit left"
