--TEST--
RateLimiter local_block: once refused with retry_after X, this worker refuses the key for X without a round trip (then asks Redis again); off, every check is a round trip; a forked child starts without the parent's cache
--SKIPIF--
<?php if (!function_exists('pcntl_fork')) echo 'skip pcntl needed'; ?>
--FILE--
<?php
require __DIR__ . '/_rate.inc';
use RedisKit\RateLimiter;

$ns = rk_ns();
$raw = new RkRaw();
foreach (RATE_ALGOS as $alg) {
    $on = new RateLimiter("lb-$alg", 2, 0.3, rk_conn(), ['algorithm' => $alg, 'prefix' => $ns]);
    $off = new RateLimiter("lb-$alg", 2, 0.3, rk_conn(), ['algorithm' => $alg, 'prefix' => $ns, 'local_block' => false]);
    // refused by Redis with at least 0.1 s to wait (fixed_window's windows are
    // aligned: a refusal just before a boundary waits less, and a boundary
    // between the attempts lets the third one in; start over after the
    // boundary then)
    $deadline = microtime(true) + 10;
    for (;;) {
        $on->reset('k');
        $on->attempt('k');
        $on->attempt('k');
        $first = $on->attempt('k');
        if ((!$first['allowed'] && $first['retry_after'] >= 0.1) || microtime(true) > $deadline) break;
        usleep((int)ceil($first['retry_after'] * 1e6) + 1000);
    }
    $c0 = RedisKit\stats()['commands'];
    $answers = [];
    $prev = $first['retry_after'];
    $down = true;
    for ($i = 0; $i < 200; $i++) {
        $r = $on->attempt('k');
        $answers[] = $r['allowed'];
        $down = $down && $r['retry_after'] <= $prev && $r['remaining'] === 0;
        $prev = $r['retry_after'];
    }
    $allow = $on->allow('k');
    $cached = RedisKit\stats()['commands'] - $c0;
    // once retry_after has passed, Redis is asked again and allows (nothing else
    // has used the key since the refusal)
    usleep((int)ceil($first['retry_after'] * 1e6) + 3000);
    $c0 = RedisKit\stats()['commands'];
    $later = $on->attempt('k');
    $laterTrips = RedisKit\stats()['commands'] - $c0;
    // the same key through a limiter without local_block: a round trip each
    $c0 = RedisKit\stats()['commands'];
    for ($i = 0; $i < 20; $i++) $off->attempt('k');
    $uncached = RedisKit\stats()['commands'] - $c0;
    printf("%-15s 201 refusals, round trips %d, retry_after counting down %s; local_block off: %d round trips for 20; after retry_after: allowed %s, round trips %d\n",
        $alg, $cached, json_encode($down && !$allow && !in_array(true, $answers, true)), $uncached,
        json_encode($later['allowed']), $laterTrips);
}

// a refusal of cost 3 says nothing about cost 1 when cost 1 still fits
$l = new RateLimiter('costs', 4, 10, rk_conn(), ['prefix' => $ns, 'algorithm' => 'gcra']);
$l->attempt('k', 2);
$l->attempt('k', 1);
var_dump($l->attempt('k', 3)['allowed']);       // refused (1 left)
$c0 = RedisKit\stats()['commands'];
var_dump($l->attempt('k', 4)['allowed']);       // refused from the cache: needs even more
var_dump(RedisKit\stats()['commands'] - $c0);
var_dump($l->attempt('k', 1)['allowed']);       // goes to Redis, and fits
var_dump(RedisKit\stats()['commands'] - $c0);

// a forked child does not trust the parent's cache: it asks Redis (and is refused there)
$l = new RateLimiter('fork', 1, 5, rk_conn(), ['prefix' => $ns]);
$l->attempt('k');
$l->attempt('k');                               // cached in the parent
$pid = pcntl_fork();
if ($pid === 0) {
    $c0 = RedisKit\stats()['commands'];
    $r = $l->attempt('k');
    exit(!$r['allowed'] && RedisKit\stats()['commands'] - $c0 === 1 ? 0 : 1);
}
pcntl_waitpid($pid, $st);
var_dump(pcntl_wexitstatus($st));
$c0 = RedisKit\stats()['commands'];
var_dump($l->attempt('k')['allowed'], RedisKit\stats()['commands'] - $c0);   // the parent still uses its cache
// reset clears this worker's cache
$l->reset('k');
var_dump($l->attempt('k')['allowed']);
?>
--EXPECT--
sliding_window  201 refusals, round trips 0, retry_after counting down true; local_block off: 20 round trips for 20; after retry_after: allowed true, round trips 1
fixed_window    201 refusals, round trips 0, retry_after counting down true; local_block off: 20 round trips for 20; after retry_after: allowed true, round trips 1
token_bucket    201 refusals, round trips 0, retry_after counting down true; local_block off: 20 round trips for 20; after retry_after: allowed true, round trips 1
gcra            201 refusals, round trips 0, retry_after counting down true; local_block off: 20 round trips for 20; after retry_after: allowed true, round trips 1
bool(false)
bool(false)
int(0)
bool(true)
int(1)
int(0)
bool(false)
int(0)
bool(true)
