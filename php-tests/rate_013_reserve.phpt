--TEST--
RateLimiter::reserve(): token_bucket and gcra take units ahead of time (waits on the Redis clock, later callers queue behind), a reservation over $maxWait changes nothing, 8 processes reserving and then waiting never use more than burst + rate x elapsed, and bad input is refused with nothing written
--SKIPIF--
<?php if (!function_exists('pcntl_fork')) echo 'skip pcntl needed'; ?>
--FILE--
<?php
require __DIR__ . '/_rate.inc';
use RedisKit\RateLimiter;

$ns = rk_ns();
$raw = new RkRaw();
// |a - b| <= tolerance, in microseconds
$near = fn(int $a, int $b, int $tol) => abs($a - $b) <= $tol;

foreach (['token_bucket', 'gcra'] as $alg) {
    // 10 per 10 seconds, burst 10: one unit a second
    $l = new RateLimiter("r$alg", 10, 10.0, rk_url(), ['prefix' => $ns, 'algorithm' => $alg]);
    $key = $ns . "r$alg:" . ($alg === 'gcra' ? 'gcra' : 'tb') . ':{k}';

    $t0 = rate_now($raw);
    $r = $l->reserve('k', 10);
    $t1 = rate_now($raw);
    printf("%s all 10 now: allowed=%s remaining=%d retry_after=%s limit=%d\n", $alg, var_export($r['allowed'], true), $r['remaining'], var_export($r['retry_after'], true), $r['limit']);
    // the bucket emptied at some T in [t0, t1]: 5 units are there at T + 5 s

    $state = fn() => $alg === 'gcra' ? $raw->cmd('GET', $key) : implode(',', $raw->cmd('HMGET', $key, 'n', 't'));
    $before = $state();
    $u0 = rate_now($raw);
    $r = $l->reserve('k', 5, 1.0);
    $u1 = rate_now($raw);
    $wait = rate_us($r['retry_after']);
    printf("%s 5 more within 1 s: allowed=%s, unchanged=%s, wait in [T+5s-now] bounds=%s\n", $alg, var_export($r['allowed'], true),
        var_export($state() === $before, true), var_export($wait >= $t0 + 5000000 - $u1 && $wait <= $t1 + 5000000 - $u0, true));

    $u0 = rate_now($raw);
    $a = $l->reserve('k', 5);
    $b = $l->reserve('k', 5);
    $c = $l->attempt('k');
    $u1 = rate_now($raw);
    $wa = rate_us($a['retry_after']);
    $wb = rate_us($b['retry_after']);
    $wc = rate_us($c['retry_after']);
    printf("%s queued: a allowed=%s remaining=%d, b allowed=%s, attempt refused=%s\n", $alg, var_export($a['allowed'], true), $a['remaining'], var_export($b['allowed'], true), var_export(!$c['allowed'], true));
    // a's units come at T + 5 s, b's 5 s after a's, one more unit 1 s later
    printf("%s a waits until T+5s: %s, b 5 s after a: %s, an attempt of 1 1 s after b: %s\n", $alg,
        var_export($wa >= $t0 + 5000000 - $u1 && $wa <= $t1 + 5000000 - $u0, true),
        var_export($near($wb - $wa, 5000000, $u1 - $u0 + 1), true),
        var_export($near($wc - $wb, 1000000, $u1 - $u0 + 1), true));
    printf("%s peek: remaining=%d allowed=%s\n", $alg, $l->peek('k')['remaining'], var_export($l->peek('k')['allowed'], true));
    $l->reset('k');
    $r = $l->reserve('k', 3, 0.0);
    printf("%s after reset: allowed=%s retry_after=%s remaining=%d\n", $alg, var_export($r['allowed'], true), var_export($r['retry_after'], true), $r['remaining']);
}

// 8 processes reserve one unit at a time and use it when its wait is over:
// the uses (on the server's clock) never exceed burst + rate x elapsed
$limit = 50;
$burst = 5;
$W = 1000000;
foreach (['token_bucket', 'gcra'] as $alg) {
    $l = new RateLimiter("p$alg", $limit, 1.0, rk_url(), ['prefix' => $ns, 'algorithm' => $alg, 'burst' => $burst]);
    $list = "{$ns}uses:$alg";
    $start = rate_now($raw);
    $kids = [];
    for ($c = 0; $c < 8; $c++) {
        $pid = pcntl_fork();
        if ($pid === 0) {
            $r = new RkRaw();
            for ($i = 0; $i < 10; $i++) {
                $t0 = rate_now($r);
                $res = $l->reserve('k', 1);
                $t1 = rate_now($r);
                // due at T + wait for some T in [t0, t1] (the script's clock): use it then
                $w = rate_us($res['retry_after']);
                rate_sleep_until($r, $t1 + $w);
                $r->cmd('RPUSH', $list, ($t0 + $w) . ' ' . ($t1 + $w + 1));
            }
            exit(0);
        }
        $kids[] = $pid;
    }
    foreach ($kids as $pid) {
        pcntl_waitpid($pid, $st);
    }
    $uses = array_map(fn($s) => array_map('intval', explode(' ', $s)), $raw->cmd('LRANGE', $list, '0', '-1'));
    usort($uses, fn($a, $b) => $a[0] <=> $b[0]);
    // the units due within [lo_i, hi_j] (certainly: lo_k >= lo_i, hi_k <= hi_j)
    // are at most burst + rate x (hi_j - lo_i)
    $ok = true;
    $n = count($uses);
    for ($i = 0; $i < $n; $i++) {
        for ($j = 0; $j < $n; $j++) {
            if ($uses[$j][1] < $uses[$i][0]) continue;
            $units = 0;
            foreach ($uses as [$lo, $hi]) {
                if ($lo >= $uses[$i][0] && $hi <= $uses[$j][1]) $units++;
            }
            if ($units * $W > $burst * $W + $limit * ($uses[$j][1] - $uses[$i][0])) $ok = false;
        }
    }
    $span = $uses[$n - 1][0] - $start;
    // 80 units at 50/s with a burst of 5: the last one is due about 1.5 s after the start
    printf("%s 8 processes x 10 reservations: %d used, rate kept=%s, last due after %s s\n", $alg, $n, var_export($ok, true), $span >= 1400000 ? '>= 1.4' : 'less than 1.4 (' . $span . ' us)');
}

// reserve() is not answered from local_block's memory of a refusal
$lb = new RateLimiter('lb', 1, 10.0, rk_url(), ['prefix' => $ns, 'algorithm' => 'token_bucket', 'local_block' => true]);
$lb->attempt('k');
$lb->attempt('k');                       // refused by Redis: remembered
$c0 = RedisKit\stats()['commands'];
$refused = $lb->attempt('k');
$c1 = RedisKit\stats()['commands'];
$r = $lb->reserve('k');
printf("local_block: the refusal was answered locally %s; reserve() asked Redis %s and reserved ahead %s\n", var_export(!$refused['allowed'] && $c1 === $c0, true),
    var_export(RedisKit\stats()['commands'] === $c1 + 1, true), var_export($r['allowed'] && $r['retry_after'] > 9.0, true));

// bad input: a ValueError, nothing written
foreach (['sliding_window', 'fixed_window'] as $alg) {
    $w = new RateLimiter("bad$alg", 5, 1.0, rk_url(), ['prefix' => $ns, 'algorithm' => $alg]);
    try { $w->reserve('k'); } catch (\ValueError $e) { echo get_class($e), ': ', $e->getMessage(), "\n"; }
}
$g = new RateLimiter('badg', 5, 1.0, rk_url(), ['prefix' => $ns, 'algorithm' => 'gcra']);
foreach ([[6, null], [0, null], [1, -1.0], [1, NAN], [1, INF]] as [$cost, $max]) {
    try { $g->reserve('k', $cost, $max); } catch (\ValueError $e) { echo get_class($e), ': ', $e->getMessage(), "\n"; }
}
try { $g->reserve('', 1); } catch (\ValueError $e) { echo get_class($e), ': ', $e->getMessage(), "\n"; }
var_dump($raw->cmd('KEYS', $ns . 'bad*'));
try { (new RateLimiter('down', 5, 1.0, 'redis://127.0.0.1:1', ['algorithm' => 'gcra', 'on_error' => 'allow']))->reserve('k'); } catch (\RedisKit\ConnectionException $e) { echo get_class($e), "\n"; }
?>
--EXPECTF--
token_bucket all 10 now: allowed=true remaining=0 retry_after=0.0 limit=10
token_bucket 5 more within 1 s: allowed=false, unchanged=true, wait in [T+5s-now] bounds=true
token_bucket queued: a allowed=true remaining=0, b allowed=true, attempt refused=true
token_bucket a waits until T+5s: true, b 5 s after a: true, an attempt of 1 1 s after b: true
token_bucket peek: remaining=0 allowed=false
token_bucket after reset: allowed=true retry_after=0.0 remaining=7
gcra all 10 now: allowed=true remaining=0 retry_after=0.0 limit=10
gcra 5 more within 1 s: allowed=false, unchanged=true, wait in [T+5s-now] bounds=true
gcra queued: a allowed=true remaining=0, b allowed=true, attempt refused=true
gcra a waits until T+5s: true, b 5 s after a: true, an attempt of 1 1 s after b: true
gcra peek: remaining=0 allowed=false
gcra after reset: allowed=true retry_after=0.0 remaining=7
token_bucket 8 processes x 10 reservations: 80 used, rate kept=true, last due after >= 1.4 s
gcra 8 processes x 10 reservations: 80 used, rate kept=true, last due after >= 1.4 s
local_block: the refusal was answered locally true; reserve() asked Redis true and reserved ahead true
ValueError: RateLimiter::reserve: only 'token_bucket' and 'gcra' limiters can reserve units ahead of time, this one is 'sliding_window'
ValueError: RateLimiter::reserve: only 'token_bucket' and 'gcra' limiters can reserve units ahead of time, this one is 'fixed_window'
ValueError: RateLimiter: cost 6 is more than this limiter can ever allow at once (its burst is 5)
ValueError: RateLimiter: cost must be at least 1, got 0
ValueError: RateLimiter::reserve(): $maxWait must be a finite number of seconds >= 0, got -1
ValueError: RateLimiter::reserve(): $maxWait must be a finite number of seconds >= 0, got NaN
ValueError: RateLimiter::reserve(): $maxWait must be a finite number of seconds >= 0, got inf
ValueError: RateLimiter: the key must not be empty
array(0) {
}
RedisKit\ConnectionException
