--TEST--
Sentinel failovers (SENTINEL FAILOVER, then the master killed and brought back) during a running loop of lock, queue and limiter calls: the loops recover, every delayed job is delivered, and no lock (wait_replicas => 1) ever has two owners
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$g = new RkSentinelGroup();
$ledger = new RkServer();                     // independent bookkeeping, not part of the group
$L = fn() => new RkRaw($ledger->url);
$conn = $g->conn() + ['connect_timeout' => 0.3, 'read_timeout' => 1.0];

// jobs scheduled before the failover, due across it; replicated before it starts
$q = new RedisKit\DelayQueue('jobs', $conn, ['visibility_timeout' => 2]);
$n = 60;
for ($i = 0; $i < $n; $i++) $q->push("job-$i", $i * 0.1);
(new RkRaw($g->master->url))->cmd('WAIT', '1', '2000');

$children = [];
$spawn = function (callable $body) use (&$children, $ledger) {
    $pid = pcntl_fork();
    if ($pid === 0) {
        $led = new RkRaw($ledger->url);
        while ($led->cmd('GET', 'stop') === null) {
            try {
                $body($led);
            } catch (RedisKit\Exception $e) {
                $led->cmd('HINCRBY', 'errors', get_class($e), '1');
                usleep(20000);
            } catch (Throwable $e) {
                $led->cmd('RPUSH', 'bad', get_class($e) . ': ' . $e->getMessage());
            }
        }
        exit(0);
    }
    $children[] = $pid;
};
for ($w = 0; $w < 3; $w++) {
    $spawn(function (RkRaw $led) use ($conn) {
        static $lock;
        $lock ??= new RedisKit\RedisLock('res', $conn, ['ttl' => 3.0, 'watchdog' => false, 'wait_replicas' => 1, 'wait_timeout' => 0.2]);
        if ($lock->acquire(0.5)) {
            if ($led->cmd('INCR', 'holders') > 1) $led->cmd('INCR', 'violations');
            usleep(2000);
            $led->cmd('DECR', 'holders');
            $lock->release();
            $led->cmd('INCR', 'lock_ok');
        }
    });
}
for ($w = 0; $w < 2; $w++) {
    $spawn(function (RkRaw $led) use ($conn) {
        static $q;
        $q ??= new RedisKit\DelayQueue('jobs', $conn, ['visibility_timeout' => 2]);
        foreach ($q->pop(10, 0.2) as $job) {
            $led->cmd('SADD', 'delivered', $job['payload']);
            $q->ack($job['id']);
        }
    });
}

$spawn(function (RkRaw $led) use ($conn) {
    static $rl;
    $rl ??= new RedisKit\RateLimiter('api', 1000000, 1, $conn, ['local_block' => false]);
    if ($rl->attempt('user')['allowed']) $led->cmd('INCR', 'rl_ok');
    usleep(5000);
});

// locks (and the limiter) work again: both counters move on
$locksAfter = function (float $limit) use ($L): bool {
    $start = [(int)$L()->cmd('GET', 'lock_ok'), (int)$L()->cmd('GET', 'rl_ok')];
    $t = microtime(true);
    while (microtime(true) - $t < $limit) {
        if ((int)$L()->cmd('GET', 'lock_ok') >= $start[0] + 5 && (int)$L()->cmd('GET', 'rl_ok') >= $start[1] + 5) return true;
        usleep(100000);
    }
    return false;
};

var_dump($locksAfter(5));                     // all working before anything happens

// 1. forced failover: the old master stays up (and writable) for a while
$old = $g->masterPort();
$g->failover();
$t = microtime(true);
while ($g->masterPort() === $old && microtime(true) - $t < 10) usleep(50000);
var_dump($g->masterPort() !== $old);
var_dump($locksAfter(30));                    // recovered (once the group is replicated again)

// 2. the master killed, then brought back (it rejoins as a replica)
$masterNow = $g->masterPort();
$victim = $masterNow === $g->master->port ? $g->master : $g->replica;
(new RkRaw($victim->url))->cmd('WAIT', '1', '2000');
$victim->stop(true);
$t = microtime(true);
while ($g->masterPort() === $masterNow && microtime(true) - $t < 20) usleep(100000);
var_dump($g->masterPort() !== $masterNow);
$victim->start();
var_dump($locksAfter(30));

// every job scheduled before the failovers is delivered
$t = microtime(true);
while ((int)$L()->cmd('SCARD', 'delivered') < $n && microtime(true) - $t < 15) usleep(100000);
$L()->cmd('SET', 'stop', '1');
foreach ($children as $pid) pcntl_waitpid($pid, $st);
echo 'delivered ', $L()->cmd('SCARD', 'delivered'), " of $n\n";
echo 'violations ', (int)$L()->cmd('GET', 'violations'), "\n";
echo 'unexpected errors: ', json_encode($L()->cmd('LRANGE', 'bad', '0', '-1')), "\n";
$errors = $L()->cmd('HKEYS', 'errors');
sort($errors);
echo 'error classes: ', json_encode($errors), "\n";
?>
--EXPECTREGEX--
bool\(true\)
bool\(true\)
bool\(true\)
bool\(true\)
bool\(true\)
delivered 60 of 60
violations 0
unexpected errors: \[\]
error classes: \[("RedisKit\\\\ConnectionException")?\]
