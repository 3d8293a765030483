--TEST--
DelayQueue counts/dead/requeueDead/purge: per-state counts on the Redis clock, dead listing with limit, requeue of one or all dead jobs (in bounded batches), purge of every state
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$ns = rk_ns();
$url = rk_url();
$raw = new RkRaw();
$q = new RedisKit\DelayQueue('c', $url, ['prefix' => $ns, 'visibility_timeout' => 0.05, 'backoff' => 0, 'max_attempts' => 1]);
var_dump($q->counts(), $q->dead(), $q->requeueDead());

// 1500 dead jobs: claimed, never acked, one attempt allowed
$ids = $q->pushMany(array_map(fn($i) => "d$i", range(0, 1499)));
var_dump(count($q->pop(1000)) + count($q->pop(1000)));
usleep(100000);
for ($i = 0; $i < 16; $i++) $q->pop();     // each pop dead-letters at most 100 expired claims
var_dump($q->counts());
// plus one job in each other state
$later = $q->push('later', 60);
$due = $q->push('due');
$flight = $q->push('flight');
$long = new RedisKit\DelayQueue('c', $url, ['prefix' => $ns, 'visibility_timeout' => 60]);
$j = $long->pop(2);
var_dump(array_column($j, 'payload'));     // 'due' and 'flight'
var_dump($long->retry($due, 0));           // back to due
var_dump($q->counts());

$dead = $q->dead(3);
var_dump(array_column($dead, 'payload'), array_column($dead, 'attempts'));
var_dump(count($q->dead()), count($q->dead(10000)));
// one: back to the schedule, due now, attempts 0
var_dump($q->requeueDead($ids[1]), $q->requeueDead($ids[1]), $q->requeueDead('nope'), $q->requeueDead($later));
var_dump($q->counts());
// all (more than one batch of 1000)
var_dump($q->requeueDead());
var_dump($q->counts());
$first = $q->pop(3);
var_dump($first[0]['payload'], array_column($first, 'attempts'));   // 'due' was due first

// purge: every state gone, ids are not reused
$q->purge();
var_dump($q->counts(), $q->dead());
var_dump($long->ack($flight));              // its job is gone
$keys = rk_object_keys($raw, '*' . $ns . '*');
var_dump($keys);
$next = $q->push('after');
var_dump(strcmp($next, $flight) > 0);
$q->purge();
?>
--EXPECTF--
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
array(0) {
}
int(0)
int(1500)
array(4) {
  ["scheduled"]=>
  int(0)
  ["due"]=>
  int(0)
  ["in_flight"]=>
  int(0)
  ["dead"]=>
  int(1500)
}
array(2) {
  [0]=>
  string(3) "due"
  [1]=>
  string(6) "flight"
}
bool(true)
array(4) {
  ["scheduled"]=>
  int(1)
  ["due"]=>
  int(1)
  ["in_flight"]=>
  int(1)
  ["dead"]=>
  int(1500)
}
array(3) {
  [0]=>
  string(2) "d0"
  [1]=>
  string(2) "d1"
  [2]=>
  string(2) "d2"
}
array(3) {
  [0]=>
  int(1)
  [1]=>
  int(1)
  [2]=>
  int(1)
}
int(100)
int(1500)
int(1)
int(0)
int(0)
int(0)
array(4) {
  ["scheduled"]=>
  int(1)
  ["due"]=>
  int(2)
  ["in_flight"]=>
  int(1)
  ["dead"]=>
  int(1499)
}
int(1499)
array(4) {
  ["scheduled"]=>
  int(1)
  ["due"]=>
  int(1501)
  ["in_flight"]=>
  int(1)
  ["dead"]=>
  int(0)
}
string(3) "due"
array(3) {
  [0]=>
  int(1)
  [1]=>
  int(0)
  [2]=>
  int(0)
}
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
array(0) {
}
bool(false)
array(1) {
  [0]=>
  string(%d) "{%s}:seq"
}
bool(true)
