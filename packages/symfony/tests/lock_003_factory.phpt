--TEST--
Symfony LockFactory on RedisKitStore: acquire/release in two round trips, refresh, isAcquired, autoRelease on destruct (and not without it), Redlock list, RedisKit\Symfony\Lock\LockFactory's acquireWithin() and fencingToken(), and no Redis I/O until the first lock call
--INI--
include_path=.:/usr/share/php
--FILE--
<?php
require __DIR__ . '/_symfony.inc';
use RedisKit\Symfony\Lock\Lock as RkLock;
use RedisKit\Symfony\Lock\LockFactory as RkLockFactory;
use RedisKit\Symfony\Lock\RedisKitStore;
use Symfony\Component\Lock\Exception\LockAcquiringException;
use Symfony\Component\Lock\LockFactory;
use Symfony\Component\Lock\SharedLockInterface;

$ns = rk_ns();
$raw = new RkRaw();
$b = fn(bool $v) => $v ? 'true' : 'false';
$commands = fn() => RedisKit\stats()['commands'];

echo "-- Symfony's LockFactory\n";
$factory = new LockFactory(sf_store());
$lock = $factory->createLock('job', 300.0);
$lock->acquire();                       // warm: connection and scripts (refresh's
$lock->refresh(300.0);                  // too: a server that never ran it answers NOSCRIPT once)
$lock->release();
$c0 = $commands();
$ok = $lock->acquire();
$c1 = $commands();
$lock->release();
$c2 = $commands();
printf("acquire %s in %d round trip(s), release in %d\n", $b($ok), $c1 - $c0, $c2 - $c1);
$lock = $factory->createLock('job', 10.0);
$c0 = $commands();
$lock->acquire();
printf("a lock with another TTL than the store's: acquire in %d round trips (the TTL is set by putOffExpiration)\n", $commands() - $c0);
printf("ttl 10: Key lifetime in (9, 10]: %s, Redis PTTL in (9000, 10000]: %s\n", $b($lock->getRemainingLifetime() > 9 && $lock->getRemainingLifetime() <= 10), $b(($p = (int) $raw->cmd('PTTL', "{$ns}job")) > 9000 && $p <= 10000));
$lock->refresh(60.0);
printf("refresh(60): PTTL in (59000, 60000]: %s, isAcquired %s, isExpired %s\n", $b(($p = (int) $raw->cmd('PTTL', "{$ns}job")) > 59000 && $p <= 60000), $b($lock->isAcquired()), $b($lock->isExpired()));
$other = $factory->createLock('job');
printf("another lock on it: acquire %s\n", $b($other->acquire()));
unset($lock);
printf("the first one destructed (autoRelease): free again %s\n", $b($raw->cmd('EXISTS', "{$ns}job") === 0));
$kept = $factory->createLock('kept', 30.0, false);
$kept->acquire();
unset($kept);
printf("autoRelease false: still held after the destructor %s\n", $b($raw->cmd('EXISTS', "{$ns}kept") === 1));
$raw->cmd('DEL', "{$ns}kept");

echo "-- RedisKit\\Symfony\\Lock\\LockFactory\n";
$rk = new RkLockFactory(sf_store());
$a = $rk->createLock('pay');
printf("a Symfony LockFactory: %s, its locks SharedLockInterface: %s, RedisKit Lock: %s\n", $b($rk instanceof LockFactory), $b($a instanceof SharedLockInterface), $b($a instanceof RkLock));
var_dump($a->fencingToken());
$a->acquire();
$f1 = $a->fencingToken();
$bLock = $rk->createLock('pay');
$t0 = microtime(true);
$got = $bLock->acquireWithin(0.3);
printf("acquireWithin(0.3) while held: %s after %s\n", $b($got), microtime(true) - $t0 >= 0.29 ? 'the wait' : 'less than the wait');
$child = sf_fork(function () {
    $l = (new RkLockFactory(sf_store()))->createLock('pay');
    if (!$l->acquireWithin(20.0)) exit(2);
    $l->release();
});
usleep(100000);
$a->release();
printf("a waiter in acquireWithin(20) got it on the release: %s\n", $b(sf_wait_all([$child]) === 1));
$bLock->acquire();
printf("fencing tokens increase: %s\n", $b($bLock->fencingToken() > $f1));
$bLock->release();
try {
    $bLock->acquireWithin(-1.0);
} catch (\ValueError $e) {
    echo get_class($e), ': ', $e->getMessage(), "\n";
}
printf("acquireRead is an exclusive lock: %s, ", $b($bLock->acquireRead()));
printf("a second lock cannot take it: %s\n", $b(!$rk->createLock('pay')->acquire()));
$bLock->release();

echo "-- store option max_wait\n";
$mw = new LockFactory(sf_store(['max_wait' => 0.2]));
$h = $mw->createLock('mw');
$h->acquire();
try {
    $mw->createLock('mw')->acquire(true);
    echo "acquired: wrong\n";
} catch (\Symfony\Component\Lock\Exception\LockConflictedException $e) {
    echo "acquire(true) gives up after max_wait: LockConflictedException\n";
}
$h->release();

echo "-- Redlock (a list of 3 servers)\n";
$servers = [new RkServer(), new RkServer(), new RkServer()];
$urls = array_map(fn($s) => $s->url, $servers);
$rl = new LockFactory(new RedisKitStore($urls, ['prefix' => $ns]));
$l1 = $rl->createLock('red');
$l2 = $rl->createLock('red');
printf("acquire %s, second %s, held on all 3: %s\n", $b($l1->acquire()), $b($l2->acquire()), $b(array_sum(array_map(fn($u) => (new RkRaw($u))->cmd('EXISTS', "{$ns}red"), $urls)) === 3));
$l1->release();
printf("released: second acquires %s\n", $b($l2->acquire()));
$l2->release();
foreach ($servers as $s) $s->stop();

echo "-- no Redis I/O before the first lock call\n";
$before = RedisKit\stats();
$dead = new LockFactory(new RedisKitStore('redis://127.0.0.1:1?timeout=0.2', ['prefix' => $ns]));
$dl = $dead->createLock('d');
$after = RedisKit\stats();
printf("store, factory and lock made: %d commands, %d connections\n", $after['commands'] - $before['commands'], $after['connections_opened'] - $before['connections_opened']);
try {
    $dl->acquire();
} catch (LockAcquiringException $e) {
    echo get_class($e), ' <- ', get_class($e->getPrevious()), "\n";
}
?>
--EXPECTF--
-- Symfony's LockFactory
acquire true in 1 round trip(s), release in 1
a lock with another TTL than the store's: acquire in 2 round trips (the TTL is set by putOffExpiration)
ttl 10: Key lifetime in (9, 10]: true, Redis PTTL in (9000, 10000]: true
refresh(60): PTTL in (59000, 60000]: true, isAcquired true, isExpired false
another lock on it: acquire false
the first one destructed (autoRelease): free again true
autoRelease false: still held after the destructor true
-- RedisKit\Symfony\Lock\LockFactory
a Symfony LockFactory: true, its locks SharedLockInterface: true, RedisKit Lock: true
NULL
acquireWithin(0.3) while held: false after the wait
a waiter in acquireWithin(20) got it on the release: true
fencing tokens increase: true
ValueError: Lock::acquireWithin(): $seconds must be a finite number of seconds >= 0
acquireRead is an exclusive lock: true, a second lock cannot take it: true
-- store option max_wait
acquire(true) gives up after max_wait: LockConflictedException
-- Redlock (a list of 3 servers)
acquire true, second false, held on all 3: true
released: second acquires true
-- no Redis I/O before the first lock call
store, factory and lock made: 0 commands, 0 connections
Symfony\Component\Lock\Exception\LockAcquiringException <- RedisKit\ConnectionException
