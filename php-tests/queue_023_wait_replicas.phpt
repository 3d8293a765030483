--TEST--
DelayQueue wait_replicas: push, pushMany, ack and retry wait for N replicas in the write's round trip; fewer confirmations throw RedisKit\ReplicationException carrying the job ids (the write stands on the master); the DSN's ?wait_replicas= is every class's default; bad values are a ValueError
--FILE--
<?php
require __DIR__ . '/_rk.inc';
use RedisKit\DelayQueue;
$m = new RkServer();
$raw = $m->raw();
$show = fn(Throwable $e) => get_class($e) . ': ' . $e->getMessage();

// no replica: the push is on the master, the caller is told, with the id
$q = new DelayQueue('q', $m->url, ['wait_replicas' => 1, 'wait_timeout' => 0.05, 'visibility_timeout' => 60]);
$e = rk_catch(fn() => $q->push('a'));   // line 10
echo $show($e), "\n";
var_dump($e instanceof RedisKit\Exception, $e->getLine() === 10, $e->getFile() === __FILE__, $e->replicas, count($e->jobIds));
$c = $q->counts();
echo "on the master: due {$c['due']}\n";
$jobs = $q->pop(1);
var_dump($jobs[0]['id'] === $e->jobIds[0], $jobs[0]['payload']);
// an ack: throws, and the ack stands
$e = rk_catch(fn() => $q->ack($jobs[0]['id']));
echo $show($e), "\n";
var_dump($e->jobIds === [$jobs[0]['id']], $q->counts()['in_flight']);
// an ack of nothing wrote nothing: false, no exception
var_dump($q->ack($jobs[0]['id']));
// a retry: throws, and the job is back in the schedule
rk_catch(fn() => $q->push('b'));
$b = $q->pop(1)[0];
$e = rk_catch(fn() => $q->retry($b['id'], 0));
echo $show($e), "\n";
var_dump($e->jobIds === [$b['id']], $q->counts()['due']);
// pushMany: every id, in order; a batch of slices (1,500) too, one WAIT after them
$e = rk_catch(fn() => $q->pushMany(['x', 'y', 'z']));
echo $show($e), "\n";
$e2 = rk_catch(fn() => $q->pushMany(array_fill(0, 1500, 'p')));
echo $show($e2), "\n";
var_dump(count($e->jobIds), count($e2->jobIds), count(array_unique($e2->jobIds)), $q->counts()['due']);
// pushAt too
echo get_class(rk_catch(fn() => $q->pushAt('t', time() + 60))), "\n";
// a queue without the option is untouched
$plain = new DelayQueue('q', $m->url);
var_dump(is_string($plain->push('plain')));

// a replica attached: confirmed, nothing thrown, one round trip per write
$r = new RkServer(['--replicaof', '127.0.0.1', (string)$m->port]);
rk_assert(rk_until(fn() => $raw->cmd('WAIT', '1', '100') === 1, 20), 'the replica is in sync');
$q2 = new DelayQueue('q2', $m->url, ['wait_replicas' => 1, 'wait_timeout' => 5.0]);
$trips = fn() => RedisKit\metrics()['connection']["127.0.0.1:{$m->port}"]['round_trips'] ?? null;
$q2->push('warm');
$before = $trips();
$id = $q2->push('c');
echo "push: ", $before === null ? 'no metrics' : $trips() - $before, " round trip\n";
// WAIT returned: the replica has everything the master had
var_dump($r->raw()->cmd('DBSIZE') === $raw->cmd('DBSIZE'));
$ids = $q2->pushMany(array_fill(0, 1200, 'm'));
var_dump(count($ids));
$got = $q2->pop(2);
var_dump($q2->ack($got[0]['id']), $q2->retry($got[1]['id'], 5));

// the DSN's default: every class of that connection
$two = $m->url . '?wait_replicas=2&wait_timeout=0.05';
$e = rk_catch(fn() => (new DelayQueue('q3', $two))->push('d'));
echo $show($e), "\n";
var_dump($e->replicas);
// an option wins over the DSN's
var_dump(is_string((new DelayQueue('q3', $two, ['wait_replicas' => 1, 'wait_timeout' => 5.0]))->push('e')));
var_dump(is_string((new DelayQueue('q3', $two, ['wait_replicas' => 0]))->push('f')));
$lock = new RedisKit\RedisLock('l', $two, ['watchdog' => false]);
var_dump($lock->acquire(), $raw->cmd('EXISTS', 'l'));
var_dump((new RedisKit\RedisLock('l', $two, ['watchdog' => false, 'wait_replicas' => 1, 'wait_timeout' => 5.0]))->acquire());
$e = rk_catch(fn() => (new RedisKit\RateLimiter('rl', 5, 60, $two))->attempt('k'));
echo get_class($e), "\n";
// cluster and sentinel arrays take them too
echo rk_ex(rk_catch(fn() => new DelayQueue('q', ['cluster' => ['127.0.0.1:1'], 'wait_replicas' => -1]))), "\n";
echo rk_ex(rk_catch(fn() => new DelayQueue('q', ['sentinel' => ['127.0.0.1:1'], 'service' => 's', 'wait_timeout' => 0]))), "\n";

// bad values: ValueError, nothing sent
$c0 = RedisKit\stats()['commands'];
foreach ([['wait_replicas' => -1], ['wait_replicas' => 101], ['wait_replicas' => 'one'], ['wait_timeout' => 0], ['wait_timeout' => -1.0]] as $o) {
    echo rk_ex(rk_catch(fn() => new DelayQueue('q', $m->url, $o))), "\n";
}
foreach (['wait_replicas=x', 'wait_replicas=101', 'wait_timeout=0'] as $qs) {
    echo rk_ex(rk_catch(fn() => new DelayQueue('q', $m->url . '?' . $qs))), "\n";
}
var_dump(RedisKit\stats()['commands'] - $c0);
?>
--EXPECTF--
RedisKit\ReplicationException: push: the job was pushed on the master, but not confirmed by 1 replica(s) (wait_replicas; 0 confirmed within 50 ms): a failover now could lose it
bool(true)
bool(true)
bool(true)
int(0)
int(1)
on the master: due 1
bool(true)
string(1) "a"
RedisKit\ReplicationException: ack: the job was acked on the master, but not confirmed by 1 replica(s) (wait_replicas; 0 confirmed within 50 ms): a failover now could lose it
bool(true)
int(0)
bool(false)
RedisKit\ReplicationException: retry: the job was given back on the master, but not confirmed by 1 replica(s) (wait_replicas; 0 confirmed within 50 ms): a failover now could lose it
bool(true)
int(1)
RedisKit\ReplicationException: pushMany: 3 jobs were pushed on the master, but not confirmed by 1 replica(s) (wait_replicas; 0 confirmed within 50 ms): a failover now could lose it
RedisKit\ReplicationException: pushMany: 1500 jobs were pushed on the master, but not confirmed by 1 replica(s) (wait_replicas; 0 confirmed within 50 ms): a failover now could lose it
int(3)
int(1500)
int(1500)
int(1504)
RedisKit\ReplicationException
bool(true)
push: 1 round trip
bool(true)
int(1200)
bool(true)
bool(true)
RedisKit\ReplicationException: push: the job was pushed on the master, but not confirmed by 2 replica(s) (wait_replicas; 1 confirmed within 50 ms): a failover now could lose it
int(1)
bool(true)
bool(true)
bool(false)
int(0)
bool(true)
RedisKit\ReplicationException
ValueError: option 'wait_replicas' must be between 0 and 100, got -1
ValueError: option 'wait_timeout' must be %s
ValueError: option 'wait_replicas' must be between 0 and 100, got -1
ValueError: option 'wait_replicas' must be between 0 and 100, got 101
ValueError: option 'wait_replicas' must be an int, got %s
ValueError: option 'wait_timeout' must be %s
ValueError: option 'wait_timeout' must be %s
ValueError: %swait_replicas must be an integer from 0 to 100, got 'x'
ValueError: %swait_replicas must be an integer from 0 to 100, got '101'
ValueError: %swait_timeout must be a positive number of seconds, got '0'
int(0)
