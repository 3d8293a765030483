--TEST--
DelayQueue: no job is ever handed out before its due time on the Redis clock, and jobs come out in due-time order
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$raw = new RkRaw();
$q = new RedisKit\DelayQueue('early', rk_conn(), ['prefix' => rk_ns()]);
function rtime(RkRaw $raw): float { [$s, $u] = $raw->cmd('TIME'); return (int)$s + (int)$u / 1e6; }

// 60 jobs due 0..295 ms from now, pushed in shuffled order
$delays = [];
for ($i = 0; $i < 60; $i++) $delays[] = $i * 0.005;
shuffle($delays);
$jobs = [];   // id => [delay, redis time before push, redis time after push]
foreach ($delays as $d) {
    $before = rtime($raw);
    $id = $q->push(sprintf('%.3f', $d), $d);
    $jobs[$id] = [$d, $before, rtime($raw)];
}
$seen = [];
$order = [];
$violations = [];
$deadline = microtime(true) + 5;
while (count($seen) < 60 && microtime(true) < $deadline) {
    // alternate non-blocking polls and blocking waits
    $got = (count($seen) % 2) ? $q->pop(3) : $q->pop(2, 0.5);
    $after = rtime($raw);   // the claim happened before this instant
    foreach ($got as $j) {
        [$d, $before, $pushedBy] = $jobs[$j['id']];
        // the job is due no earlier than (push time + delay) >= ($before + $d):
        // a claim that finished before that is early for sure
        if ($after < $before + $d) $violations[] = sprintf('%s claimed at or before %.6f, due no earlier than %.6f', $j['id'], $after, $before + $d);
        // due_at is push time + delay on the Redis clock, rounded up to the
        // ms (a job without delay is due at once: its push ms, rounded down)
        $low = $d > 0 ? $before + $d : floor($before * 1000) / 1000;
        if ($j['due_at'] < $low - 1e-9 || $j['due_at'] > $pushedBy + $d + 0.0011)
            $violations[] = sprintf('%s due_at %.3f outside [%.6f, %.6f]', $j['id'], $j['due_at'], $low, $pushedBy + $d + 0.001);
        $seen[$j['id']] = ($seen[$j['id']] ?? 0) + 1;
        $order[] = $j['due_at'];
        $q->ack($j['id']);
    }
}
var_dump(count($seen), max($seen));
var_dump($violations);
$sorted = $order;
sort($sorted);
var_dump($sorted === $order);                  // due-time order
var_dump($q->counts()['in_flight'] + $q->counts()['due'] + $q->counts()['scheduled']);

// a job due in 300 ms is not handed out to a consumer waiting 0.25 s: that
// pop ends empty, unless this process was held up past the due time (a
// loaded machine), when the job it returns is due (Redis clock)
$t0 = microtime(true);
$before = rtime($raw);
$q->push('later', 0.3);
$got = $q->pop(1, 0.25);
$after = rtime($raw);
if ($got !== []) {
    rk_assert($after >= $before + 0.3 && $got[0]['due_at'] <= $after + 1e-6,
        sprintf('handed out early: returned at %.6f, pushed after %.6f, due_at %.3f', $after, $before, $got[0]['due_at']));
} else {
    $got = $q->pop(1, 2.0);
}
var_dump($got[0]['payload']);
rk_assert(microtime(true) - $t0 >= 0.3 - 0.002, 'not before its delay (local clock, same host)');
?>
--EXPECT--
int(60)
int(1)
array(0) {
}
bool(true)
int(0)
string(5) "later"
