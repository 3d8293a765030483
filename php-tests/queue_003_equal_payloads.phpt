--TEST--
DelayQueue: identical payloads stay separate jobs (the seed's ZADD merges them into one)
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$ns = rk_ns();
$raw = new RkRaw();
$q = new RedisKit\DelayQueue('same', rk_conn(), ['prefix' => $ns]);
$ids = [$q->push('{"type":"cancel_order","order_id":1024}'), $q->push('{"type":"cancel_order","order_id":1024}')];
$ids = array_merge($ids, $q->pushMany(array_fill(0, 3, '{"type":"cancel_order","order_id":1024}')));
$ids[] = $q->pushAt('{"type":"cancel_order","order_id":1024}', 1.0);
var_dump(count(array_unique($ids)));
var_dump($q->counts()['due']);
$jobs = $q->pop(10);
var_dump(count($jobs), count(array_unique(array_column($jobs, 'id'))), count(array_unique(array_column($jobs, 'payload'))));
// each is acked on its own
var_dump($q->ack($jobs[0]['id']), $q->ack($jobs[0]['id']));
var_dump($q->counts()['in_flight']);
foreach (array_slice($jobs, 1) as $j) $q->ack($j['id']);
var_dump($q->counts());

// the seed's pattern on the same server: ZADD with the payload as member
$seed = $ns . 'seed';
for ($i = 0; $i < 6; $i++) $raw->cmd('ZADD', $seed, (string)(1700000000 + $i), '{"type":"cancel_order","order_id":1024}');
var_dump($raw->cmd('ZCARD', $seed));
?>
--EXPECT--
int(6)
int(6)
int(6)
int(6)
int(1)
bool(true)
bool(false)
int(5)
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
int(1)
