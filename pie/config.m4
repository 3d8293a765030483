dnl rediskit is written in Rust: phpize/configure only find the PHP to build
dnl against and the Rust toolchain; `make` runs cargo (see Makefile.frag) and
dnl leaves modules/rediskit.so, which `make install` copies to the extension dir.
PHP_ARG_ENABLE([rediskit],
  [whether to enable rediskit],
  [AS_HELP_STRING([--enable-rediskit], [Enable rediskit (Redis toolkit, built with cargo)])],
  [yes])

if test "$PHP_REDISKIT" != "no"; then
  dnl what is tested (README, "Compatibility"): Linux with glibc on x86_64
  dnl and arm64 (aarch64)
  AC_MSG_CHECKING([for a supported platform (Linux, glibc, x86_64 or aarch64)])
  rk_machine=`uname -m`
  rk_os=`uname -s`
  if test "$rk_os" != "Linux" || { test "$rk_machine" != "x86_64" && test "$rk_machine" != "aarch64"; }; then
    AC_MSG_RESULT([no: $rk_os $rk_machine])
    if test "$RK_ALLOW_UNTESTED_PLATFORM" != "1"; then
      AC_MSG_ERROR([rediskit is tested on Linux x86_64 and aarch64 (glibc) only, this is $rk_os $rk_machine; set RK_ALLOW_UNTESTED_PLATFORM=1 to build anyway, untested])
    fi
  elif ! getconf GNU_LIBC_VERSION >/dev/null 2>&1; then
    AC_MSG_RESULT([no: not glibc (musl?)])
    if test "$RK_ALLOW_UNTESTED_PLATFORM" != "1"; then
      AC_MSG_ERROR([rediskit is tested on glibc only (Alpine's musl is not); set RK_ALLOW_UNTESTED_PLATFORM=1 to build anyway, untested])
    fi
  else
    AC_MSG_RESULT([yes])
  fi
  AC_ARG_VAR([CARGO], [the cargo binary (default: cargo on PATH, then ~/.cargo/bin/cargo)])
  AC_PATH_PROG([CARGO], [cargo], [no], [$PATH:$HOME/.cargo/bin])
  if test "$CARGO" = "no"; then
    AC_MSG_ERROR([cargo not found: rediskit is written in Rust; install a toolchain with rustup (https://rustup.rs) and retry])
  fi
  AC_MSG_CHECKING([for libclang (bindgen reads the PHP headers with it)])
  rk_libclang=$LIBCLANG_PATH
  for rk_f in /usr/lib/llvm-*/lib/libclang.so* /usr/lib/*/libclang.so* /usr/lib/*/libclang-*.so* /usr/lib64/libclang.so* /usr/local/lib/libclang.so*; do
    test -e "$rk_f" && rk_libclang=$rk_f
  done
  if test -n "$rk_libclang"; then
    AC_MSG_RESULT([$rk_libclang])
  else
    AC_MSG_ERROR([libclang not found: install clang and libclang-dev (Debian/Ubuntu), clang-devel (Fedora), or set LIBCLANG_PATH])
  fi
  dnl the php-config configure was given (--with-php-config), for ext-php-rs
  RK_PHP_CONFIG="$PHP_CONFIG"
  RK_SRCDIR=`cd "$srcdir/.." && pwd`
  PHP_SUBST([RK_PHP_CONFIG])
  PHP_SUBST([RK_SRCDIR])
  PHP_SUBST([CARGO])
  PHP_ADD_MAKEFILE_FRAGMENT([$abs_srcdir/Makefile.frag], [$abs_srcdir], [$abs_builddir])
fi
