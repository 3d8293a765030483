--TEST--
DelayQueue pop($max, $wait): blocks until a job is due or $wait passes, wakes when the next job falls due or a due job is pushed (not on a polling interval); waiting consumers claim late by milliseconds only
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$ns = rk_ns();
$url = rk_conn();
$q = new RedisKit\DelayQueue('w', $url, ['prefix' => $ns]);

echo "-- empty queue: gives up after \$wait\n";
$t = microtime(true);
var_dump($q->pop(1, 0.3));
$el = microtime(true) - $t;
rk_assert($el >= 0.3 - 0.002 && $el < 0.3 + 0.15, "returned after $el s");

echo "-- wakes when the next job falls due\n";
$q->push('soon', 0.25);
$t = microtime(true);
$j = $q->pop(1, 5);
$el = microtime(true) - $t;
var_dump($j[0]['payload']);
rk_assert($el >= 0.25 - 0.01 && $el < 0.25 + 0.1, "woke after $el s");
$q->ack($j[0]['id']);

echo "-- wakes when a due job is pushed, and when an earlier job is pushed\n";
$q->push('far', 30);                       // the head of the schedule, 30 s away
foreach ([['now', 0.0], ['earlier', 0.2]] as [$payload, $delay]) {
    $pid = pcntl_fork();
    if ($pid === 0) {
        usleep(200000);
        $p = new RedisKit\DelayQueue('w', $url, ['prefix' => $ns]);
        $p->push($payload, $delay);
        exit(0);
    }
    $t = microtime(true);
    $j = $q->pop(1, 5);
    $el = microtime(true) - $t;
    pcntl_waitpid($pid, $st);
    var_dump($j[0]['payload']);
    rk_assert($el >= 0.2 + $delay - 0.01 && $el < 0.2 + $delay + 0.15, "$payload: woke after $el s");
    $q->ack($j[0]['id']);
}
$q->purge();

echo "-- several waiting consumers all wake for a batch of due jobs\n";
$pids = [];
$files = [];
for ($c = 0; $c < 3; $c++) {
    $files[$c] = tempnam(sys_get_temp_dir(), 'rkq');
    $pid = pcntl_fork();
    if ($pid === 0) {
        $w = new RedisKit\DelayQueue('w', $url, ['prefix' => $ns]);
        $j = $w->pop(1, 3);
        file_put_contents($files[$c], json_encode([count($j), microtime(true)]));
        if ($j) $w->ack($j[0]['id']);
        exit(0);
    }
    $pids[] = $pid;
}
usleep(300000);                            // all three are blocked by now
$t = microtime(true);
$q->pushMany(['x', 'y', 'z']);
foreach ($pids as $pid) pcntl_waitpid($pid, $st);
$got = 0;
foreach ($files as $f) {
    [$n, $at] = json_decode(file_get_contents($f));
    unlink($f);
    $got += $n;
    rk_assert($at - $t < 0.2, 'woke within 0.2 s of the push: ' . ($at - $t));
}
var_dump($got);

echo "-- lateness of a waiting consumer\n";
// 40 jobs due 30 ms apart; the consumer waits for each. Lateness = claim
// (local clock, same host as Redis) - due_at (Redis clock).
$q->purge();
$ids = [];
for ($i = 0; $i < 40; $i++) $ids[] = $q->push("l$i", 0.1 + $i * 0.03);
$late = [];
while (count($late) < 40) {
    $j = $q->pop(1, 2);
    if (!$j) break;
    $late[] = (microtime(true) - $j[0]['due_at']) * 1000;
    $q->ack($j[0]['id']);
}
sort($late);
var_dump(count($late));
$p50 = $late[19];
$max = end($late);
// generous bounds for a shared CI machine (the bench measures the real
// numbers); a consumer that polls every 100 ms would fail them
rk_assert($late[0] > -1.0, "never early: min lateness {$late[0]} ms");
rk_assert($p50 < 20, "median lateness $p50 ms");
rk_assert($max < 250, "max lateness $max ms");
?>
--EXPECT--
-- empty queue: gives up after $wait
array(0) {
}
-- wakes when the next job falls due
string(4) "soon"
-- wakes when a due job is pushed, and when an earlier job is pushed
string(3) "now"
string(7) "earlier"
-- several waiting consumers all wake for a batch of due jobs
int(3)
-- lateness of a waiting consumer
int(40)
