--TEST--
RedisKit\serverInfo(): one entry per master (the one server, the Sentinel master, each master of a cluster) with memory against maxmemory, evictions, clients and keys, and the slow log's latest entries (newest first, the command as Redis logged it); one round trip per master; bad $slowlog is a ValueError
--FILE--
<?php
require __DIR__ . '/_rk.inc';
// the shared server (or cluster, or Sentinel master): one entry per master
$c = rk_conn();
$masters = is_array($c) && isset($c['cluster']) ? 3 : 1;
$cmd0 = RedisKit\stats()['commands'];
$v = RedisKit\serverInfo($c, 3);
echo "entries = masters: ", var_export(count($v) === $masters, true), "; commands: ", RedisKit\stats()['commands'] - $cmd0, " per master: ",
    var_export(RedisKit\stats()['commands'] - $cmd0 === 3 * $masters, true), "\n";
foreach ($v as $s) {
    rk_assert(is_int($s['used_memory']) && $s['used_memory'] > 0, 'used_memory');
    rk_assert(is_int($s['maxmemory']) && is_string($s['maxmemory_policy']), 'maxmemory');
    rk_assert(($s['role'] ?? null) === 'master', 'role: ' . json_encode($s['role'] ?? null));
    rk_assert(isset($s['redis_version']) || isset($s['valkey_version']), 'a version');
    rk_assert(is_array($s['slowlog']) && count($s['slowlog']) <= 3 && is_int($s['slowlog_len']), 'slowlog');
    rk_assert(is_string($s['address']) && $s['address'] !== '' && !str_contains($s['address'], 'secret'), 'address');
}
echo "a distinct address per master: ", var_export(count(array_unique(array_column($v, 'address'))) === $masters, true), "\n";

// a private server: maxmemory, evictions, a slow log of everything
$s = new RkServer(['--maxmemory', '2mb', '--maxmemory-policy', 'allkeys-lru', '--slowlog-log-slower-than', '0', '--slowlog-max-len', '1000']);
$raw = $s->raw();
$v = RedisKit\serverInfo($s->url, 0)[0];
echo "maxmemory: ", $v['maxmemory'], " ", $v['maxmemory_policy'], "; evicted ", $v['evicted_keys'], "; slowlog none asked: ", count($v['slowlog']), "\n";
$big = str_repeat('x', 10000);
for ($i = 0; $i < 400; $i++) {
    $raw->cmd('SET', "k$i", $big);
}
$raw->cmd('SET', 'marker', "<b>it's\x00binary</b>");
$v = RedisKit\serverInfo($s->url, 5)[0];
echo "after 4 MB into 2 MB: evicted > 0: ", var_export($v['evicted_keys'] > 0, true), "; used <= about maxmemory: ",
    var_export($v['used_memory'] < 3 * 1024 * 1024, true), "; keys in db0 < 400: ", var_export($v['keys']['db0'] < 400, true), "\n";
// newest first (this call's own INFO is the newest: it ran before SLOWLOG GET)
$e = $v['slowlog'];
echo "5 newest entries, ids descending: ", count($e), " ", var_export($e[0]['id'] > $e[4]['id'], true), "\n";
$marker = array_values(array_filter($e, fn($x) => $x['command'][0] === 'SET' && $x['command'][1] === 'marker'));
echo "the marker SET, binary value kept: ", var_export(($marker[0]['command'][2] ?? null) === "<b>it's\x00binary</b>", true),
    "; duration in seconds: ", var_export(is_float($marker[0]['duration']) && $marker[0]['duration'] < 1, true),
    "; time is now: ", var_export(abs($marker[0]['time'] - time()) < 60, true), "\n";
echo "slowlog_len counts all: ", var_export($v['slowlog_len'] >= 400, true), "\n";

echo rk_ex(rk_catch(fn() => RedisKit\serverInfo($s->url, 129))), "\n";
echo rk_ex(rk_catch(fn() => RedisKit\serverInfo($s->url, -1))), "\n";
echo get_class(rk_catch(fn() => RedisKit\serverInfo('redis://127.0.0.1:' . rk_free_port() . '?timeout=0.5'))), "\n";
?>
--EXPECTF--
entries = masters: true; commands: %d per master: true
a distinct address per master: true
maxmemory: 2097152 allkeys-lru; evicted 0; slowlog none asked: 0
after 4 MB into 2 MB: evicted > 0: true; used <= about maxmemory: true; keys in db0 < 400: true
5 newest entries, ids descending: 5 true
the marker SET, binary value kept: true; duration in seconds: true; time is now: true
slowlog_len counts all: true
ValueError: serverInfo(): $slowlog must be between 0 and 128, got 129
ValueError: serverInfo(): $slowlog must be between 0 and 128, got -1
RedisKit\ConnectionException
