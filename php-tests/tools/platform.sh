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
    trixie) echo "trixie|$common php8.4-cli php8.4-dev php8.4-fpm redis-server redis-tools valkey-server valkey-tools||php8.4-intl $frameworks" ;;
    # php8.5-{mbstring,xml,intl} (experimental, pinned) keep Laravel's
    # dependencies from pulling in sid's PHP 8.4
    sid-php8.5) echo "sid|$common redis-server redis-tools valkey-server valkey-tools|php8.5-cli php8.5-dev php8.5-fpm|php8.5-mbstring php8.5-xml php8.5-intl $frameworks" ;;
    *) echo "platform.sh: unknown platform '$1' (known: $(list))" >&2; return 1 ;;
  esac
}
list() { echo "trixie sid-php8.5"; }

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
  local target="$RK_CACHE/target/$(basename "${dir%.tmp}")"
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
      PATH=/root/.cargo/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
      CARGO_TARGET_DIR=/rk/target CARGO_TERM_COLOR=never RK_PLATFORM="${RK_PLATFORM:-}" \
      CI="${CI:-}" STAGES="${STAGES:-}" PHPT="${PHPT:-}" LARAVEL_PHPT="${LARAVEL_PHPT:-}" SYMFONY_PHPT="${SYMFONY_PHPT:-}" TOPOLOGY="${TOPOLOGY:-}" "$@"
  ' rk "$@"
}

case "${1:-}" in
  list) list ;;
  ensure) ensure "$2" ;;
  run)
    name=$2; shift 2
    ensure "$name"
    cd "$ROOT"
    RK_PLATFORM=$name in_chroot "$RK_CACHE/chroot/$name" bash -c 'cd /rk/src && exec "$@"' rk "$@"
    ;;
  *) echo "usage: platform.sh list | ensure NAME | run NAME CMD..." >&2; exit 2 ;;
esac
