<?php
// One request of the threaded load test (php-tests/tools/apache-zts.sh): it
// uses every class, and records what the checker (check.php) verifies.
// Prints "ok" or fails with a 500 and the exception in Apache's error log.
declare(strict_types=1);
set_error_handler(function (int $no, string $msg, string $file, int $line) {
    throw new ErrorException($msg, 0, $no, $file, $line);
});
if (isset($_GET['probe'])) {
    // the start-up check: the module is loaded into a thread-safe PHP
    echo extension_loaded('rediskit') && PHP_ZTS ? "up\n" : "wrong\n";
    return;
}
if (isset($_GET['leave'])) {
    // a request that dies with a lock held: the end of the request, on the
    // thread that took it, must release it (no destructor runs after a fatal error)
    $name = 'zts:left:' . bin2hex(random_bytes(6));
    (new RedisKit\RedisLeaderboard('zts:left'))->setScore($name, 1);
    $GLOBALS['held'] = new RedisKit\RedisLock($name, null, ['ttl' => 600.0]);
    if (!$GLOBALS['held']->acquire()) {
        throw new RuntimeException("lock $name not acquired");
    }
    throw new RuntimeException('rediskit test: the request dies with its lock held');
}
$limit = (int)($_GET['limit'] ?? 100);
$c = new RedisKit\RedisCache('zts');
$threads = new RedisKit\RedisLeaderboard('zts:threads');
// /proc/thread-self links to /proc/<pid>/task/<thread id>
$tid = basename((string)readlink('/proc/thread-self'));
$threads->incrementScore(getmypid() . ':' . $tid, 1);
// RedisKit\stats() is this thread's: its 'requests' goes 1, 2, 3... over the
// requests this thread serves, whatever the other threads do
(new RedisKit\RedisLeaderboard('zts:requests-seen'))->incrementScore($tid . ':' . RedisKit\stats()['requests'], 1);
$c->increment('requests');

// 1. mutual exclusion with fencing: a read-modify-write that loses updates
// unless the lock excludes, and tokens that must only ever grow
$lock = new RedisKit\RedisLock('zts:lock', null, ['ttl' => 10.0]);
if (!$lock->acquire(20.0)) {
    throw new RuntimeException('lock not acquired within 20 s');
}
$token = $lock->fencingToken();
$last = $c->get('last_token', 0);
if ($token <= $last) {
    $c->increment('fence_violations');
}
$c->set('last_token', $token);
$n = $c->get('counter', 0);
$c->set('counter', $n + 1);
if (!$lock->release()) {
    $c->increment('lock_lost');
}

// 2. an exact limit: at most $limit allowed in all
$rl = new RedisKit\RateLimiter('zts', $limit, 3600.0);
$c->increment('attempts');
if ($rl->allow('all')) {
    $c->increment('allowed');
}

// 3. the queue: each request pushes one job and takes one, acking it once
$q = new RedisKit\DelayQueue('zts:q', null, ['visibility_timeout' => 5.0]);
$id = $q->push(bin2hex(random_bytes(8)));
(new RedisKit\RedisLeaderboard('zts:pushed'))->setScore($id, 1);
foreach ($q->pop(1) as $job) {
    try {
        $acked = $q->ack($job['id']);
    } catch (RedisKit\ConnectionException $e) {
        // the ack's outcome is unknown (Redis went away): noted outside Redis
        file_put_contents(__DIR__ . '/state/unknown-acks', $job['id'] . "\n", FILE_APPEND | LOCK_EX);
        throw $e;
    }
    if ($acked) {
        try {
            (new RedisKit\RedisLeaderboard('zts:acked'))->incrementScore($job['id'], 1);
        } catch (RedisKit\ConnectionException $e) {
            // acked, but the record of it may be lost
            file_put_contents(__DIR__ . '/state/unknown-acks', $job['id'] . "\n", FILE_APPEND | LOCK_EX);
            throw $e;
        }
    } else {
        $c->increment('ack_refused');
    }
}

// 4. single flight: one compute for every thread that asks at once
$v = $c->remember('sf', 3600.0, function () use ($c) {
    $c->increment('computes');
    usleep(300000);
    return 'computed once';
});
if ($v !== 'computed once') {
    throw new RuntimeException('remember() returned ' . var_export($v, true));
}
// 5. the local tier: each thread keeps its own (hits with no round trip),
// and reads back its own write at once
$lc = new RedisKit\RedisCache('zts:local', null, ['local' => true, 'serializer' => 'none']);
$before = RedisKit\stats()['cache_local_hits'];
for ($i = 0; $i < 5; $i++) {
    if (($v = $lc->remember('hot', 3600.0, fn() => 'hot value')) !== 'hot value') {
        throw new RuntimeException('local tier: remember() returned ' . var_export($v, true));
    }
}
$mine = 'written by ' . $tid . ' at ' . hrtime(true);
$lc->get("last:$tid");
$lc->set("last:$tid", $mine);
if (($v = $lc->get("last:$tid")) !== $mine) {
    throw new RuntimeException('local tier: a thread\'s own write read back as ' . var_export($v, true));
}
$c->increment('local_hits', RedisKit\stats()['cache_local_hits'] - $before);
$c->increment('done');
echo "ok\n";
