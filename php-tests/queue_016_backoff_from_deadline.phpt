--TEST--
DelayQueue backoff counts from the moment a claim lapsed (its visibility deadline, Redis clock), not from whichever later call notices it: a job whose deadline + backoff has passed is delivered by the very pop that notices it, dead-lettering is dated at the deadline, and counts/dead/cancel/requeueDead/retry/touch/a waiting pop agree
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$ns = rk_ns();
$url = rk_url();
$raw = new RkRaw();
// Timing: every due time and deadline is read back from Redis (its clock is the
// one the queue runs on) and asserted exactly; waits are rk_until loops on the
// Redis clock with deadlines of seconds, never fixed sleeps.

/** [member => deadline ms] of the in-flight claims of queue $name */
function claims(RkRaw $raw, string $ns, string $name): array {
    $z = $raw->cmd('ZRANGE', '{' . $ns . $name . '}:inflight', '0', '-1', 'WITHSCORES');
    $out = [];
    for ($i = 0; $i < count($z); $i += 2) $out[$z[$i]] = (int)$z[$i + 1];
    return $out;
}
/** the deadline of the one claim on job $id */
function deadline_of(RkRaw $raw, string $ns, string $name, string $id): int {
    foreach (claims($raw, $ns, $name) as $m => $d) if (str_starts_with($m, "$id|")) return $d;
    throw new RuntimeException("no claim on $id");
}
function wait_redis_ms(RkRaw $raw, int $ms): void {
    if (!rk_until(fn() => rk_redis_ms($raw) >= $ms, 30.0)) throw new RuntimeException("Redis clock never reached $ms");
}
function ms(float $s): int { return (int)round($s * 1000); }

echo "-- a pop 250 ms after the lapse gets the job (backoff 0.2: due 100..200 ms after the lapse)\n";
$q = new RedisKit\DelayQueue('a', $url, ['prefix' => $ns, 'visibility_timeout' => 0.1, 'backoff' => 0.2, 'max_attempts' => 5]);
$id = $q->push('lapsed');
var_dump(count($q->pop()));
$d = deadline_of($raw, $ns, 'a', $id);
wait_redis_ms($raw, $d + 250);
$j = $q->pop();                                   // notices the lapse and claims in one script
var_dump(count($j), ($j[0]['id'] ?? null) === $id, $j[0]['attempts'] ?? null);
$due = isset($j[0]) ? ms($j[0]['due_at']) : -1;
rk_assert($due >= $d + 100 && $due <= $d + 200, 'due ' . ($due - $d) . ' ms after the lapse, want 100..200');
var_dump($q->ack($id));

echo "-- the same with a waiting pop: no further backoff is slept\n";
$q = new RedisKit\DelayQueue('w', $url, ['prefix' => $ns, 'visibility_timeout' => 0.1, 'backoff' => 1.0]);
$id = $q->push('lapsed');
$q->pop();
$d = deadline_of($raw, $ns, 'w', $id);
wait_redis_ms($raw, $d + 1100);                   // past the longest first backoff (1 s)
$j = $q->pop(1, 10.0);
var_dump(count($j), $j[0]['attempts'] ?? null);
$due = isset($j[0]) ? ms($j[0]['due_at']) : -1;
$claimed = deadline_of($raw, $ns, 'w', $id) - 100; // the claim's own time: its deadline - vt
rk_assert($due >= $d + 500 && $due <= $d + 1000, 'due ' . ($due - $d) . ' ms after the lapse, want 500..1000');
rk_assert($claimed >= $due, 'claimed ' . ($claimed - $due) . ' ms after due');
$q->ack($id);

echo "-- a consumer blocked in pop through the lapse: woken by it, handed the job at deadline + backoff, never earlier\n";
$q = new RedisKit\DelayQueue('b', $url, ['prefix' => $ns, 'visibility_timeout' => 0.2, 'backoff' => 0.4]);
$id = $q->push('lapsed');
$q->pop();
$d = deadline_of($raw, $ns, 'b', $id);
$j = $q->pop(1, 10.0);                            // blocks across the deadline and the backoff
var_dump(count($j), $j[0]['attempts'] ?? null);
$due = isset($j[0]) ? ms($j[0]['due_at']) : -1;
$claimed = deadline_of($raw, $ns, 'b', $id) - 200;
rk_assert($due >= $d + 200 && $due <= $d + 400, 'due ' . ($due - $d) . ' ms after the lapse, want 200..400');
rk_assert($claimed >= $due && $claimed <= $due + 2000, 'claimed ' . ($claimed - $due) . ' ms after due');
$q->ack($id);

echo "-- claims that lapsed at different times come back in lapse order, each due at its own deadline (backoff 0)\n";
$long = new RedisKit\DelayQueue('o', $url, ['prefix' => $ns, 'visibility_timeout' => 2.0, 'backoff' => 0]);
$short = new RedisKit\DelayQueue('o', $url, ['prefix' => $ns, 'visibility_timeout' => 0.1, 'backoff' => 0]);
$first = $long->push('pushed first, lapses last');
$second = $long->push('pushed second, lapses first');
$long->pop();                                     // $first, deadline + 2 s
$short->pop();                                    // $second, deadline + 0.1 s
$d1 = deadline_of($raw, $ns, 'o', $first);
$d2 = deadline_of($raw, $ns, 'o', $second);
rk_assert($d2 < $d1, "the second claim lapses first ($d2 < $d1)");
wait_redis_ms($raw, $d1 + 100);
$j = $short->pop(2);
var_dump(array_column($j, 'payload'));
var_dump(ms($j[0]['due_at']) === $d2, ms($j[1]['due_at']) === $d1);
$short->ack($first);
$short->ack($second);

echo "-- dead-lettered at the deadline of the last delivery, not when a pop noticed\n";
$q = new RedisKit\DelayQueue('d', $url, ['prefix' => $ns, 'visibility_timeout' => 0.1, 'max_attempts' => 1]);
$id = $q->push('dies');
$q->pop();
$d = deadline_of($raw, $ns, 'd', $id);
wait_redis_ms($raw, $d + 300);
var_dump($q->pop());
$dead = $q->dead();
var_dump(count($dead), ms($dead[0]['due_at'] ?? 0) === $d, (int)$raw->cmd('ZSCORE', '{' . $ns . 'd}:dead', $id) === $d);

echo "-- counts() sees a lapsed claim as a pop would: due once deadline + backoff passed\n";
$q = new RedisKit\DelayQueue('c', $url, ['prefix' => $ns, 'visibility_timeout' => 0.1, 'backoff' => 0.2]);
$id = $q->push('c');
$q->pop();
$d = deadline_of($raw, $ns, 'c', $id);
wait_redis_ms($raw, $d + 250);
var_dump($q->counts());
var_dump(ms($q->pop()[0]['due_at'] ?? 0) <= $d + 200);
$q->ack($id);
// and scheduled while its backoff runs
$q = new RedisKit\DelayQueue('c2', $url, ['prefix' => $ns, 'visibility_timeout' => 0.1, 'backoff' => 60]);
$id = $q->push('c2');
$q->pop();
$d = deadline_of($raw, $ns, 'c2', $id);
wait_redis_ms($raw, $d + 1);
var_dump($q->counts());
$sched = (int)$raw->cmd('ZSCORE', $ns . 'c2', $id);
rk_assert($sched >= $d + 30000 && $sched <= $d + 60000, 'due ' . ($sched - $d) . ' ms after the lapse, want 30..60 s');

echo "-- dead(), requeueDead() and cancel() see a lapsed claim no pop has noticed\n";
$q = new RedisKit\DelayQueue('r', $url, ['prefix' => $ns, 'visibility_timeout' => 0.1, 'max_attempts' => 1, 'backoff' => 0]);
$a = $q->push('dead by timeout');
$b = $q->push('also dead');
$q->pop(2);
$da = deadline_of($raw, $ns, 'r', $a);
wait_redis_ms($raw, max(claims($raw, $ns, 'r')) + 200);
$dead = $q->dead();
var_dump(array_column($dead, 'payload'), ms($dead[0]['due_at'] ?? 0) === $da);
var_dump($q->requeueDead($a));
var_dump($q->cancel($b));
$j = $q->pop();
var_dump($j[0]["payload"] ?? null, $j[0]["attempts"] ?? null);
$q->ack($a);
// cancel of a claim that lapsed into the schedule
$q = new RedisKit\DelayQueue('x', $url, ['prefix' => $ns, 'visibility_timeout' => 0.1, 'backoff' => 60]);
$held = new RedisKit\DelayQueue('x', $url, ['prefix' => $ns, 'visibility_timeout' => 60]);
$in = $held->push('held');
$held->pop();
var_dump($q->cancel($in));                        // in flight: false
$id = $q->push('x');
$q->pop();
wait_redis_ms($raw, deadline_of($raw, $ns, 'x', $id) + 1);
var_dump($q->cancel($id));                        // lapsed: scheduled again, so cancellable
var_dump($q->counts());
var_dump($held->ack($in));

echo "-- a late retry() of the claim that used the last attempt: dead as of the deadline\n";
$q = new RedisKit\DelayQueue('t', $url, ['prefix' => $ns, 'visibility_timeout' => 0.1, 'max_attempts' => 1]);
$id = $q->push('late retry');
$q->pop();
$d = deadline_of($raw, $ns, 't', $id);
wait_redis_ms($raw, $d + 300);
var_dump($q->retry($id, 0));
$dead = $q->dead();
var_dump(count($dead), ms($dead[0]['due_at'] ?? 0) === $d, $dead[0]['attempts'] ?? null);
// and a late touch() of an unnoticed lapsed claim takes it back without counting an attempt
// (the touching object has a long visibility timeout: a stall cannot lapse the touched claim)
$q = new RedisKit\DelayQueue('u', $url, ['prefix' => $ns, 'visibility_timeout' => 0.1, 'max_attempts' => 1]);
$q2 = new RedisKit\DelayQueue('u', $url, ['prefix' => $ns, 'visibility_timeout' => 60, 'max_attempts' => 1]);
$id = $q->push('late touch');
$q->pop();
wait_redis_ms($raw, deadline_of($raw, $ns, 'u', $id) + 300);
var_dump($q2->touch($id), $raw->cmd('HGET', '{' . $ns . 'u}:attempts', $id), $q2->counts()['in_flight']);
var_dump($q2->ack($id));
?>
--EXPECT--
-- a pop 250 ms after the lapse gets the job (backoff 0.2: due 100..200 ms after the lapse)
int(1)
int(1)
bool(true)
int(1)
bool(true)
-- the same with a waiting pop: no further backoff is slept
int(1)
int(1)
-- a consumer blocked in pop through the lapse: woken by it, handed the job at deadline + backoff, never earlier
int(1)
int(1)
-- claims that lapsed at different times come back in lapse order, each due at its own deadline (backoff 0)
array(2) {
  [0]=>
  string(27) "pushed second, lapses first"
  [1]=>
  string(25) "pushed first, lapses last"
}
bool(true)
bool(true)
-- dead-lettered at the deadline of the last delivery, not when a pop noticed
array(0) {
}
int(1)
bool(true)
bool(true)
-- counts() sees a lapsed claim as a pop would: due once deadline + backoff passed
array(4) {
  ["scheduled"]=>
  int(0)
  ["due"]=>
  int(1)
  ["in_flight"]=>
  int(0)
  ["dead"]=>
  int(0)
}
bool(true)
array(4) {
  ["scheduled"]=>
  int(1)
  ["due"]=>
  int(0)
  ["in_flight"]=>
  int(0)
  ["dead"]=>
  int(0)
}
-- dead(), requeueDead() and cancel() see a lapsed claim no pop has noticed
array(2) {
  [0]=>
  string(15) "dead by timeout"
  [1]=>
  string(9) "also dead"
}
bool(true)
int(1)
bool(true)
string(15) "dead by timeout"
int(0)
bool(false)
bool(true)
array(4) {
  ["scheduled"]=>
  int(0)
  ["due"]=>
  int(0)
  ["in_flight"]=>
  int(1)
  ["dead"]=>
  int(0)
}
bool(true)
-- a late retry() of the claim that used the last attempt: dead as of the deadline
bool(true)
int(1)
bool(true)
int(1)
bool(true)
NULL
int(1)
bool(true)
