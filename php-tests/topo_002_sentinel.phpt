--TEST--
Sentinel: bad specs; after a forced failover and after the master is killed, calls reach the new master; in between they fail with ConnectionException, never hang
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$bad = [
    ['sentinel' => [], 'service' => 'm'],
    ['sentinel' => ['redis://127.0.0.1:26379']],
    ['sentinel' => ['redis://127.0.0.1:26379'], 'service' => ''],
    ['sentinel' => ['redis://127.0.0.1:26379'], 'service' => 'm', 'colour' => 1],
    ['sentinel' => ['nope://x'], 'service' => 'm'],
];
foreach ($bad as $c) echo rk_ex(rk_catch(fn() => new RedisKit\RedisLeaderboard('x', $c))), "\n";
$e = rk_catch(fn() => (new RedisKit\RedisLeaderboard('x', ['sentinel' => ['127.0.0.1:1'], 'service' => 'm', 'connect_timeout' => 0.3]))->count());
echo get_class($e), "\n";

$g = new RkSentinelGroup();
$conn = $g->conn() + ['connect_timeout' => 0.5, 'read_timeout' => 1];
$lb = new RedisKit\RedisLeaderboard('sboard', $conn);
$lb->setScore('x', 1);
echo "unknown service: ", get_class(rk_catch(fn() => (new RedisKit\RedisLeaderboard('x', ['service' => 'other'] + $g->conn()))->count())), "\n";

// run calls until they land on $wantPort's server; report what failed in between
function until_master(RedisKit\RedisLeaderboard $lb, int $wantPort, float $limit): array
{
    $t = microtime(true);
    $errors = [];
    $slowest = 0.0;
    while (microtime(true) - $t < $limit) {
        $c = microtime(true);
        try {
            $lb->incrementScore('x', 1);
            if ((new RkRaw("redis://127.0.0.1:$wantPort"))->cmd('ZSCORE', 'sboard', 'x') !== null
                && RedisKit\stats()['live_connections'] >= 1) {
                $last = (float)(new RkRaw("redis://127.0.0.1:$wantPort"))->cmd('ZSCORE', 'sboard', 'x');
                if ($last === $lb->score('x')) return [true, array_keys($errors), $slowest];
            }
        } catch (RedisKit\Exception $e) {
            $errors[get_class($e)] = true;
        }
        $slowest = max($slowest, microtime(true) - $c);
        usleep(20000);
    }
    return [false, array_keys($errors), $slowest];
}

// 1. forced failover: the old master stays up (and writable) for a while
$old = $g->masterPort();
$g->failover();
$t = microtime(true);
while ($g->masterPort() === $old && microtime(true) - $t < 10) usleep(50000);
$new = $g->masterPort();
var_dump($new !== $old);
[$ok, $errs, $slowest] = until_master($lb, $new, 5.0);
var_dump($ok, $errs);
rk_assert($slowest < 2.0, "no call hung ($slowest s)");

// 2. the master is killed: after down-after + failover, calls reach the new one
$victim = $new === $g->master->port ? $g->master : $g->replica;
(new RkRaw($victim->url))->cmd('WAIT', '1', '2000');
$victim->stop(true);
$t = microtime(true);
while ($g->masterPort() === $new && microtime(true) - $t < 20) usleep(100000);
$third = $g->masterPort();
var_dump($third !== $new);
[$ok, $errs, $slowest] = until_master($lb, $third, 10.0);
var_dump($ok);
echo implode(',', $errs) ?: 'no errors', "\n";
rk_assert($slowest < 2.5, "no call hung ($slowest s)");
?>
--EXPECTF--
ValueError: the 'sentinel' list is empty
ValueError: a sentinel connection needs a 'service' (the monitored master's name)
ValueError: a sentinel connection needs a 'service' (the monitored master's name)
ValueError: sentinel connection: unknown option 'colour' (known options: sentinel, service, user, password, sentinel_user, sentinel_password, db, read_timeout, connect_timeout, tls, wait_replicas, wait_timeout)
ValueError: sentinel: invalid Redis DSN 'nope://x': unknown scheme 'nope' (use redis, rediss or unix)
RedisKit\ConnectionException
unknown service: RedisKit\ConnectionException
bool(true)
bool(true)
array(0) {
}
bool(true)
bool(true)
%s
