--TEST--
Broken connections: Redis restarted between calls, CLIENT KILL and idle timeout are noticed and the next call works, reads and writes alike
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$s = new RkServer();
$lb = new RedisKit\RedisLeaderboard('r', $s->url);
$lb->setScore('a', 1);
$before = RedisKit\stats();

// 1. restart (data is gone: no persistence on this server)
$s->restart();
var_dump($lb->count());          // read after restart
$lb->setScore('b', 2);           // write after restart
var_dump($lb->score('b'));

// 2. CLIENT KILL of our own connection, then a write
$raw = $s->raw();
$ids = [];
foreach (explode("\n", trim($raw->cmd('CLIENT', 'LIST'))) as $line) {
    if (!str_contains($line, 'cmd=client')) { preg_match('/id=(\d+)/', $line, $m); $ids[] = $m[1]; }
}
foreach ($ids as $id) $raw->cmd('CLIENT', 'KILL', 'ID', $id);
$lb->setScore('c', 3);
var_dump($lb->count());

// 3. server-side idle timeout. serverCron closes a client once it has been
// idle for more than `timeout` whole seconds of the server's clock, checking
// a share of the clients per tick: that can be well past 2 s on a loaded
// machine. So wait until the server has really closed our connection (it is
// gone from CLIENT LIST; $raw keeps itself busy by asking, so it stays open).
$self = $raw->cmd('CLIENT', 'ID');
$ours = array_values(array_diff(rk_client_ids($raw), [$self]));
rk_assert(count($ours) === 1, 'one rediskit connection before the idle timeout: ' . count($ours));
$raw->cmd('CONFIG', 'SET', 'timeout', '1');
rk_assert(rk_until(fn() => !array_intersect($ours, rk_client_ids($raw)), 30.0),
    'the server closed the idle connection within 30 s');
var_dump($lb->rank('c'));
$raw->cmd('CONFIG', 'SET', 'timeout', '0');

$after = RedisKit\stats();
rk_assert($after['reconnects'] - $before['reconnects'] >= 3, 'three reconnects counted');
rk_assert($after['connections_opened'] - $before['connections_opened'] === 3, 'one new connection per break, no more');
var_dump($after['live_connections'] >= 1);
?>
--EXPECT--
int(0)
float(2)
int(2)
int(1)
bool(true)
