#!/usr/bin/env bash
# A real php-fpm pool (pm=static, 2 workers) with the extension: 200 requests
# through cgi-fcgi; Redis must see at most 2 connections from the pool, and
# every worker must have reused its connection across requests. The pool is
# then stopped gracefully (SIGQUIT to the master): its master and workers must
# all be gone within the deadline, or the check fails (after SIGKILL of what is
# left of this pool). Uses the php-fpm of the PHP under test ($PHP, see
# lib.sh): /usr/sbin/php-fpm<major>.<minor>, or $FPM.
set -u
unset RK_RUN_DIR # our own run dir: cleaning it up must not stop the caller's servers
source "$(dirname "$0")/lib.sh"

ver=$("$PHP" -n -r 'echo PHP_MAJOR_VERSION, ".", PHP_MINOR_VERSION;' 2>/dev/null)
[ -n "$ver" ] || { echo "fpm-check: cannot run the PHP under test ('$PHP')"; exit 1; }
FPM=${FPM:-/usr/sbin/php-fpm$ver}
[ -x "$FPM" ] || { echo "fpm-check: no php-fpm for PHP $ver ($PHP): $FPM not found (install php$ver-fpm or set FPM=/path/to/php-fpm)"; exit 1; }
fpm_ver=$("$FPM" -n -v 2>/dev/null | head -1 | grep -oE '^PHP [0-9]+\.[0-9]+' | cut -d' ' -f2)
[ "$fpm_ver" = "$ver" ] || { echo "fpm-check: $FPM is PHP ${fpm_ver:-?}, the PHP under test ($PHP) is $ver"; exit 1; }

rport=$(start_redis fpm) || exit 1
fport=$(free_port)
dir="$RK_RUN_DIR/fpm"; mkdir -p "$dir"
# a pool name of our own: its workers are "php-fpm: pool $pool", told apart
# from any other php-fpm on the machine
pool="rkcheck$$"

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
alive() { # pid: running (a zombie counts as gone)
  local s; s=$(ps -o stat= -p "$1" 2>/dev/null) && [ -n "$s" ] && [ "${s#Z}" = "$s" ]
}
master="" # the php-fpm master: our own child (daemonize = no), so we reap it
workers() { pgrep -f "^php-fpm: pool $pool( |\$)"; }
# stop_fpm: SIGQUIT (graceful) to the master, wait up to 10 s for the master
# and its workers to be gone; then SIGKILL whatever of this pool is left.
# Returns 1 if it had to.
stop_fpm() {
  local pids p left
  [ -n "$master" ] || return 0
  pids=$(echo "$master" $(workers) | tr ' ' '\n' | sort -u)
  kill -QUIT "$master" 2>/dev/null
  local end=$(( $(now_ms) + 10000 ))
  while :; do
    left=""
    for p in $pids; do alive "$p" && left="$left $p"; done
    [ -z "$left" ] || [ "$(now_ms)" -ge $end ] && break
    sleep 0.05
  done
  if [ -n "$left" ]; then
    left=$(echo "$left" $(workers) | tr ' ' '\n' | sort -u)
    echo "fpm-check: php-fpm did not stop within 10 s of SIGQUIT; SIGKILL to" $left
    for p in $left; do kill -9 "$p" 2>/dev/null; done
  fi
  wait "$master" 2>/dev/null
  master=""
  rm -f "$dir/fpm.pid"
  [ -z "$left" ]
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
pm.max_children = 2
clear_env = no
php_admin_value[rediskit.default_dsn] = redis://127.0.0.1:$rport
CONF
cat > "$dir/app.php" <<'PHP'
<?php
$lb = new RedisKit\RedisLeaderboard('fpm:board');
$lb->incrementScore('worker-' . getmypid(), 1);
$top = $lb->top(2);
echo json_encode(['stats' => RedisKit\stats(), 'rank' => $lb->rank('worker-' . getmypid())]);
PHP
"$FPM" -n -R -y "$dir/fpm.conf" -d extension="$EXT" -d opcache.enable=0 </dev/null >"$dir/fpm.out" 2>&1 &
master=$!
# ready: both workers are up (deadline 10 s); the pidfile is lib.sh's backstop
ready=0
end=$(( $(now_ms) + 10000 ))
while [ "$(now_ms)" -lt $end ]; do
  alive "$master" || break
  [ "$(workers | wc -l)" -eq 2 ] && [ -s "$dir/fpm.pid" ] && { ready=1; break; }
  sleep 0.05
done
[ $ready = 1 ] || { echo "fpm-check: $FPM did not start a pool of 2 workers within 10 s"; cat "$dir/fpm.out" "$dir/error.log" 2>/dev/null; exit 1; }
for i in $(seq 200); do
  SCRIPT_FILENAME="$dir/app.php" REQUEST_METHOD=GET cgi-fcgi -bind -connect "127.0.0.1:$fport" 2>/dev/null | tail -1 > "$dir/out.$i"
done
clients=$(redis-cli -p "$rport" info clients | grep -oE "connected_clients:[0-9]+" | cut -d: -f2)
clients=$((clients - 1)) # minus this redis-cli
"$PHP" -n -r '
  $dir = $argv[1]; $clients = (int)$argv[2];
  $by = []; $bad = 0;
  for ($i = 1; $i <= 200; $i++) {
    $j = json_decode(file_get_contents("$dir/out.$i"), true);
    if (!$j) { $bad++; continue; }
    $pid = $j["stats"]["pid"];
    $by[$pid] = $j["stats"];
  }
  $ok = $bad === 0 && $clients <= 2 && count($by) >= 1 && count($by) <= 2;
  $served = 0;
  foreach ($by as $pid => $s) {
    $served += $s["requests"];
    $ok = $ok && $s["connections_opened"] === 1 && $s["requests"] > 1;
    echo "worker $pid: requests={$s["requests"]} connections_opened={$s["connections_opened"]} commands={$s["commands"]}\n";
  }
  echo "redis saw $clients client connection(s) from the pool; bad responses: $bad\n";
  exit($ok ? 0 : 1);
' "$dir" "$clients"
rc=$?
# a graceful stop of the pool is part of the check (module shutdown must not hang a worker)
if stop_fpm; then
  echo "php-fpm $ver ($FPM): master and workers stopped on SIGQUIT"
else
  rc=1
fi
exit $rc
