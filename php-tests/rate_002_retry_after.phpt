--TEST--
RateLimiter: retry_after is exact for every algorithm: an attempt made after it passes, one made a little before (2 ms) is refused; timed on the server's clock, with and without local_block
--FILE--
<?php
require __DIR__ . '/_rate.inc';
use RedisKit\RateLimiter;

$raw = new RkRaw();
$ns = rk_ns();
$W = 500000; // µs
// Every claim is timed on the server's clock, each call bracketed by clock
// reads before and after it; a try whose brackets a stall of this (loaded)
// machine has stretched too far to prove the claim is made again.
foreach ([false, true] as $block) {
    foreach (RATE_ALGOS as $alg) {
        foreach ([1, 2] as $cost) {
            // 3 per 0.5 s: the bucket algorithms' emission interval is 166666.67 µs
            $l = new RateLimiter("ra-$alg-$cost-" . (int)$block, 3, 0.5, rk_url(),
                ['algorithm' => $alg, 'prefix' => $ns, 'local_block' => $block]);
            $proved = false;
            for ($try = 0; $try < 20 && !$proved; $try++) {
                $l->reset('u');
                // start just after a window edge, so the fixed window does not roll over
                $p0 = (intdiv(rate_now($raw), $W) + 1) * $W + 10000;
                rate_sleep_until($raw, $p0);
                $l->attempt('u');
                usleep(100000);
                $l->attempt('u');
                $l->attempt('u');
                $s0 = rate_now($raw);
                $d = $l->attempt('u', $cost);
                $s1 = rate_now($raw);
                if ($s1 - $p0 > 150000) {
                    continue; // stalled: the buckets may have refilled a unit (one per 166.67 ms): not full
                }
                rk_assert(!$d['allowed'], "$alg cost $cost: refused when full");
                $R = rate_us($d['retry_after']);
                rk_assert($R > 0 && $R <= $W, "$alg cost $cost: 0 < retry_after <= window ($R)");

                // The refusal ran at some r in [s0, s1]; an attempt passes from r + R on.
                // A little before: from s1 + R - 2 ms (at most 2 ms early), and it
                // must have run before s0 + R (so before r + R).
                $e0 = rate_sleep_until($raw, $s1 + $R - 2000);
                $c0 = RedisKit\stats()['commands'];
                $e = $l->attempt('u', $cost);
                $c1 = RedisKit\stats()['commands'];
                $e1 = rate_now($raw);
                if ($e1 >= $s0 + $R) {
                    continue; // ran too late (or the refusal's bracket was too wide) to prove anything: try again
                }
                rk_assert(!$e['allowed'], "$alg cost $cost: refused 2 ms before retry_after");
                if ($block) {
                    rk_assert($c1 === $c0, "$alg cost $cost: refused from the local_block cache, no round trip");
                    // The cached answer counts down with the clock: it counts from
                    // the refusal's reply (in [s0, s1]) and was read in [e0, e1].
                    // Both brackets fit in the 2 ms above; 200 µs for rounding.
                    $left = rate_us($e['retry_after']);
                    rk_assert($left >= $s0 + $R - $e1 - 200 && $left <= $s1 + $R - $e0 + 200,
                        "$alg: cached retry_after counts down ($left, expected " . ($s0 + $R - $e1) . '..' . ($s1 + $R - $e0) . ')');
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
$proved = false;
for ($try = 0; $try < 10 && !$proved; $try++) {
    $l->reset('u');
    // units taken 100 ms apart: 1 at t, 1 at t + 100 ms, 2 at t + 200 ms, each
    // attempt bracketed by clock reads ([before, after])
    $t = (intdiv(rate_now($raw), $W) + 1) * $W;
    $u = [];
    foreach ([[0, 1], [100000, 1], [200000, 2]] as [$at, $c]) {
        $before = rate_sleep_until($raw, $t + $at);
        $a = $l->attempt('u', $c);
        $u[] = [$before, rate_now($raw)];
        rk_assert($a['allowed'], "cost: attempt of $c at +$at µs allowed");
    }
    $r = [];
    foreach ([1, 2, 3] as $c) {
        $before = rate_now($raw);
        $a = $l->attempt('u', $c);
        $r[$c] = [$before, rate_now($raw), $a];
    }
    if ($r[3][1] >= $u[0][0] + $W) {
        continue; // stalled: the oldest unit may have left the window already
    }
    // cost k waits until the k-th oldest unit (taken at u_k) leaves: u_k + W - (when it was asked);
    // the gaps between those waits, from the brackets
    $gap = function (array $ua, array $ub, array $ra, array $rb) {
        return [$ub[0] - $ua[1] - ($rb[1] - $ra[0]), $ub[1] - $ua[0] - ($rb[0] - $ra[1])];
    };
    $g12 = $gap($u[0], $u[1], $r[1], $r[2]);
    $g23 = $gap($u[1], $u[2], $r[2], $r[3]);
    if ($g12[1] - $g12[0] > 10000 || $g23[1] - $g23[0] > 10000) {
        continue; // a stall widened the brackets beyond ±5 ms: try again
    }
    foreach ($r as $c => [, , $a]) rk_assert(!$a['allowed'], "cost: attempt of $c refused when full");
    $d12 = rate_us($r[2][2]['retry_after']) - rate_us($r[1][2]['retry_after']);
    $d23 = rate_us($r[3][2]['retry_after']) - rate_us($r[2][2]['retry_after']);
    rk_assert($d12 >= $g12[0] - 200 && $d12 <= $g12[1] + 200, "cost 2 waits 100 ms longer than cost 1 ($d12, expected {$g12[0]}..{$g12[1]})");
    rk_assert($d23 >= $g23[0] - 200 && $d23 <= $g23[1] + 200, "cost 3 waits 100 ms longer than cost 2 ($d23, expected {$g23[0]}..{$g23[1]})");
    $proved = true;
}
rk_assert($proved, 'cost: never measured within ±5 ms');
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
