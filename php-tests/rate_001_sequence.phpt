--TEST--
RateLimiter: each algorithm allows the expected count over a scripted sequence of timed attempts (the fixed window lets a second burst through right after its edge, the sliding window does not)
--FILE--
<?php
require __DIR__ . '/_rate.inc';
use RedisKit\RateLimiter;

$raw = new RkRaw();
$ns = rk_ns();
// the window, 1 s; an emulated platform stretches it and every time below
// by its time scale (the counts stay the same)
$S = rk_time_scale();
$W = $S;
$lims = [
    // 3 per window
    'sliding_window' => new RateLimiter('seq', 3, $W, rk_conn(), ['prefix' => $ns]),
    'fixed_window' => new RateLimiter('seq', 3, $W, rk_conn(), ['prefix' => $ns, 'algorithm' => 'fixed_window']),
    // 2 per window, bursts of 3
    'token_bucket' => new RateLimiter('seq', 2, $W, rk_conn(), ['prefix' => $ns, 'algorithm' => 'token_bucket', 'burst' => 3]),
    'gcra' => new RateLimiter('seq', 2, $W, rk_conn(), ['prefix' => $ns, 'algorithm' => 'gcra', 'burst' => 3]),
];
// [ms after the start, attempts]; every decision is at least 250 ms away
// from a point where the expected count would change (times $S)
$phases = [[0, 5], [250, 2], [750, 2], [1250, 3], [1750, 3]];

// start half-way into a window aligned on the server's clock
$Wus = (int)round($W * 1000000);
$t0 = (intdiv(rate_now($raw), $Wus) + 1) * $Wus + intdiv($Wus, 2);
$counts = [];
foreach ($phases as [$ms, $n]) {
    $start = $t0 + (int)($ms * 1000 * $S);
    rate_sleep_until($raw, $start);
    foreach ($lims as $alg => $l) {
        $c = 0;
        for ($i = 0; $i < $n; $i++) {
            $c += $l->allow('user-1') ? 1 : 0;
        }
        $counts[$alg][] = $c;
    }
    $late = rate_now($raw) - $start;
    rk_assert($late < 200000 * $S, "phase at $ms ms took {$late} µs: the machine stalled, the counts prove nothing");
}
foreach ($counts as $alg => $c) {
    printf("%-15s %s\n", $alg, implode(' ', $c));
}

// another subject is independent
var_dump($lims['sliding_window']->allow('user-2'));

// the result's shape (a 1 s window whatever the platform)
$shape = new RateLimiter('seq', 2, 1, rk_conn(), ['prefix' => $ns, 'algorithm' => 'gcra', 'burst' => 3]);
$r = $shape->attempt('user-3');
var_dump($r);
?>
--EXPECTF--
sliding_window  3 0 0 3 0
fixed_window    3 0 2 1 3
token_bucket    3 0 1 1 1
gcra            3 0 1 1 1
bool(true)
array(7) {
  ["allowed"]=>
  bool(true)
  ["limit"]=>
  int(2)
  ["remaining"]=>
  int(2)
  ["retry_after"]=>
  float(0)
  ["reset_after"]=>
  float(0.5)
  ["policy"]=>
  string(3) "seq"
  ["window"]=>
  float(1)
}
