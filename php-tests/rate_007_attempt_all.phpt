--TEST--
RateLimiter::attemptAll: one round trip; allowed only if every limiter allows, then all consume, otherwise none does; the result describes the tightest limiter; bad lists are a ValueError
--FILE--
<?php
require __DIR__ . '/_rate.inc';
use RedisKit\RateLimiter;

$ns = rk_ns();
// the short window: a second here, longer under an emulator (its 4 attempts
// must fall inside one window; what the test asserts does not change)
$w = (int)ceil(rk_time_scale());
$perSecond = new RateLimiter('per-second', 3, $w, rk_conn(), ['prefix' => $ns]);
$perHour = new RateLimiter('per-hour', 5, 3600, rk_conn(), ['prefix' => $ns, 'algorithm' => 'gcra']);
$daily = new RateLimiter('daily', 100, 86400, rk_conn(), ['prefix' => $ns, 'algorithm' => 'fixed_window']);
$all = [$perSecond, $perHour, $daily];

// warm up: connected, and the script cached on the node holding 'user' (on a cluster)
RateLimiter::attemptAll([new RateLimiter('w1', 9, 1, rk_conn(), ['prefix' => $ns]), new RateLimiter('w2', 9, 1, rk_conn(), ['prefix' => $ns])], 'user');
$c0 = RedisKit\stats()['commands'];
$r = RateLimiter::attemptAll($all, 'user');
var_dump(RedisKit\stats()['commands'] - $c0);               // one round trip for three limiters
echo str_replace(['"reset_after":' . $w . ',', '"window":' . $w . '}'], ['"reset_after":W,', '"window":W}'], json_encode($r)), "\n";   // per-second has the least left
RateLimiter::attemptAll($all, 'user');
RateLimiter::attemptAll($all, 'user');
$r = RateLimiter::attemptAll($all, 'user');                 // per-second is full: refused
echo json_encode([$r['allowed'], $r['policy'], $r['remaining'], $r['retry_after'] > 0 && $r['retry_after'] <= $w]), "\n";
// nothing was consumed by the refused attempt
echo json_encode([$perHour->peek('user')['remaining'], $daily->peek('user')['remaining']]), "\n";

// the per-hour limit runs out next; then per-second alone would allow, but nothing is consumed
usleep($w * 1000000);
var_dump(RateLimiter::attemptAll($all, 'user', 2)['allowed']);   // per-hour 2 -> 0
$r = RateLimiter::attemptAll($all, 'user');
echo json_encode([$r['allowed'], $r['policy'], $r['remaining']]), "\n";
echo json_encode([$perSecond->peek('user')['remaining'], $daily->peek('user')['remaining']]), "\n";
// the other limiters keep working on their own
var_dump($perSecond->allow('user'), $daily->allow('user'));

// keys of any list shape; a single limiter behaves like attempt()
var_dump(RateLimiter::attemptAll(['a' => $perSecond, 'b' => $daily], 'other')['allowed']);
$one = RateLimiter::attemptAll([$daily], 'solo', 4);
echo json_encode([$one['allowed'], $one['remaining'], $one['policy']]), "\n";

// bad lists and costs: ValueError, nothing sent
$c0 = RedisKit\stats()['commands'];
echo rk_ex(rk_catch(fn() => RateLimiter::attemptAll([], 'user'))), "\n";
echo rk_ex(rk_catch(fn() => RateLimiter::attemptAll([$perSecond, 'nope'], 'user'))), "\n";
echo rk_ex(rk_catch(fn() => RateLimiter::attemptAll(['x' => new stdClass()], 'user'))), "\n";
echo rk_ex(rk_catch(fn() => RateLimiter::attemptAll([$perSecond, $perSecond], 'user'))), "\n";
echo rk_ex(rk_catch(fn() => RateLimiter::attemptAll([$perSecond, new RateLimiter('per-second', 9, 9 * $w, rk_conn(), ['prefix' => $ns])], 'user'))), "\n";
echo rk_ex(rk_catch(fn() => RateLimiter::attemptAll([$perSecond, new RateLimiter('x', 9, 9, 'redis://127.0.0.1:1')], 'user'))), "\n";
echo rk_ex(rk_catch(fn() => RateLimiter::attemptAll($all, 'user', 4))), "\n";
echo rk_ex(rk_catch(fn() => RateLimiter::attemptAll($all, 'user', 0))), "\n";
echo rk_ex(rk_catch(fn() => RateLimiter::attemptAll($all, ''))), "\n";
var_dump(RedisKit\stats()['commands'] - $c0);
?>
--EXPECTF--
int(1)
{"allowed":true,"limit":3,"remaining":2,"retry_after":0,"reset_after":W,"policy":"per-second","window":W}
[false,"per-second",0,true]
[2,97]
bool(true)
[false,"per-hour",0]
[1,95]
bool(true)
bool(true)
bool(true)
[true,96,"daily"]
ValueError: RateLimiter::attemptAll: the list of limiters is empty
ValueError: RateLimiter::attemptAll: element 1 is not a RedisKit\RateLimiter (string given)
ValueError: RateLimiter::attemptAll: element 'x' is not a RedisKit\RateLimiter (object given)
ValueError: RateLimiter::attemptAll: limiter 1 has the same name, algorithm and key as an earlier one (they would share one state)
ValueError: RateLimiter::attemptAll: limiter 1 has the same name, algorithm and key as an earlier one (they would share one state)
ValueError: RateLimiter::attemptAll: all limiters must use the same connection (limiter 1 uses redis://127.0.0.1:1/0, limiter 0 uses %s)
ValueError: RateLimiter: cost 4 is more than this limiter can ever allow at once (its limit is 3)
ValueError: RateLimiter: cost must be at least 1, got 0
ValueError: RateLimiter: the key must not be empty
int(0)
