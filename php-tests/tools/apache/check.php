<?php
// The threaded load test's checker: argv[1] = requests sent, argv[2] = the
// limiter's limit, argv[3] = threads expected at least, argv[4] = "restart"
// for the run during which Redis was killed and started again, argv[5] = the
// file of acks whose outcome was unknown. Drains the queue, then prints one
// "ok|FAIL <invariant>" line per check.
declare(strict_types=1);
[$sent, $limit, $minThreads] = array_map('intval', array_slice($argv, 1, 3));
$restart = ($argv[4] ?? '') === 'restart';
$unknown = $restart ? array_flip(array_filter(explode("\n", (string)@file_get_contents($argv[5])))) : [];
$c = new RedisKit\RedisCache('zts');
$fails = 0;
$check = function (bool $ok, string $what) use (&$fails) {
    echo $ok ? 'ok   ' : 'FAIL ', $what, "\n";
    $fails += $ok ? 0 : 1;
};
$n = fn(string $k) => (int)$c->get($k, 0);
if ($restart) {
    // requests made while Redis was down failed: these checks hold anyway
    $check($n('fence_violations') === 0, "fencing tokens never went backwards: {$n('fence_violations')} violations");
} else {
    $check($n('requests') === $sent && $n('done') === $sent, "every request ran to its end: {$n('done')} of $sent");
    $threads = (new RedisKit\RedisLeaderboard('zts:threads'))->top(1000);
    $pids = array_unique(array_map(fn($e) => explode(':', $e['member'])[0], $threads));
    $check(count($pids) === 1, 'one process served them all: ' . count($pids));
    $check(count($threads) >= $minThreads, 'threads that served requests: ' . count($threads) . " (at least $minThreads)");
    $seen = [];
    foreach ((new RedisKit\RedisLeaderboard('zts:requests-seen'))->top(1000000) as $e) {
        [$tid, $k] = explode(':', $e['member']);
        $seen[$tid][(int)$k] = (int)$e['score'];
    }
    $uneven = 0;
    foreach ($seen as $ks) {
        // one request per value, and no value skipped: only this thread's requests counted
        if (max($ks) !== 1 || max(array_keys($ks)) - min(array_keys($ks)) + 1 !== count($ks)) $uneven++;
    }
    $check($seen && $uneven === 0 && array_sum(array_map('count', $seen)) === $sent,
        'RedisKit\stats() per thread: each of ' . count($seen) . " threads counted its own requests one by one ($uneven did not)");

    $check($n('counter') === $sent, "mutual exclusion: the locked read-modify-write counted {$n('counter')} of $sent");
    $check($n('fence_violations') === 0 && $n('lock_lost') === 0, "fencing tokens strictly increasing: {$n('fence_violations')} violations, {$n('lock_lost')} locks lost");

    $check($n('attempts') === $sent && $n('allowed') === min($limit, $sent), "exact limit: {$n('allowed')} of {$n('attempts')} allowed, limit $limit");
}

$q = new RedisKit\DelayQueue('zts:q', null, ['visibility_timeout' => 5.0]);
$pushed = array_column((new RedisKit\RedisLeaderboard('zts:pushed'))->top(1000000), 'score', 'member');
$acked = array_column((new RedisKit\RedisLeaderboard('zts:acked'))->top(1000000), 'score', 'member');
$left = [];
// claims of requests that failed come back after the visibility timeout:
// the drain waits until nothing is claimed any more
$deadline = microtime(true) + 30;
do {
    $jobs = $q->pop(1000, 1.0);
    foreach ($jobs as $j) { $left[$j['id']] = ($left[$j['id']] ?? 0) + 1; $q->ack($j['id']); }
    $cn = $q->counts();
} while ($jobs || ($cn['scheduled'] + $cn['due'] + $cn['in_flight'] > 0 && microtime(true) < $deadline));
foreach ($q->dead(1000) as $j) { $left[$j['id']] = ($left[$j['id']] ?? 0) + 1; }
$dup = count(array_filter($acked, fn($s) => $s != 1)) + count(array_filter($left, fn($s) => $s != 1))
     + count(array_intersect_key($acked, $left));
$lost = count(array_diff_key($pushed, $acked, $left, $unknown));
$check(($restart || count($pushed) === $sent) && $dup === 0 && $lost === 0 && $n('ack_refused') === 0,
    'queue: ' . count($pushed) . ' pushed, ' . count($acked) . ' taken and acked by requests, ' . count($left)
    . " left for the drain" . ($restart ? ', ' . count($unknown) . ' acks of unknown outcome' : '')
    . "; $dup delivered twice, $lost lost, {$n('ack_refused')} acks refused");
$check($n('computes') === 1, "single flight: remember() computed {$n('computes')} time(s)");
$check($n('local_hits') > 0, "local tier: {$n('local_hits')} hits served from the threads' own memory");
exit($fails ? 1 : 0);
