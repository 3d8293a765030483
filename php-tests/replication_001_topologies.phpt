--TEST--
wait_replicas on every topology (one server, a Cluster, Sentinel): writes wait for as many replicas as the master has and go through; asking for one more gives RedisKit\ReplicationException (queues, limiters) or no lock, with the write on the master
--FILE--
<?php
require __DIR__ . '/_rk.inc';
use RedisKit\{DelayQueue, RateLimiter, RedisLock};
$conn = rk_conn();
$ns = rk_ns();
// how many replicas confirm a write to the queue's master (all of them,
// once in sync: a replica just started syncs after the master's diskless
// sync delay, 5 s by default)
$probe = new DelayQueue('q', $conn, ['prefix' => $ns, 'wait_replicas' => 100, 'wait_timeout' => 1.0]);
$n = 0;
$e = null;
rk_until(function () use ($probe, $conn, &$n, &$e) {
    $e = rk_catch(fn() => $probe->push('probe'));
    $n = $e instanceof RedisKit\ReplicationException ? $e->replicas : -1;
    return !is_array($conn) || $n >= 1;
}, 30);
$probe->pop(1000);   // the probes are not part of what follows
// a Cluster's masters and the Sentinel group's have a replica; one server none
echo get_class($e), ', replicas as the topology has: ', var_export(is_array($conn) ? $n >= 1 : $n === 0, true), "\n";

// as many as there are: every write goes through
$o = ['prefix' => $ns, 'wait_replicas' => $n, 'wait_timeout' => 5.0];
$q = new DelayQueue('q', $conn, $o);
$q->push('a');
$q->push('a2');
$jobs = $q->pop(2);
var_dump(count($jobs), $q->ack($jobs[0]['id']), $q->retry($jobs[1]['id'], 0), count($q->pushMany(['b', 'c'])));
var_dump((new RateLimiter('rl', 5, 60, $conn, $o))->attempt('k')['allowed']);
$l = new RedisLock('l', $conn, $o + ['watchdog' => false]);
var_dump($l->acquire(), $l->release());

// one more than there are: the write is on the master, the caller is told
$more = ['prefix' => $ns, 'wait_replicas' => $n + 1, 'wait_timeout' => 0.05];
$q2 = new DelayQueue('q', $conn, $more);
$e = rk_catch(fn() => $q2->push('d'));
echo get_class($e), ', confirmed by at most ', $n === $e->replicas || $e->replicas < $n ? 'the replicas there are' : $e->replicas, "\n";
$counts = $q->counts();
var_dump($counts['due'] === 4, count($e->jobIds));   // the retried job, b, c and d
echo get_class(rk_catch(fn() => (new RateLimiter('rl2', 5, 60, $conn, $more))->attempt('k'))), "\n";
$l2 = new RedisLock('l2', $conn, $more + ['watchdog' => false]);
var_dump($l2->acquire(), $l2->holder());
?>
--EXPECT--
RedisKit\ReplicationException, replicas as the topology has: true
int(2)
bool(true)
bool(true)
int(2)
bool(true)
bool(true)
bool(true)
RedisKit\ReplicationException, confirmed by at most the replicas there are
bool(true)
int(1)
RedisKit\ReplicationException
bool(false)
NULL
