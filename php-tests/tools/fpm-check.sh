#!/usr/bin/env bash
# A real php-fpm pool (pm=static, 2 workers) with the extension: 200 requests
# through cgi-fcgi; Redis must see at most 2 connections from the pool, and
# every worker must have reused its connection across requests.
set -u
unset RK_RUN_DIR # our own run dir: cleaning it up must not stop the caller's servers
source "$(dirname "$0")/lib.sh"
FPM=$(ls /usr/sbin/php-fpm* 2>/dev/null | head -1)
[ -n "$FPM" ] || { echo "php-fpm not found"; exit 1; }
rport=$(start_redis fpm) || exit 1
fport=$(free_port)
dir="$RK_RUN_DIR/fpm"; mkdir -p "$dir"
cat > "$dir/fpm.conf" <<CONF
[global]
pid = $dir/fpm.pid
error_log = $dir/error.log
daemonize = yes
[www]
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
"$FPM" -n -R -y "$dir/fpm.conf" -d extension="$EXT" -d opcache.enable=0 || { cat "$dir/error.log"; exit 1; }
for _ in $(seq 50); do [ -f "$dir/fpm.pid" ] && break; sleep 0.05; done
sleep 0.2
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
