--TEST--
DelayQueue pause()/resume(): a paused queue takes pushes and hands out nothing, consumers blocked in pop() keep waiting (without asking again and again) and all get jobs when it is resumed; claims already handed out can still be acked; counts, jobs() and cancel() never see the pause as a job; purge() ends it
--SKIPIF--
<?php if (!function_exists('pcntl_fork')) echo 'skip pcntl needed'; ?>
--FILE--
<?php
require __DIR__ . '/_lock.inc';
$ns = rk_ns();
$conn = rk_conn();
$raw = new RkRaw();
$q = new RedisKit\DelayQueue('q', $conn, ['prefix' => $ns]);

$early = $q->push('claimed before the pause');
$claimed = $q->pop(1);
var_dump($q->pause(), $q->pause(), $q->isPaused(), $q->inspect()['paused']);
$ids = [$q->push('a'), $q->push('b'), $q->push('c'), $q->push('later', 3600)];
$c = $q->counts();
echo "counts while paused: scheduled={$c['scheduled']} due={$c['due']} in_flight={$c['in_flight']}\n";
echo "pop while paused: ", count($q->pop(10)), ", with a wait: ", count($q->pop(10, 0.2)), "\n";
// the waiting pop waits (one pop, one blocking wait and its end), it does
// not ask again and again
$sent = RedisKit\stats()['commands'];
$q->pop(10, 0.3);
$sent = RedisKit\stats()['commands'] - $sent;
rk_assert($sent <= 6, "a paused queue's pop(10, 0.3) sent $sent commands");
echo "due jobs listed: ", implode(',', array_column($q->jobs('due')['jobs'], 'payload')), "\n";
echo "ack of a job claimed before the pause: ", var_export($q->ack($claimed[0]['id']), true), "\n";
echo "cancel(''): ", var_export($q->cancel(''), true), ", job(''): ", var_export($q->job(''), true), ", still paused: ", var_export($q->isPaused(), true), "\n";
echo "inspect: due ", $q->inspect()['due'], ", lag set: ", var_export($q->inspect()['oldest_due_at'] !== null, true), "\n";

// three consumers blocked in pop() with a long wait
$pids = [];
for ($i = 0; $i < 3; $i++) {
    $pids[] = lock_fork(function () use ($conn, $ns, $i) {
        $r = new RkRaw();
        $w = new RedisKit\DelayQueue('q', $conn, ['prefix' => $ns]);
        $r->cmd('INCR', "{$ns}waiting");
        $jobs = $w->pop(1, 60.0);
        $r->cmd('RPUSH', "{$ns}got", count($jobs) ? $jobs[0]['payload'] : 'nothing');
        return true;
    });
}
rk_assert(rk_until(fn() => (int)$raw->cmd('GET', "{$ns}waiting") === 3, 10), 'consumers started');
// while paused, nothing reaches them, not even a push of a job due now
$q->push('d');
$observed = !rk_until(fn() => $raw->cmd('LLEN', "{$ns}got") > 0, 0.5);
echo "blocked consumers got nothing while paused: ", var_export($observed, true), "\n";
var_dump($q->resume(), $q->resume(), $q->isPaused());
// woken by resume(), far before their 60 s wait ends
$woken = rk_until(fn() => $raw->cmd('LLEN', "{$ns}got") == 3, 20);
echo "all three woken by resume(): ", var_export($woken, true), "\n";
lock_wait($pids);
$got = $raw->cmd('LRANGE', "{$ns}got", '0', '-1');
sort($got);
echo "they got: ", implode(',', $got), "\n";
echo "left: ", implode(',', array_column($q->pop(10), 'payload')), "\n";

// purge() ends a pause
$q->pause();
$q->purge();
$q->push('x');
echo "after purge: paused ", var_export($q->isPaused(), true), "; a push is handed out: ", count($q->pop(1)), "\n";
?>
--EXPECT--
bool(true)
bool(false)
bool(true)
bool(true)
counts while paused: scheduled=1 due=3 in_flight=1
pop while paused: 0, with a wait: 0
due jobs listed: a,b,c
ack of a job claimed before the pause: true
cancel(''): false, job(''): NULL, still paused: true
inspect: due 3, lag set: true
blocked consumers got nothing while paused: true
bool(true)
bool(false)
bool(false)
all three woken by resume(): true
they got: a,b,c
left: d
after purge: paused false; a push is handed out: 1
