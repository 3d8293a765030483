--TEST--
rediss:// through Redis Cluster: a TLS-only cluster (3 masters, 3 replicas; cluster bus and replication over TLS, client certificates required) reached from one rediss:// seed; every primitive on objects spread over the shards, blocking waits, WAIT on a replica; a wrong CA and a missing client certificate say so
--SKIPIF--
<?php
require __DIR__ . '/_conn_tls.inc';
if ($why = rk_tls_unavailable()) die("skip $why");
?>
--FILE--
<?php
require __DIR__ . '/_conn_tls.inc';
$pki = new RkPki();
$cl = new RkTlsCluster($pki);
$d = $pki->dir;
// one seed: the other masters are learnt from CLUSTER SLOTS, asked over TLS (so it gives their TLS ports)
$conn = ['cluster' => [$cl->nodes[0]->url($pki->q('ca.pem', 'client'))], 'connect_timeout' => 5];
$ns = rk_ns();
$main = [];   // class => main keys of its objects, checked on their shards at the end

// leaderboards
$ok = true;
for ($i = 0; $i < 12; $i++) {
    $name = "{$ns}board:$i";
    $lb = new RedisKit\RedisLeaderboard($name, $conn, ['ties' => 'earliest']);
    $lb->setScores(['a' => 1, 'b' => 2]);
    $lb->incrementScore('a', 5);
    $ok = $ok && $lb->rank('a') === 1 && $lb->top(1)[0]['member'] === 'a';
    $main['board'][] = $name;
}
echo 'boards: ', $ok ? 'ok' : 'WRONG', "\n";

// locks: acquire, a waiter that times out (BLPOP and CLIENT UNBLOCK on the owner, over TLS), release, WAIT on the replica
$ok = true;
$held = [];
for ($i = 0; $i < 12; $i++) {
    $name = "{$ns}lock:$i";
    // (wait_timeout: the replica's ack over TLS, on 2 loaded cores, can take
    // longer than the default 100 ms; what is tested is that WAIT works)
    $a = new RedisKit\RedisLock($name, $conn, ['ttl' => 10, 'watchdog' => false, 'wait_replicas' => $i % 2, 'wait_timeout' => 5]);
    $b = new RedisKit\RedisLock($name, $conn, ['ttl' => 10, 'watchdog' => false]);
    $t = microtime(true);
    $ok = $ok && $a->acquire() && $b->acquire(0.05) === false && $a->release() && $b->acquire();
    $main['lock'][] = $name;    // held by $b until the check below
    $held[] = $b;
}
echo 'locks: ', $ok ? 'ok' : 'WRONG', "\n";

// delay queues: push, pop, an empty blocking pop, a consumer woken by a push from another process
$ok = true;
for ($i = 0; $i < 12; $i++) {
    $name = "{$ns}queue:$i";
    $q = new RedisKit\DelayQueue($name, $conn);
    $id = $q->push("job-$i");
    $jobs = $q->pop(5);
    $q->push("more-$i");
    $ok = $ok && count($jobs) === 1 && $jobs[0]['id'] === $id && $q->ack($id) && $q->pop(1, 0.05) !== [] && $q->pop(1, 0.05) === [];
    $main['queue'][] = "{" . $name . "}:payload";
}
$q = new RedisKit\DelayQueue("{$ns}queue:woken", $conn);
$pid = pcntl_fork();
if ($pid === 0) {
    usleep(200000);
    (new RedisKit\DelayQueue("{$ns}queue:woken", $conn))->push('wake');
    exit(0);
}
$t = microtime(true);
$jobs = $q->pop(1, 5.0);
$waited = microtime(true) - $t;
pcntl_waitpid($pid, $st);
$ok = $ok && count($jobs) === 1 && $jobs[0]['payload'] === 'wake' && $waited < 2.0;
echo 'queues: ', $ok ? 'ok' : sprintf('WRONG (woken after %.3f s)', $waited), "\n";

// rate limiters, each algorithm
$ok = true;
foreach (['sliding_window', 'fixed_window', 'token_bucket', 'gcra'] as $j => $alg) {
    for ($i = 0; $i < 3; $i++) {
        $rl = new RedisKit\RateLimiter("{$ns}rl:$alg:$i", 2, 60, $conn, ['algorithm' => $alg]);
        $r = [$rl->attempt('k')['allowed'], $rl->attempt('k')['allowed'], $rl->attempt('k')['allowed']];
        $ok = $ok && $r === [true, true, false] && $rl->peek('k')['remaining'] === 0;
    }
}
echo 'limiters: ', $ok ? 'ok' : 'WRONG', "\n";
// the data is where the cluster says each key lives, over several shards
$where = $cl->where(array_merge(...array_values($main)));
foreach ($main as $class => $keys) {
    $ports = array_unique(array_map(fn($k) => $where[$k][0] ?? 0, $keys));
    $there = count(array_filter($keys, fn($k) => $where[$k][1] ?? false));
    echo "$class: $there of ", count($keys), " on their shard, ", count($ports) > 1 ? 'several shards' : 'one shard', "\n";
}
foreach ($held as $b) $b->release();
$st = RedisKit\stats();
rk_assert($st['connections_opened'] <= 6, "one main and at most one blocking connection per master: {$st['connections_opened']}");

// what goes wrong says so, through the cluster too
$show = fn(?Throwable $e) => $e ? str_replace($d, 'DIR', get_class($e) . ': ' . preg_replace('/127\.0\.0\.1:\d+/', 'ADDR', $e->getMessage())) : 'no exception';
$seed = $cl->nodes[0];
echo $show(rk_catch(fn() => (new RedisKit\RedisLeaderboard('x', ['cluster' => [$seed->url($pki->q('other.pem', 'client'))]]))->count())), "\n";
echo $show(rk_catch(fn() => (new RedisKit\RedisLeaderboard('x', ['cluster' => [$seed->url($pki->q())]]))->count())), "\n";
echo $show(rk_catch(fn() => (new RedisKit\RedisLeaderboard('x', ['cluster' => ["127.0.0.1:{$seed->port}"], 'tls' => true]))->count())), "\n";
?>
--EXPECT--
boards: ok
locks: ok
queues: ok
limiters: ok
board: 12 of 12 on their shard, several shards
lock: 12 of 12 on their shard, several shards
queue: 12 of 12 on their shard, several shards
RedisKit\ConnectionException: no node of cluster [rediss://ADDR/0] answered CLUSTER SLOTS: cannot connect to rediss://ADDR/0: TLS handshake with ADDR failed: certificate verification failed: unknown issuer (the server's certificate is not signed by a CA of cafile=DIR/other.pem)
RedisKit\ConnectionException: no node of cluster [rediss://ADDR/0] answered CLUSTER SLOTS: cannot connect to rediss://ADDR/0: TLS handshake with ADDR failed: the server requires a client certificate: add cert= and key= (PEM files) to the DSN
RedisKit\ConnectionException: no node of cluster [rediss://ADDR/0] answered CLUSTER SLOTS: cannot connect to rediss://ADDR/0: TLS handshake with ADDR failed: certificate verification failed: unknown issuer (the server's certificate is not signed by a CA of the system roots: set cafile= to your CA's PEM file)
