--TEST--
RedisLock: forking while the watchdog thread is busy renewing never leaves a child stuck (the child starts its own watchdog and its locks work)
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$ns = rk_ns();
// the parent's watchdog renews a short lock every ~17 ms: often mid-renewal when we fork
$held = new RedisKit\RedisLock('busy', rk_conn(), ['prefix' => $ns, 'ttl' => 0.05]);
var_dump($held->acquire());
$stuck = 0;
$failed = 0;
for ($i = 0; $i < 40; $i++) {
    usleep(mt_rand(0, 20000));
    $pid = pcntl_fork();
    if ($pid === 0) {
        $l = new RedisKit\RedisLock("child-$i", rk_conn(), ['prefix' => $ns, 'ttl' => 0.05]);
        $ok = $l->acquire(1.0);
        usleep(60000);                 // the child's own watchdog must renew it
        $ok = $ok && $l->isAcquired() && $l->release();
        exit($ok ? 0 : 1);
    }
    $t = microtime(true);
    do {
        $r = pcntl_waitpid($pid, $st, WNOHANG);
        if ($r === 0) usleep(5000);
    } while ($r === 0 && microtime(true) - $t < 5);
    if ($r === 0) {
        $stuck++;
        posix_kill($pid, SIGKILL);
        pcntl_waitpid($pid, $st);
    } elseif (pcntl_wexitstatus($st) !== 0) {
        $failed++;
    }
}
echo "stuck children: $stuck, failed: $failed\n";
var_dump($held->isAcquired(), $held->release());
?>
--EXPECT--
bool(true)
stuck children: 0, failed: 0
bool(true)
bool(true)
