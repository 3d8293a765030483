<?php
// `make demo`: every rediskit primitive working against the redis-server in
// REDIS_URL (a throwaway one started by the Makefile unless you set it).
$url = getenv('REDIS_URL') ?: 'redis://127.0.0.1:6379';
$ns = 'demo:' . getmypid() . ':';
echo "rediskit ", phpversion('rediskit'), " against $url\n";

function section(string $title): void
{
    echo "\n== $title\n";
}

function show_entries(array $entries): string
{
    return implode('  ', array_map(fn($e) => "#{$e['rank']} {$e['member']} ({$e['score']})", $entries));
}

// ---------------------------------------------------------------- leaderboard
section('RedisLeaderboard: rankings, every read in one round trip');
$lb = new RedisKit\RedisLeaderboard($ns . 'game', $url, ['ranking' => 'competition', 'ties' => 'earliest']);
$lb->setScores(['alice' => 3200, 'bob' => 2800, 'carol' => 3100, 'dave' => 1900, 'erin' => 2500]);
$lb->incrementScore('dave', 900);          // dave reaches 2800 after bob: bob keeps the better tie
echo "top 3:      ", show_entries($lb->top(3)), "\n";
echo "around bob: ", show_entries($lb->around('bob', 1)), "\n";
printf("dave: rank %d, score %.0f, ahead of or tied with %.0f%% of the board\n", $lb->rank('dave'), $lb->score('dave'), $lb->percentile('dave'));
printf("erin offers 2400: %s (her best stays %.0f)\n", $lb->setScoreIfBetter("erin", 2400) ? "stored" : "not better", $lb->score("erin"));
$lb->clear();

$weekly = new RedisKit\RedisLeaderboard($ns . 'season', $url, ['periods' => ['daily', 'weekly']]);
$weekly->incrementScore('alice', 10);
$weekly->incrementScore('bob', 25);
echo "this week's board: ", show_entries($weekly->period('weekly')->top(2)), "\n";
$weekly->period('daily')->clear();
$weekly->period('weekly')->clear();
$weekly->clear();

// ----------------------------------------------------------------------- lock
section('RedisLock: waiters woken by the release, fencing tokens, watchdog');
$lock = new RedisKit\RedisLock($ns . 'order:42', $url, ['ttl' => 5.0]);
$lock->acquire();
printf("took the lock, fencing token %d (give it to the storage layer)\n", $lock->fencingToken());
$pid = pcntl_fork();
if ($pid === 0) {
    $other = new RedisKit\RedisLock($ns . 'order:42', $url);
    $t = microtime(true);
    $got = $other->acquire(5.0);
    printf("  [child] waited %.0f ms, woken by the release: %s, fencing token %d (higher)\n",
        (microtime(true) - $t) * 1000, $got ? 'got it' : 'gave up', $other->fencingToken());
    $other->release();
    exit(0);
}
usleep(300000);
$lock->release();
pcntl_waitpid($pid, $st);
$result = $lock->run(fn() => 'work done under the lock', 1.0);
echo "run(): $result (released in finally)\n";

// ---------------------------------------------------------------------- queue
section('DelayQueue: jobs on the Redis clock, claimed atomically, never lost');
$q = new RedisKit\DelayQueue($ns . 'jobs', $url, ['visibility_timeout' => 5]);
$q->push('{"type":"cancel_order","order_id":1024}', 0.2);
$q->push('{"type":"cancel_order","order_id":1024}', 0.2);   // identical payload: its own job
$q->pushMany(['send_mail:1', 'send_mail:2']);
$t = microtime(true);
foreach ($q->pop(10) as $job) {
    echo "  due now: {$job['payload']}\n";
    $q->ack($job['id']);
}
$jobs = $q->pop(10, 2.0);                                     // blocks until the delayed ones are due
printf("  after waiting %.0f ms: %d delayed jobs (attempt %d)\n", (microtime(true) - $t) * 1000, count($jobs), $jobs[0]['attempts'] ?? -1);
foreach ($jobs as $job) $q->ack($job['id']);
echo "  counts: ", json_encode($q->counts()), "\n";
$q->purge();

// -------------------------------------------------------------------- limiter
section('RateLimiter: exact limits in one round trip, with HTTP headers');
$limiter = new RedisKit\RateLimiter($ns . 'api', 3, 1.0, $url);   // 3 per second, sliding window
foreach (range(1, 4) as $i) {
    $r = $limiter->attempt('user:7');
    printf("  request %d: %s, remaining %d, retry after %.3f s\n", $i, $r['allowed'] ? 'allowed' : 'denied', $r['remaining'], $r['retry_after']);
}
foreach (RedisKit\RateLimiter::headers($r) as $h => $v) echo "  $h: $v\n";
$perHour = new RedisKit\RateLimiter($ns . 'api-hour', 100, 3600, $url, ['algorithm' => 'gcra']);
$both = RedisKit\RateLimiter::attemptAll([$limiter, $perHour], 'user:8');
echo "  attemptAll (3/s and 100/h, one round trip): ", $both['allowed'] ? 'allowed' : 'denied', "\n";
$limiter->reset('user:7');
$limiter->reset('user:8');
$perHour->reset('user:8');

// -------------------------------------------------------------------- cache
section('RedisCache: cache-aside without stampedes, in one call');
$cache = new RedisKit\RedisCache($ns . 'products', $url, ['null_ttl' => 30, 'jitter' => 0.1]);
$computes = 0;
$load = function () use (&$computes) { $computes++; usleep(100000); return ['id' => 1024, 'name' => 'Keyboard', 'price' => 49.9]; };
$pids = [];
foreach (range(1, 4) as $i) {                               // 4 processes miss the key at once
    $pid = pcntl_fork();
    if ($pid === 0) {
        $c = new RedisKit\RedisCache($ns . 'products', $url);
        $c->remember('product:1024', 60, $load);
        exit($c->stats()['computes']);
    }
    $pids[] = $pid;
}
$byChildren = 0;
foreach ($pids as $pid) { pcntl_waitpid($pid, $st); $byChildren += pcntl_wexitstatus($st); }
printf("  4 processes missed 'product:1024' together: the loader ran %d time(s)\n", $byChildren);
$p = $cache->remember('product:1024', 60, $load);
printf("  then a hit (one GET): %s, loader runs here: %d\n", json_encode($p), $computes);
$cache->remember('product:9999', 60, function () use (&$computes) { $computes++; return null; });   // no such product
$cache->remember('product:9999', 60, function () use (&$computes) { $computes++; return null; });
printf("  a missing product is looked up once, then its null is cached for null_ttl: loader runs %d\n", $computes);
$cache->setMany(['a' => 1, 'b' => 2], 60);
echo "  getMany (one MGET): ", json_encode($cache->getMany(['a', 'b', 'c'])), "\n";
echo "  stats: ", json_encode($cache->stats()), "\n";
$cache->clear();

section('connection layer');
$s = RedisKit\stats();
printf("this process opened %d connection(s) and sent %d commands; %d script(s) loaded on first use\n",
    $s['connections_opened'], $s['commands'], $s['scripts_loaded']);
try {
    (new RedisKit\RedisLeaderboard('x', 'redis://:not-the-password@127.0.0.1:1?timeout=0.2'))->count();
} catch (RedisKit\ConnectionException $e) {
    echo "a bad DSN fails clearly (no password in the message): ", $e->getMessage(), "\n";
}
echo "\ndemo done\n";
