--TEST--
RedisLock::inspect(): an operator's view from any object (holder token, TTL, the last fencing token handed out, live waiters, the fair queue in arrival order, a lock kept free for the queue's head), one round trip, nothing written; bad $queueLimit and Redlock refused
--FILE--
<?php
require __DIR__ . '/_lock.inc';
$ns = rk_ns();
$u = rk_conn();
$raw = new RkRaw();
$opts = ['prefix' => $ns, 'fair' => true, 'ttl' => 30.0, 'watchdog' => false];
$fmt = fn(array $v) => sprintf('holder=%s ttl=%s reserved=%s fence=%s waiters=%d queue=%d',
    $v['holder'] === null ? 'null' : 'set', $v['ttl'] === null ? 'null' : 'set', var_export($v['reserved'], true),
    $v['fencing_token'] === null ? 'null' : 'set', $v['waiters'], count($v['queue']));

$observer = new RedisKit\RedisLock('i', $u, $opts);      // an operator page's object: never acquires
echo "free: ", $fmt($observer->inspect()), "\n";

$holder = new RedisKit\RedisLock('i', $u, $opts);
$holder->acquire();
$before = RedisKit\stats()['commands'];
$v = $observer->inspect();
echo "one round trip: ", RedisKit\stats()['commands'] - $before, "\n";
echo "held: ", $fmt($v), "\n";
echo "holder is the holder's token: ", var_export($v['holder'] === $holder->token(), true),
    "; ttl within (0, 30]: ", var_export($v['ttl'] > 0 && $v['ttl'] <= 30.0, true), "\n";
$fence = $holder->fencingToken();
echo "fencing token as issued: ", var_export($observer->inspect()['fencing_token'] === $fence, true), "\n";

// three fair waiters, queued one after the other; each reports its token
$pids = [];
for ($i = 0; $i < 3; $i++) {
    $pids[] = lock_fork(function () use ($u, $opts, $ns, $i) {
        $l = new RedisKit\RedisLock('i', $u, $opts);
        (new RkRaw())->set("{$ns}tok$i", $l->token());
        if (!$l->acquire(30.0)) return false;
        usleep(100000);
        return $l->release();
    });
    rk_assert(lock_until(fn() => $observer->inspect()['waiters'] === $i + 1, 10), "waiter $i waiting");
}
$v = $observer->inspect();
echo "3 waiting: ", $fmt($v), "\n";
echo "queue in arrival order: ", var_export($v['queue'] === [$raw->get("{$ns}tok0"), $raw->get("{$ns}tok1"), $raw->get("{$ns}tok2")], true), "\n";
echo "queue limited to 2: ", count($observer->inspect(2)['queue']), ", to 0: ", count($observer->inspect(0)['queue']), "\n";
$holder->release();
rk_assert(lock_until(fn() => $observer->inspect()['holder'] === $raw->get("{$ns}tok0"), 10), 'the first waiter holds it');
echo "then the first waiter holds it: ", $fmt($observer->inspect()), "\n";
var_dump(lock_wait($pids) === [0, 0, 0]);
echo "all done: ", $fmt($observer->inspect()), "\n";

// it writes nothing: the lock's keys are what they were
$keys = $raw->cmd('KEYS', "*{$ns}i*");
sort($keys);
$observer->inspect();
$after = $raw->cmd('KEYS', "*{$ns}i*");
sort($after);
echo "keys unchanged by inspect(): ", var_export($keys === $after, true), "\n";

try {
    (new RedisKit\RedisLock('i', ['redis://127.0.0.1:1', 'redis://127.0.0.1:2', 'redis://127.0.0.1:3']))->inspect();
} catch (ValueError $e) {
    echo "Redlock: ", get_class($e), ': ', $e->getMessage(), "\n";
}
foreach ([-1, 1001] as $bad) {
    try {
        $observer->inspect($bad);
    } catch (ValueError $e) {
        echo get_class($e), ': ', $e->getMessage(), "\n";
    }
}
?>
--EXPECT--
free: holder=null ttl=null reserved=false fence=null waiters=0 queue=0
one round trip: 1
held: holder=set ttl=set reserved=false fence=null waiters=0 queue=0
holder is the holder's token: true; ttl within (0, 30]: true
fencing token as issued: true
3 waiting: holder=set ttl=set reserved=false fence=set waiters=3 queue=3
queue in arrival order: true
queue limited to 2: 2, to 0: 0
then the first waiter holds it: holder=set ttl=set reserved=false fence=set waiters=2 queue=2
bool(true)
all done: holder=null ttl=null reserved=false fence=set waiters=0 queue=0
keys unchanged by inspect(): true
Redlock: ValueError: RedisLock::inspect() reads one server; on Redlock use holder() and remainingTtl()
ValueError: RedisLock::inspect(): $queueLimit must be between 0 and 1000, got -1
ValueError: RedisLock::inspect(): $queueLimit must be between 0 and 1000, got 1001
