--TEST--
DelayQueue push/pushAt/pushMany/pop: ids, job shape, due-time order, push order for equal due times, binary payloads, future jobs stay put
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$ns = rk_ns();
$raw = new RkRaw();
$q = new RedisKit\DelayQueue('q', rk_conn(), ['prefix' => $ns]);
var_dump($q->pop());                                  // empty queue

[$sec, $usec] = $raw->cmd('TIME');
$now = (int)$sec + (int)$usec / 1e6;
// out of order on purpose: due times decide, then push order
$ids = [];
$ids['c']  = $q->pushAt('c', $now - 1);
$ids['a']  = $q->pushAt('a', $now - 3);
$ids['b1'] = $q->pushAt('b1', $now - 2);
$ids['b2'] = $q->pushAt('b2', $now - 2);
$ids['d']  = $q->push('d');
$ids['b3'] = $q->pushAt('b3', $now - 2);
$ids['f']  = $q->push('f', 30);                       // not due for 30 s
$ids['g']  = $q->pushAt('g', $now + 60);
$many = $q->pushMany(['m1', 'k' => "bin\0\xff\r\n", 'm3'], 0.0);
var_dump(count(array_unique(array_merge(array_values($ids), $many))));
rk_assert(array_is_list($many) && count($many) === 3, 'pushMany returns a list of 3 ids');
foreach (array_merge(array_values($ids), $many) as $id) {
    rk_assert(is_string($id) && preg_match('/^\d{16}$/', $id) === 1, "id format: $id");
}
// ids grow in push order
$all = array_merge(array_values($ids), $many);
$sorted = $all;
sort($sorted, SORT_STRING);
var_dump($sorted === $all);

var_dump($q->counts());
$jobs = $q->pop(4);
echo implode(',', array_column($jobs, 'payload')), "\n";
$jobs = array_merge($jobs, $q->pop(100));
echo implode(',', array_map(fn($p) => preg_match('/^[a-z0-9]+$/', $p) ? $p : bin2hex($p), array_column($jobs, 'payload'))), "\n";
$j = $jobs[0];
var_dump(array_keys($j), is_string($j['id']), is_int($j['attempts']), is_float($j['due_at']));
var_dump($j['id'] === $ids['a'], $j['attempts']);
rk_assert(abs($j['due_at'] - ceil(($now - 3) * 1000) / 1000) < 1e-6, 'pushAt due time kept to the millisecond');
$bin = array_values(array_filter($jobs, fn($x) => $x['id'] === $many[1]))[0];
var_dump($bin['payload'] === "bin\0\xff\r\n");
// the 'd' job (delay 0) is due at its push time on the Redis clock
$d = array_values(array_filter($jobs, fn($x) => $x['payload'] === 'd'))[0];
rk_assert($d['due_at'] >= $now - 0.001 && $d['due_at'] < $now + 1, 'push() due time is the Redis clock');

var_dump($q->pop(10));                                // f and g are not due
var_dump($q->counts());
// the data sits where the README says
var_dump($raw->cmd('TYPE', $ns . 'q'), $raw->cmd('ZCARD', $ns . 'q'), $raw->cmd('ZCARD', '{' . $ns . 'q}:inflight'));
var_dump($raw->cmd('HGET', '{' . $ns . 'q}:payload', $ids['f']));
var_dump((int)$raw->cmd('ZSCORE', $ns . 'q', $ids['g']) === (int)ceil(($now + 60) * 1000));
foreach ($jobs as $j) $q->ack($j['id']);
var_dump($q->counts());
?>
--EXPECT--
array(0) {
}
int(11)
bool(true)
array(4) {
  ["scheduled"]=>
  int(2)
  ["due"]=>
  int(9)
  ["in_flight"]=>
  int(0)
  ["dead"]=>
  int(0)
}
a,b1,b2,b3
a,b1,b2,b3,c,d,m1,62696e00ff0d0a,m3
array(4) {
  [0]=>
  string(2) "id"
  [1]=>
  string(7) "payload"
  [2]=>
  string(8) "attempts"
  [3]=>
  string(6) "due_at"
}
bool(true)
bool(true)
bool(true)
bool(true)
int(0)
bool(true)
array(0) {
}
array(4) {
  ["scheduled"]=>
  int(2)
  ["due"]=>
  int(0)
  ["in_flight"]=>
  int(9)
  ["dead"]=>
  int(0)
}
string(4) "zset"
int(2)
int(9)
string(1) "f"
bool(true)
array(4) {
  ["scheduled"]=>
  int(2)
  ["due"]=>
  int(0)
  ["in_flight"]=>
  int(0)
  ["dead"]=>
  int(0)
}
