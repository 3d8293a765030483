--TEST--
Redis Cluster: bad specs, unreachable seeds, one slot per object and several shards overall, resharding (ASK/MOVED) and a master killed mid-loop
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$bad = [
    ['cluster' => []],
    ['cluster' => 'redis://127.0.0.1:7000'],
    ['cluster' => ['http://127.0.0.1:7000']],
    ['cluster' => ['redis://127.0.0.1:7000'], 'colour' => 'red'],
    ['cluster' => ['redis://127.0.0.1:7000'], 'sentinel' => ['redis://127.0.0.1:26379']],
    ['cluster' => ['unix:///tmp/x.sock']],
    ['cluster' => ['redis://127.0.0.1:7000/2']],
    ['cluster' => ['redis://127.0.0.1:7000'], 'read_timeout' => -1],
    ['cluster' => [42]],
];
foreach ($bad as $c) echo rk_ex(rk_catch(fn() => new RedisKit\RedisLeaderboard('x', $c))), "\n";

// nothing listens there: fails fast, as a ConnectionException
$t = microtime(true);
$e = rk_catch(fn() => (new RedisKit\RedisLeaderboard('x', ['cluster' => ['127.0.0.1:1', '127.0.0.1:2'], 'connect_timeout' => 0.3]))->count());
echo get_class($e), "\n";
rk_assert(microtime(true) - $t < 1.0, 'unreachable cluster fails within the connect timeout');

$cl = new RkCluster();
$conn = $cl->conn();
$raw = new RkRaw($cl->nodes[0]->url);
// 50 objects: each object's keys in one slot, the objects over several shards
$owners = [];
$oneSlot = true;
for ($i = 0; $i < 50; $i++) {
    $name = "board:$i";
    $lb = new RedisKit\RedisLeaderboard($name, $conn, ['ties' => 'earliest', 'ranking' => 'dense', 'periods' => ['daily'], 'ttl' => 60]);
    $lb->setScores(['a' => 1, 'b' => 2]);
    $lb->incrementScore('a', 5);
    $daily = $lb->period('daily');
    $keys = [$name, '{' . $name . '}:seq', '{' . $name . '}:clock', '{' . $name . '}:ds', '{' . $name . '}:dc', $daily->top(1) ? '{' . $name . '}:daily:' . gmdate('Y-m-d', (int)$raw->cmd('TIME')[0]) : ''];
    $slots = array_unique(array_map(fn($k) => $raw->cmd('CLUSTER', 'KEYSLOT', $k), array_filter($keys)));
    $oneSlot = $oneSlot && count($slots) === 1 && $lb->rank('a') === 1 && $lb->count() === 2;
    $owners[$cl->owner($name)->port] = true;
}
var_dump($oneSlot, count($owners) > 1);

// the other classes too: every key an object wrote in one slot, the objects over several shards
$slotsOf = function (string $needle) use ($raw): array {
    $keys = array_filter($raw->cmd('KEYS', '*'), fn($k) => str_contains($k, $needle));
    return [count($keys), array_values(array_unique(array_map(fn($k) => $raw->cmd('CLUSTER', 'KEYSLOT', $k), $keys))), reset($keys)];
};
foreach (['lock', 'queue', 'limiter'] as $class) {
    $ok = true;
    $shards = [];
    for ($i = 0; $i < 50; $i++) {
        $name = "$class-$i-";
        if ($class === 'lock') {
            $o = new RedisKit\RedisLock($name, $conn, ['ttl' => 60, 'watchdog' => false]);
            $o->acquire();
            $o->fencingToken();                   // the fencing counter, issued when asked for
            $w = new RedisKit\RedisLock($name, $conn, ['fair' => true]);
            $w->acquire(0.01);                    // a waiter: waiters, queue and wake-up keys
        } elseif ($class === 'queue') {
            $o = new RedisKit\DelayQueue($name, $conn, ['max_attempts' => 1, 'visibility_timeout' => 0.01]);
            $o->push('now');
            $o->push('later', 60);
            $o->pop();
            usleep(20000);
            $o->pop();                            // the expired claim goes to the dead set
        } else {
            $o = new RedisKit\RateLimiter($name, 5, 60, $conn, ['algorithm' => ['sliding_window', 'fixed_window', 'token_bucket', 'gcra'][$i % 4]]);
            $o->attempt("subject-$i");
        }
        [$n, $slots, $first] = $slotsOf($name);
        $ok = $ok && $n >= ($class === 'limiter' ? 1 : 2) && count($slots) === 1;
        if ($slots) $shards[$cl->owner($first)->port] = true;
    }
    echo "$class: ", $ok ? 'one slot per object' : 'keys of one object in several slots (or missing)', ', ', count($shards) > 1 ? 'several shards' : 'one shard', "\n";
}
$st = RedisKit\stats();
rk_assert($st['connections_opened'] <= 7, "one connection per master (+ blocking waits): {$st['connections_opened']}");

// resharding: move board:7's slot to another master while the board is in use
$name = 'board:7';
$lb = new RedisKit\RedisLeaderboard($name, $conn, ['ties' => 'earliest', 'ranking' => 'dense', 'periods' => ['daily'], 'ttl' => 60]);
$src = $cl->owner($name);
$slot = $raw->cmd('CLUSTER', 'KEYSLOT', $name);
$masters = [];
foreach ($raw->cmd('CLUSTER', 'SLOTS') as $r) $masters[(int)$r[2][1]] = $r[2][2];
$dstPort = array_values(array_filter(array_keys($masters), fn($p) => $p !== $src->port))[0];
$dst = new RkRaw("redis://127.0.0.1:$dstPort");
$srcRaw = new RkRaw($src->url);
$dst->cmd('CLUSTER', 'SETSLOT', (string)$slot, 'IMPORTING', $masters[$src->port]);
$srcRaw->cmd('CLUSTER', 'SETSLOT', (string)$slot, 'MIGRATING', $masters[$dstPort]);
var_dump($lb->rank('a'));                   // mid-migration, keys still at the source
$keys = $srcRaw->cmd('CLUSTER', 'GETKEYSINSLOT', (string)$slot, '100');
$srcRaw->cmd('MIGRATE', '127.0.0.1', (string)$dstPort, '', '0', '5000', 'KEYS', ...$keys);
foreach ($masters as $port => $id) (new RkRaw("redis://127.0.0.1:$port"))->cmd('CLUSTER', 'SETSLOT', (string)$slot, 'NODE', $masters[$dstPort]);
var_dump($lb->rank('a'), $lb->incrementScore('b', 10), $lb->top(1)[0]['member']);   // MOVED followed
var_dump($cl->owner($name)->port === $dstPort);

// a master killed mid-loop: calls fail with ConnectionException (never hang), then its replica takes over
$victimName = 'board:3';
$lb = new RedisKit\RedisLeaderboard($victimName, $conn + ['read_timeout' => 1, 'connect_timeout' => 0.5]);
$lb->setScore('x', 1);
$victim = $cl->owner($victimName);
$cl->synced($victim);
$victim->stop(true);
$t = microtime(true);
$errors = [];
$recovered = false;
while (microtime(true) - $t < 20) {
    try {
        $lb->incrementScore('x', 1);
        $recovered = true;
        break;
    } catch (RedisKit\Exception $e) {
        $errors[get_class($e)] = true;
        usleep(100000);
    }
}
var_dump($recovered, array_keys($errors), $lb->score('x') >= 2.0);
?>
--EXPECT--
ValueError: the 'cluster' seed list is empty
ValueError: option 'cluster' must be a list of strings, got string
ValueError: cluster seed: invalid Redis DSN 'http://127.0.0.1:7000': unknown scheme 'http' (use redis, rediss or unix)
ValueError: cluster connection: unknown option 'colour' (known options: cluster, user, password, read_timeout, connect_timeout, tls, wait_replicas, wait_timeout)
ValueError: a connection is either 'cluster' or 'sentinel', not both
ValueError: cluster seed: unix sockets cannot be cluster seeds
ValueError: cluster seed 'redis://127.0.0.1:7000/2': Redis Cluster has only database 0
ValueError: option 'read_timeout' must be a positive number of seconds, got -1
ValueError: option 'cluster' must be a list of strings, got int
RedisKit\ConnectionException
bool(true)
bool(true)
lock: one slot per object, several shards
queue: one slot per object, several shards
limiter: one slot per object, several shards
int(1)
int(1)
float(12)
string(1) "b"
bool(true)
bool(true)
array(1) {
  [0]=>
  string(28) "RedisKit\ConnectionException"
}
bool(true)
