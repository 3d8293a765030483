--TEST--
RedisLeaderboard under maxmemory + noeviction (a private server): a write refused for memory is a RedisKit\Exception and writes nothing on every board shape; a setScores batch that crosses the limit part-way is written whole or not at all; remove and reads still work
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$s = new RkServer(['--maxmemory-policy', 'noeviction']);
$raw = $s->raw();
$used = fn() => (int)preg_replace('/.*\nused_memory:(\d+).*/s', '$1', $raw->cmd('INFO', 'memory'));
$limit = fn(int $bytes) => $raw->cmd('CONFIG', 'SET', 'maxmemory', (string)$bytes);
// every key of the server with its content and whether it has a TTL: "nothing written" means this is unchanged
$snapshot = function () use ($raw) {
    $keys = $raw->cmd('KEYS', '*');
    sort($keys);
    $out = [];
    foreach ($keys as $k) $out[$k] = [$raw->cmd('DUMP', $k), $raw->cmd('PTTL', $k) > 0];
    return $out;
};
$members = function (string $tag, int $n, int $from = 0) {
    $out = [];
    for ($i = $from; $i < $from + $n; $i++) $out[$tag . str_pad((string)$i, 60, '.', STR_PAD_LEFT)] = $i % 97;
    return $out;
};
$isOom = fn(?Throwable $e) => $e instanceof RedisKit\Exception && str_contains($e->getMessage(), 'OOM');

$shapes = [];
foreach (['desc', 'asc'] as $order) {
    foreach (['ordinal', 'competition', 'dense'] as $ranking) {
        foreach (['lexical', 'earliest'] as $ties) $shapes[] = ['order' => $order, 'ranking' => $ranking, 'ties' => $ties];
    }
}
$shapes[] = ['ttl' => 600];                                    // plain data, script writes
$shapes[] = ['ties' => 'earliest', 'ranking' => 'dense', 'periods' => ['daily', 'weekly', 'monthly'], 'ttl' => 600];

$ok = true;
$outcomes = ['nothing' => 0, 'all' => 0];
foreach ($shapes as $i => $opts) {
    $label = json_encode($opts);
    $limit(0);
    $raw->cmd('FLUSHALL');
    $lb = new RedisKit\RedisLeaderboard("b$i", $s->url, $opts);
    $lb->setScores(['keep' => 5, 'tie' => 5, 'low' => 1]);

    // 1. already over the limit: every score write is refused and changes nothing
    $top = $lb->top(3);
    $before = $snapshot();
    $limit(1);
    $writes = [
        'setScore new' => fn() => $lb->setScore('new', 3),
        'setScore existing' => fn() => $lb->setScore('keep', 7),
        'setScore same score' => fn() => $lb->setScore('keep', 5),
        'incrementScore existing' => fn() => $lb->incrementScore('low', 2),
        'incrementScore new' => fn() => $lb->incrementScore('new', 2),
        'setScoreIfBetter' => fn() => $lb->setScoreIfBetter('low', 100),
        'setScores one chunk' => fn() => $lb->setScores(['keep' => 8, 'new' => 9]),
        'setScores 3 chunks' => fn() => $lb->setScores($members('m', 2500)),
    ];
    foreach ($writes as $what => $w) {
        $e = rk_catch($w);
        if (!$isOom($e)) { echo "$label $what over the limit: ", rk_ex($e), "\n"; $ok = false; }
        if (($now = $snapshot()) != $before) { echo "$label $what over the limit wrote something\n"; $ok = false; $before = $now; }
    }
    // reads and remove (which frees memory) still work
    if ($lb->top(3) !== $top || count($top) !== 3) { echo "$label top under OOM: ", json_encode($lb->top(3)), "\n"; $ok = false; }
    $e = rk_catch(function () use ($lb, &$removed) { $removed = $lb->remove('tie'); });
    if ($e || $removed !== 1 || $lb->score('tie') !== null || $lb->count() !== 2) { echo "$label remove under OOM: ", rk_ex($e), "\n"; $ok = false; }

    // 2. a batch of 5 chunks that crosses the limit part-way: the limit is
    // set 1.5 chunks' worth of memory above what is used now, so the first
    // chunk alone fits and the whole batch does not
    $limit(0);
    $cal = new RedisKit\RedisLeaderboard("cal$i", $s->url, $opts);
    $u0 = $used();
    $cal->setScores($members('c', 1000));
    $chunk = $used() - $u0;
    foreach ($raw->cmd('KEYS', "*cal$i*") as $k) $raw->cmd('DEL', $k);
    $before = $snapshot();
    $n0 = $lb->count();
    $limit($used() + (int)($chunk * 1.5));
    $batch = $members('x', 5000);
    $e = rk_catch(fn() => $lb->setScores($batch));
    $limit(0);
    if ($e) {
        $outcomes['nothing']++;
        if (!$isOom($e)) { echo "$label crossing batch: ", rk_ex($e), "\n"; $ok = false; }
        if ($snapshot() != $before) { echo "$label crossing batch failed but wrote ", $lb->count() - $n0, " of 5000\n"; $ok = false; }
    } else {
        $outcomes['all']++;
        $bad = 0;
        foreach ($batch as $m => $sc) if ($lb->score((string)$m) !== (float)$sc) $bad++;
        if ($lb->count() !== $n0 + 5000 || $bad) { echo "$label crossing batch: count ", $lb->count() - $n0, ", $bad wrong\n"; $ok = false; }
    }
    $lb->clear();
}
$limit(0);
echo count($shapes), " board shapes; crossing batches: ", array_sum($outcomes), " whole or nothing\n";
var_dump($ok);
$s->stop();
?>
--EXPECT--
14 board shapes; crossing batches: 14 whole or nothing
bool(true)
