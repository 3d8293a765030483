--TEST--
DelayQueue under an allkeys-lru maxmemory-policy: what losing each of its keys to eviction does (jobs in that key are lost, never mixed up), pop/ack/dead/counts never throw or loop, due remnants do not take a pop's slots, and ids are never handed out again when the id counter is evicted while jobs remain; then real evictions by a filler flood on a 4 MB server
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$s = new RkServer(['--maxmemory-policy', 'allkeys-lru', '--maxmemory-samples', '10']);
$raw = $s->raw();
$pushed = [];                                   // id => payload, every job this test ever pushed
$errors = [];
/** $fn()'s value; an exception is recorded (none is expected) and gives null */
function call(callable $fn) {
    global $errors;
    try {
        return $fn();
    } catch (Throwable $e) {
        $errors[] = get_class($e) . ': ' . $e->getMessage();
        return null;
    }
}
function remember(array $ids, array $payloads): void {
    global $pushed, $errors;
    foreach (array_values($ids) as $i => $id) {
        if (isset($pushed[$id])) $errors[] = "id $id handed out twice";
        $pushed[$id] = array_values($payloads)[$i];
    }
}
/** payloads of the jobs, checked against what was pushed under each id */
function payloads(array $jobs): array {
    global $pushed, $errors;
    $out = [];
    foreach ($jobs as $j) {
        if (($pushed[$j['id']] ?? null) !== $j['payload']) $errors[] = "job {$j['id']} came back as '{$j['payload']}', pushed as '" . ($pushed[$j['id']] ?? '?') . "'";
        $out[] = $j['payload'];
    }
    sort($out);
    return $out;
}
function b(?bool $v): string { return $v === null ? 'null' : ($v ? 'true' : 'false'); }

echo "-- one key lost (as eviction loses it: the whole key at once), then the queue used on\n";
foreach (['none', 'schedule', 'ready', 'payload', 'inflight', 'dead', 'attempts', 'claim', 'seq', 'wake'] as $lost) {
    $name = "ev_$lost";
    $pushed = [];                               // ids are per queue
    $keys = ['schedule' => $name] + array_combine(
        ['ready', 'inflight', 'dead', 'payload', 'attempts', 'claim', 'seq', 'wake'],
        array_map(fn($k) => '{' . $name . "}:$k", ['ready', 'inflight', 'dead', 'payload', 'attempts', 'claim', 'seq', 'wake']));
    $a = new RedisKit\DelayQueue($name, $s->url, ['visibility_timeout' => 60, 'max_attempts' => 5, 'backoff' => 0]);
    $m1 = new RedisKit\DelayQueue($name, $s->url, ['visibility_timeout' => 0.05, 'max_attempts' => 1]);
    $m2 = new RedisKit\DelayQueue($name, $s->url, ['visibility_timeout' => 0.05, 'backoff' => 3600]);
    remember([$dead = $a->push('dead')], ['dead']);
    $m1->pop();
    rk_until(fn() => $m1->counts()['dead'] === 1, 10.0);           // dead (attempts 1)
    remember([$lapsed = $a->push('lapsed')], ['lapsed']);
    $m2->pop();
    rk_until(fn() => $m2->counts()['scheduled'] === 1, 10.0);      // lapsed, back in 30..60 min (attempts 1, claim kept)
    remember([$flight = $a->push('flight')], ['flight']);
    $a->pop();                                                     // in flight
    remember([$due = $a->push('due'), $later = $a->push('later', 3600)], ['due', 'later']);
    $raw->cmd('LPUSH', $keys['wake'], '1');
    if ($lost !== 'none') $raw->cmd('DEL', $keys[$lost]);

    $ids = call(fn() => $a->pushMany(['new1', 'new2']));
    remember($ids ?? [], ['new1', 'new2']);
    echo str_pad($lost, 9), ' ack flight ', b(call(fn() => $a->ack($flight))), ', late ack lapsed ', b(call(fn() => $a->ack($lapsed)));
    $got = call(fn() => $a->pop(2)) ?? [];                         // 'due', 'new1', 'new2' due: the first two
    $got = array_merge($got, call(fn() => $a->pop(10)) ?? []);
    foreach ($got as $j) call(fn() => $a->ack($j['id']));
    echo ', popped ', json_encode(payloads($got));
    $d = call(fn() => $a->dead()) ?? [];
    echo ', dead ', json_encode(payloads($d)), ' attempts ', json_encode(array_column($d, 'attempts'));
    echo ', requeued ', call(fn() => $a->requeueDead());
    $got = call(fn() => $a->pop(10)) ?? [];
    foreach ($got as $j) call(fn() => $a->ack($j['id']));
    echo ', then ', json_encode(payloads($got));
    echo ', cancel later ', b(call(fn() => $a->cancel($later))), ', cancel lapsed ', b(call(fn() => $a->cancel($lapsed)));
    echo ', counts ', implode('/', call(fn() => $a->counts()) ?? []);
    $left = $raw->cmd('HKEYS', $keys['payload']);
    sort($left);
    echo ', payloads left ', json_encode(array_map(fn($id) => $pushed[$id] ?? "?$id", $left)), "\n";
    $a->purge();
}
var_dump($errors);

echo "-- remnants (due ids whose payload is gone) do not take a pop's slots\n";
$pushed = [];
$q = new RedisKit\DelayQueue('rem', $s->url);
$q->pushMany(array_fill(0, 900, 'gone'));
$raw->cmd('DEL', '{rem}:payload');
remember($q->pushMany(['kept1', 'kept2']), ['kept1', 'kept2']);
var_dump(payloads($q->pop(2)));                 // found behind the 900 remnants the pop dropped on the way
// more than one pop drops (1000): a pop stays bounded, a waiting pop goes on
$q->pushMany(array_fill(0, 1500, 'gone'));
$raw->cmd('DEL', '{rem}:payload');
remember($q->pushMany(['kept3', 'kept4']), ['kept3', 'kept4']);
var_dump(payloads($q->pop(2)));
var_dump($q->counts()['due']);
var_dump(payloads($q->pop(2, 5.0)));
var_dump($q->counts(), $errors);
$q->purge();

echo "-- real eviction of the id counter while jobs remain: new ids never repeat old ones\n";
// allkeys-lru evicts the coldest key it samples: the counter is left cold
// while the jobs (in the ready list: pushed without a delay) and the
// payloads are used, then a filler flood starts.
// Sampling is approximate: a try that lost another queue key first proves
// nothing about the counter and is made again (the checks hold in every try).
$seqKey = '{seq}:seq';
$filler = str_repeat('f', 100000);
$hit = 0;
for ($try = 0; $try < 10 && !$hit; $try++) {
    $raw->cmd('CONFIG', 'SET', 'maxmemory', '0');
    $raw->cmd('FLUSHALL');
    $pushed = [];
    $q = new RedisKit\DelayQueue('seq', $s->url);
    $old = array_map(fn($i) => "old$i", range(1, 50));
    remember($oldIds = $q->pushMany($old), $old);
    $raw->cmd('DEL', '{seq}:wake');
    if (!rk_until(fn() => $raw->cmd('OBJECT', 'IDLETIME', $seqKey) >= 2, 20.0)) throw new RuntimeException('the counter never aged');
    $raw->cmd('CONFIG', 'SET', 'maxmemory', '4mb');
    for ($i = 0; $i < 2000 && $raw->cmd('EXISTS', $seqKey); $i++) {
        $raw->cmd('TOUCH', '{seq}:ready', '{seq}:payload');
        $raw->cmd('SET', "filler:$i", $filler);
    }
    $raw->cmd('CONFIG', 'SET', 'maxmemory', '0');
    $intact = $raw->cmd('EXISTS', '{seq}:ready', '{seq}:payload') === 2;
    $hit = (int)($intact && !$raw->cmd('EXISTS', $seqKey));
    $new = array_map(fn($i) => "new$i", range(1, 50));
    remember($ids = call(fn() => $q->pushMany($new)) ?? [], $new);
    rk_assert(count($ids) === 50 && !array_intersect($ids, $oldIds), 'new ids are new');
    $got = [];
    while ($j = call(fn() => $q->pop(100))) $got = array_merge($got, $j);
    payloads($got);                             // each one as pushed under its id
    rk_assert(count(array_unique(array_column($got, 'id'))) === count($got), 'each job once');
    if ($intact) rk_assert(count($got) === 100, 'all 100 jobs delivered: ' . count($got));
}
var_dump($hit, $errors);

echo "-- a filler flood evicts whatever is coldest, queue keys included: the queue never throws and never mixes jobs up\n";
$raw->cmd('FLUSHALL');
$pushed = [];
$q = new RedisKit\DelayQueue('flood', $s->url, ['visibility_timeout' => 0.2, 'backoff' => 0, 'max_attempts' => 3]);
$evicted = 0;
$queueKeysLost = 0;
$delivered = 0;
for ($round = 0; $round < 6; $round++) {
    $raw->cmd('CONFIG', 'SET', 'maxmemory', '0');
    $batch = array_map(fn($i) => "r$round-$i-" . str_repeat('p', 200), range(1, 300));
    remember(call(fn() => $q->pushMany($batch)) ?? [], $batch);
    foreach (call(fn() => $q->pop(100)) ?? [] as $j) {        // some acked, some left in flight to lapse
        payloads([$j]);
        $delivered++;
        if ($delivered % 2) call(fn() => $q->ack($j['id']));
    }
    $before = $raw->cmd('KEYS', '*flood*');
    // the queue idles (its keys age) while another app fills the server
    rk_until(fn() => min(array_map(fn($k) => $raw->cmd('OBJECT', 'IDLETIME', $k), $before)) >= 1, 20.0);
    $raw->cmd('CONFIG', 'SET', 'maxmemory', '4mb');
    for ($i = 0; $i < 300; $i++) $raw->cmd('SET', "filler:$round:$i", $filler);
    preg_match('/evicted_keys:(\d+)/', $raw->cmd('INFO', 'stats'), $m);
    $evicted = (int)$m[1];
    $queueKeysLost += count(array_diff($before, $raw->cmd('KEYS', '*flood*')));
    $raw->cmd('CONFIG', 'SET', 'maxmemory', '0');
    // the queue is used again
    for ($k = 0; $k < 5; $k++) {
        foreach (call(fn() => $q->pop(200, 0.3)) ?? [] as $j) {
            payloads([$j]);
            $delivered++;
            call(fn() => $q->ack($j['id']));
        }
        call(fn() => $q->counts());
        call(fn() => $q->dead());
    }
    $raw->cmd('FLUSHALL');                      // fillers gone; the next round starts afresh (ids restart: a new queue)
    $pushed = [];
}
rk_assert($evicted > 1000, "evictions happened: $evicted");
rk_assert($queueKeysLost > 0, "queue keys were among them: $queueKeysLost");
rk_assert($delivered >= 600, "jobs were delivered: $delivered");
var_dump($errors);
?>
--EXPECT--
-- one key lost (as eviction loses it: the whole key at once), then the queue used on
none      ack flight true, late ack lapsed true, popped ["due","new1","new2"], dead ["dead"] attempts [1], requeued 1, then ["dead"], cancel later true, cancel lapsed false, counts 0/0/0/0, payloads left []
schedule  ack flight true, late ack lapsed true, popped ["due","new1","new2"], dead ["dead"] attempts [1], requeued 1, then ["dead"], cancel later false, cancel lapsed false, counts 0/0/0/0, payloads left ["later"]
ready     ack flight true, late ack lapsed true, popped ["new1","new2"], dead ["dead"] attempts [1], requeued 1, then ["dead"], cancel later true, cancel lapsed false, counts 0/0/0/0, payloads left ["due"]
payload   ack flight true, late ack lapsed true, popped ["new1","new2"], dead [] attempts [], requeued 0, then [], cancel later true, cancel lapsed false, counts 0/0/0/0, payloads left []
inflight  ack flight false, late ack lapsed true, popped ["due","new1","new2"], dead ["dead"] attempts [1], requeued 1, then ["dead"], cancel later true, cancel lapsed false, counts 0/0/0/0, payloads left ["flight"]
dead      ack flight true, late ack lapsed true, popped ["due","new1","new2"], dead [] attempts [], requeued 0, then [], cancel later true, cancel lapsed false, counts 0/0/0/0, payloads left ["dead"]
attempts  ack flight true, late ack lapsed true, popped ["due","new1","new2"], dead ["dead"] attempts [0], requeued 1, then ["dead"], cancel later true, cancel lapsed false, counts 0/0/0/0, payloads left []
claim     ack flight true, late ack lapsed false, popped ["due","new1","new2"], dead ["dead"] attempts [1], requeued 1, then ["dead"], cancel later true, cancel lapsed true, counts 0/0/0/0, payloads left []
seq       ack flight true, late ack lapsed true, popped ["due","new1","new2"], dead ["dead"] attempts [1], requeued 1, then ["dead"], cancel later true, cancel lapsed false, counts 0/0/0/0, payloads left []
wake      ack flight true, late ack lapsed true, popped ["due","new1","new2"], dead ["dead"] attempts [1], requeued 1, then ["dead"], cancel later true, cancel lapsed false, counts 0/0/0/0, payloads left []
array(0) {
}
-- remnants (due ids whose payload is gone) do not take a pop's slots
array(2) {
  [0]=>
  string(5) "kept1"
  [1]=>
  string(5) "kept2"
}
array(0) {
}
int(502)
array(2) {
  [0]=>
  string(5) "kept3"
  [1]=>
  string(5) "kept4"
}
array(4) {
  ["scheduled"]=>
  int(0)
  ["due"]=>
  int(0)
  ["in_flight"]=>
  int(4)
  ["dead"]=>
  int(0)
}
array(0) {
}
-- real eviction of the id counter while jobs remain: new ids never repeat old ones
int(1)
array(0) {
}
-- a filler flood evicts whatever is coldest, queue keys included: the queue never throws and never mixes jobs up
array(0) {
}
