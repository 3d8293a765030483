--TEST--
DelayQueue ack/retry/touch/cancel: what each changes, and false (changing nothing) for unknown ids, unclaimed jobs and other consumers' claims
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$ns = rk_ns();
$url = rk_url();
$raw = new RkRaw();
// Timing: no fixed sleeps. Waits are on the Redis clock (the one due times and
// visibility deadlines are kept on), read back from Redis, with windows of a
// second or more, so they hold on a loaded machine.
$opts = ['prefix' => $ns, 'visibility_timeout' => 2.0, 'backoff' => 0];
$inflight = '{' . $ns . 'm}:inflight';
$q = new RedisKit\DelayQueue('m', $url, $opts);
$other = new RedisKit\DelayQueue('m', $url, $opts + ['consumer' => 'other']);   // another consumer of the same queue

echo "-- ack\n";
$id = $q->push('a');
var_dump($q->ack($id));                       // scheduled, not claimed by anyone
var_dump($q->ack('nope'), $q->ack(''), $q->ack("\0\xff"));
[$j] = $q->pop();
var_dump($other->ack($id));                   // not the other consumer's claim
var_dump($q->ack($id), $q->ack($id));         // once
foreach (['payload', 'attempts', 'claim'] as $h) echo $h, ' ', $raw->cmd('HEXISTS', '{' . $ns . "m}:$h", $id), "\n";
var_dump($q->counts());

echo "-- retry\n";
$id = $q->push('r');
var_dump($q->retry($id));                     // not claimed
$q->pop();
var_dump($other->retry($id, 0));
$t0 = rk_redis_ms($raw);
var_dump($q->retry($id, 30));                 // back, due in 30 s
$t1 = rk_redis_ms($raw);
var_dump($q->retry($id));                     // the claim ended with the first retry
var_dump($q->ack($id));
var_dump($q->counts()['scheduled'], $q->pop());   // not due yet: not handed out
$due = (int)$raw->cmd('ZSCORE', $ns . 'm', $id);
rk_assert($due >= $t0 + 30000 && $due <= $t1 + 30000 + 1, 'due 30 s after the retry: ' . ($due - $t0) . ' ms');
var_dump($q->cancel($id));
// a short delay: handed out again once due, with the attempt counted
$id = $q->push('r2');
$q->pop();
$t0 = microtime(true);
var_dump($q->retry($id, 0.3));
$j = $q->pop(1, 5.0);
$at = microtime(true);
var_dump($j[0]['id'] === $id, $j[0]['attempts']);   // a retry counts as a failed attempt
rk_assert($j[0]['due_at'] >= $t0 + 0.3 && $at >= $j[0]['due_at'], 'handed out before 0.3 s after the retry');
var_dump($q->retry($id, 0));                  // due now
$j = $q->pop();
var_dump($j[0]['attempts']);
$q->ack($id);

echo "-- touch\n";
$id = $q->push('t');
var_dump($q->touch($id));                     // not claimed
$q->pop();
[$member, $d1] = $raw->cmd('ZRANGE', $inflight, '0', '-1', 'WITHSCORES');
$d1 = (int)$d1;                               // the claim's visibility deadline (ms)
var_dump($other->touch($id));
rk_until(fn() => rk_redis_ms($raw) >= $d1 - 1000, 10.0);   // half-way through it
$t0 = rk_redis_ms($raw);
var_dump($q->touch($id));                     // deadline now + 2 s again
$t1 = rk_redis_ms($raw);
$d2 = (int)$raw->cmd('ZSCORE', $inflight, $member);
// the deadline is the touch's time rounded up to the ms, + 2 s (never early);
// rk_redis_ms() rounds down, so it may lie 1 ms past t1 + 2000
rk_assert($d2 >= $t0 + 2000 && $d2 <= $t1 + 2001, 'touched deadline ' . ($d2 - $t0) . ' ms after the touch');
rk_until(fn() => rk_redis_ms($raw) >= $d1, 10.0);          // past the first deadline
var_dump($other->pop());                      // still invisible thanks to touch
rk_assert(rk_redis_ms($raw) < $d2, 'that pop ran before the touched deadline');
var_dump($q->counts()['in_flight']);
rk_until(fn() => rk_redis_ms($raw) >= $d2, 10.0);          // now past the touched deadline
$j = $other->pop();
var_dump($j[0]['id'] === $id, $j[0]['attempts']);
var_dump($q->touch($id), $q->ack($id));       // the job is the other consumer's now
var_dump($other->ack($id));

echo "-- cancel\n";
$a = $q->push('c1', 60);
$b = $q->push('c2');
$c = $q->push('c3');
var_dump($q->cancel($a));                     // scheduled
var_dump($q->cancel($a));
var_dump($q->cancel($b));                     // due
$q->pop();                                    // claims c3
var_dump($q->cancel($c));                     // in flight: not cancelled
var_dump($other->cancel('0000000000000000'), $q->cancel('x'));
var_dump($q->ack($c));
var_dump($q->counts());
// nothing left behind but the id sequence
$keys = rk_object_keys($raw, '*' . $ns . '*');
sort($keys);
var_dump($keys === ['{' . $ns . 'm}:seq'] || $keys === ['{' . $ns . 'm}:seq', '{' . $ns . 'm}:wake']);
?>
--EXPECT--
-- ack
bool(false)
bool(false)
bool(false)
bool(false)
bool(false)
bool(true)
bool(false)
payload 0
attempts 0
claim 0
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
-- retry
bool(false)
bool(false)
bool(true)
bool(false)
bool(false)
int(1)
array(0) {
}
bool(true)
bool(true)
bool(true)
int(1)
bool(true)
int(2)
-- touch
bool(false)
bool(false)
bool(true)
array(0) {
}
int(1)
bool(true)
int(1)
bool(false)
bool(false)
bool(true)
-- cancel
bool(true)
bool(false)
bool(true)
bool(false)
bool(false)
bool(false)
bool(true)
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
bool(true)
