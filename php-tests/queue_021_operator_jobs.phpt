--TEST--
DelayQueue operator API: jobs() lists each state in order, page by page, with cursors that survive the cursor's job leaving (ties of one due time and the ready list included); job() finds a job in every state; requeueDead() and deleteDead() by id, by list and all; bad input
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$ns = rk_ns();
$raw = new RkRaw();
$q = new RedisKit\DelayQueue('q', rk_conn(), ['prefix' => $ns, 'max_attempts' => 1, 'consumer' => 'worker-1']);
[$s] = $raw->cmd('TIME');
$t0 = (int)$s;

// all pages of one state, $limit at a time; $between runs after each page
$all = function (string $state, int $limit, ?callable $between = null, int $preview = 256) use ($q) {
    $out = [];
    $cursor = null;
    $pages = 0;
    do {
        $page = $q->jobs($state, $cursor, $limit, $preview);
        rk_assert(count($page['jobs']) <= $limit, 'a page holds at most $limit jobs');
        $out = array_merge($out, $page['jobs']);
        $cursor = $page['cursor'];
        $pages++;
        if ($between) $between($page['jobs']);
    } while ($cursor !== null && $pages < 1000);
    return $out;
};

// scheduled: 30 jobs with one due time (ties, in id order), then 5 with
// falling due times pushed after them
$tied = $q->pushMany(array_map(fn($i) => "tied-$i", range(1, 30)), 3600);
$falling = [];
for ($i = 5; $i >= 1; $i--) $falling[] = $q->pushAt("falling-$i", $t0 + 1000 + $i);
$want = array_merge(array_reverse($falling), $tied);   // due t0+1001.. first, then the ties at now+3600
$got = $all('scheduled', 7);
echo "scheduled, 7 a page: ", var_export(array_column($got, 'id') === $want, true), "\n";
echo "states: ", implode(',', array_unique(array_column($got, 'state'))), "\n";
echo "times ascending: ", var_export(array_column($got, 'at') === (function ($a) { sort($a); return $a; })(array_column($got, 'at')), true), "\n";
printf("falling-1 due at t0+1001: %s\n", var_export(abs($got[0]['at'] - ($t0 + 1001)) < 0.01, true));

// the cursor's own job leaves between pages (cancelled): the next page
// still starts right after it
$seen = [];
$got = $all('scheduled', 4, function ($jobs) use ($q, &$seen) {
    if ($jobs) {
        $last = end($jobs)['id'];
        $seen[] = $last;
        if (count($seen) % 2 === 1) $q->cancel($last);
    }
});
echo "scheduled while the cursor's job is cancelled: ", var_export(array_column($got, 'id') === $want, true), "\n";
$want = array_values(array_filter($want, fn($id) => !in_array($id, array_filter($seen, fn($k) => $k % 2 === 0, ARRAY_FILTER_USE_KEY), true)));
echo "what is left lists once each: ", var_export(array_column($all('scheduled', 6), 'id') === $want, true), "\n";

// the cursor's job moves to a later time between pages (cancelled and
// pushed again under a new id is all a scheduled job can do; a claimed one is
// retried): the next page still starts after the cursor's old place
$q2 = new RedisKit\DelayQueue('q2', rk_conn(), ['prefix' => $ns, 'consumer' => 'w2']);
$first = $q2->pushAt('first', $t0 + 100);
$ids2 = $q2->pushMany(['x1', 'x2', 'x3', 'x4'], 200);
$p1 = $q2->jobs('scheduled', null, 2);
echo "page 1: ", implode(',', array_column($p1['jobs'], 'payload')), "\n";
$q2->pushAt('moved', $t0 + 50);                          // before the cursor: not on later pages
$moved = [];
foreach ($q2->jobs('scheduled', $p1['cursor'], 10)['jobs'] as $j) $moved[] = $j['payload'];
echo "page 2: ", implode(',', $moved), "\n";
// an in-flight listing whose cursor job's claim is extended (touch(): same
// member, later deadline) between pages: the rest still follows, and the
// touched job shows again at its new place
$c3 = $q2->pushMany(['f1', 'f2', 'f3']);
$redisMs = function () use ($raw) {
    [$s, $us] = $raw->cmd('TIME');
    return intdiv((int)$s * 1000000 + (int)$us, 1000);
};
$nextMs = function () use ($redisMs) {                    // until the Redis clock has moved on
    $now = $redisMs();
    rk_assert(rk_until(fn() => $redisMs() > $now + 1, 5), 'the Redis clock moves');
};
foreach ($c3 as $_) {
    $q2->pop(1);
    $nextMs();                                           // claimed at different milliseconds
}
$p1 = $q2->jobs('in_flight', null, 1);
echo "in flight page 1: ", implode(',', array_column($p1['jobs'], 'payload')), "\n";
$q2->touch($p1['jobs'][0]['id']);
echo "in flight page 2: ", implode(',', array_column($q2->jobs('in_flight', $p1['cursor'], 10)['jobs'], 'payload')), "\n";
$q2->purge();

// due: the ready list (pushed without a delay) merged with due jobs of the
// schedule, by due time
$past = $q->pushAt('past', $t0 - 50);
$ready = [];
for ($i = 1; $i <= 12; $i++) $ready[] = $q->push("ready-$i");
$older = $q->pushAt('older', $t0 - 100);
$got = $all('due', 5);
echo "due, 5 a page: ", var_export(array_column($got, 'id') === array_merge([$older, $past], $ready), true), "\n";
$got2 = $all('due', 3, function ($jobs) use ($q) {
    if ($jobs) $q->cancel(end($jobs)['id']);     // every cursor job leaves
});
echo "due while each cursor's job is cancelled: ", var_export(array_column($got2, 'id') === array_column($got, 'id'), true), "\n";
$left = array_column($all('due', 100), 'id');
echo "due left: ", count($left), ", every third cancelled: ", var_export(count(array_intersect($left, array_column($got2, 'id'))) === count($left), true), "\n";

// payload previews and sizes
$big = $q->push(str_repeat('x', 1000) . 'END');
$page = $q->jobs('due', null, 1000, 10);
$j = array_values(array_filter($page['jobs'], fn($j) => $j['id'] === $big))[0];
echo "preview: ", $j['payload'], " size ", $j['size'], ", cursor ", var_export($page['cursor'], true), "\n";
$j = array_values(array_filter($q->jobs('due', null, 1000, 0)['jobs'], fn($j) => $j['id'] === $big))[0];
echo "no preview: '", $j['payload'], "' size ", $j['size'], "\n";

// in flight: claimed by this consumer, by claim deadline
$claimed = $q->pop(3);
$got = $all('in_flight', 2);
$ids = array_column($claimed, 'id');
sort($ids);   // one claim deadline: ties in id order
echo "in flight: ", var_export(array_column($got, 'id') === $ids, true),
    ", owner ", implode(',', array_unique(array_column($got, 'owner'))), "\n";
echo "claim deadline ~30 s away: ", var_export(abs($got[0]['at'] - $t0 - 30) < 5, true), "\n";

// dead: a retry of a job with max_attempts 1 dead-letters it
foreach ($ids as $id) $q->retry($id);   // dead-lettered in id order, whatever the clock
$dead = array_column($all('dead', 2), 'id');
echo "dead: ", var_export($dead === $ids, true), "\n";
echo "dead attempts: ", implode(',', array_column($q->jobs('dead')['jobs'], 'attempts')), "\n";

// job(): every state, and none
$show = function (?array $j) {
    if ($j === null) return 'null';
    return sprintf('%s attempts=%d at=%s owner=%s size=%d payload=%s', $j['state'], $j['attempts'],
        $j['at'] === null ? 'null' : 'set', var_export($j['owner'], true), $j['size'], substr($j['payload'], 0, 12));
};
$flight = $q->pop(1)[0];
$sched = end($q->jobs('scheduled', null, 1000)['jobs'])['id'];
$readyLeft = array_values(array_intersect($ready, array_column($q->jobs('due', null, 1000)['jobs'], 'id')));
$lastReady = end($readyLeft);
echo "job scheduled: ", $show($q->job($sched)), "\n";
echo "job due (ready list): ", $show($q->job($lastReady)), "\n";
echo "job due (schedule): ", $show($q->job($q->pushAt('due-sched', $t0 - 5))), "\n";
echo "job in flight: ", $show($q->job($flight['id'])), "\n";
echo "job dead: ", $show($q->job($dead[0])), "\n";
echo "job unknown: ", $show($q->job('0000000000000000')), ", glob characters: ", $show($q->job('*')), "\n";
printf("ready job's due time: %s\n", var_export(abs($q->job($lastReady)['at'] - $t0) < 5, true));

// requeueDead / deleteDead: by id, by list, all; ids that are not dead stay
$before = $q->counts();
echo "requeue a list (one dead, one scheduled, one unknown): ", $q->requeueDead([$dead[0], $sched, 'nope']), "\n";
echo "job requeued: ", $show($q->job($dead[0])), "\n";
echo "delete one: ", $q->deleteDead($dead[1]), ", again: ", $q->deleteDead($dead[1]), "\n";
echo "deleted job: ", $show($q->job($dead[1])), "\n";
echo "delete a scheduled job by deleteDead: ", $q->deleteDead([$sched]), ", still there: ", $q->job($sched)['state'], "\n";
echo "delete all: ", $q->deleteDead(), ", dead now ", $q->counts()['dead'], "\n";
echo "payloads left = jobs left: ", var_export((int)$raw->cmd('HLEN', "{{$ns}q}:payload") === array_sum($q->counts()), true), "\n";
echo "empty list: ", $q->requeueDead([]), $q->deleteDead([]), "\n";
$q->retry($flight['id']);
echo "requeue all: ", $q->requeueDead(null), ", dead now ", $q->counts()['dead'], "\n";

// one round trip each
$n = RedisKit\stats()['commands'];
$q->jobs('due');
$q->job($tied[0]);
echo "round trips: ", RedisKit\stats()['commands'] - $n, "\n";

// bad input
foreach ([
    fn() => $q->jobs('waiting'),
    fn() => $q->jobs('due', 'garbage'),
    fn() => $q->jobs('due', 'x:1'),
    fn() => $q->jobs('due', null, 0),
    fn() => $q->jobs('due', null, 1001),
    fn() => $q->jobs('due', null, 10, -1),
    fn() => $q->jobs('due', null, 10, 65537),
    fn() => $q->requeueDead([['nested']]),
    fn() => $q->deleteDead(array_fill(0, 10001, 'x')),
    fn() => $q->deleteDead(new stdClass()),
] as $f) {
    try {
        $f();
        echo "no error\n";
    } catch (Throwable $e) {
        echo get_class($e), ': ', $e->getMessage(), "\n";
    }
}
?>
--EXPECT--
scheduled, 7 a page: true
states: scheduled
times ascending: true
falling-1 due at t0+1001: true
scheduled while the cursor's job is cancelled: true
what is left lists once each: true
page 1: first,x1
page 2: x2,x3,x4
in flight page 1: f1
in flight page 2: f2,f3,f1
due, 5 a page: true
due while each cursor's job is cancelled: true
due left: 9, every third cancelled: true
preview: xxxxxxxxxx size 1003, cursor NULL
no preview: '' size 1003
in flight: true, owner worker-1
claim deadline ~30 s away: true
dead: true
dead attempts: 1,1,1
job scheduled: scheduled attempts=0 at=set owner=NULL size=7 payload=tied-29
job due (ready list): due attempts=0 at=set owner=NULL size=8 payload=ready-11
job due (schedule): due attempts=0 at=set owner=NULL size=9 payload=due-sched
job in flight: in_flight attempts=0 at=set owner='worker-1' size=7 payload=ready-3
job dead: dead attempts=1 at=set owner=NULL size=4 payload=past
job unknown: null, glob characters: null
ready job's due time: true
requeue a list (one dead, one scheduled, one unknown): 1
job requeued: due attempts=0 at=set owner=NULL size=4 payload=past
delete one: 1, again: 0
deleted job: null
delete a scheduled job by deleteDead: 0, still there: scheduled
delete all: 1, dead now 0
payloads left = jobs left: true
empty list: 00
requeue all: 1, dead now 0
round trips: 2
ValueError: DelayQueue::jobs: $state must be 'scheduled', 'due', 'in_flight' or 'dead', got waiting
ValueError: cursor must be the 'cursor' of a page jobs() returned
ValueError: cursor must be the 'cursor' of a page jobs() returned
ValueError: limit must be between 1 and 1000, got 0
ValueError: limit must be between 1 and 1000, got 1001
ValueError: preview must be between 0 and 65536 bytes, got -1
ValueError: preview must be between 0 and 65536 bytes, got 65537
ValueError: DelayQueue::requeueDead: $id element 0 is not a string (array given)
ValueError: DelayQueue::deleteDead: at most 10000 ids at once, got 10001
TypeError: RedisKit\DelayQueue::deleteDead(): Argument #1 ($id) must be of type array|string|null, stdClass given
