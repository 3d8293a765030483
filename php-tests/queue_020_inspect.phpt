--TEST--
DelayQueue::inspect(): counts plus the oldest due job's time and lag (from the schedule or the ready list, never a job not due yet, never a claimed one), the next due time, and the Redis clock, in one round trip; empty queue; lapsed claims counted as due again
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$ns = rk_ns();
$raw = new RkRaw();
$q = new RedisKit\DelayQueue('q', rk_conn(), ['prefix' => $ns, 'visibility_timeout' => 0.2]);
$redisNow = function () use ($raw) {
    [$s, $us] = $raw->cmd('TIME');
    return (int)$s + (int)$us / 1e6;
};
$show = fn(array $i) => sprintf('scheduled=%d due=%d in_flight=%d dead=%d oldest=%s next=%s',
    $i['scheduled'], $i['due'], $i['in_flight'], $i['dead'],
    $i['oldest_due_at'] === null ? 'null' : 'set', $i['next_due_at'] === null ? 'null' : 'set');

$i = $q->inspect();
echo "empty: ", $show($i), ", lag ", var_export($i['lag'], true), "\n";
$t0 = $redisNow();
rk_assert(abs($i['now'] - $t0) < 5, 'now is the Redis clock');

// two jobs due in the past (the older one 30 s ago), one now, one in 60 s
$q->pushAt('old', $t0 - 30);
$q->pushAt('older-but-later-pushed', $t0 - 40);
$q->push('now');
$q->push('later', 60);
$before = RedisKit\stats()['commands'];
$i = $q->inspect();
echo "one round trip: ", RedisKit\stats()['commands'] - $before, "\n";
echo "4 pushed: ", $show($i), "\n";
printf("oldest due = 40 s ago: %s; lag %s; next due in 60 s: %s\n",
    var_export(abs($i['oldest_due_at'] - ($t0 - 40)) < 0.01, true),
    var_export($i['lag'] >= 39.9 && $i['lag'] < 45, true),
    var_export(abs($i['next_due_at'] - ($t0 + 60)) < 1, true));

// claimed jobs no longer count as due: claim the two oldest
$jobs = $q->pop(2);
echo "claimed: ", implode(',', array_column($jobs, 'payload')), "\n";
$i = $q->inspect();
echo "after the claim: ", $show($i), "\n";
// 'now' was pushed without a delay: the ready list's head is now the oldest due
printf("oldest due is the one pushed without delay (at about t0): %s\n", var_export(abs($i['oldest_due_at'] - $t0) < 2, true));
$q->pop(1);
$i = $q->inspect();
echo "all due claimed: ", $show($i), ", lag ", var_export($i['lag'], true), "\n";

// a lapsed claim is due again (after its backoff), as counts() says
rk_assert(rk_until(function () use ($q) {
    $i = $q->inspect();
    return $i['in_flight'] === 0 && $i['due'] === 3;
}, 10), 'lapsed claims put back by inspect()');
$i = $q->inspect();
echo "claims lapsed: ", $show($i), "\n";
echo "counts() agrees: ", var_export(array_slice($i, 0, 4) === $q->counts(), true), "\n";
?>
--EXPECT--
empty: scheduled=0 due=0 in_flight=0 dead=0 oldest=null next=null, lag 0.0
one round trip: 1
4 pushed: scheduled=1 due=3 in_flight=0 dead=0 oldest=set next=set
oldest due = 40 s ago: true; lag true; next due in 60 s: true
claimed: older-but-later-pushed,old
after the claim: scheduled=1 due=1 in_flight=2 dead=0 oldest=set next=set
oldest due is the one pushed without delay (at about t0): true
all due claimed: scheduled=1 due=0 in_flight=3 dead=0 oldest=null next=set, lag 0.0
claims lapsed: scheduled=1 due=3 in_flight=0 dead=0 oldest=set next=set
counts() agrees: true
