--TEST--
Metrics settings: rediskit.metrics_max_names caps the names of each kind (the rest counted in _other, listed once used), rediskit.metrics_buckets sets the histogram bounds, metrics_size=0 turns metrics off, and a bad setting leaves PHP working with metrics off and a start-up warning
--INI--
rediskit.metrics_max_names=3
rediskit.metrics_buckets="0.000001,0.5"
--FILE--
<?php
require __DIR__ . '/_lock.inc';
$ns = rk_ns();
$u = rk_url();
$names = ['a', 'b', 'c', 'd', 'e'];
foreach ($names as $n) {
    $l = new RedisKit\RedisLock($n, $u, ['prefix' => $ns]);
    $l->acquire();
    $l->release();
}
// a queue's _other is not listed until something is counted in it
$m = RedisKit\metrics();
echo "lock names: ", implode(',', array_keys($m['lock'])), "\n";
echo "_other acquired: ", $m['lock']['_other']['acquired'], "; counted in _other (max_names): ", $m['segment']['other']['max_names'], "\n";
echo "max_names: ", $m['segment']['max_names'], "; queues listed: ", count($m['queue']), "\n";
echo "bounds: ", implode(',', array_keys($m['lock']['a']['acquire_wait_seconds']['buckets'])), "\n";
// an acquire takes more than a microsecond and less than half a second here
echo "a's acquire in (1 us, 0.5 s]: ", json_encode(array_values($m['lock']['a']['acquire_wait_seconds']['buckets'])), "\n";

// a pop whose bookkeeping dead-letters a lapsed claim, and claims nothing
$q = new RedisKit\DelayQueue('dl', $u, ['prefix' => $ns, 'visibility_timeout' => 0.1, 'max_attempts' => 1]);
$q->push('x');
$q->pop();
// wait, reading Redis directly (counts() or a pop would put it back), until
// the claim's deadline has passed on the Redis clock; then one pop
$raw = new RkRaw();
$deadline = (int)$raw->cmd('ZRANGE', "{{$ns}dl}:inflight", '0', '0', 'WITHSCORES')[1];
rk_assert(rk_until(function () use ($raw, $deadline) {
    [$s, $us] = $raw->cmd('TIME');
    return intdiv((int)$s * 1000000 + (int)$us, 1000) > $deadline;
}, 10), 'the claim lapsed');
rk_assert($q->pop() === [] && $q->counts()['dead'] === 1, 'the lapsed claim dead-lettered by the pop');
$dl = RedisKit\metrics()['queue']['dl'];
echo "dead-lettered by a pop that claimed nothing: {$dl['dead_lettered']} (claimed {$dl['claimed']})\n";

$sub = function (array $ini) {
    $cmd = [PHP_BINARY, '-n', '-d', 'extension=' . lock_ext_path(), '-d', 'log_errors=0', '-d', 'display_startup_errors=1'];
    foreach ($ini as $k => $v) array_push($cmd, '-d', "$k=$v");
    array_push($cmd, '-r', 'echo json_encode(RedisKit\metrics()["segment"]), "|", strlen(RedisKit\Metrics::openMetrics()), "\n";');
    $p = proc_open($cmd, [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['redirect', 1]], $pipes);
    $out = stream_get_contents($pipes[1]);
    fclose($pipes[1]);
    return [proc_close($p), trim($out)];
};
[$rc, $out] = $sub(['rediskit.metrics_size' => '0']);
echo "metrics_size=0: exit $rc: $out\n";
[$rc, $out] = $sub(['rediskit.metrics_size' => 'lots']);
echo "metrics_size=lots: exit $rc: $out\n";
[$rc, $out] = $sub(['rediskit.metrics_buckets' => '1,0.5']);
echo "metrics_buckets=1,0.5: exit $rc: $out\n";
[$rc, $out] = $sub(['rediskit.metrics_size' => '64K']);
echo "metrics_size=64K: exit $rc: ", preg_replace(['/"capacity":\d+/', '/\|\d+$/'], ['"capacity":N', '|N'], $out), "\n";
?>
--EXPECT--
lock names: _other,a,b,c
_other acquired: 2; counted in _other (max_names): 2
max_names: 3; queues listed: 0
bounds: 0.000001,0.5,+Inf
a's acquire in (1 us, 0.5 s]: [0,1,1]
dead-lettered by a pop that claimed nothing: 1 (claimed 1)
metrics_size=0: exit 0: {"enabled":false,"bytes":0,"series":0,"capacity":0,"max_names":0,"per_minute_capacity":0,"per_minute_series":0,"other":{"full":0,"max_names":0}}|0
metrics_size=lots: exit 0: Warning: PHP Startup: rediskit: metrics are off: rediskit.metrics_size: not a size ('lots'; e.g. 4M, 0 for off) in Unknown on line 0
{"enabled":false,"bytes":0,"series":0,"capacity":0,"max_names":0,"per_minute_capacity":0,"per_minute_series":0,"other":{"full":0,"max_names":0}}|0
metrics_buckets=1,0.5: exit 0: Warning: PHP Startup: rediskit: metrics are off: rediskit.metrics_buckets: not an ascending list of seconds ('1,0.5') in Unknown on line 0
{"enabled":false,"bytes":0,"series":0,"capacity":0,"max_names":0,"per_minute_capacity":0,"per_minute_series":0,"other":{"full":0,"max_names":0}}|0
metrics_size=64K: exit 0: {"enabled":true,"bytes":65536,"series":0,"capacity":N,"max_names":1000,"per_minute_capacity":15,"per_minute_series":0,"other":{"full":0,"max_names":0}}|N
