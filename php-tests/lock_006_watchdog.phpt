--TEST--
RedisLock: the watchdog keeps a ttl=1.0 lock for 3 s of work, starts lazily (and again after fork), stops at release and destruct; a lost lock makes isAcquired() false and run() throw LockLostException after the callback
--FILE--
<?php
require __DIR__ . '/_lock.inc';
$ns = rk_ns();
$u = rk_url();
$raw = new RkRaw();
$threads = fn() => count(glob('/proc/self/task/*'));
// the threads the process has before any lock (1, or 2 under qemu-user,
// which runs a thread of its own): the watchdog's is counted above it
$base = $threads();

// lazily: no thread until an acquire needs one (this process has used no lock yet)
$nowd = new RedisKit\RedisLock('nowd', $u, ['prefix' => $ns, 'watchdog' => false]);
$nowd->acquire(); $nowd->release();
echo "threads added by a lock without watchdog: ", $threads() - $base, "\n";

// 1. ttl 1.0, 3 s of work: nobody else gets it meanwhile
$l = new RedisKit\RedisLock('job', $u, ['prefix' => $ns, 'ttl' => 1.0]);
$spy = lock_fork(function () use ($u, $ns) {
    $o = new RedisKit\RedisLock('job', $u, ['prefix' => $ns, 'watchdog' => false]);
    $r = new RkRaw();
    while ($r->get("{$ns}started") === null) usleep(1000);
    // tries every 250 ms until the holder's callback has ended; a try that
    // succeeds while the callback still runs (its end not yet marked, which
    // happens before the release) is a second holder
    $got = 0;
    while ($r->get("{$ns}ended") === null) {
        if ($o->acquire()) {
            if ($r->get("{$ns}ended") === null) $got++;
            $o->release();
        }
        usleep(250000);
    }
    $r->set("{$ns}spy", $got);
    return true;
});
$r = $l->run(function () use ($l, $raw, $ns, $threads, $base) {
    $raw->set("{$ns}started", 1);
    echo "threads added while holding: ", $threads() - $base, "\n";
    sleep(3);
    var_dump($l->isAcquired());
    rk_assert($l->remainingTtl() > 0.5, "renewed: " . $l->remainingTtl());
    $raw->set("{$ns}ended", 1);
    return 'done';
});
var_dump($r);
var_dump(lock_wait([$spy]), $raw->get("{$ns}spy"));
var_dump($raw->exists("{$ns}job"));

// 2. lost while the callback runs (someone else holds it now): isAcquired() false,
//    the callback finishes, then LockLostException; the other owner's lock is untouched
$l2 = new RedisKit\RedisLock('lost', $u, ['prefix' => $ns, 'ttl' => 0.6]);
$finished = false;
$e = rk_catch(function () use ($l2, $raw, $ns, &$finished) { return $l2->run(function () use ($l2, $raw, $ns, &$finished) {
    $raw->set("{$ns}lost", 'intruder', 'PX', 5000);
    usleep(500000);                      // the watchdog's next renewal finds it gone
    var_dump($l2->isAcquired());
    $finished = true;
}); });
var_dump($finished);
echo rk_ex($e), "\n";
var_dump($raw->get("{$ns}lost"));

// 3. no watchdog and the TTL runs out during the callback: also LockLostException
$l3 = new RedisKit\RedisLock('short', $u, ['prefix' => $ns, 'ttl' => 0.2, 'watchdog' => false]);
echo rk_ex(rk_catch(fn() => $l3->run(fn() => usleep(400000)))), "\n";

// 4. it stops at release and at destruct: no command is sent afterwards
foreach (['release', 'destruct'] as $how) {
    $l4 = new RedisKit\RedisLock("stop-$how", $u, ['prefix' => $ns, 'ttl' => 0.3]);
    $l4->acquire();
    $c0 = RedisKit\stats()['commands'];
    usleep(400000);
    $renewals = RedisKit\stats()['commands'] - $c0;
    rk_assert($renewals >= 2, "renewals every ttl/3: $renewals");
    if ($how === 'release') $l4->release(); else unset($l4);
    var_dump($raw->exists("{$ns}stop-$how"));
    $c1 = RedisKit\stats()['commands'];
    usleep(400000);
    echo "$how: commands after: ", RedisKit\stats()['commands'] - $c1, "\n";
}

// 5. an adopted token's lock is not released at destruct; its watchdog stops, the TTL runs out
$owner = new RedisKit\RedisLock('adopt', $u, ['prefix' => $ns, 'watchdog' => false, 'ttl' => 5]);
$owner->acquire();
$ad = new RedisKit\RedisLock('adopt', $u, ['prefix' => $ns, 'ttl' => 0.3, 'token' => $owner->token()]);
var_dump($ad->acquire());                // same owner: renews with ttl 0.3 and starts its watchdog
usleep(500000);
var_dump($raw->get("{$ns}adopt") === $owner->token());
unset($ad);
var_dump($raw->get("{$ns}adopt") === $owner->token());
usleep(450000);
var_dump($raw->exists("{$ns}adopt"));

// 6. after fork: the child has no watchdog thread until it needs one, then renews its own locks
$pid = lock_fork(function () use ($u, $ns, $threads, $base) {
    $ok = $threads() === $base;
    $l = new RedisKit\RedisLock('child', $u, ['prefix' => $ns, 'ttl' => 0.3]);
    $ok = $ok && $l->acquire();
    $ok = $ok && $threads() === $base + 1;
    usleep(700000);
    $ok = $ok && $l->isAcquired() && $l->release();
    return $ok;
});
var_dump(lock_wait([$pid]));
echo "threads added at end: ", $threads() - $base, "\n";
?>
--EXPECTF--
threads added by a lock without watchdog: 0
threads added while holding: 1
bool(true)
string(4) "done"
array(1) {
  [0]=>
  int(0)
}
string(1) "0"
int(0)
bool(false)
bool(true)
RedisKit\LockLostException: RedisLock: the lock 'rkt:%s:lost' was lost while the callback ran (its TTL ran out or another owner took it)
string(8) "intruder"
RedisKit\LockLostException: RedisLock: the lock 'rkt:%s:short' was lost while the callback ran (its TTL ran out or another owner took it)
int(0)
release: commands after: 0
int(0)
destruct: commands after: 0
bool(true)
bool(true)
bool(true)
int(0)
array(1) {
  [0]=>
  int(0)
}
threads added at end: 1
