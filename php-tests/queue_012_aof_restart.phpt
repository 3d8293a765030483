--TEST--
DelayQueue with appendonly yes + appendfsync always: a Redis killed with SIGKILL and restarted keeps every job in every state (scheduled, due, in flight, dead), claims included
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$s = new RkServer(['--appendonly', 'yes', '--appendfsync', 'always']);
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
// dead: one attempt, short visibility timeout
$d = new RedisKit\DelayQueue('aof', $s->url, ['visibility_timeout' => 0.05, 'max_attempts' => 1]);
$deadIds = [$d->push("dead\0a"), $d->push('dead-b')];
$d->pop(2);
usleep(100000);
var_dump($d->pop());                               // dead-letters both
$q = new RedisKit\DelayQueue('aof', $s->url, ['visibility_timeout' => 60]);
$flight = [$q->push('flight-a'), $q->push('flight-b')];
var_dump(count($q->pop(2)));
$due = [$q->push('due-a'), $q->push('due-b')];
$later = [$q->push('later-a', 3600), $q->pushAt('later-b', time() + 7200)];
$counts = $q->counts();
var_dump($counts);
$before = dump_state($raw);
$deadBefore = $q->dead();

$s->restart(true);                                 // SIGKILL: no chance to write anything more
$raw = $s->raw();
var_dump($q->counts() === $counts);
var_dump(dump_state($raw) === $before);
var_dump($q->dead() === $deadBefore);
// everything still works, claims included
var_dump($q->ack($flight[0]), $q->touch($flight[1]));
$j = $q->pop(10);
var_dump(array_column($j, 'payload'));
var_dump($q->requeueDead());
echo json_encode(array_column($q->pop(10), 'payload')), "\n";
var_dump($q->cancel($later[0]));
$next = $q->push('after');
var_dump(strcmp($next, $later[1]) > 0);            // the id sequence survived too
var_dump($q->counts());
?>
--EXPECT--
array(0) {
}
int(2)
array(4) {
  ["scheduled"]=>
  int(2)
  ["due"]=>
  int(2)
  ["in_flight"]=>
  int(2)
  ["dead"]=>
  int(2)
}
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
array(2) {
  [0]=>
  string(5) "due-a"
  [1]=>
  string(5) "due-b"
}
int(2)
["dead\u0000a","dead-b"]
bool(true)
bool(true)
array(4) {
  ["scheduled"]=>
  int(1)
  ["due"]=>
  int(1)
  ["in_flight"]=>
  int(5)
  ["dead"]=>
  int(0)
}
