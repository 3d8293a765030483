--TEST--
RedisLock: a holder killed with SIGKILL: the lock is free after its TTL and not before, and a waiter gets it then
--FILE--
<?php
require __DIR__ . '/_lock.inc';
$ns = rk_ns();
$u = rk_url();
$raw = new RkRaw();

foreach ([['ttl' => 1.0, 'watchdog' => true], ['ttl' => 1.5, 'watchdog' => false]] as $o) {
    $raw->del("{$ns}token");
    $pid = pcntl_fork();
    if ($pid === 0) {
        $l = new RedisKit\RedisLock('k', $u, ['prefix' => $ns] + $o);
        if ($l->acquire()) (new RkRaw())->set("{$ns}token", $l->token());
        sleep(60);
        exit(0);
    }
    var_dump(lock_until(fn() => $raw->get("{$ns}token") !== null));
    $token = $raw->get("{$ns}token");
    if ($o['watchdog']) {
        usleep(1300000);   // beyond its TTL: the child's watchdog renews it
        var_dump($raw->get("{$ns}k") === $token);
    }
    posix_kill($pid, SIGKILL);
    pcntl_waitpid($pid, $st);
    var_dump(pcntl_wtermsig($st) === SIGKILL);
    $pttl = $raw->pttl("{$ns}k") / 1000;
    $t0 = microtime(true);
    rk_assert($pttl > 0.1, "the lock still has $pttl s to live");
    // not before its TTL: still the dead holder's half-way through
    usleep((int)($pttl * 1e6 / 2));
    var_dump($raw->get("{$ns}k") === $token);
    $w = new RedisKit\RedisLock('k', $u, ['prefix' => $ns, 'watchdog' => false]);
    var_dump($w->acquire(0.0));
    // after its TTL: a waiter gets it, woken by the expiry
    var_dump($w->acquire(5.0));
    $took = microtime(true) - $t0;
    rk_assert($took >= $pttl - 0.02 && $took < $pttl + 0.15, "free after $took s, TTL was $pttl s");
    var_dump($w->release());
}
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
bool(true)
bool(false)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(false)
bool(true)
bool(true)
