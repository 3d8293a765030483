--TEST--
Self-referencing and deeply nested arrays, and references, in options, connection arrays and array arguments: a \ValueError (or the value used), never a crash
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$dead = 'redis://127.0.0.1:' . rk_free_port();
$self = ['x'];
$self[] = &$self;
$deep = [];
for ($i = 0; $i < 200000; $i++) {
    $deep = [$deep];
}
$calls = [];
foreach (['self' => $self, 'deep' => $deep] as $label => $v) {
    foreach (['order', 'periods', 'ttl', 'prefix', 'utc_offset'] as $k) {
        $calls["RedisLeaderboard $k $label"] = fn() => new RedisKit\RedisLeaderboard('x', $dead, [$k => $v]);
    }
    foreach (['ttl', 'token', 'watchdog'] as $k) {
        $calls["RedisLock $k $label"] = fn() => new RedisKit\RedisLock('x', $dead, [$k => $v]);
    }
    foreach (['consumer', 'backoff'] as $k) {
        $calls["DelayQueue $k $label"] = fn() => new RedisKit\DelayQueue('x', $dead, [$k => $v]);
    }
    $calls["RateLimiter algorithm $label"] = fn() => new RedisKit\RateLimiter('x', 1, 1.0, $dead, ['algorithm' => $v]);
    $calls["cluster $label"] = fn() => new RedisKit\RedisLeaderboard('x', ['cluster' => $v]);
    $calls["cluster password $label"] = fn() => new RedisKit\RedisLeaderboard('x', ['cluster' => ['redis://h'], 'password' => $v]);
    $calls["sentinel $label"] = fn() => new RedisKit\RedisLock('x', ['sentinel' => $v, 'service' => 'm']);
    $calls["Redlock list $label"] = fn() => new RedisKit\RedisLock('x', [$v, $v, $v]);
    $calls["connection $label"] = fn() => new RedisKit\DelayQueue('x', $v);
    $lb = new RedisKit\RedisLeaderboard('x', $dead);
    $calls["setScores $label"] = fn() => $lb->setScores($v);
    $calls["pushMany $label"] = fn() => (new RedisKit\DelayQueue('x', $dead))->pushMany($v);
    $calls["attemptAll $label"] = fn() => RedisKit\RateLimiter::attemptAll($v, 'k');
    $calls["headers $label"] = fn() => RedisKit\RateLimiter::headers($v);
}
foreach ($calls as $what => $f) {
    echo "$what: ", rk_ex(rk_catch($f)), "\n";
}
// references to valid values are followed
$t = true; $n = 5; $z = 0; $f1 = 1.5; $p = 'pol'; $null = null;
$h = RedisKit\RateLimiter::headers(['allowed' => &$t, 'limit' => &$n, 'remaining' => &$z, 'retry_after' => &$f1,
    'reset_after' => &$f1, 'policy' => &$p, 'window' => &$null]);
echo json_encode($h), "\n";
$ttl = 2.5;
$l = new RedisKit\RedisLock('x', $dead, ['ttl' => &$ttl, 'watchdog' => &$t]);
echo get_class($l), "\n";
echo "alive\n";
?>
--EXPECTF--
RedisLeaderboard order self: ValueError: option 'order' must be a string, got array
RedisLeaderboard periods self: ValueError: %s
RedisLeaderboard ttl self: ValueError: option 'ttl' must be a number of seconds, got array
RedisLeaderboard prefix self: ValueError: option 'prefix' must be a string, got array
RedisLeaderboard utc_offset self: ValueError: %s
RedisLock ttl self: ValueError: option 'ttl' must be a number of seconds, got array
RedisLock token self: ValueError: option 'token' must be a string, got array
RedisLock watchdog self: ValueError: option 'watchdog' must be a bool, got array
DelayQueue consumer self: ValueError: option 'consumer' must be a string, got array
DelayQueue backoff self: ValueError: %s
RateLimiter algorithm self: ValueError: option 'algorithm' must be a string, got array
cluster self: ValueError: option 'cluster' must be a list of strings, got array
cluster password self: ValueError: option 'password' must be a string, got array
sentinel self: ValueError: option 'sentinel' must be a list of strings, got array
Redlock list self: ValueError: a connection list must hold DSN strings only
connection self: ValueError: %s
setScores self: ValueError: setScores: the score of '0' must be an int or a float, string given
pushMany self: ValueError: pushMany: payloads must be strings, got array at key '1'
attemptAll self: ValueError: RateLimiter::attemptAll: element 0 is not a RedisKit\RateLimiter (string given)
headers self: ValueError: RateLimiter::headers: the result has no 'allowed' (pass what attempt() or peek() returned)
RedisLeaderboard order deep: ValueError: option 'order' must be a string, got array
RedisLeaderboard periods deep: ValueError: %s
RedisLeaderboard ttl deep: ValueError: option 'ttl' must be a number of seconds, got array
RedisLeaderboard prefix deep: ValueError: option 'prefix' must be a string, got array
RedisLeaderboard utc_offset deep: ValueError: %s
RedisLock ttl deep: ValueError: option 'ttl' must be a number of seconds, got array
RedisLock token deep: ValueError: option 'token' must be a string, got array
RedisLock watchdog deep: ValueError: option 'watchdog' must be a bool, got array
DelayQueue consumer deep: ValueError: option 'consumer' must be a string, got array
DelayQueue backoff deep: ValueError: %s
RateLimiter algorithm deep: ValueError: option 'algorithm' must be a string, got array
cluster deep: ValueError: option 'cluster' must be a list of strings, got array
cluster password deep: ValueError: option 'password' must be a string, got array
sentinel deep: ValueError: option 'sentinel' must be a list of strings, got array
Redlock list deep: ValueError: a connection list must hold DSN strings only
connection deep: ValueError: %s
setScores deep: ValueError: setScores: the score of '0' must be an int or a float, array given
pushMany deep: ValueError: pushMany: payloads must be strings, got array at key '0'
attemptAll deep: ValueError: RateLimiter::attemptAll: element 0 is not a RedisKit\RateLimiter (array given)
headers deep: ValueError: RateLimiter::headers: the result has no 'allowed' (pass what attempt() or peek() returned)
{"RateLimit-Policy":"\"pol\";q=5","RateLimit":"\"pol\";r=0;t=2","X-RateLimit-Limit":"5","X-RateLimit-Remaining":"0","X-RateLimit-Reset":"2"}
RedisKit\RedisLock
alive
