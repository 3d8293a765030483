#!/usr/bin/env bash
# The threaded load test (make test's apache stage, on the trixie-zts
# platform): Apache httpd with mpm_event, ONE child process of THREADS
# (default 32) threads, running the thread-safe PHP module with rediskit.
# ab sends REQUESTS (default 2000) requests, CONCURRENCY (default 32) at a
# time, to apache/app.php, which uses every class in each request; then
# apache/check.php checks, from what the requests recorded in Redis: every
# request ran to its end, one child process served them from >= 16 threads,
# mutual exclusion (a locked read-modify-write loses no update) with fencing
# tokens strictly increasing, an exact limit, no job lost or delivered twice,
# one compute for a single-flight remember(); and Apache's error log holds no
# crash and no PHP error. Then 64 requests die (uncaught exception) each
# holding a lock: every one must be free once its request ended.
#
# A second run kills Redis (SIGKILL) in the middle of the load and starts it
# again on the same port and data (appendfsync always): the requests made
# while it was down fail (500, with RedisKit\ConnectionException in the
# log), and then: the same Apache child serves the rest, every thread's
# connections come back, no crash, fencing never goes backwards, no job is
# delivered twice.
#
# Ends with "apache: N passed, N failed".
set -u
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
THREADS=${THREADS:-32}
REQUESTS=${REQUESTS:-2000}
CONCURRENCY=${CONCURRENCY:-32}
LIMIT=$((REQUESTS / 2))
passed=0 failed=0 CHECKS=apache

ztsphp=$(command -v "$PHP")
prefix=$(dirname "$(dirname "$ztsphp")")
module="$prefix/lib/apache2/libphp.so"
[ "$("$PHP" -n -r 'echo PHP_ZTS;')" = 1 ] || { result 1 "$PHP is not a thread-safe PHP"; checks_finish; }
[ -f "$module" ] || { result 1 "no Apache module at $module"; checks_finish; }
command -v apache2 >/dev/null && command -v ab >/dev/null || { result 1 "apache2 and ab are not installed"; checks_finish; }
[ -f "$EXT" ] || { result 1 "no release build at $EXT"; checks_finish; }

# the Apache child runs as www-data: its files must be readable by it
dir=$(mktemp -d /tmp/rk-apache.XXXXXX); chmod 755 "$dir"
mkdir -p "$dir/www" "$dir/run" "$dir/redis"
cp php-tests/tools/apache/app.php "$dir/www/app.php"
cp "$EXT" "$dir/rediskit.so"
chmod -R a+rX "$dir"
mkdir -p "$dir/www/state"; chown www-data "$dir/www/state"

rport=$(free_port)
start_server() {
  redis-server --port "$rport" --bind 127.0.0.1 --save '' --appendonly yes --appendfsync always \
    --dir "$dir/redis" --daemonize yes --pidfile "$RK_RUN_DIR/apache-redis.pid" --logfile "$dir/redis/redis.log" >/dev/null
  for _ in $(seq 200); do redis-cli -p "$rport" ping 2>/dev/null | grep -q PONG && return 0; sleep 0.05; done
  return 1
}
hport=$(free_port)
cat >"$dir/php.ini" <<INI
extension=$dir/rediskit.so
rediskit.default_dsn=redis://127.0.0.1:$rport
display_errors=0
log_errors=1
max_execution_time=60
INI
cat >"$dir/httpd.conf" <<CONF
ServerRoot "$dir"
ServerName localhost
Listen 127.0.0.1:$hport
PidFile $dir/run/httpd.pid
DefaultRuntimeDir $dir/run
ErrorLog $dir/error.log
LogLevel warn
LoadModule mpm_event_module /usr/lib/apache2/modules/mod_mpm_event.so
LoadModule authz_core_module /usr/lib/apache2/modules/mod_authz_core.so
LoadModule php_module $module
PHPIniDir $dir
User www-data
Group www-data
StartServers 1
ServerLimit 1
ThreadLimit $THREADS
ThreadsPerChild $THREADS
MaxRequestWorkers $THREADS
MinSpareThreads 1
MaxSpareThreads $THREADS
MaxConnectionsPerChild 0
KeepAlive Off
DocumentRoot $dir/www
<Directory $dir/www>
  Require all granted
</Directory>
<FilesMatch "\.php\$">
  SetHandler application/x-httpd-php
</FilesMatch>
CONF
stop_apache() {
  local pid
  pid=$(cat "$dir/run/httpd.pid" 2>/dev/null) || return 0
  kill -TERM "$pid" 2>/dev/null
  for _ in $(seq 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  kill -9 "$pid" 2>/dev/null; pkill -9 -f "apache2 -f $dir/httpd.conf" 2>/dev/null
  rm -f "$dir/run/httpd.pid"
}
trap 'stop_apache; cleanup; rm -rf "$dir"' EXIT

start_server || { result 1 "redis-server did not start"; checks_finish; }
echo "   Apache $(apache2 -v | grep -oE 'Apache/[0-9.]+'), mpm_event, $THREADS threads in one child; PHP $("$PHP" -n -r 'echo PHP_VERSION;') ZTS"
apache2 -f "$dir/httpd.conf" -k start 2>&1 | grep -v '^$' || true
up=1
for _ in $(seq 200); do
  [ "$("$PHP" -n -r "echo @file_get_contents('http://127.0.0.1:$hport/app.php?probe=1');" 2>/dev/null)" = up ] && { up=0; break; }
  sleep 0.05
done
result $up "Apache started with the ZTS PHP module and answered"
[ $up = 0 ] || { tail -20 "$dir/error.log"; checks_finish; }

# a crash, a panic or a PHP error other than the uncaught ConnectionException
# of a request made while Redis was down and the deliberate deaths below
cli() { "$PHP" -n -d extension="$EXT" -d rediskit.default_dsn="redis://127.0.0.1:$rport" "$@"; }
errors_in_log() {
  grep -E "exit signal|Segmentation|AH00052|PHP (Fatal|Warning|Notice|Deprecated)|panicked|RUST_BACKTRACE" "$dir/error.log" \
    | grep -vE "PHP Fatal error: +Uncaught (RedisKit.{1,2}ConnectionException|RuntimeException: rediskit test: )"
}

# run 1: the load, then the checks
t=$SECONDS
ab -q -n "$REQUESTS" -c "$CONCURRENCY" "http://127.0.0.1:$hport/app.php?limit=$LIMIT" >"$dir/ab1.out" 2>&1
rc=$?
grep -E "^(Complete requests|Failed requests|Non-2xx responses|Requests per second)|Connect:.*Receive:|Length:.*Exceptions:" "$dir/ab1.out" | sed 's/^/   /'
bad=$(grep -E "^(Failed requests|Non-2xx responses)" "$dir/ab1.out" | grep -oE "[0-9]+" | awk '{s+=$1} END {print s+0}')
result $([ $rc = 0 ] && [ "$bad" = 0 ] && grep -q "^Complete requests: *$REQUESTS$" "$dir/ab1.out"; echo $?) \
  "$REQUESTS requests, $CONCURRENCY at a time, all answered 200 ($((SECONDS - t)) s)"
threads=$(ps -L -o tid= -p "$(pgrep -f "apache2 -f $dir/httpd.conf" -u www-data | head -1)" 2>/dev/null | wc -l)
echo "   the Apache child has $threads threads"
out=$("$PHP" -n -d extension="$EXT" -d rediskit.default_dsn="redis://127.0.0.1:$rport" php-tests/tools/apache/check.php "$REQUESTS" "$LIMIT" 16 2>&1)
[ $failed = 0 ] || echo "$(tail -5 "$dir/error.log")"
echo "$out" | sed 's/^/   /'
result $([ -n "$out" ] && ! echo "$out" | grep -qv '^ok '; echo $?) "invariants after the load"
log=$(errors_in_log)
result $([ -z "$log" ]; echo $?) "Apache's error log: no crash, no PHP error"
[ -n "$log" ] && echo "$log" | head -20

# requests that die (uncaught exception) with a lock held: each lock must be
# free once its request ended
ab -q -n 64 -c "$CONCURRENCY" "http://127.0.0.1:$hport/app.php?leave=1" >"$dir/ab-leave.out" 2>&1
# (mod_php ends a request when Apache frees it, after the response went out:
# wait for it, up to 10 s)
out=$(cli -r '
  $names = array_column((new RedisKit\RedisLeaderboard("zts:left"))->top(1000), "member");
  $end = microtime(true) + 10;
  do {
      $held = array_filter($names, fn($n) => (new RedisKit\RedisLock($n))->holder() !== null);
  } while ($held && microtime(true) < $end && usleep(20000) === null);
  echo count($names), " ", count($held);')
echo "   requests that died holding a lock: ${out% *}; locks still held: ${out#* }"
result $([ "$out" = "64 0" ]; echo $?) "locks held by requests that died are released at their end, on their thread"

# run 2: Redis killed mid-load and started again
redis-cli -p "$rport" flushall >/dev/null
child=$(pgrep -f "apache2 -f $dir/httpd.conf" -u www-data | head -1)
n2=$REQUESTS
ab -q -n "$n2" -c "$CONCURRENCY" "http://127.0.0.1:$hport/app.php?limit=$n2" >"$dir/ab2.out" 2>&1 &
abpid=$!
# until(SECONDS, CMD...): CMD until it succeeds, or false after SECONDS
until_ok() { local end=$((SECONDS + $1)); shift; until "$@"; do [ $SECONDS -ge $end ] && return 1; sleep 0.1; done; }
done_at_least() { [ "$(cli -r 'echo (int)(new RedisKit\RedisCache("zts"))->get("done", 0);' 2>/dev/null)" -ge "$1" ] 2>/dev/null; }
failures_logged() { grep -q "ConnectionException" "$dir/error.log"; }
# killed once a third of the requests ran; started again once requests failed
until_ok 120 done_at_least $((n2 / 3)); r1=$?
kill -9 "$(cat "$RK_RUN_DIR/apache-redis.pid")" 2>/dev/null
until_ok 60 failures_logged; r2=$?
start_server; r3=$?
wait $abpid
result $([ $r1 = 0 ] && [ $r2 = 0 ] && [ $r3 = 0 ]; echo $?) "Redis killed mid-load (after $((n2 / 3)) requests) and started again once requests failed"
grep -E "^(Complete requests|Failed requests|Non-2xx responses)" "$dir/ab2.out" | sed 's/^/   /'
now=$(pgrep -f "apache2 -f $dir/httpd.conf" -u www-data | head -1)
result $([ -n "$child" ] && [ "$now" = "$child" ]; echo $?) "the same Apache child (pid $child) lives on"
# every thread's next request reconnects: a burst after the restart all succeeds
ab -q -n 500 -c "$CONCURRENCY" "http://127.0.0.1:$hport/app.php?limit=$n2" >"$dir/ab3.out" 2>&1
bad=$(grep -E "^(Failed requests|Non-2xx responses)" "$dir/ab3.out" | grep -oE "[0-9]+" | awk '{s+=$1} END {print s+0}')
grep -E "^(Complete requests|Failed requests|Non-2xx responses)|Connect:.*Receive:|Length:.*Exceptions:" "$dir/ab3.out" | sed 's/^/   /'
result $([ "$bad" = 0 ] && grep -q "^Complete requests: *500$" "$dir/ab3.out"; echo $?) "after the restart, 500 more requests all answered 200"
out=$(cli php-tests/tools/apache/check.php 0 0 0 restart "$dir/www/state/unknown-acks" 2>&1)
echo "$out" | sed 's/^/   /'
result $([ -n "$out" ] && ! echo "$out" | grep -qv '^ok '; echo $?) "invariants through the restart"
log=$(errors_in_log)
result $([ -z "$log" ]; echo $?) "Apache's error log: no crash, no PHP error but the failed calls' uncaught ConnectionException"
[ -n "$log" ] && echo "$log" | head -20
checks_finish
