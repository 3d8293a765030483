--TEST--
ThrottleRequests, Limit::after() (Laravel 11+): such a Limit is checked before the request and counted after it only when its callback says so, next to a Limit checked and counted atomically before; headers for the Limit with the least remaining
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

if (!method_exists(Limit::class, 'after')) {
    // Laravel 8 and 10 have no after(): their Limits are all counted before the request
    echo 'Limit::after() is Laravel 11+, this is Laravel ', rk_laravel_major(), "\n";
    exit;
}
$app = rk_throttle_app();
// failed responses (status >= 400) count against 'failures' (2 a minute); every request counts against 'all' (5)
RateLimiter::for('login', fn (Request $r) => [
    Limit::perMinute(5)->by('all'),
    Limit::perMinute(2)->by('failures')->after(fn ($response) => $response->getStatusCode() >= 400),
]);
$app['router']->get('/login', fn (Request $r) => new Illuminate\Http\Response('s' . $r->query('s'), (int) $r->query('s')))->middleware('throttle:login');

$show = function (array $r) {
    echo $r['status'], ' ', $r['headers']['x-ratelimit-limit'] ?? '-', '/', $r['headers']['x-ratelimit-remaining'] ?? '-', ' ',
        json_encode([RateLimiter::attempts(md5('loginall')), RateLimiter::attempts(md5('loginfailures'))]), "\n";
};
// a success: 'all' counts it (4 left), 'failures' does not (2 left, fewer: reported)
$show(rk_get($app, '/login?s=200'));
// two failures: both count; then 'failures' has fewer left (1, then 0)
$show(rk_get($app, '/login?s=401'));
$show(rk_get($app, '/login?s=401'));
// 'failures' is full: refused before the request, nothing counted
$r = rk_get($app, '/login?s=200');
$show($r);
echo rk_check_headers($r, 'login', 2, 60, 0, 30) ?: 'headers ok', "\n";
RateLimiter::clear(md5('loginfailures'));
$show(rk_get($app, '/login?s=200'));
$show(rk_get($app, '/login?s=200'));
// 'all' is full
$show(rk_get($app, '/login?s=200'));
?>
--EXPECTREGEX--
^(Limit::after\(\) is Laravel 11\+, this is Laravel (8|10)|200 2\/2 \[1,0\]
401 2\/1 \[2,1\]
401 2\/0 \[3,2\]
429 2\/0 \[3,2\]
headers ok
200 5\/1 \[4,0\]
200 5\/0 \[5,0\]
429 5\/0 \[5,0\])$
