#!/usr/bin/env bash
# `make install` / `make uninstall`, for one PHP: the one whose php-config is
# $PHP_CONFIG (default: php-config on PATH). Never touches another PHP's
# directories.
#
#   install.sh install SO     copies SO to that PHP's extension dir as
#                             rediskit.so and enables it for that PHP only:
#                             Debian/Ubuntu (/etc/php/X.Y/mods-available):
#                             rediskit.ini there, then phpenmod -v X.Y (or,
#                             with DESTDIR, the conf.d links phpenmod makes);
#                             elsewhere 80-rediskit.ini in php-config --ini-dir
#   install.sh uninstall      removes what install wrote, for that PHP
#
# DESTDIR=/staging writes below /staging instead of / (packaging, tests).
set -eu
action=${1:?install.sh install SO | uninstall}
pc=${PHP_CONFIG:-php-config}
command -v "$pc" >/dev/null || { echo "install: $pc not found (install php-dev, or set PHP_CONFIG=/path/to/php-config)" >&2; exit 1; }
extdir=$("$pc" --extension-dir)
ver=$("$pc" --version | cut -d. -f1,2)
phpbin=$("$pc" --php-binary 2>/dev/null || echo php)
D=${DESTDIR:-}
debian=/etc/php/$ver/mods-available
so="$D$extdir/rediskit.so"

# the SAPIs of this PHP that have a conf.d (cli, fpm, apache2, ...)
sapis() { for d in /etc/php/"$ver"/*/conf.d; do [ -d "$d" ] && basename "$(dirname "$d")"; done; }

case $action in
install)
  src=${2:?install.sh install SO}
  [ -f "$src" ] || { echo "install: $src not found (make build first)" >&2; exit 1; }
  # the module must load into this PHP: a build for another PHP is refused
  loaded=$("$phpbin" -n -d extension="$(cd "$(dirname "$src")" && pwd)/$(basename "$src")" -r 'echo phpversion("rediskit") ?: "";' 2>&1) || loaded=
  if [ -z "$loaded" ] || ! [[ $loaded =~ ^[0-9] ]]; then
    echo "install: $src does not load into PHP $ver ($phpbin): build it for this PHP with 'make install PHP_CONFIG=$pc'" >&2
    exit 1
  fi
  install -D -m 0755 "$src" "$so"
  echo "installed $so (rediskit $loaded, PHP $ver)"
  if [ -d "$debian" ]; then
    mkdir -p "$D$debian"
    printf '; rediskit %s (make install)\n; priority=80\nextension=rediskit.so\n' "$loaded" >"$D$debian/rediskit.ini"
    echo "wrote $D$debian/rediskit.ini"
    if [ -z "$D" ] && command -v phpenmod >/dev/null; then
      phpenmod -v "$ver" rediskit
      echo "enabled for PHP $ver: $(sapis | tr '\n' ' ')(phpenmod)"
    else
      for s in $(sapis); do
        mkdir -p "$D/etc/php/$ver/$s/conf.d"
        ln -sfn "$debian/rediskit.ini" "$D/etc/php/$ver/$s/conf.d/80-rediskit.ini"
      done
      echo "enabled for PHP $ver: $(sapis | tr '\n' ' ')"
    fi
  else
    inidir=$("$pc" --ini-dir 2>/dev/null || true)
    if [ -n "$inidir" ]; then
      mkdir -p "$D$inidir"
      printf '; rediskit %s (make install)\nextension=rediskit.so\n' "$loaded" >"$D$inidir/80-rediskit.ini"
      echo "wrote $D$inidir/80-rediskit.ini"
    else
      echo "add 'extension=rediskit.so' to $("$pc" --ini-path 2>/dev/null || echo your)/php.ini"
    fi
  fi
  echo "restart PHP-FPM (e.g. systemctl reload php$ver-fpm) and your workers to load it"
  ;;
uninstall)
  if [ -d "$debian" ] || [ -f "$D$debian/rediskit.ini" ]; then
    if [ -z "$D" ] && command -v phpdismod >/dev/null && [ -f "$debian/rediskit.ini" ]; then
      phpdismod -v "$ver" rediskit
    fi
    for s in $(sapis); do
      l="$D/etc/php/$ver/$s/conf.d/80-rediskit.ini"
      if [ -L "$l" ] || [ -f "$l" ]; then rm -f "$l" && echo "removed $l"; fi
    done
    [ -f "$D$debian/rediskit.ini" ] && rm -f "$D$debian/rediskit.ini" && echo "removed $D$debian/rediskit.ini"
  fi
  inidir=$("$pc" --ini-dir 2>/dev/null || true)
  if [ -n "$inidir" ] && [ -f "$D$inidir/80-rediskit.ini" ]; then rm -f "$D$inidir/80-rediskit.ini" && echo "removed $D$inidir/80-rediskit.ini"; fi
  if [ -f "$so" ]; then rm -f "$so" && echo "removed $so"; else echo "$so was not installed"; fi
  echo "restart PHP-FPM (e.g. systemctl reload php$ver-fpm) and your workers to unload it"
  ;;
*) echo "install.sh install SO | uninstall" >&2; exit 2 ;;
esac
