--TEST--
Timeouts: a host that never answers fails with ConnectionException within the connect timeout; a slow reply within the read timeout, and the late reply is never read by the next call
--FILE--
<?php
require __DIR__ . '/_rk.inc';
// A listening socket whose accept queue is full: the kernel drops new SYNs,
// so connecting hangs exactly like an unreachable host.
$ctx = stream_context_create(['socket' => ['backlog' => 0]]);
$srv = stream_socket_server('tcp://127.0.0.1:0', $errno, $err, STREAM_SERVER_BIND | STREAM_SERVER_LISTEN, $ctx);
$addr = stream_socket_get_name($srv, false);
$fill = [];
for ($i = 0; $i < 4; $i++) {
    $fill[] = @stream_socket_client("tcp://$addr", $e, $m, 0.2, STREAM_CLIENT_CONNECT | STREAM_CLIENT_ASYNC_CONNECT);
}
usleep(100000);
$t = microtime(true);
$e = rk_catch(fn() => (new RedisKit\RedisLeaderboard('x', "redis://$addr?timeout=0.3"))->count());
$elapsed = microtime(true) - $t;
echo get_class($e), "\n";
var_dump(str_contains($e->getMessage(), 'timed out'));
rk_assert($elapsed >= 0.25 && $elapsed < 1.0, "connect gave up after the connect timeout ($elapsed s)");

// The ini connect_timeout applies when the DSN has none.
ini_set('rediskit.connect_timeout', '0.2');
$t = microtime(true);
$e = rk_catch(fn() => (new RedisKit\RedisLeaderboard('x', "redis://$addr"))->count());
$elapsed = microtime(true) - $t;
echo get_class($e), "\n";
rk_assert($elapsed >= 0.15 && $elapsed < 0.9, "ini connect timeout honoured ($elapsed s)");

// Read timeout: the server is busy (DEBUG SLEEP) longer than read_timeout.
$s = new RkServer(['--enable-debug-command', 'yes']);
$lb = new RedisKit\RedisLeaderboard('rt', $s->url . '?read_timeout=0.2');
$lb->setScore('a', 1);
$busy = popen("redis-cli -p {$s->port} DEBUG SLEEP 0.6", 'r');
usleep(100000);
$t = microtime(true);
$e = rk_catch(fn() => $lb->setScore('b', 2));
$elapsed = microtime(true) - $t;
echo rk_ex($e), "\n";
rk_assert($elapsed < 0.5, "read timeout after ~0.2 s ($elapsed s)");
pclose($busy);
// The next calls get their own replies, not the late one (and the timed-out
// write did run once the server woke up: "the command may still run").
var_dump($lb->score('a'));
var_dump($lb->score('b'));
var_dump($lb->rank('a'));
var_dump($lb->count());
?>
--EXPECTF--
RedisKit\ConnectionException
bool(true)
RedisKit\ConnectionException
RedisKit\ConnectionException: Redis at redis://127.0.0.1:%d/0: no reply within 0.200s (read_timeout; the command may still run)
float(1)
float(2)
int(2)
int(2)
