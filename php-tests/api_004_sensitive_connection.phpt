--TEST--
The $connection argument of every constructor is a #[\SensitiveParameter]: no password in exception traces, (string)$e, print_r/var_dump of the exception, getTrace() or debug_backtrace(), with zend.exception_ignore_args=0
--INI--
zend.exception_ignore_args=0
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$secret = 'S3cr3tPw';
$dsn = "redis://:$secret@127.0.0.1:" . rk_free_port();
$arr = ['sentinel' => ["redis://:$secret@127.0.0.1:1"], 'service' => 'm', 'password' => $secret, 'colour' => 'x'];
$leaks = [];
$check = function (string $what, $v) use ($secret, &$leaks) {
    $s = is_string($v) ? $v : print_r($v, true) . var_export(@var_export($v, true), true);
    ob_start(); var_dump($v); $s .= ob_get_clean();
    if (str_contains($s, $secret)) $leaks[] = $what;
};
// Only the constructor frame gets the secret (every call below is written at
// the top level, so no userland frame or closure holds it as an argument).
// A null $name raises a deprecation, so the error handler, a callback, runs
// inside the constructor frame.
$classes = ['RedisLeaderboard' => 1, 'RedisLock' => 1, 'DelayQueue' => 1, 'RateLimiter' => 3];
$handler = function () use (&$bt) { $bt = debug_backtrace(); return true; };
foreach ($classes as $name => $pos) {
    $class = "RedisKit\\$name";
    foreach (['dsn' => $dsn, 'array' => $arr] as $form => $conn) {
        $args = $name === 'RateLimiter' ? ['x', 1, 1.0, $conn, ['colour' => 'blue']] : ['x', $conn, ['colour' => 'blue']];
        try {
            new $class(...$args);
        } catch (ValueError $e) {
        }
        $frame = $e->getTrace()[0];
        $arg = $frame['args'][$pos] ?? null;
        echo "$name/$form: ", get_class($e), ', trace[0] ', $frame['class'], '::', $frame['function'], ' args=', count($frame['args']),
            ' connection=', is_object($arg) ? get_class($arg) : gettype($arg), "\n";
        $check("$name/$form (string)", (string)$e);
        $check("$name/$form getTraceAsString", $e->getTraceAsString());
        $check("$name/$form getTrace", $e->getTrace());
        $check("$name/$form exception", $e);
        $args[0] = null;
        $bt = null;
        set_error_handler($handler);
        try {
            new $class(...$args);
        } catch (ValueError $e) {
        }
        restore_error_handler();
        if (!$bt) {
            $leaks[] = "$name/$form: no deprecation";
            continue;
        }
        $ctor = array_values(array_filter($bt, fn($f) => ($f['function'] ?? '') === '__construct'))[0];
        if ($form === 'dsn') echo "  debug_backtrace in a callback: ", get_class($ctor['args'][$pos]), "\n";
        $check("$name/$form debug_backtrace", $bt);
        $check("$name/$form exception 2", $e);
    }
}
unset($args, $conn, $e, $bt, $frame, $ctor);
echo 'leaks: ', $leaks ? implode(', ', $leaks) : 'none', "\n";
foreach (['RedisLeaderboard', 'RedisLock', 'DelayQueue', 'RateLimiter'] as $c) {
    $attrs = [];
    foreach ((new ReflectionMethod("RedisKit\\$c", '__construct'))->getParameters() as $p) {
        foreach ($p->getAttributes() as $a) $attrs[] = '$' . $p->getName() . ' #[' . $a->getName() . ']';
    }
    echo "$c::__construct: ", implode(', ', $attrs), "\n";
}
?>
--EXPECT--
RedisLeaderboard/dsn: ValueError, trace[0] RedisKit\RedisLeaderboard::__construct args=3 connection=SensitiveParameterValue
  debug_backtrace in a callback: SensitiveParameterValue
RedisLeaderboard/array: ValueError, trace[0] RedisKit\RedisLeaderboard::__construct args=3 connection=SensitiveParameterValue
RedisLock/dsn: ValueError, trace[0] RedisKit\RedisLock::__construct args=3 connection=SensitiveParameterValue
  debug_backtrace in a callback: SensitiveParameterValue
RedisLock/array: ValueError, trace[0] RedisKit\RedisLock::__construct args=3 connection=SensitiveParameterValue
DelayQueue/dsn: ValueError, trace[0] RedisKit\DelayQueue::__construct args=3 connection=SensitiveParameterValue
  debug_backtrace in a callback: SensitiveParameterValue
DelayQueue/array: ValueError, trace[0] RedisKit\DelayQueue::__construct args=3 connection=SensitiveParameterValue
RateLimiter/dsn: ValueError, trace[0] RedisKit\RateLimiter::__construct args=5 connection=SensitiveParameterValue
  debug_backtrace in a callback: SensitiveParameterValue
RateLimiter/array: ValueError, trace[0] RedisKit\RateLimiter::__construct args=5 connection=SensitiveParameterValue
leaks: none
RedisLeaderboard::__construct: $connection #[SensitiveParameter]
RedisLock::__construct: $connection #[SensitiveParameter]
DelayQueue::__construct: $connection #[SensitiveParameter]
RateLimiter::__construct: $connection #[SensitiveParameter]
