--TEST--
NUL bytes, 1 MB strings and extreme floats in the options and arguments of every class: a \ValueError or \TypeError (never a plain \Error) whose message echoes the value escaped and capped
--FILE--
<?php
require __DIR__ . '/_rk.inc';
// PHP's own coercion deprecations (api_001), and PHP 8.5's own warnings when it
// coerces NAN to a string or a float that no int can hold (as for str_repeat())
set_error_handler(fn($no, $msg) => $no === E_DEPRECATED
    || ($no === E_WARNING && preg_match('/^(unexpected NAN value was coerced to string|The float .* is not representable as an int, cast occurred)/', $msg)));
$dead = 'redis://127.0.0.1:' . rk_free_port();
$mb = str_repeat('a', 1 << 20);
$hostile = [
    'nul' => "x\0y", 'nul only' => "\0", '1 MB' => $mb, '1 MB of NULs' => str_repeat("\0", 1 << 20),
    'offset nul' => "+08:00\0", 'not utf-8' => "\xff\xfe", 'newline' => "a\nb",
    '-1e308' => -1e308, '1e308' => 1e308, 'NAN' => NAN, 'INF' => INF, '-INF' => -INF, '5e-324' => 5e-324,
    'int min' => PHP_INT_MIN, 'int max' => PHP_INT_MAX, 'float 1.5' => 1.5, 'true' => true,
    'list of NULs' => ["\0", $mb], 'map' => ["\0" => $mb],
];
$ctors = [
    'RedisLeaderboard' => fn($o, $c = null) => new RedisKit\RedisLeaderboard('x', $c ?? $dead, $o),
    'RedisLock' => fn($o, $c = null) => new RedisKit\RedisLock('x', $c ?? $dead, $o),
    'DelayQueue' => fn($o, $c = null) => new RedisKit\DelayQueue('x', $c ?? $dead, $o),
    'RateLimiter' => fn($o, $c = null) => new RedisKit\RateLimiter('x', 5, 1.0, $c ?? $dead, $o),
];
$calls = [];
foreach ($ctors as $class => $new) {
    // the known option keys, as the unknown-option message lists them
    preg_match('/\(known options: ([^)]*)\)/', rk_catch(fn() => $new(['no_such' => 1]))->getMessage(), $m);
    foreach (explode(', ', $m[1]) as $key) {
        foreach ($hostile as $label => $v) {
            $calls["$class option $key = $label"] = fn() => $new([$key => $v]);
        }
    }
    foreach ($hostile as $label => $v) {
        if (is_string($v)) {
            $calls["$class option key $label"] = fn() => $new([$v => 1]);
            $calls["$class DSN $label"] = fn() => $new([], "redis://$v");
            $calls["$class DSN raw $label"] = fn() => $new([], $v);
            $calls["$class DSN list $label"] = fn() => $new([], [$v, $v, $v]);
            $calls["$class cluster key $label"] = fn() => $new([], ['cluster' => ['redis://h'], $v => 1]);
            $calls["$class sentinel service $label"] = fn() => $new([], ['sentinel' => ['redis://h'], 'service' => $v]);
            $calls["$class array key $label"] = fn() => $new([], [$v => 'redis://h']);
        }
        $calls["$class cluster timeout $label"] = fn() => $new([], ['cluster' => ['redis://h'], 'read_timeout' => $v]);
        $calls["$class cluster seeds $label"] = fn() => $new([], ['cluster' => $v]);
    }
}
$lb = new RedisKit\RedisLeaderboard('x', $dead);
$lock = new RedisKit\RedisLock('x', $dead);
$q = new RedisKit\DelayQueue('x', $dead);
$rl = new RedisKit\RateLimiter('x', 5, 1.0, $dead);
$res = ['allowed' => false, 'limit' => 5, 'remaining' => 0, 'retry_after' => 1.0, 'reset_after' => 1.0, 'policy' => 'p', 'window' => 1.0];
foreach ($hostile as $label => $v) {
    $calls["RedisLeaderboard name $label"] = fn() => new RedisKit\RedisLeaderboard($v, $dead);
    $calls["RedisLock resource $label"] = fn() => new RedisKit\RedisLock($v, $dead);
    $calls["DelayQueue name $label"] = fn() => new RedisKit\DelayQueue($v, $dead);
    $calls["RateLimiter name $label"] = fn() => new RedisKit\RateLimiter($v, 5, 1.0, $dead);
    $calls["RateLimiter limit $label"] = fn() => new RedisKit\RateLimiter('x', $v, 1.0, $dead);
    $calls["RateLimiter window $label"] = fn() => new RedisKit\RateLimiter('x', 5, $v, $dead);
    $calls["setScore $label"] = fn() => $lb->setScore($v, $v);
    $calls["setScores $label"] = fn() => $lb->setScores(is_array($v) ? $v : [$v => $v, 'ok' => 1]);
    $calls["setScores key $label"] = fn() => $lb->setScores(is_string($v) ? [$v => 'not a number'] : []);
    $calls["incrementScore $label"] = fn() => $lb->incrementScore('m', $v);
    $calls["remove $label"] = fn() => is_array($v) ? $lb->remove(...array_values($v)) : $lb->remove($v);
    $calls["top $label"] = fn() => $lb->top($v);
    $calls["page $label"] = fn() => $lb->page($v, $v);
    $calls["around $label"] = fn() => $lb->around('m', $v);
    $calls["between $label"] = fn() => $lb->between($v, 1);
    $calls["period $label"] = fn() => $lb->period($v);
    $calls["period id $label"] = fn() => $lb->period('daily', $v);
    $calls["acquire $label"] = fn() => $lock->acquire($v);
    $calls["extend $label"] = fn() => $lock->extend($v);
    $calls["run wait $label"] = fn() => $lock->run(fn() => 1, $v);
    $calls["run callback $label"] = fn() => $lock->run($v);
    $calls["push $label"] = fn() => $q->push('p', $v);
    $calls["pushAt $label"] = fn() => $q->pushAt('p', $v);
    $calls["pushMany $label"] = fn() => $q->pushMany(is_array($v) ? $v : [$v => [], 'k' => $v], 0.0);
    $calls["pushMany delay $label"] = fn() => $q->pushMany(['p'], $v);
    $calls["pop $label"] = fn() => $q->pop($v, $v);
    $calls["retry $label"] = fn() => $q->retry('1', $v);
    $calls["dead $label"] = fn() => $q->dead($v);
    $calls["attempt cost $label"] = fn() => $rl->attempt('k', $v);
    $calls["attempt key $label"] = fn() => $rl->attempt($v);
    $calls["attemptAll $label"] = fn() => RedisKit\RateLimiter::attemptAll(is_array($v) ? $v : [$v => $v], 'k');
    foreach (array_keys($res) as $k) {
        $calls["headers $k $label"] = fn() => RedisKit\RateLimiter::headers([$k => $v] + $res);
    }
}
$bad = [];
$stats = [];
foreach ($calls as $what => $call) {
    $e = rk_catch($call);
    $class = $e ? get_class($e) : 'none';
    $stats[$class] = ($stats[$class] ?? 0) + 1;
    $ok = in_array($class, ['none', 'ValueError', 'TypeError', 'ArgumentCountError', 'RedisKit\ConnectionException'], true);
    $msg = $e ? $e->getMessage() : '';
    $short = strlen($msg) <= 400 && !preg_match('/[0-9]{40}/', $msg);
    if (!$ok || !$short || str_contains($msg, "\0") || !preg_match('//u', $msg)) {
        $bad[] = "$what: $class (" . strlen($msg) . ' bytes): ' . substr(addcslashes($msg, "\0..\37"), 0, 300);
    }
}
ksort($stats);
echo count($calls) > 1500 ? 'over 1500' : count($calls), " calls\n";
echo count($bad), " bad\n", implode("\n", array_slice($bad, 0, 40)), "\n";
// how a value is echoed
foreach ([
    fn() => $ctors['RateLimiter'](["\0" => 1]),
    fn() => $ctors['RateLimiter'](['on_error' => "allow\0"]),
    fn() => $ctors['RateLimiter'](['on_error' => $mb]),
    fn() => $ctors['RedisLock'](['ttl' => -1e308]),
    fn() => new RedisKit\RateLimiter('x', 5, -1e308, $dead),
    fn() => $q->push('p', -1e308),
    fn() => $lb->setScores(["m\0" => 'x']),
    fn() => $q->pushMany(["k\0" => []]),
    fn() => RedisKit\RateLimiter::attemptAll(["\0" . $mb => 1], 'k'),
    fn() => $ctors['DelayQueue']([], [$mb => 'redis://h']),
    fn() => $lock->run("no\0such_fn"),
    fn() => $lock->run($mb),
    fn() => $lock->run([$lock, "nope\n"]),
    fn() => $lock->run('no_such_fn'),
] as $f) {
    echo rk_ex(rk_catch($f)), "\n";
}
?>
--EXPECTF--
over 1500 calls
0 bad

ValueError: RateLimiter: unknown option '\0' (known options: algorithm, burst, on_error, local_block, prefix, window_start, wait_replicas, wait_timeout)
ValueError: option 'on_error' must be one of 'throw', 'allow', 'deny', 'local', got 'allow\0'
ValueError: option 'on_error' must be one of 'throw', 'allow', 'deny', 'local', got 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa... (1048576 bytes)'
ValueError: option 'ttl' must be a positive number of seconds, got -1e308
ValueError: RateLimiter: window must be a positive number of seconds, got -1e308
ValueError: %Sdelay must be a finite number of seconds >= 0, got -1e308
ValueError: setScores: the score of 'm\0' must be an int or a float, string given
ValueError: pushMany: payloads must be strings, got array at key 'k\0'
ValueError: RateLimiter::attemptAll: element '\0aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa... (1048577 bytes)' is not a RedisKit\RateLimiter (int given)
ValueError: unknown connection array key 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa... (1048576 bytes)': use a list of DSNs, ['cluster' => [...]] or ['sentinel' => [...], 'service' => '...']
TypeError: RedisKit\RedisLock::run(): Argument #1 ($callback) must be a valid callback, function "no\0such_fn" not found or invalid function name
TypeError: RedisKit\RedisLock::run(): Argument #1 ($callback) must be a valid callback, function "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa... (1048576 bytes)" not found or invalid function name
TypeError: RedisKit\RedisLock::run(): Argument #1 ($callback) must be a valid callback, class RedisKit\RedisLock does not have a method "nope\n"
TypeError: RedisKit\RedisLock::run(): Argument #1 ($callback) must be a valid callback, function "no_such_fn" not found or invalid function name
