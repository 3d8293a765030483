--TEST--
Laravel metrics endpoint: REDISKIT_METRICS_ROUTE registers a GET route serving RedisKit\Metrics::openMetrics() through the real HTTP kernel (what the throttle middleware counted, in the Prometheus text format that promtool accepts); a client address outside REDISKIT_METRICS_ALLOW gets 403 unless it sends the bearer token; no route without the setting
--INI--
extension=mbstring
include_path=.:/usr/share/php
--FILE--
<?php
require __DIR__ . '/_skeleton.inc';

$srv = new RkServer();
$base = sys_get_temp_dir() . '/rk-metrics-' . getmypid();
$dir = "$base/app";
if (!getenv("RK_KEEP")) register_shutdown_function(fn () => exec('rm -rf ' . escapeshellarg($base)));
rk_skeleton($dir);
rk_composer_require($dir, 'rediskit/laravel', __DIR__ . '/..');
[$rc, $out, $err] = rk_app_run($dir, array_merge(rk_php(), ['artisan', 'package:discover']));
echo "package:discover: exit $rc\n";
file_put_contents("$dir/.env", "REDISKIT_CONNECTION={$srv->url}\nREDISKIT_METRICS_ROUTE=/rediskit/metrics\nREDISKIT_METRICS_TOKEN=s3cret-token\n", FILE_APPEND);
file_put_contents("$dir/routes/web.php", "\nRoute::get('/limited', fn () => 'ok')->middleware('throttle:5,1');\n", FILE_APPEND);

// one PHP process serves every request here, as one PHP-FPM pool shares its counts
$code = <<<'PHP'
$kernel = app(Illuminate\Contracts\Http\Kernel::class);
$get = function (string $uri, string $ip, array $server = []) use ($kernel) {
    $request = Illuminate\Http\Request::create($uri, 'GET', [], [], [], $server + ['REMOTE_ADDR' => $ip]);
    $response = $kernel->handle($request);
    $kernel->terminate($request, $response);
    return $response;
};
$get('/limited', '192.0.2.7');
$get('/limited', '192.0.2.7');
$r = $get('/rediskit/metrics', '127.0.0.1');
$body = (string) $r->getContent();
file_put_contents(getenv('RK_OUT'), $body);
echo "from 127.0.0.1: ", $r->getStatusCode(), ' ', $r->headers->get('Content-Type'), ' | ', $r->headers->get('Cache-Control'), "\n";
preg_match_all('/^rediskit_limiter_allowed_total\{name="[^"]+"\} (\d+)$/m', $body, $m);
echo "  limiter decisions allowed: ", array_sum($m[1]), "\n";
echo "  round trips to Redis counted: ", preg_match('/^rediskit_connection_round_trips_total\{target="[^"]+",db_system_name="redis"\} [1-9]\d*$/m', $body) ? 'yes' : 'no', "\n";
$r = $get('/rediskit/metrics', '192.0.2.7');
echo "from 192.0.2.7: ", $r->getStatusCode(), ', metrics in the body: ', str_contains((string) $r->getContent(), 'rediskit_') ? 'yes' : 'no', "\n";
$r = $get('/rediskit/metrics', '192.0.2.7', ['HTTP_AUTHORIZATION' => 'Bearer s3cret-token']);
echo "with the token: ", $r->getStatusCode(), "\n";
$r = $get('/rediskit/metrics', '192.0.2.7', ['HTTP_AUTHORIZATION' => 'Bearer s3cret-tokeN']);
echo "with a wrong token: ", $r->getStatusCode(), "\n";
echo "route name: ", app('router')->getRoutes()->getByName('rediskit.metrics')?->uri() ?? 'none', "\n";
PHP;
$outFile = "$base/metrics.txt";
putenv("RK_OUT=$outFile");
[$rc, $out, $err] = rk_app_code($dir, $code);
echo $out, $err, "exit $rc\n";
exec('promtool check metrics < ' . escapeshellarg($outFile) . ' 2>&1', $lint, $prc);
echo "promtool check metrics: exit $prc ", implode(' ', $lint), "\n";

echo "-- without REDISKIT_METRICS_ROUTE\n";
file_put_contents("$dir/.env", preg_replace('/^REDISKIT_METRICS_ROUTE=.*$/m', '', file_get_contents("$dir/.env")));
$r = rk_app_get($dir, '/rediskit/metrics', '127.0.0.1');
echo "GET /rediskit/metrics: ", $r['status'], "\n";
?>
--EXPECT--
package:discover: exit 0
from 127.0.0.1: 200 text/plain; version=0.0.4; charset=utf-8 | no-store, private
  limiter decisions allowed: 2
  round trips to Redis counted: yes
from 192.0.2.7: 403, metrics in the body: no
with the token: 200
with a wrong token: 403
route name: rediskit/metrics
exit 0
promtool check metrics: exit 0 
-- without REDISKIT_METRICS_ROUTE
GET /rediskit/metrics: 404
