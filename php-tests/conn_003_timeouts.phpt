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
// the DSN's timeout wins over the ini's (5 s here): it gives up after 0.3 s,
// long before 5
ini_set('rediskit.connect_timeout', '5');
$t = microtime(true);
$e = rk_catch(fn() => (new RedisKit\RedisLeaderboard('x', "redis://$addr?timeout=0.3"))->count());
$elapsed = microtime(true) - $t;
echo get_class($e), "\n";
var_dump(str_contains($e->getMessage(), 'timed out'));
rk_assert($elapsed >= 0.25 && $elapsed < 4.0, "connect gave up after the connect timeout ($elapsed s)");

// The ini connect_timeout applies when the DSN has none: 2 s, so the call
// waits longer than the default (1 s) would, and gives up
ini_set('rediskit.connect_timeout', '2');
$t = microtime(true);
$e = rk_catch(fn() => (new RedisKit\RedisLeaderboard('x', "redis://$addr"))->count());
$elapsed = microtime(true) - $t;
echo get_class($e), "\n";
rk_assert($elapsed >= 1.9 && $elapsed < 10.0, "ini connect timeout honoured ($elapsed s)");
ini_restore('rediskit.connect_timeout');

// Read timeout: the server holds the write back longer than read_timeout.
// CLIENT PAUSE WRITE is in force once it has answered (no race with a
// helper process starting up); reads still get through during it.
$s = new RkServer();
$raw = $s->raw();
$lb = new RedisKit\RedisLeaderboard('rt', $s->url . '?read_timeout=0.2');
$lb->setScore('a', 1);
$raw->cmd('CLIENT', 'PAUSE', '10000', 'WRITE');
$t = microtime(true);
$e = rk_catch(fn() => $lb->setScore('b', 2));
$elapsed = microtime(true) - $t;
echo rk_ex($e), "\n";
rk_assert($elapsed < 5.0, "read timeout long before the pause ends ($elapsed s)");
// The next calls get their own replies, not the late one: during the pause
// (a read), and after it.
var_dump($lb->score('a'));
$raw->cmd('CLIENT', 'UNPAUSE');
// The timed-out write was given up with its connection: it ran once (the
// command may still run) or not at all, never twice, and nothing else.
$b = $lb->score('b');
rk_assert($b === null || $b === 2.0, 'b is absent or 2: ' . var_export($b, true));
var_dump($lb->rank('a') === ($b === null ? 1 : 2)); // ranks start at 1
$lb->setScore('c', 3);
var_dump($lb->score('c'));
var_dump($lb->count() === ($b === null ? 2 : 3));
?>
--EXPECTF--
RedisKit\ConnectionException
bool(true)
RedisKit\ConnectionException
RedisKit\ConnectionException: Redis at redis://127.0.0.1:%d/0: no reply within 0.200s (read_timeout; the command may still run)
float(1)
bool(true)
float(3)
bool(true)
