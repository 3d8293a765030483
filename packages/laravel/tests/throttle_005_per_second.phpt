--TEST--
ThrottleRequests, a per-second Limit (Limit::perSecond on Laravel 11+, decayMinutes = 1/60 on 8/10): 2 pass, the third gets Retry-After 1, refused requests consume nothing, and the next one passes once the window that started with the first hit is over, not before
--INI--
extension=mbstring
include_path=.:/usr/share/php
--FILE--
<?php
require __DIR__ . '/_laravel.inc';
require __DIR__ . '/_throttle.inc';

use Illuminate\Cache\RateLimiting\Limit;
use Illuminate\Support\Facades\RateLimiter;

$app = rk_throttle_app();
$perSecond = function (int $max): Limit {
    if (method_exists(Limit::class, 'perSecond')) {
        return Limit::perSecond($max);
    }
    $limit = Limit::perMinute($max);
    $limit->decayMinutes = 1 / 60;
    return $limit;
};
RateLimiter::for('burst', fn () => $perSecond(2)->by('s'));
$app['router']->get('/burst', fn () => 'ok')->middleware('throttle:burst');

$t0 = microtime(true);
foreach ([1, 0] as $left) {
    $r = rk_get($app, '/burst');
    echo $r['status'], ' ', rk_check_headers($r, 'burst', 2, 1, $left) ?: 'headers ok', "\n";
}
$r = rk_get($app, '/burst');
echo $r['status'], ' ', rk_check_headers($r, 'burst', 2, 1, 0, 1, 1) ?: 'headers ok', "\n";
// retry until it passes: the refused tries cost nothing, so the new window starts full;
// not before 1 s after the first hit (give or take the millisecond: Redis keeps expiry
// times in whole milliseconds)
$ok = rk_wait_for(function () use ($app, &$r) {
    $r = rk_get($app, '/burst');
    return $r['status'] === 200;
}, 10);
echo json_encode([$ok, microtime(true) - $t0 >= 0.99]), "\n";
echo $r['status'], ' ', rk_check_headers($r, 'burst', 2, 1, 1) ?: 'headers ok', "\n";
echo RateLimiter::attempts(md5('burst' . 's')), "\n";
?>
--EXPECT--
200 headers ok
200 headers ok
429 headers ok
[true,true]
200 headers ok
1
