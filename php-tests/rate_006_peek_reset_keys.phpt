--TEST--
RateLimiter: peek consumes nothing; reset forgets a key (in Redis and in this worker's cache); the key layout; every key written has a TTL, refused attempts included
--FILE--
<?php
require __DIR__ . '/_rate.inc';
use RedisKit\RateLimiter;

$raw = new RkRaw();
$ns = rk_ns();
foreach (RATE_ALGOS as $alg) {
    $l = new RateLimiter('pk', 3, 10, rk_conn(), ['algorithm' => $alg, 'prefix' => $ns]);
    $key = "u\0\xff{x}";                      // binary-safe, braces included
    $redisKey = "{$ns}pk:" . ['sliding_window' => 'sw', 'fixed_window' => 'fw', 'token_bucket' => 'tb', 'gcra' => 'gcra'][$alg] . ":{{$key}}";

    // peek on a fresh key: full allowance, nothing written
    $p = $l->peek($key);
    $fresh = $p['allowed'] && $p['remaining'] === 3 && $p['retry_after'] === 0.0 && $p['reset_after'] === 0.0;
    for ($i = 0; $i < 10; $i++) $l->peek($key);
    $nothing = $raw->cmd('EXISTS', $redisKey) === 0;

    $a = $l->attempt($key);
    $p = $l->peek($key);
    $after1 = $a['remaining'] === 2 && $p['remaining'] === 2 && $p['allowed'];
    $exists = $raw->cmd('EXISTS', $redisKey) === 1;
    $ttl1 = $raw->cmd('PTTL', $redisKey);

    $l->attempt($key, 2);
    $d = $l->attempt($key);                    // refused: the key is full
    $p = $l->peek($key);
    $full = !$d['allowed'] && !$p['allowed'] && $p['remaining'] === 0 && $p['retry_after'] > 0;
    $ttl2 = $raw->cmd('PTTL', $redisKey);

    // reset: the key is gone, and the next attempt passes at once
    // (this worker had the refusal cached: reset clears that too)
    $l->reset($key);
    $gone = $raw->cmd('EXISTS', $redisKey) === 0;
    $again = $l->attempt($key, 3)['allowed'];
    $ttl3 = $raw->cmd('PTTL', $redisKey);
    $l->reset($key);
    $l->reset($key);                           // resetting an absent key is fine

    printf("%-15s fresh %s, peek writes nothing %s, after one %s, full %s, reset %s, allowed again %s\n", $alg,
        json_encode($fresh), json_encode($nothing), json_encode($after1 && $exists), json_encode($full), json_encode($gone), json_encode($again));
    // a TTL on every write, never longer than the state can matter (10 s window, + 2 ms)
    foreach ([$ttl1, $ttl2, $ttl3] as $t) {
        rk_assert($t > 0 && $t <= 10002, "$alg: TTL $t ms");
    }
}

// every key any algorithm leaves behind has a TTL, whatever happened to it
$checked = 0;
foreach (RATE_ALGOS as $alg) {
    $tag = ['sliding_window' => 'sw', 'fixed_window' => 'fw', 'token_bucket' => 'tb', 'gcra' => 'gcra'][$alg];
    $l = new RateLimiter('ttl', 5, 0.2, rk_conn(), ['algorithm' => $alg, 'prefix' => $ns, 'local_block' => false]);
    for ($i = 0; $i < 40; $i++) {
        $k = 'k' . ($i % 3);
        $t0 = hrtime(true);
        $r = $l->attempt($k, 1 + $i % 2);
        $t = $raw->cmd('PTTL', "{$ns}ttl:$tag:{{$k}}");
        $elapsed = (hrtime(true) - $t0) / 1e6;
        // -1 would be a key without TTL. An allowed attempt recorded its
        // state, kept at least until the result's reset_after: the key must
        // still be there, unless that time has passed since the attempt
        // began (a fixed window that ended between the attempt and PTTL).
        $kept = $r['allowed'] && $r['reset_after'] * 1000 > $elapsed + 1;
        rk_assert($t !== -1 && ($kept ? $t > 0 : true) && $t <= 202, "$alg attempt $i: PTTL $t (reset_after {$r['reset_after']} s, $elapsed ms later)");
        $checked++;
        if ($i % 7 === 0) usleep(30000);
    }
}
var_dump($checked);
usleep(250000);
var_dump($raw->cmd('KEYS', $ns . 'ttl:*'));   // idle keys expire by themselves
?>
--EXPECT--
sliding_window  fresh true, peek writes nothing true, after one true, full true, reset true, allowed again true
fixed_window    fresh true, peek writes nothing true, after one true, full true, reset true, allowed again true
token_bucket    fresh true, peek writes nothing true, after one true, full true, reset true, allowed again true
gcra            fresh true, peek writes nothing true, after one true, full true, reset true, allowed again true
int(160)
array(0) {
}
