--TEST--
Laravel service provider: in a new application whose HTTP kernel names Laravel's ThrottleRequests as `throttle` (as every skeleton does), the package's provider alone (auto-discovered, nothing registered by hand) makes `throttle` rediskit's: a route with throttle:2,1 answers with the IETF RateLimit fields and refuses the third request with 429, through the real HTTP kernel; also when the kernel is made after the providers booted (as feature tests make it); config rediskit.throttle_alias false keeps Laravel's
--INI--
extension=mbstring
include_path=.:/usr/share/php
--FILE--
<?php
require __DIR__ . '/_skeleton.inc';

$srv = new RkServer();
$base = sys_get_temp_dir() . '/rk-alias-' . getmypid();
$dir = "$base/app";
if (!getenv("RK_KEEP")) register_shutdown_function(fn () => exec('rm -rf ' . escapeshellarg($base)));
rk_skeleton($dir);
rk_composer_require($dir, 'rediskit/laravel', __DIR__ . '/..');
[$rc, $out, $err] = rk_app_run($dir, array_merge(rk_php(), ['artisan', 'package:discover']));
echo "package:discover: exit $rc\n";
file_put_contents("$dir/.env", "REDISKIT_CONNECTION={$srv->url}\n", FILE_APPEND);
file_put_contents("$dir/routes/web.php", "\nRoute::get('/limited', fn () => 'ok')->middleware('throttle:2,1');\n", FILE_APPEND);

function show(array $r): void
{
    $h = $r['headers'];
    printf("%d %s | RateLimit-Policy: %s | RateLimit: %s | X-RateLimit-Remaining: %s | Retry-After: %s\n", $r['status'],
        $r['status'] === 200 ? $r['body'] : '-', $h['ratelimit-policy'] ?? '(none)',
        isset($h['ratelimit']) ? preg_replace('/;t=\d+$/', ';t=T', $h['ratelimit']) : '(none)',
        $h['x-ratelimit-remaining'] ?? '(none)', isset($h['retry-after']) ? 'yes' : '(none)');
}

echo "-- three requests, each in its own process through the HTTP kernel (as PHP-FPM serves them)\n";
for ($i = 0; $i < 3; $i++) {
    show(rk_app_get($dir, '/limited'));
}
$raw = $srv->raw();
var_dump(count($raw->cmd('KEYS', '*laravel*')) > 0);

echo "-- the kernel made after the providers booted (a feature test's order)\n";
[$rc, $out, $err] = rk_app_code($dir, <<<'PHP'
echo app('router')->getMiddleware()['throttle'], "\n";
$kernel = app(Illuminate\Contracts\Http\Kernel::class);
echo app('router')->getMiddleware()['throttle'], "\n";
// the kernel's own copy, which it syncs to the router again when middleware is added to a group
$aliases = method_exists($kernel, 'getMiddlewareAliases') ? $kernel->getMiddlewareAliases() : $kernel->getRouteMiddleware();
echo 'kernel: ', $aliases['throttle'], "\n";
$kernel->appendMiddlewareToGroup('web', Illuminate\Routing\Middleware\SubstituteBindings::class);
echo 'after a sync: ', app('router')->getMiddleware()['throttle'], "\n";
$r = $kernel->handle(Illuminate\Http\Request::create('/limited', 'GET', [], [], [], ['HTTP_ACCEPT' => 'application/json', 'REMOTE_ADDR' => '192.0.2.8']));
echo $r->getStatusCode(), ' ', $r->headers->get('RateLimit-Policy'), "\n";
PHP);
echo $out, $err, "exit $rc\n";

echo "-- REDISKIT_THROTTLE_ALIAS=false: the kernel's (Laravel's) throttle\n";
file_put_contents("$dir/.env", "REDISKIT_THROTTLE_ALIAS=false\n", FILE_APPEND);
$r = rk_app_get($dir, '/limited', '192.0.2.9');
show($r);
[$rc, $out, $err] = rk_app_code($dir, 'app(Illuminate\Contracts\Http\Kernel::class); echo app("router")->getMiddleware()["throttle"], "\n";');
echo $out, $err;
?>
--EXPECT--
package:discover: exit 0
-- three requests, each in its own process through the HTTP kernel (as PHP-FPM serves them)
200 ok | RateLimit-Policy: "throttle";q=2;w=60 | RateLimit: "throttle";r=1;t=T | X-RateLimit-Remaining: 1 | Retry-After: (none)
200 ok | RateLimit-Policy: "throttle";q=2;w=60 | RateLimit: "throttle";r=0;t=T | X-RateLimit-Remaining: 0 | Retry-After: (none)
429 - | RateLimit-Policy: "throttle";q=2;w=60 | RateLimit: "throttle";r=0;t=T | X-RateLimit-Remaining: 0 | Retry-After: yes
bool(true)
-- the kernel made after the providers booted (a feature test's order)
RedisKit\Laravel\ThrottleRequests
RedisKit\Laravel\ThrottleRequests
kernel: RedisKit\Laravel\ThrottleRequests
after a sync: RedisKit\Laravel\ThrottleRequests
200 "throttle";q=2;w=60
exit 0
-- REDISKIT_THROTTLE_ALIAS=false: the kernel's (Laravel's) throttle
200 ok | RateLimit-Policy: (none) | RateLimit: (none) | X-RateLimit-Remaining: 1 | Retry-After: (none)
Illuminate\Routing\Middleware\ThrottleRequests
