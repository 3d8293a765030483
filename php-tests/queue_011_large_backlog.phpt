--TEST--
DelayQueue: with 100,000 jobs due at once (and then 100,000 expired claims), pop(10) stays fast: Redis's own SLOWLOG shows every pop script doing bounded work
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$s = new RkServer(['--slowlog-max-len', '100000']);   // Redis 7 also logs the commands scripts run
$raw = $s->raw();
// claims must not lapse while the test is still claiming (100 pops of 1000 on a loaded machine)
$q = new RedisKit\DelayQueue('big', $s->url, ['visibility_timeout' => 10, 'backoff' => 0, 'max_attempts' => 0]);

/** Runs $n pops of 10 with every command logged; returns [max script µs, max call s, jobs]. */
function timed_pops(RkRaw $raw, RedisKit\DelayQueue $q, int $n): array {
    $raw->cmd('SLOWLOG', 'RESET');
    $raw->cmd('CONFIG', 'SET', 'slowlog-log-slower-than', '0');
    $maxCall = 0;
    $got = 0;
    for ($i = 0; $i < $n; $i++) {
        $t = hrtime(true);
        $got += count($q->pop(10));
        $maxCall = max($maxCall, (hrtime(true) - $t) / 1e9);
    }
    $raw->cmd('CONFIG', 'SET', 'slowlog-log-slower-than', '10000');
    $maxScript = 0;
    $scripts = 0;
    foreach ($raw->cmd('SLOWLOG', 'GET', '-1') as $e) {
        if (in_array(strtoupper($e[3][0]), ['EVALSHA', 'EVAL'], true)) {
            $scripts++;
            $maxScript = max($maxScript, $e[2]);
        }
    }
    return [$scripts, $maxScript, $maxCall, $got];
}

$payloads = [];
for ($i = 0; $i < 100000; $i++) $payloads[] = "p$i";
var_dump(count($q->pushMany($payloads)));
var_dump($q->counts()['due']);

// 1. 100,000 due jobs
[$scripts, $maxScript, $maxCall, $got] = timed_pops($raw, $q, 20);
var_dump($scripts >= 20, $got);   // (+1 EVAL when the script was not loaded yet)
// a script walking the backlog takes tens of milliseconds at 100,000 jobs
rk_assert($maxScript < 20000, "slowest pop script: $maxScript µs");
rk_assert($maxCall < 0.1, "slowest pop call: $maxCall s");
var_dump($q->counts());

// 2. 100,000 claims whose visibility timeout has passed
$n = 0;
for ($i = 0; $i < 100; $i++) $n += count($q->pop(1000));
var_dump($n);                           // all 99,800 left, in 100 pops
$last = $raw->cmd('ZRANGE', '{big}:inflight', '-1', '-1', 'WITHSCORES');
rk_until(fn() => rk_redis_ms($raw) > (int)$last[1], 30.0);   // every claim's deadline has passed
var_dump($q->counts()['in_flight']);    // counts() puts back at most 100 lapsed claims, as a pop does
[$scripts, $maxScript, $maxCall, $got] = timed_pops($raw, $q, 20);
var_dump($scripts >= 20, $got);   // (+1 EVAL when the script was not loaded yet)
rk_assert($maxScript < 20000, "slowest pop script with expired claims: $maxScript µs");
rk_assert($maxCall < 0.1, "slowest pop call with expired claims: $maxCall s");
// each pop (and each counts()) put back at most 100 expired claims; the pops claimed 10 each
var_dump($q->counts());
?>
--EXPECT--
int(100000)
int(100000)
bool(true)
int(200)
array(4) {
  ["scheduled"]=>
  int(0)
  ["due"]=>
  int(99800)
  ["in_flight"]=>
  int(200)
  ["dead"]=>
  int(0)
}
int(99800)
int(99900)
bool(true)
int(200)
array(4) {
  ["scheduled"]=>
  int(0)
  ["due"]=>
  int(2000)
  ["in_flight"]=>
  int(98000)
  ["dead"]=>
  int(0)
}
