--TEST--
RedisLock: forking while the watchdog thread is busy renewing never leaves a child stuck (the child starts its own watchdog and its locks work)
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$ns = rk_ns();
// The locks whose holding is asserted live T seconds and are renewed every
// T/3: only a stall of about 2T/3 (1 s) could expire one, far more than a
// loaded machine inflicts, while a lock nobody renews is gone after T.
$T = 1.5;
// The parent's watchdog also renews a 50 ms lease every ~17 ms, so it is often
// mid-renewal when we fork. That lease may expire whenever the parent is
// stalled for more than ~33 ms: it is then taken again; it is never asserted.
$churn = new RedisKit\RedisLock('churn', rk_conn(), ['prefix' => $ns, 'ttl' => 0.05]);
$held = new RedisKit\RedisLock('busy', rk_conn(), ['prefix' => $ns, 'ttl' => $T]);
var_dump($held->acquire(), $churn->acquire());
$kids = [];
for ($i = 0; $i < 40; $i++) {
    if (!$churn->isAcquired()) {
        $churn->acquire();
    }
    usleep(mt_rand(0, 20000));
    $pid = pcntl_fork();
    if ($pid === 0) {
        $l = new RedisKit\RedisLock("child-$i", rk_conn(), ['prefix' => $ns, 'ttl' => $T]);
        $got = $l->acquire(1.0);
        $t0 = hrtime(true);
        usleep((int)(($T + 0.3) * 1e6));   // past its TTL: only the child's own watchdog keeps it
        $slept = (hrtime(true) - $t0) / 1e9;
        $kept = $got && $l->isAcquired();
        $released = $kept && $l->release();
        if (!$released) {
            printf("child %d: acquired %s, held after %.3f s %s, released %s\n", $i,
                json_encode($got), $slept, json_encode($kept), json_encode($released));
        }
        exit($released ? 0 : 1);
    }
    $kids[$pid] = hrtime(true);
}
// the children run side by side; one that has not exited 5 s after its work is done is stuck
$stuck = 0;
$failed = 0;
while ($kids) {
    foreach ($kids as $pid => $forked) {
        $r = pcntl_waitpid($pid, $st, WNOHANG);
        if ($r === $pid) {
            if (!pcntl_wifexited($st) || pcntl_wexitstatus($st) !== 0) $failed++;
            unset($kids[$pid]);
        } elseif ((hrtime(true) - $forked) / 1e9 > $T + 0.3 + 5) {
            $stuck++;
            posix_kill($pid, SIGKILL);
            pcntl_waitpid($pid, $st);
            unset($kids[$pid]);
        }
    }
    usleep(5000);
}
echo "stuck children: $stuck, failed: $failed\n";
// held well past its TTL (the children slept longer than it): the parent's watchdog kept it
var_dump($held->isAcquired(), $held->release());
?>
--EXPECT--
bool(true)
bool(true)
stuck children: 0, failed: 0
bool(true)
bool(true)
