--TEST--
RateLimiter facade on RedisKit\Laravel\RateLimiter: attempt (one atomic check: 8 processes never get more than $maxAttempts through), hit/increment (exact under 8 processes), tooManyAttempts, attempts, remaining, retriesLeft, availableIn, clear, resetAttempts, decrement refused; a window starts with the first hit and lasts its decay; Laravel's key cleaning; one round trip per call
--SKIPIF--
<?php if (!function_exists('pcntl_fork')) echo 'skip pcntl needed'; ?>
--INI--
extension=mbstring
include_path=.:/usr/share/php
--FILE--
<?php
require __DIR__ . '/_laravel.inc';
require __DIR__ . '/_throttle.inc';

use Illuminate\Support\Facades\RateLimiter;

$app = rk_app();
echo get_class(RateLimiter::getFacadeRoot()), "\n";
$calls = function (callable $f) {
    $c0 = RedisKit\stats()['commands'];
    $v = $f();
    return [$v, RedisKit\stats()['commands'] - $c0];
};

// warm up: connected, and the scripts cached on the server
RateLimiter::hit('warm');
RateLimiter::attempts('warm');
RateLimiter::attempt('warm', 5, fn () => 1);
RateLimiter::clear('warm');

// counting: hit and increment return the count; each call is one round trip
echo json_encode([$calls(fn () => RateLimiter::hit('k')), RateLimiter::hit('k', 60), $calls(fn () => RateLimiter::increment('k', 60, 5))]), "\n";
echo json_encode([$calls(fn () => RateLimiter::attempts('k')), RateLimiter::remaining('k', 10), RateLimiter::retriesLeft('k', 10), RateLimiter::remaining('k', 3)]), "\n";
echo json_encode([$calls(fn () => RateLimiter::tooManyAttempts('k', 7)), RateLimiter::tooManyAttempts('k', 8), RateLimiter::tooManyAttempts('nothing', 0)]), "\n";
$in = RateLimiter::availableIn('k');
echo json_encode([$in >= 30 && $in <= 60, RateLimiter::availableIn('nothing')]), "\n";
echo json_encode([$calls(fn () => RateLimiter::clear('k')), RateLimiter::attempts('k'), RateLimiter::availableIn('k')]), "\n";
RateLimiter::hit('k');
echo json_encode([RateLimiter::resetAttempts('k'), RateLimiter::attempts('k')]), "\n";

// the window is the first hit's: a later decay does not move it (Laravel's timer is set once)
RateLimiter::hit('w', 100);
RateLimiter::hit('w', 5);
RateLimiter::hit('w', 1000);
$in = RateLimiter::availableIn('w');
echo json_encode([RateLimiter::attempts('w'), $in >= 70 && $in <= 100]), "\n";
// a DateInterval decay
RateLimiter::hit('di', new DateInterval('PT30S'));
$in = RateLimiter::availableIn('di');
echo json_encode($in >= 10 && $in <= 30), "\n";
// the Redis key: rediskit's prefix, limiter `laravel`, first_hit fixed window, expiring with the window
$ttl = (new RkRaw())->cmd('PTTL', rk_ns() . 'laravel:fwh:{w}');
echo json_encode($ttl > 70000 && $ttl <= 100000), "\n";

// a window ends on time: a 1 s decay; the count is gone 1 s after the first hit, not before
// (give or take the millisecond: Redis keeps expiry times in whole milliseconds)
$t0 = microtime(true);
RateLimiter::hit('short', 1);
RateLimiter::hit('short', 1);
$gone = rk_wait_for(fn () => RateLimiter::attempts('short') === 0, 10);
echo json_encode([$gone, microtime(true) - $t0 >= 0.99]), "\n";

// attempt: the callback's value, null as true, false when the limit is reached (nothing run)
$ran = 0;
echo json_encode([
    RateLimiter::attempt('a', 3, function () use (&$ran) { $ran++; return 'value'; }),
    RateLimiter::attempt('a', 3, function () use (&$ran) { $ran++; }),
    RateLimiter::attempt('a', 3, function () use (&$ran) { $ran++; return false; }),
    RateLimiter::attempt('a', 3, function () use (&$ran) { $ran++; return 'no'; }),
    $ran,
    RateLimiter::attempts('a'),
    RateLimiter::attempt('zero', 0, fn () => 'no'),
]), "\n";
echo json_encode($calls(fn () => RateLimiter::attempt('one-trip', 3, fn () => 1))), "\n";
// attempt and hit share one count per key
RateLimiter::hit('shared', 60);
RateLimiter::hit('shared', 60);
echo json_encode([RateLimiter::attempt('shared', 3, fn () => 'x'), RateLimiter::attempt('shared', 3, fn () => 'y'), RateLimiter::attempts('shared')]), "\n";

// decrement (Laravel 11+'s) cannot give units back
try {
    RateLimiter::decrement('k');
} catch (BadMethodCallException $e) {
    echo get_class($e), "\n";
}

// Laravel's key cleaning: entities folded to their letter
RateLimiter::hit('jöhn@example.com');
echo json_encode([RateLimiter::attempts('john@example.com'), RateLimiter::attempts('jöhn@example.com')]), "\n";
// the empty key works too
RateLimiter::hit('');
echo RateLimiter::attempts(''), "\n";

// limiter objects are kept per (limit, window), not made per call
$kept = Closure::bind(fn () => count($this->kept), RateLimiter::getFacadeRoot(), RedisKit\Laravel\RateLimiter::class);
$n = null;
for ($i = 0; $i < 20; $i++) {
    $n ??= $i === 1 ? $kept() : null;
    RateLimiter::hit('loop', 60);
    RateLimiter::attempt('loop', 100, fn () => 1, 60);
    RateLimiter::attempts('loop');
}
echo $kept() - $n, "\n";

// 8 processes: attempt('job', 5) 20 times each lets exactly 5 through; 25 hits each count 200
$ns = rk_ns();
$kids = [];
for ($i = 0; $i < 8; $i++) {
    $pid = pcntl_fork();
    if ($pid === 0) {
        $r = new RkRaw();
        $r->cmd('INCR', "{$ns}ready");
        $ok = rk_wait_for(fn () => (int) $r->cmd('GET', "{$ns}ready") === 8);
        for ($n = 0; $n < 20; $n++) {
            if (RateLimiter::attempt('job', 5, fn () => 'ran')) {
                $r->cmd('INCR', "{$ns}ran");
            }
            RateLimiter::hit('hits', 120);
            if ($n % 4 === 0) {
                RateLimiter::increment('hits', 120, 1);
            }
        }
        exit($ok ? 0 : 1);
    }
    $kids[] = $pid;
}
foreach ($kids as $pid) {
    pcntl_waitpid($pid, $st);
    if (!pcntl_wifexited($st) || pcntl_wexitstatus($st) !== 0) {
        echo "child $pid failed\n";
    }
}
$raw = new RkRaw();
echo json_encode([(int) $raw->cmd('GET', "{$ns}ran"), RateLimiter::attempts('job'), RateLimiter::tooManyAttempts('job', 5), RateLimiter::attempts('hits')]), "\n";
?>
--EXPECT--
RedisKit\Laravel\RateLimiter
[[1,1],2,[7,1]]
[[7,1],3,3,0]
[[true,1],false,false]
[true,0]
[[null,1],0,0]
[true,0]
[3,true]
true
true
[true,true]
["value",true,false,false,3,3,false]
[1,1]
["x",false,3]
BadMethodCallException
[1,1]
1
0
[5,5,true,200]
