--TEST--
RedisKit\metrics(): one host-wide view shared by a CLI process and the children it forks (exact totals of locks, queues, limiters, caches and connection commands across 4 processes, histograms consistent with their counters, stats() still per worker), and Metrics::openMetrics() accepted by Prometheus's own promtool (a corrupted copy refused)
--FILE--
<?php
require __DIR__ . '/_lock.inc';
$ns = rk_ns();
$u = rk_url();
[$host, $port] = rk_hostport($u);
$dir = sys_get_temp_dir() . '/rkmetrics-' . getmypid();
@mkdir($dir);
$raw = new RkRaw();

// what one worker does; it reports its own stats() for the parent to add up
$work = function (int $w) use ($u, $ns, $dir) {
    $lock = new RedisKit\RedisLock('m-lock', $u, ['prefix' => $ns]);
    for ($i = 0; $i < 25; $i++) {
        $lock->acquire(10.0) or exit(3);
        $lock->release();
    }
    $q = new RedisKit\DelayQueue('m-queue', $u, ['prefix' => $ns, 'consumer' => "w$w"]);
    $ids = [];
    for ($i = 0; $i < 10; $i++) $ids[] = $q->push("job $w/$i");
    $acked = 0;
    // jobs of other workers may be claimed here: every claim is acked by its claimer
    $deadline = microtime(true) + 20;
    while ($acked < 10 && microtime(true) < $deadline) {
        foreach ($q->pop(min(5, 10 - $acked), 0.2) as $job) {
            $acked += (int)$q->ack($job['id']);
        }
    }
    $rl = new RedisKit\RateLimiter('m-limit', 20, 60, $u, ['prefix' => $ns]);
    for ($i = 0; $i < 10; $i++) $rl->attempt('shared');
    $c = new RedisKit\RedisCache('m-cache', $u, ['prefix' => $ns]);
    for ($i = 0; $i < 5; $i++) {
        $c->remember("w$w-$i", 60, fn() => $i);
        $c->remember("w$w-$i", 60, fn() => $i);
        $c->get("w$w-missing-$i");
    }
    file_put_contents("$dir/$w.json", json_encode(['acked' => $acked] + RedisKit\stats()));
};

// a name with quotes, a backslash, a newline and markup: escaped in the text format
$odd = new RedisKit\RedisLock("we\"ird\\name\n<b>", $u, ['prefix' => $ns]);
$odd->acquire();
$odd->release();
$kids = [];
for ($w = 1; $w <= 3; $w++) {
    $pid = pcntl_fork();
    if ($pid === 0) {
        $work($w);
        exit(0);
    }
    $kids[] = $pid;
}
$work(0);
foreach ($kids as $pid) {
    pcntl_waitpid($pid, $st);
    rk_assert(pcntl_wexitstatus($st) === 0, "worker $pid exited with " . pcntl_wexitstatus($st));
}
$reports = array_map(fn($w) => json_decode(file_get_contents("$dir/$w.json"), true), range(0, 3));
$sum = fn(string $k) => array_sum(array_column($reports, $k));

$m = RedisKit\metrics();
echo "segment: enabled=", var_export($m['segment']['enabled'], true), ", bytes=", $m['segment']['bytes'], "\n";
rk_assert($m['segment']['series'] <= $m['segment']['capacity'], 'series within capacity');

$lock = $m['lock']['m-lock'];
echo "lock: acquired={$lock['acquired']} (stats() of the 4 workers: ", $sum('lock_acquired'), ", the odd name's included), lost={$lock['lost']}\n";
echo "  acquire_wait count={$lock['acquire_wait_seconds']['count']}, hold count={$lock['hold_seconds']['count']}\n";
echo "  contended = the workers' own counts: ", var_export($lock['contended'] === $sum('lock_contended'), true), "\n";
// buckets are cumulative, +Inf is the count, and the sum is a duration
foreach (['acquire_wait_seconds', 'hold_seconds'] as $h) {
    $b = array_values($lock[$h]['buckets']);
    for ($i = 1; $i < count($b); $i++) rk_assert($b[$i] >= $b[$i - 1], "$h buckets cumulative");
    rk_assert(end($b) === $lock[$h]['count'], "$h +Inf = count");
    rk_assert(array_key_last($lock[$h]['buckets']) === '+Inf', "$h ends with +Inf");
    rk_assert($lock[$h]['sum'] > 0 && $lock[$h]['sum'] < 100 * 60, "$h sum is a duration");
}

$q = $m['queue']['m-queue'];
echo "queue: pushed={$q['pushed']} claimed={$q['claimed']} acked={$q['acked']} (acked by the workers: ", $sum('acked'), ")\n";
echo "  lag count={$q['lag_seconds']['count']}, handler count={$q['handler_seconds']['count']}\n";
// per minute over the last hour: 60 minutes, the current one last; the
// work took seconds, so it is all in the last two
$pm = $q['per_minute'];
echo "  per minute: ", count($pm['pushed']), " and ", count($pm['acked']), " minutes, pushed ", array_sum(array_slice($pm['pushed'], -2)),
    " and acked ", array_sum(array_slice($pm['acked'], -2)), " in the last two, none before: ",
    var_export(array_sum(array_slice($pm['pushed'], 0, 58)) + array_sum(array_slice($pm['acked'], 0, 58)) === 0, true),
    "; only queues have it: ", var_export(!isset($m['lock']['m-lock']['per_minute']), true), "\n";
$l = $m['limiter']['m-limit'];
echo "limiter: allowed={$l['allowed']} denied={$l['denied']} fail_open={$l['fail_open']}, local_blocks = the workers' own: ", var_export($l['local_blocks'] === $sum('limiter_local_blocks'), true), "\n";
$c = $m['cache']['m-cache'];
echo "cache: hits={$c['hits']} misses={$c['misses']} computes={$c['computes']}, compute count={$c['compute_seconds']['count']}\n";

$conn = $m['connection']["$host:$port"];
// (each worker's commands, and the registry entries it sent)
echo "connection: commands = the workers' own stats(): ", var_export($conn['commands'] === $sum('commands') + $sum('registrations'), true), "\n";
echo "  round trips > 0 and <= commands: ", var_export($conn['round_trips'] > 0 && $conn['round_trips'] <= $conn['commands'], true),
    ", histogram count = round trips: ", var_export($conn['round_trip_seconds']['count'] === $conn['round_trips'], true), "\n";
echo "  errors: ", json_encode($conn['errors']), "\n";
// stats() stays this worker's
echo "this worker's stats(): lock_acquired=", RedisKit\stats()['lock_acquired'] - 1, " (and the odd one)\n";

// the exposition, through Prometheus's own parser and linter
$text = RedisKit\Metrics::openMetrics();
echo RedisKit\Metrics::contentType(), "\n";
$promtool = trim((string)shell_exec('command -v promtool'));
rk_assert($promtool !== '', 'promtool is installed (make deps installs Debian\'s prometheus)');
$check = function (string $t) use ($promtool, $dir): array {
    file_put_contents("$dir/metrics.txt", $t);
    exec(escapeshellarg($promtool) . ' check metrics < ' . escapeshellarg("$dir/metrics.txt") . ' 2>&1', $out, $rc);
    return [$rc, implode("\n", $out)];
};
[$rc, $out] = $check($text);
echo "promtool check metrics: exit $rc", $out === '' ? '' : ": $out", "\n";
// it does refuse what is wrong: the same text with one family's TYPE given twice
$broken = preg_replace('/^(# TYPE rediskit_lock_acquired_total counter)$/m', "$1\n$1", $text, 1);
[$rc, $out] = $check($broken);
echo "a corrupted copy: exit ", $rc === 0 ? 0 : 'non-zero', "\n";
// the samples say what metrics() says
preg_match('/^rediskit_lock_acquired_total\{name="m-lock"\} (\d+)$/m', $text, $x);
echo "exposed lock acquisitions: ", $x[1] ?? 'none', "\n";
preg_match('/^rediskit_connection_commands_total\{target="' . preg_quote("$host:$port", '/') . '",db_system_name="redis"\} (\d+)$/m', $text, $x);
echo "exposed commands = metrics(): ", var_export((int)($x[1] ?? -1) === $conn['commands'], true), "\n";
rk_assert(str_ends_with($text, "\n"), 'ends with a newline');
echo "the odd name: ", preg_match('/^rediskit_lock_acquired_total\{name="we\\\\"ird\\\\\\\\name\\\\n<b>"\} 1$/m', $text) ? 'escaped' : 'NOT FOUND', "\n";

array_map('unlink', glob("$dir/*"));
rmdir($dir);
?>
--EXPECT--
segment: enabled=true, bytes=4194304
lock: acquired=100 (stats() of the 4 workers: 101, the odd name's included), lost=0
  acquire_wait count=100, hold count=100
  contended = the workers' own counts: true
queue: pushed=40 claimed=40 acked=40 (acked by the workers: 40)
  lag count=40, handler count=40
  per minute: 60 and 60 minutes, pushed 40 and acked 40 in the last two, none before: true; only queues have it: true
limiter: allowed=20 denied=20 fail_open=0, local_blocks = the workers' own: true
cache: hits=20 misses=40 computes=20, compute count=20
connection: commands = the workers' own stats(): true
  round trips > 0 and <= commands: true, histogram count = round trips: true
  errors: {"connect":0,"timeout":0,"lost":0,"server":0}
this worker's stats(): lock_acquired=25 (and the odd one)
text/plain; version=0.0.4; charset=utf-8
promtool check metrics: exit 0
a corrupted copy: exit non-zero
exposed lock acquisitions: 100
exposed commands = metrics(): true
the odd name: escaped
