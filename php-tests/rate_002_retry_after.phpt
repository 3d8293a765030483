--TEST--
RateLimiter: retry_after is exact for every algorithm: an attempt made after it passes, one made a little before (2 ms) is refused; timed on the server's clock, with and without local_block
--FILE--
<?php
require __DIR__ . '/_rate.inc';
use RedisKit\RateLimiter;

$raw = new RkRaw();
$ns = rk_ns();
$W = 500000; // µs
foreach ([false, true] as $block) {
    foreach (RATE_ALGOS as $alg) {
        foreach ([1, 2] as $cost) {
            // 3 per 0.5 s: the bucket algorithms' emission interval is 166666.67 µs
            $l = new RateLimiter("ra-$alg-$cost-" . (int)$block, 3, 0.5, rk_url(),
                ['algorithm' => $alg, 'prefix' => $ns, 'local_block' => $block]);
            $proved = false;
            for ($try = 0; $try < 5 && !$proved; $try++) {
                $l->reset('u');
                // start just after a window edge, so the fixed window does not roll over
                rate_sleep_until($raw, (intdiv(rate_now($raw), $W) + 1) * $W + 10000);
                $l->attempt('u');
                usleep(100000);
                $l->attempt('u');
                $l->attempt('u');
                $s0 = rate_now($raw);
                $d = $l->attempt('u', $cost);
                $s1 = rate_now($raw);
                rk_assert(!$d['allowed'], "$alg cost $cost: refused when full");
                $R = rate_us($d['retry_after']);
                rk_assert($R > 0 && $R <= $W, "$alg cost $cost: 0 < retry_after <= window ($R)");

                // a little before: must run before s0 + R (the refusal ran after s0)
                rate_sleep_until($raw, $s0 + $R - 2000);
                $c0 = RedisKit\stats()['commands'];
                $e = $l->attempt('u', $cost);
                $c1 = RedisKit\stats()['commands'];
                $e1 = rate_now($raw);
                if ($e1 >= $s0 + $R) {
                    continue; // ran too late to prove anything: try again
                }
                rk_assert(!$e['allowed'], "$alg cost $cost: refused 2 ms before retry_after");
                if ($block) {
                    rk_assert($c1 === $c0, "$alg cost $cost: refused from the local_block cache, no round trip");
                    // the cached answer counts down with the clock
                    rk_assert(abs(rate_us($e['retry_after']) - ($s0 + $R - $e1)) < 2000, "$alg: cached retry_after counts down");
                }

                // on time: from s1 + R on (the refusal ran before s1) it must pass
                rate_sleep_until($raw, $s1 + $R + 2000);
                $ok = $l->attempt('u', $cost);
                rk_assert($ok['allowed'], "$alg cost $cost: allowed 2 ms after retry_after (" . json_encode($ok) . ')');
                $proved = true;
            }
            printf("%s cost %d local_block %s: %s\n", $alg, $cost, $block ? 'on ' : 'off', $proved ? 'exact' : 'not proved');
        }
    }
}

// the wait of a refused attempt grows with its cost (sliding window: the k-th oldest unit must leave)
$l = new RateLimiter('k', 4, 0.5, rk_url(), ['prefix' => $ns, 'local_block' => false]);
$t = (intdiv(rate_now($raw), $W) + 1) * $W;
rate_sleep_until($raw, $t);
$l->attempt('u');
rate_sleep_until($raw, $t + 100000);
$l->attempt('u');
rate_sleep_until($raw, $t + 200000);
$l->attempt('u', 2);
$r1 = $l->attempt('u', 1);
$r2 = $l->attempt('u', 2);
$r3 = $l->attempt('u', 3);
// the 1st, 2nd and 3rd oldest units were taken 100 ms, 0 ms and 0 ms apart
$d12 = rate_us($r2['retry_after']) - rate_us($r1['retry_after']);
$d23 = rate_us($r3['retry_after']) - rate_us($r2['retry_after']);
rk_assert(abs($d12 - 100000) < 5000, "cost 2 waits 100 ms longer than cost 1 ($d12)");
rk_assert(abs($d23 - 100000) < 5000, "cost 3 waits 100 ms longer than cost 2 ($d23)");
echo "done\n";
?>
--EXPECT--
sliding_window cost 1 local_block off: exact
sliding_window cost 2 local_block off: exact
fixed_window cost 1 local_block off: exact
fixed_window cost 2 local_block off: exact
token_bucket cost 1 local_block off: exact
token_bucket cost 2 local_block off: exact
gcra cost 1 local_block off: exact
gcra cost 2 local_block off: exact
sliding_window cost 1 local_block on : exact
sliding_window cost 2 local_block on : exact
fixed_window cost 1 local_block on : exact
fixed_window cost 2 local_block on : exact
token_bucket cost 1 local_block on : exact
token_bucket cost 2 local_block on : exact
gcra cost 1 local_block on : exact
gcra cost 2 local_block on : exact
done
