--TEST--
ThrottleRequests, named limiter with two Limits (by() keys of their own): all or nothing in one check, Laravel's headers value by value (the Limit with the least remaining, the first on a tie; on 429 Retry-After and X-RateLimit-Reset as a timestamp) plus RateLimit / RateLimit-Policy, ThrottleRequestsException, the counts seen through the RateLimiter facade
--INI--
extension=mbstring
include_path=.:/usr/share/php
--FILE--
<?php
require __DIR__ . '/_laravel.inc';
require __DIR__ . '/_throttle.inc';

use Illuminate\Cache\RateLimiting\Limit;
use Illuminate\Http\Request;
use Illuminate\Support\Facades\RateLimiter;

$app = rk_throttle_app();
// the global Limit comes first: Laravel's middleware hits it before it finds
// the per-user Limit full, so a refused request costs the others one
RateLimiter::for('api', fn (Request $r) => [
    Limit::perMinutes(2, 5)->by('global'),
    Limit::perMinute(3)->by('user:' . $r->query('u')),
]);
RateLimiter::for('tie', fn (Request $r) => [
    Limit::perMinute(4)->by('a'),
    Limit::perMinutes(2, 4)->by('b'),
]);
RateLimiter::for('long', fn (Request $r) => [
    Limit::perHour(2)->by('h'),
    Limit::perDay(100)->by('d'),
]);
$app['router']->get('/api', fn () => 'ok')->middleware('throttle:api');
$app['router']->get('/tie', fn () => 'ok')->middleware('throttle:tie');
$app['router']->get('/long', fn () => 'ok')->middleware('throttle:long');

echo get_class($app->make(Illuminate\Cache\RateLimiter::class)), "\n";
// the middleware's keys are Laravel's: md5(limiter name . by() key)
$user = fn (string $u) => md5('api' . 'user:' . $u);
$global = md5('api' . 'global');

// user 1: three pass, each reported with the per-user Limit (it has less left)
foreach ([2, 1, 0] as $left) {
    $r = rk_get($app, '/api?u=1');
    echo $r['status'], ' ', $r['body'], ' ', rk_check_headers($r, 'api', 3, 60, $left) ?: 'headers ok', "\n";
}
// the fourth is refused by the per-user Limit and counts nowhere
$r = rk_get($app, '/api?u=1');
echo $r['status'], ' ', $r['exception'], ' ', rk_check_headers($r, 'api', 3, 60, 0, 30) ?: 'headers ok', "\n";
echo json_encode([RateLimiter::attempts($user('1')), RateLimiter::attempts($global)]), "\n";

// user 2: the global Limit has 2 left, less than the user's 3: it is reported
$r = rk_get($app, '/api?u=2');
echo $r['status'], ' ', rk_check_headers($r, 'api', 5, 120, 1) ?: 'headers ok', "\n";
$r = rk_get($app, '/api?u=2');
echo $r['status'], ' ', rk_check_headers($r, 'api', 5, 120, 0) ?: 'headers ok', "\n";
// the global Limit is full: refused, and user 2's Limit is not charged
$r = rk_get($app, '/api?u=2');
echo $r['status'], ' ', rk_check_headers($r, 'api', 5, 120, 0, 90) ?: 'headers ok', "\n";
$r = rk_get($app, '/api?u=3');
echo $r['status'], ' ', rk_check_headers($r, 'api', 5, 120, 0, 90) ?: 'headers ok', "\n";
echo json_encode([RateLimiter::attempts($user('2')), RateLimiter::attempts($user('3')), RateLimiter::attempts($global)]), "\n";
echo json_encode([RateLimiter::remaining($global, 5), RateLimiter::availableIn($global) >= 115, RateLimiter::availableIn($global) <= 120]), "\n";

// clearing the global key through the facade lets users 2 and 3 in again (user 1 stays refused)
RateLimiter::clear($global);
echo json_encode([rk_get($app, '/api?u=2')['status'], rk_get($app, '/api?u=3')['status'], rk_get($app, '/api?u=1')['status']]), "\n";
echo json_encode([RateLimiter::attempts($user('1')), RateLimiter::attempts($user('2')), RateLimiter::attempts($user('3')), RateLimiter::attempts($global)]), "\n";

// a tie (3 left in both): the first Limit is reported, as Laravel does
$r = rk_get($app, '/tie');
echo $r['status'], ' ', rk_check_headers($r, 'tie', 4, 60, 3) ?: 'headers ok', "\n";

// perHour / perDay: windows of 3600 and 86400 seconds
$r = rk_get($app, '/long');
echo $r['status'], ' ', rk_check_headers($r, 'long', 2, 3600, 1) ?: 'headers ok', "\n";
rk_get($app, '/long');
$r = rk_get($app, '/long');
echo $r['status'], ' ', rk_check_headers($r, 'long', 2, 3600, 0, 3500, 3600) ?: 'headers ok', "\n";
echo json_encode([RateLimiter::attempts(md5('longh')), RateLimiter::attempts(md5('longd')), RateLimiter::availableIn(md5('longd')) > 86000]), "\n";

// the Redis keys: rediskit's prefix, limiter `laravel`, first_hit fixed window, TTL of the window
$raw = new RkRaw();
$keys = rk_object_keys($raw, rk_ns() . '*');
sort($keys);
echo count($keys), ' ', json_encode(in_array(rk_ns() . 'laravel:fwh:{' . $global . '}', $keys, true)), "\n";
$ttl = $raw->cmd('PTTL', rk_ns() . 'laravel:fwh:{' . md5('longd') . '}');
echo json_encode($ttl > 86000000 && $ttl <= 86400000), "\n";
?>
--EXPECT--
RedisKit\Laravel\RateLimiter
200 ok headers ok
200 ok headers ok
200 ok headers ok
429 Illuminate\Http\Exceptions\ThrottleRequestsException headers ok
[3,3]
200 headers ok
200 headers ok
429 headers ok
429 headers ok
[2,0,5]
[0,true,true]
[200,200,429]
[3,3,1,2]
200 headers ok
200 headers ok
429 headers ok
[2,2,true]
8 true
true
