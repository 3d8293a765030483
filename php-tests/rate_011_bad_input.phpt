--TEST--
RateLimiter bad input: limit < 1, window <= 0, NaN/INF, cost < 1 or above what the limiter can ever allow, unknown algorithm or option, bad option values -> ValueError, and nothing is written to Redis
--FILE--
<?php
require __DIR__ . '/_rate.inc';
use RedisKit\RateLimiter;

$ns = rk_ns();
$u = rk_url();
$new = fn(...$a) => fn() => new RateLimiter(...$a);
$cases = [
    'limit 0' => $new('x', 0, 1, $u),
    'limit -5' => $new('x', -5, 1, $u),
    'window 0' => $new('x', 1, 0, $u),
    'window -1' => $new('x', 1, -1.0, $u),
    'window NAN' => $new('x', 1, NAN, $u),
    'window INF' => $new('x', 1, INF, $u),
    'window 1e-9' => $new('x', 1, 1e-9, $u),
    'window 1e10' => $new('x', 1, 1e10, $u),
    'sliding limit too big' => $new('x', 20000000, 1, $u),
    'empty name' => $new('', 1, 1, $u),
    'name with a brace' => $new('a{b}', 1, 1, $u),
    'unknown algorithm' => $new('x', 1, 1, $u, ['algorithm' => 'leaky']),
    'algorithm not a string' => $new('x', 1, 1, $u, ['algorithm' => 1]),
    'unknown option' => $new('x', 1, 1, $u, ['algo' => 'gcra']),
    'int option key' => $new('x', 1, 1, $u, [0 => 'gcra']),
    'burst for a window' => $new('x', 5, 1, $u, ['burst' => 2]),
    'burst 0' => $new('x', 5, 1, $u, ['algorithm' => 'gcra', 'burst' => 0]),
    'burst float' => $new('x', 5, 1, $u, ['algorithm' => 'token_bucket', 'burst' => 2.5]),
    'on_error unknown' => $new('x', 5, 1, $u, ['on_error' => 'ignore']),
    'local_block string' => $new('x', 5, 1, $u, ['local_block' => 'yes']),
    'prefix int' => $new('x', 5, 1, $u, ['prefix' => 5]),
    'bad DSN' => $new('x', 5, 1, 'mysql://localhost'),
    'token_bucket too fine' => $new('x', 999983, 86400, $u, ['algorithm' => 'token_bucket', 'burst' => 1000000]),
];
foreach ($cases as $what => $fn) {
    printf("%-24s %s\n", $what, rk_ex(rk_catch($fn)));
}

$raw = new RkRaw();
$c0 = RedisKit\stats()['commands'];
$w = new RateLimiter('w', 3, 1, $u, ['prefix' => $ns]);
$b = new RateLimiter('b', 10, 1, $u, ['prefix' => $ns, 'algorithm' => 'token_bucket', 'burst' => 4]);
$calls = [
    'cost 0' => fn() => $w->attempt('k', 0),
    'cost -1' => fn() => $w->allow('k', -1),
    'cost above limit' => fn() => $w->attempt('k', 4),
    'cost above burst' => fn() => $b->attempt('k', 5),
    'empty key' => fn() => $w->attempt(''),
    'empty key (peek)' => fn() => $w->peek(''),
    'empty key (reset)' => fn() => $w->reset(''),
];
foreach ($calls as $what => $fn) {
    printf("%-24s %s\n", $what, rk_ex(rk_catch($fn)));
}
var_dump(RedisKit\stats()['commands'] - $c0, $raw->cmd('KEYS', $ns . '*'));
// the most a limiter allows at once is fine
var_dump($w->attempt('k', 3)['allowed'], $b->attempt('k', 4)['allowed']);
// a gcra with the same huge settings is representable
var_dump((new RateLimiter('g', 999983, 86400, $u, ['prefix' => $ns, 'algorithm' => 'gcra', 'burst' => 1000000]))->allow('k', 1000000));
?>
--EXPECTF--
limit 0                  ValueError: RateLimiter: limit must be at least 1, got 0
limit -5                 ValueError: RateLimiter: limit must be at least 1, got -5
window 0                 ValueError: RateLimiter: window must be a positive number of seconds, got 0
window -1                ValueError: RateLimiter: window must be a positive number of seconds, got -1
window NAN               ValueError: RateLimiter: window must be a positive number of seconds, got NaN
window INF               ValueError: RateLimiter: window must be a positive number of seconds, got inf
window 1e-9              ValueError: RateLimiter: window must be at least 1 microsecond (0.000001), got 1e-9
window 1e10              ValueError: RateLimiter: window must be below 1e9 seconds, got 10000000000
sliding limit too big    ValueError: RateLimiter: limit must be at most 10000000 for sliding_window, got 20000000
empty name               ValueError: RateLimiter: the name must not be empty
name with a brace        ValueError: RateLimiter: the name must not contain '{' or '}' (the subject key is the Redis Cluster hash tag)
unknown algorithm        ValueError: RateLimiter: unknown algorithm 'leaky' (use 'sliding_window', 'fixed_window', 'token_bucket' or 'gcra')
algorithm not a string   ValueError: option 'algorithm' must be a string, got int
unknown option           ValueError: RateLimiter: unknown option 'algo' (known options: algorithm, burst, on_error, local_block, prefix, window_start, wait_replicas, wait_timeout)
int option key           ValueError: option keys must be strings, got the int key 0
burst for a window       ValueError: RateLimiter: option 'burst' only applies to 'token_bucket' and 'gcra', not 'sliding_window'
burst 0                  ValueError: RateLimiter: burst must be between 1 and 1000000000000000, got 0
burst float              ValueError: RateLimiter: option 'burst' must be an int
on_error unknown         ValueError: option 'on_error' must be one of 'throw', 'allow', 'deny', 'local', got 'ignore'
local_block string       ValueError: option 'local_block' must be a bool, got string
prefix int               ValueError: option 'prefix' must be a string, got int
bad DSN                  ValueError: invalid Redis DSN 'mysql://localhost': unknown scheme 'mysql' (use redis, rediss or unix)
token_bucket too fine    ValueError: RateLimiter: token_bucket cannot count 1000000 tokens at 999983 per 86400 s exactly %s
cost 0                   ValueError: RateLimiter: cost must be at least 1, got 0
cost -1                  ValueError: RateLimiter: cost must be at least 1, got -1
cost above limit         ValueError: RateLimiter: cost 4 is more than this limiter can ever allow at once (its limit is 3)
cost above burst         ValueError: RateLimiter: cost 5 is more than this limiter can ever allow at once (its burst is 4)
empty key                ValueError: RateLimiter: the key must not be empty
empty key (peek)         ValueError: RateLimiter: the key must not be empty
empty key (reset)        ValueError: RateLimiter: the key must not be empty
int(0)
array(0) {
}
bool(true)
bool(true)
bool(true)
