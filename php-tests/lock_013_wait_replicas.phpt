--TEST--
RedisLock wait_replicas: an acquire counts only once N replicas confirmed it (WAIT); without them it gives the lock back and fails or keeps waiting
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$m = new RkServer();
$raw = $m->raw();
$l = new RedisKit\RedisLock('res', $m->url, ['wait_replicas' => 1, 'wait_timeout' => 0.05, 'watchdog' => false]);
// no replica: not confirmed, given back at once
var_dump($l->acquire());
var_dump($raw->cmd('EXISTS', 'res'), $l->isAcquired(), $l->fencingToken());
// waiting: keeps trying until $wait is over
$t = microtime(true);
var_dump($l->acquire(0.3));
$took = microtime(true) - $t;
rk_assert($took >= 0.3, "waited the full 0.3 s ($took)");
var_dump($raw->cmd('EXISTS', 'res'));
// a replica attached: confirmed
$r = new RkServer(['--replicaof', '127.0.0.1', (string)$m->port]);
for ($i = 0; $i < 100 && $raw->cmd('WAIT', '1', '100') < 1; $i++);
rk_assert($raw->cmd('WAIT', '1', '100') === 1, 'the replica is in sync');
// a WAIT long enough for a loaded machine (the replica answers GETACK)
$l = new RedisKit\RedisLock('res', $m->url, ['wait_replicas' => 1, 'wait_timeout' => 2.0, 'watchdog' => false]);
var_dump($l->acquire(), $l->isAcquired(), is_int($l->fencingToken()));
var_dump($r->raw()->cmd('GET', 'res') === $l->token());   // the replica has it already
var_dump($l->release());
// the attempt and its WAIT travel together: one round trip per acquire
$trips = fn() => RedisKit\metrics()['connection']["127.0.0.1:{$m->port}"]['round_trips'] ?? null;
$before = $trips();
$got = $l->acquire();
echo "acquire with wait_replicas: ", var_export($got, true), ", round trips: ", $before === null ? 'no metrics' : $trips() - $before, "\n";
$l->release();
// a plain lock on the same server is unaffected
$p = new RedisKit\RedisLock('res', $m->url, ['watchdog' => false]);
var_dump($p->acquire(), $p->release());
?>
--EXPECT--
bool(false)
int(0)
bool(false)
NULL
bool(false)
int(0)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
acquire with wait_replicas: true, round trips: 1
bool(true)
bool(true)
