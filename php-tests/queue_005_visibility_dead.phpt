--TEST--
DelayQueue at-least-once: an unacked job comes back after the visibility timeout with attempts + 1 and exponential backoff with jitter, then goes to the dead set after max_attempts
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$ns = rk_ns();
$url = rk_conn();
$raw = new RkRaw();

echo "-- timeouts, backoff, dead set\n";
$q = new RedisKit\DelayQueue('v', $url, ['prefix' => $ns, 'visibility_timeout' => 0.1, 'backoff' => 0.1, 'max_attempts' => 4]);
$id = $q->push("job\0");
$deliveries = [];
$t0 = microtime(true);
while (microtime(true) - $t0 < 5) {
    $got = $q->pop(1, 1.0);          // never acked
    if (!$got) { if ($q->counts()['dead'] === 1) break; continue; }
    $deliveries[] = $got[0];
}
var_dump(count($deliveries), array_column($deliveries, 'attempts'));
var_dump(array_unique(array_column($deliveries, 'id')) === [$id]);
for ($n = 1; $n < count($deliveries); $n++) {
    $gap = $deliveries[$n]['due_at'] - $deliveries[$n - 1]['due_at'];
    $full = 0.1 * 2 ** ($n - 1);
    // claimed no earlier than due, expired after 0.1 s, then backoff in [full/2, full]
    rk_assert($gap >= 0.1 + $full / 2 - 0.0011, "gap $n = $gap >= vt + backoff/2");
    rk_assert($gap <= 0.1 + $full + 0.3, "gap $n = $gap not far beyond vt + backoff");
}
var_dump($q->counts());
$dead = $q->dead();
var_dump(count($dead), $dead[0]['id'] === $id, $dead[0]['payload'] === "job\0", $dead[0]['attempts']);
// due_at of a dead job: when it was dead-lettered (after the last delivery's timeout)
rk_assert($dead[0]['due_at'] >= $deliveries[3]['due_at'] + 0.1 - 0.0011 && $dead[0]['due_at'] < microtime(true) + 0.01, 'dead due_at is the dead-lettering time');
var_dump($q->pop());                 // dead jobs are not handed out
var_dump($q->requeueDead($id), $q->requeueDead($id));
$j = $q->pop();
var_dump($j[0]['id'] === $id, $j[0]['attempts']);   // a fresh start
var_dump($q->ack($id), $q->counts()['dead']);

echo "-- jitter\n";
$q = new RedisKit\DelayQueue('j', $url, ['prefix' => $ns, 'visibility_timeout' => 0.05, 'backoff' => 10]);
$q->pushMany(array_fill(0, 20, 'x'));
var_dump(count($q->pop(20)));
$f = $raw->cmd('ZRANGE', '{' . $ns . 'j}:inflight', '0', '-1', 'WITHSCORES');
$lapse = (int)$f[1];                 // one pop: one visibility deadline for all 20
rk_until(fn() => rk_redis_ms($raw) > $lapse, 10.0);
var_dump($q->pop(20));               // puts the 20 back, due 5..10 s after their claims lapsed
$scores = [];
$z = $raw->cmd('ZRANGE', $ns . 'j', '0', '-1', 'WITHSCORES');
for ($i = 1; $i < count($z); $i += 2) $scores[] = (int)$z[$i] - $lapse;
var_dump(count($scores), min($scores) >= 5000, max($scores) <= 10000, count(array_unique($scores)) > 10);
var_dump($q->counts());

echo "-- max_attempts 0: unlimited\n";
$q = new RedisKit\DelayQueue('u', $url, ['prefix' => $ns, 'visibility_timeout' => 0.02, 'backoff' => 0, 'max_attempts' => 0]);
$q->push('forever');
$att = [];
for ($i = 0; $i < 8; $i++) { $j = $q->pop(1, 1.0); $att[] = $j[0]['attempts'] ?? null; }
echo implode(',', $att), "\n";
var_dump($q->counts()['dead']);

echo "-- retry counts towards max_attempts\n";
$q = new RedisKit\DelayQueue('r', $url, ['prefix' => $ns, 'max_attempts' => 2]);
$id = $q->push('r');
$q->pop();
var_dump($q->retry($id));
$j = $q->pop();
var_dump($j[0]['attempts'], $q->retry($id));
var_dump($q->counts());
var_dump($q->dead()[0]['attempts']);
var_dump($q->ack($id));              // retry ended the claim
?>
--EXPECT--
-- timeouts, backoff, dead set
int(4)
array(4) {
  [0]=>
  int(0)
  [1]=>
  int(1)
  [2]=>
  int(2)
  [3]=>
  int(3)
}
bool(true)
array(4) {
  ["scheduled"]=>
  int(0)
  ["due"]=>
  int(0)
  ["in_flight"]=>
  int(0)
  ["dead"]=>
  int(1)
}
int(1)
bool(true)
bool(true)
int(4)
array(0) {
}
int(1)
int(0)
bool(true)
int(0)
bool(true)
int(0)
-- jitter
int(20)
array(0) {
}
int(20)
bool(true)
bool(true)
bool(true)
array(4) {
  ["scheduled"]=>
  int(20)
  ["due"]=>
  int(0)
  ["in_flight"]=>
  int(0)
  ["dead"]=>
  int(0)
}
-- max_attempts 0: unlimited
0,1,2,3,4,5,6,7
int(0)
-- retry counts towards max_attempts
bool(true)
int(1)
bool(true)
array(4) {
  ["scheduled"]=>
  int(0)
  ["due"]=>
  int(0)
  ["in_flight"]=>
  int(0)
  ["dead"]=>
  int(1)
}
int(2)
bool(false)
