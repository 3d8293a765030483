--TEST--
RedisCache 'local' tier, staleness checker: a writer process changes a key as fast as it can while a reader process reads it through the tier; the reader is never served a value older than a write Redis completed before one of its own round trips, serves reads locally, and sees every write in the end
--FILE--
<?php
require __DIR__ . '/_rk.inc';
require __DIR__ . '/_staleness.inc';
$r = rk_staleness(rk_conn(), rk_ns(), 3.0);
var_dump($r['violations']);
rk_assert($r['writes'] > 100, "writes: {$r['writes']}");
rk_assert($r['reads'] > 1000, "reads: {$r['reads']}");
rk_assert($r['local_hits'] > 0, "local hits: {$r['local_hits']} of {$r['reads']}");
rk_assert($r['last_seen'] === $r['last_written'], "the last write seen: {$r['last_seen']} of {$r['last_written']}");
rk_assert(count($r['windows_us']) >= $r['writes'] - 1, 'every write seen (or overtaken by a later one)');
// a paced writer (1,000 writes/s): most reads are local
$p = rk_staleness(rk_conn(), rk_ns() . 'p:', 2.0, 1000);
var_dump($p['violations']);
rk_assert($p['local_hits'] > $p['reads'] / 2, "paced: local hits {$p['local_hits']} of {$p['reads']}");
rk_assert($p['last_seen'] === $p['last_written'], "paced: the last write seen: {$p['last_seen']} of {$p['last_written']}");
?>
--EXPECT--
array(0) {
}
array(0) {
}
