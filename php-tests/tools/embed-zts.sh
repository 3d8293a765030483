#!/usr/bin/env bash
# The embedding test (make test's embed stage, on the trixie-zts platform):
# the thread-safe PHP's embed SAPI (the library FrankenPHP is built on) in a
# program of our own, embed/threads.c, whose THREADS (default 16) threads
# each take a TSRM context and serve PER (default 25) PHP requests of
# apache/app.php, which uses every class; then apache/check.php checks what
# the requests recorded in Redis, as for the Apache test: every request ran
# to its end in one process, from THREADS threads, each thread's
# RedisKit\stats() its own, mutual exclusion with fencing, an exact limit,
# no job lost or delivered twice, one compute; and nothing on stderr (no
# crash, no PHP error).
#
# Ends with "embed: N passed, N failed".
set -u
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
THREADS=${THREADS:-16}
PER=${PER:-25}
passed=0 failed=0 CHECKS=embed

ztsphp=$(command -v "$PHP")
prefix=$(dirname "$(dirname "$ztsphp")")
lib="$prefix/lib/embed/libphp.so"
[ "$("$PHP" -n -r 'echo PHP_ZTS;')" = 1 ] || { result 1 "$PHP is not a thread-safe PHP"; checks_finish; }
[ -f "$lib" ] || { result 1 "no embed SAPI library at $lib"; checks_finish; }
[ -f "$EXT" ] || { result 1 "no release build at $EXT"; checks_finish; }

dir=$(mktemp -d /tmp/rk-embed.XXXXXX)
mkdir -p "$dir/www/state"
cp php-tests/tools/apache/app.php "$dir/www/app.php"
cc -O1 -Wall -o "$dir/threads" php-tests/tools/embed/threads.c $("$prefix/bin/php-config" --includes) \
  -L"$prefix/lib/embed" -Wl,-rpath,"$prefix/lib/embed" -lphp -lpthread >"$dir/cc.log" 2>&1
rc=$?
result $rc "the host program builds against the embed SAPI ($lib)"
[ $rc = 0 ] || { cat "$dir/cc.log"; checks_finish; }

rport=$(start_redis embed) || { result 1 "redis-server did not start"; checks_finish; }
printf 'extension=%s\nrediskit.default_dsn=redis://127.0.0.1:%s\n' "$EXT" "$rport" >"$dir/php.ini"
sent=$((THREADS * PER))
t=$SECONDS
PHPRC=$dir "$dir/threads" "$dir/www/app.php" "$THREADS" "$PER" >"$dir/out" 2>"$dir/err"
rc=$?
line=$(grep "^requests:" "$dir/out")
echo "   $line; $(grep -c '^ok$' "$dir/out") requests printed ok"
result $([ $rc = 0 ] && [ "$(grep -c '^ok$' "$dir/out")" = "$sent" ]; echo $?) \
  "$THREADS threads of one process served $PER requests each through the embed SAPI ($((SECONDS - t)) s)"
out=$("$PHP" -n -d extension="$EXT" -d rediskit.default_dsn="redis://127.0.0.1:$rport" php-tests/tools/apache/check.php "$sent" 100 "$THREADS" 2>&1)
echo "$out" | sed 's/^/   /'
result $([ -n "$out" ] && ! echo "$out" | grep -qv '^ok '; echo $?) "invariants after the load"
errs=$(grep -vE '^\s*$' "$dir/err")
result $([ -z "$errs" ]; echo $?) "stderr: no crash, no PHP error"
[ -n "$errs" ] && echo "$errs" | head -20
rm -rf "$dir"
checks_finish
