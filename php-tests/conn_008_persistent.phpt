--TEST--
Persistent per worker: 10,000 objects with the same DSN open one connection; distinct DSNs (db, credentials) get their own
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$s = new RkServer();
$raw = $s->raw();
$objs = [];
for ($i = 0; $i < 10000; $i++) {
    $objs[] = $lb = new RedisKit\RedisLeaderboard("p$i", $s->url);
    if ($i % 1000 === 0) $lb->setScore('m', $i);
}
var_dump(RedisKit\stats()['connections_opened']);
var_dump(count(array_filter(explode("\n", trim($raw->cmd('CLIENT', 'LIST'))))));   // ours + raw
unset($objs);
(new RedisKit\RedisLeaderboard('p', $s->url . '/1'))->count();
(new RedisKit\RedisLeaderboard('p', $s->url . '/1?read_timeout=5'))->count();   // timeouts do not split the pool
var_dump(RedisKit\stats()['connections_opened']);
var_dump(RedisKit\stats()['live_connections']);
?>
--EXPECT--
int(1)
int(2)
int(2)
int(2)
