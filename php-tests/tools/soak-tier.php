<?php
// make soak's local-tier phase: one CLI process reads CALLS (argv[1]) random
// keys out of 40,000 values of 100 to 1,000 bytes (about 22 MB in Redis)
// through a RedisCache whose local tier may hold MAX_BYTES (argv[2]), while
// every 50th call another cache object (no tier, as another process)
// rewrites a random key, so the tier keeps filling, evicting and being
// invalidated. Every value read is checked against what was written. Prints
// JSON: calls, bad reads, local hits, VmRSS before the first read and at
// the end (kB).
declare(strict_types=1);
[$calls, $max] = array_map('intval', array_slice($argv, 1, 2));
$rss = function (): int {
    foreach (file('/proc/self/status') as $l) if (str_starts_with($l, 'VmRSS:')) return (int)preg_replace('/\D/', '', $l);
    return 0;
};
const KEYS = 40000;
$value = fn(int $k, int $gen) => str_pad("$k:$gen:", 100 + ($k * 37) % 900, 'x');
$writer = new RedisKit\RedisCache('soakt', null, ['serializer' => 'none']);
$gen = array_fill(0, KEYS, 0);
for ($k = 0; $k < KEYS; $k += 1000) {
    $batch = [];
    for ($i = $k; $i < $k + 1000; $i++) $batch["k$i"] = $value($i, 0);
    $writer->setMany($batch);
}
$c = new RedisKit\RedisCache('soakt', null, ['serializer' => 'none', 'local' => ['max_bytes' => $max]]);
$c->get('warm-up');   // its connection opened, nothing kept yet
gc_collect_cycles();
$start = $rss();
$bad = 0;
$h0 = $c->stats()['local_hits'];
mt_srand(7);
for ($i = 0; $i < $calls; $i++) {
    if ($i % 50 === 49) {
        $k = mt_rand(0, KEYS - 1);
        $writer->set("k$k", $value($k, ++$gen[$k]));
    }
    // a skewed pick: a hot tenth of the keys gets half the reads
    $k = mt_rand(0, 1) ? mt_rand(0, KEYS / 10 - 1) : mt_rand(0, KEYS - 1);
    $bad += $c->get("k$k") === $value($k, $gen[$k]) ? 0 : 1;
}
gc_collect_cycles();
echo json_encode(['calls' => $calls, 'bad' => $bad, 'local_hits' => $c->stats()['local_hits'] - $h0,
    'rss_start_kb' => $start, 'rss_end_kb' => $rss(), 'max_kb' => intdiv($max, 1024)]), "\n";
