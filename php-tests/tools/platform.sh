#!/usr/bin/env bash
# The platforms of the test matrix besides the host: Debian chroots made with
# debootstrap from Debian's packages, cached outside the work tree
# ($RK_CACHE, default /var/cache/rediskit) and rebuilt when missing or when
# their package list changes.
#
#   platform.sh list                 the platform names
#   platform.sh ensure NAME          build the chroot if it is not there
#   platform.sh run NAME CMD...      run CMD inside it, the work tree at /rk/src,
#                                    the host's Rust toolchain bind-mounted, and
#                                    CARGO_TARGET_DIR on a per-platform cache
#
# trixie-zts is the trixie chroot with a thread-safe (ZTS) PHP 8.4 of its own
# first on PATH: built inside it by zts_build below from the PHP source Debian
# ships for trixie, with the CLI, FPM and Apache's apache2handler, installed
# in /opt/php-zts of the chroot and cached with it (rebuilt when missing or
# when its configure line changes).
set -eu
RK_CACHE=${RK_CACHE:-/var/cache/rediskit}
MIRROR=${RK_DEBIAN_MIRROR:-http://deb.debian.org/debian}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

common="ca-certificates gcc libc6-dev make clang libclang-dev libfcgi-bin openssl procps zip unzip"
# the framework adapters' tests (packages/*): Laravel, with predis as its Redis
# client for cache data (no phpredis build exists for every PHP of the matrix),
# and Symfony's components (with composer, whose Composer\InstalledVersions
# Symfony 7's FrameworkBundle needs)
frameworks="php-laravel-framework php-predis php-symfony-lock php-symfony-rate-limiter php-symfony-messenger php-symfony-http-foundation php-symfony-console php-symfony-event-dispatcher php-symfony-dependency-injection php-symfony-http-kernel php-symfony-config php-symfony-framework-bundle composer php-psr-simple-cache php-psr-cache php-symfony-cache-contracts php-symfony-yaml"
# platform -> "suite|packages|packages from experimental|extras": the extras
# are installed into an existing chroot (no rebuild) when they change
spec() {
  case "$1" in
    trixie) echo "trixie|$common php8.4-cli php8.4-dev php8.4-fpm redis-server redis-tools valkey-server valkey-tools||php8.4-intl $frameworks $zts_deps" ;;
    trixie-zts) spec trixie ;;
    # php8.5-{mbstring,xml,intl} (experimental, pinned) keep Laravel's
    # dependencies from pulling in sid's PHP 8.4
    sid-php8.5) echo "sid|$common redis-server redis-tools valkey-server valkey-tools|php8.5-cli php8.5-dev php8.5-fpm|php8.5-mbstring php8.5-xml php8.5-intl $frameworks" ;;
    *) echo "platform.sh: unknown platform '$1' (known: $(list))" >&2; return 1 ;;
  esac
}
list() { echo "trixie trixie-zts sid-php8.5"; }
# what the ZTS PHP's build needs (apache2-dev: apxs; apache2: the mpm_event
# server of the threaded load test, with ab)
zts_deps="dpkg-dev apache2 apache2-dev pkg-config"
ZTS_PREFIX=/opt/php-zts
# the ZTS PHP's configure line: its stamp; a change rebuilds it
ZTS_CONFIGURE="--prefix=$ZTS_PREFIX --enable-zts --disable-all --enable-cli --enable-fpm --with-apxs2=/usr/bin/apxs2 --enable-pcntl --enable-posix=shared --disable-cgi --disable-phpdbg"
# where the PHP source comes from: the version trixie's source index names
# (apt-get source); the mirror can lag behind its index (seen: 8.4.27's files
# missing while the index named them), so these earlier trixie uploads are
# tried next, each checked against its .dsc's checksums by dpkg-source
ZTS_FALLBACK_VERSIONS="8.4.24-1~deb13u1 8.4.16-1 8.4.11-1"

# base NAME: the chroot a platform runs in
base() { case "$1" in *-zts) echo "${1%-zts}" ;; *) echo "$1" ;; esac; }

# zts_build: inside the trixie chroot, builds and installs the ZTS PHP
zts_build() {
  local dir=$1 stamp="$1$ZTS_PREFIX/.rediskit-ready"
  [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$ZTS_CONFIGURE" ] && return 0
  echo "== building a thread-safe (ZTS) PHP 8.4 in the trixie chroot ($ZTS_PREFIX)"
  local t0=$SECONDS log="$RK_CACHE/chroot/trixie-zts.build.log"
  in_chroot "$dir" env ZTS_CONFIGURE="$ZTS_CONFIGURE" ZTS_PREFIX="$ZTS_PREFIX" ZTS_FALLBACK_VERSIONS="$ZTS_FALLBACK_VERSIONS" \
    MIRROR="$MIRROR" bash -c '
    set -eu
    export DEBIAN_FRONTEND=noninteractive
    echo "deb-src $MIRROR trixie main" >/etc/apt/sources.list.d/rediskit-src.list
    apt-get update -qq
    rm -rf /opt/php-zts-src "$ZTS_PREFIX"; mkdir -p /opt/php-zts-src; cd /opt/php-zts-src
    if ! apt-get source -qq --download-only php8.4; then
      # the .dsc, then every file it lists
      rm -f php8.4_*
      for v in $ZTS_FALLBACK_VERSIONS; do
        get() { /usr/lib/apt/apt-helper -qq download-file "$MIRROR/pool/main/p/php8.4/$1" "$1"; }
        if get "php8.4_$v.dsc"; then
          ok=1
          for f in $(sed -n "/^Files:/,/^[^ ]/s/^ [0-9a-f]\{32\} [0-9]* //p" "php8.4_$v.dsc"); do
            get "$f" || { ok=0; break; }
          done
          [ $ok = 1 ] && break
        fi
        rm -f php8.4_*
      done
    fi
    dsc=$(ls php8.4_*.dsc | head -1)
    echo "source: $dsc"
    # upstream source only (the checksums of the .dsc are checked): Debian'"'"'s
    # patches are for its own packaging
    dpkg-source --skip-patches -x "$dsc" php >/dev/null
    cd php
    ./configure $ZTS_CONFIGURE >../configure.log 2>&1 || { tail -30 ../configure.log; exit 1; }
    make -j"$(nproc)" >../make.log 2>&1 || { tail -30 ../make.log; exit 1; }
    # the CLI, FPM, headers and build files; the Apache module is copied by
    # hand (make install would register it in the system Apache)
    make install-cli install-fpm install-modules install-headers install-build install-programs >../install.log 2>&1 \
      || { tail -30 ../install.log; exit 1; }
    mkdir -p "$ZTS_PREFIX/lib/apache2"
    cp libs/libphp.so "$ZTS_PREFIX/lib/apache2/libphp.so"
    cp run-tests.php "$ZTS_PREFIX/lib/php/build/run-tests.php" 2>/dev/null || cp run-tests.php "$ZTS_PREFIX/run-tests.php"
    "$ZTS_PREFIX/bin/php" -n -r "exit(PHP_ZTS ? 0 : 1);"
    cd / && rm -rf /opt/php-zts-src
  ' >"$log" 2>&1 || { tail -30 "$log" >&2; return 1; }
  echo "$ZTS_CONFIGURE" >"$stamp"
  echo "== ZTS PHP ready in $((SECONDS - t0)) s: $(in_chroot "$dir" "$ZTS_PREFIX/bin/php" -n -v | head -1)"
}

ensure() {
  local name=$1 s suite pkgs exp extras dir stamp want
  s=$(spec "$name") || return 1
  IFS='|' read -r suite pkgs exp extras <<<"$s"
  dir="$RK_CACHE/chroot/$name"
  stamp="$dir/.rediskit-ready"
  want="$suite|$pkgs|$exp"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    ensure_extras "$name" "$dir" "$extras"
    return; fi
  command -v debootstrap >/dev/null || { echo "platform.sh: debootstrap is missing (apt-get install debootstrap)" >&2; return 1; }
  echo "== building the $name chroot ($suite) in $dir"
  local t0=$SECONDS tmp="$dir.tmp"
  rm -rf "$tmp" "$dir"
  mkdir -p "$RK_CACHE/chroot"
  debootstrap --variant=minbase "$suite" "$tmp" "$MIRROR" >"$RK_CACHE/chroot/$name.debootstrap.log" 2>&1 \
    || { tail -20 "$RK_CACHE/chroot/$name.debootstrap.log" >&2; return 1; }
  printf '127.0.0.1 localhost\n::1 localhost ip6-localhost ip6-loopback\n' >"$tmp/etc/hosts"
  cp /etc/resolv.conf "$tmp/etc/resolv.conf" 2>/dev/null || true
  printf '#!/bin/sh\nexit 101\n' >"$tmp/usr/sbin/policy-rc.d"
  chmod +x "$tmp/usr/sbin/policy-rc.d"
  # sid's Release file can be older than the clock
  echo 'Acquire::Check-Valid-Until "false";' >"$tmp/etc/apt/apt.conf.d/99rediskit"
  echo 'APT::Install-Recommends "false";' >>"$tmp/etc/apt/apt.conf.d/99rediskit"
  if [ -n "$exp" ]; then
    # only the named packages come from experimental (pulling all of
    # experimental in breaks perl), and php-common stays sid's: experimental's
    # 2:102~ Breaks php8.5-common
    echo "deb $MIRROR experimental main" >"$tmp/etc/apt/sources.list.d/experimental.list"
    local glob
    for glob in $(for p in $exp; do echo "${p%%-*}*"; done | sort -u); do
      printf 'Package: %s\nPin: release a=experimental\nPin-Priority: 990\n\n' "$glob"
    done >"$tmp/etc/apt/preferences.d/rediskit"
    printf 'Package: php-common\nPin: release a=unstable\nPin-Priority: 1001\n' >>"$tmp/etc/apt/preferences.d/rediskit"
  fi
  local inst="export DEBIAN_FRONTEND=noninteractive; apt-get update -qq && apt-get install -y -qq $pkgs $exp"
  in_chroot "$tmp" bash -c "$inst" >"$RK_CACHE/chroot/$name.apt.log" 2>&1 \
    || { tail -30 "$RK_CACHE/chroot/$name.apt.log" >&2; return 1; }
  echo "$want" >"$tmp/.rediskit-ready"
  mv "$tmp" "$dir"
  echo "== $name chroot ready in $((SECONDS - t0)) s"
  ensure_extras "$name" "$dir" "$extras"
}

# ensure_extras NAME DIR PACKAGES: installs PACKAGES into a built chroot
# unless its extras stamp says they are there
ensure_extras() {
  local name=$1 dir=$2 extras=$3 stamp="$2/.rediskit-extras"
  # Debian's php-laravel-framework ships the framework's default configuration
  # in /usr/share/php/Illuminate/config, but Laravel 11+'s LoadConfiguration
  # looks for it four directories above its own (composer's
  # vendor/laravel/framework/config), here /usr/share/config: without it an
  # application booted by its kernel fails (our adapter's tests boot real apps)
  if [ -d "$dir/usr/share/php/Illuminate/config" ] && [ ! -e "$dir/usr/share/config" ]; then
    ln -s php/Illuminate/config "$dir/usr/share/config"
  fi
  [ -z "$extras" ] && return 0
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$extras" ]; then return 0; fi
  echo "== $name chroot: installing $extras"
  in_chroot "$dir" bash -c "export DEBIAN_FRONTEND=noninteractive; apt-get update -qq && apt-get install -y -qq $extras" \
    >"$RK_CACHE/chroot/$name.extras.log" 2>&1 \
    || { tail -30 "$RK_CACHE/chroot/$name.extras.log" >&2; return 1; }
  echo "$extras" >"$stamp"
}

# in_chroot DIR CMD...: a private mount namespace, so nothing stays mounted
# when CMD ends, however it ends
in_chroot() {
  local dir=$1; shift
  local target="$RK_CACHE/target/${RK_TARGET_NAME:-$(basename "${dir%.tmp}")}"
  mkdir -p "$target" "$dir/rk/src" "$dir/rk/target" "$dir/root/.cargo" "$dir/root/.rustup"
  RK_DIR="$dir" RK_TARGET="$target" RK_SRC="$ROOT" unshare --mount --propagation private bash -c '
    set -e
    mount --bind /proc "$RK_DIR/proc"
    mount --bind /dev "$RK_DIR/dev"
    mount --bind /dev/pts "$RK_DIR/dev/pts" 2>/dev/null || true
    mount -t tmpfs tmpfs "$RK_DIR/dev/shm" 2>/dev/null || true
    mount -t tmpfs tmpfs "$RK_DIR/tmp"
    mount --bind "$RK_SRC" "$RK_DIR/rk/src"
    mount --bind "$RK_TARGET" "$RK_DIR/rk/target"
    # this machine'"'"'s CA bundle, so cargo reaches the registry as it does here
    [ -f /etc/ssl/certs/ca-certificates.crt ] && [ -f "$RK_DIR/etc/ssl/certs/ca-certificates.crt" ] \
      && mount --bind -o ro /etc/ssl/certs/ca-certificates.crt "$RK_DIR/etc/ssl/certs/ca-certificates.crt"
    mount --bind "${CARGO_HOME:-$HOME/.cargo}" "$RK_DIR/root/.cargo"
    mount --bind "${RUSTUP_HOME:-$HOME/.rustup}" "$RK_DIR/root/.rustup"
    exec chroot "$RK_DIR" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
      PATH=${RK_PATH_PREFIX:-}/root/.cargo/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
      CARGO_TARGET_DIR=/rk/target CARGO_TERM_COLOR=never RK_PLATFORM="${RK_PLATFORM:-}" \
      CI="${CI:-}" STAGES="${STAGES:-}" PHPT="${PHPT:-}" LARAVEL_PHPT="${LARAVEL_PHPT:-}" SYMFONY_PHPT="${SYMFONY_PHPT:-}" TOPOLOGY="${TOPOLOGY:-}" "$@"
  ' rk "$@"
}

case "${1:-}" in
  list) list ;;
  ensure)
    ensure "$(base "$2")"
    [ "$2" = trixie-zts ] && zts_build "$RK_CACHE/chroot/trixie"
    ;;
  run)
    name=$2; shift 2
    b=$(base "$name")
    ensure "$b"
    path=""
    if [ "$name" = trixie-zts ]; then
      zts_build "$RK_CACHE/chroot/$b"
      path="$ZTS_PREFIX/bin:$ZTS_PREFIX/sbin:"
    fi
    cd "$ROOT"
    RK_PLATFORM=$name RK_TARGET_NAME=$name RK_PATH_PREFIX=$path in_chroot "$RK_CACHE/chroot/$b" bash -c 'cd /rk/src && exec "$@"' rk "$@"
    ;;
  *) echo "usage: platform.sh list | ensure NAME | run NAME CMD..." >&2; exit 2 ;;
esac
