--TEST--
DelayQueue under maxmemory with noeviction: push, pushAt and pushMany throw RedisKit\Exception and write nothing (a pushMany of thousands of jobs, sent as slices of 1000, is admitted or refused at its start as one script is: all of it or none, never a part, even when it takes Redis past maxmemory half-way), while pop, ack, touch, retry, cancel, requeueDead, counts, dead and purge keep working so consumers can drain the queue
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$s = new RkServer(['--maxmemory-policy', 'noeviction']);
$raw = $s->raw();
function dump_state(RkRaw $raw): array {
    $out = [];
    $keys = $raw->cmd('KEYS', '*');
    sort($keys);
    foreach ($keys as $k) {
        if (str_ends_with($k, ':wake')) continue;          // wake-up hints only
        $out[$k] = match ($raw->cmd('TYPE', $k)) {
            'zset' => $raw->cmd('ZRANGE', $k, '0', '-1', 'WITHSCORES'),
            'list' => $raw->cmd('LRANGE', $k, '0', '-1'),
            'hash' => (function ($h) { $a = []; for ($i = 0; $i < count($h); $i += 2) $a[$h[$i]] = $h[$i + 1]; ksort($a); return $a; })($raw->cmd('HGETALL', $k)),
            default => $raw->cmd('GET', $k),
        };
    }
    return $out;
}
function used_memory(RkRaw $raw): int {
    preg_match('/^used_memory:(\d+)/m', $raw->cmd('INFO', 'memory'), $m);
    return (int)$m[1];
}
function refused(callable $fn): string {
    $e = rk_catch($fn);
    if (!$e) return 'no exception';
    return get_class($e) . (str_contains($e->getMessage(), 'OOM') ? ' OOM' : ' (other: ' . $e->getMessage() . ')')
        . (str_contains($e->getMessage(), 'no job was written') ? ', no job was written' : '');
}

/** $fn()'s value, or the exception it threw as a string */
function val(callable $fn) {
    try {
        return $fn();
    } catch (Throwable $e) {
        return get_class($e) . ': ' . $e->getMessage();
    }
}

$q = new RedisKit\DelayQueue('oom', $s->url, ['visibility_timeout' => 60, 'max_attempts' => 5]);
$short = new RedisKit\DelayQueue('oom', $s->url, ['visibility_timeout' => 0.05, 'max_attempts' => 1]);
// one job in every state
$deadId = $short->push('dead');
$short->pop();
rk_until(fn() => $short->counts()['dead'] === 1, 10.0);
$flight = [$q->push('ack me'), $q->push('touch me'), $q->push('retry me')];
var_dump(count($q->pop(3)));
$due = $q->push('due');
$later = $q->push('later', 3600);
var_dump($q->counts());

echo "-- over maxmemory: producers are refused, nothing is written\n";
$raw->cmd('CONFIG', 'SET', 'maxmemory', '1');
$before = dump_state($raw);
echo refused(fn() => $q->push('x')), "\n";
echo refused(fn() => $q->push('x', 10)), "\n";
echo refused(fn() => $q->pushAt('x', time() + 60)), "\n";
echo refused(fn() => $q->pushMany(['a', 'b', 'c'])), "\n";
echo refused(fn() => $q->pushMany(array_fill(0, 2500, 'many'))), "\n";
var_dump(dump_state($raw) === $before);

echo "-- consumers keep working\n";
var_dump(val(fn() => $q->counts()));
var_dump(val(fn() => $q->touch($flight[1])));
var_dump(val(fn() => $q->ack($flight[0])));
var_dump(val(fn() => $q->retry($flight[2], 0)));
var_dump(val(fn() => array_column($q->pop(5), 'payload')));
var_dump(val(fn() => $q->requeueDead($deadId)));
var_dump(val(fn() => array_column($q->pop(5, 0.1), 'payload')));
var_dump(val(fn() => $q->cancel($later)));
var_dump(val(fn() => count($q->dead())));
var_dump(val(fn() => $q->counts()));
var_dump(val(fn() => $q->purge()));
var_dump(val(fn() => $q->counts()));
echo refused(fn() => $q->push('still full')), "\n";

echo "-- a batch that crosses maxmemory half-way is written whole (admitted at its start, as Redis admits one script)\n";
$raw->cmd('CONFIG', 'SET', 'maxmemory', '0');
// 3 MB of room; the batch is 3,000 payloads of 2 KB (over 6 MB once stored)
$max = used_memory($raw) + 3 * 1024 * 1024;
$raw->cmd('CONFIG', 'SET', 'maxmemory', (string)$max);
$ids = val(fn() => $q->pushMany(array_fill(0, 3000, str_repeat('x', 2048))));
var_dump(is_array($ids) ? count($ids) : $ids, $q->counts()['due'], $raw->cmd('HLEN', '{oom}:payload'));
var_dump(used_memory($raw) > $max);
$seq = $raw->cmd('GET', '{oom}:seq');
echo refused(fn() => $q->push('one more')), "\n";
echo refused(fn() => $q->pushMany(array_fill(0, 3000, 'more'))), "\n";
var_dump($q->counts()['due'], $raw->cmd('GET', '{oom}:seq') === $seq);

echo "-- room again: pushes work\n";
$raw->cmd('CONFIG', 'SET', 'maxmemory', '0');
$id = $q->push('after');
$n = 0;
while ($j = $q->pop(1000)) $n += count($j);
var_dump(strcmp($id, $later) > 0, $n);
?>
--EXPECT--
int(3)
array(4) {
  ["scheduled"]=>
  int(1)
  ["due"]=>
  int(1)
  ["in_flight"]=>
  int(3)
  ["dead"]=>
  int(1)
}
-- over maxmemory: producers are refused, nothing is written
RedisKit\Exception OOM, no job was written
RedisKit\Exception OOM, no job was written
RedisKit\Exception OOM, no job was written
RedisKit\Exception OOM, no job was written
RedisKit\Exception OOM, no job was written
bool(true)
-- consumers keep working
array(4) {
  ["scheduled"]=>
  int(1)
  ["due"]=>
  int(1)
  ["in_flight"]=>
  int(3)
  ["dead"]=>
  int(1)
}
bool(true)
bool(true)
bool(true)
array(2) {
  [0]=>
  string(3) "due"
  [1]=>
  string(8) "retry me"
}
int(1)
array(1) {
  [0]=>
  string(4) "dead"
}
bool(true)
int(0)
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
NULL
array(4) {
  ["scheduled"]=>
  int(0)
  ["due"]=>
  int(0)
  ["in_flight"]=>
  int(0)
  ["dead"]=>
  int(0)
}
RedisKit\Exception OOM, no job was written
-- a batch that crosses maxmemory half-way is written whole (admitted at its start, as Redis admits one script)
int(3000)
int(3000)
int(3000)
bool(true)
RedisKit\Exception OOM, no job was written
RedisKit\Exception OOM, no job was written
int(3000)
bool(true)
-- room again: pushes work
bool(true)
int(3001)
