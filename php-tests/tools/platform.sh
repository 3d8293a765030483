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
# ships for trixie, with the CLI, FPM, Apache's apache2handler and the embed
# SAPI, installed in /opt/php-zts of the chroot and cached with it (rebuilt
# when missing or when its configure lines change).
set -eu
RK_CACHE=${RK_CACHE:-/var/cache/rediskit}
MIRROR=${RK_DEBIAN_MIRROR:-http://deb.debian.org/debian}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

common="ca-certificates gcc libc6-dev make clang libclang-dev libfcgi-bin openssl procps zip unzip"
# the framework adapters' tests (packages/*): Laravel, with predis as its Redis
# client for cache data (no phpredis build exists for every PHP of the matrix),
# and Symfony's components (with composer, whose Composer\InstalledVersions
# Symfony 7's FrameworkBundle needs)
frameworks="php-laravel-framework php-predis php-symfony-lock php-symfony-rate-limiter php-symfony-messenger php-symfony-http-foundation php-symfony-console php-symfony-event-dispatcher php-symfony-dependency-injection php-symfony-http-kernel php-symfony-config php-symfony-framework-bundle composer php-psr-simple-cache php-psr-cache php-symfony-cache-contracts php-symfony-yaml php-symfony-security-core php-symfony-web-profiler-bundle"
# platform -> "suite|packages|packages from experimental|extras": the extras
# are installed into an existing chroot (no rebuild) when they change
spec() {
  case "$1" in
    trixie) echo "trixie|$common php8.4-cli php8.4-dev php8.4-fpm redis-server redis-tools valkey-server valkey-tools||php8.4-intl $frameworks $zts_deps prometheus chromium chromium-driver php8.4-gd" ;;
    trixie-zts) spec trixie ;;
    # php8.5-{mbstring,xml,intl} (experimental, pinned) keep Laravel's
    # dependencies from pulling in sid's PHP 8.4
    sid-php8.5) echo "sid|$common redis-server redis-tools valkey-server valkey-tools|php8.5-cli php8.5-dev php8.5-fpm|php8.5-mbstring php8.5-xml php8.5-intl $frameworks prometheus chromium chromium-driver php8.5-gd" ;;
    *) echo "platform.sh: unknown platform '$1' (known: $(list))" >&2; return 1 ;;
  esac
}
list() { echo "trixie trixie-zts sid-php8.5 bookworm-arm64 trixie-arm64 sid-php8.5-arm64"; }

# The arm64 platforms: an arm64 Debian root per PHP of the matrix, its
# packages extracted by mmdebstrap (no maintainer script runs: nothing needs
# emulating to make it), its programs run by qemu-user through binfmt_misc.
# The extension is cross-compiled on this machine (cargo --target
# aarch64-unknown-linux-gnu) against that root's PHP headers, then tested
# inside the root: the pre-packaged binary loaded into that arm64 PHP with
# the demo on every one, and on trixie-arm64 the PHPT subset of
# php-tests/arm64.list against an arm64 redis-server (make test-arm64: the
# whole suite).
ARM64_TARGET=aarch64-unknown-linux-gnu
# (openssl and libfcgi-bin: the TLS and PHP-FPM tests of the whole suite)
arm64_common="bash dash coreutils grep sed findutils mawk procps libc-bin binutils zip unzip redis-server redis-tools openssl libfcgi-bin"
# arm64 platform -> "suite|PHP version|packages from experimental"
arm64_spec() {
  case "$1" in
    bookworm-arm64) echo "bookworm|8.2|" ;;
    trixie-arm64) echo "trixie|8.4|" ;;
    sid-php8.5-arm64) echo "sid|8.5|php8.5-cli php8.5-dev" ;;
    *) return 1 ;;
  esac
}
is_arm64() { case "$1" in *-arm64) return 0 ;; *) return 1 ;; esac; }

# arm64_tools: what cross-building and emulating needs on this machine
arm64_tools() {
  local need=()
  command -v mmdebstrap >/dev/null || need+=(mmdebstrap)
  [ -e /usr/libexec/qemu-binfmt/aarch64-binfmt-P ] || command -v qemu-aarch64-static >/dev/null || need+=(qemu-user-static)
  command -v aarch64-linux-gnu-gcc >/dev/null || need+=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross)
  if [ ${#need[@]} -gt 0 ]; then
    echo "== arm64: installing ${need[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null \
      || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null; } || return 1
  fi
  # arm64 programs run through qemu-user: the kernel's binfmt_misc entry
  # (with the F flag, so it works inside a chroot: an entry without it is
  # replaced)
  if [ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] && ! grep -q '^flags:.*F' /proc/sys/fs/binfmt_misc/qemu-aarch64; then
    echo -1 >/proc/sys/fs/binfmt_misc/qemu-aarch64 || return 1
  fi
  if [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
    [ -e /proc/sys/fs/binfmt_misc/register ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc || return 1
    local conf
    conf=$(ls /usr/lib/binfmt.d/qemu-aarch64.conf /usr/share/binfmts/qemu-aarch64 2>/dev/null | head -1)
    if [ "${conf##*/}" = qemu-aarch64.conf ]; then
      cat "$conf" >/proc/sys/fs/binfmt_misc/register || return 1
    else
      update-binfmts --enable qemu-aarch64 || return 1
    fi
  fi
  rustup target list --installed 2>/dev/null | grep -qx "$ARM64_TARGET" || rustup target add "$ARM64_TARGET" || return 1
}

# ensure_arm64 NAME: the arm64 root, made when missing or when its package
# list changes
ensure_arm64() {
  local name=$1 s suite ver exp dir want pkgs
  s=$(arm64_spec "$name") || return 1
  IFS='|' read -r suite ver exp <<<"$s"
  arm64_tools || { echo "platform.sh: the arm64 tools could not be installed" >&2; return 1; }
  dir="$RK_CACHE/chroot/$name"
  pkgs="$arm64_common php$ver-cli php$ver-dev php$ver-fpm"
  want="$suite|$pkgs"
  [ -f "$dir/.rediskit-ready" ] && [ "$(cat "$dir/.rediskit-ready")" = "$want" ] && return 0
  echo "== building the $name root ($suite, arm64) in $dir"
  local t0=$SECONDS tmp="$dir.tmp" hook="" sources=("$MIRROR")
  rm -rf "$tmp" "$dir"
  mkdir -p "$RK_CACHE/chroot"
  if [ -n "$exp" ]; then
    # as on sid-php8.5: only PHP 8.5 comes from experimental
    sources=("deb $MIRROR $suite main" "deb $MIRROR experimental main")
    hook='mkdir -p "$1/etc/apt/preferences.d"; printf "Package: php'$ver'*\nPin: release a=experimental\nPin-Priority: 990\n\nPackage: php-common\nPin: release a=unstable\nPin-Priority: 1001\n" >"$1/etc/apt/preferences.d/rediskit"'
  fi
  mmdebstrap --variant=extract --architectures=arm64 --aptopt='Acquire::Check-Valid-Until "false"' \
    --include="$(echo "$pkgs" | tr ' ' ',')" ${hook:+--setup-hook="$hook"} "$suite" "$tmp" "${sources[@]}" \
    >"$RK_CACHE/chroot/$name.mmdebstrap.log" 2>&1 || { tail -20 "$RK_CACHE/chroot/$name.mmdebstrap.log" >&2; return 1; }
  # what the packages' scripts would have made: the php and php-config
  # names, the loopback hosts, mount points
  ln -sf "php$ver" "$tmp/usr/bin/php"
  ln -sf "php-config$ver" "$tmp/usr/bin/php-config"
  printf '127.0.0.1 localhost\n::1 localhost ip6-localhost ip6-loopback\n' >"$tmp/etc/hosts"
  mkdir -p "$tmp/proc" "$tmp/dev/pts" "$tmp/dev/shm" "$tmp/tmp"
  QEMU_LD_PREFIX="$tmp" "$tmp/usr/bin/php$ver" -n -r 'exit(php_uname("m") === "aarch64" ? 0 : 1);' 2>/dev/null \
    || { echo "platform.sh: the arm64 PHP of $name does not run (qemu-user, binfmt_misc)" >&2; return 1; }
  echo "$want" >"$tmp/.rediskit-ready"
  mv "$tmp" "$dir"
  echo "== $name root ready in $((SECONDS - t0)) s"
}

# cross_build NAME: the release build for the arm64 PHP of NAME, on this
# machine, in $RK_CACHE/target/NAME/$ARM64_TARGET/release
cross_build() {
  local name=$1 dir="$RK_CACHE/chroot/$1" ver bin
  ver=$(arm64_spec "$name" | cut -d'|' -f2)
  bin="$RK_CACHE/chroot/$name.bin"
  mkdir -p "$bin"
  # ext-php-rs's build script asks `php -i` (run by qemu) and `php-config
  # --includes` (the root's headers, by their path on this machine)
  printf '#!/bin/sh\nQEMU_LD_PREFIX=%s exec %s/usr/bin/php%s "$@"\n' "$dir" "$dir" "$ver" >"$bin/php"
  printf '#!/bin/sh\n%s/usr/bin/php-config%s "$@" | sed "s#-I/usr/#-I%s/usr/#g"\n' "$dir" "$ver" "$dir" >"$bin/php-config"
  chmod +x "$bin/php" "$bin/php-config"
  echo "== cross-compiling for $name (PHP $ver, $ARM64_TARGET)"
  (cd "$ROOT" && PHP="$bin/php" PHP_CONFIG="$bin/php-config" CARGO_TARGET_DIR="$RK_CACHE/target/$name" \
    CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc \
    BINDGEN_EXTRA_CLANG_ARGS_aarch64_unknown_linux_gnu="--target=aarch64-linux-gnu --sysroot=$dir" \
    cargo build --release --locked --quiet --target "$ARM64_TARGET")
}
# what the ZTS PHP's build needs (apache2-dev: apxs; apache2: the mpm_event
# server of the threaded load test, with ab)
zts_deps="dpkg-dev apache2 apache2-dev pkg-config"
ZTS_PREFIX=/opt/php-zts
# the ZTS PHP's configure line: its stamp; a change rebuilds it
ZTS_CONFIGURE="--prefix=$ZTS_PREFIX --enable-zts --disable-all --enable-cli --enable-fpm --with-apxs2=/usr/bin/apxs2 --enable-pcntl --enable-posix=shared --disable-cgi --disable-phpdbg"
# the embed SAPI (libphp.so for programs that embed PHP, as FrankenPHP does):
# configure builds one SAPI module at a time, so it is a second build of the
# same tree, installed in $ZTS_PREFIX/lib/embed
ZTS_EMBED_CONFIGURE="--prefix=$ZTS_PREFIX --enable-zts --disable-all --disable-cli --enable-embed=shared --disable-cgi --disable-phpdbg"
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
  [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$ZTS_CONFIGURE|$ZTS_EMBED_CONFIGURE" ] && return 0
  echo "== building a thread-safe (ZTS) PHP 8.4 in the trixie chroot ($ZTS_PREFIX)"
  local t0=$SECONDS log="$RK_CACHE/chroot/trixie-zts.build.log"
  in_chroot "$dir" env ZTS_CONFIGURE="$ZTS_CONFIGURE" ZTS_EMBED_CONFIGURE="$ZTS_EMBED_CONFIGURE" ZTS_PREFIX="$ZTS_PREFIX" ZTS_FALLBACK_VERSIONS="$ZTS_FALLBACK_VERSIONS" \
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
    make clean >/dev/null
    ./configure $ZTS_EMBED_CONFIGURE >../configure-embed.log 2>&1 || { tail -30 ../configure-embed.log; exit 1; }
    make -j"$(nproc)" >../make-embed.log 2>&1 || { tail -30 ../make-embed.log; exit 1; }
    mkdir -p "$ZTS_PREFIX/lib/embed" "$ZTS_PREFIX/include/php/sapi/embed"
    cp libs/libphp.so "$ZTS_PREFIX/lib/embed/libphp.so"
    cp sapi/embed/php_embed.h "$ZTS_PREFIX/include/php/sapi/embed/"
    cd / && rm -rf /opt/php-zts-src
  ' >"$log" 2>&1 || { tail -30 "$log" >&2; return 1; }
  echo "$ZTS_CONFIGURE|$ZTS_EMBED_CONFIGURE" >"$stamp"
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
  if [ -n "$extras" ] && ! { [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$extras" ]; }; then
    echo "== $name chroot: installing $extras"
    in_chroot "$dir" bash -c "export DEBIAN_FRONTEND=noninteractive; apt-get update -qq && apt-get install -y -qq $extras" \
      >"$RK_CACHE/chroot/$name.extras.log" 2>&1 \
      || { tail -30 "$RK_CACHE/chroot/$name.extras.log" >&2; return 1; }
    echo "$extras" >"$stamp"
  fi
  # Debian's php-laravel-framework (installed above, among the extras) ships
  # the framework's default configuration in /usr/share/php/Illuminate/config,
  # but Laravel 11+'s LoadConfiguration looks for it four directories above
  # its own (composer's vendor/laravel/framework/config), here
  # /usr/share/config: without it an application booted by its kernel fails
  # (our adapter's tests boot real apps)
  if [ -d "$dir/usr/share/php/Illuminate/config" ] && [ ! -e "$dir/usr/share/config" ]; then
    ln -s php/Illuminate/config "$dir/usr/share/config"
  fi
  return 0
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
    exec chroot "$RK_DIR" /usr/bin/env -i HOME=/root TERM=dumb LANG=${RK_LANG:-C.UTF-8} \
      PATH=${RK_PATH_PREFIX:-}/root/.cargo/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
      CARGO_TARGET_DIR=${RK_CHROOT_TARGET:-/rk/target} CARGO_TERM_COLOR=never RK_PLATFORM="${RK_PLATFORM:-}" \
      CI="${CI:-}" RK_PHPT_TIMEOUT="${RK_PHPT_TIMEOUT:-}" RK_TIME_SCALE="${RK_TIME_SCALE:-}" RK_PHPT_JOBS="${RK_PHPT_JOBS:-}" STAGES="${STAGES:-}" PHPT="${PHPT:-}" LARAVEL_PHPT="${LARAVEL_PHPT:-}" SYMFONY_PHPT="${SYMFONY_PHPT:-}" TOPOLOGY="${TOPOLOGY:-}" "$@"
  ' rk "$@"
}

case "${1:-}" in
  list) list ;;
  ensure)
    if is_arm64 "$2"; then ensure_arm64 "$2"; exit; fi
    ensure "$(base "$2")"
    [ "$2" = trixie-zts ] && zts_build "$RK_CACHE/chroot/trixie"
    ;;
  run)
    name=$2; shift 2
    if is_arm64 "$name"; then
      ensure_arm64 "$name" && cross_build "$name" || { echo "platform $name: the arm64 build failed"; exit 1; }
      # the PHPT subset on trixie-arm64 (RK_ARM64_FULL=1: the whole suite)
      if [ "$name" = trixie-arm64 ] && [ -z "${PHPT:-}" ]; then
        if [ "${RK_ARM64_FULL:-}" = 1 ]; then PHPT="php-tests/*.phpt"
        else PHPT=$(grep -vE '^\s*(#|$)' "$ROOT/php-tests/arm64.list" | sed 's#^#php-tests/#' | tr '\n' ' '); fi
        export PHPT
      fi
      cd "$ROOT"
      # LANG=C: the root has no C.UTF-8 locale files (nothing ran localedef);
      # emulated, a PHPT file may run 5-20 times longer than natively, and
      # RK_TIME_SCALE tells the harness so: it stretches client read timeouts
      # and a test's own pacing (never an assertion) by that factor; one test
      # at a time (emulation keeps both cores busy, and run-tests.php's
      # parallel workers can miss their start-up deadline under it)
      RK_TIME_SCALE=${RK_TIME_SCALE:-10} RK_PHPT_JOBS=${RK_PHPT_JOBS:-1} RK_PHPT_TIMEOUT=${RK_PHPT_TIMEOUT:-600} RK_PLATFORM=$name RK_TARGET_NAME=$name RK_CHROOT_TARGET=/rk/target/$ARM64_TARGET RK_LANG=C \
        in_chroot "$RK_CACHE/chroot/$name" bash -c 'cd /rk/src && exec "$@"' rk "$@"
      exit
    fi
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
