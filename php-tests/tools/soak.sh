#!/usr/bin/env bash
# Soak: CALLS (default 1,000,000) mixed calls of all four primitives in ONE
# php-fpm worker (pm=static, pm.max_children=1), driven by cgi-fcgi, each
# request making PER_REQUEST (default 1,000) calls in a fixed cycle of ten:
# leaderboard setScore, rank, top(10); lock acquire, release; queue push,
# pop, ack; limiter allow on two keys. The worker's resident memory (VmRSS of
# /proc/PID/status) is sampled after a warm-up (WARMUP requests, default 50)
# and every tenth of the run; the growth from the warm-up sample to the end
# must stay under 1 MB. Every request must have answered with its full count
# of calls from the same worker over the worker's one Redis connection.
# Then a long-running CLI worker (below): CALLS calls across 1,000 object
# names, 100 reconnects, the same memory goal; then RedisCache's local tier
# under reads, writes and evictions: RSS within its budget + 1 MB.
# Ends with "soak: ..." and the figures; exits 1 if a check or the goal failed.
set -u
unset RK_RUN_DIR # our own run dir: cleaning it up must not stop the caller's servers
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

CALLS=${CALLS:-1000000}
PER_REQUEST=${PER_REQUEST:-1000}
WARMUP=${WARMUP:-50}
GOAL_KB=1024
requests=$(( (CALLS + PER_REQUEST - 1) / PER_REQUEST ))
[ "$PER_REQUEST" -ge 10 ] && [ $((PER_REQUEST % 10)) -eq 0 ] || { echo "soak: PER_REQUEST must be a multiple of 10"; exit 1; }
[ "$requests" -gt "$WARMUP" ] || { echo "soak: CALLS must cover more than WARMUP ($WARMUP) requests"; exit 1; }
[ -f "$EXT" ] || { echo "soak: $EXT not built (cargo build --release)"; exit 1; }
command -v cgi-fcgi >/dev/null || { echo "soak: cgi-fcgi not installed (apt-get install libfcgi-bin)"; exit 1; }
ver=$("$PHP" -n -r 'echo PHP_MAJOR_VERSION, ".", PHP_MINOR_VERSION;' 2>/dev/null)
FPM=${FPM:-/usr/sbin/php-fpm$ver}
[ -x "$FPM" ] || { echo "soak: no php-fpm for PHP $ver: $FPM not found (install php$ver-fpm or set FPM=...)"; exit 1; }

rport=$(start_redis soak) || exit 1
fport=$(free_port)
dir="$RK_RUN_DIR/fpm"; mkdir -p "$dir"
pool="rksoak$$"
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
alive() { local s; s=$(ps -o stat= -p "$1" 2>/dev/null) && [ -n "$s" ] && [ "${s#Z}" = "$s" ]; }
workers() { pgrep -f "^php-fpm: pool $pool( |\$)"; }
master=""
# SIGQUIT to the master, up to 10 s for it and its worker to go, then SIGKILL
stop_fpm() {
  local pids p left end
  [ -n "$master" ] || return 0
  pids=$(echo "$master" $(workers) | tr ' ' '\n' | sort -u)
  kill -QUIT "$master" 2>/dev/null
  end=$(( $(now_ms) + 10000 ))
  while :; do
    left=""
    for p in $pids; do alive "$p" && left="$left $p"; done
    [ -z "$left" ] || [ "$(now_ms)" -ge $end ] && break
    sleep 0.05
  done
  for p in $left; do kill -9 "$p" 2>/dev/null; done
  wait "$master" 2>/dev/null
  master=""
  rm -f "$dir/fpm.pid"
}
trap 'stop_fpm; cleanup' EXIT

cat > "$dir/fpm.conf" <<CONF
[global]
pid = $dir/fpm.pid
error_log = $dir/error.log
daemonize = no
[$pool]
listen = 127.0.0.1:$fport
pm = static
pm.max_children = 1
pm.max_requests = 0
clear_env = no
php_admin_value[rediskit.default_dsn] = redis://127.0.0.1:$rport
php_admin_value[memory_limit] = 128M
CONF
cat > "$dir/app.php" <<'PHP'
<?php
// PER_REQUEST calls, ten per round, the round number carried on from the previous requests
parse_str($_SERVER['QUERY_STRING'] ?? '', $q);
$n = (int)$q['n'];
$round = (int)$q['r'] * intdiv($n, 10);
$lb = new RedisKit\RedisLeaderboard('soak:board');
$lock = new RedisKit\RedisLock('soak:lock', null, ['ttl' => 5.0]);
$queue = new RedisKit\DelayQueue('soak:queue');
$limiter = new RedisKit\RateLimiter('soak:rl', 10000000, 1.0);
$calls = 0;
$ok = true;
try {
    for ($i = 0; $i < $n / 10; $i++, $round++) {
        $m = 'player:' . ($round % 1000);
        $lb->setScore($m, $round % 5000);
        $ok = $lb->rank($m) >= 1 && $ok;
        $ok = count($lb->top(10)) >= 1 && $ok;
        $ok = $lock->acquire() && $ok;
        $ok = $lock->release() && $ok;
        $queue->push('job ' . $round);
        $jobs = $queue->pop(1);
        $ok = count($jobs) === 1 && $ok;
        foreach ($jobs as $job) $ok = $queue->ack($job['id']) && $ok;
        $ok = $limiter->allow('k' . ($round % 100)) && $ok;
        $ok = $limiter->allow('user:' . ($round % 7)) && $ok;
        $calls += 10;
    }
} catch (Throwable $e) {
    echo json_encode(['error' => get_class($e) . ': ' . $e->getMessage(), 'calls' => $calls]);
    return;
}
$st = RedisKit\stats();
echo json_encode(['calls' => $calls, 'ok' => $ok, 'pid' => getmypid(), 'connections_opened' => $st['connections_opened'],
    'requests' => $st['requests']]);
PHP
"$FPM" -n -R -y "$dir/fpm.conf" -d extension="$EXT" -d opcache.enable=0 </dev/null >"$dir/fpm.out" 2>&1 &
master=$!
wpid=""
end=$(( $(now_ms) + 10000 ))
while [ "$(now_ms)" -lt $end ]; do
  alive "$master" || break
  wpid=$(workers | head -1)
  [ -n "$wpid" ] && [ -s "$dir/fpm.pid" ] && break
  sleep 0.05
done
[ -n "$wpid" ] || { echo "soak: $FPM did not start its worker within 10 s"; cat "$dir/fpm.out" "$dir/error.log" 2>/dev/null; exit 1; }

rss() { awk '/^VmRSS:/ {print $2}' "/proc/$wpid/status" 2>/dev/null; }
hwm() { awk '/^VmHWM:/ {print $2}' "/proc/$wpid/status" 2>/dev/null; }
echo "== soak: $CALLS calls in $requests requests of $PER_REQUEST, one php-fpm $ver worker (pid $wpid), $(server_version) on port $rport"
bad=0 samples="" rss_warm="" t0=$SECONDS
for r in $(seq 0 $((requests - 1))); do
  out=$(SCRIPT_FILENAME="$dir/app.php" REQUEST_METHOD=GET QUERY_STRING="n=$PER_REQUEST&r=$r" \
    cgi-fcgi -bind -connect "127.0.0.1:$fport" 2>/dev/null | tail -1)
  case "$out" in
    *"\"calls\":$PER_REQUEST,\"ok\":true,\"pid\":$wpid,\"connections_opened\":1,"*) ;;
    *) bad=$((bad + 1)); [ $bad -le 5 ] && echo "soak: request $r answered: ${out:0:300}" ;;
  esac
  done_n=$((r + 1))
  if [ $done_n -eq "$WARMUP" ]; then rss_warm=$(rss); samples="$rss_warm"
  elif [ $done_n -gt "$WARMUP" ] && [ $(( done_n % (requests / 10 > 0 ? requests / 10 : 1) )) -eq 0 ]; then samples="$samples $(rss)"
  fi
done
rss_end=$(rss)
hwm_end=$(hwm)
elapsed=$((SECONDS - t0))
alive "$wpid" || { echo "soak: the worker $wpid is gone"; bad=$((bad + 1)); }
[ "$(workers | head -1)" = "$wpid" ] || { echo "soak: the pool's worker changed"; bad=$((bad + 1)); }
clients=$(redis-cli -p "$rport" info clients | grep -oE "connected_clients:[0-9]+" | cut -d: -f2)
clients=$((clients - 1))
growth=$((rss_end - rss_warm))
echo "RSS samples (kB), the warm-up one first, then every tenth of the run: $samples"
echo "soak: $((requests * PER_REQUEST)) calls in $requests requests, ${elapsed} s ($(( requests * PER_REQUEST / (elapsed > 0 ? elapsed : 1) )) calls/s), $bad bad responses, $clients Redis connection(s)"
echo "soak: worker VmRSS after warm-up ($((WARMUP * PER_REQUEST)) calls) $rss_warm kB, at the end $rss_end kB: growth $growth kB (goal < $GOAL_KB kB); VmHWM $hwm_end kB"
rc=0
[ $bad -eq 0 ] && [ "$clients" -le 1 ] || rc=1
[ "$growth" -lt $GOAL_KB ] || { echo "soak: RSS grew by $growth kB after warm-up: goal missed"; rc=1; }
stop_fpm

# The long-running CLI worker (queue:work, messenger:consume, Octane): CALLS
# calls in one process across 1,000 object names of every class, with all its
# connections killed 100 times along the way (php-tests/tools/soak-worker.php).
# Its RSS may grow < 1 MB after the first tenth, its connections must be as
# many at the end as after the warm-up, and every kill must have been followed
# by a reconnect, with no call failing.
echo "== soak: one long-running CLI worker, $CALLS calls across 1,000 object names of every class, its connections killed 100 times"
redis-cli -p "$rport" flushall >/dev/null
t0=$SECONDS
out=$(REDIS_URL="redis://127.0.0.1:$rport" "$PHP" -n -d extension="$EXT" -d rediskit.default_dsn="redis://127.0.0.1:$rport" \
  php-tests/tools/soak-worker.php "$CALLS" 1000 100 2>&1 | tail -1)
echo "soak worker ($((SECONDS - t0)) s): $out"
verdict=$(echo "$out" | "$PHP" -n -r '
  $r = json_decode(stream_get_contents(STDIN), true);
  if (!is_array($r)) { echo "no result"; exit; }
  $g = $r["rss_end_kb"] - $r["rss_warm_kb"];
  $why = [];
  if ($r["bad"] !== 0) $why[] = "$r[bad] failed checks";
  if ($r["kills"] !== 100 || $r["reconnects"] < 100) $why[] = "$r[kills] kills, $r[reconnects] reconnects";
  if ($r["connections_end"] !== $r["connections_warm"]) $why[] = "connections $r[connections_warm] after warm-up, $r[connections_end] at the end";
  if ($g >= '"$GOAL_KB"') $why[] = "RSS grew by $g kB after warm-up (goal < '"$GOAL_KB"' kB)";
  echo $why ? implode("; ", $why) : "ok: RSS growth $g kB after warm-up, $r[reconnects] reconnects, connections $r[connections_end]";
')
echo "soak worker: $verdict"
case "$verdict" in ok:*) ;; *) rc=1 ;; esac

# The local tier (RedisCache 'local', 4 MiB): CALLS / 4 random reads of 40,000
# values (about 22 MB in Redis) while another cache object rewrites one key
# every 50 calls (php-tests/tools/soak-tier.php). Every read must be the value
# last written; the process's RSS may grow by at most the tier's budget + 1 MB.
tier_calls=$(( CALLS / 4 ))
echo "== soak: the local tier, $tier_calls reads of 40,000 values through a 4 MiB tier, a write every 50 reads"
redis-cli -p "$rport" flushall >/dev/null
t0=$SECONDS
out=$("$PHP" -n -d extension="$EXT" -d rediskit.default_dsn="redis://127.0.0.1:$rport" \
  php-tests/tools/soak-tier.php "$tier_calls" $((4 << 20)) 2>&1 | tail -1)
echo "soak tier ($((SECONDS - t0)) s): $out"
verdict=$(echo "$out" | "$PHP" -n -r '
  $r = json_decode(stream_get_contents(STDIN), true);
  if (!is_array($r)) { echo "no result"; exit; }
  $g = $r["rss_end_kb"] - $r["rss_start_kb"];
  $goal = $r["max_kb"] + '"$GOAL_KB"';
  $why = [];
  if ($r["bad"] !== 0) $why[] = "$r[bad] reads returned a value other than the last written";
  if ($r["local_hits"] === 0) $why[] = "no read was served by the tier";
  if ($g >= $goal) $why[] = "RSS grew by $g kB (goal < $goal kB: the tier budget + 1 MB)";
  echo $why ? implode("; ", $why) : "ok: RSS growth $g kB (goal < $goal kB), $r[local_hits] of $r[calls] reads local, every read the last value written";
')
echo "soak tier: $verdict"
case "$verdict" in ok:*) ;; *) rc=1 ;; esac
exit $rc
