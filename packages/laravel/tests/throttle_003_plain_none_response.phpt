--TEST--
ThrottleRequests: the plain throttle:3,1 form (route signature key, with a prefix, user-dependent 2|5), Limit::none() (nothing counted, no headers), a limiter returning a Response, response() callbacks given Laravel's headers (HttpResponseException), two Limits with one by() key, a Limit of 0, nested throttles
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
$router = $app['router'];
$router->get('/plain', fn () => 'plain')->middleware('throttle:3,1');
$router->get('/prefixed', fn () => 'prefixed')->middleware('throttle:2,1,p:');
$router->get('/split', fn () => 'split')->middleware('throttle:2|5,1,s:');
$router->get('/half', fn () => 'half')->middleware('throttle:2,0.5,h:');

// the route signature: sha1(domain|ip) for a guest
$sig = sha1('|127.0.0.1');
foreach ([2, 1, 0] as $left) {
    $r = rk_get($app, '/plain');
    echo $r['status'], ' ', $r['body'], ' ', rk_check_headers($r, 'throttle', 3, 60, $left) ?: 'headers ok', "\n";
}
$r = rk_get($app, '/plain');
echo $r['status'], ' ', $r['exception'], ' ', rk_check_headers($r, 'throttle', 3, 60, 0, 30) ?: 'headers ok', "\n";
echo json_encode([RateLimiter::attempts($sig), RateLimiter::tooManyAttempts($sig, 3), RateLimiter::remaining($sig, 5)]), "\n";
// the prefix keeps a count of its own
$r = rk_get($app, '/prefixed');
echo $r['status'], ' ', rk_check_headers($r, 'throttle', 2, 60, 1) ?: 'headers ok', ' ', RateLimiter::attempts('p:' . $sig), "\n";
// 2|5: 2 for guests
echo json_encode(array_map(fn ($i) => rk_get($app, '/split')['status'], [1, 2, 3])), "\n";
// decay of half a minute: a 30 s window
$r = rk_get($app, '/half');
echo $r['status'], ' ', rk_check_headers($r, 'throttle', 2, 30, 1) ?: 'headers ok', "\n";

// Limit::none(): through, nothing counted, no headers
RateLimiter::for('free', fn () => Limit::none());
RateLimiter::for('mixed', fn () => [Limit::none(), Limit::perMinute(2)->by('m')]);
$router->get('/free', fn () => 'free')->middleware('throttle:free');
$router->get('/mixed', fn () => 'mixed')->middleware('throttle:mixed');
$keys = count((new RkRaw())->cmd('KEYS', rk_ns() . '*'));
$r = array_map(fn ($i) => rk_get($app, '/free'), range(1, 5));
echo json_encode([array_unique(array_column($r, 'status')), array_merge(...array_column($r, 'headers')), count((new RkRaw())->cmd('KEYS', rk_ns() . '*')) - $keys]), "\n";
// none() next to a real Limit: only the real one counts
$r = rk_get($app, '/mixed');
echo $r['status'], ' ', rk_check_headers($r, 'mixed', 2, 60, 1) ?: 'headers ok', "\n";

// a limiter may answer with a Response of its own
RateLimiter::for('closed', fn () => new Illuminate\Http\Response('closed', 503));
$router->get('/closed', fn () => 'never')->middleware('throttle:closed');
$r = rk_get($app, '/closed');
echo $r['status'], ' ', $r['body'], ' ', json_encode($r['headers']), "\n";

// response(): its callback gets the request and Laravel's headers; a HttpResponseException carries the response
RateLimiter::for('custom', fn (Request $req) => Limit::perMinute(1)->by($req->query('u'))->response(
    fn (Request $request, array $headers) => new Illuminate\Http\Response('slow down ' . $request->query('u'), 429, $headers + ['X-Custom' => 'yes'])
));
$router->get('/custom', fn () => 'custom')->middleware('throttle:custom');
echo rk_get($app, '/custom?u=x')['status'], "\n";
$r = rk_get($app, '/custom?u=x');
echo $r['status'], ' ', $r['body'], ' ', $r['exception'], ' ', rk_check_headers($r, 'custom', 1, 60, 0, 30) ?: 'headers ok', "\n";
echo rk_get($app, '/custom?u=y')['status'], "\n";
// with two Limits, the refusing Limit's callback answers
RateLimiter::for('two', fn (Request $req) => [
    Limit::perMinute(5)->by('wide')->response(fn () => new Illuminate\Http\Response('wide', 429)),
    Limit::perMinute(1)->by('narrow:' . $req->query('u'))->response(fn () => new Illuminate\Http\Response('narrow', 429)),
]);
$router->get('/two', fn () => 'two')->middleware('throttle:two');
echo json_encode(array_map(fn ($u) => rk_get($app, "/two?u=$u")['body'], ['a', 'a', 'b', 'c', 'd', 'e', 'f'])), "\n";

// two Limits with one by() key count apart (Laravel 11+ gives them keys of their own; so do we on 8/10)
RateLimiter::for('same', fn () => [Limit::perMinute(3)->by('k'), Limit::perMinutes(2, 2)->by('k')]);
$router->get('/same', fn () => 'same')->middleware('throttle:same');
$r = array_map(fn ($i) => rk_get($app, '/same'), [1, 2, 3]);
echo json_encode(array_map(fn ($x) => [$x['status'], $x['headers']['x-ratelimit-limit'], $x['headers']['x-ratelimit-remaining']], $r)), "\n";

// a Limit of 0 refuses everything
RateLimiter::for('zero', fn () => Limit::perMinute(0)->by('z'));
$router->get('/zero', fn () => 'zero')->middleware('throttle:zero');
$r = rk_get($app, '/zero');
echo $r['status'], ' ', json_encode([$r['headers']['x-ratelimit-limit'], $r['headers']['x-ratelimit-remaining'], $r['headers']['retry-after']]), "\n";

// nested throttles: the outer one keeps the inner's headers when they show fewer remaining
RateLimiter::for('outer', fn () => Limit::perMinute(10)->by('o'));
RateLimiter::for('inner', fn () => Limit::perMinute(3)->by('i'));
$router->get('/nested', fn () => 'nested')->middleware(['throttle:outer', 'throttle:inner']);
$r = rk_get($app, '/nested');
echo $r['status'], ' ', rk_check_headers($r, 'inner', 3, 60, 2) ?: 'headers ok', ' ', RateLimiter::attempts(md5('outero')), "\n";
?>
--EXPECT--
200 plain headers ok
200 plain headers ok
200 plain headers ok
429 Illuminate\Http\Exceptions\ThrottleRequestsException headers ok
[3,true,2]
200 headers ok 1
[200,200,429]
200 headers ok
[[200],[],0]
200 headers ok
503 closed []
200
429 slow down x Illuminate\Http\Exceptions\HttpResponseException headers ok
200
["two","narrow","two","two","two","two","wide"]
[[200,"2","1"],[200,"2","0"],[429,"2","0"]]
429 ["0","0","60"]
200 headers ok 1
