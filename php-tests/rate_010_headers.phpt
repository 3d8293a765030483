--TEST--
RateLimiter::headers: RateLimit-Policy and RateLimit (draft-ietf-httpapi-ratelimit-headers-10), X-RateLimit-Limit/Remaining/Reset, Retry-After (whole seconds, rounded up) only when refused; the result array is validated
--FILE--
<?php
require __DIR__ . '/_rate.inc';
use RedisKit\RateLimiter;

$ns = rk_ns();
$l = new RateLimiter('api', 2, 60, rk_url(), ['prefix' => $ns, 'algorithm' => 'fixed_window']);
$ok = $l->attempt('k');
$h = RateLimiter::headers($ok);
var_dump(array_keys($h));
var_dump($h['RateLimit-Policy'], $h['X-RateLimit-Limit'], $h['X-RateLimit-Remaining']);
// t and X-RateLimit-Reset: seconds until the window's end, rounded up
$reset = (int)ceil($ok['reset_after']);
var_dump($h['RateLimit'] === "\"api\";r=1;t=$reset", $h['X-RateLimit-Reset'] === (string)$reset);
$l->attempt('k');
$no = $l->attempt('k');
$h = RateLimiter::headers($no);
var_dump($h['Retry-After'] === (string)(int)ceil($no['retry_after']), $h['X-RateLimit-Remaining']);

// from hand-made results: rounding up, names quoted, windows that are not whole seconds left out
$base = ['allowed' => false, 'limit' => 10, 'remaining' => 0, 'retry_after' => 0.2, 'reset_after' => 1.000001];
var_dump(RateLimiter::headers($base));
var_dump(RateLimiter::headers(['allowed' => true, 'retry_after' => 0, 'reset_after' => 2.0, 'policy' => "per \"user\"\n", 'window' => 0.5] + $base));
var_dump(RateLimiter::headers(['retry_after' => 3.0, 'policy' => 'hourly', 'window' => 3600] + $base)['RateLimit-Policy']);

// bad shapes
foreach ([
    [],
    ['allowed' => 1] + $base,
    array_diff_key($base, ['limit' => 0]),
    ['limit' => '10'] + $base,
    ['limit' => 0] + $base,
    ['remaining' => -1] + $base,
    ['retry_after' => NAN] + $base,
    ['reset_after' => -0.5] + $base,
    ['reset_after' => 'soon'] + $base,
    ['window' => 0] + $base,
    ['policy' => []] + $base,
] as $bad) {
    echo rk_ex(rk_catch(fn() => RateLimiter::headers($bad))), "\n";
}
?>
--EXPECT--
array(5) {
  [0]=>
  string(16) "RateLimit-Policy"
  [1]=>
  string(9) "RateLimit"
  [2]=>
  string(17) "X-RateLimit-Limit"
  [3]=>
  string(21) "X-RateLimit-Remaining"
  [4]=>
  string(17) "X-RateLimit-Reset"
}
string(14) ""api";q=2;w=60"
string(1) "2"
string(1) "1"
bool(true)
bool(true)
bool(true)
string(1) "0"
array(6) {
  ["RateLimit-Policy"]=>
  string(14) ""default";q=10"
  ["RateLimit"]=>
  string(17) ""default";r=0;t=1"
  ["X-RateLimit-Limit"]=>
  string(2) "10"
  ["X-RateLimit-Remaining"]=>
  string(1) "0"
  ["X-RateLimit-Reset"]=>
  string(1) "2"
  ["Retry-After"]=>
  string(1) "1"
}
array(5) {
  ["RateLimit-Policy"]=>
  string(20) ""per \"user\"_";q=10"
  ["RateLimit"]=>
  string(23) ""per \"user\"_";r=0;t=2"
  ["X-RateLimit-Limit"]=>
  string(2) "10"
  ["X-RateLimit-Remaining"]=>
  string(1) "0"
  ["X-RateLimit-Reset"]=>
  string(1) "2"
}
string(20) ""hourly";q=10;w=3600"
ValueError: RateLimiter::headers: the result has no 'allowed' (pass what attempt() or peek() returned)
ValueError: RateLimiter::headers: 'allowed' must be a bool, int given
ValueError: RateLimiter::headers: the result has no 'limit' (pass what attempt() or peek() returned)
ValueError: RateLimiter::headers: 'limit' must be an int, string given
ValueError: RateLimiter::headers: 'limit' must be at least 1, got 0
ValueError: RateLimiter::headers: 'remaining' must be >= 0, got -1
ValueError: RateLimiter::headers: 'retry_after' must be a finite number of seconds >= 0, got NaN
ValueError: RateLimiter::headers: 'reset_after' must be a finite number of seconds >= 0, got -0.5
ValueError: RateLimiter::headers: 'reset_after' must be a number, string given
ValueError: RateLimiter::headers: 'window' must be a positive number of seconds, got 0
ValueError: RateLimiter::headers: 'policy' must be a string, array given
